/**
 * Creates the pi `AgentSessionRuntime` a worker hosts, for an `open` request: auth.json / models.json /
 * settings from the agent dir, pi's default session dir (passed explicitly: the SDK ignores the CLI's
 * session-dir settings), pi's own extension discovery plus Leyline's extension paths and factories, and the
 * scripted faux provider when asked for. A new research session gets its marker before extensions bind.
 * Leyline's bundled extensions (`extensions/<name>/index.ts`) are loaded in every runtime.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { Model } from "@earendil-works/pi-ai";
import type {
  AgentSessionRuntime,
  CreateAgentSessionRuntimeFactory,
  ExtensionFactory,
  SessionManager,
} from "@earendil-works/pi-coding-agent";
import { researchEventEntryData } from "../../domain/research/research-event.ts";
import { RESEARCH_CUSTOM_TYPE } from "../../domain/research/research-types.ts";
import type { RuntimeRequestOf, SessionKind } from "./runtime-protocol.ts";
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

export async function createWorkerRuntime(
  pi: PiModule,
  ai: PiAiModule,
  request: RuntimeRequestOf<"open">,
  deps: WorkerRuntimeDeps,
): Promise<{ runtime: AgentSessionRuntime; kind: SessionKind | null }> {
  const options = request.options ?? {};
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
  }

  const extensionPaths = [...new Set([...bundledExtensionPaths(), ...(options.extensionPaths ?? []).map((entry) => path.resolve(entry))])];
  const factory: CreateAgentSessionRuntimeFactory = async (args) => {
    const settingsManager = pi.SettingsManager.create(args.cwd, args.agentDir);
    const services = await pi.createAgentSessionServices({
      cwd: args.cwd,
      agentDir: args.agentDir,
      authStorage,
      settingsManager,
      modelRegistry,
      resourceLoaderOptions: { extensionFactories: deps.extensionFactories, additionalExtensionPaths: extensionPaths },
    });
    // The faux model is the default only where the session's own model cannot be restored.
    const stored = args.sessionManager.buildSessionContext().model;
    const storedModel = stored ? modelRegistry.find(stored.provider, stored.modelId) : undefined;
    const restorable = storedModel !== undefined && modelRegistry.hasConfiguredAuth(storedModel);
    const created = await pi.createAgentSessionFromServices({
      services,
      sessionManager: args.sessionManager,
      ...(args.sessionStartEvent ? { sessionStartEvent: args.sessionStartEvent } : {}),
      ...(fauxModel && !restorable ? { model: fauxModel } : {}),
      ...(options.tools ? { tools: options.tools } : {}),
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
  return { runtime, kind };
}
