/**
 * The WebSocket plumbing the socket drivers share (events-socket.ts, review-socket.ts, terminal-socket.ts): the
 * socket and timer seams tests replace, the backend's ws origin and socket URLs, the serial input loop, one-shot
 * timers, and `liveSocket`, which holds a driver's current socket. Nothing here decides: each driver's pure
 * machine does, and the driver turns the callbacks below into machine inputs and performs the machine's effects.
 *
 * Rules `liveSocket` keeps:
 * - One socket at a time. A socket that is replaced or dropped is detached (its handlers removed, the error a
 *   still-connecting socket reports on close ignored) and closed with 1000 "client closed"; whatever an earlier
 *   socket still reports is ignored.
 * - With a silence limit, a socket that stays silent that long after it opened or after its last message (a
 *   missed heartbeat) is closed with 4000 "no heartbeat" and reported closed.
 * - A socket that cannot be created is reported closed at once; sending on a closing socket is not an error (its
 *   close callback follows).
 */
import { apiBase } from "./http.ts";

/** Two and a half heartbeat periods without any message (the server pings every 30 s): the connection is gone. */
export const HEARTBEAT_SILENCE_MS = 75_000;

/** The part of the browser WebSocket the drivers use (the `ws` package's WebSocket fits too). */
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

export const browserTimers: TimerApi = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

export const browserSocket: SocketFactory = (url) => new WebSocket(url) as unknown as SocketLike;

/** ws(s)://host of an http(s) origin ("" = the page's location). */
export function wsBaseOf(httpBase: string, location: { protocol: string; host: string } | null): string {
  if (httpBase !== "") return httpBase.replace(/^http/, "ws").replace(/\/+$/, "");
  if (location === null) return "ws://127.0.0.1";
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}`;
}

/** ws(s)://host of the backend: the API base when one is set, else the page's own origin. */
export function pageWsBase(): string {
  return wsBaseOf(apiBase(), globalThis.location ?? null);
}

/** The URL of a socket route: `path?query` under a ws(s) origin (trailing slashes of the origin dropped). */
export function socketUrl(wsBase: string, path: string, query: URLSearchParams): string {
  return `${wsBase.replace(/\/+$/, "")}${path}?${query.toString()}`;
}

/** The text of a socket message (binary frames decoded as UTF-8), or null when it is neither. */
export function messageText(data: unknown): string | null {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(data);
  return null;
}

/**
 * Applies a driver's inputs one at a time: an input that arrives while another is applied (a callback that feeds
 * again) is applied after it, in order. When applying throws, the inputs still waiting are dropped.
 */
export function serialFeed<Input>(apply: (input: Input) => void): (input: Input) => void {
  const inbox: Input[] = [];
  let feeding = false;
  return (input) => {
    inbox.push(input);
    if (feeding) return;
    feeding = true;
    try {
      for (let next = inbox.shift(); next !== undefined; next = inbox.shift()) apply(next);
    } finally {
      feeding = false;
      inbox.length = 0;
    }
  };
}

/** One timer at a time: setting it again replaces the one waiting. */
export interface TimerSlot {
  set(ms: number, callback: () => void): void;
  clear(): void;
}

export function timerSlot(timers: TimerApi): TimerSlot {
  let handle: unknown = null;
  const clear = () => {
    if (handle !== null) timers.clearTimeout(handle);
    handle = null;
  };
  return {
    set(ms, callback) {
      clear();
      handle = timers.setTimeout(() => {
        handle = null;
        callback();
      }, ms);
    },
    clear,
  };
}

export interface LiveSocketOptions {
  createSocket: SocketFactory;
  timers: TimerApi;
  /** Milliseconds without a message after which the socket counts as closed; 0 or less: no limit. */
  silenceMs?: number;
  /** The current socket opened. */
  onOpened?(): void;
  /** The current socket received a text. */
  onText(text: string): void;
  /** The current socket closed, failed, fell silent or could not be created. */
  onClosed(): void;
}

/** A driver's current socket (see the module comment for its rules). */
export interface LiveSocket {
  /** Drops the current socket and opens one to `url`. */
  open(url: string): void;
  send(text: string): void;
  /** Closes the current socket; its handlers are removed, so its late callbacks are never heard. */
  drop(): void;
}

export function liveSocket(options: LiveSocketOptions): LiveSocket {
  const { createSocket, silenceMs = 0, onOpened, onText, onClosed } = options;
  const silence = timerSlot(options.timers);
  let current: SocketLike | null = null;

  const armSilence = () => {
    silence.clear();
    if (silenceMs <= 0) return;
    const socket = current;
    silence.set(silenceMs, () => {
      if (current !== socket || socket === null) return;
      current = null;
      try {
        socket.close(4000, "no heartbeat");
      } catch {
        // Already closed.
      }
      onClosed();
    });
  };

  const drop = () => {
    silence.clear();
    const socket = current;
    current = null;
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
  };

  const open = (url: string) => {
    drop();
    let socket: SocketLike;
    try {
      socket = createSocket(url);
    } catch {
      onClosed();
      return;
    }
    current = socket;
    socket.onopen = () => {
      if (current !== socket) return;
      armSilence();
      onOpened?.();
    };
    socket.onmessage = (event) => {
      if (current !== socket) return;
      const text = messageText(event.data);
      if (text === null) return;
      armSilence();
      onText(text);
    };
    const lost = () => {
      if (current !== socket) return;
      current = null;
      silence.clear();
      onClosed();
    };
    socket.onclose = lost;
    socket.onerror = lost;
  };

  const send = (text: string) => {
    try {
      current?.send(text);
    } catch {
      // The socket is closing; its close callback follows.
    }
  };

  return { open, send, drop };
}
