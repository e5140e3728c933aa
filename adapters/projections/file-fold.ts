/**
 * Folding a list of projections over one session file, incrementally: the file's new complete lines are
 * decoded and each projection folds them as one batch. A fold from byte 0 mutates fresh initial states
 * (`rebuild`, no Immer); appended lines are folded with one Immer produce per projection per read, unless
 * the caller owns the previous states (e.g. it just parsed them from a checkpoint), in which case they are
 * folded in place too. The runner is generic: it knows projections only as `Projection<unknown, LogRecord>`,
 * keyed by name.
 */
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
  const restart =
    read.kind === "appended" ? null : previous !== null && usable === null ? "projections-changed" : read.reason;
  return { kind: "advanced", restart, records: read.records.length, folded: { key, position: read.position, states } };
}
