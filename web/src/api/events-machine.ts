/**
 * The events connection as a pure state machine (WS /api/pi/events; the protocol is domain/live/live-messages.ts).
 * `step(state, input)` returns the next state and the effects the driver (events-socket.ts) performs: open or
 * close the socket, send a text, schedule a reconnect, deliver a message, start a fresh stream generation.
 *
 * One connection carries one *stream*: numbered messages (seq 1, 2, …) that outlive the socket for a while. The
 * machine keeps the stream id and the last seq it applied across connections, so that after a drop it asks to
 * resume (`?stream=<id>&after=<applied>`) and receives exactly what it missed.
 *
 * Rules:
 * - The first message of a connection is `hello` (seq 0, with the server run's `epoch`; later messages carry only
 *   their seq): `{ stream, resumed, latestSeq }`. Resumed (the stream
 *   asked for, same epoch): numbering continues after the applied seq, and the client is `latestSeq - applied`
 *   messages behind (`behindOf`, falling to 0 as the missed messages are applied). Otherwise the stream is fresh
 *   (`freshStream` effect: everything derived from the old stream is thrown away and snapshots follow). A numbered
 *   message before `hello` is a protocol error: the socket is dropped and the next connection starts fresh.
 * - Seq continuity is checked against the last applied seq: `applied + 1` is applied; a seq at or below it was
 *   applied already and is skipped (counted); a seq beyond it is a gap: the socket is dropped and reopened after
 *   the backoff asking to resume after the applied seq (the server replays, or starts a fresh stream when it
 *   cannot).
 * - A new `epoch` (the server restarted) never resumes: a fresh generation flagged `restart`. An epoch change on
 *   one connection is a protocol error (reopened fresh).
 * - Heartbeat: `{"type":"ping"}` (numbered like every message) is answered with exactly `{"type":"pong"}`.
 * - Focus: `focus(sessionId)` on a greeted socket sends `{"type":"focus","sessionId":…}` instead of
 *   reconnecting; otherwise it is remembered: the next connect URL carries it (`?sessionId=`), and a focus that
 *   changed while connecting is sent after the hello. `focus(sessionId, true)` also asks for that session's
 *   snapshot: a focus change brings one; for the focus the server has already, the same focus is sent again (the
 *   server answers a repeated focus with a fresh snapshot). A snapshot owed across a resume is asked for that way too.
 * - A closed or failed socket is reopened after an exponential backoff with jitter (`reconnectDelay`); the
 *   attempt count resets when a connection delivers its `hello`.
 *
 * No clock and no randomness: the jitter arrives with the `closed` input.
 */
import { PONG_TEXT, UNNUMBERED_SEQ, type HelloData } from "../../../domain/live/live-messages.ts";
import { isRecord } from "../../../domain/transcript/message-content.ts";
import { parseJsonObject } from "./json-object.ts";

export { PONG_TEXT };

/** A client message larger than this closes the socket (the server's limit). */
export const CLIENT_MESSAGE_LIMIT_BYTES = 1024;

/** A decoded server message: `{ type, data?, seq }`, and the server run's `epoch` on `hello`. */
export interface EventEnvelope {
  type: string;
  data?: unknown;
  seq: number;
  epoch?: string;
}

/** Why a connection started a fresh stream. */
export type FreshReason =
  /** There was no stream to resume (the first connection, or one after a protocol error). */
  | "start"
  /** The stream could not be resumed (expired, ended as a slow reader, too far behind, attached elsewhere). */
  | "not-resumed"
  /** The server restarted (a new epoch). */
  | "restart";

export type MachinePhase = "stopped" | "connecting" | "open" | "backoff";

export interface ResumePoint {
  stream: string;
  after: number;
}

export interface MachineState {
  phase: MachinePhase;
  /** The focus the client wants: "" selects no session. */
  sessionId: string;
  /** The focus the server has on the current connection (its URL, then focus messages); null without one. */
  serverFocus: string | null;
  /** Failed attempts since the last connection that said hello. */
  attempt: number;
  /** The stream to resume, or null (the next connection starts a fresh one). */
  stream: string | null;
  /** The last seq applied on `stream` (0 before its first numbered message). */
  applied: number;
  /** The server run last seen, or null before the first hello. */
  epoch: string | null;
  /** The current connection delivered its hello. */
  greeted: boolean;
  /** A resumed connection's `latestSeq` (what it has to replay); 0 on a fresh stream. */
  latestSeq: number;
  /** A snapshot of the focused session is owed (asked for while the server could not be told yet). */
  snapshotOwed: boolean;
  /** Fresh streams started so far. */
  generation: number;
  /** Milliseconds until the scheduled reconnect (phase backoff). */
  retryInMs: number | null;
  /** Messages that were not envelopes (ignored, counted). */
  malformed: number;
  /** Numbered messages at or below the applied seq (skipped, counted). */
  duplicates: number;
}

export type MachineInput =
  | { type: "start"; sessionId: string }
  /** Focus a session ("" none); `snapshot`: its snapshot is wanted even when the focus does not change. */
  | { type: "focus"; sessionId: string; snapshot?: boolean }
  | { type: "opened" }
  /** A server text; `random` in [0, 1) draws the jitter when it makes the machine back off (default 0.5). */
  | { type: "message"; text: string; random?: number }
  /** The socket closed or failed (also: no message for too long). `random` in [0, 1) draws the jitter. */
  | { type: "closed"; random: number }
  /** The backoff timer fired. */
  | { type: "retry" }
  /** Reconnect now (user asked), skipping the rest of the backoff. */
  | { type: "retryNow" }
  | { type: "stop" };

export type MachineEffect =
  /** Open a socket: `?sessionId=<sessionId>`, and `&stream=…&after=…` to resume. */
  | { type: "connect"; sessionId: string; resume: ResumePoint | null }
  | { type: "disconnect" }
  | { type: "send"; text: string }
  | { type: "schedule"; delayMs: number }
  | { type: "cancelSchedule" }
  /** A fresh stream: drop what the old one built; snapshots follow. */
  | { type: "freshStream"; epoch: string; reason: FreshReason }
  /** The stream continues: `latestSeq - after` missed messages follow. */
  | { type: "resumed"; after: number; latestSeq: number }
  | { type: "deliver"; message: EventEnvelope }
  | { type: "heartbeat" };

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
  return {
    phase: "stopped",
    sessionId,
    serverFocus: null,
    attempt: 0,
    stream: null,
    applied: 0,
    epoch: null,
    greeted: false,
    latestSeq: 0,
    snapshotOwed: false,
    generation: 0,
    retryInMs: null,
    malformed: 0,
    duplicates: 0,
  };
}

/** Parses one server text into an envelope, or null when it is not one. */
export function decodeEnvelope(text: string): EventEnvelope | null {
  const value = parseJsonObject(text);
  if (value === null) return null;
  const { type, seq, epoch } = value;
  if (typeof type !== "string" || typeof seq !== "number" || !Number.isInteger(seq) || seq < 0) return null;
  if (epoch !== undefined && typeof epoch !== "string") return null;
  const envelope: EventEnvelope = "data" in value ? { type, data: value["data"], seq } : { type, seq };
  if (epoch !== undefined) envelope.epoch = epoch;
  return envelope;
}

/** The data of a hello message, or null when it is not one. */
function helloOf(message: EventEnvelope): HelloData | null {
  if (message.type !== "hello" || message.seq !== UNNUMBERED_SEQ || !isRecord(message.data)) return null;
  const { stream, resumed, latestSeq } = message.data;
  if (typeof stream !== "string" || stream === "" || typeof resumed !== "boolean") return null;
  if (typeof latestSeq !== "number" || !Number.isInteger(latestSeq) || latestSeq < 0) return null;
  return { stream, resumed, latestSeq };
}

/** The text of a focus message. */
export function focusText(sessionId: string): string {
  return JSON.stringify({ type: "focus", sessionId });
}

/** How many missed messages a resumed stream still has to replay (0 when caught up, fresh or not open). */
export function behindOf(state: MachineState): number {
  if (state.phase !== "open" || !state.greeted) return 0;
  return Math.max(0, state.latestSeq - state.applied);
}

function resumePointOf(state: MachineState): ResumePoint | null {
  return state.stream === null ? null : { stream: state.stream, after: state.applied };
}

function connectNow(state: MachineState): Step {
  return {
    state: { ...state, phase: "connecting", serverFocus: state.sessionId, greeted: false, latestSeq: 0, retryInMs: null },
    effects: [{ type: "connect", sessionId: state.sessionId, resume: resumePointOf(state) }],
  };
}

/** Drops the socket and reconnects after the backoff (a failure, or a protocol error when `forget`). */
function backOff(state: MachineState, random: number, forget = false): Step {
  const attempt = state.attempt + 1;
  const delayMs = reconnectDelay(attempt, random);
  return {
    state: {
      ...state,
      phase: "backoff",
      attempt,
      serverFocus: null,
      greeted: false,
      latestSeq: 0,
      retryInMs: delayMs,
      ...(forget ? { stream: null, applied: 0 } : {}),
    },
    effects: [{ type: "disconnect" }, { type: "schedule", delayMs }],
  };
}

/** The focus message that makes the server send the focused session's snapshot again (the same focus, again). */
function resnapshotTexts(sessionId: string): MachineEffect[] {
  return [{ type: "send", text: focusText(sessionId) }];
}

/**
 * Tells the server what it does not know yet (the socket is open and greeted): a changed focus (which brings
 * its snapshot), else an owed snapshot. A focus too large for a message reconnects with it in the URL instead.
 */
function syncFocus(state: MachineState): Step {
  if (state.serverFocus !== state.sessionId) {
    const text = focusText(state.sessionId);
    if (new TextEncoder().encode(text).length > CLIENT_MESSAGE_LIMIT_BYTES) {
      const reopened = connectNow(state);
      return { state: reopened.state, effects: [{ type: "disconnect" }, ...reopened.effects] };
    }
    return { state: { ...state, serverFocus: state.sessionId, snapshotOwed: false }, effects: [{ type: "send", text }] };
  }
  if (state.snapshotOwed && state.sessionId !== "")
    return { state: { ...state, snapshotOwed: false }, effects: resnapshotTexts(state.sessionId) };
  return { state: { ...state, snapshotOwed: false }, effects: [] };
}

function onHello(state: MachineState, epoch: string, hello: HelloData): Step {
  const restart = state.epoch !== null && state.epoch !== epoch;
  const greeted: MachineState = { ...state, greeted: true, attempt: 0, epoch };
  if (hello.resumed && !restart && state.stream !== null && hello.stream === state.stream) {
    // The server refocused to the URL's focus if it had another; whether that brought a snapshot is not known
    // here, so an owed one is asked for (an extra snapshot is harmless, a missing one is not).
    const synced = syncFocus({ ...greeted, latestSeq: hello.latestSeq });
    return { state: synced.state, effects: [{ type: "resumed", after: state.applied, latestSeq: hello.latestSeq }, ...synced.effects] };
  }
  const reason: FreshReason = restart ? "restart" : state.stream === null ? "start" : "not-resumed";
  // A fresh stream sends the URL focus's snapshot: an owed one is settled; a focus changed since is sent now.
  const fresh: MachineState = {
    ...greeted,
    stream: hello.stream,
    applied: 0,
    latestSeq: 0,
    snapshotOwed: false,
    generation: state.generation + 1,
  };
  const synced = syncFocus(fresh);
  return { state: synced.state, effects: [{ type: "freshStream", epoch, reason }, ...synced.effects] };
}

function onMessage(state: MachineState, text: string, random: number): Step {
  const message = decodeEnvelope(text);
  if (message === null) return { state: { ...state, malformed: state.malformed + 1 }, effects: [] };

  if (!state.greeted) {
    const hello = helloOf(message);
    // Anything else first breaks the protocol: start over with a fresh stream, after the backoff.
    if (hello === null || message.epoch === undefined) return backOff(state, random, true);
    return onHello(state, message.epoch, hello);
  }
  // Only `hello` names the epoch; another one on the same connection cannot happen: start over fresh.
  if (message.epoch !== undefined && message.epoch !== state.epoch) return backOff(state, random, true);
  if (message.seq <= state.applied) return { state: { ...state, duplicates: state.duplicates + 1 }, effects: [] };
  // Missed messages: reconnect asking to resume after the last one applied. After the (first, short) backoff,
  // so that the server has seen this socket close: a stream still attached to a socket cannot be resumed.
  if (message.seq !== state.applied + 1) return backOff(state, random);
  const next: MachineState = { ...state, applied: message.seq };
  if (message.type === "ping") return { state: next, effects: [{ type: "send", text: PONG_TEXT }, { type: "heartbeat" }] };
  return { state: next, effects: [{ type: "deliver", message }] };
}

export function step(state: MachineState, input: MachineInput): Step {
  switch (input.type) {
    case "start":
      if (state.phase !== "stopped") return { state, effects: [] };
      return connectNow({ ...state, sessionId: input.sessionId, attempt: 0 });
    case "focus": {
      const snapshot = input.snapshot === true && input.sessionId !== "";
      if (input.sessionId === state.sessionId && !snapshot) return { state, effects: [] };
      // A changed focus brings its own snapshot: an owed one for the previous focus is moot.
      const owed = snapshot || (input.sessionId === state.sessionId && state.snapshotOwed);
      const focused: MachineState = { ...state, sessionId: input.sessionId, snapshotOwed: owed };
      // Before the hello, the hello syncs it; without a socket, the next URL carries it.
      if (state.phase !== "open" || !state.greeted) return { state: focused, effects: [] };
      return syncFocus(focused);
    }
    case "opened":
      if (state.phase !== "connecting") return { state, effects: [] };
      return { state: { ...state, phase: "open" }, effects: [] };
    case "message":
      if (state.phase !== "open") return { state, effects: [] };
      return onMessage(state, input.text, input.random ?? 0.5);
    case "closed":
      if (state.phase === "stopped" || state.phase === "backoff") return { state, effects: [] };
      return backOff(state, input.random);
    case "retry":
      if (state.phase !== "backoff") return { state, effects: [] };
      return connectNow(state);
    case "retryNow": {
      if (state.phase !== "backoff") return { state, effects: [] };
      const now = connectNow(state);
      return { state: now.state, effects: [{ type: "cancelSchedule" }, ...now.effects] };
    }
    case "stop":
      if (state.phase === "stopped") return { state, effects: [] };
      return {
        state: { ...state, phase: "stopped", serverFocus: null, greeted: false, latestSeq: 0, retryInMs: null },
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
