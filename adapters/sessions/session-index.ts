/**
 * The session index: every `*.jsonl` file under pi's sessions folder, summarised by a projection set whose
 * folds are checkpointed in SQLite.
 *
 * Start, warm (stored checkpoints of the current projections): the stored summaries are listed as they are and
 * the index is ready at once, without touching a session file. Then, in the background, the folder tree is
 * watched (so nothing that changes from then on is missed) and verified: every file is listed and stat-ed,
 * what changed is folded, deleted files are dropped, and each difference goes out as a `changed` event;
 * `verified` resolves when that pass is applied.
 * Start, cold (no usable checkpoints): watch, list and fold every file; ready and verified together.
 * Afterwards the folder tree stays watched (one watcher per folder, bursts coalesced) and a low-frequency
 * rescan covers missed events.
 *
 * Streams: `sessions$` sends a snapshot to each subscriber (once the index is ready) and then one `changed`
 * event per processed batch, and one whenever the status alone changes. (An opened session's whole transcript
 * is kept by the detail worker, adapters/sessions/detail-feed-host.ts, not here.)
 */
import path from "node:path";
import type { Kysely } from "kysely";
import { Observable, Subject } from "rxjs";
import { INVALID_PATHS_LIMIT, type SessionIndexStatus } from "../../domain/live/session-list.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import type { CheckpointHead } from "../projections/checkpoint-store.ts";
import {
  createProjectionRunner,
  type ProjectionSet,
  type ScanFile,
  type ScanOutcome,
} from "../projections/projection-runner.ts";
import { watchFolderTree, type DirtyBatch, type FolderWatcher } from "./folder-watcher.ts";
import { isInside, isSessionFileName, listSessionFiles, statSessionFile } from "./session-files-scan.ts";

export type { SessionIndexStatus } from "../../domain/live/session-list.ts";

export type SessionListEvent<Summary> =
  | { readonly type: "snapshot"; readonly revision: number; readonly sessions: Summary[]; readonly status: SessionIndexStatus }
  | {
      readonly type: "changed";
      readonly revision: number;
      /** New or changed summaries. */
      readonly upserted: Summary[];
      /** Paths no longer listed. */
      readonly removed: string[];
      readonly status: SessionIndexStatus;
    };

export interface SessionIndexOptions<Summary> {
  readonly db: Kysely<LeylineDatabase>;
  readonly sessionsDir: string;
  /** The projections summarised per file (checkpointed) and how a summary is made. */
  readonly set: ProjectionSet<Summary>;
  /** Order of `list()` and snapshots; default: by path. */
  readonly order?: (a: Summary, b: Summary) => number;
  /** Watch the file system (default true). */
  readonly watch?: boolean;
  readonly coalesceMs?: number;
  /** Safety-net full rescan period (default 5 minutes; 0 = none). */
  readonly rescanIntervalMs?: number;
  /** Files read at once during a scan. */
  readonly concurrency?: number;
  /** Errors of background updates (they never stop the index). */
  readonly onError?: (error: unknown) => void;
}

export interface SessionIndex<Summary> {
  /**
   * Resolves when the list can be served: on a warm start the stored summaries, before any file is checked;
   * on a cold start once the first scan is applied.
   */
  readonly ready: Promise<void>;
  /**
   * Resolves when the list was checked against the disk (every file stat-ed, changes folded, deleted files
   * dropped; differences from the served list went out as `changed` events). Implies `ready`.
   */
  readonly verified: Promise<void>;
  list(): Summary[];
  get(file: string): Summary | null;
  status(): SessionIndexStatus;
  readonly sessions$: Observable<SessionListEvent<Summary>>;
  /** Lists and checks every file again; resolves when done. */
  rescan(): Promise<void>;
  /** Checks the given files now (e.g. after the host wrote them); resolves when done. */
  touch(files: readonly string[]): Promise<void>;
  /** Resolves when queued updates and their checkpoint writes are done (events may precede the write). */
  idle(): Promise<void>;
  /** Folders watched right now (0 after close). */
  watchedFolders(): number;
  close(): Promise<void>;
}

interface Entry<Summary> {
  /** The summary column as stored: equal text = equal summary. */
  readonly summaryJson: string | null;
  readonly summary: Summary | null;
}

export function createSessionIndex<Summary>(options: SessionIndexOptions<Summary>): SessionIndex<Summary> {
  const root = path.resolve(options.sessionsDir);
  const runner = createProjectionRunner(options.db, options.set, { concurrency: options.concurrency ?? 8 });
  const onError = options.onError ?? (() => undefined);
  const entries = new Map<string, Entry<Summary>>();
  const heads = new Map<string, CheckpointHead>();
  const unreadable = new Set<string>();
  const changes = new Subject<SessionListEvent<Summary>>();
  let revision = 0;
  let isReady = false;
  let isVerified = false;
  let closed = false;
  /** `list()` as last computed; dropped whenever the listed summaries change. */
  let listCache: Summary[] | null = null;

  // Pending work, merged until the drain loop takes it.
  let dirtyPaths = new Set<string>();
  let dirtyFolders = new Set<string>();
  let draining: Promise<void> | null = null;
  /**
   * False until the first full pass (the verification, or the cold scan) starts: updates asked for earlier wait
   * for it and run after it.
   */
  let accepting = false;
  let acceptWork: () => void = () => undefined;
  let refuseWork: (error: unknown) => void = () => undefined;
  const accepted = new Promise<void>((resolve, reject) => {
    acceptWork = () => {
      accepting = true;
      resolve();
    };
    refuseWork = reject;
  });
  accepted.catch(() => undefined);
  let markReady: () => void = () => undefined;
  let failReady: (error: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = () => {
      isReady = true;
      resolve();
    };
    failReady = reject;
  });

  const status = (): SessionIndexStatus => {
    let indexed = 0;
    const invalidPaths: string[] = [...unreadable];
    for (const [file, entry] of entries) {
      if (entry.summary !== null) indexed++;
      else invalidPaths.push(file);
    }
    const filesOnDisk = entries.size + unreadable.size;
    return {
      filesOnDisk,
      indexed,
      invalid: filesOnDisk - indexed,
      invalidPaths: invalidPaths.sort().slice(0, INVALID_PATHS_LIMIT),
      ready: isReady,
      verified: isVerified,
    };
  };
  /** The status last announced: a `changed` event goes out when it changes, even with no row changed. */
  let announcedStatus = "";
  const statusChanged = (): boolean => JSON.stringify(status()) !== announcedStatus;
  const announce = (upserted: Summary[], removed: string[]): void => {
    const current = status();
    announcedStatus = JSON.stringify(current);
    changes.next({ type: "changed", revision: ++revision, upserted, removed, status: current });
  };

  const list = (): Summary[] => {
    if (listCache === null) {
      const sessions: Summary[] = [];
      const paths = [...entries.keys()].sort();
      for (const p of paths) {
        const summary = (entries.get(p) as Entry<Summary>).summary;
        if (summary !== null) sessions.push(summary);
      }
      listCache = options.order ? sessions.sort(options.order) : sessions;
    }
    return listCache.slice();
  };

  /**
   * Brings the index up to date for the named paths and folders. `preListed` is a folder already listed (by
   * the watcher's walk): its files are candidates without listing it again.
   */
  async function process(
    paths: ReadonlySet<string>,
    folders: ReadonlySet<string>,
    preListed: { readonly folder: string; readonly files: readonly string[] } | null = null,
    onApplied: () => void = () => undefined,
  ): Promise<void> {
    const candidates = new Set<string>(preListed?.files);
    for (const folder of folders) {
      for (const file of listSessionFiles(folder)) candidates.add(file);
    }
    const checked = preListed === null ? [...folders] : [...folders, preListed.folder];
    if (checked.length > 0) {
      const known = (file: string): void => {
        for (const folder of checked) {
          if (file === folder || isInside(folder, file)) {
            candidates.add(file);
            return;
          }
        }
      };
      for (const file of heads.keys()) known(file);
      for (const file of unreadable) known(file);
    }
    for (const p of paths) {
      if (isSessionFileName(p)) candidates.add(p);
    }
    const files: ScanFile[] = [];
    const gone: string[] = [];
    for (const file of candidates) {
      const stamp = statSessionFile(file);
      if (stamp !== null) files.push({ path: file, stamp });
      else if (heads.has(file) || entries.has(file) || unreadable.has(file)) gone.push(file);
    }
    const scanned = await runner.scanDeferred(files, heads, gone.filter((p) => heads.has(p)));
    const outcomes: ScanOutcome<Summary>[] = scanned.outcomes;
    for (const file of gone) outcomes.push({ kind: "removed", path: file });

    const upserted: Summary[] = [];
    const removed: string[] = [];
    for (const outcome of outcomes) {
      const previous = entries.get(outcome.path);
      const wasListed = previous !== undefined && previous.summary !== null;
      switch (outcome.kind) {
        case "kept":
        case "folded": {
          unreadable.delete(outcome.path);
          heads.set(outcome.path, outcome.head);
          entries.set(outcome.path, { summaryJson: outcome.head.summaryJson, summary: outcome.summary });
          if (outcome.summary !== null) {
            if (previous === undefined || previous.summaryJson !== outcome.head.summaryJson) {
              upserted.push(outcome.summary);
            }
          } else if (wasListed) removed.push(outcome.path);
          break;
        }
        case "removed":
          if (!entries.has(outcome.path) && !unreadable.has(outcome.path) && !heads.has(outcome.path)) break;
          entries.delete(outcome.path);
          heads.delete(outcome.path);
          unreadable.delete(outcome.path);
          if (wasListed) removed.push(outcome.path);
          break;
        case "unreadable":
          entries.delete(outcome.path);
          heads.delete(outcome.path);
          unreadable.add(outcome.path);
          if (wasListed) removed.push(outcome.path);
          break;
      }
    }
    // The listed summaries change only with an upsert or a removal (a kept file's summary is equal).
    if (upserted.length > 0 || removed.length > 0) listCache = null;
    if (isReady && !closed && (upserted.length > 0 || removed.length > 0 || statusChanged())) announce(upserted, removed);
    onApplied();
    // The checkpoint transaction completes before the next batch starts (writes stay ordered).
    await scanned.persisted;
  }

  function enqueue(batch: DirtyBatch): Promise<void> {
    for (const p of batch.paths) dirtyPaths.add(p);
    for (const f of batch.folders) dirtyFolders.add(f);
    if (!accepting) return accepted.then(() => enqueue({ paths: new Set(), folders: new Set() }));
    if (draining === null) draining = drain();
    return draining;
  }

  async function drain(): Promise<void> {
    try {
      while (!closed && (dirtyPaths.size > 0 || dirtyFolders.size > 0)) {
        const paths = dirtyPaths;
        const folders = dirtyFolders;
        dirtyPaths = new Set();
        dirtyFolders = new Set();
        try {
          await process(paths, folders);
        } catch (error) {
          onError(error);
        }
      }
    } finally {
      draining = null;
    }
  }

  let watcher: FolderWatcher | null = null;
  let rescanTimer: NodeJS.Timeout | null = null;

  async function start(): Promise<void> {
    // Warm when this folder has stored summaries, all made by the current projections (after a projection
    // change every file is folded again: a list of summaries in the old shape would be wrong, not just stale).
    // Only the summaries are read before the list is served; the heads (stamps) follow, for the check below.
    const stored = await runner.loadFolderSummaries(root);
    if (closed) {
      markReady();
      acceptWork();
      return;
    }
    if (stored !== null && stored.length > 0) {
      // Serve the stored list now; the pass below checks it against the disk.
      for (const folderSummary of stored) entries.set(folderSummary.path, folderSummary);
      markReady();
      // Callers waiting for `ready` take the list before the verification pass holds the thread.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (closed) {
        acceptWork();
        return;
      }
    }
    for (const [p, head] of await runner.loadHeads()) heads.set(p, head);
    if (closed) {
      if (!isReady) markReady();
      acceptWork();
      return;
    }
    // Watch first: a change during the pass is reported by an event (queued behind the pass), not lost.
    // Setting up the watchers walks the tree, and that walk is the pass's listing.
    let listed: string[] | null = null;
    if (options.watch !== false) {
      watcher = watchFolderTree(root, (batch) => void enqueue(batch), {
        coalesceMs: options.coalesceMs ?? 25,
        collect: isSessionFileName,
      });
      listed = watcher.takeInitialFiles();
    }
    acceptWork();
    // The pass counts as done once its outcomes are applied; its checkpoint write finishes in the background.
    let markApplied: () => void = () => undefined;
    const applied = new Promise<void>((resolve) => (markApplied = resolve));
    const preListed = listed !== null ? { folder: root, files: listed } : null;
    const folders = new Set<string>(listed !== null ? [] : [root]);
    const first = (async () => {
      try {
        await process(new Set(), folders, preListed, markApplied);
      } catch (error) {
        onError(error);
      }
      await drain();
    })();
    draining = first;
    await Promise.race([applied, first]);
    isVerified = true;
    if (!isReady) markReady();
    else if (!closed && statusChanged()) announce([], []);
    const period = options.rescanIntervalMs ?? 5 * 60_000;
    if (period > 0 && !closed) {
      rescanTimer = setInterval(() => {
        watcher?.rewatch();
        void enqueue({ paths: new Set(), folders: new Set([root]) });
      }, period);
      rescanTimer.unref();
    }
  }

  const verified = start();
  verified.catch((error: unknown) => {
    failReady(error);
    refuseWork(error);
    onError(error);
  });
  ready.catch(() => undefined);

  const sessions$ = new Observable<SessionListEvent<Summary>>((subscriber) => {
    let inner: { unsubscribe(): void } | null = null;
    let active = true;
    const begin = (): void => {
      if (!active) return;
      const current = status();
      if (announcedStatus === "") announcedStatus = JSON.stringify(current);
      subscriber.next({ type: "snapshot", revision, sessions: list(), status: current });
      inner = changes.subscribe(subscriber);
    };
    if (isReady) begin();
    else ready.then(begin, (error: unknown) => subscriber.error(error));
    return () => {
      active = false;
      inner?.unsubscribe();
    };
  });

  return {
    ready,
    verified,
    list,
    get: (file) => entries.get(path.resolve(file))?.summary ?? null,
    status,
    sessions$,
    rescan: () => enqueue({ paths: new Set(), folders: new Set([root]) }),
    idle: async () => {
      await verified.catch(() => undefined);
      while (draining !== null) await draining.catch(() => undefined);
    },
    watchedFolders: () => watcher?.watchedFolders() ?? 0,
    touch: (files) => enqueue({ paths: new Set(files.map((f) => path.resolve(f))), folders: new Set() }),
    async close() {
      if (closed) return;
      closed = true;
      watcher?.close();
      if (rescanTimer !== null) clearInterval(rescanTimer);
      await verified.catch(() => undefined);
      await draining?.catch(() => undefined);
      changes.complete();
    },
  };
}
