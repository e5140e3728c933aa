/**
 * Traces of the selected backend (spec "Trace routes"): the capture setting, the list the Traces view shows
 * (filters and page), the open trace's detail (observation pages loaded so far), the child runs expanded in its
 * timeline, and, for the transcript's and research panel's links, each watched session's traces.
 *
 * Rules kept:
 * - Nothing is read unless asked: the view opens the list (`openView`), a link watches a session
 *   (`watchSession`). Callers check `available` (capabilities.tracing) first. Closing the view (`closeView`) stops
 *   its reads and timers and releases the expanded child runs.
 * - A newer user read replaces an older one still on its way (aborted; its answer dropped). A refresh (`quiet`)
 *   never aborts a user read: it waits for it and reads after it. Only user reads show as loading. A read that
 *   fails keeps the server's words in the matching `…Error`; a refresh that fails keeps what is shown.
 * - Live: the events socket's trace notices (api/events-socket.ts `onTraceSignals`) say what to read again: the
 *   list while the view is open, the open detail when the notice names it (newer) or one of its child runs (the
 *   server raises a parent's revision when a child run starts or ends), an expanded child run (less often), a
 *   watched session when the notice names a run its list lacks or one not yet linked to its user turn. Each target
 *   has one refresh at a time (lib/refresh-scheduler.ts): the first notice schedules a read after its delay, later
 *   ones join it, and a notice during the read makes it run once more after. A notice no newer than the revision
 *   shown is skipped. After a reconnect everything shown is read again; when the socket's first stream begins,
 *   what shows a running run.
 * - A watched session's traces stay while anyone watches them; of the unwatched ones the newest few are kept
 *   (lib/session-traces-cache.ts), and a notice for one drops it, so its next watcher reads it fresh.
 * - The detail wants as many observations as were shown: "Load more" raises that count and a refresh follows it
 *   (it reads the pages again), so neither undoes the other. Opening another run (`select`) drops the last one's
 *   pending "Load more".
 * - The capture setting shows the newest word on it: a `trace_config` notice or a save outranks a read started
 *   before it. Notices never enter the runtime stores (the socket routes them).
 */
import { defineStore } from "pinia";
import { computed, onScopeDispose, ref, shallowRef } from "vue";
import { onTraceSignals } from "../api/events-socket.ts";
import { errorMessage, isAbort } from "../api/http.ts";
import { browserTimers } from "../api/socket-lifecycle.ts";
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
import { createSessionWatchers, trimSessionCache, withSessionEntry } from "../lib/session-traces-cache.ts";
import { createRefreshScheduler } from "../lib/refresh-scheduler.ts";
import { useBackendStore } from "./backend.store.ts";

export const TRACE_REFRESH_DELAY_MS = 300;
/** An expanded child run is read again at most this often (a running subagent sends a notice per record). */
export const CHILD_REFRESH_DELAY_MS = 1500;
/** Rows per list page. */
export const TRACE_PAGE_LIMIT = 50;
/** A watched session's traces are read in one request of this many (the server's largest page). */
export const SESSION_TRACES_LIMIT = 200;
/** A refresh follows at most this many pages to show as many observations as wanted. */
const MAX_REFRESH_PAGES = 50;
/** Observations per "Load more" page (the server's default detail page). */
const OBSERVATION_PAGE = 200;

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

/** A read on its way: aborted by a newer user read; `done` settles when it has written (or dropped) its answer. */
interface Read {
  controller: AbortController;
  quiet: boolean;
  done: Promise<void>;
}

/** A read of a target that cannot be aborted (a child run, a session's list): only the newest one may write. */
interface CountedRead {
  done: Promise<void>;
}

/** The request for the pages after those `trace` holds (a collection at its end asks for nothing new). */
function pagesAfter(trace: Trace): TracePageRequest {
  const { observations, scores } = trace.pagination;
  return {
    observationOffset: observations.nextOffset ?? observations.total,
    observationLimit: observations.nextOffset === null ? 1 : OBSERVATION_PAGE,
    scoreOffset: scores.nextOffset ?? scores.total,
    scoreLimit: scores.nextOffset === null ? 1 : OBSERVATION_PAGE,
  };
}

/**
 * A summary or detail with another record's bookmark. Only the bookmark: the answer's revision would make later
 * notices look already seen, and a status they bring would never be read.
 */
function withBookmark<T extends TraceSummary | Trace>(record: T, changed: Trace): T {
  return record.id === changed.id ? { ...record, bookmarked: changed.bookmarked } : record;
}

/** Waits until no user read of a target is on its way (a refresh follows it, never cancels it). */
async function afterUserRead(current: () => Read | null): Promise<void> {
  for (let read = current(); read !== null && !read.quiet; read = current()) await read.done;
}

/** Waits until no read of a target is on its way. */
async function afterRead(current: () => CountedRead | undefined): Promise<void> {
  for (let read = current(); read !== undefined; read = current()) await read.done;
}

/** Whether a notice about `traceId` can change a session's links: a run its list lacks, or one not yet tied to its turn. */
function sessionListMisses(cached: SessionTraces, traceId: string): boolean {
  const row = cached.traces.find((trace) => trace.id === traceId);
  return row === undefined || row.metadata.userEntryId === null;
}

export const useTracesStore = defineStore("traces", () => {
  const backend = useBackendStore();
  /** The backend records traces (capabilities.tracing): trace views and links show only then. */
  const available = computed(() => backend.info?.capabilities.tracing === true);
  /** The live refreshes, one per target key ("config", "list", "detail", "child:<id>", "session:<id>"). */
  const refreshes = createRefreshScheduler(browserTimers);

  // ---- capture setting ---------------------------------------------------------------------------------------
  const config = ref<TraceConfig | null>(null);
  const configLoading = ref(false);
  const configSaving = ref(false);
  /** The setting could not be read or saved (the request failed; a 200 answer's own `error` is in `config`). */
  const configError = ref("");
  /** Bumped by every read, save and notice of the setting: an answer writes only when nothing newer came since. */
  let configWord = 0;
  let configReads = 0;

  async function loadConfig(): Promise<void> {
    const word = ++configWord;
    const read = ++configReads;
    configLoading.value = true;
    try {
      const answer = await fetchTraceConfig();
      if (word !== configWord) return;
      config.value = answer;
      configError.value = "";
    } catch (failure) {
      if (word === configWord) configError.value = errorMessage(failure);
    } finally {
      if (read === configReads) configLoading.value = false;
    }
  }

  /** Saves the capture switch; a press while a save is on its way is ignored (the switch shows it is busy). */
  async function setCapture(enabled: boolean): Promise<void> {
    if (configSaving.value) return;
    const word = ++configWord;
    configSaving.value = true;
    configError.value = "";
    try {
      const answer = await saveTraceConfig(enabled);
      if (word === configWord) config.value = answer;
    } catch (failure) {
      configError.value = errorMessage(failure);
    } finally {
      configSaving.value = false;
    }
  }

  function receiveConfig(next: TraceConfig): void {
    configWord++;
    config.value = next;
    configError.value = "";
  }

  // ---- list --------------------------------------------------------------------------------------------------
  const filters = ref<TraceFilters>({ sessionId: "", q: "", status: "", page: 1, limit: TRACE_PAGE_LIMIT });
  const list = shallowRef<TraceList | null>(null);
  /** A user read of the list is on its way (a refresh does not show). */
  const listLoading = ref(false);
  const listError = ref("");
  const viewOpen = ref(false);
  let listRead: Read | null = null;

  /** Reads the list for the filters; `quiet` (a refresh): it follows a user read, and what is shown stays if it fails. */
  async function loadList(quiet = false): Promise<void> {
    if (quiet) {
      await afterUserRead(() => listRead);
      if (!viewOpen.value) return;
    }
    listRead?.controller.abort();
    const read: Read = { controller: new AbortController(), quiet, done: Promise.resolve() };
    listRead = read;
    read.done = readList(read);
    return read.done;
  }

  async function readList(read: Read): Promise<void> {
    if (!read.quiet) {
      listLoading.value = true;
      listError.value = "";
    }
    try {
      const answer = await fetchTraces({ ...filters.value }, read.controller.signal);
      if (listRead !== read) return;
      list.value = answer;
      listError.value = "";
    } catch (failure) {
      if (listRead !== read || isAbort(failure)) return;
      listError.value = errorMessage(failure);
      if (!read.quiet) list.value = null;
    } finally {
      if (listRead === read) {
        listRead = null;
        if (!read.quiet) listLoading.value = false;
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

  /** The view closed: its refreshes stop, its reads are dropped, the open run and the expanded child runs go. */
  function closeView(): void {
    viewOpen.value = false;
    refreshes.cancel((key) => key === "config" || key === "list" || key.startsWith("child:"));
    listRead?.controller.abort();
    listRead = null;
    listLoading.value = false;
    select(null);
    childRuns.value = {};
    for (const id of Object.keys(childReads)) delete childReads[id];
  }

  // ---- detail ------------------------------------------------------------------------------------------------
  const detailId = ref<string | null>(null);
  const detail = shallowRef<Trace | null>(null);
  const detailLoading = ref(false);
  const detailError = ref("");
  const loadingMore = ref(false);
  const moreError = ref("");
  let detailRead: Read | null = null;
  /** Bumped when another run opens: a "Load more" answer for the last one is dropped. */
  let detailToken = 0;
  let moreController: AbortController | null = null;
  /** How many observations the open run should show: "Load more" raises it, every read of the detail follows it. */
  let wantedObservations = 0;

  /** Opens a trace (null closes it); the same trace again is read again only when it failed. */
  function select(id: string | null): void {
    if (id === detailId.value && (id === null || detailError.value === "")) return;
    detailRead?.controller.abort();
    detailRead = null;
    moreController?.abort();
    moreController = null;
    refreshes.cancel((key) => key === "detail");
    detailToken++;
    wantedObservations = 0;
    detailId.value = id;
    detail.value = null;
    detailError.value = "";
    detailLoading.value = false;
    loadingMore.value = false;
    moreError.value = "";
    if (id !== null) void loadDetail(id);
  }

  /** Reads the open trace (as many observations as wanted); `quiet` (a refresh) follows a user read, never aborts it. */
  async function loadDetail(id: string, quiet = false): Promise<void> {
    if (quiet) {
      await afterUserRead(() => detailRead);
      if (detailId.value !== id) return;
    }
    detailRead?.controller.abort();
    const read: Read = { controller: new AbortController(), quiet, done: Promise.resolve() };
    detailRead = read;
    read.done = readDetail(id, read);
    return read.done;
  }

  async function readDetail(id: string, read: Read): Promise<void> {
    if (!read.quiet) detailLoading.value = true;
    const signal = read.controller.signal;
    try {
      let trace = await fetchTrace(id, {}, signal);
      // `wantedObservations` is read after every page: a "Load more" that starts meanwhile is followed too.
      for (let pages = 0; trace.observations.length < wantedObservations && trace.pagination.observations.nextOffset !== null; pages++) {
        if (pages >= MAX_REFRESH_PAGES) break;
        trace = mergeTracePages(trace, await fetchTrace(id, pagesAfter(trace), signal));
      }
      if (detailRead !== read) return;
      detail.value = trace;
      detailError.value = "";
    } catch (failure) {
      if (detailRead !== read || isAbort(failure)) return;
      detailError.value = errorMessage(failure);
    } finally {
      if (detailRead === read) {
        detailRead = null;
        if (!read.quiet) detailLoading.value = false;
      }
    }
  }

  /** Loads the next observation (and score) page of the open trace ("Load more"). */
  async function loadMore(): Promise<void> {
    const shown = detail.value;
    if (shown === null || loadingMore.value) return;
    const { observations, scores } = shown.pagination;
    if (observations.nextOffset === null && scores.nextOffset === null) return;
    const token = detailToken;
    const controller = new AbortController();
    moreController = controller;
    const wantedBefore = wantedObservations;
    if (observations.nextOffset !== null) wantedObservations = Math.max(wantedObservations, observations.nextOffset + OBSERVATION_PAGE);
    loadingMore.value = true;
    moreError.value = "";
    try {
      const page = await fetchTrace(shown.id, pagesAfter(shown), controller.signal);
      if (token !== detailToken) return;
      const now = detail.value;
      if (now !== null && now.id === shown.id) detail.value = mergeTracePages(now, page);
    } catch (failure) {
      if (token !== detailToken || isAbort(failure)) return;
      wantedObservations = Math.max(wantedBefore, detail.value?.observations.length ?? 0);
      moreError.value = errorMessage(failure);
    } finally {
      if (token === detailToken) {
        loadingMore.value = false;
        moreController = null;
      }
    }
  }

  // ---- child runs (expanded in a timeline) -------------------------------------------------------------------
  const childRuns = shallowRef<Record<string, ChildRunState>>({});
  /** The read on its way per child run; `closeView` forgets them, so their answers are dropped. */
  const childReads: Record<string, CountedRead> = {};

  function setChild(id: string, state: ChildRunState): void {
    childRuns.value = { ...childRuns.value, [id]: state };
  }

  /**
   * Reads a child run's detail (first pages) for its nested timeline; kept until the view closes. One read per run
   * at a time: a user read joins one on its way; a refresh (`quiet`) waits for it and reads after.
   */
  async function loadChild(id: string, quiet = false): Promise<void> {
    const running = childReads[id];
    if (running !== undefined && !quiet) {
      const before = childRuns.value[id];
      setChild(id, { trace: before?.trace ?? null, loading: true, error: "" });
      return running.done;
    }
    if (quiet) {
      await afterRead(() => childReads[id]);
      if (childRuns.value[id] === undefined) return;
    }
    const read: CountedRead = { done: Promise.resolve() };
    childReads[id] = read;
    read.done = readChild(id, read, quiet);
    return read.done;
  }

  async function readChild(id: string, read: CountedRead, quiet: boolean): Promise<void> {
    const before = childRuns.value[id];
    setChild(id, { trace: before?.trace ?? null, loading: !quiet || before === undefined, error: quiet ? (before?.error ?? "") : "" });
    try {
      const trace = await fetchTrace(id);
      if (childReads[id] === read) setChild(id, { trace, loading: false, error: "" });
    } catch (failure) {
      if (childReads[id] === read)
        setChild(id, { trace: childRuns.value[id]?.trace ?? null, loading: false, error: errorMessage(failure) });
    } finally {
      if (childReads[id] === read) delete childReads[id];
    }
  }

  // ---- bookmarks ---------------------------------------------------------------------------------------------
  const bookmarking = ref<string[]>([]);
  const bookmarkError = ref("");

  /** PATCH the bookmark; the answer's bookmark replaces the one shown everywhere (its notice brings the rest). */
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
  const sessionWatchers = createSessionWatchers();
  const sessionReads: Record<string, CountedRead> = {};

  function setSession(id: string, state: SessionTraces | null): void {
    sessionTraces.value = withSessionEntry(sessionTraces.value, id, state);
  }

  /** Reads a session's traces; one read per session at a time (a user read joins one on its way, a refresh follows it). */
  async function loadSessionTraces(id: string, quiet = false): Promise<void> {
    const running = sessionReads[id];
    if (running !== undefined && !quiet) return running.done;
    if (quiet) await afterRead(() => sessionReads[id]);
    const read: CountedRead = { done: Promise.resolve() };
    sessionReads[id] = read;
    read.done = readSessionTraces(id, read, quiet);
    return read.done;
  }

  async function readSessionTraces(id: string, read: CountedRead, quiet: boolean): Promise<void> {
    const before = sessionTraces.value[id];
    if (!quiet) setSession(id, { traces: before?.traces ?? [], loading: true, error: "" });
    try {
      const answer = await fetchTraces({ sessionId: id, limit: SESSION_TRACES_LIMIT });
      if (sessionReads[id] === read) setSession(id, { traces: answer.traces, loading: false, error: "" });
    } catch (failure) {
      if (sessionReads[id] === read)
        setSession(id, { traces: sessionTraces.value[id]?.traces ?? [], loading: false, error: errorMessage(failure) });
    } finally {
      if (sessionReads[id] === read) delete sessionReads[id];
    }
  }

  /** Keeps a session's traces read and live while the caller watches; returns the stop function. */
  function watchSession(id: string): () => void {
    const stop = sessionWatchers.watch(id);
    const known = sessionTraces.value[id];
    if (known === undefined || known.error !== "") void loadSessionTraces(id);
    sessionTraces.value = trimSessionCache(sessionTraces.value, sessionWatchers.watched);
    return stop;
  }

  // ---- live refresh (lib/refresh-scheduler.ts: one read per target, one trailing re-run) ---------------------
  function refreshList(): void {
    refreshes.schedule("list", () => (viewOpen.value ? loadList(true) : Promise.resolve()), TRACE_REFRESH_DELAY_MS);
  }

  function refreshSession(id: string): void {
    // Nobody watches it: forget it, so that the next watcher reads it fresh.
    if (sessionWatchers.watched(id)) refreshes.schedule(`session:${id}`, () => loadSessionTraces(id, true), TRACE_REFRESH_DELAY_MS);
    else setSession(id, null);
  }

  function refreshDetail(): void {
    const id = detailId.value;
    if (id === null) return;
    refreshes.schedule("detail", () => (detailId.value === id ? loadDetail(id, true) : Promise.resolve()), TRACE_REFRESH_DELAY_MS);
  }

  function refreshChild(id: string): void {
    if (!viewOpen.value) return;
    const refresh = () => (viewOpen.value && childRuns.value[id] !== undefined ? loadChild(id, true) : Promise.resolve());
    refreshes.schedule(`child:${id}`, refresh, CHILD_REFRESH_DELAY_MS);
  }

  /** Notices may have been missed (a reconnect): everything shown is read again. */
  function onReconnected(): void {
    if (viewOpen.value) {
      refreshes.schedule("config", loadConfig, TRACE_REFRESH_DELAY_MS);
      refreshList();
      for (const id of Object.keys(childRuns.value)) refreshChild(id);
    }
    refreshDetail();
    for (const id of Object.keys(sessionTraces.value)) refreshSession(id);
  }

  /**
   * The socket's first stream began: a read answered before it may have missed a notice. Only a run still running
   * can have changed unseen in a way no later notice repairs (its end), so what shows one is read again.
   */
  function onLive(): void {
    if (!viewOpen.value) return;
    if (list.value?.traces.some((row) => row.status === "running") === true) refreshList();
    if (detail.value?.status === "running") refreshDetail();
    for (const [id, child] of Object.entries(childRuns.value)) if (child.trace?.status === "running") refreshChild(id);
  }

  /** Whether a notice is about the open detail: itself (newer), or one of its child runs. */
  function concernsDetail(traceId: string, revision: number): boolean {
    const shown = detail.value;
    if (detailId.value === null) return false;
    if (traceId === detailId.value) return shown === null || revision > shown.revision;
    return shown !== null && shown.metadata.children.some((child) => child.traceId === traceId);
  }

  function onSignal(signal: TraceSignal): void {
    if (signal.kind !== "updated") {
      if (signal.kind === "config") receiveConfig(signal.config);
      else if (signal.kind === "reconnected") onReconnected();
      else onLive();
      return;
    }
    const { traceId, sessionId, revision } = signal.notice;
    const row = list.value?.traces.find((trace) => trace.id === traceId);
    if (viewOpen.value && list.value !== null && (row === undefined || revision > row.revision)) refreshList();
    if (concernsDetail(traceId, revision)) refreshDetail();
    const child = childRuns.value[traceId];
    if (child !== undefined && (child.trace === null || revision > child.trace.revision)) refreshChild(traceId);
    const cached = sessionTraces.value[sessionId];
    if (cached !== undefined && sessionListMisses(cached, traceId)) refreshSession(sessionId);
  }

  const unsubscribe = onTraceSignals(onSignal);
  onScopeDispose(() => {
    unsubscribe();
    refreshes.cancel(() => true);
    listRead?.controller.abort();
    detailRead?.controller.abort();
    moreController?.abort();
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
