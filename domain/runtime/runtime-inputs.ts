/**
 * What the runtime host feeds the open-runtime snapshot projection (`projections/active-runtime.projection.ts`)
 * for one open runtime. Every input is plain JSON, so it can cross the worker IPC boundary as is.
 *
 * Sources:
 * - `runtimeAttached`: the runtime's identity (session id, file path, cwd), once at open and after a change;
 * - `workerSnapshot`: state polled from the worker's `AgentSession`; every field is optional and only the
 *   fields present are applied (`null` clears `model` and `contextUsage`);
 * - `sessionEvent`: a pi `AgentSessionEvent` as received (pi's type is assignable to `RuntimeSessionEvent`);
 * - extension UI bridge: `extensionStatus`, `extensionWidget`, `extensionNotification`,
 *   `confirmationRequested` / `confirmationResolved` / `confirmationExpired` (times come from the host), and
 *   `extensionUiReset` when the runtime is replaced (reload, recovery) and extensions publish afresh;
 * - `promptQueue`: the prompt queue DTO (`selectPromptQueue`) after each change, or null without a queue;
 * - `research`: the research state of the session's active branch (from the session projections);
 * - `diagnostics`: the runtime's current diagnostic records (replaces the list).
 */
import type { ResearchState } from "../research/research-types.ts";
import type {
  ContextUsage,
  ExtensionConfirmation,
  ExtensionNotification,
  Model,
  PromptQueue,
  QueuedMessages,
  RuntimeDiagnostic,
  RuntimeNotice,
  SlashCommand,
  WidgetPlacement,
} from "./runtime-types.ts";

/** A worker's view of its `AgentSession`. Absent fields are unchanged; `null` clears the optional ones. */
export interface RuntimeWorkerSnapshot {
  model?: Model | null;
  availableModels?: Model[];
  thinkingLevel?: string;
  availableThinkingLevels?: string[];
  isStreaming?: boolean;
  isCompacting?: boolean;
  /** Tool call ids of the tool executions in progress. */
  pendingToolCalls?: string[];
  steeringMode?: string;
  followUpMode?: string;
  activeToolNames?: string[];
  contextUsage?: ContextUsage | null;
  slashCommands?: SlashCommand[];
  queuedMessages?: QueuedMessages;
  /** The runtime's current notices (replaces the list; [] clears it). */
  notices?: RuntimeNotice[];
}

/**
 * A pi session event (`AgentSessionEvent`), loosely typed because it arrives over IPC: the projection checks
 * the fields it reads. Folded: agent_start/agent_end, compaction_start/compaction_end,
 * tool_execution_start/tool_execution_end, queue_update, thinking_level_changed, session_info_changed.
 */
export type RuntimeSessionEvent = { type: string; [key: string]: unknown };

export type ActiveRuntimeInput =
  | { type: "runtimeAttached"; id: string; path: string; cwd: string }
  | { type: "workerSnapshot"; snapshot: RuntimeWorkerSnapshot }
  | { type: "sessionEvent"; event: RuntimeSessionEvent }
  /** `ctx.ui.setStatus(key, text)`; null clears. */
  | { type: "extensionStatus"; key: string; text: string | null }
  /** `ctx.ui.setWidget(key, lines, { placement })`; null clears; placement defaults to "aboveEditor". */
  | { type: "extensionWidget"; key: string; lines: string[] | null; placement?: WidgetPlacement }
  /** `ctx.ui.notify(message, type)` with a host-generated id and time; the last NOTIFICATION_LIMIT are kept. */
  | { type: "extensionNotification"; notification: ExtensionNotification }
  | { type: "confirmationRequested"; confirmation: ExtensionConfirmation }
  /** Answered, cancelled (interrupt, abort, replacement, disposal): the request leaves the pending list. */
  | { type: "confirmationResolved"; id: string }
  /** Timed out (the host's timer, at `expiresAt`). */
  | { type: "confirmationExpired"; id: string }
  /** Clears statuses, widgets and confirmations (the runtime was replaced); notifications stay. */
  | { type: "extensionUiReset" }
  | { type: "promptQueue"; promptQueue: PromptQueue | null }
  | { type: "research"; research: ResearchState | null }
  | { type: "diagnostics"; diagnostics: RuntimeDiagnostic[] };

export type ActiveRuntimeInputType = ActiveRuntimeInput["type"];
