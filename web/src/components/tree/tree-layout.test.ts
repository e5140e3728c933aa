import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SESSION_TREE_NODE_KINDS, type SessionTreeNode, type SessionTreeView } from "../../../../domain/session-tree-view.ts";
import {
  buildTreeIndex,
  callOfPreview,
  layoutTree,
  nearestRow,
  kindLabel,
  passesFilter,
  renderedRows,
  rowLanes,
  rowWindow,
  scrollToShow,
  searchTokens,
  segmentJump,
  TREE_FILTERS,
  TREE_KIND_LABELS,
  treeItemPositions,
  type TreeFilter,
  type TreeLayout,
} from "./tree-layout.ts";
import { branchedView, largeView, treeNode } from "./tree.fixture.ts";

const ids = (layout: TreeLayout) => layout.rows.map((row) => row.id);
const lanesOf = (layout: TreeLayout) => Object.fromEntries(layout.rows.map((row) => [row.id, rowLanes(row).join(" ")]));

describe("layoutTree on a branched session", () => {
  const index = buildTreeIndex(branchedView());

  it("lists the active branch first, hides bookkeeping and call-only messages, and indents only at the branch point", () => {
    const layout = layoutTree(index);
    expect(ids(layout)).toEqual(["u1", "t1", "a2", "bs1", "u3", "a5", "c1", "u4", "a6", "u2", "t2", "a4", "u5", "a7"]);
    expect(lanesOf(layout)).toEqual({
      u1: "",
      t1: "",
      a2: "",
      bs1: "tee",
      u3: "line",
      a5: "line",
      c1: "line",
      u4: "line",
      a6: "line",
      u2: "tee",
      t2: "line",
      a4: "line",
      u5: "elbow",
      a7: "blank",
    });
  });

  it("marks the active path and the leaf, and carries labels and errors", () => {
    const layout = layoutTree(index);
    expect(layout.rows.filter((row) => row.active).map((row) => row.id)).toEqual(["u1", "t1", "a2", "bs1", "u3", "a5", "c1", "u4", "a6"]);
    expect(layout.rows.filter((row) => row.leaf).map((row) => row.id)).toEqual(["a6"]);
    const u2 = layout.rows[layout.indexOf.get("u2") ?? -1];
    expect(u2?.node.label).toBe("oauth");
    expect(layout.rows.find((row) => row.id === "a6")?.node.error).toBe(true);
  });

  it("titles a tool result with the call its assistant message made", () => {
    const layout = layoutTree(index);
    const t1 = layout.rows.find((row) => row.id === "t1");
    expect(t1?.title).toBe("read(src/app.ts)");
    expect(t1?.detail).toBe("import { createApp } from 'vue'");
  });

  it("shows everything with the filter all, in order, the call-only messages included", () => {
    const layout = layoutTree(index, { filter: "all" });
    expect(ids(layout)).toEqual(["u1", "a1", "t1", "a2", "bs1", "u3", "a5", "c1", "u4", "a6", "u2", "a3", "t2", "a4", "m1", "u5", "a7"]);
  });

  it("filters like pi: no tools, prompts only, labeled only", () => {
    expect(ids(layoutTree(index, { filter: "no-tools" }))).not.toContain("t1");
    expect(ids(layoutTree(index, { filter: "user-only" }))).toEqual(["u1", "u3", "u4", "u2", "u5"]);
    const userOnly = layoutTree(index, { filter: "user-only" });
    // Prompts hang under their nearest shown ancestor: u1 branches into three.
    expect(lanesOf(userOnly)).toEqual({ u1: "", u3: "tee", u4: "line", u2: "tee", u5: "elbow" });
    expect(ids(layoutTree(index, { filter: "labeled-only" }))).toEqual(["u2"]);
  });

  it("keeps the leaf row on its nearest shown ancestor when the leaf is hidden", () => {
    const onModelChange = buildTreeIndex(branchedView("m1"));
    const layout = layoutTree(onModelChange);
    expect(layout.rows.filter((row) => row.leaf).map((row) => row.id)).toEqual(["a4"]);
    expect(ids(layout).slice(0, 6)).toEqual(["u1", "t1", "a2", "u2", "t2", "a4"]);
  });

  it("searches every token in text, label, kind and tool", () => {
    expect(ids(layoutTree(index, { search: "oauth" }))).toEqual(["bs1", "u2", "a4"]);
    expect(ids(layoutTree(index, { search: "branch summary" }))).toEqual(["bs1"]);
    expect(ids(layoutTree(index, { search: "READ app" }))).toEqual(["t1"]);
    expect(ids(layoutTree(index, { search: "nothing-like-this" }))).toEqual([]);
    expect(searchTokens("  a  B ")).toEqual(["a", "b"]);
  });

  it("folds a branch: its shown descendants go, counted on the folded row", () => {
    const layout = layoutTree(index, { folded: new Set(["u2"]) });
    expect(ids(layout)).not.toContain("t2");
    expect(ids(layout)).not.toContain("a4");
    const u2 = layout.rows.find((row) => row.id === "u2");
    expect(u2).toMatchObject({ folded: true, hidden: 2, foldable: true });
    // Folding the leaf's branch puts the leaf mark on the folded row.
    const foldedActive = layoutTree(index, { folded: new Set(["bs1"]) });
    expect(foldedActive.rows.filter((row) => row.leaf).map((row) => row.id)).toEqual(["bs1"]);
  });

  it("offers folding on roots, segment starts and branch points only", () => {
    const layout = layoutTree(index);
    expect(layout.rows.filter((row) => row.foldable).map((row) => row.id)).toEqual(["u1", "a2", "bs1", "u2", "u5"]);
  });

  it("jumps between branch segments like pi's fold-or-up and unfold-or-down", () => {
    const layout = layoutTree(index);
    const at = (id: string) => layout.indexOf.get(id) ?? -1;
    expect(layout.rows[segmentJump(layout, at("a2"), "down")]?.id).toBe("bs1");
    expect(layout.rows[segmentJump(layout, at("u4"), "up")]?.id).toBe("bs1");
    expect(layout.rows[segmentJump(layout, at("bs1"), "up")]?.id).toBe("u1");
    expect(layout.rows[segmentJump(layout, at("bs1"), "down")]?.id).toBe("a6");
    expect(layout.rows[segmentJump(layout, at("t2"), "up")]?.id).toBe("u2");
  });

  it("selects a hidden node's nearest shown ancestor", () => {
    const layout = layoutTree(index);
    expect(layout.rows[nearestRow(index, layout, "m1")]?.id).toBe("a4");
    expect(layout.rows[nearestRow(index, layout, "a1")]?.id).toBe("u1");
    expect(nearestRow(index, layoutTree(index, { search: "zzz" }), "a1")).toBe(-1);
  });
});

describe("layoutTree details", () => {
  it("keeps a linear session flat", () => {
    const nodes = Array.from({ length: 30 }, (_, i) =>
      treeNode(`n${i}`, i === 0 ? null : `n${i - 1}`, i % 2 ? "assistant" : "user", `t${i}`),
    );
    const layout = layoutTree(buildTreeIndex({ nodes, leafId: "n29" }));
    expect(layout.rows.every((row) => row.depth === 0 && rowLanes(row).length === 0)).toBe(true);
    expect(layout.rows.every((row) => row.active)).toBe(true);
  });

  it("draws several roots as branches and treats orphans and cycles as roots", () => {
    const view: ViewLike = {
      sessionId: "s",
      leafId: "x2",
      nodes: [
        treeNode("r1", null, "user", "first"),
        treeNode("x1", "missing", "user", "orphan"),
        treeNode("x2", "x1", "assistant", "answer"),
        treeNode("c1", "c2", "user", "cycle one"),
        treeNode("c2", "c1", "user", "cycle two"),
      ],
    };
    const layout = layoutTree(buildTreeIndex(view));
    expect(ids(layout)).toEqual(["x1", "x2", "r1", "c1", "c2"]);
    expect(lanesOf(layout)).toEqual({ x1: "tee", x2: "line", r1: "tee", c1: "elbow", c2: "blank" });
  });

  it("reads the k-th call of an assistant preview", () => {
    const preview = 'read(src/a.ts), bash(npm test -- --grep "x, y"), edit(src/b.ts)';
    expect(callOfPreview(preview, ["read", "bash", "edit"], 0)).toBe("read(src/a.ts)");
    expect(callOfPreview(preview, ["read", "bash", "edit"], 1)).toBe('bash(npm test -- --grep "x, y")');
    expect(callOfPreview(preview, ["read", "bash", "edit"], 2)).toBe("edit(src/b.ts)");
    expect(callOfPreview(preview, ["read", "grep"], 1)).toBeNull();
    expect(callOfPreview("Some words", ["read"], 0)).toBeNull();
  });

  it("lays out 10,000 nodes quickly", () => {
    const view = largeView(10_000);
    const started = performance.now();
    const index = buildTreeIndex(view);
    const layout = layoutTree(index);
    const searched = layoutTree(index, { search: "side 500" });
    const ms = performance.now() - started;
    expect(layout.rows.length).toBeGreaterThan(7000);
    expect(ids(searched)).toContain("b500");
    expect(ms).toBeLessThan(1500);
    console.info(`10,000-node tree: index + layout + a searched layout in ${ms.toFixed(1)} ms`);
  });

  it("windows and scrolls fixed-height rows", () => {
    expect(rowWindow(0, 100, 20, 1000, 2)).toEqual({ start: 0, end: 8 });
    expect(rowWindow(2000, 100, 20, 1000, 2)).toEqual({ start: 98, end: 108 });
    expect(rowWindow(99999, 100, 20, 10, 2)).toEqual({ start: 7, end: 10 });
    expect(rowWindow(0, 100, 20, 0)).toEqual({ start: 0, end: 0 });
    expect(scrollToShow(0, 100, 20, 10)).toBe(120);
    expect(scrollToShow(300, 100, 20, 10)).toBe(200);
    expect(scrollToShow(190, 100, 20, 10)).toBe(190);
  });
});

// ---- properties ------------------------------------------------------------------------------------------------

type ViewLike = Pick<SessionTreeView, "sessionId" | "leafId" | "nodes">;

interface Generated {
  view: ViewLike;
}

/** Random trees: each node's parent is an earlier node, null, a missing id or (rarely) a later one (cycles). */
const treeArbitrary: fc.Arbitrary<Generated> = fc
  .array(
    fc.record({
      parent: fc.oneof(
        { weight: 12, arbitrary: fc.nat() },
        { weight: 1, arbitrary: fc.constant("null" as const) },
        { weight: 1, arbitrary: fc.constant("missing" as const) },
        { weight: 1, arbitrary: fc.nat().map((n) => ({ later: n })) },
      ),
      kind: fc.constantFrom(...SESSION_TREE_NODE_KINDS),
      label: fc.option(fc.constantFrom("a", "b"), { nil: undefined }),
      text: fc.constantFrom("read(x)", "hello world", "bash(ls), read(y)", "", "Error here"),
      toolName: fc.option(fc.constantFrom("read", "bash"), { nil: undefined }),
      error: fc.boolean(),
    }),
    { minLength: 0, maxLength: 40 },
  )
  .chain((specs) =>
    fc
      .record({
        leaf: fc.oneof(
          fc.constant(null),
          fc.nat().map((n) => (specs.length === 0 ? null : `n${n % specs.length}`)),
        ),
      })
      .map(({ leaf }) => {
        const nodes: SessionTreeNode[] = specs.map((spec, i) => {
          const parent =
            spec.parent === "null"
              ? null
              : spec.parent === "missing"
                ? "gone"
                : typeof spec.parent === "number"
                  ? i === 0
                    ? null
                    : `n${spec.parent % i}`
                  : `n${spec.parent.later % specs.length}`;
          return {
            id: `n${i}`,
            parentId: parent,
            kind: spec.kind,
            text: spec.text,
            timestamp: "2026-01-01T00:00:00.000Z",
            ...(spec.label !== undefined ? { label: spec.label } : {}),
            ...(spec.toolName !== undefined ? { toolName: spec.toolName } : {}),
            ...(spec.error ? { error: true as const } : {}),
          };
        });
        return { view: { sessionId: "p", leafId: leaf, nodes } };
      }),
  );

const optionsArbitrary = fc.record({
  filter: fc.constantFrom<TreeFilter>(...TREE_FILTERS),
  search: fc.constantFrom("", "read", "hello", "a", "error here", "tool"),
});

/**
 * The active path straight from the input: parents by id up to a root or a missing parent; null when the chain
 * runs into a cycle (the server never sends one; the layout breaks it somewhere, and only has to stay sane).
 */
function pathFromInput(view: ViewLike): Set<string> | null {
  const byId = new Map(view.nodes.map((node) => [node.id, node]));
  const path = new Set<string>();
  for (let id = view.leafId; id !== null && byId.has(id); id = byId.get(id)?.parentId ?? null) {
    if (path.has(id)) return null;
    path.add(id);
  }
  return path;
}

function isAncestor(index: ReturnType<typeof buildTreeIndex>, ancestor: string, id: string): boolean {
  for (
    let at = index.parentOf.get(id) ?? null, steps = 0;
    at !== null && steps <= index.order.length;
    at = index.parentOf.get(at) ?? null, steps += 1
  ) {
    if (at === ancestor) return true;
  }
  return false;
}

describe("layoutTree laws", () => {
  it("shows every node exactly once with the filter all", () => {
    fc.assert(
      fc.property(treeArbitrary, ({ view }) => {
        const layout = layoutTree(buildTreeIndex(view), { filter: "all" });
        expect([...ids(layout)].sort()).toEqual(view.nodes.map((node) => node.id).sort());
      }),
    );
  });

  it("shows exactly the nodes that pass the filter and search, each once, children after their shown parent", () => {
    fc.assert(
      fc.property(treeArbitrary, optionsArbitrary, ({ view }, options) => {
        const index = buildTreeIndex(view);
        const layout = layoutTree(index, options);
        const rowIds = ids(layout);
        expect(new Set(rowIds).size).toBe(rowIds.length);
        const tokens = searchTokens(options.search);
        const passing = view.nodes.filter((node) => passesFilter(node, options.filter, index.leafId)).map((node) => node.id);
        // Without a search: exactly the nodes that pass the filter. With one: those of them whose text, label or
        // tool holds every token are all there, and nothing else but nodes passing the filter.
        if (tokens.length === 0) expect([...rowIds].sort()).toEqual([...passing].sort());
        else {
          for (const id of rowIds) expect(passing).toContain(id);
          for (const node of view.nodes) {
            const words = [node.label ?? "", node.toolName ?? "", node.text].join(" ").toLowerCase();
            if (passing.includes(node.id) && tokens.every((token) => words.includes(token))) expect(rowIds).toContain(node.id);
          }
        }
        for (const [i, row] of layout.rows.entries()) {
          const parent = layout.visibleParent.get(row.id) ?? null;
          if (parent !== null) {
            expect(layout.indexOf.get(parent)).toBeLessThan(i);
            expect(isAncestor(index, parent, row.id)).toBe(true);
          }
        }
      }),
    );
  });

  it("marks exactly the active path, and one leaf row when any of it is shown", () => {
    fc.assert(
      fc.property(treeArbitrary, optionsArbitrary, ({ view }, options) => {
        const layout = layoutTree(buildTreeIndex(view), options);
        const leaves = layout.rows.filter((row) => row.leaf);
        expect(leaves.length).toBeLessThanOrEqual(1);
        const path = pathFromInput(view);
        if (path === null) return;
        for (const row of layout.rows) expect(row.active).toBe(path.has(row.id));
        const anyShown = layout.rows.some((row) => path.has(row.id));
        expect(leaves.length).toBe(anyShown ? 1 : 0);
        if (leaves[0] !== undefined) expect(path.has(leaves[0].id)).toBe(true);
      }),
    );
  });

  it("indents a row one column past its shown parent exactly when that parent branches", () => {
    fc.assert(
      fc.property(treeArbitrary, optionsArbitrary, ({ view }, options) => {
        const layout = layoutTree(buildTreeIndex(view), options);
        const roots = layout.visibleChildren.get(null) ?? [];
        for (const row of layout.rows) {
          const parent = layout.visibleParent.get(row.id) ?? null;
          const siblings = layout.visibleChildren.get(parent) ?? [];
          const base = parent === null ? 0 : (layout.rows[layout.indexOf.get(parent) ?? -1]?.depth ?? 0);
          const lanes = rowLanes(row);
          expect(lanes.length).toBe(row.depth);
          expect(row.depth).toBe(base + (siblings.length > 1 ? 1 : 0));
          if (parent === null) expect(row.depth).toBe(roots.length > 1 ? 1 : 0);
          const connector = lanes.at(-1);
          if (siblings.length > 1) expect(connector).toBe(siblings.at(-1) === row.id ? "elbow" : "tee");
        }
      }),
    );
  });

  it("folding a shown node hides exactly its shown descendants", () => {
    fc.assert(
      fc.property(treeArbitrary, optionsArbitrary, fc.nat(), ({ view }, options, pick) => {
        const index = buildTreeIndex(view);
        const open = layoutTree(index, options);
        if (open.rows.length === 0) return;
        const target = open.rows[pick % open.rows.length]?.id as string;
        const folded = layoutTree(index, { ...options, folded: new Set([target]) });
        const expected = ids(open).filter((id) => !isAncestor(index, target, id));
        expect(ids(folded)).toEqual(expected);
        const row = folded.rows.find((r) => r.id === target);
        expect(row?.hidden).toBe(open.rows.length - expected.length);
        // Unfolding restores the rows.
        expect(ids(layoutTree(index, { ...options, folded: new Set() }))).toEqual(ids(open));
      }),
    );
  });
});

describe("what a row says and where it sits, for the list and assistive technology", () => {
  it("names each kind once (the rows and the search use the same words), a tool result by its tool", () => {
    expect(kindLabel(treeNode("b", null, "branch_summary", "x"))).toBe("branch summary");
    expect(kindLabel(treeNode("t", null, "tool", "x", { toolName: "read" }))).toBe("read");
    expect(kindLabel(treeNode("t", null, "tool", "x"))).toBe("tool");
    const index = buildTreeIndex(
      treeViewOfKinds(SESSION_TREE_NODE_KINDS.map((kind, i) => treeNode(`n${i}`, i === 0 ? null : `n${i - 1}`, kind, `text ${i}`))),
    );
    for (const kind of SESSION_TREE_NODE_KINDS) {
      const found = layoutTree(index, { filter: "all", search: TREE_KIND_LABELS[kind] }).rows.map((row) => row.node.kind);
      expect(found).toContain(kind);
    }
  });

  it("keeps the selected row in the DOM wherever the window is, in row order", () => {
    expect(renderedRows({ start: 10, end: 14 }, 12)).toEqual([10, 11, 12, 13]);
    expect(renderedRows({ start: 10, end: 14 }, 3)).toEqual([3, 10, 11, 12, 13]);
    expect(renderedRows({ start: 10, end: 14 }, 40)).toEqual([10, 11, 12, 13, 40]);
    expect(renderedRows({ start: 0, end: 2 }, -1)).toEqual([0, 1]);
  });

  it("places the branched session's rows in sets by level, as a browser does from aria-level", () => {
    const layout = layoutTree(buildTreeIndex(branchedView()));
    const { posInSet, setSize } = treeItemPositions(layout.rows);
    const at = (id: string) => {
      const i = layout.indexOf.get(id) ?? -1;
      return [posInSet[i], setSize[i]];
    };
    // u1, t1, a2 at the top level; the eleven rows of the three branches below a2.
    expect(at("u1")).toEqual([1, 3]);
    expect(at("a2")).toEqual([3, 3]);
    expect(at("bs1")).toEqual([1, 11]);
    expect(at("a7")).toEqual([11, 11]);
  });

  it("gives every row its place in its set: what the browser works out with every row present (property)", () => {
    const depths = fc.array(fc.nat({ max: 4 }), { maxLength: 40 });
    fc.assert(
      fc.property(depths, (list) => {
        const rows = list.map((depth) => ({ depth }));
        const { posInSet, setSize } = treeItemPositions(rows);
        rows.forEach((row, i) => {
          // The set: same level, no lower level in between, scanning both ways.
          let first = i;
          for (let j = i - 1; j >= 0 && (rows[j]?.depth ?? 0) >= row.depth; j -= 1) if (rows[j]?.depth === row.depth) first = j;
          let count = 0;
          for (let j = first; j < rows.length && (rows[j]?.depth ?? 0) >= row.depth; j += 1) if (rows[j]?.depth === row.depth) count += 1;
          let position = 0;
          for (let j = first; j <= i; j += 1) if (rows[j]?.depth === row.depth) position += 1;
          expect([posInSet[i], setSize[i]]).toEqual([position, count]);
        });
      }),
    );
  });
});

function treeViewOfKinds(nodes: SessionTreeNode[]): SessionTreeView {
  return { sessionId: "k", leafId: nodes.at(-1)?.id ?? null, nodes, from: 0, total: nodes.length, labels: {} };
}
