/**
 * Prompts the person sent while the session's runtime was not there yet (a recorded session opened from the
 * read side alone, then acted on): they are held in the order they were sent, shown as provisional queued
 * prompts, and sent one by one once pi is ready. When starting or sending fails, everything still held goes
 * back into the composer (`takeBackDraft`), so nothing typed is lost. Plain data, pure functions; the
 * open-session store keeps one list per session.
 */
import type { PromptImage } from "../../../domain/runtime/runtime-types.ts";
import type { Attachment } from "../components/composer/composer-images.ts";

/** What a held prompt sends: a prompt, or a `!command` / `!!command` for the session's shell. */
export type HeldRequest =
  { kind: "prompt"; text: string; images: PromptImage[] } | { kind: "bash"; command: string; excludeFromContext: boolean };

export interface HeldPrompt {
  /** Order of sending within the session (1, 2, …). */
  seq: number;
  /** Exactly what was typed (a shell command keeps its `!`): what goes back into the composer. */
  typed: string;
  attachments: Attachment[];
  request: HeldRequest;
}

export interface HeldState {
  items: HeldPrompt[];
  /** The last seq handed out. */
  count: number;
  /** Why sending stopped (the runtime did not start, or pi refused a prompt); "" while all is well. */
  failure: string;
}

export const EMPTY_HELD: HeldState = { items: [], count: 0, failure: "" };

/** Appends a prompt; returns the next state and the seq it got. */
export function holdPrompt(state: HeldState, prompt: Omit<HeldPrompt, "seq">): { state: HeldState; seq: number } {
  const seq = state.count + 1;
  return { state: { ...state, items: [...state.items, { ...prompt, seq }], count: seq }, seq };
}

/** Drops the prompt with `seq` (it was sent). */
export function releasePrompt(state: HeldState, seq: number): HeldState {
  const items = state.items.filter((item) => item.seq !== seq);
  return items.length === state.items.length ? state : { ...state, items };
}

/** Marks the state failed: nothing more is sent until the held prompts were taken back. */
export function failHeld(state: HeldState, failure: string): HeldState {
  return { ...state, failure };
}

/**
 * The composer's text and images after taking back held prompts: their typed texts in order, then what the
 * composer holds now, separated by blank lines (empty parts left out); images in the same order.
 */
export function takeBackDraft(
  items: readonly HeldPrompt[],
  draft: { text: string; attachments: readonly Attachment[] },
): { text: string; attachments: Attachment[] } {
  const texts = [...items.map((item) => item.typed), draft.text].filter((text) => text.trim() !== "");
  return { text: texts.join("\n\n"), attachments: [...items.flatMap((item) => item.attachments), ...draft.attachments] };
}

/** A held prompt as one line for the "sent when pi is ready" list. */
export function heldLabel(item: HeldPrompt): string {
  const images = item.attachments.length;
  const text = item.request.kind === "bash" ? `$ ${item.request.command}` : item.typed.trim();
  if (images === 0) return text;
  const suffix = `${images} image${images === 1 ? "" : "s"}`;
  return text === "" ? `(${suffix})` : `${text} (+${suffix})`;
}

/** What a reload keeps of held prompts (sessionStorage): their typed text only, images are too large to keep. */
export type KeptHeld = Record<string, string[]>;

export const HELD_RELOAD_FAILURE =
  "The page was reloaded while pi was starting, so these prompts may not have been sent: check the transcript before sending them again.";

/** The typed texts of every session's held prompts (sessions with none left out), as stored across a reload. */
export function keepHeld(held: Readonly<Record<string, HeldState>>): KeptHeld {
  const kept: KeptHeld = {};
  for (const [sessionId, state] of Object.entries(held)) {
    const texts = state.items.map((item) => item.typed).filter((text) => text.trim() !== "");
    if (texts.length > 0) kept[sessionId] = texts;
  }
  return kept;
}

/**
 * The held states a reload hands back: each kept text as a failed held prompt (`HELD_RELOAD_FAILURE`), so the
 * composer puts it back into the input as it does after any failure, and nothing is resent on its own (a send
 * may have been in flight). Anything that is not a kept list gives nothing.
 */
export function restoreHeld(raw: string | null): Record<string, HeldState> {
  if (raw === null) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
  const restored: Record<string, HeldState> = {};
  for (const [sessionId, texts] of Object.entries(parsed as Record<string, unknown>)) {
    if (!Array.isArray(texts)) continue;
    let state = EMPTY_HELD;
    for (const typed of texts) {
      if (typeof typed !== "string" || typed.trim() === "") continue;
      state = holdPrompt(state, { typed, attachments: [], request: { kind: "prompt", text: typed, images: [] } }).state;
    }
    if (state.items.length > 0) restored[sessionId] = failHeld(state, HELD_RELOAD_FAILURE);
  }
  return restored;
}
