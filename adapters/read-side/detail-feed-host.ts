/**
 * Session details as live read models, where they are kept: in the detail worker (a worker thread:
 * detail-worker.ts), so that folding a 50 MB session, and the garbage collection of the hundreds of MB of
 * objects it holds, never pauses the server's event loop. The main thread talks to it through
 * session-detail-feeds.ts and only ever receives bytes: events-socket message heads and JSON bodies.
 *
 * For each session file someone looks at, the host keeps the SessionDetail (a tail of the file: folded once in
 * slices, then from appended lines only; its own watch on the file's folder), its revision, and sends to each
 * *feed* (one subscriber on the main thread) what changed, whoever writes the file (Leyline's runtime, the pi
 * CLI, another tool):
 * - `loading` while a large file's first read runs (at most every 2 % of the file),
 * - `snapshot`: the detail as `session_snapshot` chunks (on open, and on `snapshot` requests),
 * - `delta`: a `session_delta` (header fields, leaf, transcript changes from `diffTranscript`),
 * - `unavailable`: a `session_unavailable` (the file is gone or not a session; a later write brings a snapshot).
 * `detail(file)` answers the whole SessionDetail as JSON (GET /api/pi/sessions/:id), built once per revision.
 * Rollout feedback (leyline.sqlite, told per file with `setFeedback`) is overlaid on the entries of every detail,
 * snapshot, delta and branch transcript served here; a change of it is a new revision (a delta replacing the
 * entries it changed), like a write to the file.
 * Files stay open while a feed is open, and the most recently used ones a while longer (`keep` files, at most
 * `keepBytes` of them), so reopening a session or asking for its detail again does not fold it again.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import type { SessionUnavailableData } from "../../domain/live/live-messages.ts";
import type { SessionDetail, SessionDetailSession } from "../../domain/session-detail.ts";
import { diffTranscript, type TranscriptDelta } from "../../domain/transcript/transcript-delta.ts";
import { effectiveLeaf, sessionTreeView, type MovedLeaf, type TreeSince } from "../../domain/session-tree-view.ts";
import { entryOf, pathTo, type SessionTreeState } from "../../domain/session-tree.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import { withEntryFeedback, withSessionFeedback, type EntryFeedbackMap } from "../../domain/rollout-feedback/rollout-feedback.ts";
import { withResearchAnnotations } from "../../domain/transcript/research-transcript.ts";
import { transcriptOfPath } from "../../domain/transcript/transcript-builder.ts";
import { selectSessionDetail } from "../../projections/session-detail.ts";
import { sessionSummaryProjection } from "../../projections/session-summary.projection.ts";
import { transcriptProjection, type TranscriptState } from "../../projections/transcript.projection.ts";
import { deltaHead, encodeMessageHead, snapshotChunks } from "../live/message-encoding.ts";
import type { AnyProjection } from "../projections/file-fold.ts";
import { openSessionTail, type SessionTail, type SessionTailSnapshot } from "../projections/session-tail.ts";

/** What the detail of an opened session is folded from: the session summary and the active-branch transcript. */
export const DETAIL_PROJECTIONS: readonly AnyProjection[] = [
  sessionSummaryProjection as AnyProjection,
  transcriptProjection as AnyProjection,
];

export interface DetailState {
  readonly path: string;
  /** Rises by one with every change (per file; a reopened file starts again at 1). */
  readonly revision: number;
  readonly detail: SessionDetail;
  /** The active branch's leaf entry id. */
  readonly leafId: string | null;
}

export interface DetailDelta {
  readonly base: number;
  readonly revision: number;
  readonly session?: SessionDetailSession;
  readonly leafId?: string | null;
  readonly transcript?: TranscriptDelta;
}

/** Messages of one feed to the main thread. */
export type FeedMessage =
  | { readonly type: "loading"; readonly feed: number; readonly head: Uint8Array }
  | { readonly type: "snapshot"; readonly feed: number; readonly revision: number; readonly chunks: Uint8Array[] }
  | { readonly type: "delta"; readonly feed: number; readonly base: number; readonly revision: number; readonly head: Uint8Array }
  | { readonly type: "unavailable"; readonly feed: number; readonly head: Uint8Array };

export interface DetailJson {
  readonly sessionId: string;
  readonly revision: number;
  /**
   * Names this revision of this file's detail for good (a reopened file or a new worker starts its revisions
   * again, so the revision alone does not): what `known` is compared with.
   */
  readonly version: string;
  /** The SessionDetail's JSON, in parts; null when the asker holds this revision's JSON already. */
  readonly json: Uint8Array[] | null;
}

/** Another read model of a file, asked for with `read`. */
export type DetailQuery = { readonly kind: "tree"; readonly since?: TreeSince } | { readonly kind: "branch"; readonly leafId: string };

/** The answer to a `read`: the JSON, or whether the file (not a session, or gone) or the entry was missing. */
export type ReadResult = { readonly sessionId: string; readonly json: Uint8Array } | { readonly missing: "file" | "entry" };

export interface DetailFeedHost {
  /** Starts feed `feed`: the detail of `file` for subscribers that know it as `sessionId`. */
  open(feed: number, file: string, sessionId: string): void;
  /** Sends the feed a snapshot of the current detail (nothing when there is none yet). */
  snapshot(feed: number): void;
  closeFeed(feed: number): void;
  /**
   * The current detail of a file, up to date with it, as JSON; null when it is missing or not a session. `known`:
   * a `version` the asker holds the JSON of (it is left out when still current).
   */
  detail(file: string, known?: string): Promise<DetailJson | null>;
  /**
   * The tree of a file (domain/session-tree-view.ts SessionTreeView, with the leaf it shows) or the transcript of
   * one branch (`{ sessionId, leafId, entries }`), as JSON, up to date with the file.
   */
  read(file: string, query: DetailQuery): Promise<ReadResult>;
  /** A runtime's leaf of `file` moved without writing, or that ended (null): the detail shows that branch meanwhile. */
  moveLeaf(file: string, leaf: MovedLeaf | null): void;
  /** The stored rollout feedback of the file's session (null: none); an open file's feeds get the change. */
  setFeedback(file: string, feedback: EntryFeedbackMap | null): void;
  /** Files open now (with feeds, or kept). */
  openFiles(): number;
  /** Closes every feed and file (nobody uses the host now); it stays usable. */
  reset(): void;
  close(): void;
}

export interface DetailFeedHostOptions {
  readonly send: (message: FeedMessage) => void;
  /** Unsubscribed files kept open (most recently used first). Default 6. */
  readonly keep?: number;
  /** Unsubscribed files are kept while they total at most this many bytes. Default 256 MiB. */
  readonly keepBytes?: number;
  /** Whether a session's cwd exists (`readOnly`). Default fs.existsSync. */
  readonly cwdExists?: (cwd: string) => boolean;
  /** Slicing of a large file's first read (see file-fold.ts advanceFoldInSlices). */
  readonly slices?: { readonly sliceBytes?: number; readonly budgetMs?: number };
}

const NOT_A_SESSION = "This file is not a pi session";
const MISSING = "The session file no longer exists";
/** Loading progress is reported in steps of at least this fraction of the file. */
const PROGRESS_STEP = 0.02;

function leafOf(states: SessionTailSnapshot["states"], moved: MovedLeaf | undefined): string | null {
  const transcript = states[transcriptProjection.name] as TranscriptState | undefined;
  return transcript === undefined ? null : effectiveLeaf(transcript.tree, moved);
}

function treeOf(states: SessionTailSnapshot["states"]): SessionTreeState | null {
  return (states[transcriptProjection.name] as TranscriptState | undefined)?.tree ?? null;
}

/** The delta between two states; null when nothing a subscriber sees changed. */
export function detailDelta(before: DetailState, after: DetailState): DetailDelta | null {
  const transcript = diffTranscript(before.detail.entries, after.detail.entries);
  const sessionChanged = JSON.stringify(before.detail.session) !== JSON.stringify(after.detail.session);
  const leafChanged = before.leafId !== after.leafId;
  if (transcript === null && !sessionChanged && !leafChanged) return null;
  return {
    base: before.revision,
    revision: after.revision,
    ...(sessionChanged ? { session: after.detail.session } : {}),
    ...(leafChanged ? { leafId: after.leafId } : {}),
    ...(transcript !== null ? { transcript } : {}),
  };
}

/** `JSON.stringify(detail)` in parts (one per 64 entries: no single huge string). */
export function serializeDetail(detail: SessionDetail): Uint8Array[] {
  const parts: Uint8Array[] = [Buffer.from(`{"session":${JSON.stringify(detail.session)},"entries":[`, "utf8")];
  const { entries } = detail;
  for (let i = 0; i < entries.length; i += 64) {
    const batch = entries.slice(i, i + 64).map((entry) => JSON.stringify(entry));
    parts.push(Buffer.from((i > 0 ? "," : "") + batch.join(","), "utf8"));
  }
  parts.push(Buffer.from("]}", "utf8"));
  return parts;
}

interface FileFeed {
  readonly file: string;
  /** This opening of the file, unique in this host (see DetailJson.version). */
  readonly opening: number;
  readonly tail: SessionTail;
  state: DetailState | null;
  gone: string | null;
  revision: number;
  /** Feed ids and the session id each knows the file as. */
  readonly feeds: Map<number, string>;
  lastUsed: number;
  sizeBytes: number;
  /** The JSON of the current revision, once asked for. */
  json: { revision: number; parts: Uint8Array[] } | null;
  /** Resolves when the first state (or `gone`) is known. */
  readonly settled: Promise<void>;
  lastProgress: number;
}

export function createDetailFeedHost(options: DetailFeedHostOptions): DetailFeedHost {
  const keep = options.keep ?? 6;
  const keepBytes = options.keepBytes ?? 256 * 1024 * 1024;
  const cwdExists = options.cwdExists ?? fs.existsSync;
  const files = new Map<string, FileFeed>();
  /** Leaves runtimes moved without writing, by file (kept while the file ends where the move holds against). */
  const movedLeaves = new Map<string, MovedLeaf>();
  /** Rollout feedback by file, overlaid on its entries (kept while the main thread says so, open or not). */
  const feedback = new Map<string, EntryFeedbackMap>();
  const feedFiles = new Map<number, FileFeed>();
  /** Tells this host's versions from those of an earlier one (a restarted worker). */
  const hostId = randomUUID();
  let openings = 0;
  let useClock = 0;
  let closed = false;

  const unavailableHead = (sessionId: string, message: string): Uint8Array => {
    const data: SessionUnavailableData = { sessionId, reason: "gone", message };
    return encodeMessageHead("session_unavailable", data);
  };

  function sendSnapshot(file: FileFeed, feed: number, sessionId: string): void {
    const state = file.state;
    if (state === null) return;
    const chunks = [
      ...snapshotChunks({
        sessionId,
        revision: state.revision,
        path: state.path,
        session: state.detail.session,
        leafId: state.leafId,
        entries: state.detail.entries,
      }),
    ];
    options.send({ type: "snapshot", feed, revision: state.revision, chunks });
  }

  function markGone(file: FileFeed, message: string): void {
    if (file.gone === message) return;
    file.gone = message;
    file.state = null;
    file.json = null;
    for (const [feed, sessionId] of file.feeds) options.send({ type: "unavailable", feed, head: unavailableHead(sessionId, message) });
  }

  /**
   * Folds a kept file's current snapshot again (its moved leaf or its feedback changed, the bytes did not);
   * answers the file, or undefined when none is kept or read yet.
   */
  function refold(path: string): FileFeed | undefined {
    const file = files.get(path);
    const snapshot = file?.tail.current() ?? null;
    if (file === undefined || snapshot === null) return undefined;
    try {
      onSnapshot(file, snapshot);
    } catch (error) {
      markGone(file, error instanceof Error ? error.message : String(error));
    }
    return file;
  }

  function onSnapshot(file: FileFeed, snapshot: SessionTailSnapshot): void {
    if (!snapshot.exists || !snapshot.stats.isSession) {
      markGone(file, snapshot.exists ? NOT_A_SESSION : MISSING);
      return;
    }
    let moved = movedLeaves.get(file.file);
    const tree = treeOf(snapshot.states);
    if (moved !== undefined && tree !== null && moved.lastEntryId !== tree.leafId) {
      // A write since the move ended it (pi appends under its leaf): forget it. A fold that has not reached the
      // move's last entry yet only shows the file's leaf meanwhile.
      if (moved.lastEntryId === null || entryOf(tree, moved.lastEntryId) !== undefined) movedLeaves.delete(file.file);
      moved = undefined;
    }
    const selected = selectSessionDetail(
      snapshot.states,
      { path: file.file, mtimeMs: snapshot.mtimeMs, version: snapshot.stats.version },
      cwdExists,
      moved,
    );
    const detail = selected === null ? null : withSessionFeedback(selected, feedback.get(file.file));
    if (detail === null) {
      markGone(file, NOT_A_SESSION);
      return;
    }
    file.gone = null;
    const before = file.state;
    const next: DetailState = { path: file.file, revision: file.revision + 1, detail, leafId: leafOf(snapshot.states, moved) };
    if (before === null) {
      file.revision = next.revision;
      file.state = next;
      for (const [feed, sessionId] of file.feeds) sendSnapshot(file, feed, sessionId);
      return;
    }
    const delta = detailDelta(before, next);
    if (delta === null) return;
    file.revision = next.revision;
    file.state = next;
    // One head per session id the file is known as (almost always one), shared by its feeds.
    const heads = new Map<string, Uint8Array>();
    for (const [feed, sessionId] of file.feeds) {
      let head = heads.get(sessionId);
      if (head === undefined) {
        head = deltaHead({ sessionId, ...delta });
        heads.set(sessionId, head);
      }
      options.send({ type: "delta", feed, base: delta.base, revision: delta.revision, head });
    }
  }

  function fileSize(file: string): number {
    try {
      return fs.statSync(file).size;
    } catch {
      return 0;
    }
  }

  function openFile(path: string): FileFeed {
    const existing = files.get(path);
    if (existing !== undefined) {
      existing.lastUsed = ++useClock;
      return existing;
    }
    let markSettled: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (markSettled = resolve));
    const tail = openSessionTail(path, DETAIL_PROJECTIONS, {
      watch: true,
      ...(options.slices !== undefined ? { slices: options.slices } : {}),
    });
    const file: FileFeed = {
      file: path,
      opening: ++openings,
      tail,
      state: null,
      gone: null,
      revision: 0,
      feeds: new Map(),
      lastUsed: ++useClock,
      sizeBytes: fileSize(path),
      json: null,
      settled,
      lastProgress: -1,
    };
    files.set(path, file);
    tail.changes$.subscribe({
      next: (snapshot) => {
        try {
          onSnapshot(file, snapshot);
        } catch (error) {
          markGone(file, error instanceof Error ? error.message : String(error));
        }
        file.sizeBytes = Math.max(file.sizeBytes, fileSize(path));
        markSettled();
      },
      complete: markSettled,
    });
    tail.progress$.subscribe(({ foldedBytes, totalBytes }) => {
      if (file.state !== null) return;
      const fraction = totalBytes > 0 ? foldedBytes / totalBytes : 0;
      if (fraction - file.lastProgress < PROGRESS_STEP) return;
      file.lastProgress = fraction;
      for (const [feed, sessionId] of file.feeds) {
        options.send({
          type: "loading",
          feed,
          head: encodeMessageHead("session_loading", { sessionId, loadedBytes: foldedBytes, totalBytes }),
        });
      }
    });
    trim();
    return file;
  }

  function dispose(file: FileFeed): void {
    files.delete(file.file);
    file.tail.close();
  }

  /** Closes files without feeds beyond the keep limits (least recently used first). */
  function trim(): void {
    const idle = [...files.values()].filter((file) => file.feeds.size === 0).sort((a, b) => b.lastUsed - a.lastUsed);
    let bytes = 0;
    idle.forEach((file, i) => {
      bytes += file.sizeBytes;
      if (i >= keep || (i > 0 && bytes > keepBytes)) dispose(file);
    });
  }

  return {
    open(feed, path, sessionId) {
      if (closed || feedFiles.has(feed)) return;
      const file = openFile(path);
      file.feeds.set(feed, sessionId);
      feedFiles.set(feed, file);
      if (file.state !== null) sendSnapshot(file, feed, sessionId);
      else if (file.gone !== null) options.send({ type: "unavailable", feed, head: unavailableHead(sessionId, file.gone) });
    },
    snapshot(feed) {
      const file = feedFiles.get(feed);
      const sessionId = file?.feeds.get(feed);
      if (file !== undefined && sessionId !== undefined) sendSnapshot(file, feed, sessionId);
    },
    closeFeed(feed) {
      const file = feedFiles.get(feed);
      if (file === undefined) return;
      feedFiles.delete(feed);
      file.feeds.delete(feed);
      file.lastUsed = ++useClock;
      trim();
    },
    async detail(path, known) {
      if (closed) return null;
      const file = openFile(path);
      await file.settled;
      // Changes the folder watch has not reported yet (e.g. a write just before the request).
      await file.tail.refresh().catch(() => undefined);
      file.lastUsed = ++useClock;
      const state = file.state;
      trim();
      if (state === null) return null;
      const version = `${hostId}:${file.opening}:${state.revision}`;
      const answer = { sessionId: state.detail.session.id, revision: state.revision, version };
      if (known === version) return { ...answer, json: null };
      if (file.json === null || file.json.revision !== state.revision)
        file.json = { revision: state.revision, parts: serializeDetail(state.detail) };
      return { ...answer, json: file.json.parts };
    },
    async read(path, query) {
      if (closed) return { missing: "file" };
      const file = openFile(path);
      await file.settled;
      await file.tail.refresh().catch(() => undefined);
      file.lastUsed = ++useClock;
      trim();
      const snapshot = file.tail.current();
      const state = file.state;
      const tree = snapshot === null ? null : treeOf(snapshot.states);
      if (state === null || tree === null) return { missing: "file" };
      const sessionId = state.detail.session.id;
      if (query.kind === "tree")
        return { sessionId, json: Buffer.from(JSON.stringify(sessionTreeView(tree, sessionId, state.leafId, query.since)), "utf8") };
      if (entryOf(tree, query.leafId) === undefined) return { missing: "entry" };
      // The branch's own research state (its ledger and report), folded from its entries as a fork would be.
      const branch = pathTo(tree, query.leafId);
      const research = researchStateFromEntries(sessionId, branch);
      const entries = withEntryFeedback(withResearchAnnotations(transcriptOfPath(branch), research), feedback.get(path));
      return { sessionId, json: Buffer.from(JSON.stringify({ sessionId, leafId: query.leafId, entries, research }), "utf8") };
    },
    moveLeaf(path, leaf) {
      const before = movedLeaves.get(path);
      if (leaf === null) movedLeaves.delete(path);
      else movedLeaves.set(path, leaf);
      if (before?.leafId === leaf?.leafId && before?.lastEntryId === leaf?.lastEntryId) return;
      const file = refold(path);
      if (file === undefined) return;
      // The runtime wrote up to the move's last entry: a fold behind it catches up (its change reaches onSnapshot).
      file.tail.refresh().catch(() => undefined);
    },
    setFeedback(path, stored) {
      if (stored === null || Object.keys(stored).length === 0) feedback.delete(path);
      else feedback.set(path, stored);
      refold(path);
    },
    openFiles: () => files.size,
    reset() {
      for (const file of [...files.values()]) dispose(file);
      feedFiles.clear();
      feedback.clear();
    },
    close() {
      closed = true;
      for (const file of [...files.values()]) dispose(file);
      feedFiles.clear();
    },
  };
}
