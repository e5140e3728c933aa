/**
 * Git review routes (spec "Git review routes"): GET /api/pi/review (the status list), GET /api/pi/review/diff (one
 * file's diff sections) and WS /api/pi/review/events (a hint to fetch again). Thin over adapters/git-review/.
 *
 * The socket: a missing cwd answers 400 before the upgrade (the contract's query schema), a plain GET 426. Messages
 * are `{ type, data }` JSON text (domain/contract/http-review.ts): `review_ready` once the shared watcher of the
 * repository is set up, `review_change { root }` (coalesced; at most one unwritten per socket, so a slow reader
 * holds no growing queue), then at most one final message: `review_unavailable` (a non-Git folder, a repository
 * that disappeared; the socket closes normally) or `review_watch_error { message, retry? }` (closes with 1011;
 * `retry: false`, our addition: reconnecting would fail the same way, the watch budget or the system limit). The
 * heartbeat is the events socket's (spec "Event WebSockets"): `{"type":"ping"}` every `heartbeatMs`, the exact
 * reply `{"type":"pong"}`, a missing reply terminates the socket; a client message over 1 KiB closes it with 1009;
 * other client messages are ignored.
 */
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { WebSocket } from "ws";
import {
  createReviewWatchers,
  type ReviewWatchers,
  type ReviewWatchersOptions,
  type ReviewWatchEvent,
} from "../adapters/git-review/review-watcher.ts";
import { readReviewDiff } from "../adapters/git-review/review-diff.ts";
import { readReviewStatus } from "../adapters/git-review/review-status.ts";
import { reviewDiff, reviewEventsSocket, reviewStatus, type ReviewServerMessage } from "../domain/contract/http-review.ts";
import { PONG_TEXT } from "../domain/live/live-messages.ts";
import { typed } from "./contract.ts";
import {
  answerUpgradeRequired,
  CLIENT_MESSAGE_LIMIT_BYTES,
  HEARTBEAT_INTERVAL_MS,
  readClientFrame,
  startHeartbeat,
} from "./socket-frames.ts";

export interface ReviewRoutesOptions {
  /** Review events socket heartbeat period. Default 30 s. */
  readonly heartbeatMs?: number;
  /** How the review watchers work (tests: a small watch budget). */
  readonly watchers?: ReviewWatchersOptions;
}

/** WebSocket close code "Internal Error": the watcher failed; the client reconnects (unless `retry: false`). */
export const CLOSE_WATCH_ERROR = 1011;
/** WebSocket close code "Normal Closure": after review_unavailable. */
export const CLOSE_UNAVAILABLE = 1000;

const PING_TEXT = JSON.stringify({ type: "ping" });

/** The review watchers of each app (by its server), for tests that count watchers. */
const watchersByServer = new WeakMap<object, ReviewWatchers>();

/** Test hook: the review watchers behind an app's review events socket. */
export function reviewWatchersOf(app: FastifyInstance): ReviewWatchers | undefined {
  return watchersByServer.get(app.server);
}

function messageOf(event: ReviewWatchEvent): ReviewServerMessage {
  switch (event.type) {
    case "review_ready":
      return { type: "review_ready", data: {} };
    case "review_change":
      return { type: "review_change", data: { root: event.root } };
    case "review_unavailable":
      return { type: "review_unavailable", data: {} };
    case "review_watch_error":
      return {
        type: "review_watch_error",
        data: event.retry === false ? { message: event.message, retry: false } : { message: event.message },
      };
  }
}

/** Serves one review socket until it closes. */
function serveReviewSocket(socket: WebSocket, cwd: string, watchers: ReviewWatchers, heartbeatMs: number): void {
  const open = (): boolean => socket.readyState === socket.OPEN;
  let changeUnwritten = false;
  let changeAgain: ReviewServerMessage | null = null;

  const sendChange = (message: ReviewServerMessage): void => {
    if (!open()) return;
    if (changeUnwritten) {
      changeAgain = message;
      return;
    }
    changeUnwritten = true;
    socket.send(JSON.stringify(message), () => {
      changeUnwritten = false;
      const again = changeAgain;
      changeAgain = null;
      if (again !== null) sendChange(again);
    });
  };

  const unsubscribe = watchers.subscribe(cwd, (event) => {
    if (!open()) return;
    const message = messageOf(event);
    if (event.type === "review_change") return sendChange(message);
    socket.send(JSON.stringify(message));
    if (event.type === "review_unavailable") socket.close(CLOSE_UNAVAILABLE, "Review unavailable");
    else if (event.type === "review_watch_error") socket.close(CLOSE_WATCH_ERROR, "Review watcher failed");
  });

  const heartbeat = startHeartbeat(socket, heartbeatMs, () => {
    if (open()) socket.send(PING_TEXT);
  });

  socket.on("message", (data: unknown, isBinary: boolean) => {
    if (readClientFrame(socket, data, isBinary, CLIENT_MESSAGE_LIMIT_BYTES)?.text === PONG_TEXT) heartbeat.answered();
  });

  socket.on("close", () => {
    heartbeat.stop();
    unsubscribe();
  });
}

export const reviewRoutes: FastifyPluginAsync<ReviewRoutesOptions> = async (app, options) => {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  const watchers = createReviewWatchers(options.watchers);
  watchersByServer.set(app.server, watchers);
  app.addHook("onClose", async () => watchers.close());
  const api = typed(app);

  api.get(reviewStatus.url, { schema: reviewStatus.schema }, async (request) => readReviewStatus(request.query.cwd));

  api.get(reviewDiff.url, { schema: reviewDiff.schema }, async (request) => readReviewDiff(request.query.cwd, request.query.path));

  api.route({
    method: "GET",
    url: reviewEventsSocket.url,
    schema: reviewEventsSocket.schema,
    handler: async (_request, reply) => answerUpgradeRequired(reply),
    wsHandler: (socket, request) => serveReviewSocket(socket, request.query.cwd, watchers, heartbeatMs),
  });
};
