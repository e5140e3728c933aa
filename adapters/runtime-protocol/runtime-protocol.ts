/**
 * The typed IPC protocol between the control plane and one runtime worker (a child process hosting one pi
 * `AgentSessionRuntime`). Every message is plain JSON. Both sides validate every incoming message with
 * `parseControlMessage` / `parseWorkerMessage` (runtime-protocol.validate.ts); an invalid message is rejected
 * with a clear error and never crashes either side.
 *
 * Control plane → worker: `RuntimeRequest` (`{ id, type, ...payload }`) and `faux_turn_reply`. `id` and `type`
 * are the envelope, so no payload field may be called either (hence `setModel { provider, modelId }`).
 * Worker → control plane: `ready`, `reply`, `event`, `snapshot`, `extension_ui`, `extension_error`,
 * `heartbeat`, `fault`, `faux_turn_request`.
 *
 * The API base URL: bundled extensions running in a worker (the subagent extension calls POST
 * /api/pi/subagent) read it from `process.env.LEYLINE_API_URL` (`API_URL_ENV`). The control plane puts it in a
 * forked worker's environment at spawn and in `open.options.apiUrl`; the worker exports the latter to its
 * `process.env` before extensions load (the in-process adapter shares the control plane's environment).
 *
 * Child sessions (subagents): `open.new.child` (`ChildSessionOptions`) creates the session with a
 * `parentSession` header link and the `leyline-subagent` marker entry (appended before extensions bind), an
 * appended system prompt, an explicit model and thinking level, and a tool allowlist (`tools`) or every tool the
 * child discovers except some (`excludeTools`, applied once extensions are bound). Never both.
 */
import type { FauxTurn } from "./faux-script.ts";
import type { RuntimeNotice } from "../../domain/runtime/runtime-types.ts";
import type { ModelAuthKind } from "../../domain/runtime/ultrafast.ts";
import type { SubagentMarkerData } from "../../domain/subagent/subagent-marker.ts";

export const RUNTIME_PROTOCOL_VERSION = 1;

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevelName = (typeof THINKING_LEVELS)[number];

export const SESSION_KINDS = ["session", "research"] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

export interface ImageInput {
  type: "image";
  /** base64 */
  data: string;
  mimeType: string;
}

/** Worker configuration carried by `open` (the worker hosts one runtime for its whole life). */
export interface WorkerOpenOptions {
  /** pi's agent dir; default: the worker's `getAgentDir()` (PI_CODING_AGENT_DIR). */
  agentDir?: string;
  /** Extra extension files/dirs to load (Leyline's bundled extensions), besides pi's own discovery. */
  extensionPaths?: string[];
  /** Tool allowlist by name; default pi's default set (read, bash, edit, write + extension tools). */
  tools?: string[];
  /** Register the faux provider (`faux` / `faux-1`, `faux-2`) whose turns come from the control plane. */
  faux?: { tokensPerSecond?: number; tokenSize?: number };
  /** Heartbeat interval in ms; 0 disables. Default 5000. */
  heartbeatMs?: number;
  /** The API base URL (`http://host:port`), exported as LEYLINE_API_URL before extensions load. */
  apiUrl?: string;
}

/** The env var bundled extensions read the API base URL from. */
export const API_URL_ENV = "LEYLINE_API_URL";

/** A new child session (subagent run): see the module comment. */
export interface ChildSessionOptions {
  /** The parent's session file, written to the child's header as `parentSession`. */
  parentSession?: string;
  /** The `leyline-subagent` marker entry's data. */
  marker: SubagentMarkerData;
  /** Appended to pi's system prompt. */
  systemPrompt?: string;
  model?: { provider: string; id: string };
  thinkingLevel?: ThinkingLevelName;
  /** Tool allowlist (overrides `options.tools`). */
  tools?: string[];
  /** Every tool the child discovers except these. */
  excludeTools?: string[];
}

/** The `new` target of `open`. */
export interface NewSessionTarget {
  cwd: string;
  kind?: SessionKind;
  child?: ChildSessionOptions;
  /** The new session's id (default: pi makes one): a worker that died before any file existed comes back with the same id. */
  sessionId?: string;
}

export type RuntimeRequestBody =
  | { type: "open"; sessionFile?: string; new?: NewSessionTarget; options?: WorkerOpenOptions }
  | { type: "prompt"; text: string; images?: ImageInput[]; streamingBehavior?: "steer" | "followUp"; awaitCompletion?: boolean }
  | { type: "steer"; text: string; images?: ImageInput[] }
  | { type: "followUp"; text: string; images?: ImageInput[] }
  | { type: "abort" }
  | { type: "clearQueue" }
  | { type: "compact"; customInstructions?: string }
  | { type: "setModel"; provider: string; modelId: string }
  | { type: "setThinkingLevel"; level: ThinkingLevelName }
  | { type: "bash"; command: string; excludeFromContext?: boolean }
  | { type: "reload" }
  | {
      type: "navigateTree";
      targetId: string;
      summarize?: boolean;
      customInstructions?: string;
      replaceInstructions?: boolean;
      label?: string;
    }
  | { type: "fork"; entryId: string; position?: "before" | "at" }
  | { type: "newSession" }
  | { type: "switchSession"; sessionFile: string }
  | { type: "setSessionName"; name: string }
  | { type: "extensionUiReply"; requestId: string; confirmed?: boolean; value?: string; cancelled?: boolean }
  | { type: "snapshot" }
  /**
   * Imports pi and answers once it is loaded, opening nothing and writing nothing: a spare worker
   * (adapters/runtime-host/runtime-host.ts `spareWorker`) takes the import's seconds before it is needed.
   */
  | { type: "preload" }
  | { type: "dispose" };

export type RuntimeRequestType = RuntimeRequestBody["type"];
export type RuntimeRequest = RuntimeRequestBody & { id: string };
export type RuntimeRequestOf<T extends RuntimeRequestType> = Extract<RuntimeRequestBody, { type: T }>;
/** The payload of a request (everything but `id` and `type`). */
export type RuntimePayload<T extends RuntimeRequestType> = Omit<RuntimeRequestOf<T>, "type">;

export interface BashResultInfo {
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
}

export interface CompactionResultInfo {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
}

/** The `result` of a successful reply, by request type. */
export interface RuntimeResultMap {
  open: RuntimeSnapshot;
  /** `completed` is true only when `awaitCompletion` was set (the reply then follows the whole run). */
  prompt: { accepted: true; completed: boolean };
  steer: RuntimeSnapshot;
  followUp: RuntimeSnapshot;
  abort: RuntimeSnapshot;
  clearQueue: { steering: string[]; followUp: string[] };
  compact: CompactionResultInfo;
  setModel: RuntimeSnapshot;
  setThinkingLevel: RuntimeSnapshot;
  bash: BashResultInfo;
  reload: RuntimeSnapshot;
  navigateTree: { cancelled: boolean; editorText?: string; aborted?: boolean; summaryEntryId?: string };
  fork: { cancelled: boolean; selectedText?: string; snapshot: RuntimeSnapshot };
  newSession: { cancelled: boolean; snapshot: RuntimeSnapshot };
  switchSession: { cancelled: boolean; snapshot: RuntimeSnapshot };
  setSessionName: RuntimeSnapshot;
  extensionUiReply: { delivered: boolean };
  snapshot: RuntimeSnapshot;
  preload: { preloaded: true };
  dispose: { disposed: true };
}

/** How pi authenticates a model's provider: an API key (auth.json, environment, runtime key or models.json), OAuth (subscription), or not known. */
export { MODEL_AUTH_KINDS, type ModelAuthKind } from "../../domain/runtime/ultrafast.ts";

export interface RuntimeModelInfo {
  provider: string;
  id: string;
  name: string;
  api: string;
  reasoning: boolean;
  input: string[];
  contextWindow: number;
  maxTokens: number;
  availableThinkingLevels: string[];
  /** From pi's model registry (`isUsingOAuth`, `hasConfiguredAuth`); absent means not known. */
  authKind?: ModelAuthKind;
}

export interface RuntimeSlashCommand {
  name: string;
  description?: string;
  source: "extension" | "prompt" | "skill";
}

/** Runtime state as the worker sees it; `revision` increases with every snapshot one worker produces. */
export interface RuntimeSnapshot {
  revision: number;
  sessionId: string;
  sessionFile: string | null;
  cwd: string;
  sessionName: string | null;
  kind: SessionKind | null;
  model: RuntimeModelInfo | null;
  availableModels: RuntimeModelInfo[];
  thinkingLevel: string;
  availableThinkingLevels: string[];
  isStreaming: boolean;
  isCompacting: boolean;
  isBashRunning: boolean;
  pendingToolCalls: string[];
  queuedMessages: { steering: string[]; followUp: string[] };
  steeringMode: string;
  followUpMode: string;
  activeToolNames: string[];
  contextUsage: { tokens: number | null; contextWindow: number; percent: number | null } | null;
  slashCommands: RuntimeSlashCommand[];
  diagnostics: Array<{ type: string; message: string }>;
  modelFallbackMessage: string | null;
  /** What the runtime did on its own (model fallback, file upgrade); absent from older workers. */
  notices?: RuntimeNotice[];
}

/** Extension UI requests forwarded from the worker. Dialogs carry a `requestId` answered by `extensionUiReply`. */
export type ExtensionUiRequest =
  | { method: "confirm"; requestId: string; title: string; message: string; timeoutMs: number | null }
  | { method: "select"; requestId: string; title: string; options: string[]; timeoutMs: number | null }
  | { method: "input"; requestId: string; title: string; placeholder: string | null; timeoutMs: number | null }
  | { method: "editor"; requestId: string; title: string; prefill: string | null; timeoutMs: number | null }
  /** A dialog ended without a reply (timeout, abort signal, runtime replaced or disposed). */
  | { method: "dismiss"; requestId: string; reason: "timeout" | "aborted" | "replaced" | "disposed" }
  | { method: "notify"; message: string; level: "info" | "warning" | "error" }
  | { method: "setStatus"; key: string; text: string | null }
  | { method: "setWidget"; key: string; lines: string[] | null; placement: "aboveEditor" | "belowEditor" | null }
  | { method: "setTitle"; title: string };

export const DIALOG_METHODS = ["confirm", "select", "input", "editor"] as const;

export type FaultKind = "protocol" | "uncaughtException" | "unhandledRejection" | "runtime";

export type WorkerMessage =
  | { type: "ready"; protocolVersion: number; pid: number }
  | { type: "reply"; id: string; ok: true; result: unknown }
  | { type: "reply"; id: string; ok: false; error: string }
  /**
   * A session event as live-event-encoder.ts sends it: pi's `AgentSessionEvent`s without the copies of content
   * the transcript carries, and domain/live/live-stream.ts's `stream_delta`, `stream_snapshot` and
   * `bash_execution_start`/`_end` (pi's `message_update` and `tool_execution_update` never travel).
   */
  | { type: "event"; event: { type: string } & Record<string, unknown> }
  | { type: "snapshot"; snapshot: RuntimeSnapshot }
  | { type: "extension_ui"; request: ExtensionUiRequest }
  | { type: "extension_error"; error: { extensionPath: string; event: string; error: string; stack?: string } }
  | { type: "heartbeat"; seq: number; at: number; isStreaming: boolean }
  | { type: "fault"; kind: FaultKind; message: string; fatal: boolean }
  | { type: "faux_turn_request"; id: string; latestUserText: string };

export type WorkerMessageType = WorkerMessage["type"];

export type ControlMessage = RuntimeRequest | { type: "faux_turn_reply"; id: string; turn: FauxTurn | null };
