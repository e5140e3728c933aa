/**
 * Transcript deltas: what changed between two transcripts of one session (TranscriptEntry[]), so that a
 * subscriber that holds the first can rebuild the second without receiving it whole.
 *
 * A delta is applied in this order:
 * 1. `replaced`: entries at given positions are replaced (same id: a tool call completed by its result, a
 *    research annotation that changed);
 * 2. `truncate`: the transcript is cut to that length (the leaf moved to another branch, or entries went);
 * 3. `appended`: entries are added at the end.
 *
 * `diffTranscript(before, after)` finds the common prefix (entries with the same id at the same position;
 * unchanged entries are the same objects in projection output, so most are compared by identity only),
 * reports changed entries of that prefix as replaced, and cuts where the ids first differ. The law (a property
 * test): `applyTranscriptDelta(before, diffTranscript(before, after))` equals `after`.
 *
 * Pure; entries are never mutated (they may be frozen projection state).
 */
import type { TranscriptEntry } from "./transcript-types.ts";

export interface TranscriptDelta<E = TranscriptEntry> {
  /** Positions (in the transcript before the delta) whose entry is replaced by one with the same id. */
  readonly replaced?: ReadonlyArray<readonly [number, E]>;
  /** Keep only this many entries (after the replacements). */
  readonly truncate?: number;
  /** Entries added at the end (after the truncation). */
  readonly appended?: readonly E[];
}

/** Whether two entries with the same id are equal as JSON (entries are plain JSON). */
function sameContent(a: TranscriptEntry, b: TranscriptEntry): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** The delta from `before` to `after`; null when they are equal. */
export function diffTranscript(before: readonly TranscriptEntry[], after: readonly TranscriptEntry[]): TranscriptDelta | null {
  const shared = Math.min(before.length, after.length);
  const replaced: Array<readonly [number, TranscriptEntry]> = [];
  let prefix = 0;
  for (; prefix < shared; prefix++) {
    const was = before[prefix] as TranscriptEntry;
    const now = after[prefix] as TranscriptEntry;
    if (was === now) continue;
    if (was.id !== now.id) break;
    if (!sameContent(was, now)) replaced.push([prefix, now]);
  }
  const truncate = prefix < before.length ? prefix : undefined;
  const appended = prefix < after.length ? after.slice(prefix) : [];
  if (replaced.length === 0 && truncate === undefined && appended.length === 0) return null;
  return {
    ...(replaced.length > 0 ? { replaced } : {}),
    ...(truncate !== undefined ? { truncate } : {}),
    ...(appended.length > 0 ? { appended } : {}),
  };
}

/**
 * Applies a delta to a transcript and returns the new one (a new array; `entries` is not changed). Positions
 * out of range are ignored (a delta meant for another transcript cannot corrupt this one: compare revisions).
 */
export function applyTranscriptDelta<E>(entries: readonly E[], delta: TranscriptDelta<E>): E[] {
  const next = entries.slice();
  for (const [index, entry] of delta.replaced ?? []) {
    if (Number.isInteger(index) && index >= 0 && index < next.length) next[index] = entry;
  }
  if (delta.truncate !== undefined && delta.truncate >= 0 && delta.truncate < next.length) next.length = delta.truncate;
  if (delta.appended !== undefined) for (const entry of delta.appended) next.push(entry);
  return next;
}

/** Maps the entries a delta carries (e.g. to or from their wire form). */
export function mapTranscriptDelta<A, B>(delta: TranscriptDelta<A>, map: (entry: A) => B): TranscriptDelta<B> {
  return {
    ...(delta.replaced !== undefined ? { replaced: delta.replaced.map(([index, entry]) => [index, map(entry)] as const) } : {}),
    ...(delta.truncate !== undefined ? { truncate: delta.truncate } : {}),
    ...(delta.appended !== undefined ? { appended: delta.appended.map(map) } : {}),
  };
}
