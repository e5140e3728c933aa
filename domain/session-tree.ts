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
 * Every function works on plain objects and on Immer drafts: membership is tested on own properties only
 * (ids such as "constructor" never hit the prototype), and no Map/Set is stored.
 *
 * Storage (domain/chunked-collections.ts): entries and children live in hash-bucketed records and the file
 * order in a chunked list, so adding an entry under Immer copies a few small buckets and one chunk, never a
 * structure as large as the session: an append costs the same at 1 MB and at 100 MB. Reads (`pathTo`,
 * `activeBranch`, `childrenOf`, `entryOf`) never create drafts, so on a draft they return the stored entries
 * themselves. `addEntry` shallow-freezes each entry it stores: entries are immutable, and Immer neither walks
 * nor deep-freezes a frozen object when it finishes a `produce` (message content would otherwise be walked).
 */
import {
  emptyChunkedList,
  emptyChunkedRecord,
  listIndexOf,
  listPush,
  listToArray,
  recordGet,
  recordHas,
  recordSet,
  recordUpdate,
  type ChunkedList,
  type ChunkedRecord,
} from "./chunked-collections.ts";
import type { SessionEntry } from "./session-log.ts";

export interface SessionTreeState {
  /** Entries by id; a later duplicate id replaces the earlier entry (pi's `byId` Map semantics). Read with `entryOf`. */
  entries: ChunkedRecord<SessionEntry>;
  /** Entry ids in file order (first occurrence of each id). Read with `entryIds` / `entryCount`. */
  order: ChunkedList<string>;
  /**
   * Parent id -> ids of the entries naming it as parent, in file order. Keys may name ids not (yet) in the
   * file: those children are orphans and also listed in `roots` until their parent arrives. Read with `childrenOf`.
   */
  children: ChunkedRecord<string[]>;
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
  return {
    entries: emptyChunkedRecord(),
    order: emptyChunkedList(),
    children: emptyChunkedRecord(),
    roots: [],
    labels: {},
    leafId: null,
    anomalies: 0,
  };
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

/** Inserts `id` so that `list` stays sorted by position in `order` (duplicate ids only: O(entries)). */
function insertByOrder(tree: SessionTreeState, list: string[], id: string): void {
  const rank = listIndexOf(tree.order, id);
  let at = list.length;
  for (let i = 0; i < list.length; i++) {
    if (listIndexOf(tree.order, list[i] as string) > rank) {
      at = i;
      break;
    }
  }
  list.splice(at, 0, id);
}

/** Files `id` under its parent (and in roots when it has no known parent). */
function place(tree: SessionTreeState, id: string, parentKey: string | null, append: boolean): void {
  if (parentKey !== null) {
    recordUpdate(tree.children, parentKey, (siblings = []) => {
      if (append) siblings.push(id);
      else insertByOrder(tree, siblings, id);
      return siblings;
    });
    if (recordHas(tree.entries, parentKey)) return;
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

/**
 * Adds one entry in file order. Mutates `tree` (use it inside an Immer `produce`, or on a tree you own);
 * never throws. Returns false when the entry was not added (its id is unusable: counted in `anomalies`).
 */
export function addEntry(tree: SessionTreeState, entry: SessionEntry): boolean {
  const id: unknown = entry.id;
  if (!isUsableId(id)) {
    tree.anomalies += 1;
    return false;
  }
  const stored = Object.isFrozen(entry) ? entry : Object.freeze(entry);
  const parentKey = parentKeyOf(stored, id);
  const previous = recordGet(tree.entries, id);
  recordSet(tree.entries, id, stored);
  if (previous !== undefined) {
    // Duplicate id: the later entry wins (pi's byId.set); re-file it if its parent changed.
    const previousKey = parentKeyOf(previous, id);
    if (previousKey !== parentKey) {
      if (previousKey !== null && recordHas(tree.children, previousKey)) {
        recordUpdate(tree.children, previousKey, (siblings = []) => siblings.filter((sibling) => sibling !== id));
      }
      if (tree.roots.includes(id)) tree.roots = tree.roots.filter((rootId) => rootId !== id);
      place(tree, id, parentKey, false);
    }
  } else {
    listPush(tree.order, id);
    place(tree, id, parentKey, true);
    // Orphans that named this id as parent are adopted now.
    const waiting = recordGet(tree.children, id);
    if (waiting !== undefined && waiting.length > 0) {
      const adopted = new Set(waiting);
      tree.roots = tree.roots.filter((rootId) => !adopted.has(rootId));
    }
  }
  tree.leafId = id;
  applyLabel(tree, stored);
  return true;
}

/** The stored entry with this id, if any (on a draft: the stored entry itself, not a draft). */
export function entryOf(tree: SessionTreeState, id: string): SessionEntry | undefined {
  return recordGet(tree.entries, id);
}

/** The number of distinct entry ids. */
export function entryCount(tree: SessionTreeState): number {
  return tree.order.length;
}

/** Entry ids in file order (first occurrence of each id); a new array. */
export function entryIds(tree: SessionTreeState): string[] {
  return listToArray(tree.order);
}

/**
 * The entries from the root down to `id` (inclusive); [] for an unknown id. Stops at a cycle.
 * O(path length); on a draft it creates no drafts and returns the stored entries.
 */
export function pathTo(tree: SessionTreeState, id: string): SessionEntry[] {
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: string | null = id;
  while (current !== null && !seen.has(current)) {
    const entry = recordGet(tree.entries, current);
    if (entry === undefined) break;
    seen.add(current);
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

/** The ids of an entry's children in file order ([] when none). Read-only. */
export function childrenOf(tree: SessionTreeState, id: string): readonly string[] {
  return recordGet(tree.children, id) ?? [];
}
