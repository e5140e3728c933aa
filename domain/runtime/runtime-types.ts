/**
 * Open-runtime vocabulary: the DTO shapes of spec/api-reference.md, "Active runtime" (Active, PromptQueue,
 * Model, SlashCommand, ExtensionConfirmation) and the prompt request's image, plus the compact snapshot that
 * WS /api/pi/events sends for sessions other than the selected one (the spec describes it in prose only).
 *
 * Field names, types and enums of the spec's DTOs are the contract: do not add or rename fields. Where the
 * spec says `object`, the type here is the shape Leyline publishes (documented at the type).
 */
import type { ResearchState } from "../research/research-types.ts";

// ---------------------------------------------------------------------------------------------------------
// Prompt request pieces
// ---------------------------------------------------------------------------------------------------------

/** The MIME types a prompt image may have ("PNG, JPEG, GIF, and WebP"). */
export const PROMPT_IMAGE_MIME_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type PromptImageMimeType = (typeof PROMPT_IMAGE_MIME_TYPES)[number];

/** One image of a prompt request (base64 `data`). Images stay on the backend; DTOs expose counts only. */
export interface PromptImage {
  type: "image";
  data: string;
  mimeType: string;
}

export type StreamingBehavior = "steer" | "followUp";
export type PromptKind = "session" | "research";

// ---------------------------------------------------------------------------------------------------------
// DTOs (spec/api-reference.md, "Active runtime")
// ---------------------------------------------------------------------------------------------------------

export interface Model {
  id: string;
  name: string;
  provider: string;
  supportsImages: boolean;
  supportsUltrafast: boolean;
  availableThinkingLevels: string[];
}

export type SlashCommandSource = "command" | "extension" | "prompt" | "skill";

export interface SlashCommand {
  name: string;
  description?: string;
  source: SlashCommandSource;
}

/** Times in milliseconds since the Unix epoch; `expiresAt: null` means no timeout. */
export interface ExtensionConfirmation {
  id: string;
  title: string;
  message: string;
  createdAt: number;
  expiresAt: number | null;
}

export type PromptQueueItemStatus = "pending" | "sending";

/** One editable, unsent task as the browser sees it: the images stay on the backend, only their count shows. */
export interface PromptQueueItemView {
  id: string;
  text: string;
  imageCount: number;
  status: PromptQueueItemStatus;
}

export interface PromptQueue {
  revision: number;
  held: boolean;
  error: string;
  items: PromptQueueItemView[];
}

/** The compact prompt queue of a non-selected session: "count, held, and error, without item content". */
export interface CompactPromptQueue {
  count: number;
  held: boolean;
  error: string;
}

/** pi's context usage (`AgentSession.getContextUsage()`), the spec's `contextUsage?: object`. */
export interface ContextUsage {
  /** Estimated context tokens, or null when unknown (for example right after a compaction). */
  tokens: number | null;
  contextWindow: number;
  /** Percentage of the context window, or null when `tokens` is unknown. */
  percent: number | null;
}

export interface QueuedMessages {
  steering: string[];
  followUp: string[];
}

export type WidgetPlacement = "aboveEditor" | "belowEditor";

/** An extension widget (`ctx.ui.setWidget(key, lines, { placement })`): the spec's "widgets with line arrays". */
export interface ExtensionWidget {
  lines: string[];
  placement: WidgetPlacement;
}

export type NotificationLevel = "info" | "warning" | "error";

/** An extension notification (`ctx.ui.notify(message, type)`), with a host-generated id and time. */
export interface ExtensionNotification {
  id: string;
  message: string;
  level: NotificationLevel;
  createdAt: number;
}

export interface ExtensionUiState {
  /** Status strings by key (`ctx.ui.setStatus`), for example `statuses["leyline-ultrafast"]` = "on" | "off". */
  statuses: Record<string, string>;
  /** Widgets by key. */
  widgets: Record<string, ExtensionWidget>;
  /** The most recent notifications, oldest first. */
  notifications: ExtensionNotification[];
  /** Pending confirmations, oldest first. */
  confirmations: ExtensionConfirmation[];
}

/**
 * Something the runtime did on its own that the person should know, in plain words (Leyline's addition to the
 * spec's Active state): pi fell back to another model because the session's model is not available here
 * (`used` null: no model at all), or Leyline upgraded an old session file before pi opened it (the original
 * is kept at `backupPath`).
 */
export type RuntimeNotice =
  | { kind: "model-fallback"; message: string; requested: { provider: string; id: string }; used: { provider: string; id: string } | null }
  | { kind: "file-upgraded"; message: string; fromVersion: number; backupPath: string };

/** A diagnostic record (resource loading, extension errors, recoveries): the spec's `diagnostics: object[]`. */
export type RuntimeDiagnostic = Record<string, unknown>;

export interface ActiveState {
  model?: Model;
  availableModels: Model[];
  thinkingLevel: string;
  availableThinkingLevels: string[];
  isStreaming: boolean;
  isCompacting: boolean;
  /** Tool call ids of the tool executions in progress. */
  pendingToolCalls: string[];
  /** Always `extensionUi.confirmations.length` (kept in the compact form, which drops the records). */
  pendingConfirmationCount: number;
  steeringMode: string;
  followUpMode: string;
  activeToolCount: number;
  activeToolNames: string[];
  contextUsage?: ContextUsage;
  slashCommands: SlashCommand[];
  promptQueue?: PromptQueue;
  queuedMessages: QueuedMessages;
  extensionUi: ExtensionUiState;
  research: ResearchState | null;
  /** Present only when there is something to say (see RuntimeNotice). */
  notices?: RuntimeNotice[];
}

export interface Active {
  id: string;
  snapshotRevision?: number;
  path: string;
  cwd: string;
  diagnostics: RuntimeDiagnostic[];
  state: ActiveState;
}

// ---------------------------------------------------------------------------------------------------------
// Compact snapshot (WS /api/pi/events for sessions other than ?sessionId)
// ---------------------------------------------------------------------------------------------------------

/** Extension UI of a compact snapshot: everything but the confirmation records. */
export type CompactExtensionUiState = Omit<ExtensionUiState, "confirmations">;

/**
 * The compact state: the full state with `promptQueue` reduced to `{ count, held, error }` and
 * `extensionUi.confirmations` left out; `pendingConfirmationCount` still counts the pending confirmations.
 */
export interface CompactActiveState extends Omit<ActiveState, "promptQueue" | "extensionUi"> {
  promptQueue?: CompactPromptQueue;
  extensionUi: CompactExtensionUiState;
}

export interface CompactActive extends Omit<Active, "state"> {
  state: CompactActiveState;
}

/** What an `active_session` event carries: the full snapshot for the selected session, compact for others. */
export type ActiveSnapshot = Active | CompactActive;
