import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { activeSnapshot, compactSnapshot } from "./active.fixture.ts";
import { asActiveSnapshot, isFullSnapshot, shouldApplySnapshot, type StoredSnapshot } from "./snapshot-order.ts";

const stored = (revision: number | undefined, full = true, generation = 1): StoredSnapshot => ({
  snapshot: full || revision === undefined ? activeSnapshot("s", revision) : compactSnapshot("s", revision),
  full,
  generation,
});

describe("shouldApplySnapshot", () => {
  it("takes the first snapshot and newer revisions, rejects older and equal ones", () => {
    expect(shouldApplySnapshot(undefined, activeSnapshot("s", 3), 1)).toBe(true);
    expect(shouldApplySnapshot(stored(3), activeSnapshot("s", 4), 1)).toBe(true);
    expect(shouldApplySnapshot(stored(3), activeSnapshot("s", 2), 1)).toBe(false);
    expect(shouldApplySnapshot(stored(3), activeSnapshot("s", 3), 1)).toBe(false);
  });

  it("upgrades a compact snapshot to the full one of the same revision, never the reverse", () => {
    expect(shouldApplySnapshot(stored(3, false), activeSnapshot("s", 3), 1)).toBe(true);
    expect(shouldApplySnapshot(stored(3, true), compactSnapshot("s", 3), 1)).toBe(false);
  });

  it("takes anything in a newer socket generation (a reopened runtime restarts its revisions)", () => {
    expect(shouldApplySnapshot(stored(40, true, 1), activeSnapshot("s", 1), 2)).toBe(true);
  });

  it("takes snapshots without a revision (cannot be ordered)", () => {
    expect(shouldApplySnapshot(stored(3), activeSnapshot("s", undefined), 1)).toBe(true);
  });

  it("applying a shuffled stream keeps the highest revision (order-independence)", () => {
    fc.assert(
      fc.property(fc.shuffledSubarray([1, 2, 3, 4, 5, 6, 7, 8], { minLength: 1 }), (revisions) => {
        let current: StoredSnapshot | undefined;
        for (const revision of revisions) {
          const incoming = activeSnapshot("s", revision);
          if (shouldApplySnapshot(current, incoming, 1)) current = { snapshot: incoming, full: true, generation: 1 };
        }
        return current?.snapshot.snapshotRevision === Math.max(...revisions);
      }),
    );
  });
});

describe("isFullSnapshot / asActiveSnapshot", () => {
  it("tells full from compact snapshots", () => {
    expect(isFullSnapshot(activeSnapshot("s", 1))).toBe(true);
    expect(isFullSnapshot(compactSnapshot("s", 1))).toBe(false);
  });

  it("accepts objects with an id and a state, rejects the rest", () => {
    expect(asActiveSnapshot(activeSnapshot("s", 1))).not.toBeNull();
    for (const bad of [null, "x", [], { id: "", state: {} }, { id: "s" }, { id: "s", state: {}, snapshotRevision: "2" }]) {
      expect(asActiveSnapshot(bad)).toBeNull();
    }
  });
});
