import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { summary } from "./session-fixtures.fixture.ts";
import { forkedFrom, nestSubagents, subtreeHas, subtreeSize, type SessionNode } from "./session-tree.ts";

const shape = (nodes: SessionNode[]): unknown => nodes.map((n) => (n.children.length ? [n.session.id, shape(n.children)] : n.session.id));

describe("nestSubagents", () => {
  it("nests subagent sessions under their parent by path, at any depth, keeping list order", () => {
    const parent = summary("p");
    const c1 = summary("c1", { isSubagentSession: true, parentSessionPath: parent.path });
    const c2 = summary("c2", { isSubagentSession: true, parentSessionPath: parent.path });
    const grandchild = summary("g", { isSubagentSession: true, parentSessionPath: c2.path });
    const other = summary("o");
    expect(shape(nestSubagents([c1, other, grandchild, parent, c2]))).toEqual(["o", ["p", ["c1", ["c2", ["g"]]]]]);
  });

  it("keeps forks top-level: only subagent sessions nest, a fork names the session it came from", () => {
    const parent = summary("p");
    const fork = summary("f", { parentSessionPath: parent.path });
    const child = summary("c", { isSubagentSession: true, parentSessionPath: parent.path });
    expect(shape(nestSubagents([fork, parent, child]))).toEqual(["f", ["p", ["c"]]]);
    expect(forkedFrom(fork, [fork, parent, child])?.id).toBe("p");
    expect(forkedFrom(child, [fork, parent, child])).toBeNull();
    expect(forkedFrom(parent, [fork, parent, child])).toBeNull();
    expect(forkedFrom(summary("g", { parentSessionPath: "/elsewhere/x.jsonl" }), [parent])).toBeNull();
  });

  it("keeps a child whose parent is not listed as a root", () => {
    const orphan = summary("x", { isSubagentSession: true, parentSessionPath: "/elsewhere/parent.jsonl" });
    expect(shape(nestSubagents([orphan, summary("a")]))).toEqual(["x", "a"]);
  });

  it("cuts parent loops and self-parents instead of losing sessions", () => {
    const a = summary("a");
    const b = summary("b");
    const loopA = { ...a, isSubagentSession: true, parentSessionPath: b.path };
    const loopB = { ...b, isSubagentSession: true, parentSessionPath: a.path };
    const self = summary("s", { isSubagentSession: true, parentSessionPath: `/agent/sessions/--w--/s.jsonl` });
    const roots = nestSubagents([loopA, loopB, self]);
    expect(roots.reduce((n, r) => n + subtreeSize(r), 0)).toBe(3);
    expect(shape(roots)).toEqual([["b", ["a"]], "s"]);
  });

  it("never loses or duplicates a session, whatever the parent links", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: -1, max: 7 }), fc.boolean()), { minLength: 0, maxLength: 8 }), (parents) => {
        const rows = parents.map(([p, subagent], i) =>
          summary(`s${i}`, p >= 0 ? { isSubagentSession: subagent, parentSessionPath: `/agent/sessions/--w--/s${p}.jsonl` } : {}),
        );
        const roots = nestSubagents(rows);
        const seen: string[] = [];
        const walk = (n: SessionNode) => {
          seen.push(n.session.id);
          n.children.forEach(walk);
        };
        roots.forEach(walk);
        return seen.length === rows.length && new Set(seen).size === rows.length;
      }),
    );
  });

  it("subtreeHas finds descendants", () => {
    const parent = summary("p");
    const child = summary("c", { isSubagentSession: true, parentSessionPath: parent.path });
    const [root] = nestSubagents([parent, child]);
    expect(root && subtreeHas(root, "c")).toBe(true);
    expect(root && subtreeHas(root, "zz")).toBe(false);
  });
});
