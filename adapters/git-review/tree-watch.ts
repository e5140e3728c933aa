/**
 * One recursive watch of a folder tree, made of one `fs.watch` per folder (inotify watches a folder's direct
 * entries), so the owner decides which folders are watched at all.
 *
 * Why not `fs.watch(root, { recursive: true })`: on Linux, Node 22 implements it by walking the whole tree
 * synchronously and watching every file (measured: 30,000 files blocked the event loop 0.8 s and took 30,000
 * inotify watches). A project's ignored `node_modules` or `.git/objects` would block the server and can exhaust
 * the system's inotify watches; here they are never entered.
 *
 * Rules:
 * - A folder is watched before it is listed, so nothing created in between is missed.
 * - `descend(rel)` says whether a subfolder is entered (rel is relative to the root, `/`-separated). With
 *   `stopAt`, a subfolder holding an entry of that name (a nested repository's `.git`) is not watched.
 * - Symbolic links are never followed; a folder that is gone or not readable is skipped (a limit such as the
 *   system's inotify watches is an error).
 * - With a `budget` (shared by the trees of one owner), a folder beyond it is not watched: `add` throws
 *   WatchBudgetExceeded and the owner decides (the review watcher stops; it never runs on part of a tree).
 * - Events are reported as paths relative to the root (`onChange(rel, renamed)`; `renamed`: something appeared,
 *   disappeared or moved). The tree does not add or drop folders by itself: the owner calls `add` for a folder
 *   that appeared (once it knows it belongs) and `remove` for one that is gone.
 * - A folder removed or moved away loses its watch (reported as that folder's change, so the owner can watch a
 *   folder made again under that name); a watcher error for a folder that is gone removes it quietly; any other
 *   is reported through `onError`.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

/** How a folder is watched: `fs.watch` by default; tests wrap it to reach the watchers. */
export type WatchFunction = (dir: string, listener: (eventType: string, filename: string | null) => void) => fs.FSWatcher;

export const defaultWatch: WatchFunction = (dir, listener) =>
  fs.watch(dir, { persistent: false, encoding: "utf8" }, (eventType, filename) => listener(eventType, filename));

/** Most watches a set of trees may hold together; `take` throws WatchBudgetExceeded past the limit. */
export class WatchBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  take(): void {
    if (this.used >= this.limit) throw new WatchBudgetExceeded(this.limit);
    this.used++;
  }

  give(): void {
    this.used = Math.max(0, this.used - 1);
  }
}

export class WatchBudgetExceeded extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} folders to watch`);
    this.name = "WatchBudgetExceeded";
  }
}

export interface TreeWatchOptions {
  readonly dir: string;
  readonly descend: (rel: string) => boolean;
  readonly stopAt?: string;
  readonly onChange: (rel: string, renamed: boolean) => void;
  readonly onError: (error: Error) => void;
  readonly watch?: WatchFunction;
  readonly budget?: WatchBudget;
}

export interface TreeWatch {
  /** Watches a folder that appeared, and what is below it. */
  add(rel: string): Promise<void>;
  /** Stops watching a folder and everything below it. */
  remove(rel: string): void;
  watches(rel: string): boolean;
  /** Folders watched. */
  size(): number;
  close(): void;
}

function join(parent: string, name: string): string {
  return parent === "" ? name : `${parent}/${name}`;
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** A folder that cannot be watched or listed for its own reasons (gone, not readable): skipped, not a failure. */
function isSkippable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return isGone(error) || code === "EACCES" || code === "EPERM";
}

class FolderTree implements TreeWatch {
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private closed = false;
  private readonly watch: WatchFunction;

  constructor(private readonly options: TreeWatchOptions) {
    this.watch = options.watch ?? defaultWatch;
  }

  watches(rel: string): boolean {
    return this.watchers.has(rel);
  }

  size(): number {
    return this.watchers.size;
  }

  async add(rel: string): Promise<void> {
    const queue = [rel];
    while (queue.length > 0 && !this.closed) {
      const current = queue.shift() as string;
      if (this.watchers.has(current)) continue;
      const absolute = path.join(this.options.dir, current);
      let watcher: fs.FSWatcher;
      this.options.budget?.take();
      try {
        watcher = this.watch(absolute, (eventType, filename) => this.event(current, eventType, filename));
      } catch (error) {
        this.options.budget?.give();
        if (isSkippable(error)) continue;
        throw error;
      }
      watcher.on("error", (error: Error) => void this.watcherError(current, error));
      this.watchers.set(current, watcher);
      let entries: fs.Dirent[];
      try {
        entries = await fsp.readdir(absolute, { withFileTypes: true });
      } catch (error) {
        this.remove(current);
        if (isSkippable(error)) continue;
        throw error;
      }
      if (current !== "" && this.options.stopAt !== undefined && entries.some((entry) => entry.name === this.options.stopAt)) {
        this.remove(current);
        continue;
      }
      for (const entry of entries) {
        const child = join(current, entry.name);
        if (entry.isDirectory() && this.options.descend(child)) queue.push(child);
      }
    }
  }

  remove(rel: string): void {
    for (const [key, watcher] of this.watchers) {
      if (rel === "" || key === rel || key.startsWith(`${rel}/`)) {
        watcher.close();
        this.watchers.delete(key);
        this.options.budget?.give();
      }
    }
  }

  close(): void {
    this.closed = true;
    this.remove("");
  }

  private event(folder: string, eventType: string, filename: string | null): void {
    if (this.closed || !this.watchers.has(folder)) return;
    const renamed = eventType === "rename";
    if (filename === null || filename === "") {
      this.options.onChange(folder, renamed);
      return;
    }
    if (renamed && folder !== "" && filename === folder.slice(folder.lastIndexOf("/") + 1)) {
      // inotify reports a watched folder that was removed or moved away as a "rename" of its own name, and its
      // watch is dead from then on, even if a folder of that name is made again (often with the same inode).
      // Drop the watch and report the folder, so the owner watches it again if it is back. (A child with the
      // folder's name arrives the same way: it is reported too, and the folder is merely watched afresh.)
      this.remove(folder);
      this.options.onChange(folder, true);
    }
    this.options.onChange(join(folder, filename), renamed);
  }

  private async watcherError(folder: string, error: Error): Promise<void> {
    if (this.closed || !this.watchers.has(folder)) return;
    try {
      await fsp.stat(path.join(this.options.dir, folder));
    } catch (statError) {
      if (isGone(statError)) {
        this.remove(folder);
        this.options.onChange(folder, true);
        return;
      }
    }
    if (!this.closed) this.options.onError(error);
  }
}

/** Watches `options.dir` and the folders below it that `descend` accepts; resolves once they are all watched. */
export async function watchTree(options: TreeWatchOptions): Promise<TreeWatch> {
  const tree = new FolderTree(options);
  try {
    await tree.add("");
  } catch (error) {
    tree.close();
    throw error;
  }
  return tree;
}
