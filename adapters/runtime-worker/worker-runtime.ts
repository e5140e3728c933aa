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
 *
 * Opening an existing session writes nothing unasked:
 * - a session whose header cwd no longer exists is refused before anything is touched (the API answers 409
 *   before it even starts a worker; this is the worker's own guard);
 * - a version-1/2 file is upgraded to version 3 by Leyline first (adapters/session-files/session-upgrade.ts:
 *   byte-identical copy in `<agentDir>/leyline-trash`, the read side's deterministic ids, atomic rename), because
 *   pi's `SessionManager.open` would rewrite it with new random ids; a `file-upgraded` notice says so;
 * - pi's `createAgentSession` appends a `thinking_level_change` to a resumed session whose branch has none
 *   (sdk.js, "Restore messages if session has existing data"); that entry is held back and written just before
 *   the first entry the person causes (`deferOpeningThinkingLevel`), so a session that is only opened keeps its
 *   bytes and mtime, and one that is acted on records the level its turns used, where pi would have put it;
 * - pi saves every `setModel` as the global default (`settings.json` defaultProvider/defaultModel); the scripted
 *   faux model is never saved there (a person's choice of a real model still is);
 * - when the session's own model cannot be restored (unknown, or no credentials) and pi goes on with another, a
 *   `model-fallback` notice names both (runtime-notices.ts carries notices into snapshots).
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
import type { RuntimeNotice } from "../../domain/runtime/runtime-types.ts";
import { cwdMissingMessage } from "../../domain/session-detail.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import { RESEARCH_CUSTOM_TYPE } from "../../domain/research/research-types.ts";
import { SUBAGENT_CUSTOM_TYPE } from "../../domain/session-summary.ts";
import { VISION_DIR_ENV } from "../../domain/vision/vision-attachments.ts";
import { API_URL_ENV, type ChildSessionOptions, type RuntimeRequestOf, type SessionKind } from "../runtime-protocol/runtime-protocol.ts";
import { installCreateOnWriteAgentFiles } from "./agent-files-on-write.ts";
import { setSessionNotices } from "./runtime-notices.ts";
import { type AskTurn, FAUX_PROVIDER, registerScriptedFaux } from "./scripted-faux-provider.ts";
import { upgradeSessionFile, type SessionUpgrade } from "../session-files/session-upgrade.ts";
import { leylineTrashDirOf } from "../session-files/agent-dir.ts";
import { applyKeylessProvidersFromFile } from "../pi-settings/keyless-providers.ts";

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

/**
 * Holds back the `thinking_level_change` pi's createAgentSession appends while it opens a resumed session (see
 * the module comment). Call before creating the session; call the returned function right after. From then on
 * the held-back entry is written just before the next entry the session appends (re-parented under it, so it
 * sits on that entry's branch), unless that entry is itself a thinking level change.
 */
export function deferOpeningThinkingLevel(sessionManager: SessionManager): () => void {
  const manager = sessionManager;
  let pending: string | null = null;
  // An own property shadows pi's prototype method while the session is created; deleting it restores pi's.
  manager.appendThinkingLevelChange = (level: string): string => {
    pending = level;
    return "";
  };
  return () => {
    delete (manager as Partial<SessionManager>).appendThinkingLevelChange;
    const level = pending;
    if (level === null) return;
    // pi's one funnel for new entries (private in its types): every append* builds the entry with
    // `parentId = leaf` and hands it here. Without it (another pi), the held-back entry is simply dropped.
    const internals = manager as unknown as { _appendEntry?: (entry: SessionEntry) => void };
    const appendEntry = internals._appendEntry;
    if (typeof appendEntry !== "function") return;
    internals._appendEntry = (entry: SessionEntry): void => {
      delete internals._appendEntry;
      if (entry.type !== "thinking_level_change" && entry.parentId === manager.getLeafId()) {
        entry.parentId = manager.appendThinkingLevelChange(level);
      }
      appendEntry.call(manager, entry);
    };
  };
}

/** pi's built-in provider ids (a runtime without models.json; once per worker process). */
let builtinIds: Promise<ReadonlySet<string>> | null = null;
function builtinProviderIds(pi: PiModule, agentDir: string): Promise<ReadonlySet<string>> {
  builtinIds ??= pi.ModelRuntime.create({ authPath: path.join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false }).then(
    (runtime) => new Set(runtime.getProviders().map((provider) => provider.id)),
  );
  return builtinIds;
}

/** Saves defaults as pi does, except the scripted faux model (a test and demo model, never a person's default). */
function keepFauxOutOfDefaults(settingsManager: ReturnType<PiModule["SettingsManager"]["create"]>): void {
  const save = settingsManager.setDefaultModelAndProvider.bind(settingsManager);
  settingsManager.setDefaultModelAndProvider = (provider: string, modelId: string): void => {
    if (provider !== FAUX_PROVIDER) save(provider, modelId);
  };
}

function upgradedNotice(upgrade: SessionUpgrade): RuntimeNotice {
  return {
    kind: "file-upgraded",
    message: `This session file was in pi's version-${upgrade.fromVersion} format. Leyline upgraded it to version 3 and kept the original at ${upgrade.backupPath}.`,
    fromVersion: upgrade.fromVersion,
    backupPath: upgrade.backupPath,
  };
}

function fallbackNotice(requested: { provider: string; id: string }, used: { provider: string; id: string } | null): RuntimeNotice {
  const wanted = `${requested.provider}/${requested.id}`;
  const message =
    used === null
      ? `This session used ${wanted}, which is not available here, and no other model is set up; pi cannot answer until one is.`
      : `This session used ${wanted}, which is not available here; pi continues with ${used.provider}/${used.id}.`;
  return { kind: "model-fallback", message, requested, used };
}

export interface WorkerRuntime {
  runtime: AgentSessionRuntime;
  kind: SessionKind | null;
  /** Runs once, after extensions were first bound (child tool selection). */
  afterBind: (() => void) | null;
  /**
   * Makes an existing session file safe for pi to open (cwd check, v1/v2 upgrade with a trash copy; the
   * upgrade notice follows the file into its runtime). Every open of a file goes through it: the first one
   * here, `switchSession` (requests and extension command contexts) in the worker host.
   */
  prepareSessionFile: (file: string) => { file: string; cwd: string };
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
  if (options.visionDir !== undefined) process.env[VISION_DIR_ENV] = options.visionDir;
  const agentDir = path.resolve(options.agentDir ?? pi.getAgentDir());
  // auth.json and models-store.json are created on the first write only (agent-files-on-write.ts): starting a
  // runtime writes nothing there.
  await installCreateOnWriteAgentFiles();
  const modelRuntime = await pi.ModelRuntime.create({
    authPath: path.join(agentDir, "auth.json"),
    modelsPath: path.join(agentDir, "models.json"),
  });
  // Custom providers without a key (local servers) are usable without a stored placeholder key.
  await applyKeylessProvidersFromFile(modelRuntime, path.join(agentDir, "models.json"), await builtinProviderIds(pi, agentDir));
  let fauxModel: Model<string> | null = null;
  if (options.faux) {
    const registered = await registerScriptedFaux(ai, modelRuntime, deps.askFauxTurn, options.faux);
    deps.onFauxRegistered(registered.release);
    fauxModel = registered.model;
  }

  let cwd: string;
  let sessionManager: SessionManager;
  let kind: SessionKind | null = null;
  let child: ChildSessionOptions | null = null;
  const upgrades = new Map<string, SessionUpgrade>();
  const prepareSessionFile = (given: string): { file: string; cwd: string } => {
    const file = path.resolve(given);
    const header = readSessionHeader(file);
    if (!fs.existsSync(header.cwd)) throw new Error(cwdMissingMessage(header.cwd));
    const upgrade = upgradeSessionFile(file, { trashDir: leylineTrashDirOf(agentDir) });
    if (upgrade !== null) upgrades.set(file, upgrade);
    return { file, cwd: header.cwd };
  };
  if (request.sessionFile !== undefined) {
    const prepared = prepareSessionFile(request.sessionFile);
    cwd = prepared.cwd;
    sessionManager = pi.SessionManager.open(prepared.file, defaultSessionDir(agentDir, cwd));
  } else {
    const target = request.new;
    if (!target) throw new Error("open needs sessionFile or new");
    cwd = path.resolve(target.cwd);
    if (target.preview === true) {
      // Viewing writes nothing: a preview's session lives in memory (pi would create its session folder).
      sessionManager = pi.SessionManager.inMemory(cwd);
    } else {
      fs.mkdirSync(cwd, { recursive: true });
      const sessionDir = defaultSessionDir(agentDir, cwd);
      fs.mkdirSync(sessionDir, { recursive: true });
      sessionManager = pi.SessionManager.create(cwd, sessionDir);
    }
    kind = target.kind ?? "session";
    child = target.child ?? null;
    // `sessionId`: a recovered never-saved session keeps its id (runtime-protocol.ts NewSessionTarget).
    if (child?.parentSession !== undefined || target.sessionId !== undefined) {
      sessionManager.newSession({
        ...(target.sessionId !== undefined ? { id: target.sessionId } : {}),
        ...(child?.parentSession !== undefined ? { parentSession: path.resolve(child.parentSession) } : {}),
      });
    }
  }
  const appendedPrompt = child?.systemPrompt !== undefined && child.systemPrompt.trim() !== "" ? child.systemPrompt : null;
  const tools = child?.tools ?? options.tools;

  const extensionPaths = [...new Set([...bundledExtensionPaths(), ...(options.extensionPaths ?? []).map((entry) => path.resolve(entry))])];
  const factory: CreateAgentSessionRuntimeFactory = async (args) => {
    const settingsManager = pi.SettingsManager.create(args.cwd, args.agentDir);
    keepFauxOutOfDefaults(settingsManager);
    const services = await pi.createAgentSessionServices({
      cwd: args.cwd,
      agentDir: args.agentDir,
      settingsManager,
      modelRuntime,
      resourceLoaderOptions: {
        extensionFactories: deps.extensionFactories,
        additionalExtensionPaths: extensionPaths,
        ...(appendedPrompt !== null ? { appendSystemPromptOverride: (base: string[]) => [...base, appendedPrompt] } : {}),
      },
    });
    // The faux model is the default only where the session's own model cannot be restored.
    const context = args.sessionManager.buildSessionContext();
    const stored = context.model;
    const storedModel = stored ? modelRuntime.getModel(stored.provider, stored.modelId) : undefined;
    const restorable = storedModel !== undefined && modelRuntime.hasConfiguredAuth(storedModel.provider);
    // After the services: extensions may have registered the child's provider.
    const wanted = child?.model;
    const childModel = wanted ? modelRuntime.getModel(wanted.provider, wanted.id) : undefined;
    if (wanted && !childModel) throw new Error(`Unknown model ${wanted.provider}/${wanted.id}`);
    const releaseThinking = context.messages.length > 0 ? deferOpeningThinkingLevel(args.sessionManager) : null;
    const created = await pi
      .createAgentSessionFromServices({
        services,
        sessionManager: args.sessionManager,
        ...(args.sessionStartEvent ? { sessionStartEvent: args.sessionStartEvent } : {}),
        ...(childModel ? { model: childModel } : fauxModel && !restorable ? { model: fauxModel } : {}),
        ...(child?.thinkingLevel !== undefined ? { thinkingLevel: child.thinkingLevel } : {}),
        ...(tools ? { tools } : {}),
      })
      .finally(() => releaseThinking?.());
    const notices: RuntimeNotice[] = [];
    const opened = args.sessionManager.getSessionFile();
    const upgrade = opened !== undefined ? upgrades.get(path.resolve(opened)) : undefined;
    if (upgrade !== undefined) notices.push(upgradedNotice(upgrade));
    // pi restores the stored model only for a session with messages and only with credentials (sdk.js).
    if (!childModel && stored && !restorable && context.messages.length > 0) {
      const used = created.session.model;
      notices.push(
        fallbackNotice({ provider: stored.provider, id: stored.modelId }, used ? { provider: used.provider, id: used.id } : null),
      );
    }
    setSessionNotices(created.session, notices);
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
  return { runtime, kind, afterBind, prepareSessionFile };
}
