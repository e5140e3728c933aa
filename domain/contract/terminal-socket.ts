/**
 * The terminal socket (WS /api/pi/terminal, spec "Terminal WebSocket"): its query, and every message in both
 * directions, as types, schemas and pure parsers.
 *
 * Query: `sessionId?` (a shell in that session's folder; without it, the active runtime's), and for an editor
 * terminal `editorPath` (absolute canonical path), `editorLine?` (positive integer), `allowOutsideProject?`
 * ("true"). `parseTerminalRequest` reads it into a shell request, an editor request or the error message to send.
 *
 * Client → server (`parseTerminalClientMessage`; never throws, null for anything to ignore):
 * - `{"type":"input","data":"ls\r"}`: `data` must be a string;
 * - `{"type":"resize","cols":120,"rows":32}`: a value that is missing or not a positive number is the default
 *   (100 columns, 24 rows); fractions are floored; values are capped at 1000 columns and 500 rows.
 * Malformed JSON, other types and other shapes are ignored (the spec). Extra fields are ignored.
 * A client message may be at most TERMINAL_CLIENT_MESSAGE_LIMIT_BYTES (64 KiB: pastes are larger than the events
 * socket's 1 KiB); a larger one closes the socket with 1009.
 *
 * Server → client: `ready` first (`pty: true`; for an editor terminal `shell` is the editor executable and
 * `editorPath` the file), then `data`; `exit` or `error` end the socket (the server closes it right after).
 * The terminal socket has no application heartbeat (the server pings with WebSocket control frames).
 */
import { Type, type Static } from "typebox";
import { isRecord } from "../transcript/message-content.ts";
import { contractChecker, type ContractChecker } from "./contract-check.ts";
import { defineRoute } from "./http-route.ts";

export const TERMINAL_PATH = "/api/pi/terminal";

export const TERMINAL_DEFAULT_COLS = 100;
export const TERMINAL_DEFAULT_ROWS = 24;
export const TERMINAL_MAX_COLS = 1000;
export const TERMINAL_MAX_ROWS = 500;
/** Largest client message; a larger one closes the socket with 1009. */
export const TERMINAL_CLIENT_MESSAGE_LIMIT_BYTES = 64 * 1024;

export const SESSION_NOT_FOUND_MESSAGE = "Session not found";
export const NO_ACTIVE_SESSION_MESSAGE = "No active session";
export const EDITOR_NEEDS_SESSION_MESSAGE = "An editor terminal needs a session";
export const EDITOR_PATH_MESSAGE = "editorPath must be an absolute path";
export const EDITOR_LINE_MESSAGE = "editorLine must be a positive integer";
export const EDITOR_UNAVAILABLE_MESSAGE = "Editor terminals are not available";

export const TerminalQuery = Type.Object({
  sessionId: Type.Optional(Type.String({ description: "The session whose folder the shell starts in; default: the active runtime's." })),
  editorPath: Type.Optional(Type.String({ description: "Editor terminal: the absolute canonical path of the file to edit." })),
  editorLine: Type.Optional(Type.String({ description: "Editor terminal: the line to open at (a positive integer)." })),
  allowOutsideProject: Type.Optional(Type.String({ description: 'Editor terminal: "true" for an approved file outside the project.' })),
});
export type TerminalQuery = Static<typeof TerminalQuery>;

export const terminalSocket = defineRoute("GET", TERMINAL_PATH, {
  summary: "The terminal WebSocket: a shell (or a terminal editor) on a PTY in a session's folder",
  description:
    "Upgrade to a WebSocket (a plain GET answers 426). The messages in both directions are declared in domain/contract/terminal-socket.ts.",
  tags: ["terminal"],
  querystring: TerminalQuery,
  response: { 101: Type.Null({ description: "Switching protocols: the socket is open." }) },
});

/** What a connection asks for, or the error message to send before closing. */
export type TerminalRequest =
  | { readonly kind: "shell"; readonly sessionId: string | null }
  | {
      readonly kind: "editor";
      readonly sessionId: string;
      readonly editorPath: string;
      readonly editorLine?: number;
      readonly allowOutsideProject: boolean;
    }
  | { readonly kind: "invalid"; readonly message: string };

/** A positive integer written in decimal, or null. */
function positiveInteger(text: string): number | null {
  if (!/^[1-9][0-9]*$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** The connection's request from its query (an editor terminal when `editorPath` is present). */
export function parseTerminalRequest(query: TerminalQuery): TerminalRequest {
  const sessionId = query.sessionId ?? null;
  if (query.editorPath === undefined) return { kind: "shell", sessionId };
  if (sessionId === null) return { kind: "invalid", message: EDITOR_NEEDS_SESSION_MESSAGE };
  if (!query.editorPath.startsWith("/")) return { kind: "invalid", message: EDITOR_PATH_MESSAGE };
  const request = {
    kind: "editor",
    sessionId,
    editorPath: query.editorPath,
    allowOutsideProject: query.allowOutsideProject === "true",
  } as const;
  if (query.editorLine === undefined) return request;
  const editorLine = positiveInteger(query.editorLine);
  return editorLine === null ? { kind: "invalid", message: EDITOR_LINE_MESSAGE } : { ...request, editorLine };
}

export const TerminalClientMessage = Type.Union([
  Type.Object({ type: Type.Literal("input"), data: Type.String() }),
  Type.Object({
    type: Type.Literal("resize"),
    cols: Type.Integer({ minimum: 1, maximum: TERMINAL_MAX_COLS }),
    rows: Type.Integer({ minimum: 1, maximum: TERMINAL_MAX_ROWS }),
  }),
]);
export type TerminalClientMessage = Static<typeof TerminalClientMessage>;

/** A terminal dimension: a positive number floored and capped, anything else the default. */
function dimension(value: unknown, fallback: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 1) return fallback;
  return Math.min(Math.floor(value), max);
}

/** A client's message, or null when it is none (malformed JSON and unknown types are ignored, as the spec says). */
export function parseTerminalClientMessage(text: string): TerminalClientMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  if (value["type"] === "input") return typeof value["data"] === "string" ? { type: "input", data: value["data"] } : null;
  if (value["type"] === "resize") {
    return {
      type: "resize",
      cols: dimension(value["cols"], TERMINAL_DEFAULT_COLS, TERMINAL_MAX_COLS),
      rows: dimension(value["rows"], TERMINAL_DEFAULT_ROWS, TERMINAL_MAX_ROWS),
    };
  }
  return null;
}

export const TerminalServerMessage = Type.Union([
  Type.Object(
    {
      type: Type.Literal("ready"),
      cwd: Type.String(),
      shell: Type.String(),
      editorPath: Type.Optional(Type.String()),
      pty: Type.Literal(true),
    },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal("data"), data: Type.String() }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal("exit"), exitCode: Type.Integer() }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal("error"), message: Type.String() }, { additionalProperties: false }),
]);
export type TerminalServerMessage = Static<typeof TerminalServerMessage>;

let serverChecker: ContractChecker<typeof TerminalServerMessage> | null = null;

/** Why a message the server sent breaks the contract, or null when it holds (the socket tests check every one). */
export function terminalServerMessageFailure(message: unknown): string | null {
  serverChecker ??= contractChecker(TerminalServerMessage, "message");
  return serverChecker.failure(message)?.message ?? null;
}
