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
 *
 * Rollout feedback (leyline.sqlite, `loadFeedback`) is overlaid on the entries in the worker, never written into a
 * file: before a file's first detail or subscription here, its session's feedback is read and told to the worker
 * (for a detail asked by file, whose session id only the worker's answer names, it is asked again once told).
 * `feedbackChanged(sessionId)` reads it again after a write and tells every file of the session told so far: the
 * worker makes that a new revision, so every open view of the session gets a delta with the changed entries.
 * Reads of one session's feedback run one after another, so the last one told is the database's latest.
 */
import { Worker } from "node:worker_threads";
import type { SessionDetail } from "../../domain/session-detail.ts";
import { sameFeedback, type EntryFeedbackMap } from "../../domain/rollout-feedback/rollout-feedback.ts";
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
  /**
   * The stored rollout feedback of a session changed: it is read again and told to the worker for every file of the
   * session shown so far (their feeds get a delta). Resolves once told.
   */
  feedbackChanged(sessionId: string): Promise<void>;
  close(): void;
}

export interface SessionDetailFeedsOptions {
  /** A session's stored rollout feedback by entry id; without it details carry none. */
  readonly loadFeedback?: (sessionId: string) => Promise<EntryFeedbackMap>;
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
  /** Rollout feedback by file (none: no entry), told again to a new worker. */
  private readonly feedback = new Map<string, EntryFeedbackMap>();

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

  /** Tells the worker a file's feedback (null: none); false when it has that already. */
  setFeedback(file: string, feedback: EntryFeedbackMap | null): boolean {
    const next = feedback !== null && Object.keys(feedback).length > 0 ? feedback : undefined;
    if (sameFeedback(this.feedback.get(file), next)) return false;
    if (next === undefined) this.feedback.delete(file);
    else this.feedback.set(file, next);
    // No worker yet: the feedback is told to it when it starts.
    if (this.worker !== null) this.worker.postMessage({ type: "feedback", file, feedback: next ?? null } satisfies DetailWorkerRequest);
    return true;
  }

  hasFeedback(file: string): boolean {
    return this.feedback.has(file);
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
    for (const [file, feedback] of this.feedback) worker.postMessage({ type: "feedback", file, feedback } satisfies DetailWorkerRequest);
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

export function createSessionDetailFeeds(options: SessionDetailFeedsOptions = {}): SessionDetailFeeds {
  const shared = (link ??= new DetailWorkerLink());
  shared.acquire();
  const mine = new Set<number>();
  const feedOf = new WeakMap<() => void, number>();
  /** Files whose moved leaf this instance told the shared worker (forgotten when it closes). */
  const movedByMe = new Set<string>();
  let closed = false;
  const { loadFeedback } = options;
  /** Sessions' feedback as last read, the read in flight per session (each waits for the one before). */
  const feedbackBook = new Map<string, EntryFeedbackMap>();
  const feedbackReads = new Map<string, Promise<EntryFeedbackMap>>();
  /** Files whose feedback this instance told the worker, with the session id it is of. */
  const toldFeedback = new Map<string, string>();

  /** Tells the worker a file's feedback; true when that changed what it had. */
  const tellFeedback = (file: string, sessionId: string, feedback: EntryFeedbackMap): boolean => {
    toldFeedback.set(file, sessionId);
    return shared.setFeedback(file, feedback);
  };

  /** Reads a session's feedback (after any read in flight) and tells it for the session's files told so far. */
  const readFeedback = (sessionId: string): Promise<EntryFeedbackMap> => {
    const load = loadFeedback;
    if (load === undefined) return Promise.resolve({});
    const before = feedbackReads.get(sessionId) ?? Promise.resolve({});
    const read = before
      .catch(() => undefined)
      .then(() => load(sessionId))
      .then((feedback) => {
        if (closed) return feedback;
        feedbackBook.set(sessionId, feedback);
        for (const [file, id] of toldFeedback) if (id === sessionId) tellFeedback(file, sessionId, feedback);
        return feedback;
      });
    feedbackReads.set(sessionId, read);
    const settle = (): void => {
      if (feedbackReads.get(sessionId) === read) feedbackReads.delete(sessionId);
    };
    read.then(settle, settle);
    return read;
  };

  /** A session's feedback: the read in flight, else the last read, else a new read. */
  const feedbackOf = (sessionId: string): Promise<EntryFeedbackMap> => {
    const reading = feedbackReads.get(sessionId);
    if (reading !== undefined) return reading;
    const known = feedbackBook.get(sessionId);
    return known !== undefined ? Promise.resolve(known) : readFeedback(sessionId);
  };

  /** Whether a file's feedback must be told before its detail is served. */
  const needsFeedback = (file: string, sessionId: string): boolean =>
    loadFeedback !== undefined && !closed && toldFeedback.get(file) !== sessionId;

  const requestDetail = async (file: string): Promise<DetailBody | null> => {
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

  const detailJson = async (file: string): Promise<DetailBody | null> => {
    const toldBefore = toldFeedback.get(file);
    const body = await requestDetail(file);
    if (body === null) return body;
    if (!needsFeedback(file, body.sessionId)) {
      // Told while this request was in flight (a socket subscribed at the same time): the body may predate it.
      return toldBefore !== body.sessionId && toldFeedback.get(file) === body.sessionId ? requestDetail(file) : body;
    }
    let feedback: EntryFeedbackMap;
    try {
      feedback = await feedbackOf(body.sessionId);
    } catch {
      return body; // (without feedback: the database could not be read)
    }
    if (closed) return body;
    // Asked again when the worker has feedback for the file (told now, or by a request at the same time).
    return tellFeedback(file, body.sessionId, feedback) || shared.hasFeedback(file) ? requestDetail(file) : body;
  };

  return {
    subscribe(file, sessionId, subscriber) {
      if (closed) return () => undefined;
      const feed = shared.id();
      shared.subscriptions.set(feed, { file, sessionId, subscriber });
      mine.add(feed);
      const open = (): void => {
        if (!mine.has(feed)) return;
        shared.post({ type: "open", feed, file, sessionId });
        shared.updateRef();
      };
      if (!needsFeedback(file, sessionId)) open();
      else {
        // The session's feedback first, so that the first snapshot carries it.
        feedbackOf(sessionId)
          .then(
            (feedback) => {
              if (!closed) tellFeedback(file, sessionId, feedback);
            },
            () => undefined,
          )
          .then(open, open);
      }
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
      let result = await shared.read(file, query);
      if (result === null) return { missing: "file" };
      // A branch read may be the first read of a file: its entries carry feedback only once the worker has it.
      if ("json" in result && needsFeedback(file, result.sessionId)) {
        try {
          const feedback = await feedbackOf(result.sessionId);
          if (!closed && (tellFeedback(file, result.sessionId, feedback) || shared.hasFeedback(file))) {
            result = (await shared.read(file, query)) ?? result;
          }
        } catch {
          // (without feedback: the database could not be read)
        }
      }
      return "json" in result ? { sessionId: result.sessionId, json: asBuffer(result.json) } : result;
    },
    moveLeaf(file, leaf) {
      if (closed) return;
      if (leaf === null) movedByMe.delete(file);
      else movedByMe.add(file);
      shared.moveLeaf(file, leaf);
    },
    async feedbackChanged(sessionId) {
      if (closed || loadFeedback === undefined) return;
      await readFeedback(sessionId);
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
      for (const file of toldFeedback.keys()) shared.setFeedback(file, null);
      toldFeedback.clear();
      feedbackBook.clear();
      shared.updateRef();
      shared.release();
    },
  };
}
