import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fold, foldInPlace, rebuild, type Projection } from "./projection.ts";

interface Tally {
  total: number;
  byKey: Record<string, number>;
  order: string[];
  anomalies: number;
}

type Input = { kind: "add"; key: string; n: number } | { kind: "bad" } | { kind: "unknown" };

const tally: Projection<Tally, Input> = {
  name: "tally",
  version: 1,
  initial: () => ({ total: 0, byKey: {}, order: [], anomalies: 0 }),
  apply(draft, input) {
    switch (input.kind) {
      case "add":
        draft.total += input.n;
        if (!Object.hasOwn(draft.byKey, input.key)) draft.order.push(input.key);
        draft.byKey[input.key] = (draft.byKey[input.key] ?? 0) + input.n;
        return;
      case "bad":
        draft.anomalies += 1;
        return;
      default:
        return;
    }
  },
};

const input = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), key: fc.constantFrom("a", "b", "c"), n: fc.integer({ min: -5, max: 5 }) }),
  fc.constant({ kind: "bad" as const }),
  fc.constant({ kind: "unknown" as const }),
);

describe("projection folds", () => {
  it("rebuild (in place) equals the Immer fold from the initial state, and incremental folds at every split", () => {
    fc.assert(
      fc.property(fc.array(input, { maxLength: 40 }), fc.nat(), (inputs, cut) => {
        const whole = rebuild(tally, inputs);
        expect(whole).toEqual(fold(tally, tally.initial(), inputs));
        const at = cut % (inputs.length + 1);
        expect(fold(tally, rebuild(tally, inputs.slice(0, at)), inputs.slice(at))).toEqual(whole);
        // resuming from a parsed copy (what the runner does with a checkpoint) folds in place to the same state
        const parsed = JSON.parse(JSON.stringify(rebuild(tally, inputs.slice(0, at)))) as Tally;
        expect(foldInPlace(tally, parsed, inputs.slice(at))).toEqual(whole);
      }),
    );
  });

  it("foldInPlace mutates and returns the given state, deep-frozen", () => {
    const state = tally.initial();
    const result = foldInPlace(tally, state, [{ kind: "add", key: "a", n: 2 }]);
    expect(result).toBe(state);
    expect(result.byKey).toEqual({ a: 2 });
    expect(Object.isFrozen(result)).toBe(true);
    expect(Object.isFrozen(result.byKey)).toBe(true);
    expect(Object.isFrozen(result.order)).toBe(true);
  });

  it("fold leaves a state others hold untouched (even an unfrozen one) and returns it when nothing changed", () => {
    const shared: Tally = { total: 1, byKey: { a: 1 }, order: ["a"], anomalies: 0 };
    const next = fold(tally, shared, [{ kind: "add", key: "b", n: 3 }]);
    expect(shared).toEqual({ total: 1, byKey: { a: 1 }, order: ["a"], anomalies: 0 });
    expect(next).toEqual({ total: 4, byKey: { a: 1, b: 3 }, order: ["a", "b"], anomalies: 0 });
    expect(fold(tally, next, [])).toBe(next);
  });
});
