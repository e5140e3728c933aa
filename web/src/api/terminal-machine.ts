/**
 * One terminal connection as a pure state machine (WS /api/pi/terminal, spec "Terminal WebSocket").
 * `step(state, input)` returns the next state and the effects the driver (terminal-socket.ts) performs: open or
 * close the socket, send a client message, schedule the coalesced resize, write output to the screen.
 *
 * Phases: idle → connecting → ready → exited(code) | failed(message) | disconnected; stopped when the view goes.
 *
 * Rules:
 * - Nothing is sent before `ready` (the server's first message). Input typed meanwhile is buffered, at most
 *   `INPUT_BUFFER_LIMIT_BYTES` (UTF-8) in all: a chunk that does not fit is dropped whole (counted), so what is
 *   sent is always a prefix of what was typed, never a cut escape sequence. On `ready` the current size is sent
 *   first (the shell draws its prompt for it), then the buffer, once, in order.
 * - Resize is coalesced: a size change while ready schedules one send after `RESIZE_DELAY_MS` carrying the latest
 *   size; a size equal to the last one sent is never sent again.
 * - `exit` and `error` end the connection (the server closes the socket after them); a socket that closes
 *   otherwise is `disconnected`. The server kills the PTY when its socket closes, so nothing resumes:
 *   `restart` (from exited, failed or disconnected) opens a new connection, which starts a NEW shell (or runs the
 *   editor again), numbered by `connection`.
 * - Malformed or unknown server messages are ignored (counted); output before `ready` is still shown.
 * - The server closes the socket on a client message over 64 KiB: input (a large paste, the flushed buffer) is
 *   sent in pieces of at most `INPUT_CHUNK_UNITS` UTF-16 units, never splitting a surrogate pair, so that every
 *   message stays under that limit whatever the text escapes to.
 *
 * No clock and no I/O: the driver owns the socket and the timer. The message types are the contract's
 * (domain/contract/terminal-socket.ts, imported as types only: its schemas stay out of the client).
 */
import type { TerminalServerMessage } from "../../../domain/contract/terminal-socket.ts";
import { utf8Length } from "../../../domain/utf8-text.ts";
import { parseJsonObject } from "./json-object.ts";

export type { TerminalServerMessage };

/** Input typed before the shell is ready is kept up to this many UTF-8 bytes. */
export const INPUT_BUFFER_LIMIT_BYTES = 64 * 1024;
/** The server's limit for one client message (the contract's TERMINAL_CLIENT_MESSAGE_LIMIT_BYTES). */
export const CLIENT_MESSAGE_LIMIT_BYTES = 64 * 1024;
/**
 * Input per message, in UTF-16 units: a unit escapes to at most 6 bytes of JSON (`\u001b`), so a message stays
 * within 6 · 8192 bytes plus its envelope, well under CLIENT_MESSAGE_LIMIT_BYTES.
 */
export const INPUT_CHUNK_UNITS = 8192;
/** At most one resize message per this many milliseconds (the latest size wins). */
export const RESIZE_DELAY_MS = 80;

/** What the server's `ready` says about the process (spec: `{ type: "ready", cwd, shell, editorPath?, pty: true }`). */
export interface TerminalProcess {
  readonly cwd: string;
  /** The shell, or for an editor terminal the editor executable. */
  readonly shell: string;
  readonly editorPath?: string;
}

export type TerminalKind = "shell" | "editor";
export type TerminalPhase = "idle" | "connecting" | "ready" | "exited" | "failed" | "disconnected" | "stopped";

export interface TerminalSize {
  readonly cols: number;
  readonly rows: number;
}

export interface TerminalState {
  phase: TerminalPhase;
  kind: TerminalKind;
  /** Connections opened so far: 1 is the first shell, every restart starts a new one. */
  connection: number;
  /** The current (or last) connection's process, from its `ready`. */
  process: TerminalProcess | null;
  /** The exit code after `exit`. */
  exitCode: number | null;
  /** The server's error text after `error`. */
  error: string | null;
  /** The connection dropped before its `ready` (disconnected: it never started). */
  lostBeforeReady: boolean;
  /** Input typed before `ready`, and its UTF-8 size. */
  pending: string;
  pendingBytes: number;
  /** Input dropped because the buffer was full (UTF-8 bytes, this connection). */
  droppedBytes: number;
  /** The size the screen has now; null until the view reports one. */
  size: TerminalSize | null;
  /** The size last sent on this connection. */
  sentSize: TerminalSize | null;
  /** A resize send is scheduled. */
  resizeScheduled: boolean;
  /** Server messages that were not understood (ignored). */
  malformed: number;
}

export type TerminalInput =
  | { type: "start" }
  | { type: "message"; text: string }
  /** The socket closed or failed. */
  | { type: "closed" }
  /** Keys or pasted text for the process. */
  | { type: "input"; data: string }
  /** The screen's size in cells. */
  | { type: "resize"; cols: number; rows: number }
  /** The scheduled resize is due. */
  | { type: "resizeDue" }
  /** Start a new process after the last one ended. */
  | { type: "restart" }
  | { type: "stop" };

export type TerminalEffect =
  /** Open a socket (connection number `connection`). */
  | { type: "connect"; connection: number }
  | { type: "disconnect" }
  | { type: "send"; text: string }
  | { type: "scheduleResize"; delayMs: number }
  | { type: "cancelResize" }
  /** Write process output to the screen. */
  | { type: "output"; data: string }
  /** The process is running (after a restart: a new one). */
  | { type: "ready"; connection: number; process: TerminalProcess };

export interface TerminalStep {
  state: TerminalState;
  effects: TerminalEffect[];
}

export function initialTerminalState(kind: TerminalKind = "shell"): TerminalState {
  return {
    phase: "idle",
    kind,
    connection: 0,
    process: null,
    exitCode: null,
    error: null,
    lostBeforeReady: false,
    pending: "",
    pendingBytes: 0,
    droppedBytes: 0,
    size: null,
    sentSize: null,
    resizeScheduled: false,
    malformed: 0,
  };
}

/** The text of an input message. */
export function inputText(data: string): string {
  return JSON.stringify({ type: "input", data });
}

/** The input messages for `data`: pieces of at most INPUT_CHUNK_UNITS units, a surrogate pair never split. */
export function inputTexts(data: string): string[] {
  const texts: string[] = [];
  for (let start = 0; start < data.length;) {
    let end = Math.min(start + INPUT_CHUNK_UNITS, data.length);
    const last = data.charCodeAt(end - 1);
    if (end < data.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    texts.push(inputText(data.slice(start, end)));
    start = end;
  }
  return texts;
}

function sendInput(data: string): TerminalEffect[] {
  return inputTexts(data).map((text) => ({ type: "send", text }));
}

/** The text of a resize message. */
export function resizeText(size: TerminalSize): string {
  return JSON.stringify({ type: "resize", cols: size.cols, rows: size.rows });
}

/** UTF-8 length of a string (domain/utf8-text.ts). */
export { utf8Length };

/** Parses one server text, or null when it is not a message of the protocol. */
export function decodeServerMessage(text: string): TerminalServerMessage | null {
  const value = parseJsonObject(text);
  if (value === null) return null;
  switch (value["type"]) {
    case "ready": {
      const { cwd, shell, editorPath } = value;
      if (typeof cwd !== "string" || typeof shell !== "string") return null;
      if (editorPath !== undefined && typeof editorPath !== "string") return null;
      return { type: "ready", cwd, shell, ...(editorPath !== undefined ? { editorPath } : {}), pty: true };
    }
    case "data":
      return typeof value["data"] === "string" ? { type: "data", data: value["data"] } : null;
    case "exit": {
      const code = value["exitCode"];
      return typeof code === "number" && Number.isInteger(code) ? { type: "exit", exitCode: code } : null;
    }
    case "error":
      return typeof value["message"] === "string" ? { type: "error", message: value["message"] } : null;
    default:
      return null;
  }
}

function validSize(cols: number, rows: number): TerminalSize | null {
  if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1) return null;
  return { cols, rows };
}

function sameSize(a: TerminalSize | null, b: TerminalSize | null): boolean {
  return a !== null && b !== null && a.cols === b.cols && a.rows === b.rows;
}

/** A fresh connection: the buffer, the sent size and the last process's end are forgotten; the size is kept. */
function connect(state: TerminalState, extra: TerminalEffect[] = []): TerminalStep {
  const connection = state.connection + 1;
  return {
    state: {
      ...state,
      phase: "connecting",
      connection,
      exitCode: null,
      error: null,
      lostBeforeReady: false,
      pending: "",
      pendingBytes: 0,
      droppedBytes: 0,
      sentSize: null,
      resizeScheduled: false,
    },
    effects: [...(state.resizeScheduled ? [{ type: "cancelResize" } as const] : []), ...extra, { type: "connect", connection }],
  };
}

/** The connection ended (phase `exited`, `failed` or `disconnected`): the socket goes, the timer too. */
function end(state: TerminalState, changes: Partial<TerminalState>): TerminalStep {
  return {
    state: { ...state, ...changes, pending: "", pendingBytes: 0, resizeScheduled: false },
    effects: [...(state.resizeScheduled ? [{ type: "cancelResize" } as const] : []), { type: "disconnect" }],
  };
}

function onReady(state: TerminalState, process: TerminalProcess): TerminalStep {
  const effects: TerminalEffect[] = [];
  if (state.resizeScheduled) effects.push({ type: "cancelResize" });
  if (state.size !== null) effects.push({ type: "send", text: resizeText(state.size) });
  effects.push(...sendInput(state.pending));
  effects.push({ type: "ready", connection: state.connection, process });
  return {
    state: { ...state, phase: "ready", process, pending: "", pendingBytes: 0, sentSize: state.size, resizeScheduled: false },
    effects,
  };
}

function onMessage(state: TerminalState, text: string): TerminalStep {
  const message = decodeServerMessage(text);
  if (message === null) return { state: { ...state, malformed: state.malformed + 1 }, effects: [] };
  switch (message.type) {
    case "ready": {
      if (state.phase !== "connecting") return { state, effects: [] };
      const { cwd, shell, editorPath } = message;
      return onReady(state, { cwd, shell, ...(editorPath !== undefined ? { editorPath } : {}) });
    }
    case "data":
      return { state, effects: message.data === "" ? [] : [{ type: "output", data: message.data }] };
    case "exit":
      return end(state, { phase: "exited", exitCode: message.exitCode });
    case "error":
      return end(state, { phase: "failed", error: message.message });
    default:
      return { state, effects: [] };
  }
}

function onInput(state: TerminalState, data: string): TerminalStep {
  if (data === "") return { state, effects: [] };
  if (state.phase === "ready") return { state, effects: sendInput(data) };
  if (state.phase !== "connecting") return { state, effects: [] };
  const bytes = utf8Length(data);
  if (state.pendingBytes + bytes > INPUT_BUFFER_LIMIT_BYTES)
    return { state: { ...state, droppedBytes: state.droppedBytes + bytes }, effects: [] };
  return { state: { ...state, pending: state.pending + data, pendingBytes: state.pendingBytes + bytes }, effects: [] };
}

function onResize(state: TerminalState, cols: number, rows: number): TerminalStep {
  const size = validSize(cols, rows);
  if (size === null || state.phase === "stopped") return { state, effects: [] };
  const next: TerminalState = { ...state, size };
  if (state.phase !== "ready" || state.resizeScheduled || sameSize(size, state.sentSize)) return { state: next, effects: [] };
  return { state: { ...next, resizeScheduled: true }, effects: [{ type: "scheduleResize", delayMs: RESIZE_DELAY_MS }] };
}

function onResizeDue(state: TerminalState): TerminalStep {
  if (!state.resizeScheduled) return { state, effects: [] };
  const next: TerminalState = { ...state, resizeScheduled: false };
  if (state.phase !== "ready" || state.size === null || sameSize(state.size, state.sentSize)) return { state: next, effects: [] };
  return { state: { ...next, sentSize: state.size }, effects: [{ type: "send", text: resizeText(state.size) }] };
}

export function step(state: TerminalState, input: TerminalInput): TerminalStep {
  switch (input.type) {
    case "start":
      if (state.phase !== "idle") return { state, effects: [] };
      return connect(state);
    case "message":
      if (state.phase !== "connecting" && state.phase !== "ready") return { state, effects: [] };
      return onMessage(state, input.text);
    case "closed":
      if (state.phase !== "connecting" && state.phase !== "ready") return { state, effects: [] };
      return end(state, { phase: "disconnected", lostBeforeReady: state.phase === "connecting" });
    case "input":
      return onInput(state, input.data);
    case "resize":
      return onResize(state, input.cols, input.rows);
    case "resizeDue":
      return onResizeDue(state);
    case "restart":
      if (state.phase !== "exited" && state.phase !== "failed" && state.phase !== "disconnected") return { state, effects: [] };
      return connect(state, [{ type: "disconnect" }]);
    case "stop":
      if (state.phase === "stopped") return { state, effects: [] };
      return {
        state: { ...state, phase: "stopped", pending: "", pendingBytes: 0, resizeScheduled: false },
        effects: [...(state.resizeScheduled ? [{ type: "cancelResize" } as const] : []), { type: "disconnect" }],
      };
    default:
      return { state, effects: [] };
  }
}

function baseName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;
}

/** A short title for the running process: "bash · project" (the shell and its folder), or "vim · app.ts". */
export function processTitle(process: TerminalProcess): string {
  const program = baseName(process.shell) || process.shell;
  const place = process.editorPath !== undefined ? baseName(process.editorPath) : baseName(process.cwd) || process.cwd;
  return place === "" ? program : `${program} · ${place}`;
}

export type TerminalStatusTone = "info" | "error";

/** What the status line says; null when the process runs and nothing needs saying. */
export interface TerminalStatus {
  readonly tone: TerminalStatusTone;
  readonly text: string;
  /** A Restart button is offered (the process ended). */
  readonly canRestart: boolean;
  /** What Restart does, in words. */
  readonly restartHint: string;
}

/** The status line for a state, in words. */
export function terminalStatus(state: TerminalState): TerminalStatus | null {
  const editor = state.kind === "editor";
  const what = editor ? "Editor" : "Process";
  const restartHint = editor ? "Restart opens the editor again." : "Restart starts a new shell.";
  switch (state.phase) {
    case "idle":
    case "connecting":
      return {
        tone: "info",
        text: state.connection > 1 ? (editor ? "Opening the editor again…" : "Starting a new shell…") : "Connecting…",
        canRestart: false,
        restartHint: "",
      };
    case "exited":
      return { tone: "info", text: `${what} exited with code ${state.exitCode ?? 0}.`, canRestart: true, restartHint };
    case "failed":
      return {
        tone: "error",
        text: `${editor ? "Could not open the editor" : "Could not start the terminal"}: ${state.error ?? "unknown error"}.`.replace(
          /\.\.$/,
          ".",
        ),
        canRestart: true,
        restartHint,
      };
    case "disconnected":
      return {
        tone: "error",
        text: state.lostBeforeReady
          ? "Could not connect to the terminal."
          : `The connection to the terminal was lost; its ${editor ? "editor" : "shell"} has ended.`,
        canRestart: true,
        restartHint,
      };
    case "ready":
      if (state.droppedBytes > 0)
        return {
          tone: "info",
          text: `Some input typed while connecting was dropped (over ${INPUT_BUFFER_LIMIT_BYTES / 1024} KiB).`,
          canRestart: false,
          restartHint: "",
        };
      return null;
    default:
      return null;
  }
}
