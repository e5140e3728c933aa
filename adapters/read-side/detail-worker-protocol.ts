/**
 * Messages between the main thread (session-detail-feeds.ts) and the detail worker (detail-worker.ts): the
 * schemas of domain/contract/detail-worker-ipc.ts, whose static types these are proven equal to.
 */
import type { Static } from "typebox";
import type {
  DetailJson as DetailJsonSchema,
  DetailQuery as DetailQuerySchema,
  ReadResult as ReadResultSchema,
  DetailWorkerReply as DetailWorkerReplySchema,
  DetailWorkerRequest as DetailWorkerRequestSchema,
  FeedMessage as FeedMessageSchema,
} from "../../domain/contract/detail-worker-ipc.ts";
import type { SameType } from "../../domain/contract/schema-kit.ts";
import type { EntryFeedbackMap } from "../../domain/rollout-feedback/rollout-feedback.ts";
import type { MovedLeaf } from "../../domain/session-tree-view.ts";
import type { DetailJson, DetailQuery, FeedMessage, ReadResult } from "./detail-feed-host.ts";

export type DetailWorkerRequest =
  | { readonly type: "open"; readonly feed: number; readonly file: string; readonly sessionId: string }
  | { readonly type: "snapshot"; readonly feed: number }
  | { readonly type: "closeFeed"; readonly feed: number }
  /** `known`: the version the main thread holds the JSON of (the answer then leaves the JSON out). */
  | { readonly type: "detail"; readonly request: number; readonly file: string; readonly known?: string }
  /** Nobody on the main thread uses the worker now: close every file. */
  | { readonly type: "reset" }
  | { readonly type: "read"; readonly request: number; readonly file: string; readonly query: DetailQuery }
  | { readonly type: "moveLeaf"; readonly file: string; readonly leaf: MovedLeaf | null }
  /** The stored rollout feedback of the file's session (null: none): its details' entries carry it. */
  | { readonly type: "feedback"; readonly file: string; readonly feedback: EntryFeedbackMap | null };

export type DetailWorkerReply =
  | { readonly type: "ready" }
  | FeedMessage
  | { readonly type: "detail"; readonly request: number; readonly result: DetailJson | null; readonly error?: string }
  | { readonly type: "read"; readonly request: number; readonly result: ReadResult | null; readonly error?: string };

const _request: SameType<Static<typeof DetailWorkerRequestSchema>, DetailWorkerRequest> = true;
const _reply: SameType<Static<typeof DetailWorkerReplySchema>, DetailWorkerReply> = true;
const _feed: SameType<Static<typeof FeedMessageSchema>, FeedMessage> = true;
const _json: SameType<Static<typeof DetailJsonSchema>, DetailJson> = true;
const _query: SameType<Static<typeof DetailQuerySchema>, DetailQuery> = true;
const _read: SameType<Static<typeof ReadResultSchema>, ReadResult> = true;
void [_request, _reply, _feed, _json, _query, _read];
