/**
 * The events connection as a pure state machine (WS /api/pi/events; spec "Event WebSockets", design
 * architecture "Event protocol to the browser"). `step(state, input)` returns the next state and the effects
 * the driver (events-socket.ts) performs: open or close the socket, send a text, schedule a reconnect,
 * deliver a message, start a new snapshot generation, resynchronise over HTTP.
 *
 * Rules:
 * - Heartbeat: `{"type":"ping"}` is answered with the exact text `{"type":"pong"}` (the server compares text).
 * - Every server message carries `seq` (per connection, from 1) and `epoch` (per server run). The first
 *   message of a connection starts a new snapshot generation (the server re-sends one active_session per
 *   open runtime, then runtime_roster, so older revision floors no longer apply). A new epoch means the
 *   server restarted: resync. A later message whose seq is not the previous + 1 is a gap: the client reopens
 *   the socket at once (fresh snapshots) and resyncs when the new connection starts.
 * - A closed or failed socket is reopened after an exponential backoff with jitter (`reconnectDelay`); the
 *   attempt count resets when a connection delivers its first message (a server that accepts and drops at
 *   once still backs off). After a drop the next connection resyncs ("reconnect").
 * - `focus(sessionId)` reopens the socket with `?sessionId=` (full snapshots of the selected session only).
 *
 * No clock and no randomness: the jitter arrives with the `closed` input.
 */

export const PONG_TEXT = '{"type":"pong"}';

/** A decoded server message: `{ type, data?, seq, epoch }`. */
export interface EventEnvelope {
  type: string;
  data?: unknown;
  seq: number;
  epoch: string;
}

export type ResyncReason = "reconnect" | "gap" | "restart" | "focus";

export type MachinePhase = "stopped" | "connecting" | "open" | "backoff";

export interface MachineState {
  phase: MachinePhase;
  /** The `?sessionId=` focus: "" selects no full runtime. */
  sessionId: string;
  /** Failed attempts since the last connection that delivered a message. */
  attempt: number;
  /** Last seq of the current connection (0 before its first message). */
  lastSeq: number;
  /** The server run last seen, or null before the first message ever. */
  epoch: string | null;
  /** Why the next connection must resync when it starts, if it must. */
  pendingResync: ResyncReason | null;
  /** Milliseconds until the scheduled reconnect (phase backoff). */
  retryInMs: number | null;
  /** Messages that were not JSON envelopes (ignored, counted). */
  malformed: number;
}

export type MachineInput =
  | { type: "start"; sessionId: string }
  | { type: "focus"; sessionId: string }
  | { type: "opened" }
  | { type: "message"; text: string }
  /** The socket closed or failed (also: no message for too long). `random` in [0, 1) draws the jitter. */
  | { type: "closed"; random: number }
  /** The backoff timer fired. */
  | { type: "retry" }
  /** Reconnect now (user asked), skipping the rest of the backoff. */
  | { type: "retryNow" }
  | { type: "stop" };

export type MachineEffect =
  | { type: "connect"; sessionId: string }
  | { type: "disconnect" }
  | { type: "send"; text: string }
  | { type: "schedule"; delayMs: number }
  | { type: "cancelSchedule" }
  /** The first message of a connection: start a new snapshot generation. */
  | { type: "connectionStarted"; epoch: string; restart: boolean }
  | { type: "deliver"; message: EventEnvelope }
  | { type: "heartbeat" }
  | { type: "resync"; reason: ResyncReason };

export interface Step {
  state: MachineState;
  effects: MachineEffect[];
}

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/**
 * The delay before reconnect attempt `attempt` (1, 2, ...): exponential (base · 2^(attempt-1), capped at
 * max) with "equal jitter": half of it fixed, half drawn from `random` in [0, 1). Never below base / 2.
 */
export function reconnectDelay(attempt: number, random: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const n = Math.max(1, Math.floor(attempt));
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(n - 1, 30));
  const r = Math.min(Math.max(random, 0), 1);
  return Math.round(ceiling / 2 + (ceiling / 2) * r);
}

export function initialMachineState(sessionId = ""): MachineState {
  return { phase: "stopped", sessionId, attempt: 0, lastSeq: 0, epoch: null, pendingResync: null, retryInMs: null, malformed: 0 };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses one server text into an envelope, or null when it is not one. */
export function decodeEnvelope(text: string): EventEnvelope | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const { type, seq, epoch } = value;
  if (typeof type !== "string" || typeof seq !== "number" || !Number.isInteger(seq) || typeof epoch !== "string") return null;
  return "data" in value ? { type, data: value["data"], seq, epoch } : { type, seq, epoch };
}

function connectNow(state: MachineState, pendingResync: ResyncReason | null): Step {
  return {
    state: { ...state, phase: "connecting", lastSeq: 0, retryInMs: null, pendingResync },
    effects: [{ type: "connect", sessionId: state.sessionId }],
  };
}

function onMessage(state: MachineState, text: string): Step {
  const message = decodeEnvelope(text);
  if (message === null) return { state: { ...state, malformed: state.malformed + 1 }, effects: [] };
  const effects: MachineEffect[] = [];
  let next: MachineState;

  if (state.lastSeq === 0) {
    // First message of this connection.
    const restart = state.epoch !== null && state.epoch !== message.epoch;
    effects.push({ type: "connectionStarted", epoch: message.epoch, restart });
    const reason: ResyncReason | null = restart ? "restart" : message.seq !== 1 ? "gap" : state.pendingResync;
    if (reason !== null) effects.push({ type: "resync", reason });
    next = { ...state, attempt: 0, epoch: message.epoch, lastSeq: message.seq, pendingResync: null };
  } else if (message.epoch !== state.epoch) {
    // Cannot happen on one connection; treat it as a restart seen late.
    effects.push({ type: "connectionStarted", epoch: message.epoch, restart: true }, { type: "resync", reason: "restart" });
    next = { ...state, epoch: message.epoch, lastSeq: message.seq };
  } else if (message.seq !== state.lastSeq + 1) {
    // Missed messages: reopen for a fresh snapshot burst and resync when it starts.
    return {
      state: { ...state, phase: "connecting", lastSeq: 0, pendingResync: "gap" },
      effects: [{ type: "disconnect" }, { type: "connect", sessionId: state.sessionId }],
    };
  } else {
    next = { ...state, lastSeq: message.seq };
  }

  if (message.type === "ping") effects.push({ type: "send", text: PONG_TEXT }, { type: "heartbeat" });
  else effects.push({ type: "deliver", message });
  return { state: next, effects };
}

export function step(state: MachineState, input: MachineInput): Step {
  switch (input.type) {
    case "start":
      if (state.phase !== "stopped") return { state, effects: [] };
      return connectNow({ ...state, sessionId: input.sessionId, attempt: 0 }, state.pendingResync);
    case "focus": {
      if (input.sessionId === state.sessionId) return { state, effects: [] };
      const focused = { ...state, sessionId: input.sessionId };
      if (state.phase === "stopped") return { state: focused, effects: [] };
      const reason = state.pendingResync ?? (state.phase === "open" ? "focus" : null);
      if (state.phase === "backoff") {
        const step = connectNow(focused, reason);
        return { state: step.state, effects: [{ type: "cancelSchedule" }, ...step.effects] };
      }
      const step = connectNow(focused, reason);
      return { state: step.state, effects: [{ type: "disconnect" }, ...step.effects] };
    }
    case "opened":
      if (state.phase !== "connecting") return { state, effects: [] };
      return { state: { ...state, phase: "open" }, effects: [] };
    case "message":
      if (state.phase !== "open") return { state, effects: [] };
      return onMessage(state, input.text);
    case "closed": {
      if (state.phase === "stopped" || state.phase === "backoff") return { state, effects: [] };
      const attempt = state.attempt + 1;
      const delayMs = reconnectDelay(attempt, input.random);
      // A connection that had started (or a resync still owed) must resync after it comes back.
      const pendingResync = state.pendingResync ?? (state.lastSeq > 0 ? "reconnect" : null);
      return {
        state: { ...state, phase: "backoff", attempt, lastSeq: 0, retryInMs: delayMs, pendingResync },
        effects: [{ type: "disconnect" }, { type: "schedule", delayMs }],
      };
    }
    case "retry":
      if (state.phase !== "backoff") return { state, effects: [] };
      return connectNow(state, state.pendingResync);
    case "retryNow":
      if (state.phase !== "backoff") return { state, effects: [] };
      return { state: connectNow(state, state.pendingResync).state, effects: [{ type: "cancelSchedule" }, { type: "connect", sessionId: state.sessionId }] };
    case "stop":
      if (state.phase === "stopped") return { state, effects: [] };
      return {
        state: { ...state, phase: "stopped", lastSeq: 0, retryInMs: null },
        effects: [{ type: "cancelSchedule" }, { type: "disconnect" }],
      };
    default:
      return { state, effects: [] };
  }
}

export type ConnectionStatus = "connected" | "connecting" | "offline";

/** What the status pill shows: an open socket is connected, an attempt in flight connecting, else offline. */
export function connectionStatusOf(state: MachineState): ConnectionStatus {
  if (state.phase === "open") return "connected";
  if (state.phase === "connecting") return "connecting";
  return "offline";
}
