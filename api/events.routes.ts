/**
 * WS /api/pi/events (spec "Event WebSockets" and "WS /api/pi/events"), carrying the read side live
 * (domain/live/live-messages.ts is the contract).
 *
 * A connection carries one *stream* (api/events/event-stream.ts): numbered messages that outlive the socket for
 * `resumeWindowMs`, so a client that reconnects with `?stream=<id>&after=<last seq it applied>` gets exactly what
 * it missed. Every connection starts with `hello` (seq 0: the stream id, whether it resumed). A fresh stream then
 * sends, in order:
 * - one `active_session` per open runtime (full for the focused runtime, compact for others; no `?sessionId`
 *   selects all in full, an empty one none), a `stream_snapshot` runtime event for a focused runtime that is
 *   streaming, then `runtime_roster` (the spec's order);
 * - the session list: `session_list`, then `session_list_delta` as the index or the roster change
 *   (api/events/session-list-feed.ts: one model for every socket, each delta encoded once);
 * - the focused session's detail: `session_loading`, `session_snapshot` (chunks), then `session_delta`s, or
 *   `session_unavailable` (api/events/session-focus.ts);
 * - the runtime host's live messages (one subscription for every socket; each encoded once per variant, full
 *   or compact).
 * Every message is `{ type, data, seq, epoch }`; `epoch` identifies the server run.
 *
 * Client messages (at most 1 KiB, else the socket closes with 1009): the heartbeat reply, exactly
 * `{"type":"pong"}` (every `heartbeatMs` the server checks that its previous ping was answered and terminates
 * the socket if not), and `{"type":"focus","sessionId":"…"}`, which moves the focus without reconnecting.
 * Other messages are ignored. A plain HTTP GET answers 426 with the error envelope.
 *
 * Bounds (issue 9: slow readers must not exhaust the server): a stream writes at most its high water mark to the
 * socket before waiting for the socket to flush; live messages waiting beyond `bufferLimitBytes` (8 MiB) end the
 * stream and close the socket with 1013 "slow reader: resync" (the client starts a fresh stream); a detached
 * stream holds at most that much and ends after `resumeWindowMs`.
 */
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger, FastifyPluginAsync } from "fastify";
import { merge, type Observable, type Subscription } from "rxjs";
import type { WebSocket } from "ws";
import { parseClientMessage } from "../domain/contract/events-socket.ts";
import { EVENTS_PATH, PONG_TEXT } from "../domain/live/live-messages.ts";
import { isLiveStreamActive } from "../domain/live/live-stream.ts";
import { CLOSE_SLOW_READER, DEFAULT_QUEUE_LIMIT_BYTES, encodeMessageHead, EventStream, SLOW_READER_REASON } from "./events/event-stream.ts";
import { createSessionFocus, type SessionFocus } from "./events/session-focus.ts";
import { createSessionListFeed, type SessionListFeed } from "./events/session-list-feed.ts";
import { eventsSocket } from "../domain/contract/http-service.ts";
import { typed } from "./contract.ts";
import {
  answerUpgradeRequired,
  CLIENT_MESSAGE_LIMIT_BYTES,
  HEARTBEAT_INTERVAL_MS,
  readClientFrame,
  startHeartbeat,
} from "./socket-frames.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import { eventFocusOf, isFullFor, type EventFocus, type OpenRuntime, type RuntimeHostEvent, type RuntimeHostView } from "./runtime-host.ts";

export { CLOSE_SLOW_READER, encodeMessageHead, EVENTS_PATH, PONG_TEXT, SLOW_READER_REASON };
/** Close code of a socket whose stream another connection resumed (an application code). */
export const CLOSE_TAKEN_OVER = 4001;
/** Live bytes a stream may hold unsent past which its reader is too slow. */
export const SLOW_READER_LIMIT_BYTES = DEFAULT_QUEUE_LIMIT_BYTES;
/** How long a stream whose socket closed waits to be resumed. */
export const RESUME_WINDOW_MS = 60_000;

export interface EventsRoutesOptions {
  readonly runtimeHost: RuntimeHostView;
  readonly readSide: ReadSide;
  readonly epoch: string;
  readonly heartbeatMs?: number;
  /** Live bytes a stream may hold unsent (default SLOW_READER_LIMIT_BYTES; tests lower it). */
  readonly bufferLimitBytes?: number;
  /** How long a detached stream can be resumed (default RESUME_WINDOW_MS). */
  readonly resumeWindowMs?: number;
  /** Other live messages for every stream (the trace service's `trace_updated` and `trace_config`). */
  readonly notices$?: Observable<RuntimeHostEvent>;
}

/** One stream as the fan-out sees it: its current focus, and where its messages go. */
interface FanoutTarget {
  readonly focus: EventFocus;
  sendHead(head: Buffer): void;
}

/**
 * The host's live messages to every stream: subscribed while at least one stream exists; each message is encoded
 * at most once per variant (full, compact), only if some stream needs that variant.
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
    // A target that ends while sending leaves the set; Set iteration skips it safely.
    for (const target of this.targets) {
      const head = headFor(event.sessionId === null || isFullFor(target.focus, event.sessionId));
      if (head !== null) target.sendHead(head);
    }
  }
}

/** A stream and what feeds it. */
interface Channel {
  readonly stream: EventStream;
  focus: EventFocus;
  readonly session: SessionFocus;
  readonly target: FanoutTarget;
  readonly list: Subscription;
  expiry: NodeJS.Timeout | null;
}

/** The runtime snapshot messages of one runtime for a focus: `active_session`, and what it streams when full. */
function runtimeSnapshotHeads(runtime: OpenRuntime, full: boolean): Buffer[] {
  const heads = [encodeMessageHead("active_session", runtime.snapshot(full))];
  if (full) {
    const live = runtime.liveStream();
    if (isLiveStreamActive(live)) {
      heads.push(
        encodeMessageHead("runtime_event", { activeSessionId: runtime.sessionId, event: { type: "stream_snapshot", state: live } }),
      );
    }
  }
  return heads;
}

/** The focus's session id for the detail subscription (the compatibility focus "all" has none). */
function focusedSession(focus: EventFocus): string | null {
  return focus.kind === "one" ? focus.sessionId : null;
}

export interface EventChannels {
  /** Serves one connection until it closes. */
  serve(socket: WebSocket, query: { sessionId?: string; stream?: string; after?: string }, log: FastifyBaseLogger): void;
  /** Streams alive (attached or waiting to be resumed). */
  size(): number;
  close(): void;
}

export function createEventChannels(options: EventsRoutesOptions & { log: FastifyBaseLogger }): EventChannels {
  const { runtimeHost, readSide } = options;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  const queueLimitBytes = options.bufferLimitBytes ?? SLOW_READER_LIMIT_BYTES;
  const resumeWindowMs = options.resumeWindowMs ?? RESUME_WINDOW_MS;
  // Trace notices (trace_updated, trace_config) travel the same fan-out as the host's live messages, to every stream.
  const live$ = options.notices$ !== undefined ? merge(runtimeHost.events$, options.notices$) : runtimeHost.events$;
  const fanout = new EventFanout(live$, options.log);
  const listFeed: SessionListFeed = createSessionListFeed(readSide, runtimeHost, (error) =>
    options.log.error({ err: error }, "session list feed error"),
  );
  const channels = new Map<string, Channel>();

  function open(focus: EventFocus, log: FastifyBaseLogger): Channel {
    const id = randomUUID();
    const stream = new EventStream({
      id,
      epoch: options.epoch,
      queueLimitBytes,
      onSlowReader: (details) => log.warn(details, "events socket closed: slow reader"),
      onEnd: () => {
        const channel = channels.get(id);
        if (channel === undefined) return;
        channels.delete(id);
        if (channel.expiry !== null) clearTimeout(channel.expiry);
        fanout.remove(channel.target);
        channel.list.unsubscribe();
        channel.session.close();
      },
    });
    const target: FanoutTarget = {
      get focus() {
        return channel.focus;
      },
      sendHead: (head) => stream.enqueue(head),
    };
    // The spec's opening: runtime snapshots, then the roster.
    const runtimes = runtimeHost.openRuntimes();
    for (const runtime of runtimes)
      for (const head of runtimeSnapshotHeads(runtime, isFullFor(focus, runtime.sessionId))) stream.enqueue(head);
    stream.enqueue(encodeMessageHead("runtime_roster", { sessionIds: runtimes.map((r) => r.sessionId) }));
    const session = createSessionFocus(stream, { readSide, runtimeHost, listFeed });
    const channel: Channel = {
      stream,
      focus,
      session,
      target,
      list: listFeed.events$.subscribe((event) => {
        stream.enqueue(event.type === "snapshot" ? encodeMessageHead("session_list", event.data) : event.head());
      }),
      expiry: null,
    };
    channels.set(id, channel);
    fanout.add(target);
    session.set(focusedSession(focus));
    return channel;
  }

  /**
   * Moves a channel's focus: the runtimes whose variant changes get a snapshot in their new variant. The same
   * focus again asks for the focused session's detail again.
   */
  function refocus(channel: Channel, sessionId: string): void {
    const before = channel.focus;
    const after = eventFocusOf(sessionId);
    if (before.kind === after.kind && focusedSession(before) === focusedSession(after)) {
      channel.session.set(focusedSession(after));
      return;
    }
    channel.focus = after;
    for (const runtime of runtimeHost.openRuntimes()) {
      const full = isFullFor(after, runtime.sessionId);
      if (full === isFullFor(before, runtime.sessionId)) continue;
      for (const head of runtimeSnapshotHeads(runtime, full)) channel.stream.enqueue(head);
    }
    channel.session.set(focusedSession(after));
  }

  function serve(socket: WebSocket, query: { sessionId?: string; stream?: string; after?: string }, log: FastifyBaseLogger): void {
    const after = query.after !== undefined && /^\d+$/.test(query.after) ? Number(query.after) : null;
    let channel = query.stream !== undefined ? channels.get(query.stream) : undefined;
    let resumedAfter: number | null = null;
    if (channel !== undefined && after !== null && channel.stream.canResume(after)) {
      // A client reconnecting before the server noticed its old socket is gone takes the stream over.
      channel.stream.takeOver(CLOSE_TAKEN_OVER, "resumed on another connection");
      resumedAfter = after;
    } else {
      // Not resumable (unknown, expired or too far behind): a fresh stream.
      if (channel !== undefined && !channel.stream.isAttached) channel.stream.end("replaced by a fresh stream");
      channel = open(eventFocusOf(query.sessionId), log);
    }
    const current = channel;
    if (current.expiry !== null) clearTimeout(current.expiry);
    current.expiry = null;
    current.stream.attach(socket, resumedAfter);
    if (
      resumedAfter !== null &&
      query.sessionId !== undefined &&
      focusedSession(eventFocusOf(query.sessionId)) !== focusedSession(current.focus)
    ) {
      refocus(current, query.sessionId);
    }

    const heartbeat = startHeartbeat(socket, heartbeatMs, () => current.stream.enqueue(encodeMessageHead("ping")));

    socket.on("message", (data: unknown, isBinary: boolean) => {
      const frame = readClientFrame(socket, data, isBinary, CLIENT_MESSAGE_LIMIT_BYTES);
      const message = frame === null ? null : parseClientMessage(frame.text);
      if (message === null) return;
      if (message.type === "pong") heartbeat.answered();
      else if (message.type === "focus") refocus(current, message.sessionId);
    });

    socket.on("close", () => {
      heartbeat.stop();
      current.stream.detach(socket);
      if (current.stream.isEnded || current.stream.isAttached) return;
      current.expiry = setTimeout(() => current.stream.end("not resumed"), resumeWindowMs);
      current.expiry.unref();
    });
  }

  return {
    serve,
    size: () => channels.size,
    close() {
      for (const channel of [...channels.values()]) channel.stream.end("server closing");
      listFeed.close();
    },
  };
}

export const eventsRoutes: FastifyPluginAsync<EventsRoutesOptions> = async (app, options) => {
  const channels = createEventChannels({ ...options, log: app.log });
  app.addHook("onClose", async () => channels.close());
  typed(app).route({
    method: "GET",
    url: EVENTS_PATH,
    schema: eventsSocket.schema,
    handler: async (_request, reply) => answerUpgradeRequired(reply),
    wsHandler: (socket, request) => channels.serve(socket, request.query, request.log),
  });
};
