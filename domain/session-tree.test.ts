import { describe, it, expect } from "vitest";
import { produce } from "immer";
import type { SessionEntry } from "./session-log.ts";
import {
  activeBranch,
  addEntry,
  childrenOf,
  emptySessionTree,
  entryIds,
  entryOf,
  labelOf,
  pathTo,
  type SessionTreeState,
} from "./session-tree.ts";

const ts = "2025-01-01T00:00:00.000Z";

function entry(id: string, parentId: string | null, extra: Record<string, unknown> = {}): SessionEntry {
  return { type: "custom", customType: "t", data: null, id, parentId, timestamp: ts, ...extra } as SessionEntry;
}

function label(id: string, parentId: string | null, targetId: string, text: string | undefined, at = ts): SessionEntry {
  return { type: "label", id, parentId, timestamp: at, targetId, label: text } as SessionEntry;
}

function build(entries: readonly SessionEntry[]): SessionTreeState {
  const tree = emptySessionTree();
  for (const e of entries) addEntry(tree, e);
  return tree;
}

const ids = (entries: readonly SessionEntry[]): string[] => entries.map((e) => e.id);

describe("session tree", () => {
  it("is empty at first", () => {
    const tree = emptySessionTree();
    expect(tree.leafId).toBeNull();
    expect(activeBranch(tree)).toEqual([]);
    expect(pathTo(tree, "nope")).toEqual([]);
  });

  it("links children in file order, leaf = last entry, branch = root..leaf", () => {
    const tree = build([entry("a", null), entry("b", "a"), entry("c", "b"), entry("d", "a"), entry("e", "d")]);
    expect(entryIds(tree)).toEqual(["a", "b", "c", "d", "e"]);
    expect(tree.roots).toEqual(["a"]);
    expect(childrenOf(tree, "a")).toEqual(["b", "d"]);
    expect(tree.leafId).toBe("e");
    expect(ids(activeBranch(tree))).toEqual(["a", "d", "e"]);
    expect(ids(pathTo(tree, "c"))).toEqual(["a", "b", "c"]);
  });

  it("makes orphans roots and adopts them when their parent appears later", () => {
    const tree = build([entry("a", null), entry("x", "missing"), entry("y", "x")]);
    expect(tree.roots).toEqual(["a", "x"]);
    expect(childrenOf(tree, "x")).toEqual(["y"]);
    addEntry(tree, entry("missing", "a"));
    expect(tree.roots).toEqual(["a"]);
    expect(childrenOf(tree, "missing")).toEqual(["x"]);
    expect(ids(pathTo(tree, "y"))).toEqual(["a", "missing", "x", "y"]);
  });

  it("treats a self-parented entry as a root and survives cycles", () => {
    const tree = build([entry("s", "s"), entry("p", "q"), entry("q", "p")]);
    expect(tree.roots).toEqual(["s"]);
    expect(ids(pathTo(tree, "s"))).toEqual(["s"]);
    expect(ids(pathTo(tree, "q"))).toEqual(["p", "q"]);
    expect(ids(pathTo(tree, "p"))).toEqual(["q", "p"]);
  });

  it("treats a non-string parentId as a root", () => {
    const tree = build([entry("a", null), { ...entry("b", null), parentId: 7 } as unknown as SessionEntry]);
    expect(tree.roots).toEqual(["a", "b"]);
  });

  it("does not resolve prototype names as entries", () => {
    const tree = build([entry("a", "constructor"), entry("b", "toString")]);
    expect(tree.roots).toEqual(["a", "b"]);
    expect(pathTo(tree, "hasOwnProperty")).toEqual([]);
    expect(ids(pathTo(tree, "a"))).toEqual(["a"]);
    expect(labelOf(tree, "constructor")).toBeUndefined();
  });

  it("counts entries without a usable id as anomalies and leaves the leaf alone", () => {
    const tree = build([entry("a", null), { type: "custom", parentId: "a" } as unknown as SessionEntry, entry("__proto__", "a")]);
    expect(tree.anomalies).toBe(2);
    expect(entryIds(tree)).toEqual(["a"]);
    expect(tree.leafId).toBe("a");
    expect(Object.getPrototypeOf(tree.entries)).toBe(Object.prototype);
  });

  it("keeps the latest label per target; an empty or missing label clears it", () => {
    const tree = build([entry("a", null), label("l1", "a", "a", "first", "t1"), label("l2", "l1", "a", "second", "t2")]);
    expect(labelOf(tree, "a")).toBe("second");
    expect(tree.labels["a"]).toEqual({ label: "second", timestamp: "t2" });
    addEntry(tree, label("l3", "l2", "a", ""));
    expect(labelOf(tree, "a")).toBeUndefined();
    addEntry(tree, label("l4", "l3", "a", "again"));
    addEntry(tree, label("l5", "l4", "a", undefined));
    expect(labelOf(tree, "a")).toBeUndefined();
    expect(tree.labels).toEqual({});
    // label entries are tree nodes on the active path, like in pi
    expect(ids(activeBranch(tree))).toEqual(["a", "l1", "l2", "l3", "l4", "l5"]);
  });

  it("labels targets that are not (yet) entries, like pi's getLabel", () => {
    const tree = build([entry("a", null), label("l1", "a", "zz", "later")]);
    expect(labelOf(tree, "zz")).toBe("later");
  });

  it("stores unknown entry types as tree nodes", () => {
    const odd = { type: "future_thing", id: "f", parentId: "a", timestamp: ts, payload: [1] } as unknown as SessionEntry;
    const tree = build([entry("a", null), odd]);
    expect(entryOf(tree, "f")).toBe(odd);
    expect(childrenOf(tree, "a")).toEqual(["f"]);
    expect(tree.leafId).toBe("f");
  });

  it("lets a later duplicate id replace the entry and re-file it under its new parent", () => {
    const tree = build([entry("a", null), entry("b", "a"), entry("c", "a"), entry("d", "b")]);
    const replacement = entry("c", "b", { data: 2 });
    addEntry(tree, replacement);
    expect(entryOf(tree, "c")).toBe(replacement);
    expect(entryIds(tree)).toEqual(["a", "b", "c", "d"]);
    expect(childrenOf(tree, "a")).toEqual(["b"]);
    expect(childrenOf(tree, "b")).toEqual(["c", "d"]);
    expect(tree.leafId).toBe("c");
    expect(ids(activeBranch(tree))).toEqual(["a", "b", "c"]);
  });

  it("works on immer drafts", () => {
    const base = build([entry("a", null), entry("b", "a")]);
    const next = produce(base, (draft) => {
      addEntry(draft as SessionTreeState, entry("c", "a"));
      addEntry(draft as SessionTreeState, label("l", "c", "b", "mark"));
      addEntry(draft as SessionTreeState, entry("x", "later"));
      addEntry(draft as SessionTreeState, entry("later", "l"));
    });
    expect(entryIds(base)).toEqual(["a", "b"]);
    expect(entryIds(next)).toEqual(["a", "b", "c", "l", "x", "later"]);
    expect(next.roots).toEqual(["a"]);
    expect(labelOf(next, "b")).toBe("mark");
    expect(ids(activeBranch(next))).toEqual(["a", "c", "l", "later"]);
    expect(ids(pathTo(next, "x"))).toEqual(["a", "c", "l", "later", "x"]);
  });
});
