/**
 * The WS /api/pi/terminal client for one terminal: drives the pure machine of terminal-machine.ts with a real
 * WebSocket and a timer. Everything that decides (buffering before ready, coalesced resize, restart) is in the
 * machine; this file builds the URL (same origin as the page, ws/wss, like the events socket), performs the
 * machine's effects and feeds socket callbacks back in. The socket plumbing is socket-lifecycle.ts's: sockets of
 * earlier connections are ignored when they report late. There is no application heartbeat on this socket.
 */
import {
  browserSocket,
  browserTimers,
  liveSocket,
  pageWsBase,
  serialFeed,
  socketUrl,
  timerSlot,
  type LiveSocket,
  type SocketFactory,
  type TimerApi,
  type TimerSlot,
} from "./socket-lifecycle.ts";
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
  return socketUrl(wsBase, TERMINAL_PATH, query);
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

export class TerminalSocket {
  private state: TerminalState;
  private readonly socket: LiveSocket;
  private readonly resizeTimer: TimerSlot;
  private readonly feed = serialFeed<TerminalInput>((input) => this.apply(input));

  constructor(private readonly options: TerminalSocketOptions) {
    this.state = initialTerminalState(options.target.editor !== undefined ? "editor" : "shell");
    const timers = options.timers ?? browserTimers;
    this.resizeTimer = timerSlot(timers);
    this.socket = liveSocket({
      createSocket: options.createSocket ?? browserSocket,
      timers,
      onText: (text) => this.feed({ type: "message", text }),
      onClosed: () => this.feed({ type: "closed" }),
    });
  }

  get machine(): TerminalState {
    return this.state;
  }

  get url(): string {
    return terminalUrl(this.options.wsBase ?? pageWsBase(), this.options.target);
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
        this.socket.open(this.url);
        return;
      case "disconnect":
        this.socket.drop();
        return;
      case "send":
        this.socket.send(effect.text);
        return;
      case "scheduleResize":
        this.resizeTimer.set(effect.delayMs, () => this.feed({ type: "resizeDue" }));
        return;
      case "cancelResize":
        this.resizeTimer.clear();
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
}
