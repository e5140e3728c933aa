/**
 * Timing within one run: variants are run alternately (round-robin, the order reversed every other round so
 * drift and warm caches favour no one), after warm-up rounds that are not recorded. Figures are medians of
 * per-round ratios, so a noisy machine slows both sides of a round alike.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";

/** A full garbage collection before each timed run, when the runtime lets us have one. */
const collectGarbage: () => void = (() => {
  try {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    if (typeof gc === "function") return () => (gc as () => void)();
  } catch {
    // no gc: measurements are just noisier
  }
  return () => undefined;
})();

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Quiets the heap before a batch of short timings: a full GC, then a pause in which V8 finishes the sweeping it
 * does on background threads after a GC. Short operations timed right after a GC of a large heap otherwise pay
 * for that sweeping (on a busy 2-core machine, milliseconds), growing with the heap rather than with the work.
 */
export async function settleHeap(pauseMs = 250): Promise<void> {
  collectGarbage();
  await new Promise<void>((resolve) => setTimeout(resolve, pauseMs));
}

/** The value at quantile `q` (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.round((sorted.length - 1) * q)));
  return sorted[index] as number;
}

/** Milliseconds taken by `fn` (after a GC). */
export async function timeOnce(fn: () => unknown): Promise<number> {
  collectGarbage();
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export interface AlternateOptions {
  readonly rounds: number;
  readonly warmup: number;
}

/**
 * A variant: `run` is timed; `before` and `after` (untimed) prepare and clean up, e.g. a fresh cache directory.
 * With `repeat` > 1 a round runs before/run/after that many times and records the median (for runs of a few
 * milliseconds, where one sample is mostly noise).
 */
export interface Variant {
  readonly run: () => unknown;
  readonly before?: () => unknown;
  readonly after?: () => unknown;
  readonly repeat?: number;
}

/** Runs the variants alternately; returns each variant's recorded times (ms), one per round. */
export async function alternate<K extends string>(variants: Record<K, Variant>, options: AlternateOptions): Promise<Record<K, number[]>> {
  const names = Object.keys(variants) as K[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < options.warmup + options.rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const variant = variants[name];
      const times: number[] = [];
      for (let i = 0; i < Math.max(1, variant.repeat ?? 1); i++) {
        await variant.before?.();
        times.push(await timeOnce(variant.run));
        await variant.after?.();
      }
      if (round >= options.warmup) samples[name].push(median(times));
    }
  }
  return samples;
}

/** Median of the per-round ratios subject[i] / baseline[i]. */
export function medianRatio(subject: readonly number[], baseline: readonly number[]): number {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(subject.length, baseline.length); i++) {
    ratios.push((subject[i] as number) / (baseline[i] as number));
  }
  return median(ratios);
}

export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The longest the event loop was held while `work` ran (ticker and histogram, ms). */
export async function longestBlock(work: () => Promise<void>): Promise<{ blockMs: number; tickerMs: number; histogramMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let ticker = 0;
  let ticking = true;
  const tick = (): void => {
    const now = performance.now();
    ticker = Math.max(ticker, now - last);
    last = now;
    if (ticking) setImmediate(tick);
  };
  histogram.enable();
  setImmediate(tick);
  try {
    await work();
  } finally {
    ticking = false;
    histogram.disable();
  }
  const histogramMs = histogram.max / 1e6;
  return { blockMs: Math.max(ticker, histogramMs), tickerMs: round(ticker, 1), histogramMs: round(histogramMs, 1) };
}
