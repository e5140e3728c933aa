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
}

/**
 * Folds a batch of inputs into a state that others may hold (e.g. an emitted snapshot) with one Immer
 * `produce`; returns the same object when nothing changed.
 */
export function fold<S, I>(projection: Projection<S, I>, state: S, inputs: readonly I[]): S {
  if (inputs.length === 0) return state;
  return produce(state, (draft) => {
    for (const input of inputs) projection.apply(draft, input);
  });
}

/**
 * Folds inputs into `state` by mutating it directly (no Immer drafts): for a state nobody else holds, such as
 * a fresh initial state or one just parsed from a checkpoint. Returns the same object, deep-frozen like a
 * `produce` result. Equal to `fold` on a copy of `state`.
 */
export function foldInPlace<S, I>(projection: Projection<S, I>, state: S, inputs: readonly I[]): S {
  for (const input of inputs) projection.apply(state as Draft<S>, input);
  return freeze(state, true);
}

/** Folds inputs from the initial state: the full rebuild that every incremental fold must equal. */
export function rebuild<S, I>(projection: Projection<S, I>, inputs: readonly I[]): S {
  return foldInPlace(projection, projection.initial(), inputs);
}
