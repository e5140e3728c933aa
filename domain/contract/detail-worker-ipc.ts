/**
 * Every message between the main thread and the detail worker thread (adapters/read-side: session-detail-feeds.ts
 * posts requests, detail-worker.ts answers; detail-worker-protocol.ts proves its types equal to these schemas).
 *
 * Declared, not checked at run time: both ends are threads of one process running one build, and a message
 * crosses by structured clone (the bytes as Uint8Array, which JSON Schema cannot describe), so it is always what
 * the sending code's types allow. A runtime worker (worker-ipc.ts) is another process, perhaps another build,
 * and its messages are checked.
 */
import { Type } from "typebox";
import { ROLLOUT_FEEDBACK_LABELS } from "../rollout-feedback/rollout-feedback.ts";
import { literals } from "./schema-kit.ts";

const Bytes = Type.Unsafe<Uint8Array>({
  description: "Bytes (a Uint8Array, structured-cloned): an events-socket message head or a JSON part.",
});
const feed = Type.Number({ description: "The feed (one subscriber on the main thread)." });

/** What a `read` asks for (detail-feed-host.ts DetailQuery). */
export const DetailQuery = Type.Union([
  Type.Object({ kind: Type.Literal("tree"), since: Type.Optional(Type.Object({ from: Type.Number(), after: Type.String() })) }),
  Type.Object({ kind: Type.Literal("branch"), leafId: Type.String() }),
]);

/** domain/session-tree-view.ts MovedLeaf. */
const MovedLeaf = Type.Object({ leafId: Type.Union([Type.String(), Type.Null()]), lastEntryId: Type.Union([Type.String(), Type.Null()]) });

/** domain/rollout-feedback/rollout-feedback.ts EntryFeedbackMap: a session's stored feedback by entry id. */
const EntryFeedbackMap = Type.Record(Type.String(), Type.Object({ label: literals(ROLLOUT_FEEDBACK_LABELS), text: Type.String() }));

export const DetailWorkerRequest = Type.Union(
  [
    Type.Object({ type: Type.Literal("open"), feed, file: Type.String(), sessionId: Type.String() }),
    Type.Object({ type: Type.Literal("snapshot"), feed }),
    Type.Object({ type: Type.Literal("closeFeed"), feed }),
    Type.Object({
      type: Type.Literal("detail"),
      request: Type.Number(),
      file: Type.String(),
      known: Type.Optional(
        Type.String({ description: "The version the main thread holds the JSON of (the answer then leaves the JSON out)." }),
      ),
    }),
    Type.Object({ type: Type.Literal("reset") }, { description: "Nobody on the main thread uses the worker now: close every file." }),
    Type.Object(
      { type: Type.Literal("read"), request: Type.Number(), file: Type.String(), query: DetailQuery },
      { description: "Another read model of a file (its tree, one branch's transcript) as JSON." },
    ),
    Type.Object(
      { type: Type.Literal("moveLeaf"), file: Type.String(), leaf: Type.Union([MovedLeaf, Type.Null()]) },
      { description: "A runtime's leaf of the file moved without writing (null: that ended); details show its branch." },
    ),
    Type.Object(
      { type: Type.Literal("feedback"), file: Type.String(), feedback: Type.Union([EntryFeedbackMap, Type.Null()]) },
      { description: "The stored rollout feedback of the file's session (null: none): its entries carry it." },
    ),
  ],
  { title: "DetailWorkerRequest" },
);

/** The answer to a `read` (detail-feed-host.ts ReadResult): the JSON, or what was missing. */
export const ReadResult = Type.Union([
  Type.Object({ sessionId: Type.String(), json: Bytes }),
  Type.Object({ missing: Type.Union([Type.Literal("file"), Type.Literal("entry")]) }),
]);

/** What one feed is sent (detail-feed-host.ts FeedMessage). */
export const FeedMessage = Type.Union([
  Type.Object({ type: Type.Literal("loading"), feed, head: Bytes }),
  Type.Object({ type: Type.Literal("snapshot"), feed, revision: Type.Number(), chunks: Type.Array(Bytes) }),
  Type.Object({ type: Type.Literal("delta"), feed, base: Type.Number(), revision: Type.Number(), head: Bytes }),
  Type.Object({ type: Type.Literal("unavailable"), feed, head: Bytes }),
]);

/** A session's detail as JSON parts (detail-feed-host.ts DetailJson). */
export const DetailJson = Type.Object({
  sessionId: Type.String(),
  revision: Type.Number(),
  version: Type.String(),
  json: Type.Union([Type.Array(Bytes), Type.Null()]),
});

export const DetailWorkerReply = Type.Union(
  [
    Type.Object({ type: Type.Literal("ready") }),
    FeedMessage,
    Type.Object({
      type: Type.Literal("detail"),
      request: Type.Number(),
      result: Type.Union([DetailJson, Type.Null()]),
      error: Type.Optional(Type.String()),
    }),
    Type.Object({
      type: Type.Literal("read"),
      request: Type.Number(),
      result: Type.Union([ReadResult, Type.Null()]),
      error: Type.Optional(Type.String()),
    }),
  ],
  { title: "DetailWorkerReply" },
);
