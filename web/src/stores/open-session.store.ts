import { defineStore } from "pinia";
import { computed, ref, shallowRef, watch } from "vue";
import type { Active, ActiveSnapshot } from "../../../domain/runtime/runtime-types.ts";
import type { ResearchState } from "../../../domain/research/research-types.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import type { ActiveResponse, SessionDetail } from "../api/dto.ts";
import { ApiError, errorMessage, http } from "../api/http.ts";
import { prompt as sendPrompt, runBash } from "../api/runtime-actions.ts";
import { coalescedReload } from "../lib/coalesced-reload.ts";
import { EMPTY_HELD, failHeld, holdPrompt, keepHeld, releasePrompt, restoreHeld, type HeldPrompt, type HeldState } from "../lib/held-prompts.ts";
import { HELD_PROMPTS_KEY, readSetting, readTabValue, SETTING_KEYS, writeSetting, writeTabValue } from "../lib/local-storage.ts";
import { withProvisional } from "../lib/provisional-entries.ts";
import { runStateOf, type RunState } from "../lib/run-state.ts";
import { fallbackEntry, noticeKey, runtimeNotices, viewFacts, withPlacedEntries, type ViewFacts } from "../lib/session-facts.ts";
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
      model: snapshot?.state.model ? { provider: snapshot.state.model.provider, id: snapshot.state.model.id } : null,
      thinkingLevel: snapshot?.state.thinkingLevel ?? null,
      // pi writes only version 3; a runtime's file needs no upgrade.
      fileVersion: 3,
      readOnly: null,
    },
    entries: [],
  };
}

/** How long a 404 detail waits for the events socket's first roster (an unsaved runtime after a reload). */
const ROSTER_WAIT_MS = 3000;
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
 * The session the workbench shows: its detail (GET /api/pi/sessions/:id: transcript entries and research),
 * refetched when its runtime reports a finished message, a finished run or a snapshot change that touches the
 * file; its runtime snapshot and live streaming message (from the runtimes store); its run state.
 *
 * Viewing is read-only: opening a session (sidebar, deep link, reload) reads its detail and nothing else, so
 * no runtime starts and no byte of its file changes. A session that already has a runtime (the events
 * socket's roster) shows its live snapshot. The runtime starts on the person's first action: `perform` runs
 * an action after POST /api/pi/active-session { id } (which opens and selects the session), one action after
 * another per session; `hold` keeps prompts sent meanwhile in order (lib/held-prompts.ts, shown as
 * provisional queued prompts) and sends them once pi is ready; on a failure they wait for the composer to
 * take them back. Until then the model and thinking level come from the session's own entries (`facts`).
 * A new session (POST /api/pi/sessions) arrives with both detail and snapshot (`seed`).
 *
 * `entries` are the persisted ones plus the user's prompts pi took but has not written yet (provisional,
 * lib/provisional-entries.ts): a prompt shows as soon as pi announces it, and the refetched detail replaces it.
 * A model fallback the runtime reports becomes a system line after the entry that was last when it appeared;
 * a file upgrade (v1/v2 → v3, original kept in leyline-trash) is announced once (`upgradeNotice`).
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
  /** Transcript lines from runtime notices, per session: placed after `afterId` (the last entry when seen). */
  const placed = ref<Record<string, Array<{ key: string; afterId: string | null; entry: TranscriptEntry }>>>({});
  const entries = computed<TranscriptEntry[]>(() =>
    withPlacedEntries(withProvisional(persistedEntries.value, runtimes.provisionalOf(id.value)), id.value === null ? [] : (placed.value[id.value] ?? [])),
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

  const detailReload = coalescedReload(async () => {
    const current = id.value;
    if (current === null) return false;
    await loadOnce(current);
  });
  /** Runtime starts in flight, per session. */
  const starts = new Map<string, Promise<void>>();
  /** The tail of each session's action chain (actions run one after another, in the order asked). */
  const chains = new Map<string, Promise<void>>();

  async function fetchDetail(sessionId: string): Promise<SessionDetail> {
    return http.get<SessionDetail>(`/api/pi/sessions/${encodeURIComponent(sessionId)}`);
  }

  /** Shows a session: its detail now (or the seed), its runtime when it is open. */
  async function open(sessionId: string, seed: { detail?: SessionDetail; active?: Active } = {}): Promise<void> {
    if (seed.active) runtimes.applySnapshot(seed.active);
    if (id.value === sessionId && (status.value === "ready" || status.value === "loading") && seed.detail === undefined) {
      await (detailReload.inFlight() ?? Promise.resolve());
      return;
    }
    id.value = sessionId;
    error.value = "";
    runtimeStatus.value = runtimes.isOpen(sessionId) ? "open" : starts.has(sessionId) ? "opening" : "none";
    if (seed.detail) {
      detail.value = seed.detail;
      status.value = "ready";
      return;
    }
    detail.value = null;
    status.value = "loading";
    // The read side alone: no runtime is started here (that would let pi write to the file).
    await refetch();
  }

  /** Resolves once the events socket delivered a roster (or after `ROSTER_WAIT_MS`). */
  function rosterKnown(): Promise<void> {
    if (runtimes.rosterSeen) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = globalThis.setTimeout(done, ROSTER_WAIT_MS);
      const stop = watch(
        () => runtimes.rosterSeen,
        (seen) => {
          if (seen) done();
        },
      );
      function done(): void {
        globalThis.clearTimeout(timer);
        stop();
        resolve();
      }
    });
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
        // Not persisted: a runtime that has not written its file yet (a fresh session after a reload)? The
        // roster says so; asking the server to open it could start a runtime.
        await rosterKnown();
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
      if (id.value === sessionId && runtimeStatus.value === "opening" && !starts.has(sessionId)) runtimeStatus.value = runtimes.isOpen(sessionId) ? "open" : "none";
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
          const response = await runBash(sessionId, request.command, request.excludeFromContext ? true : undefined);
          runtimes.applySnapshot(response.active);
          applyDetail(response.detail);
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
    id.value = null;
    upgradeNotice.value = null;
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
    facts,
    held,
    upgradeNotice,
    open,
    refetch,
    applyDetail,
    perform,
    heldOf,
    hold,
    takeBack,
    dismissUpgradeNotice,
    close,
  };
});
