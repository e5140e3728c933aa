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
 * is kept by the detail worker, adapters/read-side/detail-feed-host.ts, not here.)
 *
 * Parts: the list itself is a plain state with pure operations (session-list-state.ts); the paths and folders
 * to check go through a work queue that runs one batch at a time (index-work-queue.ts); this module wires them
 * to the projection runner, the folder watcher and the stream.
 */
import path from "node:path";
import type { Kysely } from "kysely";
import { Observable, Subject } from "rxjs";
import type { SessionIndexStatus } from "../../domain/live/session-list.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import { createProjectionRunner, type ProjectionSet, type ScanFile, type ScanOutcome } from "../projections/projection-runner.ts";
import { watchFolderTree, type FolderWatcher } from "./folder-watcher.ts";
import { createIndexWorkQueue } from "./index-work-queue.ts";
import { isInside, isSessionFileName, listSessionFiles, statSessionFile } from "./session-files-scan.ts";
import { applyScanOutcomes, emptySessionListState, isKnownFile, listStatus, listSummaries } from "./session-list-state.ts";

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

export function createSessionIndex<Summary>(options: SessionIndexOptions<Summary>): SessionIndex<Summary> {
  const root = path.resolve(options.sessionsDir);
  const runner = createProjectionRunner(options.db, options.set, { concurrency: options.concurrency ?? 8 });
  const onError = options.onError ?? (() => undefined);
  const state = emptySessionListState<Summary>();
  const changes = new Subject<SessionListEvent<Summary>>();
  let revision = 0;
  let isReady = false;
  let isVerified = false;
  let closed = false;
  /** `list()` as last computed; dropped whenever the listed summaries change. */
  let listCache: Summary[] | null = null;

  // Updates asked for before the first full pass (the verification, or the cold scan) starts wait for it.
  const queue = createIndexWorkQueue((paths, folders) => process(paths, folders), onError);
  let markReady: () => void = () => undefined;
  let failReady: (error: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = () => {
      isReady = true;
      resolve();
    };
    failReady = reject;
  });

  const status = (): SessionIndexStatus => listStatus(state, { ready: isReady, verified: isVerified });
  /** The status last announced: a `changed` event goes out when it changes, even with no row changed. */
  let announcedStatus = "";
  const statusChanged = (): boolean => JSON.stringify(status()) !== announcedStatus;
  const announce = (upserted: Summary[], removed: string[]): void => {
    const current = status();
    announcedStatus = JSON.stringify(current);
    changes.next({ type: "changed", revision: ++revision, upserted, removed, status: current });
  };

  const list = (): Summary[] => {
    listCache ??= listSummaries(state, options.order);
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
      for (const file of state.heads.keys()) known(file);
      for (const file of state.unreadable) known(file);
    }
    for (const p of paths) {
      if (isSessionFileName(p)) candidates.add(p);
    }
    const files: ScanFile[] = [];
    const gone: string[] = [];
    for (const file of candidates) {
      const stamp = statSessionFile(file);
      if (stamp !== null) files.push({ path: file, stamp });
      else if (isKnownFile(state, file)) gone.push(file);
    }
    const scanned = await runner.scanDeferred(
      files,
      state.heads,
      gone.filter((p) => state.heads.has(p)),
    );
    const outcomes: ScanOutcome<Summary>[] = scanned.outcomes;
    for (const file of gone) outcomes.push({ kind: "removed", path: file });
    const { upserted, removed } = applyScanOutcomes(state, outcomes);

    // The listed summaries change only with an upsert or a removal (a kept file's summary is equal).
    if (upserted.length > 0 || removed.length > 0) listCache = null;
    if (isReady && !closed && (upserted.length > 0 || removed.length > 0 || statusChanged())) announce(upserted, removed);
    onApplied();
    // The checkpoint transaction completes before the next batch starts (writes stay ordered).
    await scanned.persisted;
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
      queue.open();
      return;
    }
    if (stored !== null && stored.length > 0) {
      // Serve the stored list now; the pass below checks it against the disk.
      for (const folderSummary of stored) state.files.set(folderSummary.path, folderSummary);
      markReady();
      // Callers waiting for `ready` take the list before the verification pass holds the thread.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (closed) {
        queue.open();
        return;
      }
    }
    for (const [p, head] of await runner.loadHeads()) state.heads.set(p, head);
    if (closed) {
      if (!isReady) markReady();
      queue.open();
      return;
    }
    // Watch first: a change during the pass is reported by an event (queued behind the pass), not lost.
    // Setting up the watchers walks the tree, and that walk is the pass's listing.
    let listed: string[] | null = null;
    if (options.watch !== false) {
      watcher = watchFolderTree(root, (batch) => void queue.enqueue(batch), {
        coalesceMs: options.coalesceMs ?? 25,
        collect: isSessionFileName,
      });
      listed = watcher.takeInitialFiles();
    }
    queue.open();
    // The pass counts as done once its outcomes are applied; its checkpoint write finishes in the background.
    let markApplied: () => void = () => undefined;
    const applied = new Promise<void>((resolve) => (markApplied = resolve));
    const preListed = listed !== null ? { folder: root, files: listed } : null;
    const folders = new Set<string>(listed !== null ? [] : [root]);
    const first = queue.runFirst(() => process(new Set(), folders, preListed, markApplied));
    await Promise.race([applied, first]);
    isVerified = true;
    if (!isReady) markReady();
    else if (!closed && statusChanged()) announce([], []);
    const period = options.rescanIntervalMs ?? 5 * 60_000;
    if (period > 0 && !closed) {
      rescanTimer = setInterval(() => {
        watcher?.rewatch();
        void queue.enqueue({ paths: new Set(), folders: new Set([root]) });
      }, period);
      rescanTimer.unref();
    }
  }

  const verified = start();
  verified.catch((error: unknown) => {
    failReady(error);
    queue.refuse(error);
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
    get: (file) => state.files.get(path.resolve(file))?.summary ?? null,
    status,
    sessions$,
    rescan: () => queue.enqueue({ paths: new Set(), folders: new Set([root]) }),
    idle: async () => {
      await verified.catch(() => undefined);
      for (let draining = queue.current(); draining !== null; draining = queue.current()) await draining.catch(() => undefined);
    },
    watchedFolders: () => watcher?.watchedFolders() ?? 0,
    touch: (files) => queue.enqueue({ paths: new Set(files.map((f) => path.resolve(f))), folders: new Set() }),
    async close() {
      if (closed) return;
      closed = true;
      queue.close();
      watcher?.close();
      if (rescanTimer !== null) clearInterval(rescanTimer);
      await verified.catch(() => undefined);
      await queue.current()?.catch(() => undefined);
      changes.complete();
    },
  };
}
