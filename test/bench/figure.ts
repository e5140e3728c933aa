/**
 * A benchmark figure: a ratio measured inside one run (subject / baseline, median of per-round ratios),
 * the target the product promises, and details (absolute medians in ms, sizes, counts) for information.
 * A figure whose subject is not built yet is `pending` with the reason, and has no ratio. An `informational`
 * figure is measured for context only: it has no target and neither passes nor misses.
 */

export interface Figure {
  /** Median per-round ratio subject/baseline; null when pending. */
  readonly ratio: number | null;
  /** The ratio must be at most this; null for an informational figure. */
  readonly target: number | null;
  /** ratio <= target; null when pending or informational. */
  readonly pass: boolean | null;
  /** Measured for context, not a project target (no pass/fail). */
  readonly informational?: true;
  /** Why the figure could not be measured (a module not there yet, a failure). */
  readonly pending?: string;
  /** What the ratio compares, in words. */
  readonly description: string;
  readonly details: Record<string, unknown>;
}

export function measuredFigure(description: string, ratio: number, target: number, details: Record<string, unknown>): Figure {
  return { ratio, target, pass: ratio <= target, description, details };
}

/** A figure reported for context only: no target, no pass/fail. */
export function informationalFigure(description: string, ratio: number, details: Record<string, unknown>): Figure {
  return { ratio, target: null, pass: null, informational: true, description, details };
}

export function pendingFigure(description: string, target: number | null, reason: string, details: Record<string, unknown> = {}): Figure {
  return { ratio: null, target, pass: null, pending: reason, description, details };
}

export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}
