import { defineStore } from "pinia";
import { computed, ref, shallowRef, watch } from "vue";
import type { Active, ActiveSnapshot } from "../../../domain/runtime/runtime-types.ts";
import type { ResearchState } from "../../../domain/research/research-types.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import type { ActiveResponse, SessionDetail } from "../api/dto.ts";
import { ApiError, errorMessage, http } from "../api/http.ts";
import { coalescedReload } from "../lib/coalesced-reload.ts";
import { withProvisional } from "../lib/provisional-entries.ts";
import { runStateOf, type RunState } from "../lib/run-state.ts";
import type { StreamingMessage } from "../lib/streaming-message.ts";
import { useNoticesStore } from "./notices.store.ts";
import { useRuntimesStore } from "./runtimes.store.ts";
import { summaryOfDetail, useSessionsStore } from "./sessions.store.ts";

export type DetailStatus = "idle" | "loading" | "ready" | "missing" | "error";
export type RuntimeStatus = "none" | "opening" | "open" | "error";

/**
 * What in a snapshot changes the persisted transcript or research without a message_end/agent_end event:
 * the session file appearing or changing (first save, fork, reset), model and thinking changes (entries),
 * compaction finishing, research events. A change of this fingerprint refetches the detail.
 */
export function detailFingerprint(snapshot: ActiveSnapshot | null): string {
  if (snapshot === null) return "";
  const s = snapshot.state;
  const research = s.research;
  return JSON.stringify([
    snapshot.path,
    s.model?.provider ?? "",
    s.model?.id ?? "",
    s.thinkingLevel,
    s.isCompacting,
    research?.lastEventId ?? "",
    research?.status ?? "",
    research?.phase ?? "",
  ]);
}

/** A detail for a runtime that has not written its file yet (no entries). */
export function unsavedDetail(id: string, snapshot: ActiveSnapshot | null): SessionDetail {
  return {
    session: {
      id,
      path: snapshot?.path ?? "",
      cwd: snapshot?.cwd ?? "",
      isSubagentSession: false,
      firstMessage: "",
      messageCount: 0,
      sessionFile: snapshot?.path ?? "",
      contextTokens: null,
      modified: "",
      created: "",
      research: snapshot?.state.research ?? null,
    },
    entries: [],
  };
}

/**
 * The session the workbench shows: its detail (GET /api/pi/sessions/:id: transcript entries and research),
 * refetched when its runtime reports a finished message, a finished run or a snapshot change that touches the
 * file; its runtime snapshot and live streaming message (from the runtimes store); its run state.
 *
 * Opening a session reads its detail and, in parallel, makes sure it has a runtime: POST /api/pi/active-session
 * { id } loads a persisted session that is not open and selects it (the spec's browser route for switching
 * sessions; the host evicts idle runtimes at capacity and closes them after 30 idle minutes), so the composer
 * has models, thinking levels and the queue before the first prompt. The transcript does not wait for it. A
 * new session (POST /api/pi/sessions) arrives with both (`seed`).
 *
 * `entries` are the persisted ones plus the user's prompts pi took but has not written yet (provisional,
 * lib/provisional-entries.ts): a prompt shows as soon as pi announces it, and the refetched detail replaces it.
 */
export const useOpenSessionStore = defineStore("openSession", () => {
  const runtimes = useRuntimesStore();
  const sessions = useSessionsStore();
  const notices = useNoticesStore();

  const id = ref<string | null>(null);
  // Shallow: a detail is immutable server data (replaced whole, never edited), and a 10,000-entry transcript
  // must not be wrapped in reactive proxies entry by entry.
  const detail = shallowRef<SessionDetail | null>(null);
  const status = ref<DetailStatus>("idle");
  const error = ref("");
  const runtimeStatus = ref<RuntimeStatus>("none");
  const refetchCount = ref(0);

  const snapshot = computed<ActiveSnapshot | null>(() => runtimes.snapshotOf(id.value));
  const active = computed<Active | null>(() => runtimes.activeOf(id.value));
  const persistedEntries = computed<TranscriptEntry[]>(() => detail.value?.entries ?? []);
  const entries = computed<TranscriptEntry[]>(() => withProvisional(persistedEntries.value, runtimes.provisionalOf(id.value)));
  const research = computed<ResearchState | null>(() => active.value?.state.research ?? detail.value?.session.research ?? null);
  const streaming = computed<StreamingMessage | null>(() => runtimes.streamingOf(id.value));
  const runState = computed<RunState>(() => runStateOf(snapshot.value, entries.value));

  const detailReload = coalescedReload(async () => {
    const current = id.value;
    if (current === null) return false;
    await loadOnce(current);
  });
  let opening: Promise<void> | null = null;

  async function fetchDetail(sessionId: string): Promise<SessionDetail> {
    return http.get<SessionDetail>(`/api/pi/sessions/${encodeURIComponent(sessionId)}`);
  }

  /** Shows a session: its detail now (or the seed), its runtime when it is open. */
  async function open(sessionId: string, seed: { detail?: SessionDetail; active?: Active } = {}): Promise<void> {
    if (seed.active) runtimes.applySnapshot(seed.active);
    if (id.value === sessionId && (status.value === "ready" || status.value === "loading") && seed.detail === undefined) {
      await Promise.all([detailReload.inFlight() ?? Promise.resolve(), opening ?? Promise.resolve()]);
      return;
    }
    id.value = sessionId;
    error.value = "";
    runtimeStatus.value = runtimes.isOpen(sessionId) ? "open" : "none";
    opening = null;
    if (seed.detail) {
      detail.value = seed.detail;
      status.value = "ready";
      return;
    }
    detail.value = null;
    status.value = "loading";
    // The transcript first: starting a runtime (a worker process opening the same file) competes for the CPU,
    // so it starts once the detail has arrived (or failed), not alongside it.
    await refetch();
    if (!seed.active && id.value === sessionId) await ensureRuntime();
  }

  async function loadOnce(sessionId: string): Promise<void> {
    try {
      const next = await fetchDetail(sessionId);
      if (id.value !== sessionId) return;
      detail.value = next;
      status.value = "ready";
      error.value = "";
      refetchCount.value += 1;
    } catch (caught) {
      if (id.value !== sessionId) return;
      if (caught instanceof ApiError && caught.status === 404) {
        if (detail.value !== null) return; // an unsaved runtime: keep what we show
        // Not persisted: a runtime that has not written its file yet (a fresh session after a reload)?
        await ensureRuntime();
        if (runtimes.isOpen(sessionId)) {
          if (id.value !== sessionId) return;
          detail.value = unsavedDetail(sessionId, runtimes.snapshotOf(sessionId));
          status.value = "ready";
          return;
        }
        status.value = "missing";
        error.value = caught.message;
        return;
      }
      error.value = errorMessage(caught);
      if (detail.value === null) status.value = "error";
    }
  }

  /** Reloads the open session's detail (coalesced: a call during a load runs one more load after it). */
  function refetch(): Promise<void> {
    if (id.value === null) return Promise.resolve();
    return detailReload.reload();
  }

  /** A detail from a write route's answer (fork, reset, compact, bash, rename) for the open session. */
  function applyDetail(next: SessionDetail): void {
    if (next.session.id !== id.value) return;
    detail.value = next;
    status.value = "ready";
    sessions.upsert(summaryOfDetail(next.session));
  }

  /**
   * Makes sure the open session has a runtime (POST /api/pi/active-session { id } loads a persisted session
   * that is not open and selects it). Failures are reported in words; the transcript stays readable. A
   * runtime the roster already lists is used as it is.
   */
  function ensureRuntime(): Promise<void> {
    const sessionId = id.value;
    if (sessionId === null || status.value === "missing") return Promise.resolve();
    if (runtimes.isOpen(sessionId)) {
      runtimeStatus.value = "open";
      return Promise.resolve();
    }
    if (opening !== null) return opening;
    runtimeStatus.value = "opening";
    opening = (async () => {
      try {
        const response = await http.post<ActiveResponse>("/api/pi/active-session", { id: sessionId });
        runtimes.applySnapshot(response.active);
        if (id.value === sessionId) runtimeStatus.value = "open";
      } catch (caught) {
        if (id.value === sessionId) runtimeStatus.value = "error";
        // An unknown session shows as missing in the view; other failures are reported.
        if (!(caught instanceof ApiError && caught.status === 404)) notices.report(caught, "Starting the session's runtime");
      } finally {
        opening = null;
      }
    })();
    return opening;
  }

  function close(): void {
    id.value = null;
    detail.value = null;
    status.value = "idle";
    error.value = "";
    runtimeStatus.value = "none";
  }

  // A loaded detail that holds provisional prompts makes them redundant.
  watch(persistedEntries, (list) => {
    if (id.value !== null && list.length > 0) runtimes.settleProvisionals(id.value, list);
  });

  // The runtime appearing or disappearing (roster) and snapshot changes that touch the file.
  watch(
    () => (id.value !== null && runtimes.isOpen(id.value) ? "open" : "closed"),
    (now) => {
      if (now === "open") runtimeStatus.value = "open";
      else if (runtimeStatus.value === "open") runtimeStatus.value = "none";
    },
  );
  watch(
    () => [id.value, detailFingerprint(snapshot.value)] as const,
    ([nowId, now], [beforeId, before]) => {
      if (nowId === null || nowId !== beforeId || before === "" || now === "" || now === before) return;
      void refetch();
    },
  );

  return {
    id,
    detail,
    status,
    error,
    runtimeStatus,
    refetchCount,
    snapshot,
    active,
    entries,
    research,
    streaming,
    runState,
    open,
    refetch,
    applyDetail,
    ensureRuntime,
    close,
  };
});
