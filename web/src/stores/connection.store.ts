import { defineStore } from "pinia";
import { ref, watch } from "vue";
import type { EventEnvelope, MachineState, ResyncReason } from "../api/events-machine.ts";
import type { ConnectionStatus } from "../api/events-machine.ts";
import { apiBase } from "../api/http.ts";
import { EventsSocket, wsBaseOf, type SocketFactory, type TimerApi } from "../api/events-socket.ts";
import { messageRole } from "../lib/streaming-message.ts";
import { useNoticesStore } from "./notices.store.ts";
import { useOpenSessionStore } from "./open-session.store.ts";
import { useRuntimesStore } from "./runtimes.store.ts";
import { useSessionsStore } from "./sessions.store.ts";

/** pi events after which the open session's persisted transcript has changed. */
const DETAIL_EVENTS = new Set(["message_end", "agent_end", "compaction_end", "session_info_changed", "thinking_level_changed", "auto_retry_end"]);
/** pi events after which a session's list row (first message, name, modified) has changed. */
const LIST_EVENTS = new Set(["agent_end", "session_info_changed"]);

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

/**
 * The live link to the backend (WS /api/pi/events): status for the status pill, routing of every message
 * to the runtimes, sessions and open-session stores, and resynchronisation over HTTP after a reconnect, a
 * seq gap or a server restart (the socket's decisions live in api/events-machine.ts). The socket follows
 * the open session: `?sessionId=<open id>` (empty on the start screen) gets full snapshots for it only.
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
  const lastResync = ref<ResyncReason | null>(null);
  const resyncCount = ref(0);
  const heartbeats = ref(0);

  let socket: EventsSocket | null = null;

  function onStatus(next: ConnectionStatus, machine: MachineState): void {
    status.value = next;
    attempt.value = machine.attempt;
    retryInMs.value = machine.retryInMs;
  }

  async function resync(reason: ResyncReason): Promise<void> {
    lastResync.value = reason;
    resyncCount.value += 1;
    const work: Promise<void>[] = [];
    // A focus change reopens the socket on purpose: the newly opened session loads itself.
    if (reason !== "focus") {
      work.push(sessions.refresh());
      if (openSession.id !== null) work.push(openSession.refetch());
    }
    await Promise.all(work);
  }

  function onRuntimeEvent(data: unknown): void {
    if (!isRecord(data) || typeof data["activeSessionId"] !== "string" || !isRecord(data["event"])) return;
    const sessionId = data["activeSessionId"];
    const raw = data["event"];
    if (typeof raw["type"] !== "string") return;
    const event = raw as { type: string; [key: string]: unknown };
    runtimes.applyRuntimeEvent(sessionId, event);
    const settles = event.type === "message_end" || event.type === "agent_end";
    // A finished run: prompts before it that its refetched transcript passed over were not saved.
    const promptMark = event.type === "agent_end" ? runtimes.provisionalMark(sessionId) : null;
    if (DETAIL_EVENTS.has(event.type) && sessionId === openSession.id) {
      const streamingId = runtimes.streamingOf(sessionId)?.id ?? null;
      void openSession.refetch().then(() => {
        if (settles) runtimes.settleStream(sessionId, streamingId);
        if (promptMark !== null && openSession.id === sessionId && openSession.error === "" && openSession.detail !== null) {
          runtimes.settleProvisionals(sessionId, openSession.detail.entries, promptMark);
        }
      });
    } else if (settles) {
      runtimes.settleStream(sessionId);
      if (promptMark !== null) runtimes.dropProvisionals(sessionId, promptMark);
    }
    if (LIST_EVENTS.has(event.type) || (event.type === "message_end" && messageRole(event["message"]) === "user")) {
      sessions.refreshSoon();
    }
  }

  /** Routes one server message to the stores (exported for tests; the socket calls it). */
  function receive(message: EventEnvelope): void {
    const data = message.data;
    switch (message.type) {
      case "active_session":
        runtimes.applySnapshot(data);
        return;
      case "runtime_roster": {
        const ids = isRecord(data) ? stringIds(data["sessionIds"]) : null;
        if (ids === null) return;
        runtimes.applyRoster(ids);
        if (sessions.status === "ready" && ids.some((id) => sessions.byId(id) === undefined)) sessions.refreshSoon(300);
        return;
      }
      case "runtime_removed":
        if (isRecord(data) && typeof data["id"] === "string") runtimes.remove(data["id"]);
        return;
      case "runtime_event":
        onRuntimeEvent(data);
        return;
      case "extension_ui":
        if (isRecord(data) && typeof data["activeSessionId"] === "string") runtimes.applyExtensionUi(data["activeSessionId"], data["state"]);
        return;
      case "extension_error":
        if (isRecord(data) && data["activeSessionId"] === openSession.id) {
          const error = data["error"];
          const text = isRecord(error) && typeof error["error"] === "string" ? error["error"] : typeof error === "string" ? error : JSON.stringify(error);
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
    const location = typeof globalThis.location === "object" && globalThis.location !== null ? globalThis.location : null;
    socket = new EventsSocket({
      wsBase: options.wsBase ?? wsBaseOf(apiBase(), location),
      ...(options.createSocket ? { createSocket: options.createSocket } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
      ...(options.random ? { random: options.random } : {}),
      ...(options.silenceMs !== undefined ? { silenceMs: options.silenceMs } : {}),
      onMessage: receive,
      onStatus,
      onConnectionStarted: (info) => {
        epoch.value = info.epoch;
        runtimes.beginGeneration();
      },
      onResync: (reason) => void resync(reason),
      onHeartbeat: () => {
        heartbeats.value += 1;
      },
    });
    started.value = true;
    socket.start(openSession.id ?? "");
  }

  function stop(): void {
    socket?.stop();
    socket = null;
    started.value = false;
    status.value = "offline";
  }

  function retryNow(): void {
    socket?.retryNow();
  }

  watch(
    () => openSession.id,
    (id) => socket?.focus(id ?? ""),
  );

  return { status, started, attempt, retryInMs, epoch, lastResync, resyncCount, heartbeats, start, stop, retryNow, receive, resync };
});
