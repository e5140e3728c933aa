/**
 * The vocabulary of Pi Settings operations (spec "Settings operations", "Settings errors"): the state the decider
 * keeps (settings-operation.ts), its limits and the spec's exact messages, the commands it takes from the API, the
 * work and the adapter's timers, the events it emits and the decision it returns.
 *
 * State is plain JSON: records by id in start order, statuses as the public `SettingsOperation` names them.
 */
import type { AuthEvent, AuthInfoLink, AuthPrompt } from "@earendil-works/pi-ai";
import type { ErrorCode } from "../contract/error-codes.ts";
import type { SettingsEvent, SettingsOperation, SettingsPrompt } from "../contract/http-pi-settings.ts";

export type SettingsOperationStatus = SettingsOperation["state"];

export interface SettingsOperationLimits {
  /** Active (running or cancelling) operations at most. */
  maxActive: number;
  /** The longest an operation runs before it is cancelled (ms). */
  capMs: number;
  /** How long a terminal snapshot stays readable (ms). */
  retentionMs: number;
}

export const DEFAULT_SETTINGS_OPERATION_LIMITS: SettingsOperationLimits = { maxActive: 8, capMs: 600_000, retentionMs: 60_000 };
export const MAX_SETTINGS_EVENTS = 20;
export const MAX_SETTINGS_ANSWER_LENGTH = 32_768;

/** The spec's exact texts. */
export const SETTINGS_OPERATION_MESSAGES = {
  expired: "This settings operation expired. Start it again.",
  tooMany: "Too many settings operations are in progress.",
  duplicate: "An operation for this provider or server is already in progress.",
  stalePrompt: "This prompt is no longer active.",
  invalidResponse: "Invalid response.",
  unavailableOption: "Select an available option.",
  /** Not the spec's: what the work hears when it prompts after cancellation, never an HTTP answer. */
  notRunning: "This settings operation is no longer running.",
  failed: "The settings operation failed.",
} as const;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A prompt as the work asks it: pi's AuthPrompt without its signal (the adapter owns signals). */
export type SettingsPromptRequest = DistributiveOmit<AuthPrompt, "signal">;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What the work reports: pi's AuthEvent (`progress` becomes an info event), or an info event with a level. */
export type SettingsNotice = AuthEvent | { type: "info"; message: string; level?: string; links?: readonly AuthInfoLink[] };

export interface SettingsOperationRecord {
  id: string;
  /** The lock key: one active operation per key. */
  key: string;
  status: SettingsOperationStatus;
  startedAt: number;
  /** When a still-running operation is cancelled. */
  deadlineAt: number;
  /** When the operation ended (terminal cleanup); null while active. */
  endedAt: number | null;
  prompt: SettingsPrompt | null;
  /** Prompts shown so far: ids are `prompt-1`, `prompt-2`, ... */
  promptCount: number;
  events: SettingsEvent[];
  result: JsonObject | null;
  error: string;
  /** Submitted non-select answers: redacted from the snapshot's text, never part of it. */
  secrets: string[];
}

export interface SettingsOperationsState {
  limits: SettingsOperationLimits;
  /** By id, in start order. */
  operations: Record<string, SettingsOperationRecord>;
}

export type CancelReason = "request" | "deadline" | "shutdown";

// ---------------------------------------------------------------------------------------------------------
// Commands (from the API, the work and the adapter's timers) and events
// ---------------------------------------------------------------------------------------------------------

export type SettingsOperationCommand =
  | { type: "start"; id: string; key: string; now: number; deadlineMs?: number }
  | { type: "showPrompt"; id: string; now: number; prompt: SettingsPromptRequest }
  /** The prompt's own signal aborted (a manual code raced against a callback that won). */
  | { type: "withdrawPrompt"; id: string; now: number; promptId: string }
  /** The body of POST .../operations/:id, unchecked. */
  | { type: "answer"; id: string; now: number; promptId: unknown; value: unknown }
  | { type: "notify"; id: string; now: number; notice: SettingsNotice }
  | { type: "cancel"; id: string; now: number; reason: CancelReason }
  | { type: "reachDeadline"; id: string; now: number }
  | { type: "complete"; id: string; now: number; result: JsonObject }
  | { type: "fail"; id: string; now: number; error: string }
  | { type: "expire"; id: string; now: number };

export type SettingsOperationEvent =
  | { type: "operationStarted"; id: string; key: string; startedAt: number; deadlineAt: number }
  | { type: "promptShown"; id: string; prompt: SettingsPrompt }
  | { type: "promptWithdrawn"; id: string; promptId: string }
  /** `secrets`: the values to redact from now on (empty for a select answer). */
  | { type: "promptAnswered"; id: string; promptId: string; secrets: string[] }
  | { type: "eventNotified"; id: string; event: SettingsEvent }
  | { type: "cancelRequested"; id: string; reason: CancelReason }
  | { type: "workCompleted"; id: string; now: number; result: JsonObject }
  | { type: "workFailed"; id: string; now: number; error: string }
  /** The work ended after cancellation, however it ended. */
  | { type: "workCancelled"; id: string; now: number }
  | { type: "operationExpired"; id: string };

export interface SettingsOperationError {
  code: ErrorCode;
  message: string;
}

export type SettingsOperationDecision = { ok: true; events: SettingsOperationEvent[] } | { ok: false; error: SettingsOperationError };
