/**
 * The Git review of each folder a session works in: its status (GET /api/pi/review), kept live by the review
 * events socket when the backend can watch (capabilities.reviewWatch), else fetched on demand; and the review
 * actions (stage, unstage, hunks, discard, commit), each followed by a fresh status.
 *
 * Subscriptions are reference-counted per folder: the header's badge and the review pane share one socket (and
 * one status) per cwd; the socket closes when the last subscriber lets go. The socket's decisions (coalesced
 * fetches, backoff, unavailable) are api/review-socket-machine.ts; this store keeps what they produce, plain
 * JSON by cwd. `link` says whether the status follows the folder ("live") or may be stale ("reconnecting").
 */
import { defineStore } from "pinia";
import { ref } from "vue";
import { errorMessage } from "../api/http.ts";
import * as api from "../api/review.ts";
import type { ActionOptions, HunkAction, ReviewActionOk, ReviewCommitResult, ReviewDiscardResult, ReviewStatus } from "../api/review.ts";
import { ReviewSocket, type SocketFactory, type TimerApi } from "../api/review-socket.ts";
import type { ReviewLink } from "../api/review-socket-machine.ts";
import { pageWsBase } from "../api/socket-lifecycle.ts";
import { useBackendStore } from "./backend.store.ts";

export interface ReviewEntry {
  status: ReviewStatus | null;
  /** A status fetch is in flight. */
  loading: boolean;
  /** Why the last status fetch failed ("" when it did not). */
  error: string;
  link: ReviewLink;
  /** The last watcher error while reconnecting (null once the watcher is ready again). */
  watchError: string | null;
  /** Bumped on every status that arrives (the pane reloads the open diff on it). */
  revision: number;
}

/** How the store reaches the backend's review socket (tests pass fake sockets and timers). */
export interface ReviewTransport {
  wsBase?: string;
  createSocket?: SocketFactory;
  timers?: TimerApi;
  silenceMs?: number;
}

function emptyEntry(): ReviewEntry {
  return { status: null, loading: false, error: "", link: "stopped", watchError: null, revision: 0 };
}

export const useReviewStore = defineStore("review", () => {
  const backend = useBackendStore();
  const entries = ref<Record<string, ReviewEntry>>({});
  const subscriptions = new Map<string, { refs: number; socket: ReviewSocket }>();
  let transport: ReviewTransport = {};

  function entry(cwd: string): ReviewEntry {
    const existing = entries.value[cwd];
    if (existing !== undefined) return existing;
    entries.value[cwd] = emptyEntry();
    return entries.value[cwd] as ReviewEntry;
  }

  function update(cwd: string, patch: Partial<ReviewEntry>): void {
    entries.value[cwd] = { ...entry(cwd), ...patch };
  }

  /** Fetches the status of `cwd` into its entry; resolves with `available`, or null when the fetch failed. */
  async function fetchStatus(cwd: string): Promise<boolean | null> {
    update(cwd, { loading: true });
    try {
      const status = await api.getReviewStatus(cwd);
      update(cwd, { status, loading: false, error: "", revision: entry(cwd).revision + 1 });
      return status.available;
    } catch (error) {
      update(cwd, { loading: false, error: errorMessage(error) });
      return null;
    }
  }

  /**
   * Follows the review of `cwd` until the returned function is called (once per subscriber). The first subscriber
   * opens the folder's socket (or fetches once without the watch capability); the last one to leave closes it.
   */
  function subscribe(cwd: string): () => void {
    if (cwd === "") return () => undefined;
    let subscription = subscriptions.get(cwd);
    if (subscription === undefined) {
      const socket = new ReviewSocket({
        wsBase: transport.wsBase ?? pageWsBase(),
        fetchStatus,
        ...(transport.createSocket ? { createSocket: transport.createSocket } : {}),
        ...(transport.timers ? { timers: transport.timers } : {}),
        ...(transport.silenceMs !== undefined ? { silenceMs: transport.silenceMs } : {}),
        onState: (link, state) => update(cwd, { link, watchError: state.watchError }),
      });
      subscription = { refs: 0, socket };
      subscriptions.set(cwd, subscription);
      entry(cwd);
      socket.start(cwd, backend.info?.capabilities.reviewWatch === true);
    }
    subscription.refs += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const current = subscriptions.get(cwd);
      if (current === undefined) return;
      current.refs -= 1;
      if (current.refs > 0) return;
      subscriptions.delete(cwd);
      current.socket.stop();
    };
  }

  /** Fetches the status again (coalesced with a fetch in flight when the folder is subscribed). */
  function refresh(cwd: string): void {
    if (cwd === "") return;
    const subscription = subscriptions.get(cwd);
    if (subscription !== undefined) subscription.socket.refresh();
    else void fetchStatus(cwd);
  }

  async function afterAction<T>(cwd: string, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      refresh(cwd);
      return result;
    } catch (error) {
      // The review was stale: show the folder as it is now.
      if (api.isStaleReview(error)) refresh(cwd);
      throw error;
    }
  }

  function stage(cwd: string, paths: string[], options: ActionOptions = {}): Promise<ReviewActionOk> {
    return afterAction(cwd, () => api.stageFiles(cwd, paths, options));
  }

  function unstage(cwd: string, paths: string[], options: ActionOptions = {}): Promise<ReviewActionOk> {
    return afterAction(cwd, () => api.unstageFiles(cwd, paths, options));
  }

  function applyHunk(cwd: string, hunk: HunkAction, options: ActionOptions = {}): Promise<ReviewActionOk> {
    return afterAction(cwd, () => api.applyHunk(cwd, hunk, options));
  }

  function discard(cwd: string, path: string, options: ActionOptions = {}): Promise<ReviewDiscardResult> {
    return afterAction(cwd, () => api.discardFile(cwd, path, options));
  }

  function commit(cwd: string, message: string, options: ActionOptions = {}): Promise<ReviewCommitResult> {
    return afterAction(cwd, () => api.commitStaged(cwd, message, options));
  }

  const status = (cwd: string): ReviewStatus | null => entries.value[cwd]?.status ?? null;
  const changeCount = (cwd: string): number => api.changedFileCount(status(cwd));
  const isLoading = (cwd: string): boolean => entries.value[cwd]?.loading ?? false;
  const errorOf = (cwd: string): string => entries.value[cwd]?.error ?? "";
  const linkOf = (cwd: string): ReviewLink => entries.value[cwd]?.link ?? "stopped";
  /** The status may be stale: the socket is reconnecting. */
  const lagging = (cwd: string): boolean => linkOf(cwd) === "reconnecting";
  const revisionOf = (cwd: string): number => entries.value[cwd]?.revision ?? 0;
  const watchErrorOf = (cwd: string): string | null => entries.value[cwd]?.watchError ?? null;

  /** Tests: how sockets are made (call before the first subscription). */
  function setTransport(next: ReviewTransport): void {
    transport = next;
  }

  /** Closes every socket and forgets every status (tests, backend switch). */
  function reset(): void {
    for (const subscription of subscriptions.values()) subscription.socket.stop();
    subscriptions.clear();
    entries.value = {};
  }

  return {
    entries,
    subscribe,
    refresh,
    stage,
    unstage,
    applyHunk,
    discard,
    commit,
    status,
    changeCount,
    isLoading,
    errorOf,
    linkOf,
    lagging,
    revisionOf,
    watchErrorOf,
    setTransport,
    reset,
  };
});
