/**
 * The WS /api/pi/terminal client for one terminal: drives the pure machine of terminal-machine.ts with a real
 * WebSocket and a timer. Everything that decides (buffering before ready, coalesced resize, restart) is in the
 * machine; this file builds the URL (same origin as the page, ws/wss, like the events socket), performs the
 * machine's effects and feeds socket callbacks back in. Sockets of earlier connections are ignored when they
 * report late. There is no application heartbeat on this socket.
 */
import { apiBase } from "./http.ts";
import { wsBaseOf, type SocketFactory, type SocketLike, type TimerApi } from "./events-socket.ts";
import {
  initialTerminalState,
  step,
  type TerminalEffect,
  type TerminalInput,
  type TerminalProcess,
  type TerminalState,
} from "./terminal-machine.ts";

export const TERMINAL_PATH = "/api/pi/terminal";

/** What a terminal runs: a shell in the session's folder, or a terminal editor for one file. */
export interface TerminalTarget {
  readonly sessionId: string;
  readonly editor?: {
    /** The canonical absolute path the file action returned. */
    readonly path: string;
    readonly line?: number;
    /** The file is outside the project and the person approved opening it. */
    readonly allowOutsideProject: boolean;
  };
}

/** The socket URL: `?sessionId=`, and for an editor `&editorPath=&editorLine=&allowOutsideProject=true`. */
export function terminalUrl(wsBase: string, target: TerminalTarget): string {
  const query = new URLSearchParams({ sessionId: target.sessionId });
  const editor = target.editor;
  if (editor !== undefined) {
    query.set("editorPath", editor.path);
    if (editor.line !== undefined && Number.isInteger(editor.line) && editor.line > 0) query.set("editorLine", String(editor.line));
    if (editor.allowOutsideProject) query.set("allowOutsideProject", "true");
  }
  return `${wsBase.replace(/\/+$/, "")}${TERMINAL_PATH}?${query.toString()}`;
}

/** ws(s)://host of the backend: the API base when one is set, else the page's own origin. */
export function terminalWsBase(): string {
  return wsBaseOf(apiBase(), globalThis.location ?? null);
}

export interface TerminalSocketOptions {
  target: TerminalTarget;
  /** ws:// or wss:// origin of the backend (no path); the page's origin by default. */
  wsBase?: string;
  createSocket?: SocketFactory;
  timers?: TimerApi;
  /** Process output for the screen. */
  onOutput(data: string): void;
  /** The process is running; `connection` > 1: a new one after a restart. */
  onReady?(info: { connection: number; process: TerminalProcess }): void;
  /** The machine's state changed. */
  onState?(state: TerminalState): void;
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

export class TerminalSocket {
  private state: TerminalState;
  private socket: SocketLike | null = null;
  private resizeTimer: unknown = null;
  private readonly timers: TimerApi;
  private readonly createSocket: SocketFactory;
  private feeding = false;
  private readonly inbox: TerminalInput[] = [];

  constructor(private readonly options: TerminalSocketOptions) {
    this.state = initialTerminalState(options.target.editor !== undefined ? "editor" : "shell");
    this.timers = options.timers ?? browserTimers;
    this.createSocket = options.createSocket ?? ((url) => new WebSocket(url) as unknown as SocketLike);
  }

  get machine(): TerminalState {
    return this.state;
  }

  get url(): string {
    return terminalUrl(this.options.wsBase ?? terminalWsBase(), this.options.target);
  }

  start(): void {
    this.feed({ type: "start" });
  }

  /** Keys or pasted text for the process (buffered until it is ready). */
  input(data: string): void {
    this.feed({ type: "input", data });
  }

  resize(cols: number, rows: number): void {
    this.feed({ type: "resize", cols, rows });
  }

  /** A new process after the last one ended (never a resume: the server ended the old one). */
  restart(): void {
    this.feed({ type: "restart" });
  }

  /** Closes the socket for good (the server ends the process). */
  stop(): void {
    this.feed({ type: "stop" });
  }

  private feed(input: TerminalInput): void {
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

  private apply(input: TerminalInput): void {
    const before = this.state;
    const { state, effects } = step(this.state, input);
    this.state = state;
    for (const effect of effects) this.perform(effect);
    if (state !== before) this.options.onState?.(state);
  }

  private perform(effect: TerminalEffect): void {
    switch (effect.type) {
      case "connect":
        this.open();
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
      case "scheduleResize":
        this.clearResize();
        this.resizeTimer = this.timers.setTimeout(() => {
          this.resizeTimer = null;
          this.feed({ type: "resizeDue" });
        }, effect.delayMs);
        return;
      case "cancelResize":
        this.clearResize();
        return;
      case "output":
        this.options.onOutput(effect.data);
        return;
      case "ready":
        this.options.onReady?.({ connection: effect.connection, process: effect.process });
        return;
      default:
        return;
    }
  }

  private open(): void {
    this.drop();
    let socket: SocketLike;
    try {
      socket = this.createSocket(this.url);
    } catch {
      this.feed({ type: "closed" });
      return;
    }
    this.socket = socket;
    socket.onopen = null;
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      const text = textOf(event.data);
      if (text !== null) this.feed({ type: "message", text });
    };
    const lost = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.feed({ type: "closed" });
    };
    socket.onclose = lost;
    socket.onerror = lost;
  }

  /** Closes the current socket (its late callbacks are ignored). */
  private drop(): void {
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

  private clearResize(): void {
    if (this.resizeTimer !== null) this.timers.clearTimeout(this.resizeTimer);
    this.resizeTimer = null;
  }
}
