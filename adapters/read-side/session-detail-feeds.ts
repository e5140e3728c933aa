/**
 * Session details for the main thread, kept in the detail worker (detail-feed-host.ts, a worker thread): the
 * main thread never holds a transcript's objects, so a 50 MB session's fold and its garbage collection never
 * pause the server. It receives bytes only: events-socket message heads for subscribers (the events socket's
 * focused session) and the JSON of a detail (GET /api/pi/sessions/:id, write routes' answers). The JSON of the
 * last few details asked for stays here (by file and version): asking again for one that has not changed costs a
 * round trip to the worker (which checks the file) and no copy.
 *
 * One worker serves every app of the process (tests build many), started on first use; when the last user
 * closes it drops every file it holds but stays up for the next one (it does not keep the process alive). A worker that dies is started again and every open
 * subscription is opened again on it (its subscriber gets a fresh snapshot); a detail request it had not
 * answered is asked again.
 */
import { Worker } from "node:worker_threads";
import type { SessionDetail } from "../../domain/session-detail.ts";
import type { MovedLeaf } from "../../domain/session-tree-view.ts";
import type { DetailJson, DetailQuery, FeedMessage, ReadResult } from "./detail-feed-host.ts";
import type { DetailWorkerReply, DetailWorkerRequest } from "./detail-worker-protocol.ts";

export interface DetailSubscriber {
  /** A `session_loading` message head. */
  loading(head: Buffer): void;
  /** The `session_snapshot` chunks of revision `revision`. */
  snapshot(revision: number, chunks: Buffer[]): void;
  /** A `session_delta` message head. */
  delta(base: number, revision: number, head: Buffer): void;
  /** A `session_unavailable` message head (the file is gone or not a session). */
  unavailable(head: Buffer): void;
}

export interface DetailBody {
  readonly sessionId: string;
  readonly revision: number;
  /** The SessionDetail's JSON. */
  readonly json: Buffer;
}

export interface SessionDetailFeeds {
  /** Subscribes to a file's detail, known to the subscriber as `sessionId`; returns the unsubscribe. */
  subscribe(file: string, sessionId: string, subscriber: DetailSubscriber): () => void;
  /** Asks for a fresh snapshot for a subscription (a subscriber that lost step). */
  resnapshot(unsubscribe: () => void): void;
  /** The current detail of a file as JSON, up to date with it; null when missing or not a session. */
  detailJson(file: string): Promise<DetailBody | null>;
  /** The same, parsed (for the few callers that need the object). */
  detail(file: string): Promise<SessionDetail | null>;
  /** The tree of a file or one branch's transcript as JSON (detail-feed-host.ts `read`). */
  read(
    file: string,
    query: DetailQuery,
  ): Promise<{ readonly sessionId: string; readonly json: Buffer } | { readonly missing: "file" | "entry" }>;
  /** A runtime's leaf of `file` moved without writing, or that ended (null): details show that branch meanwhile. */
  moveLeaf(file: string, leaf: MovedLeaf | null): void;
  close(): void;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Starts the worker: its TypeScript entry through tsx's loader, registered inside the thread. */
function startWorker(): Worker {
  const entry = new URL("./detail-worker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, name: "leyline-details" });
}

interface Subscription {
  readonly file: string;
  readonly sessionId: string;
  readonly subscriber: DetailSubscriber;
}

/** The process's detail worker, shared by every SessionDetailFeeds. */
class DetailWorkerLink {
  private worker: Worker | null = null;
  private users = 0;
  private nextId = 0;
  readonly subscriptions = new Map<number, Subscription>();
  private readonly requests = new Map<
    number,
    { file: string; known: string | undefined; resolve: (result: DetailJson | null) => void; reject: (error: Error) => void }
  >();
  private readonly reads = new Map<
    number,
    { file: string; query: DetailQuery; resolve: (result: ReadResult | null) => void; reject: (error: Error) => void }
  >();
  /** Moved leaves by file, told again to a new worker. */
  private readonly movedLeaves = new Map<string, MovedLeaf>();

  acquire(): void {
    this.users++;
  }

  release(): void {
    this.users = Math.max(0, this.users - 1);
    if (this.users === 0 && this.worker !== null) this.worker.postMessage({ type: "reset" } satisfies DetailWorkerRequest);
  }

  id(): number {
    return ++this.nextId;
  }

  post(request: DetailWorkerRequest): void {
    this.ensure().postMessage(request);
  }

  request(file: string, known?: string): Promise<DetailJson | null> {
    const request = this.id();
    return new Promise((resolve, reject) => {
      this.requests.set(request, { file, known, resolve, reject });
      this.post({ type: "detail", request, file, ...(known !== undefined ? { known } : {}) });
      this.updateRef();
    });
  }

  read(file: string, query: DetailQuery): Promise<ReadResult | null> {
    const request = this.id();
    return new Promise((resolve, reject) => {
      this.reads.set(request, { file, query, resolve, reject });
      this.post({ type: "read", request, file, query });
      this.updateRef();
    });
  }

  moveLeaf(file: string, leaf: MovedLeaf | null): void {
    if (leaf === null) this.movedLeaves.delete(file);
    else this.movedLeaves.set(file, leaf);
    // No worker yet: the leaf is told to it when it starts.
    if (this.worker !== null) this.worker.postMessage({ type: "moveLeaf", file, leaf } satisfies DetailWorkerRequest);
  }

  /** The worker keeps the process alive only while something waits for it (a request, a subscription). */
  updateRef(): void {
    if (this.worker === null) return;
    if (this.requests.size > 0 || this.reads.size > 0 || this.subscriptions.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  private ensure(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = startWorker();
    this.worker = worker;
    for (const [file, leaf] of this.movedLeaves) worker.postMessage({ type: "moveLeaf", file, leaf } satisfies DetailWorkerRequest);
    worker.on("message", (reply: DetailWorkerReply) => this.onReply(reply));
    worker.on("error", () => undefined); // followed by "exit"
    worker.on("exit", () => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (this.users === 0) return;
      // Open everything again on a new worker: subscribers get a fresh snapshot, requests are asked again.
      for (const [feed, subscription] of this.subscriptions)
        this.post({ type: "open", feed, file: subscription.file, sessionId: subscription.sessionId });
      for (const [request, pending] of this.requests) this.post({ type: "detail", request, file: pending.file });
      for (const [request, pending] of this.reads) this.post({ type: "read", request, file: pending.file, query: pending.query });
      // (asked again without `known`: the new worker's versions are new)
    });
    // (after the listeners: adding a "message" listener refs the worker again)
    worker.unref();
    return worker;
  }

  private onReply(reply: DetailWorkerReply): void {
    if (reply.type === "ready") return;
    if (reply.type === "detail") {
      const pending = this.requests.get(reply.request);
      if (pending === undefined) return;
      this.requests.delete(reply.request);
      this.updateRef();
      if (reply.error !== undefined) pending.reject(new Error(reply.error));
      else pending.resolve(reply.result);
      return;
    }
    if (reply.type === "read") {
      const pending = this.reads.get(reply.request);
      if (pending === undefined) return;
      this.reads.delete(reply.request);
      this.updateRef();
      if (reply.error !== undefined) pending.reject(new Error(reply.error));
      else pending.resolve(reply.result);
      return;
    }
    this.onFeed(reply);
  }

  private onFeed(message: FeedMessage): void {
    const subscription = this.subscriptions.get(message.feed);
    if (subscription === undefined) return;
    const { subscriber } = subscription;
    switch (message.type) {
      case "loading":
        subscriber.loading(asBuffer(message.head));
        return;
      case "snapshot":
        subscriber.snapshot(message.revision, message.chunks.map(asBuffer));
        return;
      case "delta":
        subscriber.delta(message.base, message.revision, asBuffer(message.head));
        return;
      case "unavailable":
        subscriber.unavailable(asBuffer(message.head));
        return;
    }
  }
}

let link: DetailWorkerLink | null = null;

/** Detail bodies the main thread holds, by file: a repeated request for an unchanged detail sends these bytes. */
const BODY_CACHE_ENTRIES = 6;
const BODY_CACHE_BYTES = 256 * 1024 * 1024;
const bodies = new Map<string, { version: string; body: DetailBody }>();

function rememberBody(file: string, version: string, body: DetailBody): void {
  bodies.delete(file);
  bodies.set(file, { version, body });
  let bytes = 0;
  for (const [key, entry] of [...bodies.entries()].reverse()) {
    bytes += entry.body.json.length;
    if (bytes > BODY_CACHE_BYTES || bodies.size > BODY_CACHE_ENTRIES) bodies.delete(key);
  }
}

export function createSessionDetailFeeds(): SessionDetailFeeds {
  const shared = (link ??= new DetailWorkerLink());
  shared.acquire();
  const mine = new Set<number>();
  const feedOf = new WeakMap<() => void, number>();
  /** Files whose moved leaf this instance told the shared worker (forgotten when it closes). */
  const movedByMe = new Set<string>();
  let closed = false;

  const detailJson = async (file: string): Promise<DetailBody | null> => {
    if (closed) return null;
    const held = bodies.get(file);
    const result = await shared.request(file, held?.version);
    if (result === null) {
      bodies.delete(file);
      return null;
    }
    if (result.json === null && held !== undefined && held.version === result.version) {
      rememberBody(file, held.version, held.body); // most recently used
      return held.body;
    }
    const parts = (result.json ?? []).map(asBuffer);
    const body: DetailBody = { sessionId: result.sessionId, revision: result.revision, json: Buffer.concat(parts) };
    rememberBody(file, result.version, body);
    return body;
  };

  return {
    subscribe(file, sessionId, subscriber) {
      if (closed) return () => undefined;
      const feed = shared.id();
      shared.subscriptions.set(feed, { file, sessionId, subscriber });
      mine.add(feed);
      shared.post({ type: "open", feed, file, sessionId });
      shared.updateRef();
      const unsubscribe = (): void => {
        if (!mine.delete(feed)) return;
        shared.subscriptions.delete(feed);
        shared.post({ type: "closeFeed", feed });
        shared.updateRef();
      };
      feedOf.set(unsubscribe, feed);
      return unsubscribe;
    },
    resnapshot(unsubscribe) {
      const feed = feedOf.get(unsubscribe);
      if (feed !== undefined && mine.has(feed)) shared.post({ type: "snapshot", feed });
    },
    detailJson,
    async detail(file) {
      const body = await detailJson(file);
      return body === null ? null : (JSON.parse(body.json.toString("utf8")) as SessionDetail);
    },
    async read(file, query) {
      if (closed) return { missing: "file" };
      const result = await shared.read(file, query);
      if (result === null) return { missing: "file" };
      return "json" in result ? { sessionId: result.sessionId, json: asBuffer(result.json) } : result;
    },
    moveLeaf(file, leaf) {
      if (closed) return;
      if (leaf === null) movedByMe.delete(file);
      else movedByMe.add(file);
      shared.moveLeaf(file, leaf);
    },
    close() {
      if (closed) return;
      closed = true;
      for (const feed of mine) {
        shared.subscriptions.delete(feed);
        shared.post({ type: "closeFeed", feed });
      }
      // (a feed exists only once the worker does: nothing above starts one)
      mine.clear();
      for (const file of movedByMe) shared.moveLeaf(file, null);
      movedByMe.clear();
      shared.updateRef();
      shared.release();
    },
  };
}
