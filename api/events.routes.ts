/**
 * WS /api/pi/events (spec "Event WebSockets" and "WS /api/pi/events").
 *
 * On connect: one `active_session` per open runtime (full for the ?sessionId runtime, compact for others; no
 * parameter selects all in full, an empty one none), then `runtime_roster { sessionIds }`; afterwards the
 * runtime host's live messages. Every message is `{ type, data, seq, epoch }`: `seq` counts this
 * connection's messages from 1 and `epoch` identifies the server run, so a client can detect a gap or a
 * restart (an addition to the spec; heartbeat pings carry them too and have no `data`).
 *
 * Heartbeat: every `heartbeatMs` (30 s) the server checks that the previous ping was answered with the exact
 * text `{"type":"pong"}` (other text does not count) and terminates the socket if not, else sends a ping.
 * Client messages over 1 KiB close the socket with 1009. Other client messages are ignored (no commands).
 * A plain HTTP GET answers 426 with the error envelope.
 */
import type { FastifyPluginAsync } from "fastify";
import type { WebSocket } from "ws";
import type { ErrorBody } from "./http-error.ts";
import { eventFocusOf, isFullFor, type EventFocus, type RuntimeHostView } from "./runtime-host.ts";

export const EVENTS_PATH = "/api/pi/events";
export const HEARTBEAT_INTERVAL_MS = 30_000;
export const CLIENT_MESSAGE_LIMIT_BYTES = 1024;
export const PONG_TEXT = '{"type":"pong"}';
/** WebSocket close code "Message Too Big". */
export const CLOSE_MESSAGE_TOO_BIG = 1009;

export interface EventsRoutesOptions {
  readonly runtimeHost: RuntimeHostView;
  readonly epoch: string;
  readonly heartbeatMs?: number;
}

export interface EventMessage {
  type: string;
  data?: unknown;
  seq: number;
  epoch: string;
}

function byteLength(data: unknown): number {
  if (Buffer.isBuffer(data)) return data.length;
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (Array.isArray(data)) return data.reduce<number>((sum, part) => sum + (Buffer.isBuffer(part) ? part.length : 0), 0);
  return 0;
}

function asText(data: unknown): string | null {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data.filter((part): part is Buffer => Buffer.isBuffer(part))).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return null;
}

/** Runs one events connection until it closes. */
export function serveEventSocket(
  socket: WebSocket,
  options: { runtimeHost: RuntimeHostView; epoch: string; focus: EventFocus; heartbeatMs: number },
): void {
  const { runtimeHost, epoch, focus } = options;
  let seq = 0;
  let awaitingPong = false;
  let closed = false;

  const send = (type: string, data?: unknown): void => {
    if (closed || socket.readyState !== socket.OPEN) return;
    const message: EventMessage = data === undefined ? { type, seq: ++seq, epoch } : { type, data, seq: ++seq, epoch };
    socket.send(JSON.stringify(message));
  };

  const runtimes = runtimeHost.openRuntimes();
  for (const runtime of runtimes) send("active_session", runtime.snapshot(isFullFor(focus, runtime.sessionId)));
  send("runtime_roster", { sessionIds: runtimes.map((r) => r.sessionId) });

  const subscription = runtimeHost.events$.subscribe((event) => {
    const full = event.sessionId === null || isFullFor(focus, event.sessionId);
    const data = event.data(full);
    if (data !== null) send(event.type, data);
  });

  const heartbeat = setInterval(() => {
    if (awaitingPong) {
      socket.terminate();
      return;
    }
    awaitingPong = true;
    send("ping");
  }, options.heartbeatMs);

  socket.on("message", (data: unknown, isBinary: boolean) => {
    if (byteLength(data) > CLIENT_MESSAGE_LIMIT_BYTES) {
      socket.close(CLOSE_MESSAGE_TOO_BIG, "Message too big");
      return;
    }
    if (!isBinary && asText(data) === PONG_TEXT) awaitingPong = false;
  });

  socket.on("close", () => {
    closed = true;
    clearInterval(heartbeat);
    subscription.unsubscribe();
  });
}

export const eventsRoutes: FastifyPluginAsync<EventsRoutesOptions> = async (app, options) => {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  app.route<{ Querystring: { sessionId?: string } }>({
    method: "GET",
    url: EVENTS_PATH,
    schema: { querystring: { type: "object", properties: { sessionId: { type: "string" } } } },
    handler: async (_request, reply) => {
      const body: ErrorBody = { error: "This endpoint requires a WebSocket upgrade" };
      return reply.code(426).header("upgrade", "websocket").send(body);
    },
    wsHandler: (socket, request) => {
      serveEventSocket(socket, {
        runtimeHost: options.runtimeHost,
        epoch: options.epoch,
        focus: eventFocusOf(request.query.sessionId),
        heartbeatMs,
      });
    },
  });
};
