/**
 * The review subscription of one folder: drives the pure machine of review-socket-machine.ts with a real
 * WebSocket (WS /api/pi/review/events?cwd=), timers and the status fetch the caller supplies. Everything that
 * decides (when to fetch, coalescing, backoff, unavailable, heartbeat replies) is in the machine; this file only
 * performs its effects and feeds socket callbacks and finished fetches back in. The socket plumbing is
 * socket-lifecycle.ts's: sockets from earlier attempts are ignored when they report late; a socket silent for
 * `silenceMs` (the server pings every 30 s) counts as closed; inputs that arrive while effects run are fed after
 * them, in order.
 */
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

export type { SocketFactory, SocketLike, TimerApi };

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
  return socketUrl(wsBase, REVIEW_EVENTS_PATH, new URLSearchParams({ cwd }));
}

export class ReviewSocket {
  private state: ReviewSocketState = initialReviewSocketState();
  private readonly socket: LiveSocket;
  private readonly retry: TimerSlot;
  private readonly feed = serialFeed<ReviewSocketInput>((input) => this.apply(input));

  constructor(private readonly options: ReviewSocketOptions) {
    const timers = options.timers ?? browserTimers;
    this.retry = timerSlot(timers);
    this.socket = liveSocket({
      createSocket: options.createSocket ?? browserSocket,
      timers,
      silenceMs: options.silenceMs ?? HEARTBEAT_SILENCE_MS,
      onOpened: () => this.feed({ type: "opened" }),
      onText: (text) => this.feed({ type: "message", text }),
      onClosed: () => this.feed({ type: "closed" }),
    });
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
        this.socket.open(reviewEventsUrl(this.options.wsBase, effect.cwd));
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
}
