/**
 * Pure rules of the composer: what Enter does, the run state shown to the user, which snapshot is newest,
 * Ultrafast eligibility, the context meter and confirmation countdowns. No Vue, no DOM, no clock (times are
 * passed in).
 */
import { compactNumber } from "../../lib/compact-number.ts";
import { PROMPT_IMAGE_MIME_TYPES, type Active, type ContextUsage, type PromptQueue } from "../../../../domain/runtime/runtime-types.ts";
import { ULTRAFAST_STATUS_KEY } from "../../../../domain/runtime/ultrafast.ts";

export interface EnterKeyEvent {
  key: string;
  shiftKey: boolean;
  isComposing: boolean;
  /** 229 while an IME processes the key (some browsers report isComposing false for the final Enter). */
  keyCode: number;
}

/** Enter sends, Shift+Enter is a newline, and Enter during IME composition belongs to the IME. */
export function enterKeyAction(event: EnterKeyEvent): "send" | "newline" | "ime" | "other" {
  if (event.key !== "Enter") return "other";
  if (event.isComposing || event.keyCode === 229) return "ime";
  return event.shiftKey ? "newline" : "send";
}

export type RunState = "idle" | "working" | "waiting" | "finished";

/**
 * What the runtime is doing, as the user sees it: `waiting` (for the user: a confirmation is pending),
 * `working` (streaming, compacting or running tools), `finished` (idle after a run this view saw working),
 * else `idle`.
 */
export function runStateOf(active: Active | null, sawWorking: boolean): RunState {
  if (active === null) return "idle";
  const state = active.state;
  if (state.pendingConfirmationCount > 0) return "waiting";
  if (state.isStreaming || state.isCompacting) return "working";
  return sawWorking ? "finished" : "idle";
}

export function isWorking(active: Active | null): boolean {
  return active !== null && (active.state.isStreaming || active.state.isCompacting);
}

/**
 * The newer of two snapshots of the same session (spec: "Clients reject older snapshots for the same
 * session"): a higher snapshotRevision wins; ties and missing revisions keep `current`.
 */
export function newerSnapshot(current: Active | null, candidate: Active | null): Active | null {
  if (candidate === null) return current;
  if (current === null || current.id !== candidate.id) return candidate;
  const a = current.snapshotRevision ?? -1;
  const b = candidate.snapshotRevision ?? -1;
  return b > a ? candidate : current;
}

export interface UltrafastView {
  /** Show the toggle: the model supports it, or it is on (so it can be turned off). */
  visible: boolean;
  on: boolean;
  /** Turning it on needs an eligible model. */
  canEnable: boolean;
}

export function ultrafastView(active: Active | null): UltrafastView {
  if (active === null) return { visible: false, on: false, canEnable: false };
  const on = active.state.extensionUi.statuses[ULTRAFAST_STATUS_KEY] === "on";
  const canEnable = active.state.model?.supportsUltrafast === true;
  return { visible: canEnable || on, on, canEnable };
}

export type MeterLevel = "ok" | "warn" | "high" | "unknown";

export interface ContextMeterView {
  /** 0..100, or null when unknown. */
  percent: number | null;
  level: MeterLevel;
  label: string;
}

export function contextMeterView(usage: ContextUsage | undefined): ContextMeterView {
  if (usage === undefined) return { percent: null, level: "unknown", label: "Context usage unknown" };
  const window = compactNumber(usage.contextWindow);
  if (usage.percent === null || usage.tokens === null) {
    return { percent: null, level: "unknown", label: `Context: unknown of ${window} tokens` };
  }
  const percent = Math.max(0, Math.min(100, usage.percent));
  const level: MeterLevel = percent >= 90 ? "high" : percent >= 70 ? "warn" : "ok";
  return { percent, level, label: `Context: ${compactNumber(usage.tokens)} of ${window} tokens (${Math.round(percent)}%)` };
}

/** Whole seconds until `expiresAt` (never below 0); null when the confirmation has no timeout. */
export function secondsLeft(expiresAt: number | null, now: number): number | null {
  if (expiresAt === null) return null;
  return Math.max(0, Math.ceil((expiresAt - now) / 1000));
}

/** Steering is refused while the queue is held (spec: "The browser disables steering while held"). */
export function canSteer(queue: PromptQueue | undefined): boolean {
  return queue === undefined || !queue.held;
}

/**
 * A `!command` (run in the session's shell, output sent to the model) or `!!command` (output kept out of
 * the model's context), as in pi's terminal UI; null for an ordinary prompt.
 */
export function shellCommandOf(text: string): { command: string; excludeFromContext: boolean } | null {
  const match = /^!(!?)([\s\S]*)$/.exec(text.trim());
  if (match === null) return null;
  const command = (match[2] ?? "").trim();
  return command === "" ? null : { command, excludeFromContext: match[1] === "!" };
}

/** Whether a file may be attached to a prompt (PNG, JPEG, GIF, WebP). */
export function isPromptImageType(mimeType: string): boolean {
  return (PROMPT_IMAGE_MIME_TYPES as readonly string[]).includes(mimeType.toLowerCase());
}

/** A model's picker value ("provider/id": ids may contain "/", providers may not). */
export function modelKey(model: { provider: string; id: string }): string {
  return `${model.provider}/${model.id}`;
}

export function parseModelKey(key: string): { provider: string; id: string } | null {
  const slash = key.indexOf("/");
  if (slash <= 0 || slash === key.length - 1) return null;
  return { provider: key.slice(0, slash), id: key.slice(slash + 1) };
}

/**
 * The draft after taking text offered from elsewhere (the tree's "continue from here", a fork from a user
 * message). Like pi, which replaces its editor's text, the offer replaces a draft that is empty or still just
 * the previous offer (`previous`, untouched since: moving to another prompt swaps it) or this offer; a draft the
 * person wrote keeps its text, and the offer goes after it, separated by a blank line, so nothing typed is lost.
 */
export function withOffer(draft: string, offered: string, previous: string | null = null): string {
  const typed = draft.trim();
  if (typed === "" || typed === offered.trim() || (previous !== null && typed === previous.trim())) return offered;
  return `${draft.replace(/\s+$/, "")}\n\n${offered}`;
}
