/**
 * Plain-JSON collections that stay cheap to update under Immer as they grow: a record split into hash buckets
 * and a list split into fixed-size chunks.
 *
 * Why: Immer copies a draft object on its first write in a `produce` (and freezes the copy when it finishes).
 * Writing one key into a single record of n keys, or pushing onto an array of n items, therefore costs O(n)
 * per batch. Here a record is a two-level hash trie: a write copies the top level and one group (at most
 * RECORD_FANOUT keys each) and one bucket (about size/RECORD_FANOUT^2 keys); a list push copies the last chunk
 * (at most LIST_CHUNK_SIZE items) and the chunk array (length/LIST_CHUNK_SIZE items). A small constant for the
 * session sizes we meet (a 50 MB session has ~30k entries: ~7 keys per bucket, ~110 chunks). Two levels rather
 * than one wide level: Immer copies and re-freezes every key of a container it touches, so a 1024-key bucket
 * record alone cost ~1 ms per append.
 *
 * Every function works on plain objects and on Immer drafts. Reads that only look (`recordGet`, `recordHas`)
 * go through `ownValue`, which reads the own property's descriptor: on a draft this returns the stored value
 * without creating drafts of the containers it passes through (a plain `draft[key]` read would shallow-copy
 * the container and wrap the value in a new draft). `recordUpdate` and `listAt` read with ordinary property
 * access, so on a draft the value they hand out is itself a draft and may be mutated.
 *
 * The layout depends only on the keys and the order of writes, never on batch boundaries, so an incremental
 * fold and a full rebuild produce deeply equal collections.
 */

/** Fan-out of each level of a chunked record (RECORD_FANOUT^2 buckets, created on first use). */
export const RECORD_FANOUT = 64;
/** Items per chunk of a chunked list: every chunk but the last is full. */
export const LIST_CHUNK_SIZE = 256;

export interface ChunkedRecord<V> {
  /** Group number -> bucket number -> (key -> value); key k lives at `bucketOf(k)` (decimal strings). */
  buckets: Record<string, Record<string, Record<string, V>>>;
}

export interface ChunkedList<T> {
  /** The items in order, in chunks of LIST_CHUNK_SIZE (the last one may be shorter, never empty). */
  chunks: T[][];
  length: number;
}

/**
 * The value of an own property, or undefined (never an inherited one: "constructor" or "toString" are not
 * found). On an Immer draft it returns the stored value without drafting anything.
 */
export function ownValue(target: object, key: string): unknown {
  return Object.getOwnPropertyDescriptor(target, key)?.value;
}

// ---------------------------------------------------------------------------------------------- records

export function emptyChunkedRecord<V>(): ChunkedRecord<V> {
  return { buckets: {} };
}

/** FNV-1a over the UTF-16 code units of the key, reduced to [group, bucket] numbers. */
export function bucketOf(key: string): [group: string, bucket: string] {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  const h = hash >>> 0;
  return [String(h % RECORD_FANOUT), String(Math.floor(h / RECORD_FANOUT) % RECORD_FANOUT)];
}

function readBucket<V>(record: ChunkedRecord<V>, key: string): Record<string, V> | undefined {
  const [groupName, bucketName] = bucketOf(key);
  const groups = ownValue(record, "buckets") as Record<string, Record<string, Record<string, V>>> | undefined;
  const group = groups === undefined ? undefined : (ownValue(groups, groupName) as Record<string, Record<string, V>> | undefined);
  return group === undefined ? undefined : (ownValue(group, bucketName) as Record<string, V> | undefined);
}

/** The value stored under `key` (read-only: on a draft it is the stored value, not a draft). */
export function recordGet<V>(record: ChunkedRecord<V>, key: string): V | undefined {
  const bucket = readBucket(record, key);
  return bucket === undefined ? undefined : (ownValue(bucket, key) as V | undefined);
}

export function recordHas<V>(record: ChunkedRecord<V>, key: string): boolean {
  const bucket = readBucket(record, key);
  return bucket !== undefined && Object.hasOwn(bucket, key);
}

function writableBucket<V>(record: ChunkedRecord<V>, key: string): Record<string, V> {
  const [groupName, bucketName] = bucketOf(key);
  if (!Object.hasOwn(record.buckets, groupName)) record.buckets[groupName] = {};
  const group = record.buckets[groupName] as Record<string, Record<string, V>>;
  if (!Object.hasOwn(group, bucketName)) group[bucketName] = {};
  return group[bucketName] as Record<string, V>;
}

/** Stores `value` under `key` (mutates). `key` must not be "__proto__" (it would not be an own property). */
export function recordSet<V>(record: ChunkedRecord<V>, key: string, value: V): void {
  writableBucket(record, key)[key] = value;
}

/**
 * Replaces the value under `key` by `update(current)` (mutates). On a draft `current` is a draft, so `update`
 * may mutate it in place and return it. `key` must not be "__proto__".
 */
export function recordUpdate<V>(record: ChunkedRecord<V>, key: string, update: (current: V | undefined) => V): void {
  const bucket = writableBucket(record, key);
  const current = Object.hasOwn(bucket, key) ? bucket[key] : undefined;
  const next = update(current);
  if (next !== current) bucket[key] = next;
}

/** All keys, grouped by bucket (an order that depends on the keys only). */
export function recordKeys<V>(record: ChunkedRecord<V>): string[] {
  return Object.values(record.buckets).flatMap((group) => Object.values(group).flatMap((bucket) => Object.keys(bucket)));
}

// ------------------------------------------------------------------------------------------------ lists

export function emptyChunkedList<T>(): ChunkedList<T> {
  return { chunks: [], length: 0 };
}

/** Appends one item (mutates). */
export function listPush<T>(list: ChunkedList<T>, item: T): void {
  const last = list.chunks[list.chunks.length - 1];
  if (last !== undefined && last.length < LIST_CHUNK_SIZE) last.push(item);
  else list.chunks.push([item]);
  list.length += 1;
}

/** The item at `index` (undefined out of range). On a draft a draftable item comes back as a draft. */
export function listAt<T>(list: ChunkedList<T>, index: number): T | undefined {
  if (!Number.isInteger(index) || index < 0 || index >= list.length) return undefined;
  return list.chunks[Math.floor(index / LIST_CHUNK_SIZE)]?.[index % LIST_CHUNK_SIZE];
}

/** The position of the first `item` equal (===) to the given one, or -1. O(length): for rare paths only. */
export function listIndexOf<T>(list: ChunkedList<T>, item: T): number {
  // Read-only: ownValue keeps a draft's chunks from being copied.
  const chunks = ownValue(list, "chunks") as T[][];
  for (let c = 0; c < chunks.length; c++) {
    const chunk = ownValue(chunks, String(c)) as T[];
    for (let i = 0; i < chunk.length; i++) if (ownValue(chunk, String(i)) === item) return c * LIST_CHUNK_SIZE + i;
  }
  return -1;
}

/** The items in order (a new array). */
export function listToArray<T>(list: ChunkedList<T>): T[] {
  return list.chunks.flat() as T[];
}
