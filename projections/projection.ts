/**
 * A projection is data: a name, a version (bumping it forces a rebuild of every checkpoint), an initial
 * state and an Immer recipe that applies one input to a draft of the state. State is plain JSON.
 *
 * `apply` must ignore inputs it does not understand (pi adds entry types) and must never throw: bad input
 * becomes a counted anomaly in the state. The fold wraps one `produce` around a whole batch.
 */
import { produce, type Draft } from "immer";

export interface Projection<S, I> {
  readonly name: string;
  readonly version: number;
  initial(): S;
  apply(draft: Draft<S>, input: I): void;
}

/** Folds a batch of inputs into a state with one Immer `produce`; returns the same object when nothing changed. */
export function fold<S, I>(projection: Projection<S, I>, state: S, inputs: readonly I[]): S {
  if (inputs.length === 0) return state;
  return produce(state, (draft) => {
    for (const input of inputs) projection.apply(draft, input);
  });
}

/** Folds inputs from the initial state: the full rebuild that every incremental fold must equal. */
export function rebuild<S, I>(projection: Projection<S, I>, inputs: readonly I[]): S {
  return fold(projection, projection.initial(), inputs);
}
