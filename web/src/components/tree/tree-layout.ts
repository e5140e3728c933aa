/**
 * The session tree as rows, the way pi's `/tree` selector lays it out (its tree-selector component), for the
 * browser's tree panel. Pure: the panel fetches a SessionTreeView and renders what these functions return.
 *
 * Rules it keeps:
 * - Every node of the view appears at most once; with the filter "all", no search and nothing folded, exactly
 *   once. A node whose parent is missing (or that sits on a parent cycle) is a root.
 * - Depth-first, children after their parent; among siblings the one holding the active leaf comes first, the
 *   others in file order (pi sorts the current branch first).
 * - Indentation only where the tree branches: a linear run stays at its depth; the children of a branch point
 *   (and several roots) get one more column and a connector (`tee`, the last one an `elbow`); the columns of
 *   branches still continuing below draw a `line`.
 * - Filters are pi's: `default` hides bookkeeping (labels, names, custom entries, model and thinking changes) and
 *   assistant messages that only call tools (their results show the calls), unless they failed or are the leaf;
 *   `no-tools` also hides tool results; `user-only`, `labeled-only`; `all` hides nothing. A hidden node's
 *   children hang under its nearest shown ancestor. The search keeps nodes whose words contain every token.
 * - The active path (root to leaf) is marked; the leaf, or when it is hidden its nearest shown ancestor, is the
 *   `leaf` row.
 * - Folding a shown node hides exactly its shown descendants (counted on the folded row).
 */
import type { SessionTreeNode, SessionTreeNodeKind, SessionTreeView } from "../../../../domain/session-tree-view.ts";

export const TREE_FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"] as const;
export type TreeFilter = (typeof TREE_FILTERS)[number];

export const TREE_FILTER_LABELS: Record<TreeFilter, string> = {
  default: "Default",
  "no-tools": "No tools",
  "user-only": "Prompts only",
  "labeled-only": "Labeled only",
  all: "Show all",
};

/** What one column before a row's text draws. */
export type TreeLane = "line" | "blank" | "tee" | "elbow";

/** The tree of one fetched view: effective parents, children in display order, the active path. */
export interface TreeIndex {
  readonly leafId: string | null;
  readonly byId: ReadonlyMap<string, SessionTreeNode>;
  /** The parent each node hangs under (null: a root). */
  readonly parentOf: ReadonlyMap<string, string | null>;
  /** Every node, depth-first in display order. */
  readonly order: readonly string[];
  /** Root to leaf. */
  readonly activePath: ReadonlySet<string>;
}

export interface TreeRow {
  readonly id: string;
  readonly node: SessionTreeNode;
  /** Columns before the text: `depth` of them (rowLanes draws them). */
  readonly depth: number;
  /** The columns above the connector: whether each continues down (shared between rows: O(n) for the tree). */
  readonly guides: readonly boolean[];
  /** The connector of a row whose shown parent branches (the last column), else null. */
  readonly connector: "tee" | "elbow" | null;
  /** On the path from the root to the active leaf. */
  readonly active: boolean;
  /** The active leaf, or the row standing for it while it is hidden. */
  readonly leaf: boolean;
  readonly foldable: boolean;
  readonly folded: boolean;
  /** Shown descendants this row's fold hides. */
  readonly hidden: number;
  /** The text to show: a tool result's call (`read(src/a.ts)`) when it can be told, else the node's text. */
  readonly title: string;
  /** Secondary text (a tool result's first output line), "" when none. */
  readonly detail: string;
}

export interface TreeLayout {
  readonly rows: readonly TreeRow[];
  readonly indexOf: ReadonlyMap<string, number>;
  /** Each row's nearest shown ancestor (null: a root of the shown tree). */
  readonly visibleParent: ReadonlyMap<string, string | null>;
  /** Each row's shown children, in row order (key null: the shown roots). */
  readonly visibleChildren: ReadonlyMap<string | null, readonly string[]>;
  /** Nodes that pass the filter and the search (folding aside). */
  readonly matching: number;
}

export interface TreeLayoutOptions {
  readonly filter?: TreeFilter;
  readonly search?: string;
  /** Ids of folded nodes (a fold on a node that is not shown does nothing). */
  readonly folded?: ReadonlySet<string>;
}

const EMPTY_SET: ReadonlySet<string> = new Set();

/** Builds the index of a view: O(n), iterative (a 10,000-entry linear session is 10,000 levels deep). */
export function buildTreeIndex(view: Pick<SessionTreeView, "nodes" | "leafId">): TreeIndex {
  const byId = new Map<string, SessionTreeNode>();
  for (const node of view.nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  const fileOrder = [...byId.keys()];

  const declaredParent = (id: string): string | null => {
    const parent = byId.get(id)?.parentId ?? null;
    return parent !== null && parent !== id && byId.has(parent) ? parent : null;
  };

  // The leaf's chain of declared parents orders the children; the active path proper follows the placed parents
  // (they differ only on a parent cycle, which the layout breaks).
  const leafChain = new Set<string>();
  const leafId = view.leafId !== null && byId.has(view.leafId) ? view.leafId : null;
  for (let id: string | null = leafId; id !== null && !leafChain.has(id); id = declaredParent(id)) leafChain.add(id);

  const children = new Map<string | null, string[]>();
  for (const id of fileOrder) {
    const parent = declaredParent(id);
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [id]);
    else list.push(id);
  }
  const ordered = (list: readonly string[]): string[] => {
    const first = list.filter((id) => leafChain.has(id));
    return first.length === 0 ? [...list] : [...first, ...list.filter((id) => !leafChain.has(id))];
  };

  const parentOf = new Map<string, string | null>();
  const order: string[] = [];
  const visit = (rootIds: readonly string[]): void => {
    const stack: string[] = [...rootIds].reverse();
    // A node is pushed once: its parent is recorded when it is pushed, and only unrecorded children are pushed.
    for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
      order.push(id);
      const kids = ordered(children.get(id) ?? []).filter((kid) => !parentOf.has(kid));
      for (const kid of kids) parentOf.set(kid, id);
      for (let i = kids.length - 1; i >= 0; i -= 1) stack.push(kids[i] as string);
    }
  };
  const roots = ordered(children.get(null) ?? []);
  for (const root of roots) parentOf.set(root, null);
  visit(roots);
  // Nodes on a parent cycle are reachable from no root: each becomes a root of its own, in file order.
  if (order.length < fileOrder.length) {
    for (const id of fileOrder) {
      if (parentOf.has(id)) continue;
      parentOf.set(id, null);
      visit([id]);
    }
  }
  const activePath = new Set<string>();
  for (let id: string | null = leafId; id !== null && !activePath.has(id); id = parentOf.get(id) ?? null) activePath.add(id);
  return { leafId, byId, parentOf, order, activePath };
}

const SETTINGS_KINDS: ReadonlySet<SessionTreeNodeKind> = new Set([
  "label",
  "session_info",
  "custom",
  "model_change",
  "thinking_level_change",
  "other",
]);

/** An assistant message whose preview is its tool calls (`name(arg), …`): it wrote no text. */
export function callsOnly(node: SessionTreeNode): boolean {
  return node.kind === "assistant" && node.toolName !== undefined && node.text.startsWith(`${node.toolName}(`);
}

/** Whether the filter shows a node (search aside). */
export function passesFilter(node: SessionTreeNode, filter: TreeFilter, leafId: string | null): boolean {
  if (filter === "all") return true;
  if (filter === "user-only") return node.kind === "user";
  if (filter === "labeled-only") return node.label !== undefined;
  if (SETTINGS_KINDS.has(node.kind)) return false;
  if (filter === "no-tools" && node.kind === "tool") return false;
  if (callsOnly(node) && node.error !== true && node.id !== leafId) return false;
  return true;
}

/** What each kind of entry is called on its row (and found by in the search). */
export const TREE_KIND_LABELS: Record<SessionTreeNodeKind, string> = {
  user: "user",
  assistant: "assistant",
  tool: "tool",
  bash: "bash",
  compaction: "compaction",
  branch_summary: "branch summary",
  custom_message: "message",
  model_change: "model",
  thinking_level_change: "thinking",
  label: "label",
  session_info: "name",
  custom: "custom",
  other: "entry",
};

/** A row's kind as shown: a tool result's tool, else the kind's label. */
export function kindLabel(node: Pick<SessionTreeNode, "kind" | "toolName">): string {
  return node.kind === "tool" ? (node.toolName ?? TREE_KIND_LABELS.tool) : TREE_KIND_LABELS[node.kind];
}

/** The search tokens of a query (lower case, split on white space). */
export function searchTokens(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

function searchText(node: SessionTreeNode, title: string): string {
  // The kind as labeled and as pi names it (`custom_message`, `session_info`).
  return [node.label ?? "", TREE_KIND_LABELS[node.kind], node.kind, node.toolName ?? "", title, node.text].join(" ").toLowerCase();
}

const NEXT_CALL = /\), (?=[\w.:-]+\()/g;

/**
 * The `k`-th call of an assistant preview `a(x), b(y), …` whose calls are named `names` (the tool results that
 * follow it, in order), or null when the preview does not read that way.
 */
export function callOfPreview(preview: string, names: readonly string[], k: number): string | null {
  let at = 0;
  for (let i = 0; i <= k; i += 1) {
    const name = names[i];
    if (name === undefined || !preview.startsWith(`${name}(`, at)) return null;
    NEXT_CALL.lastIndex = at + name.length + 1;
    const next = NEXT_CALL.exec(preview);
    const end = next === null ? preview.length : next.index + 1;
    if (i === k) return preview.slice(at, end);
    if (next === null) return null;
    at = end + 2;
  }
  return null;
}

/** A tool result's call, from the preview of the assistant message that made it (results chain under it). */
function toolCallTitle(index: TreeIndex, node: SessionTreeNode): string | null {
  const chain: SessionTreeNode[] = [node];
  let parentId = index.parentOf.get(node.id) ?? null;
  let parent = parentId === null ? undefined : index.byId.get(parentId);
  while (parent !== undefined && parent.kind === "tool" && chain.length < 64) {
    chain.unshift(parent);
    parentId = index.parentOf.get(parent.id) ?? null;
    parent = parentId === null ? undefined : index.byId.get(parentId);
  }
  if (parent === undefined || !callsOnly(parent)) return null;
  return callOfPreview(
    parent.text,
    chain.map((tool) => tool.toolName ?? ""),
    chain.length - 1,
  );
}

interface NodeText {
  readonly title: string;
  readonly detail: string;
  /** Lower case, for the search. */
  readonly words: string;
}

/** Per index (one fetched tree): each node's texts, worked out once and kept across filters and searches. */
const textCache = new WeakMap<TreeIndex, Map<string, NodeText>>();

function textOf(index: TreeIndex, node: SessionTreeNode): NodeText {
  let cache = textCache.get(index);
  if (cache === undefined) {
    cache = new Map();
    textCache.set(index, cache);
  }
  const known = cache.get(node.id);
  if (known !== undefined) return known;
  let title = node.text;
  let detail = "";
  if (node.kind === "tool") {
    title = toolCallTitle(index, node) ?? node.toolName ?? "tool";
    detail = node.text;
  }
  const text = { title, detail, words: searchText(node, title) };
  cache.set(node.id, text);
  return text;
}

/** The rows shown for a filter, a search and the folded nodes. O(n + the drawn columns). */
export function layoutTree(index: TreeIndex, options: TreeLayoutOptions = {}): TreeLayout {
  const filter = options.filter ?? "default";
  const tokens = searchTokens(options.search ?? "");
  const folded = options.folded ?? EMPTY_SET;

  const shown = new Set<string>();
  for (const id of index.order) {
    const node = index.byId.get(id) as SessionTreeNode;
    if (!passesFilter(node, filter, index.leafId)) continue;
    if (tokens.length > 0) {
      const words = textOf(index, node).words;
      if (!tokens.every((token) => words.includes(token))) continue;
    }
    shown.add(id);
  }

  // One pass in display order: parents come before their children.
  const visibleParent = new Map<string, string | null>();
  const shownChildCount = new Map<string, number>();
  const foldedBy = new Map<string, string>();
  const hiddenCount = new Map<string, number>();
  const visibleChildren = new Map<string | null, string[]>([[null, []]]);
  const rowIds: string[] = [];
  for (const id of index.order) {
    const parent = index.parentOf.get(id) ?? null;
    const above = parent === null ? null : shown.has(parent) ? parent : (visibleParent.get(parent) ?? null);
    visibleParent.set(id, above);
    const fold = parent === null ? undefined : (foldedBy.get(parent) ?? (shown.has(parent) && folded.has(parent) ? parent : undefined));
    if (fold !== undefined) foldedBy.set(id, fold);
    if (!shown.has(id)) continue;
    if (above !== null) shownChildCount.set(above, (shownChildCount.get(above) ?? 0) + 1);
    if (fold !== undefined) {
      hiddenCount.set(fold, (hiddenCount.get(fold) ?? 0) + 1);
      continue;
    }
    rowIds.push(id);
    const siblings = visibleChildren.get(above);
    if (siblings === undefined) visibleChildren.set(above, [id]);
    else siblings.push(id);
  }
  for (const id of [...visibleParent.keys()]) if (!shown.has(id)) visibleParent.delete(id);

  // The leaf's row: the leaf, or its nearest shown ancestor that is a row.
  const rowSet = new Set(rowIds);
  let leafRow: string | null = null;
  for (let id = index.leafId; id !== null && leafRow === null; id = index.parentOf.get(id) ?? null) {
    if (rowSet.has(id)) leafRow = id;
  }

  const passDown = new Map<string | null, readonly boolean[]>([[null, []]]);
  const siblingIndex = new Map<string, number>();
  for (const [, list] of visibleChildren) list.forEach((id, i) => siblingIndex.set(id, i));
  const rows: TreeRow[] = [];
  const indexOf = new Map<string, number>();
  for (const id of rowIds) {
    const node = index.byId.get(id) as SessionTreeNode;
    const above = visibleParent.get(id) ?? null;
    const siblings = visibleChildren.get(above) ?? [];
    const inherited = passDown.get(above) ?? [];
    let connector: TreeRow["connector"] = null;
    if (siblings.length > 1) {
      const last = siblingIndex.get(id) === siblings.length - 1;
      connector = last ? "elbow" : "tee";
      passDown.set(id, [...inherited, !last]);
    } else {
      passDown.set(id, inherited);
    }
    const children = shownChildCount.get(id) ?? 0;
    const foldable = children > 0 && (above === null || siblings.length > 1 || children > 1);
    const text = textOf(index, node);
    indexOf.set(id, rows.length);
    rows.push({
      id,
      node,
      depth: inherited.length + (connector === null ? 0 : 1),
      guides: inherited,
      connector,
      active: index.activePath.has(id),
      leaf: id === leafRow,
      foldable,
      folded: folded.has(id) && children > 0,
      hidden: hiddenCount.get(id) ?? 0,
      title: text.title,
      detail: text.detail,
    });
  }
  return { rows, indexOf, visibleParent, visibleChildren, matching: shown.size };
}

/** The columns drawn before a row's text, the last `max` of them. */
export function rowLanes(row: TreeRow, max = Number.POSITIVE_INFINITY): TreeLane[] {
  const lanes: TreeLane[] = [];
  const skip = Math.max(0, row.depth - max);
  for (let i = skip; i < row.guides.length; i += 1) lanes.push(row.guides[i] === true ? "line" : "blank");
  if (row.connector !== null) lanes.push(row.connector);
  return lanes;
}

/** The row to select for a node: the node, else its nearest shown ancestor, else the last row (-1: no rows). */
export function nearestRow(index: TreeIndex, layout: TreeLayout, id: string | null): number {
  const seen = new Set<string>();
  for (let at = id; at !== null && !seen.has(at); at = index.parentOf.get(at) ?? null) {
    seen.add(at);
    const row = layout.indexOf.get(at);
    if (row !== undefined) return row;
  }
  return layout.rows.length - 1;
}

/**
 * pi's fold-or-up / unfold-or-down jumps: `up` goes to the start of the branch segment the row is in (or of the
 * one above), `down` to the first child of the next branch point below, or the end of the branch.
 */
export function segmentJump(layout: TreeLayout, from: number, direction: "up" | "down"): number {
  const id = layout.rows[from]?.id;
  if (id === undefined) return from;
  let current = id;
  if (direction === "down") {
    for (let steps = 0; steps <= layout.rows.length; steps += 1) {
      const children = layout.visibleChildren.get(current) ?? [];
      const first = children[0];
      if (first === undefined) return layout.indexOf.get(current) ?? from;
      if (children.length > 1) return layout.indexOf.get(first) ?? from;
      current = first;
    }
    return from;
  }
  for (let steps = 0; steps <= layout.rows.length; steps += 1) {
    const parent = layout.visibleParent.get(current) ?? null;
    if (parent === null) return layout.indexOf.get(current) ?? from;
    if ((layout.visibleChildren.get(parent) ?? []).length > 1) {
      const start = layout.indexOf.get(current) ?? from;
      if (start < from) return start;
    }
    current = parent;
  }
  return from;
}

/** The rows to render for a scroll position: [start, end) with `overscan` rows either side. */
export function rowWindow(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): { start: number; end: number } {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visible = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, Math.min(first, count - 1) - overscan);
  const end = Math.min(count, first + visible + overscan);
  return { start, end: Math.max(start, end) };
}

/**
 * The rows to put in the DOM: those of the window, and the row `keep` (the selected one, which the list's
 * aria-activedescendant names) wherever it is, in row order. -1 keeps nothing more.
 */
export function renderedRows(range: { start: number; end: number }, keep: number): number[] {
  const shown: number[] = [];
  if (keep >= 0 && keep < range.start) shown.push(keep);
  for (let i = range.start; i < range.end; i += 1) shown.push(i);
  if (keep >= range.end) shown.push(keep);
  return shown;
}

/**
 * Each row's place among its siblings for assistive technology (aria-posinset, aria-setsize), as a browser
 * works it out from aria-level when every row is in the DOM: the rows of a set are the rows at the same level
 * (`depth`) after the same row of a lower level, up to the next such row. O(n).
 */
export function treeItemPositions(rows: readonly Pick<TreeRow, "depth">[]): { posInSet: number[]; setSize: number[] } {
  const posInSet: number[] = new Array<number>(rows.length);
  const setSize: number[] = new Array<number>(rows.length);
  interface OpenSet {
    readonly depth: number;
    readonly members: number[];
  }
  // The sets still open, deepest last.
  const open: OpenSet[] = [];
  const close = (set: OpenSet) => {
    for (const member of set.members) setSize[member] = set.members.length;
  };
  rows.forEach(({ depth }, i) => {
    let set = open.at(-1);
    while (set !== undefined && set.depth > depth) {
      close(set);
      open.pop();
      set = open.at(-1);
    }
    if (set === undefined || set.depth !== depth) {
      set = { depth, members: [] };
      open.push(set);
    }
    set.members.push(i);
    posInSet[i] = set.members.length;
  });
  for (const set of open) close(set);
  return { posInSet, setSize };
}

/** The scroll position that shows row `index` (unchanged when it is in view already). */
export function scrollToShow(scrollTop: number, viewportHeight: number, rowHeight: number, index: number): number {
  const top = index * rowHeight;
  if (top < scrollTop) return top;
  if (top + rowHeight > scrollTop + viewportHeight) return Math.max(0, top + rowHeight - viewportHeight);
  return scrollTop;
}
