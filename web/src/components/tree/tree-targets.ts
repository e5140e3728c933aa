/**
 * Where a tree node leads (the tree panel's actions): the transcript row that shows it on the active branch,
 * and the tip of the branch it is on with a line naming it (what "compare" compares). Pure.
 *
 * Rules: a transcript tool entry's id is `${callEntryId}:${toolCallId}`, not a session entry id
 * (transcript-rows.ts `sessionEntryIdOf`): a tool result node shows as the tool entry with that `resultEntryId`,
 * an assistant message that only called tools as its first tool entry when it has no row of its own. A node
 * without a row (a label, a name, a custom entry) shows as its nearest ancestor that has one.
 */
import type { TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { passesFilter, TREE_KIND_LABELS, type TreeIndex } from "./tree-layout.ts";

/** Session entry id → the transcript row id showing it (own rows first, then tool results, then tool calls). */
export function transcriptRowIds(entries: readonly TranscriptEntry[]): Map<string, string> {
  const rows = new Map<string, string>();
  for (const entry of entries) if (entry.type !== "tool") rows.set(entry.id, entry.id);
  for (const entry of entries) {
    if (entry.type !== "tool") continue;
    if (entry.resultEntryId !== null && !rows.has(entry.resultEntryId)) rows.set(entry.resultEntryId, entry.id);
  }
  for (const entry of entries) {
    if (entry.type !== "tool") continue;
    if (entry.callEntryId !== null && !rows.has(entry.callEntryId)) rows.set(entry.callEntryId, entry.id);
  }
  return rows;
}

/** Where the transcript shows a node: the session entry that has a row (the node or an ancestor), and that row. */
export interface TranscriptTarget {
  /** A session entry id (what `/sessions/:id?entry=` names). */
  readonly entryId: string;
  /** The transcript row's id (TranscriptEntry.id). */
  readonly rowId: string;
}

/** The transcript row to scroll to for a node (walking up to an ancestor with a row), or null. */
export function transcriptTargetFor(index: TreeIndex, rows: ReadonlyMap<string, string>, nodeId: string): TranscriptTarget | null {
  const seen = new Set<string>();
  for (let at: string | null = nodeId; at !== null && !seen.has(at); at = index.parentOf.get(at) ?? null) {
    seen.add(at);
    const row = rows.get(at);
    if (row !== undefined) return { entryId: at, rowId: row };
  }
  return null;
}

/**
 * The last entry of the branch a node is on: down the child on the active path when there is one, else the
 * most recent child (the last in file order), until a node without children.
 */
export function branchTip(index: TreeIndex, nodeId: string): string {
  const latestChild = new Map<string, string>();
  for (const node of index.byId.values()) {
    const parent = index.parentOf.get(node.id) ?? null;
    if (parent !== null) latestChild.set(parent, node.id);
  }
  const activeChild = new Map<string, string>();
  for (const id of index.activePath) {
    const parent = index.parentOf.get(id) ?? null;
    if (parent !== null) activeChild.set(parent, id);
  }
  let at = nodeId;
  const seen = new Set<string>([at]);
  for (;;) {
    const next = activeChild.get(at) ?? latestChild.get(at);
    if (next === undefined || seen.has(next)) return at;
    seen.add(next);
    at = next;
  }
}

/** A branch to compare: its tip, and one line naming it. */
export interface BranchEnd {
  /** The last entry of the branch. */
  readonly tipId: string;
  readonly title: string;
}

/**
 * The branch a node is on, for "compare": its tip (branchTip), named by the last entry of it that is not
 * bookkeeping (a label, a model change: what the default filter hides), walking up from the tip.
 */
export function branchEnd(index: TreeIndex, nodeId: string): BranchEnd {
  const tipId = branchTip(index, nodeId);
  let named = index.byId.get(tipId);
  const seen = new Set<string>([tipId]);
  while (named !== undefined && !passesFilter(named, "default", null)) {
    const parent = index.parentOf.get(named.id) ?? null;
    const above = parent === null || seen.has(parent) ? undefined : index.byId.get(parent);
    if (above === undefined) break;
    seen.add(above.id);
    named = above;
  }
  return { tipId, title: named === undefined ? tipId : `${TREE_KIND_LABELS[named.kind]}: ${named.text || "(empty)"}` };
}
