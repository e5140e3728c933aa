/**
 * The WS /api/pi/events client: drives the pure machine of events-machine.ts with a real WebSocket and
 * timers. Everything that decides (hello, resume, seq continuity, epochs, focus, backoff) is in the machine;
 * this file only performs its effects and feeds socket callbacks back in. Sockets from earlier attempts are
 * ignored when they report late. A connection that stays silent for `silenceMs` (a missed heartbeat: the server
 * pings every 30 s) is treated as closed. Inputs that arrive while effects run (a handler that focuses) are
 * fed after them, in order.
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

export { EVENTS_PATH };
/** Two and a half heartbeat periods without any message: the connection is gone. */
export const DEFAULT_SILENCE_MS = 75_000;

/** The part of the browser WebSocket the client uses (the `ws` package's WebSocket fits too). */
export interface SocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(text: string): void;
  close(code?: number, reason?: string): void;
}

export type SocketFactory = (url: string) => SocketLike;

export interface TimerApi {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

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
  return `${wsBase.replace(/\/+$/, "")}${EVENTS_PATH}?${query.toString()}`;
}

/** ws(s)://host of an http(s) origin ("" = the page's location). */
export function wsBaseOf(httpBase: string, location: { protocol: string; host: string } | null): string {
  if (httpBase !== "") return httpBase.replace(/^http/, "ws").replace(/\/+$/, "");
  if (location === null) return "ws://127.0.0.1";
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}`;
}

function textOf(data: unknown): string | null {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(data);
  return null;
}

const browserTimers: TimerApi = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

export class EventsSocket {
  private state: MachineState = initialMachineState();
  private socket: SocketLike | null = null;
  private retryTimer: unknown = null;
  private silenceTimer: unknown = null;
  private readonly timers: TimerApi;
  private readonly createSocket: SocketFactory;
  private readonly random: () => number;
  private feeding = false;
  private readonly inbox: MachineInput[] = [];

  constructor(private readonly options: EventsSocketOptions) {
    this.timers = options.timers ?? browserTimers;
    this.random = options.random ?? Math.random;
    this.createSocket =
      options.createSocket ??
      ((url) => {
        const socket = new WebSocket(url);
        return socket as unknown as SocketLike;
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

  private feed(input: MachineInput): void {
    this.inbox.push(input);
    if (this.feeding) return;
    this.feeding = true;
    try {
      for (let next = this.inbox.shift(); next !== undefined; next = this.inbox.shift()) this.apply(next);
    } finally {
      this.feeding = false;
      this.inbox.length = 0;
    }
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

  private perform(effect: MachineEffect): void {
    switch (effect.type) {
      case "connect":
        this.open(eventsUrl(this.options.wsBase, effect.sessionId, effect.resume));
        return;
      case "disconnect":
        this.drop();
        return;
      case "send":
        try {
          this.socket?.send(effect.text);
        } catch {
          // The socket is closing; its close callback follows.
        }
        return;
      case "schedule":
        this.clearRetry();
        this.retryTimer = this.timers.setTimeout(() => {
          this.retryTimer = null;
          this.feed({ type: "retry" });
        }, effect.delayMs);
        return;
      case "cancelSchedule":
        this.clearRetry();
        return;
      case "freshStream":
        this.options.onFreshStream?.({ epoch: effect.epoch, reason: effect.reason });
        return;
      case "resumed":
        this.options.onResumed?.({ epoch: this.state.epoch ?? "", after: effect.after, latestSeq: effect.latestSeq });
        return;
      case "deliver":
        this.options.onMessage(effect.message);
        return;
      case "heartbeat":
        this.options.onHeartbeat?.();
        return;
      default:
        return;
    }
  }

  private open(url: string): void {
    this.drop();
    let socket: SocketLike;
    try {
      socket = this.createSocket(url);
    } catch {
      this.feed({ type: "closed", random: this.random() });
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.armSilence();
      this.feed({ type: "opened" });
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      const text = textOf(event.data);
      if (text === null) return;
      this.armSilence();
      this.feed({ type: "message", text, random: this.random() });
    };
    const lost = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.clearSilence();
      this.feed({ type: "closed", random: this.random() });
    };
    socket.onclose = lost;
    socket.onerror = lost;
  }

  /** Closes the current socket (its late callbacks are ignored). */
  private drop(): void {
    this.clearSilence();
    const socket = this.socket;
    this.socket = null;
    if (socket === null) return;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    // Closing a socket that is still connecting reports an error later; it is expected and ignored.
    socket.onerror = () => undefined;
    try {
      socket.close(1000, "client closed");
    } catch {
      // Already closed or never opened.
    }
  }

  private armSilence(): void {
    this.clearSilence();
    const silenceMs = this.options.silenceMs ?? DEFAULT_SILENCE_MS;
    if (silenceMs <= 0) return;
    const socket = this.socket;
    this.silenceTimer = this.timers.setTimeout(() => {
      this.silenceTimer = null;
      if (this.socket !== socket || socket === null) return;
      this.socket = null;
      try {
        socket.close(4000, "no heartbeat");
      } catch {
        // ignore
      }
      this.feed({ type: "closed", random: this.random() });
    }, silenceMs);
  }

  private clearSilence(): void {
    if (this.silenceTimer !== null) this.timers.clearTimeout(this.silenceTimer);
    this.silenceTimer = null;
  }

  private clearRetry(): void {
    if (this.retryTimer !== null) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }
}
