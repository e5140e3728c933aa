/**
 * Deterministic entry ids for migrated version-1 session files. pi gives v1 entries random ids on every read;
 * a read-only workbench needs the same ids on every read, so we derive them from the session id and the
 * entry's position with a small pure hash (FNV-1a, 32 bit) and retry on collision.
 */

/** FNV-1a 32-bit hash of the UTF-16 code units of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The candidate id for one attempt: 8 lowercase hex characters, like pi's ids. */
export function candidateEntryId(sessionId: string, index: number, attempt: number): string {
  // Mix the final hash once more (murmur3 finalizer) so that neighbouring indices spread over all digits.
  let h = fnv1a32(`${sessionId}\u0000${index}\u0000${attempt}`);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0).toString(16).padStart(8, "0");
}

/**
 * The deterministic id of the entry at `index` (its position among the file's parsed lines) in session
 * `sessionId`: the first candidate, by attempt 0, 1, 2..., that `taken` does not contain.
 */
export function deterministicEntryId(sessionId: string, index: number, taken: (id: string) => boolean): string {
  for (let attempt = 0; ; attempt++) {
    const id = candidateEntryId(sessionId, index, attempt);
    if (!taken(id)) return id;
  }
}
