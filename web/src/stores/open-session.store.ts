import { emptySessionUsage } from "../../../domain/session-usage.ts";
import { defineStore } from "pinia";
import { computed, ref, shallowRef, watch } from "vue";
import type {
  SessionDeltaData,
  SessionLoadingData,
  SessionSnapshotData,
  SessionUnavailableData,
} from "../../../domain/live/live-messages.ts";
import type { Active, ActiveSnapshot } from "../../../domain/runtime/runtime-types.ts";
import type { ResearchState } from "../../../domain/research/research-types.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import type { ActiveResponse, SessionDetail } from "../api/dto.ts";
import { errorMessage, http } from "../api/http.ts";
import { prompt as sendPrompt, runBash } from "../api/runtime-actions.ts";
import {
  EMPTY_HELD,
  failHeld,
  holdPrompt,
  keepHeld,
  releasePrompt,
  restoreHeld,
  type HeldPrompt,
  type HeldState,
} from "../lib/held-prompts.ts";
import {
  applySessionDelta,
  applySnapshotChunk,
  detailOf,
  EMPTY_LIVE_DETAIL,
  type LiveDetailOutcome,
  type LiveDetailState,
} from "../lib/live-detail.ts";
import { HELD_PROMPTS_KEY, readSetting, readTabValue, SETTING_KEYS, writeSetting, writeTabValue } from "../lib/local-storage.ts";
import { withProvisional } from "../lib/provisional-entries.ts";
import { runStateOf, type RunState } from "../lib/run-state.ts";
import { fallbackEntry, noticeKey, runtimeNotices, viewFacts, withPlacedEntries, type ViewFacts } from "../lib/session-facts.ts";
import type { StreamingMessage } from "../lib/streaming-message.ts";
import { useNoticesStore } from "./notices.store.ts";
import { useRuntimesStore } from "./runtimes.store.ts";

export type DetailStatus = "idle" | "loading" | "ready" | "missing" | "error";
export type RuntimeStatus = "none" | "opening" | "open" | "error";

/** How far the server has read a large session file before its snapshot (`session_loading`). */
export interface LoadingProgress {
  loadedBytes: number;
  totalBytes: number;
}

/** What the events socket should focus; `snapshot`: the view needs that session's snapshot (a new request each time). */
export interface FocusRequest {
  sessionId: string;
  snapshot: boolean;
  serial: number;
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
      model: snapshot?.state.model ? { provider: snapshot.state.model.provider, id: snapshot.state.model.id } : null,
      thinkingLevel: snapshot?.state.thinkingLevel ?? null,
      // pi writes only version 3; a runtime's file needs no upgrade.
      fileVersion: 3,
      readOnly: null,
      usage: emptySessionUsage(),
    },
    entries: [],
  };
}

/** File upgrades already announced (kept across reloads: the runtime's snapshot keeps the notice). */
const SHOWN_UPGRADES_KEY = SETTING_KEYS.shownUpgrades;
const SHOWN_UPGRADES_MAX = 50;

function shownUpgrades(): string[] {
  try {
    const parsed: unknown = JSON.parse(readSetting(SHOWN_UPGRADES_KEY) ?? "[]");
    return Array.isArray(parsed) ? parsed.filter((key): key is string => typeof key === "string") : [];
  } catch {
    return [];
  }
}

export interface UpgradeNotice {
  sessionId: string;
  message: string;
  backupPath: string;
}

/**
 * The session the workbench shows: its detail, its runtime snapshot and what it streams (from the runtimes
 * store), its run state.
 *
 * The detail comes from the events socket alone (no HTTP read): opening a session focuses it on the socket
 * (`focusRequest`, which the connection store follows), and the server answers with `session_loading` while it
 * reads a large file (`progress`), the detail as a snapshot in chunks, then deltas in revision order
 * (lib/live-detail.ts), or `session_unavailable` (not found or gone: `missing`; a runtime that has not written its
 * file yet: `unsavedDetail`; a read error). A delta this store cannot follow asks for a fresh snapshot. When the
 * socket's stream is replaced by a fresh one (`markStale`), the detail shown stays, marked `stale`, until the new
 * stream's snapshot replaces it.
 *
 * A write route's detail (fork, reset, bash, rename: `applyDetail`) is shown at once, unless the stream has already
 * reported a change of the session since the request was sent (`detailMark()` taken before it), and only until the
 * stream's next change: the stream is the source of truth (it carries revisions, an HTTP answer does not), and it
 * reports the same write a moment later.
 *
 * Viewing is read-only: opening a session reads its detail and nothing else, so no runtime starts and no byte of
 * its file changes. A session that already has a runtime (the events socket's roster) shows its live snapshot.
 * The runtime starts on the person's first action: `perform` runs an action after POST /api/pi/active-session
 * { id } (which opens and selects the session), one action after another per session; `hold` keeps prompts sent
 * meanwhile in order (lib/held-prompts.ts, shown as provisional queued prompts) and sends them once pi is ready;
 * on a failure they wait for the composer to take them back. Until then the model and thinking level come from
 * the session's own entries (`facts`). A new session (POST /api/pi/sessions) arrives with both detail and
 * snapshot (`seed`).
 *
 * `entries` are the persisted ones plus the user's prompts pi took but has not written yet (provisional,
 * lib/provisional-entries.ts): a prompt shows as soon as pi announces it, and the persisted entry replaces it.
 * Whenever the persisted entries change, the runtimes store drops the provisional prompts and the ended streamed
 * output they now hold. A model fallback the runtime reports becomes a system line after the entry that was last
 * when it appeared; a file upgrade (v1/v2 → v3, original kept in leyline-trash) is announced once (`upgradeNotice`).
 */
export const useOpenSessionStore = defineStore("openSession", () => {
  const runtimes = useRuntimesStore();
  const notices = useNoticesStore();

  const id = ref<string | null>(null);
  // Shallow: a detail is immutable server data (replaced whole, never edited), and a 10,000-entry transcript
  // must not be wrapped in reactive proxies entry by entry.
  const detail = shallowRef<SessionDetail | null>(null);
  const status = ref<DetailStatus>("idle");
  const error = ref("");
  const runtimeStatus = ref<RuntimeStatus>("none");
  /** The server's revision of the detail from the stream (null: none yet, or a write route's detail is shown). */
  const revision = ref<number | null>(null);
  /** The active branch's leaf entry id, from the stream. */
  const leafId = ref<string | null>(null);
  /** The server reading a large session file, before its snapshot. */
  const progress = ref<LoadingProgress | null>(null);
  /** The detail shown is from a stream that was replaced: the new stream's snapshot is on its way. */
  const stale = ref(false);
  /** What the events socket should focus (followed by the connection store). */
  const focusRequest = shallowRef<FocusRequest>({ sessionId: "", snapshot: false, serial: 0 });
  /** Changes the stream made to the shown session (completed snapshots, applied deltas). */
  const streamChanges = ref(0);

  /** The stream's detail of the shown session, and a snapshot being received. */
  let live: LiveDetailState = EMPTY_LIVE_DETAIL;
  /** Per session, the provisional-prompt mark of the last run that ended (lib/provisional-entries.ts). */
  const endedRuns = new Map<string, number>();
  /** `open()` calls waiting for the session's first answer. */
  let waiters: Array<() => void> = [];

  const snapshot = computed<ActiveSnapshot | null>(() => runtimes.snapshotOf(id.value));
  const active = computed<Active | null>(() => runtimes.activeOf(id.value));
  const persistedEntries = computed<TranscriptEntry[]>(() => detail.value?.entries ?? []);
  /** Transcript lines from runtime notices, per session: placed after `afterId` (the last entry when seen). */
  const placed = ref<Record<string, Array<{ key: string; afterId: string | null; entry: TranscriptEntry }>>>({});
  const entries = computed<TranscriptEntry[]>(() =>
    withPlacedEntries(
      withProvisional(persistedEntries.value, runtimes.provisionalOf(id.value)),
      id.value === null ? [] : (placed.value[id.value] ?? []),
    ),
  );
  const facts = computed<ViewFacts>(() => viewFacts(detail.value?.session));
  // Held prompts outlive a reload as typed text (sessionStorage): they come back into the composer, not resent.
  const held = ref<Record<string, HeldState>>(restoreHeld(readTabValue(HELD_PROMPTS_KEY)));
  watch(
    held,
    (value) => {
      const kept = keepHeld(value);
      writeTabValue(HELD_PROMPTS_KEY, Object.keys(kept).length > 0 ? JSON.stringify(kept) : null);
    },
    { flush: "sync" },
  );
  const upgradeNotice = ref<UpgradeNotice | null>(null);
  const seenNotices = new Set<string>();
  const research = computed<ResearchState | null>(() => active.value?.state.research ?? detail.value?.session.research ?? null);
  const streaming = computed<StreamingMessage | null>(() => runtimes.streamingOf(id.value));
  const runState = computed<RunState>(() => runStateOf(snapshot.value, entries.value));

  /** Runtime starts in flight, per session. */
  const starts = new Map<string, Promise<void>>();
  /** The tail of each session's action chain (actions run one after another, in the order asked). */
  const chains = new Map<string, Promise<void>>();

  function requestFocus(sessionId: string, wantsSnapshot: boolean): void {
    focusRequest.value = { sessionId, snapshot: wantsSnapshot && sessionId !== "", serial: focusRequest.value.serial + 1 };
  }

  function releaseWaiters(): void {
    const waiting = waiters;
    waiters = [];
    for (const resolve of waiting) resolve();
  }

  /** Resolves once the session's first answer arrived (or another session is shown). */
  function answered(sessionId: string): Promise<void> {
    if (id.value !== sessionId || status.value !== "loading") return Promise.resolve();
    return new Promise((resolve) => waiters.push(resolve));
  }

  /** Forgets what was shown (another session, or none). */
  function reset(sessionId: string | null): void {
    releaseWaiters();
    id.value = sessionId;
    detail.value = null;
    status.value = sessionId === null ? "idle" : "loading";
    error.value = "";
    revision.value = null;
    leafId.value = null;
    progress.value = null;
    stale.value = false;
    live = EMPTY_LIVE_DETAIL;
  }

  /**
   * Shows a session: focuses it on the events socket, which sends its detail (or shows the seed of a session just
   * created until then). Resolves once the detail, or the reason there is none, arrived.
   */
  function open(sessionId: string, seed: { detail?: SessionDetail; active?: Active } = {}): Promise<void> {
    if (seed.active) runtimes.applySnapshot(seed.active);
    if (id.value === sessionId && (status.value === "ready" || status.value === "loading") && seed.detail === undefined)
      return answered(sessionId);
    reset(sessionId);
    runtimeStatus.value = runtimes.isOpen(sessionId) ? "open" : starts.has(sessionId) ? "opening" : "none";
    if (seed.detail) {
      // Shown until the stream's first answer (an unsaved runtime's keeps it).
      detail.value = seed.detail;
      status.value = "ready";
    }
    // The read side alone: no runtime is started here (that would let pi write to the file).
    requestFocus(sessionId, true);
    return answered(sessionId);
  }

  /** Asks the stream for the shown session's snapshot again (after an error, or when out of step). */
  function reload(): void {
    if (id.value === null) return;
    if (detail.value === null) {
      status.value = "loading";
      error.value = "";
    }
    live = { current: live.current, pending: null };
    requestFocus(id.value, true);
  }

  /** The socket's stream was replaced: keep showing the detail (stale) until the new stream's snapshot. */
  function markStale(): void {
    live = { current: live.current, pending: null };
    progress.value = null;
    if (id.value !== null && status.value === "ready") stale.value = true;
  }

  function settle(outcome: LiveDetailOutcome, next: LiveDetailState): void {
    live = next;
    if (outcome === "out-of-step") {
      reload();
      return;
    }
    const current = next.current;
    if (outcome !== "changed" || current === null || current.sessionId !== id.value) return;
    // The stream's detail replaces whatever was shown (a write route's answer, a stale detail).
    stale.value = false;
    progress.value = null;
    revision.value = current.revision;
    leafId.value = current.leafId;
    detail.value = detailOf(current);
    status.value = "ready";
    error.value = "";
    streamChanges.value += 1;
    releaseWaiters();
  }

  /** `session_loading`: the server reads a large file. */
  function receiveLoading(data: SessionLoadingData): void {
    if (data.sessionId !== id.value) return;
    progress.value = { loadedBytes: data.loadedBytes, totalBytes: data.totalBytes };
    if (detail.value === null && status.value !== "loading") {
      status.value = "loading";
      error.value = "";
    }
  }

  /** `session_snapshot`: one chunk of the detail. */
  function receiveSnapshot(data: SessionSnapshotData): void {
    if (data.sessionId !== id.value) return;
    const step = applySnapshotChunk(live, data);
    settle(step.outcome, step.state);
  }

  /** `session_delta`: a change to the detail, applied in revision order. */
  function receiveDelta(data: SessionDeltaData): void {
    // A stale detail waits for the new stream's snapshot (its deltas follow it).
    if (data.sessionId !== id.value || stale.value) return;
    const step = applySessionDelta(live, data);
    settle(step.outcome, step.state);
  }

  /** `session_unavailable`: no detail for the focused session (now). */
  function receiveUnavailable(data: SessionUnavailableData): void {
    const sessionId = id.value;
    if (data.sessionId !== sessionId || sessionId === null) return;
    live = EMPTY_LIVE_DETAIL;
    progress.value = null;
    stale.value = false;
    revision.value = null;
    leafId.value = null;
    if (data.reason === "unsaved") {
      // A runtime that has not written its file: what is shown (a new session's seed) stays; its snapshot follows.
      if (detail.value === null) detail.value = unsavedDetail(sessionId, runtimes.snapshotOf(sessionId));
      status.value = "ready";
      error.value = "";
    } else if (data.reason === "error") {
      error.value = data.message;
      if (detail.value === null) status.value = "error";
    } else {
      detail.value = null;
      status.value = "missing";
      error.value = data.message;
    }
    releaseWaiters();
  }

  /** The stream's change count now: pass it to `applyDetail` with the answer of a write sent after it. */
  function detailMark(): number {
    return streamChanges.value;
  }

  /**
   * A detail from a write route's answer (fork, reset, compact, bash, rename) for the open session, shown until the
   * stream's next change; ignored when the stream reported a change since `since` (it is at least as new).
   */
  function applyDetail(next: SessionDetail, since?: number): void {
    if (next.session.id !== id.value) return;
    if (since !== undefined && streamChanges.value > since) return;
    detail.value = next;
    status.value = "ready";
    error.value = "";
    releaseWaiters();
  }

  /** Drops the provisional prompts and ended streamed output the persisted entries of the shown session hold. */
  function settleLive(): void {
    const sessionId = id.value;
    if (sessionId === null) return;
    const list = persistedEntries.value;
    runtimes.settleProvisionals(sessionId, list, endedRuns.get(sessionId) ?? null);
    runtimes.settleStreams(sessionId, list);
  }

  /** A run of the shown session ended (`mark`: its last provisional prompt): prompts up to it the file passed over go. */
  function noteRunEnded(sessionId: string, mark: number): void {
    endedRuns.set(sessionId, mark);
    if (sessionId === id.value) settleLive();
  }

  /**
   * Starts the runtime of a session (POST /api/pi/active-session { id } opens a persisted session that is not
   * open and selects it); a runtime the roster already lists is used as it is. Rejects with the failure.
   */
  function startRuntime(sessionId: string): Promise<void> {
    if (runtimes.isOpen(sessionId)) {
      if (id.value === sessionId) runtimeStatus.value = "open";
      return Promise.resolve();
    }
    const running = starts.get(sessionId);
    if (running !== undefined) return running;
    if (id.value === sessionId) runtimeStatus.value = "opening";
    const start = (async () => {
      try {
        const response = await http.post<ActiveResponse>("/api/pi/active-session", { id: sessionId });
        runtimes.applySnapshot(response.active);
        if (id.value === sessionId) runtimeStatus.value = "open";
      } catch (caught) {
        if (id.value === sessionId) runtimeStatus.value = "error";
        throw caught;
      } finally {
        starts.delete(sessionId);
      }
    })();
    starts.set(sessionId, start);
    return start;
  }

  /** Runs `work` after the session's earlier actions, with its runtime started first (`skip`: give up silently). */
  function chain<T>(sessionId: string, work: () => Promise<T>, skip: () => boolean = () => false): Promise<T | undefined> {
    const before = chains.get(sessionId) ?? Promise.resolve();
    // "Starting pi…" from the moment of the action, not from when its turn comes.
    if (id.value === sessionId && !runtimes.isOpen(sessionId) && runtimeStatus.value !== "opening") runtimeStatus.value = "opening";
    const skipped = (): undefined => {
      if (id.value === sessionId && runtimeStatus.value === "opening" && !starts.has(sessionId))
        runtimeStatus.value = runtimes.isOpen(sessionId) ? "open" : "none";
      return undefined;
    };
    const run = before.then(async () => {
      if (skip()) return skipped();
      await startRuntime(sessionId);
      if (skip()) return skipped();
      return work();
    });
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    chains.set(sessionId, tail);
    void tail.then(() => {
      if (chains.get(sessionId) === tail) chains.delete(sessionId);
    });
    return run;
  }

  /** An action of the person (model, thinking, compact…): starts the runtime when needed, then runs it in order. */
  async function perform<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const result = await chain(sessionId, work);
    return result as T;
  }

  function heldOf(sessionId: string | null): HeldState {
    if (sessionId === null) return EMPTY_HELD;
    return held.value[sessionId] ?? EMPTY_HELD;
  }

  function setHeld(sessionId: string, next: HeldState): void {
    held.value = { ...held.value, [sessionId]: next };
  }

  /**
   * Holds a prompt sent before the runtime is ready and sends it, after the ones before it, once pi is. A
   * failure stops the sending (`failure`); the composer takes the held prompts back (`takeBack`).
   */
  function hold(sessionId: string, prompt: Omit<HeldPrompt, "seq">): void {
    const { state, seq } = holdPrompt(heldOf(sessionId), prompt);
    setHeld(sessionId, state);
    const skip = (): boolean => {
      const now = heldOf(sessionId);
      return now.failure !== "" || !now.items.some((item) => item.seq === seq);
    };
    void chain(
      sessionId,
      async () => {
        const request = prompt.request;
        if (request.kind === "prompt") {
          const response = await sendPrompt(sessionId, { text: request.text, images: request.images });
          runtimes.applySnapshot(response.active);
        } else {
          const mark = detailMark();
          const response = await runBash(sessionId, request.command, request.excludeFromContext ? true : undefined);
          runtimes.applySnapshot(response.active);
          applyDetail(response.detail, mark);
        }
        setHeld(sessionId, releasePrompt(heldOf(sessionId), seq));
      },
      skip,
    ).catch((caught: unknown) => {
      setHeld(sessionId, failHeld(heldOf(sessionId), errorMessage(caught)));
      // Another session is shown: say so now; its prompts go back into its composer when it is opened again.
      if (id.value !== sessionId) notices.report(caught, "Sending a prompt that waited for pi");
    });
  }

  /** The held prompts of a session and why they stopped, handed back to the composer (and forgotten here). */
  function takeBack(sessionId: string): { items: HeldPrompt[]; failure: string } {
    const state = heldOf(sessionId);
    setHeld(sessionId, { ...state, items: [], failure: "" });
    return { items: state.items, failure: state.failure };
  }

  function dismissUpgradeNotice(): void {
    upgradeNotice.value = null;
  }

  function close(): void {
    reset(null);
    upgradeNotice.value = null;
    runtimeStatus.value = "none";
    requestFocus("", false);
  }

  // New persisted entries hold provisional prompts and ended streamed output: they go.
  watch(persistedEntries, () => settleLive());

  // The runtime appearing or disappearing (roster).
  watch(
    () => (id.value !== null && runtimes.isOpen(id.value) ? "open" : "closed"),
    (now) => {
      if (now === "open") {
        runtimeStatus.value = "open";
        // A session shown as missing whose runtime the roster lists now (a fresh, unsaved one after a reload).
        if (status.value === "missing" && id.value !== null) {
          detail.value = unsavedDetail(id.value, runtimes.snapshotOf(id.value));
          status.value = "ready";
          error.value = "";
        }
      } else if (runtimeStatus.value === "open") runtimeStatus.value = "none";
    },
  );

  // Runtime notices: a file upgrade is announced once; a model fallback becomes a transcript line.
  watch(
    () => [id.value, status.value, runtimeNotices(active.value?.state)] as const,
    ([sessionId, shown, list]) => {
      // Placed against the loaded transcript (a snapshot can arrive before the detail).
      if (sessionId === null || shown !== "ready") return;
      for (const notice of list) {
        const key = noticeKey(sessionId, notice);
        if (seenNotices.has(key)) continue;
        seenNotices.add(key);
        if (notice.kind === "file-upgraded") {
          const announced = shownUpgrades();
          if (announced.includes(key)) continue;
          writeSetting(SHOWN_UPGRADES_KEY, JSON.stringify([...announced, key].slice(-SHOWN_UPGRADES_MAX)));
          upgradeNotice.value = { sessionId, message: notice.message, backupPath: notice.backupPath };
        } else {
          const last = persistedEntries.value.at(-1) ?? null;
          const line = { key, afterId: last?.id ?? null, entry: fallbackEntry(key, notice, new Date().toISOString()) };
          placed.value = { ...placed.value, [sessionId]: [...(placed.value[sessionId] ?? []), line] };
        }
      }
    },
  );

  return {
    id,
    detail,
    status,
    error,
    runtimeStatus,
    revision,
    leafId,
    progress,
    stale,
    focusRequest,
    snapshot,
    active,
    entries,
    research,
    streaming,
    runState,
    facts,
    held,
    upgradeNotice,
    open,
    reload,
    markStale,
    receiveLoading,
    receiveSnapshot,
    receiveDelta,
    receiveUnavailable,
    detailMark,
    applyDetail,
    settleLive,
    noteRunEnded,
    perform,
    heldOf,
    hold,
    takeBack,
    dismissUpgradeNotice,
    close,
  };
});
