/**
 * The session tree of one session, kept current for the tree panel: GET .../tree when the panel shows, then
 * only the nodes appended since the ones held (tree-sync.ts; the whole tree again when the server's answer does
 * not continue them), whenever the open session's stream reports a new revision or leaf (debounced), and when
 * the panel asks (`load`, after each action). No polling.
 *
 * Rules: one request at a time, a newer one aborts the older, and an answer for another session (or to an
 * aborted request) is dropped. Another session starts from nothing. A failed read keeps the tree held and says
 * why (`loadError`). Everything stops when the owner's scope ends.
 */
import { computed, onScopeDispose, ref, shallowRef, watch } from "vue";
import type { SessionTreeView } from "../../../../domain/session-tree-view.ts";
import { errorMessage, isAbort } from "../../api/http.ts";
import { fetchSessionTree } from "../../api/session-tree.ts";
import { useOpenSessionStore } from "../../stores/open-session.store.ts";
import { mergeTreeView, treeSince } from "./tree-sync.ts";

export const TREE_REFRESH_DELAY_MS = 150;

export function useSessionTree(sessionId: () => string, options: { refreshDelayMs?: number } = {}) {
  const refreshDelayMs = options.refreshDelayMs ?? TREE_REFRESH_DELAY_MS;
  const openSession = useOpenSessionStore();
  const view = shallowRef<SessionTreeView | null>(null);
  const loadError = ref("");
  let request: AbortController | null = null;
  let refreshTimer: ReturnType<typeof setTimeout> | null = null;

  function stop(): void {
    if (refreshTimer !== null) clearTimeout(refreshTimer);
    refreshTimer = null;
    request?.abort();
    request = null;
  }

  /** Reads the tree: the nodes appended since the ones held, or (`whole`, or nothing held) all of them. */
  async function load(whole = false): Promise<void> {
    stop();
    const current = new AbortController();
    request = current;
    const id = sessionId();
    const held = whole || view.value?.sessionId !== id ? null : view.value;
    try {
      const answer = await fetchSessionTree(id, treeSince(held), current.signal);
      if (request !== current || id !== sessionId()) return;
      const merged = mergeTreeView(held, answer);
      if (merged === null) {
        if (held === null) throw new Error("The server answered part of a tree that was asked for whole.");
        request = null;
        await load(true);
        return;
      }
      view.value = merged;
      loadError.value = "";
    } catch (problem) {
      if (request === current && !isAbort(problem)) loadError.value = errorMessage(problem);
    } finally {
      if (request === current) request = null;
    }
  }

  function scheduleRefresh(): void {
    if (refreshTimer !== null) clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => void load(), refreshDelayMs);
  }

  /** The stream of the open session (when it is this one): a new revision or leaf means the tree changed. */
  const live = computed(() => (openSession.id === sessionId() ? `${openSession.revision ?? ""}|${openSession.leafId ?? ""}` : null));
  watch(live, (now, before) => {
    if (now !== null && now !== before) scheduleRefresh();
  });

  // Another session: its own tree, from the start.
  watch(sessionId, () => {
    view.value = null;
    loadError.value = "";
    void load();
  });

  onScopeDispose(stop);
  void load();

  return { view, loadError, load };
}
