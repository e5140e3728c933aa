/**
 * The session index: every `*.jsonl` file under pi's sessions folder, summarised by a projection set whose
 * folds are checkpointed in SQLite.
 *
 * Start: list and stat the files, reuse the checkpoints whose stamp is unchanged (no file is opened), fold
 * only what changed, forget checkpoints of deleted files, then report ready. Afterwards the folder tree is
 * watched (one watcher per folder, bursts coalesced) and a low-frequency rescan covers missed events.
 *
 * Streams: `sessions$` sends a snapshot to each subscriber (once the index is ready) and then one `changed`
 * event per processed batch; `session$(path)` holds the session's full in-memory projections while
 * subscribed (shared between subscribers) and emits them after each change.
 */
import path from "node:path";
import type { Kysely } from "kysely";
import { Observable, Subject } from "rxjs";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import type { CheckpointHead } from "../projections/checkpoint-store.ts";
import type { AnyProjection } from "../projections/file-fold.ts";
import {
  createProjectionRunner,
  type ProjectionSet,
  type ScanFile,
  type ScanOutcome,
} from "../projections/projection-runner.ts";
import { openSessionTail, type SessionTail, type SessionTailSnapshot } from "../projections/session-tail.ts";
import { watchFolderTree, type DirtyBatch, type FolderWatcher } from "./folder-watcher.ts";
import { isInside, isSessionFileName, listSessionFiles, statSessionFile } from "./session-files-scan.ts";

export interface SessionIndexStatus {
  /** `*.jsonl` files found. */
  readonly filesOnDisk: number;
  /** Files listed (their summary is not null). */
  readonly indexed: number;
  /** Files that are not sessions or cannot be read: counted, not listed. */
  readonly invalid: number;
  readonly ready: boolean;
}

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
  /** The projections an opened session holds in memory (`session$`). */
  readonly tailProjections: readonly AnyProjection[];
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
  /** Resolves when the first scan is done. */
  readonly ready: Promise<void>;
  list(): Summary[];
  get(file: string): Summary | null;
  status(): SessionIndexStatus;
  readonly sessions$: Observable<SessionListEvent<Summary>>;
  session$(file: string): Observable<SessionTailSnapshot>;
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
  readonly head: CheckpointHead;
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
  const tails = new Map<string, { tail: SessionTail; refs: number }>();
  let revision = 0;
  let isReady = false;
  let closed = false;

  // Pending work, merged until the drain loop takes it.
  let dirtyPaths = new Set<string>();
  let dirtyFolders = new Set<string>();
  let draining: Promise<void> | null = null;
  /** False until the stored checkpoints are loaded: earlier watcher events wait for the first scan. */
  let accepting = false;

  const status = (): SessionIndexStatus => {
    let indexed = 0;
    for (const entry of entries.values()) if (entry.summary !== null) indexed++;
    const filesOnDisk = entries.size + unreadable.size;
    return { filesOnDisk, indexed, invalid: filesOnDisk - indexed, ready: isReady };
  };

  const list = (): Summary[] => {
    const sessions: Summary[] = [];
    const paths = [...entries.keys()].sort();
    for (const p of paths) {
      const summary = (entries.get(p) as Entry<Summary>).summary;
      if (summary !== null) sessions.push(summary);
    }
    return options.order ? sessions.sort(options.order) : sessions;
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
          entries.set(outcome.path, { head: outcome.head, summary: outcome.summary });
          if (outcome.summary !== null) {
            if (previous === undefined || previous.head.summaryJson !== outcome.head.summaryJson) {
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
    for (const file of candidates) {
      const open = tails.get(file);
      if (open !== undefined) open.tail.refresh().catch(onError);
    }
    if (isReady && !closed && (upserted.length > 0 || removed.length > 0)) {
      changes.next({ type: "changed", revision: ++revision, upserted, removed, status: status() });
    }
    onApplied();
    // The checkpoint transaction completes before the next batch starts (writes stay ordered).
    await scanned.persisted;
  }

  function enqueue(batch: DirtyBatch): Promise<void> {
    for (const p of batch.paths) dirtyPaths.add(p);
    for (const f of batch.folders) dirtyFolders.add(f);
    if (!accepting) return ready.then(() => enqueue({ paths: new Set(), folders: new Set() }));
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
    // Watch first: events during the initial scan are queued behind it, not lost. Setting up the watchers walks
    // the tree, and that walk is the initial listing.
    let listed: string[] | null = null;
    if (options.watch !== false) {
      watcher = watchFolderTree(root, (batch) => void enqueue(batch), {
        coalesceMs: options.coalesceMs ?? 25,
        collect: isSessionFileName,
      });
      listed = watcher.takeInitialFiles();
    }
    for (const [p, head] of await runner.loadHeads()) heads.set(p, head);
    accepting = true;
    // Ready as soon as the first scan's outcomes are applied; its checkpoint write finishes in the background.
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
    isReady = true;
    isReady = true;
    const period = options.rescanIntervalMs ?? 5 * 60_000;
    if (period > 0 && !closed) {
      rescanTimer = setInterval(() => {
        watcher?.rewatch();
        void enqueue({ paths: new Set(), folders: new Set([root]) });
      }, period);
      rescanTimer.unref();
    }
  }

  const ready = start();
  ready.catch(onError);

  const sessions$ = new Observable<SessionListEvent<Summary>>((subscriber) => {
    let inner: { unsubscribe(): void } | null = null;
    let active = true;
    const begin = (): void => {
      if (!active) return;
      subscriber.next({ type: "snapshot", revision, sessions: list(), status: status() });
      inner = changes.subscribe(subscriber);
    };
    if (isReady) begin();
    else ready.then(begin, (error: unknown) => subscriber.error(error));
    return () => {
      active = false;
      inner?.unsubscribe();
    };
  });

  function session$(file: string): Observable<SessionTailSnapshot> {
    const key = path.resolve(file);
    return new Observable<SessionTailSnapshot>((subscriber) => {
      if (closed) {
        subscriber.complete();
        return undefined;
      }
      let open = tails.get(key);
      if (open === undefined) {
        const watch = options.watch === false ? false : !isInside(root, key);
        open = { tail: openSessionTail(key, options.tailProjections, { watch }), refs: 0 };
        tails.set(key, open);
      }
      open.refs++;
      const held = open;
      const inner = held.tail.changes$.subscribe(subscriber);
      return () => {
        inner.unsubscribe();
        held.refs--;
        if (held.refs === 0 && tails.get(key) === held) {
          tails.delete(key);
          held.tail.close();
        }
      };
    });
  }

  return {
    ready,
    list,
    get: (file) => entries.get(path.resolve(file))?.summary ?? null,
    status,
    sessions$,
    session$,
    rescan: () => enqueue({ paths: new Set(), folders: new Set([root]) }),
    idle: async () => {
      await ready.catch(() => undefined);
      while (draining !== null) await draining.catch(() => undefined);
    },
    watchedFolders: () => watcher?.watchedFolders() ?? 0,
    touch: (files) => enqueue({ paths: new Set(files.map((f) => path.resolve(f))), folders: new Set() }),
    async close() {
      if (closed) return;
      closed = true;
      watcher?.close();
      if (rescanTimer !== null) clearInterval(rescanTimer);
      for (const { tail } of tails.values()) tail.close();
      tails.clear();
      await ready.catch(() => undefined);
      await draining?.catch(() => undefined);
      changes.complete();
    },
  };
}
