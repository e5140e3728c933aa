/**
 * A reusable harness for integration tests that need REAL pi agent sessions without a network: a private
 * temp agent dir (PI_CODING_AGENT_DIR), pi-ai's faux provider with scripted replies (the only stand-in the
 * house style allows), in-memory auth/settings/model registry, and a resource loader that discovers nothing.
 * Sessions are created through the public SDK (`createAgentSession`, `createAgentSessionRuntime`) and write
 * real JSONL files into `<agentDir>/sessions/--<cwd>--/`.
 *
 * Environment: `createPiHarness` sets PI_OFFLINE=1 and PI_CODING_AGENT_DIR *before* it imports pi (the
 * import is dynamic for that reason: pi's `getAgentDir()` reads the env at call time, but
 * `utils/tools-manager.js` caches `<agentDir>/bin` at module load). `dispose()` restores both variables.
 * Test files must therefore take pi's runtime values from `harness.pi` / `harness.ai`, not from a static
 * import (`import type` is fine). Only one harness should be live per process at a time: the env is global.
 *
 * Determinism: the faux provider gets a fixed `api` and `tokenSize {min = max}`; pass fixed tool-call ids
 * (`fauxToolCall(name, args, { id })`). Entry ids, session ids and timestamps remain random / real time.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type {
  AgentSession,
  AgentSessionRuntime,
  ExtensionFactory,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import type { FauxModelDefinition, FauxProviderHandle, Model } from "@earendil-works/pi-ai";

export type PiModule = typeof import("@earendil-works/pi-coding-agent");
export type PiAiModule = typeof import("@earendil-works/pi-ai");
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

export interface PiHarnessOptions {
  /** Faux provider name (also the auth key name). Default "leyline-faux". */
  provider?: string;
  /** Faux api name, persisted as `message.api`. Default "leyline-faux-api". */
  api?: string;
  /** Faux models; default two reasoning models, "faux-a" and "faux-b". */
  models?: FauxModelDefinition[];
  /** Characters per streamed chunk are `tokenSize * 4`; fixed so chunking is deterministic. Default 4. */
  tokenSize?: number;
  /** Slows streaming (for steer/abort interleaving); default unthrottled. */
  tokensPerSecond?: number;
  /** Settings overrides for `SettingsManager.inMemory` (compaction and retry are off by default). */
  settings?: Record<string, unknown>;
  /** Prefix of the temp root directory. */
  tempPrefix?: string;
}

export interface HarnessSessionOptions {
  /** Default: `SessionManager.create(harness.cwd, harness.sessionDir)` (a new real session file). */
  sessionManager?: SessionManager;
  /** Extension factories loaded through the DefaultResourceLoader. */
  extensionFactories?: ExtensionFactory[];
  /** Tool allowlist. Default: read, bash, ls. */
  tools?: string[];
  /** Faux model id; default the first model. */
  modelId?: string;
  thinkingLevel?: ThinkingLevel;
  /** Call `bindExtensions({})` (fires session_start). Default true. */
  bind?: boolean;
}

export interface PiHarness {
  /** `@earendil-works/pi-coding-agent`, imported after the env was set. */
  readonly pi: PiModule;
  /** `@earendil-works/pi-ai`. */
  readonly ai: PiAiModule;
  /** The temp root holding everything below (removed by dispose). */
  readonly root: string;
  readonly agentDir: string;
  /** `<agentDir>/sessions` (what `SessionManager.listAll()` scans). */
  readonly sessionsDir: string;
  /** The project dir the sessions run in (a real temp dir; tools act on it). */
  readonly cwd: string;
  /** pi's default session dir for `cwd`: `<agentDir>/sessions/--<cwd>--`. */
  readonly sessionDir: string;
  readonly provider: string;
  readonly faux: FauxProviderHandle;
  /** pi's model runtime of every session here: in-memory credentials and catalog cache, the faux provider. */
  readonly modelRuntime: ModelRuntime;
  readonly settingsManager: SettingsManager;
  /** A faux model by id (default the first); throws for an unknown id. */
  model(id?: string): Model<string>;
  /** Creates a real AgentSession (SDK `createAgentSession`) wired to the harness. */
  createSession(options?: HarnessSessionOptions): Promise<AgentSession>;
  /** Creates an AgentSessionRuntime (for fork/new/switch flows); its first session is bound. */
  createRuntime(options?: Omit<HarnessSessionOptions, "bind">): Promise<AgentSessionRuntime>;
  /** Every `.jsonl` file below `sessionsDir`, sorted. */
  listSessionFiles(): string[];
  /** Disposes sessions and runtimes created here, unregisters the faux provider, restores env, removes temp files. */
  dispose(): Promise<void>;
}

const DEFAULT_MODELS: FauxModelDefinition[] = [
  { id: "faux-a", name: "Faux A", reasoning: true },
  { id: "faux-b", name: "Faux B", reasoning: true },
];

/**
 * pi's folder name for a cwd's sessions (session-manager.js `getDefaultSessionDir`, not exported from the
 * package root): `--<cwd without its leading slash, with / \\ : replaced by ->--`.
 */
export function piSessionFolderName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

function listJsonl(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listJsonl(full));
    else if (entry.isFile() && entry.name.endsWith(".jsonl")) out.push(full);
  }
  return out.sort();
}

export async function createPiHarness(options: PiHarnessOptions = {}): Promise<PiHarness> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), options.tempPrefix ?? "leyline-pi-")));
  const agentDir = path.join(root, "agent");
  const cwd = path.join(root, "project");
  fs.mkdirSync(agentDir, { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });

  const previousEnv = { agentDir: process.env["PI_CODING_AGENT_DIR"], offline: process.env["PI_OFFLINE"] };
  process.env["PI_CODING_AGENT_DIR"] = agentDir;
  process.env["PI_OFFLINE"] = "1";

  const restoreEnvAndFiles = (): void => {
    if (previousEnv.agentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
    else process.env["PI_CODING_AGENT_DIR"] = previousEnv.agentDir;
    if (previousEnv.offline === undefined) delete process.env["PI_OFFLINE"];
    else process.env["PI_OFFLINE"] = previousEnv.offline;
    fs.rmSync(root, { recursive: true, force: true });
  };

  let pi: PiModule;
  let ai: PiAiModule;
  try {
    pi = await import("@earendil-works/pi-coding-agent");
    ai = await import("@earendil-works/pi-ai");
    if (pi.getAgentDir() !== agentDir) throw new Error(`pi reads agent dir ${pi.getAgentDir()}, expected ${agentDir}`);
  } catch (error) {
    restoreEnvAndFiles();
    throw error;
  }

  const provider = options.provider ?? "leyline-faux";
  const tokenSize = options.tokenSize ?? 4;
  const faux = ai.fauxProvider({
    api: options.api ?? "leyline-faux-api",
    provider,
    models: options.models ?? DEFAULT_MODELS,
    tokenSize: { min: tokenSize, max: tokenSize },
    ...(options.tokensPerSecond !== undefined ? { tokensPerSecond: options.tokensPerSecond } : {}),
  });

  const modelRuntime = await pi.ModelRuntime.create({
    credentials: new ai.InMemoryCredentialStore(),
    modelsPath: null,
    modelsStore: new ai.InMemoryModelsStore(),
  });
  modelRuntime.registerNativeProvider(faux.provider);
  await modelRuntime.setRuntimeApiKey(provider, "faux-key");
  await modelRuntime.refresh({ allowNetwork: false });
  const settingsManager = pi.SettingsManager.inMemory({
    compaction: { enabled: false },
    retry: { enabled: false },
    ...options.settings,
  });
  const sessionsDir = path.join(agentDir, "sessions");
  const sessionDir = path.join(sessionsDir, piSessionFolderName(cwd));
  fs.mkdirSync(sessionDir, { recursive: true });

  const sessions: AgentSession[] = [];
  const runtimes: AgentSessionRuntime[] = [];

  const model = (id?: string): Model<string> => {
    const found = id === undefined ? faux.getModel() : faux.getModel(id);
    if (!found) throw new Error(`unknown faux model ${id ?? "(default)"}`);
    return found;
  };

  const resourceLoaderOptions = (extensionFactories: ExtensionFactory[] | undefined) => ({
    extensionFactories: extensionFactories ?? [],
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  });

  const createSession = async (opts: HarnessSessionOptions = {}): Promise<AgentSession> => {
    const resourceLoader = new pi.DefaultResourceLoader({
      cwd,
      agentDir,
      settingsManager,
      ...resourceLoaderOptions(opts.extensionFactories),
    });
    await resourceLoader.reload();
    const { session } = await pi.createAgentSession({
      cwd,
      agentDir,
      modelRuntime,
      settingsManager,
      resourceLoader,
      model: model(opts.modelId),
      thinkingLevel: opts.thinkingLevel ?? "off",
      tools: opts.tools ?? ["read", "bash", "ls"],
      sessionManager: opts.sessionManager ?? pi.SessionManager.create(cwd, sessionDir),
    });
    sessions.push(session);
    if (opts.bind ?? true) await session.bindExtensions({});
    return session;
  };

  const createRuntime = async (opts: Omit<HarnessSessionOptions, "bind"> = {}): Promise<AgentSessionRuntime> => {
    const factory: Parameters<PiModule["createAgentSessionRuntime"]>[0] = async (args) => {
      const services = await pi.createAgentSessionServices({
        cwd: args.cwd,
        agentDir: args.agentDir,
        settingsManager,
        modelRuntime,
        resourceLoaderOptions: resourceLoaderOptions(opts.extensionFactories),
      });
      const created = await pi.createAgentSessionFromServices({
        services,
        sessionManager: args.sessionManager,
        ...(args.sessionStartEvent ? { sessionStartEvent: args.sessionStartEvent } : {}),
        model: model(opts.modelId),
        thinkingLevel: opts.thinkingLevel ?? "off",
        tools: opts.tools ?? ["read", "bash", "ls"],
      });
      return { ...created, services, diagnostics: services.diagnostics };
    };
    const runtime = await pi.createAgentSessionRuntime(factory, {
      cwd,
      agentDir,
      sessionManager: opts.sessionManager ?? pi.SessionManager.create(cwd, sessionDir),
    });
    runtimes.push(runtime);
    await runtime.session.bindExtensions({});
    return runtime;
  };

  let disposed = false;
  const dispose = async (): Promise<void> => {
    if (disposed) return;
    disposed = true;
    try {
      for (const runtime of runtimes) await runtime.dispose();
      for (const session of sessions) session.dispose();
    } finally {
      modelRuntime.unregisterProvider(provider);
      restoreEnvAndFiles();
    }
  };

  return {
    pi,
    ai,
    root,
    agentDir,
    sessionsDir,
    cwd,
    sessionDir,
    provider,
    faux,
    modelRuntime,
    settingsManager,
    model,
    createSession,
    createRuntime,
    listSessionFiles: () => listJsonl(sessionsDir),
    dispose,
  };
}
