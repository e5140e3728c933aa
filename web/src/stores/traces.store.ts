/**
 * Traces of the selected backend (spec "Trace routes"): the capture setting, the list the Traces view shows
 * (filters and page), the open trace's detail (observation pages loaded so far), the child runs expanded in its
 * timeline, and, for the transcript's and research panel's links, each watched session's traces.
 *
 * Rules kept:
 * - Nothing is read unless asked: the view opens the list (`openView`), a link watches a session
 *   (`watchSession`). Callers check `available` (capabilities.tracing) first.
 * - A newer read replaces an older one still on its way (aborted; its answer dropped). A read that fails keeps
 *   the server's words in the matching `…Error`; a background refresh that fails keeps what is shown.
 * - Live: the events socket's trace notices (api/events-socket.ts `onTraceSignals`) say what to read again: the
 *   list while the view is open, the open detail when the notice names it (or one of its child runs, or, while it
 *   runs, a run of another session: a new child), an expanded child run, a watched session. Refreshes are
 *   coalesced per target: the first notice schedules one read after TRACE_REFRESH_DELAY_MS, later ones join it. A
 *   notice no newer than the revision shown is skipped. After a reconnect everything shown is read again. A
 *   refreshed detail keeps as many observations as were shown (it follows the pages again).
 * - `trace_config` replaces the capture setting. Notices never enter the runtime stores (the socket routes them).
 */
import { defineStore } from "pinia";
import { computed, onScopeDispose, ref, shallowRef } from "vue";
import { onTraceSignals } from "../api/events-socket.ts";
import { errorMessage, isAbort } from "../api/http.ts";
import {
  fetchTrace,
  mergeTracePages,
  fetchTraceConfig,
  fetchTraces,
  saveTraceConfig,
  setTraceBookmark,
  type Trace,
  type TraceConfig,
  type TraceList,
  type TracePageRequest,
  type TraceSignal,
  type TraceStatus,
  type TraceSummary,
} from "../api/traces.ts";
import { useBackendStore } from "./backend.store.ts";

export const TRACE_REFRESH_DELAY_MS = 300;
/** Rows per list page. */
export const TRACE_PAGE_LIMIT = 50;
/** A watched session's traces are read in one request of this many (the server's largest page). */
export const SESSION_TRACES_LIMIT = 200;
/** Sessions whose traces are kept while nobody watches them. */
const SESSION_CACHE_SIZE = 20;
/** A refresh follows at most this many pages to show as many observations as before. */
const MAX_REFRESH_PAGES = 50;

export interface TraceFilters {
  sessionId: string;
  q: string;
  status: TraceStatus | "";
  page: number;
  limit: number;
}

export interface ChildRunState {
  trace: Trace | null;
  loading: boolean;
  error: string;
}

export interface SessionTraces {
  /** Newest first. */
  traces: TraceSummary[];
  loading: boolean;
  error: string;
}

/** The request for the pages after those `trace` holds (a collection at its end asks for nothing new). */
function pagesAfter(trace: Trace): TracePageRequest {
  const { observations, scores } = trace.pagination;
  return {
    observationOffset: observations.nextOffset ?? observations.total,
    observationLimit: observations.nextOffset === null ? 1 : 200,
    scoreOffset: scores.nextOffset ?? scores.total,
    scoreLimit: scores.nextOffset === null ? 1 : 200,
  };
}

/** A summary or detail with another record's bookmark and revision. */
function withBookmark<T extends TraceSummary | Trace>(record: T, changed: Trace): T {
  return record.id === changed.id ? { ...record, bookmarked: changed.bookmarked, revision: changed.revision } : record;
}

export const useTracesStore = defineStore("traces", () => {
  const backend = useBackendStore();
  /** The backend records traces (capabilities.tracing): trace views and links show only then. */
  const available = computed(() => backend.info?.capabilities.tracing === true);

  // ---- capture setting ---------------------------------------------------------------------------------------
  const config = ref<TraceConfig | null>(null);
  const configLoading = ref(false);
  const configSaving = ref(false);
  /** The setting could not be read or saved (the request failed; a 200 answer's own `error` is in `config`). */
  const configError = ref("");

  async function loadConfig(): Promise<void> {
    configLoading.value = true;
    try {
      config.value = await fetchTraceConfig();
      configError.value = "";
    } catch (failure) {
      configError.value = errorMessage(failure);
    } finally {
      configLoading.value = false;
    }
  }

  async function setCapture(enabled: boolean): Promise<void> {
    configSaving.value = true;
    configError.value = "";
    try {
      config.value = await saveTraceConfig(enabled);
    } catch (failure) {
      configError.value = errorMessage(failure);
    } finally {
      configSaving.value = false;
    }
  }

  // ---- list --------------------------------------------------------------------------------------------------
  const filters = ref<TraceFilters>({ sessionId: "", q: "", status: "", page: 1, limit: TRACE_PAGE_LIMIT });
  const list = shallowRef<TraceList | null>(null);
  const listLoading = ref(false);
  const listError = ref("");
  const viewOpen = ref(false);
  let listController: AbortController | null = null;

  /** Reads the list for the filters; `quiet` (a refresh): what is shown stays if it fails. */
  async function loadList(quiet = false): Promise<void> {
    listController?.abort();
    const current = new AbortController();
    listController = current;
    listLoading.value = true;
    if (!quiet) listError.value = "";
    try {
      const answer = await fetchTraces({ ...filters.value }, current.signal);
      if (listController !== current) return;
      list.value = answer;
      listError.value = "";
    } catch (failure) {
      if (listController !== current || isAbort(failure)) return;
      listError.value = errorMessage(failure);
      if (!quiet) list.value = null;
    } finally {
      if (listController === current) {
        listLoading.value = false;
        listController = null;
      }
    }
  }

  /** Changes filters (back to page 1 unless a page is given) and reads the list again. */
  function setFilters(change: Partial<TraceFilters>): Promise<void> {
    filters.value = { ...filters.value, ...change, page: change.page ?? 1 };
    return loadList();
  }

  /** The Traces view opened (with its filters): it reads the setting and the list, and follows notices until `closeView`. */
  function openView(change: Partial<TraceFilters> = {}): void {
    filters.value = { ...filters.value, ...change, page: change.page ?? 1 };
    viewOpen.value = true;
    void loadConfig();
    void loadList();
  }

  function closeView(): void {
    viewOpen.value = false;
    listController?.abort();
    listController = null;
    listLoading.value = false;
    select(null);
  }

  // ---- detail ------------------------------------------------------------------------------------------------
  const detailId = ref<string | null>(null);
  const detail = shallowRef<Trace | null>(null);
  const detailLoading = ref(false);
  const detailError = ref("");
  const loadingMore = ref(false);
  const moreError = ref("");
  let detailController: AbortController | null = null;

  /** Opens a trace (null closes it); the same trace again is read again only when it failed. */
  function select(id: string | null): void {
    if (id === detailId.value && (id === null || detailError.value === "")) return;
    detailController?.abort();
    detailController = null;
    detailId.value = id;
    detail.value = null;
    detailError.value = "";
    moreError.value = "";
    detailLoading.value = false;
    if (id !== null) void loadDetail(id);
  }

  /** Reads the open trace's first page (a refresh: as many observations as were shown). */
  async function loadDetail(id: string, quiet = false): Promise<void> {
    detailController?.abort();
    const current = new AbortController();
    detailController = current;
    if (!quiet) detailLoading.value = true;
    const shown = quiet && detail.value?.id === id ? detail.value.observations.length : 0;
    try {
      let trace = await fetchTrace(id, {}, current.signal);
      for (let pages = 0; trace.observations.length < shown && trace.pagination.observations.nextOffset !== null; pages++) {
        if (pages >= MAX_REFRESH_PAGES) break;
        trace = mergeTracePages(trace, await fetchTrace(id, pagesAfter(trace), current.signal));
      }
      if (detailController !== current) return;
      detail.value = trace;
      detailError.value = "";
    } catch (failure) {
      if (detailController !== current || isAbort(failure)) return;
      detailError.value = errorMessage(failure);
    } finally {
      if (detailController === current) {
        detailLoading.value = false;
        detailController = null;
      }
    }
  }

  /** Loads the next observation (and score) page of the open trace ("Load more"). */
  async function loadMore(): Promise<void> {
    const shown = detail.value;
    if (shown === null || loadingMore.value) return;
    if (shown.pagination.observations.nextOffset === null && shown.pagination.scores.nextOffset === null) return;
    loadingMore.value = true;
    moreError.value = "";
    try {
      const page = await fetchTrace(shown.id, pagesAfter(shown));
      const now = detail.value;
      if (now !== null && now.id === shown.id) detail.value = mergeTracePages(now, page);
    } catch (failure) {
      moreError.value = errorMessage(failure);
    } finally {
      loadingMore.value = false;
    }
  }

  // ---- child runs (expanded in a timeline) -------------------------------------------------------------------
  const childRuns = shallowRef<Record<string, ChildRunState>>({});
  const childReads: Record<string, number> = {};

  function setChild(id: string, state: ChildRunState): void {
    childRuns.value = { ...childRuns.value, [id]: state };
  }

  /** Reads a child run's detail (first pages) for its nested timeline; kept until the view closes. */
  async function loadChild(id: string, quiet = false): Promise<void> {
    const read = (childReads[id] = (childReads[id] ?? 0) + 1);
    const before = childRuns.value[id];
    setChild(id, { trace: before?.trace ?? null, loading: !quiet || before === undefined, error: quiet ? (before?.error ?? "") : "" });
    try {
      const trace = await fetchTrace(id);
      if (childReads[id] === read) setChild(id, { trace, loading: false, error: "" });
    } catch (failure) {
      if (childReads[id] === read)
        setChild(id, { trace: childRuns.value[id]?.trace ?? null, loading: false, error: errorMessage(failure) });
    }
  }

  // ---- bookmarks ---------------------------------------------------------------------------------------------
  const bookmarking = ref<string[]>([]);
  const bookmarkError = ref("");

  /** PATCH the bookmark; the answer's bookmark and revision replace those shown everywhere. */
  async function setBookmark(id: string, bookmarked: boolean): Promise<void> {
    if (bookmarking.value.includes(id)) return;
    bookmarking.value = [...bookmarking.value, id];
    bookmarkError.value = "";
    try {
      const changed = await setTraceBookmark(id, bookmarked);
      applyBookmark(changed);
    } catch (failure) {
      bookmarkError.value = errorMessage(failure);
    } finally {
      bookmarking.value = bookmarking.value.filter((other) => other !== id);
    }
  }

  function applyBookmark(changed: Trace): void {
    if (list.value !== null) list.value = { ...list.value, traces: list.value.traces.map((row) => withBookmark(row, changed)) };
    if (detail.value !== null) detail.value = withBookmark(detail.value, changed);
    const child = childRuns.value[changed.id];
    if (child?.trace) setChild(changed.id, { ...child, trace: withBookmark(child.trace, changed) });
    const next: Record<string, SessionTraces> = {};
    for (const [sessionId, entry] of Object.entries(sessionTraces.value)) {
      next[sessionId] = { ...entry, traces: entry.traces.map((row) => withBookmark(row, changed)) };
    }
    sessionTraces.value = next;
  }

  // ---- a session's traces (links from the transcript and the research panel) -------------------------------
  const sessionTraces = shallowRef<Record<string, SessionTraces>>({});
  const sessionWatchers: Record<string, number> = {};
  const sessionReads: Record<string, number> = {};

  function setSession(id: string, state: SessionTraces | null): void {
    const { [id]: _old, ...rest } = sessionTraces.value;
    sessionTraces.value = state === null ? rest : { ...rest, [id]: state };
  }

  async function loadSessionTraces(id: string): Promise<void> {
    const read = (sessionReads[id] = (sessionReads[id] ?? 0) + 1);
    const before = sessionTraces.value[id];
    setSession(id, { traces: before?.traces ?? [], loading: true, error: "" });
    try {
      const answer = await fetchTraces({ sessionId: id, limit: SESSION_TRACES_LIMIT });
      if (sessionReads[id] === read) setSession(id, { traces: answer.traces, loading: false, error: "" });
    } catch (failure) {
      if (sessionReads[id] === read) setSession(id, { traces: before?.traces ?? [], loading: false, error: errorMessage(failure) });
    }
  }

  /** Drops sessions nobody watches, oldest first, beyond the cache size. */
  function trimSessionCache(): void {
    const ids = Object.keys(sessionTraces.value);
    let excess = ids.length - SESSION_CACHE_SIZE;
    for (const id of ids) {
      if (excess <= 0) return;
      if ((sessionWatchers[id] ?? 0) > 0) continue;
      setSession(id, null);
      excess--;
    }
  }

  /** Keeps a session's traces read and live while the caller watches; returns the stop function. */
  function watchSession(id: string): () => void {
    sessionWatchers[id] = (sessionWatchers[id] ?? 0) + 1;
    const known = sessionTraces.value[id];
    if (known === undefined || known.error !== "") void loadSessionTraces(id);
    trimSessionCache();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      sessionWatchers[id] = (sessionWatchers[id] ?? 1) - 1;
      if (sessionWatchers[id] <= 0) delete sessionWatchers[id];
    };
  }

  // ---- live refresh ------------------------------------------------------------------------------------------
  const scheduled = new Map<string, ReturnType<typeof setTimeout>>();

  /** Runs `refresh` once after the delay; a target already scheduled keeps its turn. */
  function schedule(key: string, refresh: () => Promise<void>): void {
    if (scheduled.has(key)) return;
    scheduled.set(
      key,
      setTimeout(() => {
        scheduled.delete(key);
        void refresh();
      }, TRACE_REFRESH_DELAY_MS),
    );
  }

  function refreshSession(id: string): void {
    // Nobody watches it: forget it, so that the next watcher reads it fresh.
    if ((sessionWatchers[id] ?? 0) > 0) schedule(`session:${id}`, () => loadSessionTraces(id));
    else setSession(id, null);
  }

  function refreshDetail(): void {
    const id = detailId.value;
    if (id !== null) schedule("detail", () => (detailId.value === id ? loadDetail(id, true) : Promise.resolve()));
  }

  function onReconnected(): void {
    if (viewOpen.value) {
      schedule("config", loadConfig);
      schedule("list", () => loadList(true));
    }
    refreshDetail();
    for (const id of Object.keys(childRuns.value)) schedule(`child:${id}`, () => loadChild(id, true));
    for (const id of Object.keys(sessionTraces.value)) refreshSession(id);
  }

  /** Whether a notice is about the open detail: itself (newer), one of its child runs, or a new child run. */
  function concernsDetail(traceId: string, sessionId: string, revision: number): boolean {
    const shown = detail.value;
    if (detailId.value === null) return false;
    if (traceId === detailId.value) return shown === null || revision > shown.revision;
    if (shown === null) return false;
    if (shown.metadata.children.some((child) => child.traceId === traceId)) return true;
    return shown.status === "running" && sessionId !== shown.sessionId;
  }

  function onSignal(signal: TraceSignal): void {
    if (signal.kind === "config") {
      config.value = signal.config;
      return;
    }
    if (signal.kind === "reconnected") {
      onReconnected();
      return;
    }
    const { traceId, sessionId, revision } = signal.notice;
    const row = list.value?.traces.find((trace) => trace.id === traceId);
    if (viewOpen.value && list.value !== null && (row === undefined || revision > row.revision)) schedule("list", () => loadList(true));
    if (concernsDetail(traceId, sessionId, revision)) refreshDetail();
    const child = childRuns.value[traceId];
    if (child !== undefined && (child.trace === null || revision > child.trace.revision))
      schedule(`child:${traceId}`, () => loadChild(traceId, true));
    if (sessionTraces.value[sessionId] !== undefined) refreshSession(sessionId);
  }

  const unsubscribe = onTraceSignals(onSignal);
  onScopeDispose(() => {
    unsubscribe();
    for (const timer of scheduled.values()) clearTimeout(timer);
    scheduled.clear();
    listController?.abort();
    detailController?.abort();
  });

  return {
    available,
    config,
    configLoading,
    configSaving,
    configError,
    loadConfig,
    setCapture,
    filters,
    list,
    listLoading,
    listError,
    viewOpen,
    loadList,
    setFilters,
    openView,
    closeView,
    detailId,
    detail,
    detailLoading,
    detailError,
    loadingMore,
    moreError,
    select,
    loadDetail,
    loadMore,
    childRuns,
    loadChild,
    bookmarking,
    bookmarkError,
    setBookmark,
    sessionTraces,
    watchSession,
    receive: onSignal,
  };
});
