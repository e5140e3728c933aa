/**
 * The typed IPC protocol between the control plane and one runtime worker (a child process hosting one pi
 * `AgentSessionRuntime`). Every message is plain JSON, declared by a schema of domain/contract/worker-ipc.ts;
 * the types here are those schemas' static types. Both sides validate every incoming message with
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
import type { Static } from "typebox";
import type {
  ChildSessionOptions as ChildSessionOptionsSchema,
  ExtensionUiRequest as ExtensionUiRequestSchema,
  FauxTurnReply,
  ImageInput as ImageInputSchema,
  NewSessionTarget as NewSessionTargetSchema,
  RuntimeModelInfo as RuntimeModelInfoSchema,
  RuntimeRequests,
  RuntimeSlashCommand as RuntimeSlashCommandSchema,
  RuntimeSnapshot as RuntimeSnapshotSchema,
  WorkerMessages,
  WorkerOpenOptions as WorkerOpenOptionsSchema,
} from "../../domain/contract/worker-ipc.ts";
import type { FAULT_KINDS, SESSION_KINDS } from "../../domain/contract/worker-ipc.ts";
import { THINKING_LEVELS } from "../../domain/contract/worker-ipc.ts";

export { THINKING_LEVELS };

export const RUNTIME_PROTOCOL_VERSION = 1;

/** A validation outcome (runtime-protocol.validate.ts): the typed value or a human-readable reason. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

export type ThinkingLevelName = (typeof THINKING_LEVELS)[number];
export type SessionKind = (typeof SESSION_KINDS)[number];

export type ImageInput = Static<typeof ImageInputSchema>;

/** Worker configuration carried by `open` (the worker hosts one runtime for its whole life). */
export type WorkerOpenOptions = Static<typeof WorkerOpenOptionsSchema>;

/** The env var bundled extensions read the API base URL from. */
export const API_URL_ENV = "LEYLINE_API_URL";

/** A new child session (subagent run): see the module comment. */
export type ChildSessionOptions = Static<typeof ChildSessionOptionsSchema>;

/** The `new` target of `open`. */
export type NewSessionTarget = Static<typeof NewSessionTargetSchema>;

/** Every request as it travels (`{ id, type, ...payload }`). */
export type RuntimeRequest = Static<(typeof RuntimeRequests)[keyof typeof RuntimeRequests]>;
/** A request without its id (what a caller asks for). */
export type RuntimeRequestBody = RuntimeRequest extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never;
export type RuntimeRequestType = RuntimeRequestBody["type"];
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
  setLabel: RuntimeSnapshot;
  extensionUiReply: { delivered: boolean };
  snapshot: RuntimeSnapshot;
  preload: { preloaded: true };
  dispose: { disposed: true };
}

/** How pi authenticates a model's provider: an API key (auth.json, environment, runtime key or models.json), OAuth (subscription), or not known. */
export type { ModelAuthKind } from "../../domain/runtime/ultrafast.ts";

export type RuntimeModelInfo = Static<typeof RuntimeModelInfoSchema>;
export type RuntimeSlashCommand = Static<typeof RuntimeSlashCommandSchema>;

/** Runtime state as the worker sees it; `revision` increases with every snapshot one worker produces. */
export type RuntimeSnapshot = Static<typeof RuntimeSnapshotSchema>;

/** Extension UI requests forwarded from the worker. Dialogs carry a `requestId` answered by `extensionUiReply`. */
export type ExtensionUiRequest = Static<typeof ExtensionUiRequestSchema>;

export type FaultKind = (typeof FAULT_KINDS)[number];

export type WorkerMessage = Static<(typeof WorkerMessages)[keyof typeof WorkerMessages]>;

export type WorkerMessageType = WorkerMessage["type"];

export type ControlMessage = RuntimeRequest | Static<typeof FauxTurnReply>;
