/**
 * What the app's WebSocket routes (events, review events, terminal) share on the server side: a plain HTTP GET
 * answers 426, a client frame is read with a size limit, and a heartbeat ends a socket that stopped answering.
 *
 * - A client frame is what `ws` hands to a `message` listener: a Buffer, an ArrayBuffer or Buffer fragments
 *   (by the socket's binaryType). Its size is its bytes, its text their UTF-8 decoding. A frame over the route's
 *   limit closes the socket with 1009 "Message too big"; a binary frame has no text (the routes ignore it).
 * - The heartbeat checks every period that the previous ping was answered: if not, it terminates the socket;
 *   otherwise it pings again. How to ping and what counts as the answer are the route's (an application
 *   `{"type":"ping"}` answered by the exact `{"type":"pong"}`, or WebSocket ping and pong frames).
 */
import type { FastifyReply } from "fastify";
import type { WebSocket } from "ws";
import { sendError } from "./http-error.ts";

/** Default heartbeat period of the app's sockets. */
export const HEARTBEAT_INTERVAL_MS = 30_000;
/** Largest client message on the event sockets, runtime and review events (spec "Event WebSockets"). */
export const CLIENT_MESSAGE_LIMIT_BYTES = 1024;
/** WebSocket close code "Message Too Big". */
export const CLOSE_MESSAGE_TOO_BIG = 1009;

/** The 426 a plain GET of a WebSocket route answers. */
export function answerUpgradeRequired(reply: FastifyReply): FastifyReply {
  return sendError(reply.header("upgrade", "websocket"), "upgrade_required", "This endpoint requires a WebSocket upgrade");
}

/** A frame's size in bytes (0 for what is not a frame). */
export function frameByteLength(data: unknown): number {
  if (Buffer.isBuffer(data)) return data.length;
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (Array.isArray(data)) return data.reduce<number>((sum, part) => sum + (Buffer.isBuffer(part) ? part.length : 0), 0);
  return 0;
}

/** A frame's bytes as UTF-8 text (null for what is not a frame). */
export function frameText(data: unknown): string | null {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data.filter((part): part is Buffer => Buffer.isBuffer(part))).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return null;
}

/** A client text frame and its size. */
export interface ClientFrame {
  readonly text: string;
  readonly bytes: number;
}

/**
 * The client frame of a `message` event; null for a binary frame (ignored) and for one over `limitBytes`, which
 * closes the socket with 1009.
 */
export function readClientFrame(socket: WebSocket, data: unknown, isBinary: boolean, limitBytes: number): ClientFrame | null {
  const bytes = frameByteLength(data);
  if (bytes > limitBytes) {
    socket.close(CLOSE_MESSAGE_TOO_BIG, "Message too big");
    return null;
  }
  const text = isBinary ? null : frameText(data);
  return text === null ? null : { text, bytes };
}

export interface Heartbeat {
  /** The client answered the last ping. */
  answered(): void;
  stop(): void;
}

/** Every `periodMs`: terminates the socket when the previous ping went unanswered, else calls `ping`. */
export function startHeartbeat(socket: WebSocket, periodMs: number, ping: () => void): Heartbeat {
  let awaitingAnswer = false;
  const timer = setInterval(() => {
    if (awaitingAnswer) {
      socket.terminate();
      return;
    }
    awaitingAnswer = true;
    ping();
  }, periodMs);
  return {
    answered: () => {
      awaitingAnswer = false;
    },
    stop: () => clearInterval(timer),
  };
}
