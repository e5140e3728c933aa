import { defineStore } from "pinia";
import { ref, watch } from "vue";
import type {
  SessionDeltaData,
  SessionLoadingData,
  SessionSnapshotData,
  SessionUnavailableData,
} from "../../../domain/live/live-messages.ts";
import type { SessionListDelta, SessionListSnapshot } from "../../../domain/live/session-list.ts";
import type { ConnectionStatus, EventEnvelope, FreshReason, MachineState } from "../api/events-machine.ts";
import { behindOf } from "../api/events-machine.ts";
import { EventsSocket, type SocketFactory, type TimerApi } from "../api/events-socket.ts";
import { pageWsBase } from "../api/socket-lifecycle.ts";
import { useNoticesStore } from "./notices.store.ts";
import { useOpenSessionStore } from "./open-session.store.ts";
import { useRuntimesStore } from "./runtimes.store.ts";
import { useSessionsStore } from "./sessions.store.ts";

/** Runtime events after which a streamed message, tool output or `!` command may be in the transcript already. */
const SETTLING_EVENTS = new Set(["message_end", "agent_end", "tool_execution_end", "bash_execution_end"]);

export interface ConnectionStartOptions {
  /** ws(s)://host of the backend; default: derived from the API base or the page location. */
  wsBase?: string;
  createSocket?: SocketFactory;
  timers?: TimerApi;
  random?: () => number;
  silenceMs?: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringIds(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((id) => typeof id === "string") ? (value as string[]) : null;
}

/** The data of a read-side message about one session (`session_*` but the list), or null when it has no session id. */
function sessionData<T extends { sessionId: string }>(data: unknown): T | null {
  return isRecord(data) && typeof data["sessionId"] === "string" ? (data as unknown as T) : null;
}

/**
 * The live link to the backend (WS /api/pi/events): status for the status pill, and routing of every message to
 * the stores: the session list (`session_list`, `session_list_delta`) to the sessions store, the focused
 * session's detail (`session_loading`, `session_snapshot`, `session_delta`, `session_unavailable`) to the
 * open-session store, runtime snapshots and events to the runtimes store. There is no HTTP read behind it: a
 * resumed stream replays what was missed (`behind` counts it down), a fresh one sends snapshots, and until they
 * arrive the stores keep what they show, marked stale. The socket's decisions live in api/events-machine.ts.
 * The socket follows the open session's `focusRequest` (a focus message, not a reconnect).
 */
export const useConnectionStore = defineStore("connection", () => {
  const runtimes = useRuntimesStore();
  const sessions = useSessionsStore();
  const openSession = useOpenSessionStore();
  const notices = useNoticesStore();

  const status = ref<ConnectionStatus>("offline");
  const started = ref(false);
  const attempt = ref(0);
  const retryInMs = ref<number | null>(null);
  const epoch = ref<string | null>(null);
  /** Missed messages a resumed stream still has to replay. */
  const behind = ref(0);
  /** Fresh streams started, and why the last one was. */
  const freshStreams = ref(0);
  const lastFresh = ref<FreshReason | null>(null);
  const resumes = ref(0);
  const heartbeats = ref(0);

  let socket: EventsSocket | null = null;

  function onStatus(next: ConnectionStatus, machine: MachineState): void {
    status.value = next;
    attempt.value = machine.attempt;
    retryInMs.value = machine.retryInMs;
    behind.value = behindOf(machine);
  }

  /** A fresh stream: what the old one built is replaced by the snapshots that follow. */
  function onFreshStream(info: { epoch: string; reason: FreshReason }): void {
    epoch.value = info.epoch;
    lastFresh.value = info.reason;
    freshStreams.value += 1;
    runtimes.beginGeneration();
    sessions.markStale();
    openSession.markStale();
  }

  function onRuntimeEvent(data: unknown): void {
    if (!isRecord(data) || typeof data["activeSessionId"] !== "string" || !isRecord(data["event"])) return;
    const sessionId = data["activeSessionId"];
    const raw = data["event"];
    if (typeof raw["type"] !== "string") return;
    const event = raw as { type: string; [key: string]: unknown };
    runtimes.applyRuntimeEvent(sessionId, event);
    if (!SETTLING_EVENTS.has(event.type)) return;
    const shown = sessionId === openSession.id;
    if (event.type === "agent_end") {
      // A finished run: prompts before it that the transcript passed over were not saved.
      const mark = runtimes.provisionalMark(sessionId);
      if (shown) openSession.noteRunEnded(sessionId, mark);
      else runtimes.dropProvisionals(sessionId, mark);
    }
    // The shown session's transcript may hold what just ended already (its delta can come first).
    if (shown) openSession.settleLive();
    else if (event.type === "message_end" || event.type === "agent_end") runtimes.settleStream(sessionId);
  }

  /** Routes one server message to the stores (exported for tests; the socket calls it). */
  function receive(message: EventEnvelope): void {
    const data = message.data;
    switch (message.type) {
      case "session_list":
        if (isRecord(data) && Array.isArray(data["sessions"])) sessions.applyListSnapshot(data as unknown as SessionListSnapshot);
        return;
      case "session_list_delta":
        if (isRecord(data) && Array.isArray(data["upserted"]) && Array.isArray(data["removed"]))
          sessions.applyListDelta(data as unknown as SessionListDelta);
        return;
      case "session_loading": {
        const loading = sessionData<SessionLoadingData>(data);
        if (loading !== null) openSession.receiveLoading(loading);
        return;
      }
      case "session_snapshot": {
        const chunk = sessionData<SessionSnapshotData>(data);
        if (chunk !== null && Array.isArray(chunk.entries)) openSession.receiveSnapshot(chunk);
        return;
      }
      case "session_delta": {
        const delta = sessionData<SessionDeltaData>(data);
        if (delta !== null) openSession.receiveDelta(delta);
        return;
      }
      case "session_unavailable": {
        const unavailable = sessionData<SessionUnavailableData>(data);
        if (unavailable !== null) openSession.receiveUnavailable(unavailable);
        return;
      }
      case "active_session":
        runtimes.applySnapshot(data);
        return;
      case "runtime_roster": {
        const ids = isRecord(data) ? stringIds(data["sessionIds"]) : null;
        if (ids !== null) runtimes.applyRoster(ids);
        return;
      }
      case "runtime_removed":
        if (isRecord(data) && typeof data["id"] === "string") runtimes.remove(data["id"]);
        return;
      case "runtime_event":
        onRuntimeEvent(data);
        return;
      case "extension_ui":
        if (isRecord(data) && typeof data["activeSessionId"] === "string")
          runtimes.applyExtensionUi(data["activeSessionId"], data["state"]);
        return;
      case "extension_error":
        if (isRecord(data) && data["activeSessionId"] === openSession.id) {
          const error = data["error"];
          const text =
            isRecord(error) && typeof error["error"] === "string"
              ? error["error"]
              : typeof error === "string"
                ? error
                : JSON.stringify(error);
          notices.report(new Error(text), "An extension failed");
        }
        return;
      default:
        return;
    }
  }

  /** Opens the events socket (idempotent). */
  function start(options: ConnectionStartOptions = {}): void {
    if (socket !== null) return;
    socket = new EventsSocket({
      wsBase: options.wsBase ?? pageWsBase(),
      ...(options.createSocket ? { createSocket: options.createSocket } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
      ...(options.random ? { random: options.random } : {}),
      ...(options.silenceMs !== undefined ? { silenceMs: options.silenceMs } : {}),
      onMessage: receive,
      onStatus,
      onFreshStream,
      onResumed: (info) => {
        epoch.value = info.epoch;
        resumes.value += 1;
      },
      onHeartbeat: () => {
        heartbeats.value += 1;
      },
    });
    started.value = true;
    sessions.markStale();
    socket.start(openSession.id ?? "");
  }

  function stop(): void {
    socket?.stop();
    socket = null;
    started.value = false;
    status.value = "offline";
    behind.value = 0;
  }

  function retryNow(): void {
    socket?.retryNow();
  }

  // Synchronously: a session closed and opened again in one tick must still reach the server as two focus changes.
  watch(
    () => openSession.focusRequest,
    (request) => socket?.focus(request.sessionId, request.snapshot),
    { flush: "sync" },
  );

  return {
    status,
    started,
    attempt,
    retryInMs,
    epoch,
    behind,
    freshStreams,
    lastFresh,
    resumes,
    heartbeats,
    start,
    stop,
    retryNow,
    receive,
  };
});
