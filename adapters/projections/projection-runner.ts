/**
 * The checkpointed projection runner: folds a projection set over many session files, resuming each file from
 * its SQLite checkpoint (byte offset, decoder state, projection states) so that only appended lines are read.
 *
 * - A file whose stat equals its checkpoint's is not opened: its stored summary is reused (warm start).
 * - A checkpoint made with other projection versions (or another list) is ignored: the file is folded from 0.
 * - Every checkpoint a scan changes is written in one transaction.
 * The cache is only a cache: without it the same scan gives the same summaries, only slower.
 */
import { performance } from "node:perf_hooks";
import type { Kysely } from "kysely";
import type { FileStamp } from "../session-files/file-tail.ts";
import { sameStamp } from "../session-files/file-tail.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import {
  loadCheckpointBody,
  loadCheckpointHeads,
  loadStoredSummaries,
  writeCheckpoints,
  type CheckpointHead,
  type CheckpointWrite,
} from "./checkpoint-store.ts";
import {
  advanceFold,
  assertDistinctNames,
  projectionKey,
  type AnyProjection,
  type FoldAdvance,
  type FoldedFile,
  type ProjectionStates,
} from "./file-fold.ts";

export interface ProjectionSet<Summary> {
  /** Checkpoint scope: the rows this set owns (several sets may cache the same file). */
  readonly scope: string;
  readonly projections: readonly AnyProjection[];
  /** The small, listable result kept in the summary column; null = not listable (e.g. not a session file). */
  summarize(states: ProjectionStates, file: { path: string; mtimeMs: number }): Summary | null;
}

/** A stored summary of one file, with the summary column it was parsed from. */
export interface FolderSummary<Summary> {
  readonly path: string;
  readonly summaryJson: string | null;
  readonly summary: Summary | null;
}

export interface ScanFile {
  readonly path: string;
  /** The caller's stat of the file; equal to the checkpoint's = nothing to read. */
  readonly stamp: FileStamp;
}

export type ScanOutcome<Summary> =
  /** The checkpoint was current: the file was not opened. */
  | { readonly kind: "kept"; readonly path: string; readonly head: CheckpointHead; readonly summary: Summary | null }
  /** New bytes were folded (or the file was folded from 0: `restart` says why). */
  | {
      readonly kind: "folded";
      readonly path: string;
      readonly head: CheckpointHead;
      readonly summary: Summary | null;
      readonly restart: string | null;
      readonly records: number;
    }
  | { readonly kind: "removed"; readonly path: string }
  /** The file could not be read (permissions, a directory named *.jsonl...): counted, not checkpointed. */
  | { readonly kind: "unreadable"; readonly path: string; readonly error: string };

export interface ProjectionRunner<Summary> {
  readonly set: ProjectionSet<Summary>;
  readonly key: string;
  /** Stored checkpoint heads by path (no state parsing). */
  loadHeads(): Promise<Map<string, CheckpointHead>>;
  /**
   * The stored summaries of the files below `folder`, parsed, in path order (what a warm start lists before any
   * file is checked); null when any of them was made by other projections (see `loadStoredSummaries`).
   */
  loadFolderSummaries(folder: string): Promise<FolderSummary<Summary>[] | null>;
  /**
   * Brings every file up to date from its checkpoint and stores the changed checkpoints (and removes those of
   * missing files) in one transaction. `heads` are the checkpoints the caller knows (from `loadHeads` or
   * earlier outcomes). `forget` names files known to be gone: their checkpoints go in the same transaction.
   */
  scan(files: readonly ScanFile[], heads: ReadonlyMap<string, CheckpointHead>, forget?: readonly string[]): Promise<ScanOutcome<Summary>[]>;
  /**
   * `scan` without waiting for the checkpoint transaction: the outcomes are final once returned, `persisted`
   * settles when they are stored. Lets an index report ready before the cache write (a lost write costs only a
   * re-read later: any stored checkpoint is a valid, possibly older, position). Await `persisted` before the
   * next scan so writes stay ordered.
   */
  scanDeferred(
    files: readonly ScanFile[],
    heads: ReadonlyMap<string, CheckpointHead>,
    forget?: readonly string[],
  ): Promise<{ outcomes: ScanOutcome<Summary>[]; persisted: Promise<void> }>;
  /** Removes the checkpoints of files that are gone. */
  forget(paths: readonly string[]): Promise<void>;
  parseSummary(head: CheckpointHead): Summary | null;
  /** Where the last scan spent its time: reading and folding files, then writing checkpoints. */
  lastTimings(): { foldMs: number; writeMs: number };
}

/** A scan yields to the event loop after this much synchronous work. */
const YIELD_AFTER_MS = 8;

export interface RunnerOptions {
  /** Files read at once during a scan (default 8). */
  readonly concurrency?: number;
}

export function createProjectionRunner<Summary>(
  db: Kysely<LeylineDatabase>,
  set: ProjectionSet<Summary>,
  options: RunnerOptions = {},
): ProjectionRunner<Summary> {
  assertDistinctNames(set.projections);
  const key = projectionKey(set.projections);
  const concurrency = Math.max(1, options.concurrency ?? 8);

  let lastScanTimings = { foldMs: 0, writeMs: 0 };
  const parseSummaryJson = (json: string | null): Summary | null => (json === null ? null : (JSON.parse(json) as Summary));
  const parseSummary = (head: CheckpointHead): Summary | null => parseSummaryJson(head.summaryJson);

  async function scanOne(
    file: ScanFile,
    head: CheckpointHead | undefined,
    writes: CheckpointWrite[],
    removed: string[],
  ): Promise<ScanOutcome<Summary>> {
    if (head !== undefined && head.projectionKey === key && sameStamp(head.stamp, file.stamp)) {
      return { kind: "kept", path: file.path, head, summary: parseSummary(head) };
    }
    let previous: FoldedFile | null = null;
    if (head !== undefined && head.projectionKey === key) {
      const body = await loadCheckpointBody(db, set.scope, file.path);
      if (body !== null && body.projectionKey === key) {
        previous = {
          key,
          position: { stamp: body.stamp, cursor: body.cursor, decoder: body.decoder },
          states: body.states,
        };
      }
    }
    let advance: FoldAdvance;
    try {
      // The states were just parsed from the checkpoint: nobody else holds them, appended lines fold in place.
      advance = await advanceFold(file.path, set.projections, previous, key, { ownsPrevious: true });
    } catch (error) {
      return { kind: "unreadable", path: file.path, error: error instanceof Error ? error.message : String(error) };
    }
    if (advance.kind === "missing") {
      if (head !== undefined) removed.push(file.path);
      return { kind: "removed", path: file.path };
    }
    // "unchanged" happens only when `heads` was stale: the stored checkpoint is current.
    const folded = advance.kind === "advanced" ? advance.folded : (previous as FoldedFile);
    const summary = set.summarize(folded.states, { path: file.path, mtimeMs: folded.position.stamp.mtimeMs });
    const summaryJson = summary === null ? null : JSON.stringify(summary);
    const newHead: CheckpointHead = { path: file.path, stamp: folded.position.stamp, projectionKey: key, summaryJson };
    writes.push({
      path: file.path,
      stamp: folded.position.stamp,
      cursor: folded.position.cursor,
      projectionKey: key,
      summaryJson,
      decoderJson: JSON.stringify(folded.position.decoder),
      statesJson: JSON.stringify(folded.states),
    });
    if (advance.kind === "unchanged") return { kind: "kept", path: file.path, head: newHead, summary };
    return {
      kind: "folded",
      path: file.path,
      head: newHead,
      summary,
      restart: head !== undefined && head.projectionKey !== key ? "projections-changed" : advance.restart,
      records: advance.records,
    };
  }

  return {
    set,
    key,
    parseSummary,
    async loadHeads() {
      const heads = await loadCheckpointHeads(db, set.scope);
      return new Map(heads.map((h) => [h.path, h]));
    },
    async loadFolderSummaries(folder) {
      const stored = await loadStoredSummaries(db, set.scope, folder, key);
      if (stored === null) return null;
      const summaries = new Array<FolderSummary<Summary>>(stored.length);
      for (let i = 0; i < stored.length; i++) {
        const { path, summaryJson } = stored[i] as (typeof stored)[number];
        summaries[i] = { path, summaryJson, summary: parseSummaryJson(summaryJson) };
      }
      return summaries;
    },
    lastTimings: () => lastScanTimings,
    async scan(files, heads, forget = []) {
      const { outcomes, persisted } = await scanDeferred(files, heads, forget);
      await persisted;
      return outcomes;
    },
    scanDeferred,
    async forget(paths) {
      await writeCheckpoints(db, set.scope, [], paths);
    },
  };

  async function scanDeferred(
    files: readonly ScanFile[],
    heads: ReadonlyMap<string, CheckpointHead>,
    forget: readonly string[] = [],
  ): Promise<{ outcomes: ScanOutcome<Summary>[]; persisted: Promise<void> }> {
    const started = performance.now();
    const outcomes = new Array<ScanOutcome<Summary>>(files.length);
    const writes: CheckpointWrite[] = [];
    const removed: string[] = [...forget];
    // Files whose checkpoint is current are settled synchronously: no file access, no promise per file.
    const pending: number[] = [];
    for (let i = 0; i < files.length; i++) {
      const file = files[i] as ScanFile;
      const head = heads.get(file.path);
      if (head !== undefined && head.projectionKey === key && sameStamp(head.stamp, file.stamp)) {
        outcomes[i] = { kind: "kept", path: file.path, head, summary: parseSummary(head) };
      } else pending.push(i);
    }
    let next = 0;
    let sliceStart = performance.now();
    const worker = async (): Promise<void> => {
      while (next < pending.length) {
        const index = pending[next++] as number;
        const file = files[index] as ScanFile;
        outcomes[index] = await scanOne(file, heads.get(file.path), writes, removed);
        // Reading is synchronous (cheaper); give the event loop a turn every few milliseconds.
        if (performance.now() - sliceStart > YIELD_AFTER_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, pending.length) }, worker));
    const writing = performance.now();
    const persisted = writeCheckpoints(db, set.scope, writes, removed).then(() => {
      lastScanTimings = { foldMs: writing - started, writeMs: performance.now() - writing };
    });
    persisted.catch(() => undefined); // the caller awaits it; never an unhandled rejection meanwhile
    return { outcomes, persisted };
  }
}
