/**
 * The detail worker's entry (a worker thread; session-detail-feeds.ts starts it): a DetailFeedHost driven by
 * messages from the main thread. Its replies are bytes (message heads, JSON parts), copied across.
 */
import { parentPort } from "node:worker_threads";
import { createDetailFeedHost } from "./detail-feed-host.ts";
import type { DetailWorkerReply, DetailWorkerRequest } from "./detail-worker-protocol.ts";

const port = parentPort;
if (port === null) throw new Error("detail-worker.ts runs as a worker thread");
const send = (message: DetailWorkerReply): void => port.postMessage(message);
const host = createDetailFeedHost({ send });

port.on("message", (request: DetailWorkerRequest) => {
  switch (request.type) {
    case "open":
      host.open(request.feed, request.file, request.sessionId);
      return;
    case "snapshot":
      host.snapshot(request.feed);
      return;
    case "closeFeed":
      host.closeFeed(request.feed);
      return;
    case "reset":
      host.reset();
      return;
    case "moveLeaf":
      host.moveLeaf(request.file, request.leaf);
      return;
    case "feedback":
      host.setFeedback(request.file, request.feedback);
      return;
    case "read":
      host.read(request.file, request.query).then(
        (result) => send({ type: "read", request: request.request, result }),
        (error: unknown) =>
          send({ type: "read", request: request.request, result: null, error: error instanceof Error ? error.message : String(error) }),
      );
      return;
    case "detail":
      host.detail(request.file, request.known).then(
        (result) => send({ type: "detail", request: request.request, result }),
        (error: unknown) =>
          send({ type: "detail", request: request.request, result: null, error: error instanceof Error ? error.message : String(error) }),
      );
      return;
  }
});
send({ type: "ready" });
