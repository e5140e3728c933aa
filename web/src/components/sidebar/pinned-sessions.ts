/**
 * What the sidebar's Pinned group shows, as pure functions (spec "Pinned sessions"): the pinned rows (in pin
 * order, each with its nested subagent sessions), the day groups without the sessions shown under Pinned, which
 * pins are stale, and the batches a confirmed prune is sent in.
 *
 * Rules kept:
 * - A pin is stale only when the session list is complete (the stream's snapshot is current and the index is
 *   ready and verified against the files on disk) and no listed session has its id. While the list is partial
 *   nothing is stale, so a prune never runs against a list that is still being built.
 * - Pinned rows come from every project: pins belong to the backend connection, not to a folder.
 * - A session shown under Pinned leaves its day group (top-level rows only: a pinned subagent session stays nested
 *   under its parent too); while a query is typed the caller shows the search results unchanged.
 * - Prune batches hold at most 500 ids (the route's limit), keep the order, and hold every id exactly once.
 */
import type { SessionIndexStatus } from "../../../../domain/live/session-list.ts";
import { PRUNE_IDS_MAX } from "../../../../domain/native-app/native-records.ts";
import type { SessionSummary } from "../../../../domain/session-summary.ts";
import { nestSubagents, type SessionNode } from "../../lib/session-tree.ts";

export const PRUNE_BATCH_SIZE = PRUNE_IDS_MAX;

/** The session list as the sessions store holds it (the parts that say whether it is complete). */
export interface ListState {
  /** The store's status: "ready" once a snapshot arrived. */
  status: string;
  /** The rows are from a replaced stream (the new snapshot is on its way). */
  stale: boolean;
  indexStatus: SessionIndexStatus | null;
}

/** Whether the list holds every session the backend has (so a missing pinned session is really gone). */
export function listComplete(list: ListState): boolean {
  const index = list.indexStatus;
  return list.status === "ready" && !list.stale && index !== null && index.ready && index.verified;
}

/** Pinned ids without repeats (first occurrence kept). */
function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** The pins whose session is not in a complete list, in pin order; none while the list is not complete. */
export function staleIds(pinnedIds: readonly string[], sessions: readonly Pick<SessionSummary, "id">[], complete: boolean): string[] {
  if (!complete || pinnedIds.length === 0) return [];
  const listed = new Set(sessions.map((session) => session.id));
  return unique(pinnedIds).filter((id) => !listed.has(id));
}

/** Every node of a forest by session id (first occurrence). */
function nodesById(roots: readonly SessionNode[]): Record<string, SessionNode> {
  const out: Record<string, SessionNode> = {};
  const stack = [...roots];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (out[node.session.id] === undefined) out[node.session.id] = node;
    stack.push(...node.children);
  }
  return out;
}

/**
 * The Pinned group's rows: the listed pinned sessions in pin order, each with its subagent sessions nested as in
 * the day groups. Pins whose session is not listed (stale, or not listed yet) have no row.
 */
export function pinnedRows(pinnedIds: readonly string[], sessions: readonly SessionSummary[]): SessionNode[] {
  if (pinnedIds.length === 0) return [];
  const byId = nodesById(nestSubagents(sessions));
  return unique(pinnedIds).flatMap((id) => {
    const node = byId[id];
    return node === undefined ? [] : [node];
  });
}

/** Day groups without their top-level rows that are pinned; groups left empty are dropped. */
export function withoutPinned<G extends { items: SessionNode[] }>(groups: readonly G[], pinnedIds: readonly string[]): G[] {
  if (pinnedIds.length === 0) return [...groups];
  const pinned = new Set(pinnedIds);
  return groups.flatMap((group) => {
    const items = group.items.filter((node) => !pinned.has(node.session.id));
    if (items.length === group.items.length) return [group];
    return items.length === 0 ? [] : [{ ...group, items }];
  });
}

/** Consecutive batches of at most `size` items: order kept, every item in exactly one batch, no empty batch. */
export function inBatches<T>(items: readonly T[], size: number = PRUNE_BATCH_SIZE): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError("The batch size must be a positive integer.");
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

/** The words of the stale line: "1 pinned session no longer exists" / "N pinned sessions no longer exist". */
export function staleLine(count: number, unreadable = 0): string {
  // An unreadable session file is not listed either: then the pin may belong to one of those, not a deleted session.
  if (unreadable > 0) {
    const files = unreadable === 1 ? "the unreadable session file" : `one of the ${unreadable} unreadable session files`;
    return count === 1
      ? `1 pinned session is not listed (deleted, or ${files})`
      : `${count} pinned sessions are not listed (deleted, or ${files})`;
  }
  return count === 1 ? "1 pinned session no longer exists" : `${count} pinned sessions no longer exist`;
}
