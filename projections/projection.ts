/**
 * A projection is data: a name, a version (bumping it forces a rebuild of every checkpoint), an initial
 * state and a mutation-style recipe that applies one input to the state. State is plain JSON.
 *
 * `apply` must ignore inputs it does not understand (pi adds entry types) and must never throw: bad input
 * becomes a counted anomaly in the state. It receives either an Immer draft (`fold`: the state may be shared)
 * or the plain state itself (`rebuild`, `foldInPlace`: the state is owned by the caller), so it must work on
 * both: mutate what it changes, never return a replacement, and read drafts through `isDraft`/`current`
 * guards only.
 */
import { freeze, produce, type Draft } from "immer";

export interface Projection<S, I> {
  readonly name: string;
  readonly version: number;
  initial(): S;
  apply(draft: Draft<S>, input: I): void;
  /**
   * Applies a batch at once, when a projection can do better than one input at a time (e.g. build a derived
   * part once for the whole batch). Must equal applying the inputs one by one (a law, tested beside it).
   *
   * `defer: true` (only for a state nobody else sees yet, folded in several slices: a large file's first read)
   * may leave derived parts out of date; `completeSteps` then brings them up to date in bounded steps. A
   * deferred fold followed by all of `completeSteps` equals the plain fold (a law too).
   */
  applyBatch?(draft: Draft<S>, inputs: readonly I[], options?: { readonly defer?: boolean }): void;
  /** The work a deferred fold left, one bounded step per iteration (see `applyBatch`). */
  completeSteps?(draft: Draft<S>): Iterable<void>;
}

function applyAll<S, I>(projection: Projection<S, I>, draft: Draft<S>, inputs: readonly I[]): void {
  if (projection.applyBatch !== undefined) projection.applyBatch(draft, inputs);
  else for (const input of inputs) projection.apply(draft, input);
}

/**
 * Folds a batch of inputs into a state that others may hold (e.g. an emitted snapshot) with one Immer
 * `produce`; returns the same object when nothing changed.
 */
export function fold<S, I>(projection: Projection<S, I>, state: S, inputs: readonly I[]): S {
  if (inputs.length === 0) return state;
  return produce(state, (draft) => {
    applyAll(projection, draft, inputs);
  });
}

/**
 * Folds inputs into `state` by mutating it directly (no Immer drafts): for a state nobody else holds, such as
 * a fresh initial state or one just parsed from a checkpoint. Returns the same object, deep-frozen like a
 * `produce` result (unless `freeze: false`: a caller folding in several batches freezes once, at the end).
 * Equal to `fold` on a copy of `state`.
 */
export function foldInPlace<S, I>(projection: Projection<S, I>, state: S, inputs: readonly I[], options: { freeze?: boolean } = {}): S {
  applyAll(projection, state as Draft<S>, inputs);
  return options.freeze === false ? state : freeze(state, true);
}

/** Folds inputs from the initial state: the full rebuild that every incremental fold must equal. */
export function rebuild<S, I>(projection: Projection<S, I>, inputs: readonly I[]): S {
  return foldInPlace(projection, projection.initial(), inputs);
}
