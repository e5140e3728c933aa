/**
 * A lean id -> entry index with the active leaf, enough to answer pathTo(leaf) when the leaf moves to
 * another branch. Same placement rules as domain/session-tree.ts (`addEntry`/`pathTo`): an id that is not a
 * string or is "__proto__" is not indexed (an anomaly, the leaf stays); a later duplicate id replaces the
 * entry; the leaf is the last indexed entry; a path stops at a cycle or a missing parent.
 *
 * Why not the session tree itself: under Immer, writing one key into a record of n entries copies and
 * re-walks the whole record, so a single record of all entries makes every append O(n). Entries are spread
 * over ENTRY_BUCKETS buckets by a hash of their id, so an append copies one small bucket and the bucket
 * array only.
 */
import type { SessionEntry } from "../session-log.ts";

export const ENTRY_BUCKETS = 1024;

export interface EntryIndexState {
  /** ENTRY_BUCKETS records, id -> entry; an entry lives in bucket `entryBucket(id)`. */
  buckets: Record<string, SessionEntry>[];
  /** The last indexed entry (the active leaf), null before any. */
  leafId: string | null;
  /** Entries not indexed because their id is unusable. */
  anomalies: number;
}

export function emptyEntryIndex(): EntryIndexState {
  return { buckets: Array.from({ length: ENTRY_BUCKETS }, () => ({})), leafId: null, anomalies: 0 };
}

/** FNV-1a over UTF-16 code units, reduced to a bucket number. */
export function entryBucket(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % ENTRY_BUCKETS;
}

function isUsableId(value: unknown): value is string {
  return typeof value === "string" && value !== "__proto__";
}

export function lookupEntry(index: EntryIndexState, id: string): SessionEntry | undefined {
  const bucket = index.buckets[entryBucket(id)];
  return bucket !== undefined && Object.hasOwn(bucket, id) ? bucket[id] : undefined;
}

/** Indexes one entry in file order and makes it the leaf (mutates; works on drafts). Returns false if not indexed. */
export function indexEntry(index: EntryIndexState, entry: SessionEntry): boolean {
  const id: unknown = entry.id;
  if (!isUsableId(id)) {
    index.anomalies += 1;
    return false;
  }
  const bucket = index.buckets[entryBucket(id)];
  if (bucket === undefined) return false;
  bucket[id] = entry;
  index.leafId = id;
  return true;
}

/** The entries from the root down to `id` (inclusive); [] for an unknown id. Stops at a cycle. */
export function indexedPathTo(index: EntryIndexState, id: string): SessionEntry[] {
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: string | null = id;
  while (current !== null && !seen.has(current)) {
    const entry = lookupEntry(index, current);
    if (entry === undefined) break;
    seen.add(current);
    path.push(entry);
    const parentId: unknown = entry.parentId;
    current = typeof parentId === "string" ? parentId : null;
  }
  return path.reverse();
}
