/**
 * Watches a folder tree with one `fs.watch` per folder (portable: no reliance on recursive watching), picks
 * up new subfolders, drops watchers of removed ones, and reports what changed in coalesced batches: a burst
 * of events within `coalesceMs` of the first one becomes one batch.
 *
 * A batch names the files an event mentioned and the folders to list again (a folder appeared or vanished,
 * or an event came without a file name). If the root does not exist yet, its parent is watched until it does.
 */
import fs from "node:fs";
import path from "node:path";

export interface DirtyBatch {
  /** Paths named by events (files or folders; they may no longer exist). */
  readonly paths: ReadonlySet<string>;
  /** Folders whose whole content must be listed again. */
  readonly folders: ReadonlySet<string>;
}

export interface FolderWatcher {
  /** Number of folders currently watched (for tests and status). */
  watchedFolders(): number;
  /**
   * The files accepted by `collect` found while the watchers were set up (each folder is watched before it is
   * listed, so a file created later is reported by an event). Returns null when the root could not be watched;
   * empties the list.
   */
  takeInitialFiles(): string[] | null;
  /** Watches the root again if it was missing or removed (e.g. from a periodic rescan); cheap when watched. */
  rewatch(): void;
  close(): void;
}

export interface FolderWatcherOptions {
  readonly coalesceMs?: number;
  /** Names to ignore (e.g. editor swap files); default: none. */
  readonly ignore?: (name: string) => boolean;
  /**
   * Files to remember while the tree is first walked (the walk lists every folder anyway), so the owner
   * need not list the tree a second time: see `takeInitialFiles`.
   */
  readonly collect?: (name: string) => boolean;
}

export function watchFolderTree(rootPath: string, onBatch: (batch: DirtyBatch) => void, options: FolderWatcherOptions = {}): FolderWatcher {
  const root = path.normalize(rootPath);
  const coalesceMs = options.coalesceMs ?? 25;
  const ignore = options.ignore ?? (() => false);
  const watchers = new Map<string, fs.FSWatcher>();
  const collect = options.collect ?? null;
  let initialFiles: string[] | null = [];
  let parentWatcher: fs.FSWatcher | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let paths = new Set<string>();
  let folders = new Set<string>();

  const flush = (): void => {
    timer = null;
    if (closed) return;
    const batch: DirtyBatch = { paths, folders };
    paths = new Set();
    folders = new Set();
    onBatch(batch);
  };
  const schedule = (): void => {
    if (timer === null && !closed) timer = setTimeout(flush, coalesceMs);
  };

  const unwatch = (folder: string): void => {
    for (const [watched, watcher] of watchers) {
      if (watched === folder || watched.startsWith(folder + path.sep)) {
        watcher.close();
        watchers.delete(watched);
      }
    }
  };

  const isDirectory = (p: string): boolean => {
    try {
      return fs.statSync(p).isDirectory();
    } catch {
      return false;
    }
  };

  /** Watches `folder` and every folder below it; returns false if `folder` cannot be watched. */
  const watchTree = (folder: string): boolean => {
    if (closed || watchers.has(folder)) return true;
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(folder, { persistent: false }, (_event, name) => onEvent(folder, name));
    } catch {
      return false;
    }
    watcher.on("error", () => {
      unwatch(folder);
      folders.add(path.dirname(folder));
      schedule();
    });
    watchers.set(folder, watcher);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      return true;
    }
    // `folder` is normalised (the root is resolved, subfolders are built here) and a name has no separator, so
    // concatenation gives what path.join would, without re-normalising every path (thousands on a start).
    const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
    for (const entry of entries) {
      if (entry.isDirectory()) watchTree(prefix + entry.name);
      else if (initialFiles !== null && collect !== null && entry.isFile() && collect(entry.name)) {
        initialFiles.push(prefix + entry.name);
      }
    }
    return true;
  };

  const onEvent = (folder: string, name: string | Buffer | null): void => {
    if (closed) return;
    if (name === null) {
      folders.add(folder);
    } else {
      const text = name.toString();
      if (ignore(text)) return;
      const full = path.join(folder, text);
      if (watchers.has(full)) {
        if (!isDirectory(full)) {
          unwatch(full);
          folders.add(full);
        }
      } else if (isDirectory(full)) {
        watchTree(full);
        folders.add(full);
      }
      paths.add(full);
    }
    schedule();
  };

  const watchRoot = (): void => {
    if (watchTree(root)) {
      parentWatcher?.close();
      parentWatcher = null;
      return;
    }
    if (parentWatcher !== null) return;
    const parent = path.dirname(root);
    try {
      parentWatcher = fs.watch(parent, { persistent: false }, (_event, name) => {
        if (closed || (name !== null && name.toString() !== path.basename(root))) return;
        if (isDirectory(root)) {
          watchRoot();
          folders.add(root);
          schedule();
        }
      });
      parentWatcher.on("error", () => {
        parentWatcher?.close();
        parentWatcher = null;
      });
    } catch {
      parentWatcher = null; // neither root nor parent exist: the owner's periodic rescan covers it
    }
    if (isDirectory(root)) watchRoot(); // created between the two checks
  };

  watchRoot();
  let rootFiles: string[] | null = watchers.has(root) ? initialFiles : null;
  initialFiles = null;

  return {
    takeInitialFiles: () => {
      const files = rootFiles;
      rootFiles = null;
      return files;
    },
    watchedFolders: () => watchers.size,
    rewatch: () => {
      if (!closed && !watchers.has(root)) watchRoot();
    },
    close() {
      if (closed) return;
      closed = true;
      if (timer !== null) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      parentWatcher?.close();
      parentWatcher = null;
    },
  };
}
