/**
 * An opened session held in memory: the full projections of one file (e.g. session tree, transcript), folded
 * once from byte 0 and then refreshed from the appended lines only. No SQLite: these states can be large and
 * live only while someone watches the session.
 *
 * `changes$` replays the latest snapshot to each new subscriber and then emits after every change.
 * Refreshes are serialized and coalesced: a burst of change notifications costs at most one extra read.
 */
import fs from "node:fs";
import path from "node:path";
import { ReplaySubject, Subject, type Observable } from "rxjs";
import { decoderStats, initialDecoderState } from "../../domain/session-decoder.ts";
import {
  advanceFoldInSlices,
  assertDistinctNames,
  initialStates,
  projectionKey,
  type AnyProjection,
  type FoldedFile,
  type FoldProgress,
  type ProjectionStates,
  type SliceOptions,
} from "./file-fold.ts";

export interface SessionTailSnapshot {
  readonly path: string;
  /** Increases with every emitted change. */
  readonly revision: number;
  /** False when the file does not exist (states are then the projections' initial states). */
  readonly exists: boolean;
  /** The file's modification time when it was read (0 when it does not exist). */
  readonly mtimeMs: number;
  readonly states: ProjectionStates;
  /** Lines, malformed lines, version, session id, whether it is a session file. */
  readonly stats: ReturnType<typeof decoderStats>;
}

export interface SessionTail {
  readonly path: string;
  readonly changes$: Observable<SessionTailSnapshot>;
  /** Progress of reads that take several slices (a large file's first read): bytes folded of the file's size. */
  readonly progress$: Observable<FoldProgress>;
  /** The latest snapshot, or null before the first read finished. */
  current(): SessionTailSnapshot | null;
  /** Reads what changed; resolves with the snapshot after it. */
  refresh(): Promise<SessionTailSnapshot>;
  close(): void;
}

export interface SessionTailOptions {
  /**
   * Watch the file's folder itself (for files outside a watched session index). Default false: the owner
   * calls `refresh()` when it learns of a change.
   */
  readonly watch?: boolean;
  /** Slice size and time budget of reads (see `advanceFoldInSlices`): a 50 MB file never holds the event loop. */
  readonly slices?: Pick<SliceOptions, "sliceBytes" | "budgetMs">;
}

export function openSessionTail(file: string, projections: readonly AnyProjection[], options: SessionTailOptions = {}): SessionTail {
  assertDistinctNames(projections);
  const key = projectionKey(projections);
  const subject = new ReplaySubject<SessionTailSnapshot>(1);
  const progress = new Subject<FoldProgress>();
  let folded: FoldedFile | null = null;
  let snapshot: SessionTailSnapshot | null = null;
  let revision = 0;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  let pending: Promise<SessionTailSnapshot> | null = null;

  const emit = (next: SessionTailSnapshot): SessionTailSnapshot => {
    snapshot = next;
    if (!closed) subject.next(next);
    return next;
  };

  async function step(): Promise<SessionTailSnapshot> {
    const advance = await advanceFoldInSlices(file, projections, folded, key, {
      ...options.slices,
      onProgress: (step) => {
        if (!closed) progress.next(step);
      },
      cancelled: () => closed,
    });
    if (advance.kind === "missing") {
      if (snapshot !== null && !snapshot.exists) return snapshot;
      folded = null;
      return emit({
        path: file,
        revision: ++revision,
        exists: false,
        mtimeMs: 0,
        states: initialStates(projections),
        stats: decoderStats(initialDecoderState()),
      });
    }
    if (advance.kind === "unchanged" && snapshot !== null) return snapshot;
    if (advance.kind === "advanced") folded = advance.folded;
    const current = folded as FoldedFile;
    return emit({
      path: file,
      revision: ++revision,
      exists: true,
      mtimeMs: current.position.stamp.mtimeMs,
      states: current.states,
      stats: decoderStats(current.position.decoder),
    });
  }

  function refresh(): Promise<SessionTailSnapshot> {
    if (pending !== null) return pending;
    const next = queue.then(() => {
      pending = null;
      return step();
    });
    pending = next;
    queue = next.catch(() => undefined);
    return next;
  }

  let watcher: fs.FSWatcher | null = null;
  if (options.watch === true) {
    const base = path.basename(file);
    try {
      watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
        if (name === null || name === base) refresh().catch(() => undefined);
      });
      watcher.on("error", () => watcher?.close());
    } catch {
      watcher = null; // the folder is missing: the owner's refresh() still works
    }
  }

  refresh().catch(() => undefined);

  return {
    path: file,
    changes$: subject.asObservable(),
    progress$: progress.asObservable(),
    current: () => snapshot,
    refresh,
    close() {
      if (closed) return;
      closed = true;
      watcher?.close();
      subject.complete();
      progress.complete();
    },
  };
}
