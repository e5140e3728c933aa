import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { indexStatus } from "../../lib/live-messages.fixture.ts";
import { summary } from "../../lib/session-fixtures.fixture.ts";
import type { SessionNode } from "../../lib/session-tree.ts";
import { inBatches, listComplete, pinnedRows, PRUNE_BATCH_SIZE, staleIds, staleLine, withoutPinned } from "./pinned-sessions.ts";

const node = (id: string, children: SessionNode[] = []): SessionNode => ({ session: summary(id), children });
const ids = (nodes: readonly SessionNode[]) => nodes.map((n) => n.session.id);

describe("listComplete: a missing pinned session counts as gone only against a complete list", () => {
  const ready = { status: "ready", stale: false, indexStatus: indexStatus() };

  it("is complete once the snapshot is current and the index is ready and verified", () => {
    expect(listComplete(ready)).toBe(true);
  });

  it("is not complete while loading, after a replaced stream, without an index status, or while indexing or checking", () => {
    expect(listComplete({ ...ready, status: "loading" })).toBe(false);
    expect(listComplete({ ...ready, status: "idle" })).toBe(false);
    expect(listComplete({ ...ready, stale: true })).toBe(false);
    expect(listComplete({ ...ready, indexStatus: null })).toBe(false);
    expect(listComplete({ ...ready, indexStatus: indexStatus({ ready: false }) })).toBe(false);
    expect(listComplete({ ...ready, indexStatus: indexStatus({ verified: false }) })).toBe(false);
  });
});

describe("staleIds", () => {
  const listed = [summary("a"), summary("b")];

  it("names the pins whose session is not listed, in pin order, once each", () => {
    expect(staleIds(["x", "a", "y", "x", "b"], listed, true)).toEqual(["x", "y"]);
  });

  it("names none while the list is not complete", () => {
    expect(staleIds(["x", "a"], listed, false)).toEqual([]);
    expect(staleIds(["x"], [], false)).toEqual([]);
  });

  it("names none when every pin is listed or there are no pins", () => {
    expect(staleIds(["b", "a"], listed, true)).toEqual([]);
    expect(staleIds([], listed, true)).toEqual([]);
  });

  it("every pin is either stale or listed, never both (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "d", "e")),
        fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e")),
        (pins, list) => {
          const stale = staleIds(
            pins,
            list.map((id) => summary(id)),
            true,
          );
          for (const id of pins) expect(stale.includes(id)).toBe(!list.includes(id));
          expect(new Set(stale).size).toBe(stale.length);
        },
      ),
    );
  });
});

describe("pinnedRows", () => {
  const parent = summary("parent", { path: "/s/parent.jsonl", cwd: "/w/alpha" });
  const child = summary("child", { path: "/s/child.jsonl", isSubagentSession: true, parentSessionPath: "/s/parent.jsonl" });
  const other = summary("other", { cwd: "/w/beta" });
  const sessions = [parent, child, other, summary("plain")];

  it("lists the pinned sessions of every project in pin order, skipping unlisted pins and repeats", () => {
    expect(ids(pinnedRows(["other", "gone", "parent", "other"], sessions))).toEqual(["other", "parent"]);
  });

  it("keeps a pinned parent's subagent sessions nested; a pinned subagent session gets a row of its own", () => {
    const rows = pinnedRows(["parent", "child"], sessions);
    expect(ids(rows)).toEqual(["parent", "child"]);
    expect(ids(rows[0]?.children ?? [])).toEqual(["child"]);
    expect(rows[1]?.children).toEqual([]);
  });

  it("is empty without pins", () => {
    expect(pinnedRows([], sessions)).toEqual([]);
  });
});

describe("withoutPinned", () => {
  const groups = [
    { group: "today", label: "Today", items: [node("a"), node("b", [node("b1")])] },
    { group: "older", label: "Older", items: [node("c")] },
  ];

  it("drops pinned top-level rows and the groups they leave empty; nested pinned rows stay", () => {
    const out = withoutPinned(groups, ["c", "a", "b1"]);
    expect(out.map((g) => g.group)).toEqual(["today"]);
    expect(ids(out[0]?.items ?? [])).toEqual(["b"]);
    expect(ids(out[0]?.items[0]?.children ?? [])).toEqual(["b1"]);
  });

  it("leaves the groups as they are without pins (the same group objects)", () => {
    const out = withoutPinned(groups, []);
    expect(out).toEqual(groups);
    expect(out[0]).toBe(groups[0]);
    expect(withoutPinned(groups, ["zzz"])[1]).toBe(groups[1]);
  });
});

describe("inBatches: prune requests of at most 500 ids", () => {
  it("splits 1201 ids into 500, 500 and 201, in order", () => {
    const all = Array.from({ length: 1201 }, (_, i) => `s${i}`);
    const batches = inBatches(all);
    expect(PRUNE_BATCH_SIZE).toBe(500);
    expect(batches.map((b) => b.length)).toEqual([500, 500, 201]);
    expect(batches[1]?.[0]).toBe("s500");
    expect(batches[2]?.at(-1)).toBe("s1200");
  });

  it("sends nothing for no ids, one batch for exactly 500", () => {
    expect(inBatches([])).toEqual([]);
    expect(inBatches(Array.from({ length: 500 }, (_, i) => i)).length).toBe(1);
  });

  it("refuses a batch size that is not a positive integer", () => {
    expect(() => inBatches([1], 0)).toThrow(RangeError);
    expect(() => inBatches([1], 1.5)).toThrow(RangeError);
  });

  it("every id lands in exactly one batch, order kept, each batch 1..size long (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 1600 }), fc.integer({ min: 1, max: 600 }), (items, size) => {
        const batches = inBatches(items, size);
        expect(batches.flat()).toEqual(items);
        for (const batch of batches) {
          expect(batch.length).toBeGreaterThan(0);
          expect(batch.length).toBeLessThanOrEqual(size);
        }
        // Only the last batch may be short.
        for (const batch of batches.slice(0, -1)) expect(batch.length).toBe(size);
        expect(batches.length).toBe(Math.ceil(items.length / size));
      }),
      { numRuns: 200 },
    );
  });

  it("with the default size, no batch exceeds the route's 500 (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2600 }), (count) => {
        const items = Array.from({ length: count }, (_, i) => i);
        const batches = inBatches(items);
        expect(batches.every((b) => b.length <= 500)).toBe(true);
        expect(batches.flat()).toEqual(items);
      }),
      { numRuns: 100 },
    );
  });
});

describe("staleLine", () => {
  it("says how many pinned sessions no longer exist", () => {
    expect(staleLine(1)).toBe("1 pinned session no longer exists");
    expect(staleLine(3)).toBe("3 pinned sessions no longer exist");
    expect(staleLine(2, 1)).toBe("2 pinned sessions are not listed (deleted, or the unreadable session file)");
    expect(staleLine(1, 4)).toBe("1 pinned session is not listed (deleted, or one of the 4 unreadable session files)");
  });
});
