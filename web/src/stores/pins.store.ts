/**
 * The pinned sessions of the backend connection this window talks to (spec "Pinned sessions"). The ids live on
 * the native backend, scoped by connection id (web/src/api/pinned-sessions.ts); `load()` reads them at app start.
 *
 * Rules kept:
 * - Pin and unpin show at once (optimistic): `pinnedIds` is the server's last answer with the changes still on
 *   their way applied on top (`withPendingChanges`). The server's answer replaces the list; a change that fails
 *   is taken back and a notice says why (the server's words, e.g. the limit of 200 pins per connection).
 * - Requests go one at a time, in the order they were made, so an older answer never replaces a newer one.
 * - A prune runs only for ids the person confirmed, in the batches given (at most 500 ids each), one after
 *   another; it stops at the first batch that fails, and the notice says how many were removed before.
 * - Answers for another connection id are ignored.
 */
import { defineStore } from "pinia";
import { computed, ref } from "vue";
import { errorMessage } from "../api/http.ts";
import { fetchPinnedSessions, pinSession, prunePinnedSessions, unpinSession, type PinnedSessions } from "../api/pinned-sessions.ts";
import { useBackendConnectionsStore } from "./backend-connections.store.ts";
import { useNoticesStore } from "./notices.store.ts";

export type PinsStatus = "idle" | "loading" | "ready" | "error";

/** A pin or unpin the server has not answered yet. */
export interface PendingPinChange {
  seq: number;
  kind: "pin" | "unpin";
  id: string;
}

/** The server's list with the pending changes applied in order: a pin goes last (once), an unpin removes. */
export function withPendingChanges(confirmed: readonly string[], pending: readonly PendingPinChange[]): string[] {
  let ids = [...confirmed];
  for (const change of pending) {
    if (change.kind === "pin") {
      if (!ids.includes(change.id)) ids = [...ids, change.id];
    } else {
      ids = ids.filter((id) => id !== change.id);
    }
  }
  return ids;
}

/** A batched prune that stopped at a failing batch: `removed` of `total` ids were pruned before it. */
export class PruneError extends Error {
  override readonly name = "PruneError";
  constructor(
    readonly removed: number,
    readonly total: number,
    readonly reason: string,
  ) {
    super(
      removed === 0
        ? `No pins were removed: ${reason}`
        : `Removed ${removed} of ${total} pins, then a request failed and the rest were kept: ${reason}`,
    );
  }
}

export const usePinsStore = defineStore("pins", () => {
  const connections = useBackendConnectionsStore();
  const notices = useNoticesStore();

  const status = ref<PinsStatus>("idle");
  /** The server's last answer for this connection. */
  const confirmed = ref<string[]>([]);
  const pending = ref<PendingPinChange[]>([]);
  /** A prune is running. */
  const pruning = ref(false);

  const connectionId = computed(() => connections.activeId);
  const pinnedIds = computed(() => withPendingChanges(confirmed.value, pending.value));

  let seq = 0;
  /** The tail of the request chain: each request starts after the one before settled. */
  let chain: Promise<unknown> = Promise.resolve();

  function enqueue<T>(run: () => Promise<T>): Promise<T> {
    const next = chain.then(run, run);
    chain = next.catch(() => undefined);
    return next;
  }

  function accept(answer: PinnedSessions, scope: string): void {
    if (answer.connectionId !== scope || !Array.isArray(answer.pinnedIds)) return;
    confirmed.value = answer.pinnedIds;
  }

  function isPinned(id: string): boolean {
    return pinnedIds.value.includes(id);
  }

  /** GET the pins of the active connection (at app start). */
  async function load(): Promise<void> {
    const scope = connectionId.value;
    status.value = "loading";
    try {
      const answer = await enqueue(() => fetchPinnedSessions(scope));
      accept(answer, scope);
      status.value = "ready";
    } catch (error) {
      status.value = "error";
      notices.report(error, "Loading the pinned sessions");
    }
  }

  async function change(kind: PendingPinChange["kind"], id: string): Promise<boolean> {
    const scope = connectionId.value;
    const entry: PendingPinChange = { seq: ++seq, kind, id };
    pending.value = [...pending.value, entry];
    const done = () => (pending.value = pending.value.filter((c) => c.seq !== entry.seq));
    try {
      const answer = await enqueue(() => (kind === "pin" ? pinSession(scope, id) : unpinSession(scope, id)));
      accept(answer, scope);
      done();
      return true;
    } catch (error) {
      done();
      notices.report(error, kind === "pin" ? "Pinning the session" : "Unpinning the session");
      return false;
    }
  }

  /** Pins a session (shown at once; taken back with a notice if the server refuses). */
  function pin(id: string): Promise<boolean> {
    if (isPinned(id)) return Promise.resolve(true);
    return change("pin", id);
  }

  /** Unpins a session (gone at once; back with a notice if the request fails). */
  function unpin(id: string): Promise<boolean> {
    if (!isPinned(id)) return Promise.resolve(true);
    return change("unpin", id);
  }

  function toggle(id: string): Promise<boolean> {
    return isPinned(id) ? unpin(id) : pin(id);
  }

  /**
   * Removes confirmed stale pins, batch after batch (each at most 500 ids). Resolves true when every batch
   * succeeded; on the first failure stops, reports a PruneError notice and resolves false.
   */
  async function prune(batches: readonly (readonly string[])[]): Promise<boolean> {
    if (pruning.value) return false;
    const scope = connectionId.value;
    const total = batches.reduce((sum, batch) => sum + batch.length, 0);
    if (total === 0) return true;
    pruning.value = true;
    let removed = 0;
    try {
      for (const batch of batches) {
        if (batch.length === 0) continue;
        try {
          accept(await enqueue(() => prunePinnedSessions(scope, batch)), scope);
        } catch (error) {
          notices.report(new PruneError(removed, total, errorMessage(error)), "Removing pins of deleted sessions");
          return false;
        }
        removed += batch.length;
      }
      return true;
    } finally {
      pruning.value = false;
    }
  }

  return { status, connectionId, pinnedIds, pending, pruning, isPinned, load, pin, unpin, toggle, prune };
});
