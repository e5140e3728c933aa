/**
 * The review subscription of one folder: drives the pure machine of review-socket-machine.ts with a real
 * WebSocket (WS /api/pi/review/events?cwd=), timers and the status fetch the caller supplies. Everything that
 * decides (when to fetch, coalescing, backoff, unavailable, heartbeat replies) is in the machine; this file only
 * performs its effects and feeds socket callbacks and finished fetches back in. Sockets from earlier attempts
 * are ignored when they report late. A socket silent for `silenceMs` (the server pings every 30 s) counts as
 * closed. Inputs that arrive while effects run are fed after them, in order.
 */
import type { SocketFactory, SocketLike, TimerApi } from "./events-socket.ts";
import {
  initialReviewSocketState,
  REVIEW_EVENTS_PATH,
  reviewLinkOf,
  step,
  type ReviewLink,
  type ReviewSocketEffect,
  type ReviewSocketInput,
  type ReviewSocketState,
} from "./review-socket-machine.ts";

export type { SocketFactory, SocketLike, TimerApi };

/** Two and a half heartbeat periods without any message: the connection is gone. */
export const REVIEW_SILENCE_MS = 75_000;

export interface ReviewSocketOptions {
  /** ws:// or wss:// origin of the backend (no path). */
  wsBase: string;
  /** Fetches the status of `cwd`; resolves with whether the folder is a repository, or null when it failed. */
  fetchStatus(cwd: string): Promise<boolean | null>;
  createSocket?: SocketFactory;
  timers?: TimerApi;
  silenceMs?: number;
  /** The link or the watcher error changed. */
  onState?(link: ReviewLink, state: ReviewSocketState): void;
}

/** The review events URL of a folder. */
export function reviewEventsUrl(wsBase: string, cwd: string): string {
  return `${wsBase.replace(/\/+$/, "")}${REVIEW_EVENTS_PATH}?${new URLSearchParams({ cwd }).toString()}`;
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

export class ReviewSocket {
  private state: ReviewSocketState = initialReviewSocketState();
  private socket: SocketLike | null = null;
  private retryTimer: unknown = null;
  private silenceTimer: unknown = null;
  private readonly timers: TimerApi;
  private readonly createSocket: SocketFactory;
  private feeding = false;
  private readonly inbox: ReviewSocketInput[] = [];

  constructor(private readonly options: ReviewSocketOptions) {
    this.timers = options.timers ?? browserTimers;
    this.createSocket = options.createSocket ?? ((url) => new WebSocket(url) as unknown as SocketLike);
  }

  get machine(): ReviewSocketState {
    return this.state;
  }

  get link(): ReviewLink {
    return reviewLinkOf(this.state);
  }

  start(cwd: string, watch: boolean): void {
    this.feed({ type: "start", cwd, watch });
  }

  moveTo(cwd: string): void {
    this.feed({ type: "cwd", cwd });
  }

  refresh(): void {
    this.feed({ type: "refresh" });
  }

  stop(): void {
    this.feed({ type: "stop" });
  }

  private feed(input: ReviewSocketInput): void {
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

  private apply(input: ReviewSocketInput): void {
    const before = this.state;
    const { state, effects } = step(this.state, input);
    this.state = state;
    for (const effect of effects) this.perform(effect);
    if (reviewLinkOf(before) !== reviewLinkOf(state) || before.watchError !== state.watchError) {
      this.options.onState?.(reviewLinkOf(state), state);
    }
  }

  private perform(effect: ReviewSocketEffect): void {
    switch (effect.type) {
      case "connect":
        this.open(reviewEventsUrl(this.options.wsBase, effect.cwd));
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
      case "fetch":
        void this.fetch(effect.cwd);
        return;
      default:
        return;
    }
  }

  private async fetch(cwd: string): Promise<void> {
    let available: boolean | null;
    try {
      available = await this.options.fetchStatus(cwd);
    } catch {
      available = null;
    }
    this.feed(available === null ? { type: "fetched" } : { type: "fetched", available });
  }

  private open(url: string): void {
    this.drop();
    let socket: SocketLike;
    try {
      socket = this.createSocket(url);
    } catch {
      this.feed({ type: "closed" });
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
      this.feed({ type: "message", text });
    };
    const lost = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.clearSilence();
      this.feed({ type: "closed" });
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
    socket.onerror = () => undefined;
    try {
      socket.close(1000, "client closed");
    } catch {
      // Already closed or never opened.
    }
  }

  private armSilence(): void {
    this.clearSilence();
    const silenceMs = this.options.silenceMs ?? REVIEW_SILENCE_MS;
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
      this.feed({ type: "closed" });
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
