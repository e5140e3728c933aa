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
 *
 * Fan-out (issue 9: slow readers must not exhaust the server): one subscription to the host's events serves
 * every socket. Each live message is serialized once per variant (full, compact) into a shared UTF-8 buffer
 * holding `{"type":…,"data":…` (the JSON text without its closing brace); each socket then sends it as the
 * first fragment of a text message and its own `,"seq":N,"epoch":"…"}` as the final fragment. The message a
 * client assembles is byte for byte what `JSON.stringify({ type, data, seq, epoch })` gave before, and the
 * big part is neither re-serialized nor copied per socket (ws writes a server frame's payload as it is).
 *
 * Bound: before each send the socket's buffered bytes (ws `bufferedAmount`: the socket's unsent writes) are
 * checked; past `bufferLimitBytes` (8 MiB) the socket is closed with 1013 "slow reader: resync", leaves the
 * fan-out at once (nothing more is queued for it) and the close is logged once. The client reconnects after
 * its backoff and resyncs (web/src/api/events-machine.ts). A reader that never reads the close frame either
 * is destroyed by ws after its close timeout (30 s), so what such a socket holds stays ≤ the limit plus one
 * message.
 */
import type { FastifyBaseLogger, FastifyPluginAsync } from "fastify";
import type { Observable, Subscription } from "rxjs";
import type { WebSocket } from "ws";
import type { ErrorBody } from "./http-error.ts";
import { eventFocusOf, isFullFor, type EventFocus, type RuntimeHostEvent, type RuntimeHostView } from "./runtime-host.ts";

export const EVENTS_PATH = "/api/pi/events";
export const HEARTBEAT_INTERVAL_MS = 30_000;
export const CLIENT_MESSAGE_LIMIT_BYTES = 1024;
export const PONG_TEXT = '{"type":"pong"}';
/** WebSocket close code "Message Too Big". */
export const CLOSE_MESSAGE_TOO_BIG = 1009;
/** Buffered bytes past which a socket is a slow reader and is closed. */
export const SLOW_READER_LIMIT_BYTES = 8 * 1024 * 1024;
/** WebSocket close code "Try Again Later": the slow-reader close (the client reconnects and resyncs). */
export const CLOSE_SLOW_READER = 1013;
export const SLOW_READER_REASON = "slow reader: resync";

export interface EventsRoutesOptions {
  readonly runtimeHost: RuntimeHostView;
  readonly epoch: string;
  readonly heartbeatMs?: number;
  /** Buffered bytes past which a socket is closed (default SLOW_READER_LIMIT_BYTES; tests lower it). */
  readonly bufferLimitBytes?: number;
}

/**
 * `{"type":…,"data":…` as UTF-8: the serialized message without `seq`, `epoch` and the closing brace. JSON
 * keeps key order, so head + `,"seq":N,"epoch":E}` equals `JSON.stringify({ type, data, seq, epoch })`.
 */
export function encodeMessageHead(type: string, data?: unknown): Buffer {
  const json = JSON.stringify(data === undefined ? { type } : { type, data });
  return Buffer.from(json, "utf8").subarray(0, -1);
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

/** One socket as the fan-out sees it. */
interface FanoutTarget {
  readonly focus: EventFocus;
  sendHead(head: Buffer): void;
}

/**
 * The host's live messages to every connected socket: subscribed while at least one socket is connected;
 * each message is encoded at most once per variant, only if some socket needs that variant.
 */
export class EventFanout {
  private readonly targets = new Set<FanoutTarget>();
  private subscription: Subscription | null = null;

  constructor(
    private readonly events$: Observable<RuntimeHostEvent>,
    private readonly log: FastifyBaseLogger,
  ) {}

  add(target: FanoutTarget): void {
    this.targets.add(target);
    this.subscription ??= this.events$.subscribe((event) => this.publish(event));
  }

  remove(target: FanoutTarget): void {
    this.targets.delete(target);
    if (this.targets.size > 0 || this.subscription === null) return;
    this.subscription.unsubscribe();
    this.subscription = null;
  }

  private publish(event: RuntimeHostEvent): void {
    // undefined: not encoded yet; null: this variant sends nothing.
    const heads: { full: Buffer | null | undefined; compact: Buffer | null | undefined } = { full: undefined, compact: undefined };
    const headFor = (full: boolean): Buffer | null => {
      const key = full ? "full" : "compact";
      let head = heads[key];
      if (head === undefined) {
        try {
          const data = event.data(full);
          head = data === null ? null : encodeMessageHead(event.type, data);
        } catch (error) {
          // One unserializable message must not stop the fan-out (an error thrown here would escape RxJS).
          this.log.error({ err: error, type: event.type }, "events: message not serializable; skipped");
          head = null;
        }
        heads[key] = head;
      }
      return head;
    };
    // A target that closes while sending leaves the set; Set iteration skips it safely.
    for (const target of this.targets) {
      const head = headFor(event.sessionId === null || isFullFor(target.focus, event.sessionId));
      if (head !== null) target.sendHead(head);
    }
  }
}

/** Runs one events connection until it closes. */
export function serveEventSocket(
  socket: WebSocket,
  options: {
    runtimeHost: RuntimeHostView;
    fanout: EventFanout;
    epoch: string;
    focus: EventFocus;
    heartbeatMs: number;
    bufferLimitBytes: number;
    log: FastifyBaseLogger;
  },
): void {
  const { runtimeHost, fanout, focus, bufferLimitBytes } = options;
  const epochTail = `,"epoch":${JSON.stringify(options.epoch)}}`;
  let seq = 0;
  let awaitingPong = false;
  let closed = false;

  const stop = (): void => {
    closed = true;
    clearInterval(heartbeat);
    fanout.remove(target);
  };

  /** Closes a socket that does not keep up: it gets nothing more, and the client resyncs on reconnect. */
  const cutSlowReader = (): void => {
    const bufferedBytes = socket.bufferedAmount;
    stop();
    options.log.warn({ bufferedBytes, limitBytes: bufferLimitBytes, sentMessages: seq }, "events socket closed: slow reader");
    socket.close(CLOSE_SLOW_READER, SLOW_READER_REASON);
  };

  const sendHead = (head: Buffer): void => {
    if (closed || socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > bufferLimitBytes) {
      cutSlowReader();
      return;
    }
    // Two fragments of one text message: the shared head, then this connection's seq and epoch.
    socket.send(head, { binary: false, fin: false });
    socket.send(`,"seq":${++seq}${epochTail}`, { binary: false, fin: true });
  };
  const target: FanoutTarget = { focus, sendHead };

  const heartbeat = setInterval(() => {
    if (awaitingPong) {
      socket.terminate();
      return;
    }
    awaitingPong = true;
    sendHead(encodeMessageHead("ping"));
  }, options.heartbeatMs);

  const runtimes = runtimeHost.openRuntimes();
  for (const runtime of runtimes) sendHead(encodeMessageHead("active_session", runtime.snapshot(isFullFor(focus, runtime.sessionId))));
  sendHead(encodeMessageHead("runtime_roster", { sessionIds: runtimes.map((r) => r.sessionId) }));
  if (!closed) fanout.add(target);

  socket.on("message", (data: unknown, isBinary: boolean) => {
    if (byteLength(data) > CLIENT_MESSAGE_LIMIT_BYTES) {
      socket.close(CLOSE_MESSAGE_TOO_BIG, "Message too big");
      return;
    }
    if (!isBinary && asText(data) === PONG_TEXT) awaitingPong = false;
  });

  socket.on("close", stop);
}

export const eventsRoutes: FastifyPluginAsync<EventsRoutesOptions> = async (app, options) => {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  const bufferLimitBytes = options.bufferLimitBytes ?? SLOW_READER_LIMIT_BYTES;
  const fanout = new EventFanout(options.runtimeHost.events$, app.log);
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
        fanout,
        epoch: options.epoch,
        focus: eventFocusOf(request.query.sessionId),
        heartbeatMs,
        bufferLimitBytes,
        log: request.log,
      });
    },
  });
};
