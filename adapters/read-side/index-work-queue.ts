/**
 * The session index's work queue: paths and folders to check are merged until one drain loop takes them, one
 * batch at a time, so that batches never overlap and their checkpoint writes stay ordered. Work asked for before
 * the index's first full pass starts waits for it (`open`); a failed start refuses it (`refuse`).
 */
import type { DirtyBatch } from "./folder-watcher.ts";

export interface IndexWorkQueue {
  /** Adds paths and folders to check; resolves when a drain that includes them is done. */
  enqueue(batch: DirtyBatch): Promise<void>;
  /** Lets queued and later work run (the first full pass has started). */
  open(): void;
  /** Fails work that waits for `open` (the index could not start). */
  refuse(error: unknown): void;
  /** Runs `first` as the current drain, then drains what was queued meanwhile (the first full pass). */
  runFirst(first: () => Promise<void>): Promise<void>;
  /** The drain in progress, if any. */
  current(): Promise<void> | null;
  /** Stops taking batches (the current one finishes). */
  close(): void;
}

/**
 * `processBatch` checks one merged batch; its errors go to `onError` (they never stop the queue).
 */
export function createIndexWorkQueue(
  processBatch: (paths: ReadonlySet<string>, folders: ReadonlySet<string>) => Promise<void>,
  onError: (error: unknown) => void,
): IndexWorkQueue {
  let dirtyPaths = new Set<string>();
  let dirtyFolders = new Set<string>();
  let draining: Promise<void> | null = null;
  let closed = false;
  let opened = false;
  let markOpen: () => void = () => undefined;
  let markRefused: (error: unknown) => void = () => undefined;
  const openGate = new Promise<void>((resolve, reject) => {
    markOpen = resolve;
    markRefused = reject;
  });
  openGate.catch(() => undefined);

  async function drain(): Promise<void> {
    try {
      while (!closed && (dirtyPaths.size > 0 || dirtyFolders.size > 0)) {
        const paths = dirtyPaths;
        const folders = dirtyFolders;
        dirtyPaths = new Set();
        dirtyFolders = new Set();
        try {
          await processBatch(paths, folders);
        } catch (error) {
          onError(error);
        }
      }
    } finally {
      draining = null;
    }
  }

  function enqueue(batch: DirtyBatch): Promise<void> {
    for (const p of batch.paths) dirtyPaths.add(p);
    for (const f of batch.folders) dirtyFolders.add(f);
    if (!opened) return openGate.then(() => enqueue({ paths: new Set(), folders: new Set() }));
    // Nothing to do starts no drain: a drain of nothing would end (and clear `draining`) before it is assigned.
    if (draining === null && (dirtyPaths.size > 0 || dirtyFolders.size > 0)) draining = drain();
    return draining ?? Promise.resolve();
  }

  return {
    enqueue,
    open() {
      opened = true;
      markOpen();
    },
    refuse: (error) => markRefused(error),
    runFirst(first) {
      const run = (async () => {
        try {
          await first();
        } catch (error) {
          onError(error);
        }
        await drain();
      })();
      draining = run;
      return run;
    },
    current: () => draining,
    close() {
      closed = true;
    },
  };
}
