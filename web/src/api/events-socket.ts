/**
 * The WS /api/pi/events client: drives the pure machine of events-machine.ts with a real WebSocket and
 * timers. Everything that decides (hello, resume, seq continuity, epochs, focus, backoff) is in the machine;
 * this file only performs its effects and feeds socket callbacks back in. The socket plumbing is
 * socket-lifecycle.ts's: sockets from earlier attempts are ignored when they report late; a connection that stays
 * silent for `silenceMs` (a missed heartbeat: the server pings every 30 s) is treated as closed; inputs that
 * arrive while effects run (a handler that focuses) are fed after them, in order.
 *
 * Trace notices (`trace_updated`, `trace_config`) are not runtime messages: they go to the trace listeners
 * (`onTraceSignals`, the traces store) instead of `onMessage`, so they never enter the runtime stores, the events
 * log or the transcript. A stream after the first and every resume is passed to them too (`reconnected`: notices
 * may have been missed); the socket's first stream is `live` (nothing was missed on this socket: only reads
 * answered before it began may be behind), so a view mounted with the app does not read everything twice.
 */
import { EVENTS_PATH } from "../../../domain/live/live-messages.ts";
import {
  behindOf,
  connectionStatusOf,
  initialMachineState,
  step,
  type ConnectionStatus,
  type EventEnvelope,
  type FreshReason,
  type MachineEffect,
  type MachineInput,
  type MachineState,
  type ResumePoint,
} from "./events-machine.ts";
import {
  browserSocket,
  browserTimers,
  HEARTBEAT_SILENCE_MS,
  liveSocket,
  serialFeed,
  socketUrl,
  timerSlot,
  type LiveSocket,
  type SocketFactory,
  type SocketLike,
  type TimerApi,
  type TimerSlot,
} from "./socket-lifecycle.ts";
import { TRACE_MESSAGE_TYPES, traceSignalOf, type TraceSignal } from "./traces.ts";

export { EVENTS_PATH };
export type { SocketFactory, SocketLike, TimerApi };

export interface EventsSocketOptions {
  /** ws:// or wss:// origin of the backend (no path). */
  wsBase: string;
  createSocket?: SocketFactory;
  timers?: TimerApi;
  random?: () => number;
  silenceMs?: number;
  onMessage(message: EventEnvelope): void;
  /** A fresh stream started: drop what the previous one built (snapshots follow). */
  onFreshStream?(info: { epoch: string; reason: FreshReason }): void;
  /** The stream was resumed: `latestSeq - after` missed messages follow. */
  onResumed?(info: { epoch: string; after: number; latestSeq: number }): void;
  /** The status, attempt, retry delay or `behind` count changed. */
  onStatus?(status: ConnectionStatus, state: MachineState): void;
  onHeartbeat?(): void;
}

/** The events socket URL: `?sessionId=` (empty selects none), and the stream to resume with the last seq applied. */
export function eventsUrl(wsBase: string, sessionId: string, resume: ResumePoint | null = null): string {
  const query = new URLSearchParams({ sessionId });
  if (resume !== null) {
    query.set("stream", resume.stream);
    query.set("after", String(resume.after));
  }
  return socketUrl(wsBase, EVENTS_PATH, query);
}

type TraceSignalListener = (signal: TraceSignal) => void;
const traceListeners = new Set<TraceSignalListener>();

/** Listens to the trace notices of every events socket (and their reconnects); returns the unsubscribe. */
export function onTraceSignals(listener: TraceSignalListener): () => void {
  traceListeners.add(listener);
  return () => {
    traceListeners.delete(listener);
  };
}

function emitTraceSignal(signal: TraceSignal): void {
  for (const listener of [...traceListeners]) listener(signal);
}

export class EventsSocket {
  private state: MachineState = initialMachineState();
  private readonly socket: LiveSocket;
  private readonly retry: TimerSlot;
  private readonly random: () => number;
  private readonly feed = serialFeed<MachineInput>((input) => this.apply(input));
  /** A stream has begun on this socket (its first fresh stream is `live` to trace listeners, later ones `reconnected`). */
  private streamed = false;

  constructor(private readonly options: EventsSocketOptions) {
    const timers = options.timers ?? browserTimers;
    this.random = options.random ?? Math.random;
    this.retry = timerSlot(timers);
    this.socket = liveSocket({
      createSocket: options.createSocket ?? browserSocket,
      timers,
      silenceMs: options.silenceMs ?? HEARTBEAT_SILENCE_MS,
      onOpened: () => this.feed({ type: "opened" }),
      onText: (text) => this.feed({ type: "message", text, random: this.random() }),
      onClosed: () => this.feed({ type: "closed", random: this.random() }),
    });
  }

  get machine(): MachineState {
    return this.state;
  }

  get status(): ConnectionStatus {
    return connectionStatusOf(this.state);
  }

  get behind(): number {
    return behindOf(this.state);
  }

  start(sessionId: string): void {
    this.feed({ type: "start", sessionId });
  }

  /** Focuses a session; `snapshot`: its snapshot is wanted even if it is focused already. */
  focus(sessionId: string, snapshot = false): void {
    this.feed({ type: "focus", sessionId, snapshot });
  }

  retryNow(): void {
    this.feed({ type: "retryNow" });
  }

  stop(): void {
    this.feed({ type: "stop" });
  }

  private apply(input: MachineInput): void {
    const before = this.state;
    const { state, effects } = step(this.state, input);
    this.state = state;
    for (const effect of effects) this.perform(effect);
    if (
      connectionStatusOf(before) !== connectionStatusOf(state) ||
      before.retryInMs !== state.retryInMs ||
      before.attempt !== state.attempt ||
      behindOf(before) !== behindOf(state)
    ) {
      this.options.onStatus?.(connectionStatusOf(state), state);
    }
  }

  /** Runtime messages to `onMessage`; trace notices to the trace listeners only (a malformed one is dropped). */
  private deliver(message: EventEnvelope): void {
    if (!TRACE_MESSAGE_TYPES.has(message.type)) {
      this.options.onMessage(message);
      return;
    }
    const signal = traceSignalOf(message);
    if (signal !== null) emitTraceSignal(signal);
  }

  private perform(effect: MachineEffect): void {
    switch (effect.type) {
      case "connect":
        this.socket.open(eventsUrl(this.options.wsBase, effect.sessionId, effect.resume));
        return;
      case "disconnect":
        this.socket.drop();
        return;
      case "send":
        this.socket.send(effect.text);
        return;
      case "schedule":
        this.retry.set(effect.delayMs, () => this.feed({ type: "retry" }));
        return;
      case "cancelSchedule":
        this.retry.clear();
        return;
      case "freshStream":
        this.options.onFreshStream?.({ epoch: effect.epoch, reason: effect.reason });
        emitTraceSignal({ kind: this.streamed ? "reconnected" : "live" });
        this.streamed = true;
        return;
      case "resumed":
        this.options.onResumed?.({ epoch: this.state.epoch ?? "", after: effect.after, latestSeq: effect.latestSeq });
        emitTraceSignal({ kind: "reconnected" });
        return;
      case "deliver":
        this.deliver(effect.message);
        return;
      case "heartbeat":
        this.options.onHeartbeat?.();
        return;
      default:
        return;
    }
  }
}
