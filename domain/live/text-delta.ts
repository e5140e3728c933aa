/**
 * A change to a growing text as little as possible: drop characters from the start, then append some.
 * pi's bash tool reports its whole (tail-truncated) output on every update; the worker sends only what
 * changed. `textDelta(before, after)` finds it: `after` extends `before` (append only), or `before` lost its
 * head and gained a tail (the tail truncation keeps the last lines), or else a replacement. The law (a
 * property test): `applyTextDelta(before, textDelta(before, after)) === after`. Pure.
 */

export interface TextDelta {
  /** Characters removed from the start (before appending). */
  readonly drop?: number;
  /** Appended text. */
  readonly append?: string;
  /** The whole new text (instead of drop and append). */
  readonly replace?: string;
}

/**
 * The length of the longest suffix of `before` that is a prefix of `after` (the part a head cut kept), by the
 * Knuth-Morris-Pratt prefix function of `after` run over `before`: linear time, however repetitive the output.
 */
function keptOverlap(before: string, after: string): number {
  const prefix = new Int32Array(after.length);
  for (let i = 1, k = 0; i < after.length; i++) {
    while (k > 0 && after[i] !== after[k]) k = prefix[k - 1] ?? 0;
    if (after[i] === after[k]) k++;
    prefix[i] = k;
  }
  let matched = 0;
  for (let i = 0; i < before.length; i++) {
    if (matched === after.length) matched = prefix[matched - 1] ?? 0;
    while (matched > 0 && before[i] !== after[matched]) matched = prefix[matched - 1] ?? 0;
    if (before[i] === after[matched]) matched++;
  }
  return matched;
}

/** The change from `before` to `after`; null when they are equal. */
export function textDelta(before: string, after: string): TextDelta | null {
  if (before === after) return null;
  if (after.startsWith(before)) return { append: after.slice(before.length) };
  // The head was cut: `after` starts with a suffix of `before` (the longest one is the least to resend).
  const kept = after === "" ? 0 : keptOverlap(before, after);
  if (kept === 0) return { replace: after };
  const append = after.slice(kept);
  return append === "" ? { drop: before.length - kept } : { drop: before.length - kept, append };
}

/** The text after a delta. */
export function applyTextDelta(before: string, delta: TextDelta): string {
  if (delta.replace !== undefined) return delta.replace;
  const drop = delta.drop !== undefined && delta.drop > 0 ? Math.min(delta.drop, before.length) : 0;
  return before.slice(drop) + (delta.append ?? "");
}

/** Whether a value (from the wire) is a TextDelta: `drop` a non-negative integer, `append`/`replace` strings. */
export function isTextDelta(value: unknown): value is TextDelta {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { drop, append, replace } = value as Record<string, unknown>;
  return (
    (drop === undefined || (typeof drop === "number" && Number.isInteger(drop) && drop >= 0)) &&
    (append === undefined || typeof append === "string") &&
    (replace === undefined || typeof replace === "string")
  );
}
