/**
 * Test doubles for the socket drivers (socket-lifecycle.ts's seams, used by events-socket.ts, review-socket.ts and
 * terminal-socket.ts): a socket the test drives and timers that run only when the test fires them.
 */
import type { SocketLike, TimerApi } from "./socket-lifecycle.ts";

/** A socket the test drives: it records what the client sends and whether it was closed. */
export class FakeSocket implements SocketLike {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly sent: string[] = [];
  closed = false;
  constructor(readonly url: string) {}
  send(text: string): void {
    this.sent.push(text);
  }
  close(): void {
    this.closed = true;
  }
  open(): void {
    this.onopen?.({});
  }
  receive(value: unknown): void {
    this.onmessage?.({ data: typeof value === "string" ? value : JSON.stringify(value) });
  }
  drop(): void {
    this.onclose?.({});
  }
}

/** A socket factory for a driver under test: every socket it makes is kept in `sockets`; `last()` is the newest. */
export function fakeSockets<Socket extends FakeSocket = FakeSocket>(
  make: (url: string) => Socket = (url) => new FakeSocket(url) as Socket,
) {
  const sockets: Socket[] = [];
  const createSocket = (url: string): Socket => {
    const socket = make(url);
    sockets.push(socket);
    return socket;
  };
  return { sockets, createSocket, last: () => sockets.at(-1) as Socket };
}

/** Timers that run only when the test fires them (a fake clock for backoff and silence timers). */
export class ManualTimers implements TimerApi {
  private next = 1;
  readonly pending = new Map<number, { callback: () => void; ms: number }>();
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { callback, ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** The delays of the timers waiting now. */
  delays(): number[] {
    return [...this.pending.values()].map((timer) => timer.ms);
  }
  /** Runs the waiting timers of `ms`. */
  fire(ms: number): void {
    for (const [id, timer] of [...this.pending]) {
      if (timer.ms !== ms) continue;
      this.pending.delete(id);
      timer.callback();
    }
  }
  /** Runs every waiting timer. */
  fireAll(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const timer of due) timer.callback();
  }
}
