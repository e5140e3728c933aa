/**
 * The session list as a live read model: rows keyed by `sessionRowKey`, a snapshot then deltas (added or
 * changed rows, removed keys), each with the index status. The server sends it on the events socket
 * (`session_list`, `session_list_delta`); the client applies it with `applySessionListDelta`. Pure.
 *
 * Rows are SessionSummary objects: persisted sessions (keyed by their file path) and open runtimes whose file is
 * not listed yet (keyed by `runtime:<session id>`; their `path` is "" or a file the index has not seen).
 * Order (`compareSessionRows`): runtime-only rows first, then newest `modified` first, then by path.
 */
import type { SessionSummary } from "../session-summary.ts";

/** What the session index knows about pi's sessions folder. */
export interface SessionIndexStatus {
  /** `*.jsonl` files found. */
  readonly filesOnDisk: number;
  /** Files listed (their summary is not null). */
  readonly indexed: number;
  /** Files that are not sessions or cannot be read: counted, not listed. */
  readonly invalid: number;
  /** Paths of those files (at most `INVALID_PATHS_LIMIT`, sorted). */
  readonly invalidPaths: readonly string[];
  /** The list can be served (warm: the stored summaries; cold: the first scan is applied). */
  readonly ready: boolean;
  /** The list was checked against the files on disk (the first full pass is applied). */
  readonly verified: boolean;
}

export const INVALID_PATHS_LIMIT = 50;

/** A list row: a session summary, and whether it is an open runtime whose file is not in the index yet. */
export type SessionRow = SessionSummary & { readonly runtimeOnly?: true };

export interface SessionListSnapshot {
  readonly revision: number;
  readonly sessions: SessionRow[];
  readonly status: SessionIndexStatus;
}

export interface SessionListDelta {
  readonly revision: number;
  /** New or changed rows. */
  readonly upserted: SessionRow[];
  /** Keys (`sessionRowKey`) of rows no longer listed. */
  readonly removed: string[];
  readonly status: SessionIndexStatus;
}

/** The key of a row: its file path, or `runtime:<id>` for an open runtime whose file is not listed. */
export function sessionRowKey(row: SessionRow): string {
  return row.runtimeOnly === true ? `runtime:${row.id}` : row.path;
}

/** Runtime-only rows first, then newest `modified` first (ISO strings compare as times), then by path. */
export function compareSessionRows(a: SessionRow, b: SessionRow): number {
  const ar = a.runtimeOnly === true ? 0 : 1;
  const br = b.runtimeOnly === true ? 0 : 1;
  if (ar !== br) return ar - br;
  const am = a.modified ?? "";
  const bm = b.modified ?? "";
  if (am !== bm) return am < bm ? 1 : -1;
  const ak = sessionRowKey(a);
  const bk = sessionRowKey(b);
  return ak < bk ? -1 : ak > bk ? 1 : 0;
}

/** The rows after a delta, in list order (a new array; `rows` is not changed). */
export function applySessionListDelta(rows: readonly SessionRow[], delta: Pick<SessionListDelta, "upserted" | "removed">): SessionRow[] {
  if (delta.upserted.length === 0 && delta.removed.length === 0) return rows.slice();
  const byKey = new Map<string, SessionRow>();
  for (const row of rows) byKey.set(sessionRowKey(row), row);
  for (const key of delta.removed) byKey.delete(key);
  for (const row of delta.upserted) byKey.set(sessionRowKey(row), row);
  return [...byKey.values()].sort(compareSessionRows);
}

/**
 * The delta from one list to another (rows compared as JSON); null when equal. The law:
 * `applySessionListDelta(a, diffSessionLists(a, b))` equals `b` sorted.
 */
export function diffSessionLists(
  before: readonly SessionRow[],
  after: readonly SessionRow[],
): Pick<SessionListDelta, "upserted" | "removed"> | null {
  const old = new Map<string, SessionRow>();
  for (const row of before) old.set(sessionRowKey(row), row);
  const upserted: SessionRow[] = [];
  const seen = new Set<string>();
  for (const row of after) {
    const key = sessionRowKey(row);
    seen.add(key);
    const was = old.get(key);
    if (was === undefined || (was !== row && JSON.stringify(was) !== JSON.stringify(row))) upserted.push(row);
  }
  const removed = [...old.keys()].filter((key) => !seen.has(key));
  return upserted.length === 0 && removed.length === 0 ? null : { upserted, removed };
}
