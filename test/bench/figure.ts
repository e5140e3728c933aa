/**
 * A benchmark figure: a ratio measured inside one run (subject / baseline, median of per-round ratios),
 * the target the product promises, and details (absolute medians in ms, sizes, counts) for information.
 * A figure whose subject is not built yet is `pending` with the reason, and has no ratio.
 */

export interface Figure {
  /** Median per-round ratio subject/baseline; null when pending. */
  readonly ratio: number | null;
  /** The ratio must be at most this. */
  readonly target: number;
  /** ratio <= target; null when pending. */
  readonly pass: boolean | null;
  /** Why the figure could not be measured (a module not there yet, a failure). */
  readonly pending?: string;
  /** What the ratio compares, in words. */
  readonly description: string;
  readonly details: Record<string, unknown>;
}

export function measuredFigure(
  description: string,
  ratio: number,
  target: number,
  details: Record<string, unknown>,
): Figure {
  return { ratio, target, pass: ratio <= target, description, details };
}

export function pendingFigure(
  description: string,
  target: number,
  reason: string,
  details: Record<string, unknown> = {},
): Figure {
  return { ratio: null, target, pass: null, pending: reason, description, details };
}

export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}
