/**
 * The session tree: pi's id/parentId tree of entries, built incrementally from entries in file order.
 *
 * Matches pi 0.74.2 `SessionManager` (`_buildIndex`, `getTree`, `getBranch`, `getChildren`, `getLabel`):
 * - An entry is a node whatever its `type` (unknown types, labels, session_info and custom entries too: they
 *   carry ids and sit on the active path exactly as in pi).
 * - `leafId` is the id of the last entry in file order (pi keeps no leaf pointer on disk).
 * - Roots are entries whose `parentId` is null, is their own id, is not a string, or names no known entry
 *   (orphans). An orphan whose parent appears later in the file is adopted by it (pi's `getTree` sees the
 *   whole file, so an incremental fold must re-attach it to equal the full rebuild).
 * - Labels: the latest `label` entry per `targetId` in file order wins; an empty or missing label clears it.
 *   Targets need not exist (pi's `getLabel` answers for any id too).
 *
 * Deliberate differences from pi (all on inputs pi itself never writes):
 * - Children are kept in file order; pi's `getTree` sorts them by timestamp (equal for pi-written files,
 *   whose timestamps grow with the file).
 * - A later duplicate id replaces the stored entry like pi's `byId.set` does (the last occurrence defines the
 *   entry and its parent), and keeps the position of the first occurrence in `order` and in its parent's
 *   `children` (the iteration order of pi's Map, as in `getChildren`). pi's `getTree` would list the node twice.
 * - `pathTo` stops at a cycle (pi's `getBranch` loops forever); an entry whose id is not a string (pi would
 *   index it under `undefined`) or is `"__proto__"` is not added and is counted in `anomalies`.
 * - A label whose value is a truthy non-string (pi would store it as is) clears the label; a label entry
 *   without a string `targetId` is an anomaly.
 *
 * Every function works on plain objects and on Immer drafts: membership is tested with `Object.hasOwn`
 * (ids such as "constructor" never hit the prototype), and no Map/Set is stored.
 */
import type { SessionEntry } from "./session-log.ts";

export interface SessionTreeState {
  /** Entries by id; a later duplicate id replaces the earlier entry (pi's `byId` Map semantics). */
  entries: Record<string, SessionEntry>;
  /** Entry ids in file order (first occurrence of each id). */
  order: string[];
  /**
   * Parent id -> ids of the entries naming it as parent, in file order. Keys may name ids not (yet) in the
   * file: those children are orphans and also listed in `roots` until their parent arrives.
   */
  children: Record<string, string[]>;
  /** Entries whose parentId is null, themselves, not a string, or names no known entry, in file order. */
  roots: string[];
  /** Current label per target id: the latest label entry wins; an empty label clears. */
  labels: Record<string, { label: string; timestamp: string }>;
  /** The active leaf: the id of the last entry in file order, null before any entry. */
  leafId: string | null;
  /** Entries that could not be placed (id not a usable string) or label entries without a target. */
  anomalies: number;
}

export function emptySessionTree(): SessionTreeState {
  return { entries: {}, order: [], children: {}, roots: [], labels: {}, leafId: null, anomalies: 0 };
}

/** A key that is safe to assign on a plain object (assigning "__proto__" would replace its prototype). */
function isUsableId(value: unknown): value is string {
  return typeof value === "string" && value !== "__proto__";
}

/** The parent key an entry is filed under in `children`, or null when it has none (null, self, not a string). */
function parentKeyOf(entry: SessionEntry, id: string): string | null {
  const parentId: unknown = entry.parentId;
  return isUsableId(parentId) && parentId !== id ? parentId : null;
}

function removeFrom(list: string[], id: string): void {
  const index = list.indexOf(id);
  if (index >= 0) list.splice(index, 1);
}

/** Inserts `id` so that `list` stays sorted by position in `order` (used only for duplicate ids). */
function insertByOrder(tree: SessionTreeState, list: string[], id: string): void {
  const rank = tree.order.indexOf(id);
  let at = list.length;
  for (let i = 0; i < list.length; i++) {
    if (tree.order.indexOf(list[i] as string) > rank) {
      at = i;
      break;
    }
  }
  list.splice(at, 0, id);
}

/** Files `id` under its parent (and in roots when it has no known parent). */
function place(tree: SessionTreeState, id: string, parentKey: string | null, append: boolean): void {
  if (parentKey !== null) {
    let siblings = Object.hasOwn(tree.children, parentKey) ? tree.children[parentKey] : undefined;
    if (siblings === undefined) {
      tree.children[parentKey] = [];
      siblings = tree.children[parentKey] as string[];
    }
    if (append) siblings.push(id);
    else insertByOrder(tree, siblings, id);
    if (Object.hasOwn(tree.entries, parentKey)) return;
  }
  if (append) tree.roots.push(id);
  else insertByOrder(tree, tree.roots, id);
}

function applyLabel(tree: SessionTreeState, entry: SessionEntry): void {
  if (entry.type !== "label") return;
  const targetId: unknown = entry.targetId;
  if (!isUsableId(targetId)) {
    tree.anomalies += 1;
    return;
  }
  const label: unknown = entry.label;
  if (typeof label === "string" && label !== "") {
    const timestamp: unknown = entry.timestamp;
    tree.labels[targetId] = { label, timestamp: typeof timestamp === "string" ? timestamp : "" };
  } else if (Object.hasOwn(tree.labels, targetId)) {
    delete tree.labels[targetId];
  }
}

/** Adds one entry in file order. Mutates `tree` (use it inside an Immer `produce`); never throws. */
export function addEntry(tree: SessionTreeState, entry: SessionEntry): void {
  const id: unknown = entry.id;
  if (!isUsableId(id)) {
    tree.anomalies += 1;
    return;
  }
  const parentKey = parentKeyOf(entry, id);
  if (Object.hasOwn(tree.entries, id)) {
    // Duplicate id: the later entry wins (pi's byId.set); re-file it if its parent changed.
    const previous = tree.entries[id] as SessionEntry;
    const previousKey = parentKeyOf(previous, id);
    tree.entries[id] = entry;
    if (previousKey !== parentKey) {
      if (previousKey !== null && Object.hasOwn(tree.children, previousKey)) {
        removeFrom(tree.children[previousKey] as string[], id);
      }
      removeFrom(tree.roots, id);
      place(tree, id, parentKey, false);
    }
  } else {
    tree.entries[id] = entry;
    tree.order.push(id);
    place(tree, id, parentKey, true);
    // Orphans that named this id as parent are adopted now.
    const waiting = Object.hasOwn(tree.children, id) ? tree.children[id] : undefined;
    if (waiting !== undefined && waiting.length > 0) {
      const adopted = new Set(waiting);
      tree.roots = tree.roots.filter((rootId) => !adopted.has(rootId));
    }
  }
  tree.leafId = id;
  applyLabel(tree, entry);
}

/** The entries from the root down to `id` (inclusive); [] for an unknown id. Stops at a cycle. */
export function pathTo(tree: SessionTreeState, id: string): SessionEntry[] {
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: string | null = id;
  while (current !== null && !seen.has(current) && Object.hasOwn(tree.entries, current)) {
    seen.add(current);
    const entry = tree.entries[current] as SessionEntry;
    path.push(entry);
    const parentId: unknown = entry.parentId;
    current = typeof parentId === "string" ? parentId : null;
  }
  return path.reverse();
}

/** The active branch: the path from the root to the leaf (the last entry in file order). */
export function activeBranch(tree: SessionTreeState): SessionEntry[] {
  return tree.leafId === null ? [] : pathTo(tree, tree.leafId);
}

/** The current label of an entry, if any. */
export function labelOf(tree: SessionTreeState, id: string): string | undefined {
  return Object.hasOwn(tree.labels, id) ? tree.labels[id]?.label : undefined;
}

/** The ids of an entry's children in file order ([] when none). */
export function childrenOf(tree: SessionTreeState, id: string): readonly string[] {
  return Object.hasOwn(tree.children, id) ? (tree.children[id] as string[]) : [];
}
