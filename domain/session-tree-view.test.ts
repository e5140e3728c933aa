import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sessionFileArb } from "../test/arbitraries/session-log.arbitrary.ts";
import { decodeSessionText } from "./session-decoder.ts";
import type { SessionEntry } from "./session-log.ts";
import { addEntry, emptySessionTree, entryIds, pathTo, type SessionTreeState } from "./session-tree.ts";
import { branchEntries, effectiveLeaf, sessionTreeView, TREE_TEXT_LIMIT } from "./session-tree-view.ts";

const ts = "2026-01-01T00:00:00.000Z";

function treeOf(entries: readonly SessionEntry[]): SessionTreeState {
  const tree = emptySessionTree();
  for (const entry of entries) addEntry(tree, entry);
  return tree;
}

function entriesOfFile(text: string): SessionEntry[] {
  return decodeSessionText(text).records.flatMap((record) => (record.kind === "entry" ? [record.entry] : []));
}

const message = (id: string, parentId: string | null, message: Record<string, unknown>): SessionEntry =>
  ({ type: "message", id, parentId, timestamp: ts, message }) as SessionEntry;

describe("session tree view", () => {
  it("shows each kind with a one-line preview, labels and errors", () => {
    const tree = treeOf([
      message("u1", null, { role: "user", content: "first\n  question", timestamp: 1 }),
      message("a1", "u1", {
        role: "assistant",
        content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "src/a.ts" } }],
        stopReason: "toolUse",
      }),
      message("t1", "a1", {
        role: "toolResult",
        toolName: "read",
        toolCallId: "c1",
        content: [{ type: "text", text: "line one\nline two" }],
        isError: true,
      }),
      message("a2", "t1", { role: "assistant", content: [], stopReason: "error", errorMessage: "429 Too Many Requests" }),
      { type: "branch_summary", id: "b1", parentId: "u1", timestamp: ts, fromId: "a2", summary: "tried reading a.ts" } as SessionEntry,
      { type: "label", id: "l1", parentId: "b1", timestamp: ts, targetId: "u1", label: "start" } as SessionEntry,
      { type: "model_change", id: "m1", parentId: "l1", timestamp: ts, provider: "faux", modelId: "m" } as SessionEntry,
      message("u2", "m1", { role: "user", content: "x".repeat(400), timestamp: 2 }),
    ]);
    const view = sessionTreeView(tree, "s");
    expect(view.leafId).toBe("u2");
    expect(view.nodes.map((node) => [node.id, node.kind, node.parentId, node.text])).toEqual([
      ["u1", "user", null, "first question"],
      ["a1", "assistant", "u1", "read(src/a.ts)"],
      ["t1", "tool", "a1", "line one"],
      ["a2", "assistant", "t1", "429 Too Many Requests"],
      ["b1", "branch_summary", "u1", "tried reading a.ts"],
      ["l1", "label", "b1", "label: start"],
      ["m1", "model_change", "l1", "model → faux/m"],
      ["u2", "user", "m1", "x".repeat(TREE_TEXT_LIMIT)],
    ]);
    expect(view.nodes[0]?.label).toBe("start");
    expect(view.nodes.filter((node) => node.error).map((node) => node.id)).toEqual(["t1", "a2"]);
    expect(view.nodes[1]?.toolName).toBe("read");
  });

  it("a moved leaf holds only while the file ends where it was moved", () => {
    const tree = treeOf([message("u1", null, { role: "user", content: "q" }), message("a1", "u1", { role: "assistant", content: "a" })]);
    expect(effectiveLeaf(tree, null)).toBe("a1");
    expect(effectiveLeaf(tree, { leafId: "u1", lastEntryId: "a1" })).toBe("u1");
    expect(effectiveLeaf(tree, { leafId: null, lastEntryId: "a1" })).toBeNull();
    expect(effectiveLeaf(tree, { leafId: "u1", lastEntryId: "older" })).toBe("a1");
    expect(effectiveLeaf(tree, { leafId: "unknown", lastEntryId: "a1" })).toBe("a1");
    expect(branchEntries(tree, null)).toEqual([]);
    expect(branchEntries(tree, "u1").map((entry) => entry.id)).toEqual(["u1"]);
  });

  it("sends only what was appended to a client holding the first nodes, and everything to a stale one (property)", () => {
    fc.assert(
      fc.property(sessionFileArb({ maxEntries: 30 }), fc.nat(), (file, cut) => {
        const entries = entriesOfFile(file.text);
        const split = entries.length === 0 ? 0 : cut % (entries.length + 1);
        const tree = treeOf(entries.slice(0, split));
        const held = sessionTreeView(tree, "s");
        for (const entry of entries.slice(split)) addEntry(tree, entry);
        const full = sessionTreeView(tree, "s");
        const last = held.nodes.at(-1);
        if (last === undefined) return;
        const page = sessionTreeView(tree, "s", tree.leafId, { from: held.nodes.length, after: last.id });
        expect(page.from).toBe(held.nodes.length);
        expect(page.total).toBe(full.total);
        expect(page.labels).toEqual(full.labels);
        // Appends may change earlier nodes only through labels, which the page carries for every node.
        const merged = [...held.nodes, ...page.nodes].map((node) => {
          const { label: _label, ...rest } = node;
          return page.labels[node.id] !== undefined ? { ...rest, label: page.labels[node.id] } : rest;
        });
        expect(merged).toEqual(full.nodes);
        expect(sessionTreeView(tree, "s", tree.leafId, { from: held.nodes.length, after: "not-the-last" }).from).toBe(0);
        expect(sessionTreeView(tree, "s", tree.leafId, { from: full.total + 1, after: last.id }).from).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it("every entry appears once, in file order, under a parent that is in the view (property)", () => {
    fc.assert(
      fc.property(sessionFileArb({ orphans: true, maxEntries: 40 }), (file) => {
        const tree = treeOf(entriesOfFile(file.text));
        const view = sessionTreeView(tree, "s");
        expect(view.nodes.map((node) => node.id)).toEqual(entryIds(tree));
        const ids = new Set(view.nodes.map((node) => node.id));
        expect(ids.size).toBe(view.nodes.length);
        for (const node of view.nodes) {
          if (node.parentId !== null) expect(ids.has(node.parentId)).toBe(true);
          expect(node.text.length).toBeLessThanOrEqual(TREE_TEXT_LIMIT);
          expect(node.text).not.toMatch(/\n/);
        }
        // Following parents from the leaf gives the tree's own path (pi's getBranch).
        if (view.leafId !== null) {
          const byId = new Map(view.nodes.map((node) => [node.id, node]));
          const walked: string[] = [];
          const seen = new Set<string>();
          for (let at: string | null = view.leafId; at !== null && !seen.has(at); at = byId.get(at)?.parentId ?? null) {
            seen.add(at);
            walked.unshift(at);
          }
          expect(walked).toEqual(pathTo(tree, view.leafId).map((entry) => entry.id));
        }
      }),
      { numRuns: 150 },
    );
  });
});
