import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionTreeView } from "../../../../domain/session-tree-view.ts";
import { mergeTreeView, treeSince } from "./tree-sync.ts";
import { branchedView, treeNode, treeViewOf } from "./tree.fixture.ts";

/** The server's answer to a client holding the first `from` nodes of `whole`. */
function appended(whole: SessionTreeView, from: number): SessionTreeView {
  return { ...whole, nodes: whole.nodes.slice(from), from };
}

describe("tree sync", () => {
  it("asks for the whole tree first, then for what follows the nodes held", () => {
    expect(treeSince(null)).toBeUndefined();
    expect(treeSince(treeViewOf([], null))).toBeUndefined();
    expect(treeSince(branchedView())).toEqual({ from: 17, after: "a7" });
  });

  it("appends the new nodes, takes the answer's leaf, and the labels of the answer for every node", () => {
    const whole = branchedView();
    const held = mergeTreeView(null, { ...whole, nodes: whole.nodes.slice(0, 10), total: 10, leafId: "bs1" });
    expect(held?.nodes).toHaveLength(10);
    // Meanwhile u2 lost its label and a7 got one.
    const answer: SessionTreeView = { ...appended(whole, 10), labels: { a7: "mail" }, leafId: "a7" };
    const merged = mergeTreeView(held, answer);
    expect(merged?.nodes.map((node) => node.id)).toEqual(whole.nodes.map((node) => node.id));
    expect(merged?.nodes.find((node) => node.id === "u2")).not.toHaveProperty("label");
    expect(merged?.nodes.find((node) => node.id === "a7")?.label).toBe("mail");
    expect(merged).toMatchObject({ leafId: "a7", from: 0, total: 17 });
  });

  it("takes a whole answer as is and refuses an answer that does not continue what is held", () => {
    const whole = branchedView();
    const rewritten = treeViewOf([treeNode("x", null, "user", "fresh")], "x");
    expect(mergeTreeView(whole, rewritten)?.nodes.map((n) => n.id)).toEqual(["x"]);
    expect(mergeTreeView(whole, appended(whole, 5))).toBeNull();
    expect(mergeTreeView(null, appended(whole, 5))).toBeNull();
    expect(mergeTreeView(whole, { ...appended(whole, 17), total: 40 })).toBeNull();
    expect(mergeTreeView({ ...whole, sessionId: "other" }, appended(whole, 17))).toBeNull();
  });

  it("held prefix plus the answer since it is the whole tree, at every split point", () => {
    const whole = branchedView();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: whole.nodes.length }), (split) => {
        const first = mergeTreeView(null, { ...whole, nodes: whole.nodes.slice(0, split), total: split });
        const since = treeSince(first);
        const answer = since === undefined ? whole : appended(whole, since.from);
        expect(mergeTreeView(first, answer)).toEqual(mergeTreeView(null, whole));
      }),
    );
  });
});
