/**
 * Folding a list of projections over one session file, incrementally: the file's new complete lines are
 * decoded and each projection folds them as one batch. A fold from byte 0 mutates fresh initial states
 * (`rebuild`, no Immer); appended lines are folded with one Immer produce per projection per read, unless
 * the caller owns the previous states (e.g. it just parsed them from a checkpoint), in which case they are
 * folded in place too. The runner is generic: it knows projections only as `Projection<unknown, LogRecord>`,
 * keyed by name.
 */
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { freeze, type Draft } from "immer";
import type { LogRecord } from "../../domain/session-log.ts";
import { fold, foldInPlace, rebuild, type Projection } from "../../projections/projection.ts";
import { readSessionFile, type SessionFilePosition } from "../session-files/session-file-reader.ts";
import type { FileStamp, RestartReason } from "../session-files/file-tail.ts";

export type AnyProjection = Projection<unknown, LogRecord>;

/** Projection states by projection name (plain JSON). */
export type ProjectionStates = Readonly<Record<string, unknown>>;

/** Bumped when the checkpoint layout or the reading rules change: every stored checkpoint is then rebuilt. */
export const CHECKPOINT_FORMAT = 1;

/** Identifies a projection list: names and versions in order. A different key forces a rebuild. */
export function projectionKey(projections: readonly AnyProjection[]): string {
  return [`format@${CHECKPOINT_FORMAT}`, ...projections.map((p) => `${p.name}@${p.version}`)].join(",");
}

export function assertDistinctNames(projections: readonly AnyProjection[]): void {
  const names = new Set<string>();
  for (const p of projections) {
    if (names.has(p.name)) throw new Error(`projection name used twice: ${p.name}`);
    names.add(p.name);
  }
}

export function initialStates(projections: readonly AnyProjection[]): Record<string, unknown> {
  const states: Record<string, unknown> = {};
  for (const p of projections) states[p.name] = p.initial();
  return states;
}

/**
 * Folds `records` into `states` (null = from the initial states). `owned`: the caller holds the only reference
 * to `states` (nobody else may see them change), so they are folded in place instead of through Immer.
 */
export function foldStates(
  projections: readonly AnyProjection[],
  states: ProjectionStates | null,
  records: readonly LogRecord[],
  owned = false,
): Record<string, unknown> {
  const next: Record<string, unknown> = {};
  for (const p of projections) {
    if (states === null || !(p.name in states)) next[p.name] = rebuild(p, records);
    else next[p.name] = owned ? foldInPlace(p, states[p.name], records) : fold(p, states[p.name], records);
  }
  return next;
}

/** The typed state of one projection in a states record. */
export function stateOf<S>(states: ProjectionStates, projection: Projection<S, LogRecord>): S {
  return states[projection.name] as S;
}

/** The fold of a file up to a position. */
export interface FoldedFile {
  readonly key: string;
  readonly position: SessionFilePosition;
  readonly states: ProjectionStates;
}

export interface AdvanceOptions {
  /** The caller holds the only reference to `previous.states`: appended lines may be folded into them in place. */
  readonly ownsPrevious?: boolean;
}

export type FoldAdvance =
  | { readonly kind: "missing" }
  | { readonly kind: "unchanged"; readonly stamp: FileStamp }
  | {
      readonly kind: "advanced";
      /** Null when only appended lines were folded; else why the file was folded from byte 0. */
      readonly restart: RestartReason | "projections-changed" | null;
      readonly records: number;
      readonly folded: FoldedFile;
    };

/**
 * Brings `previous` (or nothing) up to date with the file. A previous fold made with another projection list
 * (other key) is discarded and the file is folded from byte 0.
 */
export async function advanceFold(
  file: string,
  projections: readonly AnyProjection[],
  previous: FoldedFile | null,
  key: string = projectionKey(projections),
  options: AdvanceOptions = {},
): Promise<FoldAdvance> {
  const usable = previous !== null && previous.key === key ? previous : null;
  const read = await readSessionFile(file, usable?.position ?? null);
  if (read.kind === "missing" || read.kind === "unchanged") return read;
  const base = read.kind === "appended" && usable !== null ? usable.states : null;
  const states = foldStates(projections, base, read.records, options.ownsPrevious === true);
  const restart = read.kind === "appended" ? null : previous !== null && usable === null ? "projections-changed" : read.reason;
  return { kind: "advanced", restart, records: read.records.length, folded: { key, position: read.position, states } };
}

/** Progress of a fold in slices: bytes folded so far of the file's size when the fold began. */
export interface FoldProgress {
  readonly foldedBytes: number;
  readonly totalBytes: number;
}

export interface SliceOptions {
  /** Bytes read per slice (whole lines; default 256 KiB). */
  readonly sliceBytes?: number;
  /** Work between yields to the event loop, in ms (default 12). */
  readonly budgetMs?: number;
  /** Called after each slice that leaves bytes to fold. */
  readonly onProgress?: (progress: FoldProgress) => void;
  /** Checked between slices: true stops the fold (it then answers as if the file were unchanged). */
  readonly cancelled?: () => boolean;
}

const DEFAULT_SLICE_BYTES = 256 * 1024;
const DEFAULT_BUDGET_MS = 12;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * `advanceFold` that never holds the event loop for long: the new bytes are read, decoded and folded in slices
 * of about `sliceBytes`, yielding to the event loop whenever `budgetMs` of work went by. A fold from byte 0
 * (first read, restart) mutates fresh states without freezing them until its last slice; appended bytes are
 * folded with Immer (others may hold the previous states). Equal to `advanceFold` (the same records in the same
 * order; a restart seen mid-way starts over).
 */
export async function advanceFoldInSlices(
  file: string,
  projections: readonly AnyProjection[],
  previous: FoldedFile | null,
  key: string = projectionKey(projections),
  options: SliceOptions = {},
): Promise<FoldAdvance> {
  const sliceBytes = options.sliceBytes ?? DEFAULT_SLICE_BYTES;
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  const usable = previous !== null && previous.key === key ? previous : null;
  let position: SessionFilePosition | null = usable?.position ?? null;
  let states: ProjectionStates | null = usable?.states ?? null;
  /** Whether `states` were made by this call (folded in place, frozen at the end). */
  let owned = false;
  let restart: RestartReason | "projections-changed" | null = null;
  let records = 0;
  let reads = 0;
  const totalBytes = fileSize(file);
  let sliceStarted = performance.now();
  for (;;) {
    const read = readSessionFile(file, position, { maxBytes: sliceBytes });
    reads++;
    if (read.kind === "missing") return read;
    if (read.kind === "unchanged") {
      if (reads === 1) return read;
      break;
    }
    if (read.kind === "restarted") {
      states = null;
      records = 0;
      restart = previous !== null && usable === null && reads === 1 ? "projections-changed" : read.reason;
    }
    if (states === null) {
      states = initialStates(projections);
      owned = true;
    }
    if (owned) {
      for (const p of projections) {
        const state = (states as Record<string, unknown>)[p.name] as Draft<unknown>;
        if (p.applyBatch !== undefined) p.applyBatch(state, read.records, { defer: true });
        else foldInPlace(p, state, read.records, { freeze: false });
      }
    } else {
      states = foldStates(projections, states, read.records, false);
    }
    records += read.records.length;
    position = read.position;
    if (read.more !== true) break;
    options.onProgress?.({ foldedBytes: position.cursor.offset, totalBytes: Math.max(totalBytes, position.cursor.offset) });
    if (performance.now() - sliceStarted >= budgetMs) {
      await yieldToEventLoop();
      if (options.cancelled?.() === true) return { kind: "unchanged", stamp: position.stamp };
      sliceStarted = performance.now();
    }
  }
  if (states === null || position === null) return { kind: "missing" };
  if (owned) {
    // The work the deferred slices left (e.g. one transcript rebuild), in bounded steps.
    for (const p of projections) {
      if (p.completeSteps === undefined) continue;
      for (const _step of p.completeSteps((states as Record<string, unknown>)[p.name] as Draft<unknown>)) {
        if (performance.now() - sliceStarted < budgetMs) continue;
        await yieldToEventLoop();
        if (options.cancelled?.() === true) return { kind: "unchanged", stamp: position.stamp };
        sliceStarted = performance.now();
      }
    }
    for (const p of projections) freeze((states as Record<string, unknown>)[p.name], true);
  }
  return { kind: "advanced", restart, records, folded: { key, position, states } };
}
