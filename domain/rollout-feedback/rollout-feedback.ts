/**
 * Rollout feedback (spec "Rollout feedback route", transcript entries' rolloutFeedback/rolloutFeedbackText): a
 * person's verdict on one transcript entry, helpful or unhelpful, with an optional short note. It is Leyline's own
 * record in leyline.sqlite, keyed by session id and entry id; it is never written into a session file.
 *
 * Here: the record's shape, its limits, and the overlay that puts a session's stored feedback onto its transcript
 * entries (what the detail worker does to every detail it serves). Pure; entries are never mutated (they may be
 * frozen projection state), and an entry without feedback stays the same object, so transcript diffs keep
 * comparing unchanged entries by identity.
 */
import type { SessionDetail } from "../session-detail.ts";
import type { TranscriptEntry } from "../transcript/transcript-types.ts";

export const ROLLOUT_FEEDBACK_LABELS = ["helpful", "unhelpful"] as const;
export type RolloutFeedbackLabel = (typeof ROLLOUT_FEEDBACK_LABELS)[number];

/** The longest note (characters); a longer one answers 400. */
export const FEEDBACK_TEXT_MAX = 4000;
/** The longest entry id, session id, cwd and session path a request may name. */
export const FEEDBACK_ID_MAX = 256;
export const FEEDBACK_PATH_MAX = 4096;
/** JSON bodies of the feedback route. */
export const FEEDBACK_BODY_LIMIT_BYTES = 64 * 1024;

/** A stored verdict, as the route answers it. */
export interface RolloutFeedbackRecord {
  cwd: string;
  sessionId: string;
  sessionPath: string;
  entryId: string;
  label: RolloutFeedbackLabel;
  feedbackText: string;
  /** Milliseconds since the epoch. */
  updatedAt: number;
}

/** What an entry shows of its stored feedback. */
export interface EntryFeedback {
  label: RolloutFeedbackLabel;
  text: string;
}

/** A session's stored feedback by entry id (plain JSON: it crosses to the detail worker). */
export type EntryFeedbackMap = Record<string, EntryFeedback>;

/** Whether two maps hold the same feedback. */
export function sameFeedback(a: EntryFeedbackMap | undefined, b: EntryFeedbackMap | undefined): boolean {
  const left = Object.entries(a ?? {});
  if (left.length !== Object.keys(b ?? {}).length) return false;
  return left.every(([id, feedback]) => {
    const other = b !== undefined && Object.hasOwn(b, id) ? b[id] : undefined;
    return other !== undefined && other.label === feedback.label && other.text === feedback.text;
  });
}

/** The entries with their stored feedback; the same array when there is none to show. */
export function withEntryFeedback(entries: TranscriptEntry[], feedback: EntryFeedbackMap | undefined): TranscriptEntry[] {
  if (feedback === undefined || entries.length === 0) return entries;
  let out: TranscriptEntry[] | null = null;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as TranscriptEntry;
    const stored = Object.hasOwn(feedback, entry.id) ? feedback[entry.id] : undefined;
    if (stored === undefined) continue;
    if (entry.rolloutFeedback === stored.label && entry.rolloutFeedbackText === stored.text) continue;
    out ??= entries.slice();
    out[i] = { ...entry, rolloutFeedback: stored.label, rolloutFeedbackText: stored.text };
  }
  return out ?? entries;
}

/** The detail with its stored feedback on its entries; the same object when there is none to show. */
export function withSessionFeedback(detail: SessionDetail, feedback: EntryFeedbackMap | undefined): SessionDetail {
  const entries = withEntryFeedback(detail.entries, feedback);
  return entries === detail.entries ? detail : { ...detail, entries };
}
