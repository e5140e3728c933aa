/**
 * Creates the pi `AgentSessionRuntime` a worker hosts, for an `open` request: auth.json / models.json /
 * settings from the agent dir, pi's default session dir (passed explicitly: the SDK ignores the CLI's
 * session-dir settings), pi's own extension discovery plus Leyline's extension paths and factories, and the
 * scripted faux provider when asked for. A new research session gets its marker before extensions bind.
 * Leyline's bundled extensions (`extensions/<name>/index.ts`) are loaded in every runtime.
 *
 * A new child session (`new.child`, subagent runs): the header links the parent (`parentSession`), the
 * `leyline-subagent` marker goes in before extensions bind, the system prompt is appended through the resource
 * loader (`appendSystemPromptOverride`, so pi's own APPEND_SYSTEM.md stays), the explicit model and thinking
 * level are pi's initial ones, `tools` is pi's allowlist, and `excludeTools` is applied by `afterBind` (every
 * tool the runtime knows once extensions are bound, except those).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { Model } from "@earendil-works/pi-ai";
import type {
  AgentSession,
  AgentSessionRuntime,
  CreateAgentSessionRuntimeFactory,
  ExtensionFactory,
  SessionManager,
} from "@earendil-works/pi-coding-agent";
import { researchEventEntryData } from "../../domain/research/research-event.ts";
import { RESEARCH_CUSTOM_TYPE } from "../../domain/research/research-types.ts";
import { SUBAGENT_CUSTOM_TYPE } from "../../domain/session-summary.ts";
import { API_URL_ENV, type ChildSessionOptions, type RuntimeRequestOf, type SessionKind } from "./runtime-protocol.ts";
import { type AskTurn, registerScriptedFaux } from "./scripted-faux-provider.ts";

type PiModule = typeof import("@earendil-works/pi-coding-agent");
type PiAiModule = typeof import("@earendil-works/pi-ai");

export interface WorkerRuntimeDeps {
  extensionFactories: ExtensionFactory[];
  askFauxTurn: AskTurn;
  /** Receives the faux release function as soon as the provider is registered (so a failed open can undo it). */
  onFauxRegistered: (release: () => void) => void;
}

/** pi's folder for a cwd's sessions: `<agentDir>/sessions/--<cwd without leading slash, / \ : as ->--`. */
export function defaultSessionDir(agentDir: string, cwd: string): string {
  return path.join(agentDir, "sessions", `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
}

/**
 * Reads line 1 of a session file without letting pi touch it (`SessionManager.open` rewrites files whose
 * header is invalid). Throws when the header is not a pi session header.
 */
export function readSessionHeader(file: string): { id: string; cwd: string } {
  const fd = fs.openSync(file, "r");
  let head: string;
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const bytes = fs.readSync(fd, buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytes).toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
  const line = head.split("\n", 1)[0] ?? "";
  let header: unknown;
  try {
    header = JSON.parse(line);
  } catch {
    throw new Error(`${file}: line 1 is not a JSON session header`);
  }
  if (typeof header !== "object" || header === null) throw new Error(`${file}: line 1 is not a session header`);
  const record = header as Record<string, unknown>;
  if (record["type"] !== "session" || typeof record["id"] !== "string") throw new Error(`${file}: line 1 is not a pi session header`);
  if (typeof record["cwd"] !== "string" || record["cwd"] === "") throw new Error(`${file}: the session header has no cwd`);
  return { id: record["id"], cwd: record["cwd"] };
}

/** The folder of Leyline's bundled pi extensions (the repository's `extensions/`). */
export const BUNDLED_EXTENSIONS_DIR = fileURLToPath(new URL("../../extensions", import.meta.url));

/** Every `<dir>/<name>/index.ts` (sorted by name): the entry files of Leyline's bundled extensions. */
export function bundledExtensionPaths(dir: string = BUNDLED_EXTENSIONS_DIR): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(dir, entry.name, "index.ts"))
    .filter((file) => fs.existsSync(file))
    .sort();
}

/** Activates every tool the session knows except `excluded` (pi ignores names it does not know). */
export function activateAllToolsExcept(session: AgentSession, excluded: readonly string[]): void {
  const names = session.getAllTools().map((tool) => tool.name);
  session.setActiveToolsByName(names.filter((name) => !excluded.includes(name)));
}

export interface WorkerRuntime {
  runtime: AgentSessionRuntime;
  kind: SessionKind | null;
  /** Runs once, after extensions were first bound (child tool selection). */
  afterBind: (() => void) | null;
}

export async function createWorkerRuntime(
  pi: PiModule,
  ai: PiAiModule,
  request: RuntimeRequestOf<"open">,
  deps: WorkerRuntimeDeps,
): Promise<WorkerRuntime> {
  const options = request.options ?? {};
  // Before extensions load: bundled extensions read the API base URL from the environment.
  if (options.apiUrl !== undefined) process.env[API_URL_ENV] = options.apiUrl;
  const agentDir = path.resolve(options.agentDir ?? pi.getAgentDir());
  const authStorage = pi.AuthStorage.create(path.join(agentDir, "auth.json"));
  const modelRegistry = pi.ModelRegistry.create(authStorage, path.join(agentDir, "models.json"));
  let fauxModel: Model<string> | null = null;
  if (options.faux) {
    const registered = registerScriptedFaux(ai, modelRegistry, deps.askFauxTurn, options.faux);
    deps.onFauxRegistered(registered.release);
    fauxModel = registered.model;
  }

  let cwd: string;
  let sessionManager: SessionManager;
  let kind: SessionKind | null = null;
  let child: ChildSessionOptions | null = null;
  if (request.sessionFile !== undefined) {
    const file = path.resolve(request.sessionFile);
    cwd = readSessionHeader(file).cwd;
    sessionManager = pi.SessionManager.open(file, defaultSessionDir(agentDir, cwd));
  } else {
    const target = request.new;
    if (!target) throw new Error("open needs sessionFile or new");
    cwd = path.resolve(target.cwd);
    fs.mkdirSync(cwd, { recursive: true });
    const sessionDir = defaultSessionDir(agentDir, cwd);
    fs.mkdirSync(sessionDir, { recursive: true });
    sessionManager = pi.SessionManager.create(cwd, sessionDir);
    kind = target.kind ?? "session";
    child = target.child ?? null;
    if (child?.parentSession !== undefined) sessionManager.newSession({ parentSession: path.resolve(child.parentSession) });
  }
  const appendedPrompt = child?.systemPrompt !== undefined && child.systemPrompt.trim() !== "" ? child.systemPrompt : null;
  const tools = child?.tools ?? options.tools;

  const extensionPaths = [...new Set([...bundledExtensionPaths(), ...(options.extensionPaths ?? []).map((entry) => path.resolve(entry))])];
  const factory: CreateAgentSessionRuntimeFactory = async (args) => {
    const settingsManager = pi.SettingsManager.create(args.cwd, args.agentDir);
    const services = await pi.createAgentSessionServices({
      cwd: args.cwd,
      agentDir: args.agentDir,
      authStorage,
      settingsManager,
      modelRegistry,
      resourceLoaderOptions: {
        extensionFactories: deps.extensionFactories,
        additionalExtensionPaths: extensionPaths,
        ...(appendedPrompt !== null ? { appendSystemPromptOverride: (base: string[]) => [...base, appendedPrompt] } : {}),
      },
    });
    // The faux model is the default only where the session's own model cannot be restored.
    const stored = args.sessionManager.buildSessionContext().model;
    const storedModel = stored ? modelRegistry.find(stored.provider, stored.modelId) : undefined;
    const restorable = storedModel !== undefined && modelRegistry.hasConfiguredAuth(storedModel);
    // After the services: extensions may have registered the child's provider.
    const wanted = child?.model;
    const childModel = wanted ? modelRegistry.find(wanted.provider, wanted.id) : undefined;
    if (wanted && !childModel) throw new Error(`Unknown model ${wanted.provider}/${wanted.id}`);
    const created = await pi.createAgentSessionFromServices({
      services,
      sessionManager: args.sessionManager,
      ...(args.sessionStartEvent ? { sessionStartEvent: args.sessionStartEvent } : {}),
      ...(childModel ? { model: childModel } : fauxModel && !restorable ? { model: fauxModel } : {}),
      ...(child?.thinkingLevel !== undefined ? { thinkingLevel: child.thinkingLevel } : {}),
      ...(tools ? { tools } : {}),
    });
    // As pi's CLI does (main.js): extensions that failed to load become error diagnostics, not silence.
    const extensionErrors = services.resourceLoader.getExtensions().errors.map(({ path: file, error }) => ({
      type: "error" as const,
      message: `Failed to load extension "${file}": ${error}`,
    }));
    return { ...created, services, diagnostics: [...services.diagnostics, ...extensionErrors] };
  };
  const runtime = await pi.createAgentSessionRuntime(factory, { cwd, agentDir, sessionManager });
  if (kind === "research") {
    // The session-ID-bound research marker goes in before extensions bind (spec: POST /api/pi/sessions).
    const sessionId = runtime.session.sessionId;
    runtime.session.sessionManager.appendCustomEntry(RESEARCH_CUSTOM_TYPE, researchEventEntryData({ kind: "session", sessionId }));
  }
  // The subagent marker too: extensions (the read-only bash guard) see it from session_start on.
  if (child !== null) runtime.session.sessionManager.appendCustomEntry(SUBAGENT_CUSTOM_TYPE, child.marker);
  const excluded = child?.excludeTools;
  const afterBind = excluded !== undefined ? (): void => activateAllToolsExcept(runtime.session, excluded) : null;
  return { runtime, kind, afterBind };
}
