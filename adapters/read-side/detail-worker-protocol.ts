/** Messages between the main thread (session-detail-feeds.ts) and the detail worker (detail-worker.ts). */
import type { DetailJson, FeedMessage } from "./detail-feed-host.ts";

export type DetailWorkerRequest =
  | { readonly type: "open"; readonly feed: number; readonly file: string; readonly sessionId: string }
  | { readonly type: "snapshot"; readonly feed: number }
  | { readonly type: "closeFeed"; readonly feed: number }
  /** `known`: the version the main thread holds the JSON of (the answer then leaves the JSON out). */
  | { readonly type: "detail"; readonly request: number; readonly file: string; readonly known?: string }
  /** Nobody on the main thread uses the worker now: close every file. */
  | { readonly type: "reset" };

export type DetailWorkerReply =
  | { readonly type: "ready" }
  | FeedMessage
  | { readonly type: "detail"; readonly request: number; readonly result: DetailJson | null; readonly error?: string };
