/**
 * Which sessions' trace lists the traces store keeps for the transcript's and research panel's links
 * (components/traces/use-session-traces.ts): the watch counts of the callers that show them, and the cache's
 * size limit. Framework-free: the store holds the cache in a ref and passes it through these functions.
 *
 * Rules kept:
 * - A session is watched while at least one caller's watch has not been stopped; a stop called twice counts once.
 * - Writing a session's entry makes it the newest; removing one leaves the others' order.
 * - Sessions nobody watches are kept up to `SESSION_CACHE_SIZE` entries in all, the oldest written dropped first.
 *   A watched session is never dropped (the cache may then hold more). When nothing goes, the cache comes back
 *   as it was (the same object: the store's ref does not change).
 */

/** Sessions whose traces are kept while nobody watches them. */
export const SESSION_CACHE_SIZE = 20;

export interface SessionWatchers {
  /** Counts one more watcher of `id`; returns its stop function. */
  watch(id: string): () => void;
  watched(id: string): boolean;
}

export function createSessionWatchers(): SessionWatchers {
  const counts = new Map<string, number>();

  function watch(id: string): () => void {
    counts.set(id, (counts.get(id) ?? 0) + 1);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      const left = (counts.get(id) ?? 1) - 1;
      if (left > 0) counts.set(id, left);
      else counts.delete(id);
    };
  }

  return { watch, watched: (id) => counts.has(id) };
}

/** The cache with `id`'s entry written last (newest), or removed when `entry` is null. */
export function withSessionEntry<T>(cache: Record<string, T>, id: string, entry: T | null): Record<string, T> {
  const { [id]: _old, ...rest } = cache;
  return entry === null ? rest : { ...rest, [id]: entry };
}

/** The cache without its oldest unwatched sessions beyond `size` entries (the same cache when none go). */
export function trimSessionCache<T>(
  cache: Record<string, T>,
  watched: (id: string) => boolean,
  size = SESSION_CACHE_SIZE,
): Record<string, T> {
  const entries = Object.entries(cache);
  let excess = entries.length - size;
  const kept: Record<string, T> = {};
  for (const [id, entry] of entries) {
    if (excess > 0 && !watched(id)) excess--;
    else kept[id] = entry;
  }
  return Object.keys(kept).length === entries.length ? cache : kept;
}
