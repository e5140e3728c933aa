/**
 * The full-text search index of every listed session, kept up to date from the same session files the session
 * index lists, and the search over it.
 *
 * Driven by the session index (adapters/read-side/session-index.ts): its snapshot names every listed file and
 * its `changed` events name the files that changed or went. Each named file is checked against its own search
 * checkpoint (`search_files`: stat, byte offset, fingerprint, decoder state, format) and only what was appended
 * since is read, decoded (the same decoder as the transcript, so version-1 files get the same deterministic ids)
 * and turned into documents (domain/search/search-documents.ts). A file that shrank, was replaced or rewritten
 * (adapters/session-files/file-tail.ts detects it) has its rows deleted and is indexed again from byte 0; a file
 * that is gone or no longer listed has its rows deleted. Rows made by another SEARCH_FORMAT are all dropped at
 * start and rebuilt from the files, as are missing ones: leyline.sqlite is only a cache.
 *
 * Never holding the event loop for long: files are read in slices of `sliceBytes`, documents are written in
 * transactions of about `flushChars` characters (the checkpoint of a file moves in the same transaction as its
 * rows), and the indexer yields to the event loop whenever `budgetMs` of work went by. Least recently active
 * sessions first (see `oldestFirst`).
 *
 * Start: indexing begins `startDelayMs` after `start()` (the app calls it once the session list is ready), or at
 * the first search, whichever comes first: an app that starts and stops at once (a test) does no indexing.
 * Nothing is ever written into pi's folder.
 */
import { performance } from "node:perf_hooks";
import type { Kysely } from "kysely";
import type { Subscription } from "rxjs";
import { searchDocumentsOf, type SearchDocument } from "../../domain/search/search-documents.ts";
import { matchExpression, searchTerms, type SearchTerms } from "../../domain/search/search-query.ts";
import {
  DEFAULT_SEARCH_LIMIT,
  HITS_PER_SESSION,
  sameSearchFolder,
  type SearchAnswer,
  type SearchIndexStatus,
  type SearchResult,
} from "../../domain/search/search-result.ts";
import { snippetOf } from "../../domain/search/search-snippet.ts";
import type { SessionSummary } from "../../domain/session-summary.ts";
import { createIndexWorkQueue, type IndexWorkQueue } from "../read-side/index-work-queue.ts";
import type { SessionIndex } from "../read-side/session-index.ts";
import { statSessionFile } from "../read-side/session-files-scan.ts";
import { sameStamp, type FileStamp } from "../session-files/file-tail.ts";
import { readSessionFile, type SessionFilePosition } from "../session-files/session-file-reader.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import { createSearchStore, type SearchFileWrite, type SearchStore } from "./search-store.ts";

/** Bumped when what is indexed or how changes: every file is then indexed again. */
export const SEARCH_FORMAT = 1;
/** The format of a file whose stored rows are in doubt (a failed write): it is indexed again from byte 0. */
const UNKNOWN_FORMAT = -1;

export interface SearchIndexerOptions {
  readonly db: Kysely<LeylineDatabase>;
  readonly index: SessionIndex<SessionSummary>;
  /** Errors of background indexing (they never stop it). */
  readonly onError?: (error: unknown) => void;
  /** Delay between `start()` and the first indexing pass (default 1000 ms; a search starts it at once). */
  readonly startDelayMs?: number;
  /** Bytes of a file read at once (default 256 KiB). */
  readonly sliceBytes?: number;
  /** Characters of documents written per transaction (default 128 Ki). */
  readonly flushChars?: number;
  /** Work between yields to the event loop, in ms (default 10). */
  readonly budgetMs?: number;
}

export interface SearchRequest {
  readonly text: string;
  readonly limit?: number;
  /** Only sessions of this folder. */
  readonly cwd?: string;
}

export interface SearchIndexer {
  /** Schedules the first pass (see the module comment); later calls do nothing. */
  start(): void;
  /** Resolves when the first pass is done (never rejects). */
  readonly ready: Promise<void>;
  status(): SearchIndexStatus;
  /** Ranked hits, at most HITS_PER_SESSION per session; what is indexed so far while the first pass runs. */
  search(request: SearchRequest): Promise<SearchAnswer>;
  /** Resolves when the indexing asked for so far is written. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

interface FileHead {
  readonly stamp: FileStamp;
  readonly format: number;
  readonly sessionId: string;
  readonly cwd: string;
}

/** How long a search waits for a first pass that is under way before it answers what is indexed so far. */
const FIRST_PASS_WAIT_MS = 250;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function createSearchIndexer(options: SearchIndexerOptions): SearchIndexer {
  const { index } = options;
  const onError = options.onError ?? (() => undefined);
  const sliceBytes = options.sliceBytes ?? 256 * 1024;
  const flushChars = options.flushChars ?? 128 * 1024;
  const budgetMs = options.budgetMs ?? 10;
  let store: SearchStore | null = null;
  const heads = new Map<string, FileHead>();
  /** Listed files whose rows match the file as last seen. */
  const current = new Set<string>();
  let isReady = false;
  let closed = false;
  let started = false;
  let startTimer: NodeJS.Timeout | null = null;
  let subscription: Subscription | null = null;
  let pending: SearchFileWrite[] = [];
  let pendingChars = 0;
  let sliceStarted = performance.now();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const queue: IndexWorkQueue = createIndexWorkQueue((paths) => processPaths(paths), onError);
  queue.open();

  async function flush(): Promise<void> {
    if (pending.length === 0 || store === null) return;
    // A write is a slice of work of its own: it does not add to the reading before it.
    await breathe(0);
    const operations = pending;
    pending = [];
    pendingChars = 0;
    try {
      await store.write(operations);
      sliceStarted = performance.now();
    } catch (error) {
      // Nothing of the batch was stored: its files are indexed again from byte 0 when next named.
      for (const operation of operations) {
        current.delete(operation.path);
        const head = heads.get(operation.path);
        if (head !== undefined) heads.set(operation.path, { ...head, format: UNKNOWN_FORMAT });
      }
      throw error;
    }
  }

  /** Yields to the event loop when the current slice of work used its budget (`budget` ms). */
  async function breathe(budget: number = budgetMs): Promise<void> {
    if (performance.now() - sliceStarted < budget) return;
    await yieldToEventLoop();
    sliceStarted = performance.now();
  }

  function drop(file: string): void {
    current.delete(file);
    if (!heads.has(file)) return;
    heads.delete(file);
    pending.push({ kind: "drop", path: file });
  }

  async function indexFile(file: string): Promise<void> {
    const head = heads.get(file);
    if (index.get(file) === null) return drop(file);
    const stamp = statSessionFile(file);
    if (stamp === null) return drop(file);
    if (head !== undefined && head.format === SEARCH_FORMAT && sameStamp(head.stamp, stamp)) {
      current.add(file);
      return;
    }
    current.delete(file);
    // A batch names a file once, and writes what it read before the next batch: the stored position is current.
    let position: SessionFilePosition | null =
      head !== undefined && head.format === SEARCH_FORMAT && store !== null ? await store.loadPosition(file) : null;
    let restart = head !== undefined && position === null;
    let sessionId = head?.sessionId ?? "";
    let cwd = head?.cwd ?? "";
    for (;;) {
      if (closed) return;
      const read = readSessionFile(file, position, { maxBytes: sliceBytes });
      if (read.kind === "missing") return drop(file);
      if (read.kind === "unchanged") break;
      if (read.kind === "restarted") restart = true;
      const documents: SearchDocument[] = [];
      let chars = 0;
      for (const record of read.records) {
        if (record.kind === "header") {
          sessionId = record.header.id;
          cwd = typeof record.header.cwd === "string" ? record.header.cwd : "";
        } else if (record.kind === "entry") {
          for (const document of searchDocumentsOf(record.entry)) {
            documents.push(document);
            chars += document.text.length;
          }
        }
      }
      position = read.position;
      pending.push({ kind: "put", path: file, restart, sessionId, cwd, position, format: SEARCH_FORMAT, documents });
      heads.set(file, { stamp: position.stamp, format: SEARCH_FORMAT, sessionId, cwd });
      restart = false;
      pendingChars += chars;
      if (pendingChars >= flushChars) await flush();
      if (read.more !== true) break;
      await breathe();
    }
    if (position !== null) current.add(file);
  }

  /**
   * Least recently active sessions first, so that documents are numbered roughly in the order of the work they
   * come from: a query whose words are everywhere ranks the most recent matches (search-store.ts RECENT_MATCHES).
   */
  function oldestFirst(paths: Iterable<string>): string[] {
    const modified = new Map<string, string>();
    for (const file of paths) modified.set(file, index.get(file)?.modified ?? "");
    return [...modified.keys()].sort((a, b) => {
      const am = modified.get(a) as string;
      const bm = modified.get(b) as string;
      return am === bm ? (a < b ? -1 : a > b ? 1 : 0) : am < bm ? -1 : 1;
    });
  }

  async function processPaths(paths: ReadonlySet<string>): Promise<void> {
    if (store === null) return;
    sliceStarted = performance.now();
    for (const file of oldestFirst(paths)) {
      if (closed) break;
      try {
        await indexFile(file);
      } catch (error) {
        // A file that cannot be read now is tried again when it is next named (a change, a rescan, a restart).
        pending = pending.filter((operation) => operation.path !== file);
        current.delete(file);
        const head = heads.get(file);
        if (head !== undefined) heads.set(file, { ...head, format: UNKNOWN_FORMAT });
        onError(error);
      }
      await breathe();
    }
    await flush();
  }

  async function begin(): Promise<void> {
    if (closed) return;
    try {
      store = createSearchStore(options.db);
      const stored = await store.loadHeads();
      if ([...stored.values()].some((head) => head.format !== SEARCH_FORMAT)) await store.clear();
      else for (const [file, head] of stored) heads.set(file, head);
      if (closed) return;
      await index.ready;
    } catch (error) {
      onError(error);
      markReady();
      return;
    }
    let first = true;
    subscription = index.sessions$.subscribe({
      next: (event) => {
        if (event.type === "snapshot") {
          // Every listed file, and every indexed one (those no longer listed are dropped).
          const paths = new Set<string>(heads.keys());
          for (const summary of event.sessions) paths.add(summary.path);
          const pass = queue.enqueue({ paths, folders: new Set() });
          if (first) {
            first = false;
            void pass.finally(() => {
              isReady = true;
              markReady();
            });
          }
          return;
        }
        const paths = new Set<string>(event.removed);
        for (const summary of event.upserted) paths.add(summary.path);
        void queue.enqueue({ paths, folders: new Set() });
      },
      error: (error: unknown) => {
        onError(error);
        markReady();
      },
    });
  }

  let begun: Promise<void> | null = null;
  const beginNow = (): Promise<void> => {
    if (startTimer !== null) clearTimeout(startTimer);
    startTimer = null;
    begun ??= begin();
    return begun;
  };

  function status(): SearchIndexStatus {
    const total = index.status().indexed;
    return { indexed: Math.min(current.size, total), total, ready: isReady };
  }

  function toResult(hit: Awaited<ReturnType<SearchStore["query"]>>[number], summary: SessionSummary, terms: SearchTerms): SearchResult {
    const result: SearchResult = {
      sessionId: summary.id,
      sessionPath: hit.path,
      firstMessage: summary.firstMessage,
      cwd: summary.cwd,
      entryId: hit.entryId,
      role: hit.kind,
      timestamp: hit.timestamp,
      snippet: snippetOf(hit.text, terms),
    };
    if (summary.name !== undefined && summary.name !== "") result.sessionName = summary.name;
    if (hit.toolCallId !== "") result.toolCallId = hit.toolCallId;
    return result;
  }

  return {
    start() {
      if (started || closed) return;
      started = true;
      const delay = options.startDelayMs ?? 1000;
      if (delay <= 0) {
        void beginNow();
        return;
      }
      // Unreferenced: a process that has nothing else to do does not wait for it.
      startTimer = setTimeout(() => void beginNow(), delay);
      startTimer.unref();
    },
    ready,
    status,
    async search(request) {
      await beginNow();
      // A first pass over a small folder takes milliseconds: answer after it rather than with nothing.
      if (!isReady) await Promise.race([ready, new Promise<void>((resolve) => setTimeout(resolve, FIRST_PASS_WAIT_MS).unref())]);
      const match = matchExpression(request.text);
      if (match === null || store === null || closed) return { results: [], status: status() };
      const cwd = request.cwd;
      const hits = await store.query({
        match,
        limit: request.limit ?? DEFAULT_SEARCH_LIMIT,
        perFile: HITS_PER_SESSION,
        acceptFile: (head) => index.get(head.path) !== null && (cwd === undefined || sameSearchFolder(head.cwd, cwd)),
      });
      const terms = searchTerms(request.text);
      const results: SearchResult[] = [];
      for (const hit of hits) {
        const summary = index.get(hit.path);
        if (summary !== null) results.push(toResult(hit, summary, terms));
      }
      return { results, status: status() };
    },
    async idle() {
      if (begun === null) return;
      await begun;
      for (let draining = queue.current(); draining !== null; draining = queue.current()) await draining.catch(() => undefined);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (startTimer !== null) clearTimeout(startTimer);
      subscription?.unsubscribe();
      queue.close();
      await begun?.catch(() => undefined);
      await queue.current()?.catch(() => undefined);
      markReady();
    },
  };
}
