import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { committedRepo, git, tempDir, write } from "./git-repo.fixture.ts";
import { SYSTEM_WATCH_LIMIT_MESSAGE, watchBudgetMessage } from "../../domain/git-review/watch-rules.ts";
import { createReviewWatchers, type ReviewWatchers, type ReviewWatchEvent } from "./review-watcher.ts";
import { defaultWatch, type WatchFunction } from "./tree-watch.ts";

/** How long a test waits to be sure that no event follows (several coalescing windows). */
const QUIET_MS = 900;

/** A subscriber's events, in order. */
class Events {
  private readonly events: ReviewWatchEvent[] = [];
  private readonly waiters: ((event: ReviewWatchEvent) => void)[] = [];
  readonly listener = (event: ReviewWatchEvent): void => {
    const waiter = this.waiters.shift();
    if (waiter) waiter(event);
    else this.events.push(event);
  };

  next(): Promise<ReviewWatchEvent> {
    const queued = this.events.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves with the events that arrive within `ms` (none expected, usually). */
  async within(ms: number): Promise<ReviewWatchEvent[]> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return this.events.splice(0);
  }
}

const registries: ReviewWatchers[] = [];
function watchers(options: Parameters<typeof createReviewWatchers>[0] = {}): ReviewWatchers {
  const created = createReviewWatchers(options);
  registries.push(created);
  return created;
}

afterEach(() => {
  for (const registry of registries.splice(0)) registry.close();
});

function repoWithCommit(): string {
  return committedRepo({ "tracked.txt": "a\n", ".gitignore": "node_modules/\n" });
}

describe("review watchers", () => {
  it("shares one watcher between clients of the same root and closes it after the last one", async () => {
    const root = repoWithCommit();
    fs.mkdirSync(path.join(root, "sub"));
    const registry = watchers();
    const a = new Events();
    const b = new Events();
    const stopA = registry.subscribe(root, a.listener);
    const stopB = registry.subscribe(path.join(root, "sub"), b.listener);
    expect(await a.next()).toEqual({ type: "review_ready" });
    expect(await b.next()).toEqual({ type: "review_ready" });
    expect(registry.activeWatchers()).toBe(1);
    write(root, "tracked.txt", "b\n");
    expect(await a.next()).toEqual({ type: "review_change", root });
    expect(await b.next()).toEqual({ type: "review_change", root });
    stopA();
    expect(registry.activeWatchers()).toBe(1);
    // A client joining a ready watcher is ready at once.
    const c = new Events();
    const stopC = registry.subscribe(root, c.listener);
    expect(await c.next()).toEqual({ type: "review_ready" });
    stopB();
    stopC();
    expect(registry.activeWatchers()).toBe(0);
    expect(registry.watchedFolders(root)).toBe(0);
  });

  it("says unavailable for a folder outside a repository or a missing folder, without a watcher", async () => {
    const registry = watchers();
    for (const cwd of [tempDir(), path.join(tempDir(), "missing"), "relative"]) {
      const events = new Events();
      registry.subscribe(cwd, events.listener);
      expect(await events.next()).toEqual({ type: "review_unavailable" });
    }
    expect(registry.activeWatchers()).toBe(0);
  });

  it("reports a git failure at setup as a watch error", async () => {
    const root = repoWithCommit();
    fs.appendFileSync(path.join(root, ".git", "config"), "[broken\n");
    const events = new Events();
    watchers().subscribe(root, events.listener);
    expect(await events.next()).toEqual({ type: "review_watch_error", message: expect.stringContaining("bad config") });
  });

  it("ends the watcher with a watch error for every client when a watch fails at run time", async () => {
    const root = repoWithCommit();
    const opened: fs.FSWatcher[] = [];
    const watch: WatchFunction = (dir, listener) => {
      const watcher = defaultWatch(dir, listener);
      opened.push(watcher);
      return watcher;
    };
    const registry = watchers({ watch });
    const a = new Events();
    const b = new Events();
    registry.subscribe(root, a.listener);
    registry.subscribe(root, b.listener);
    await a.next();
    await b.next();
    opened[0]?.emit("error", new Error("inotify broke"));
    expect(await a.next()).toEqual({ type: "review_watch_error", message: "Review watcher failed: inotify broke" });
    expect(await b.next()).toEqual({ type: "review_watch_error", message: "Review watcher failed: inotify broke" });
    expect(registry.activeWatchers()).toBe(0);
  });

  it("skips a folder it may not read, and fails on the system's limit of watches without a retry", async () => {
    const root = repoWithCommit();
    fs.mkdirSync(path.join(root, "private"));
    fs.mkdirSync(path.join(root, "crowded"));
    const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: refused`), { code });
    const watch: WatchFunction = (dir, listener) => {
      if (dir.endsWith("private")) throw errno("EACCES");
      if (dir.endsWith("crowded")) throw errno("ENOSPC");
      return defaultWatch(dir, listener);
    };
    const events = new Events();
    const registry = watchers({ watch });
    registry.subscribe(root, events.listener);
    expect(await events.next()).toEqual({ type: "review_watch_error", message: SYSTEM_WATCH_LIMIT_MESSAGE, retry: false });
    expect(registry.activeWatchers()).toBe(0);
    fs.rmdirSync(path.join(root, "crowded"));
    const again = new Events();
    registry.subscribe(root, again.listener);
    expect(await again.next()).toEqual({ type: "review_ready" });
  });

  it("does not enter ignored folders, nested repositories or .git/objects, and follows folders that appear or go", async () => {
    const root = repoWithCommit();
    for (let index = 0; index < 40; index++) fs.mkdirSync(path.join(root, "node_modules", `p${index}`, "lib"), { recursive: true });
    fs.mkdirSync(path.join(root, "nested", "deep"), { recursive: true });
    git(path.join(root, "nested"), ["init", "-q"]);
    const registry = watchers();
    const events = new Events();
    registry.subscribe(root, events.listener);
    await events.next();
    // The root; .git, .git/refs/{heads,tags}, .git/info (when present).
    const baseline = registry.watchedFolders(root);
    expect(baseline).toBeLessThan(10);

    fs.mkdirSync(path.join(root, "src"));
    expect(await events.next()).toEqual({ type: "review_change", root });
    await vi.waitFor(() => expect(registry.watchedFolders(root)).toBe(baseline + 1));
    write(root, "src/later.txt", "x\n");
    expect(await events.next()).toEqual({ type: "review_change", root });
    // Removed and made again at once (as a checkout does): the new folder is watched, not the dead watch of the old.
    fs.rmSync(path.join(root, "src"), { recursive: true });
    fs.mkdirSync(path.join(root, "src"));
    expect(await events.next()).toEqual({ type: "review_change", root });
    write(root, "src/again.txt", "x\n");
    expect(await events.next()).toEqual({ type: "review_change", root });
    fs.rmSync(path.join(root, "src"), { recursive: true });
    expect(await events.next()).toEqual({ type: "review_change", root });
    await vi.waitFor(() => expect(registry.watchedFolders(root)).toBe(baseline));

    // Inside a nested repository and an ignored folder: nothing.
    write(root, "nested/deep/n.txt", "n\n");
    write(root, "node_modules/p1/lib/index.js", "x\n");
    expect(await events.within(QUIET_MS)).toEqual([]);
  });

  it("follows a linked worktree's own index and HEAD, and the shared branches", async () => {
    const main = repoWithCommit();
    const linked = path.join(tempDir(), "wt");
    git(main, ["worktree", "add", "-q", "-b", "side", linked]);
    const registry = watchers();
    const events = new Events();
    registry.subscribe(linked, events.listener);
    expect(await events.next()).toEqual({ type: "review_ready" });
    write(linked, "new.txt", "n\n");
    expect(await events.next()).toEqual({ type: "review_change", root: linked });
    git(linked, ["add", "new.txt"]);
    expect(await events.next()).toEqual({ type: "review_change", root: linked });
    git(linked, ["commit", "-q", "-m", "in the worktree"]);
    expect(await events.next()).toEqual({ type: "review_change", root: linked });
    // The main worktree's own files and index are not this worktree's business.
    write(main, "tracked.txt", "main only\n");
    git(main, ["add", "tracked.txt"]);
    expect(await events.within(QUIET_MS)).toEqual([]);
  });

  it("says unavailable when the repository disappears", async () => {
    const root = repoWithCommit();
    const registry = watchers();
    const events = new Events();
    registry.subscribe(root, events.listener);
    await events.next();
    fs.rmSync(path.join(root, ".git"), { recursive: true, force: true });
    const seen: ReviewWatchEvent[] = [];
    for (;;) {
      const event = await events.next();
      seen.push(event);
      if (event.type !== "review_change") break;
    }
    expect(seen.at(-1)).toEqual({ type: "review_unavailable" });
    expect(registry.activeWatchers()).toBe(0);
  });
  it("watches a folder that stops being ignored (.gitignore), and stops watching one that becomes ignored", async () => {
    const root = committedRepo({ "tracked.txt": "a\n", ".gitignore": "build/\n" });
    fs.mkdirSync(path.join(root, "build", "sub"), { recursive: true });
    const registry = watchers();
    const events = new Events();
    registry.subscribe(root, events.listener);
    expect(await events.next()).toEqual({ type: "review_ready" });
    const baseline = registry.watchedFolders(root);

    write(root, ".gitignore", "");
    expect(await events.next()).toEqual({ type: "review_change", root });
    expect(registry.watchedFolders(root)).toBe(baseline + 2);
    write(root, "build/sub/new.txt", "n\n");
    expect(await events.next()).toEqual({ type: "review_change", root });

    // Ignored again (an editor's atomic save: a rename onto .gitignore).
    write(root, ".gitignore.tmp", "build/\n");
    fs.renameSync(path.join(root, ".gitignore.tmp"), path.join(root, ".gitignore"));
    expect(await events.next()).toEqual({ type: "review_change", root });
    expect(registry.watchedFolders(root)).toBe(baseline);
    write(root, "build/sub/more.txt", "m\n");
    expect(await events.within(QUIET_MS)).toEqual([]);
  });

  it("follows .git/info/exclude as ignore rules", async () => {
    const root = repoWithCommit();
    write(root, ".git/info/exclude", "gen/\n");
    fs.mkdirSync(path.join(root, "gen"));
    const registry = watchers();
    const events = new Events();
    registry.subscribe(root, events.listener);
    expect(await events.next()).toEqual({ type: "review_ready" });
    write(root, "gen/a.txt", "a\n");
    expect(await events.within(QUIET_MS)).toEqual([]);
    write(root, ".git/info/exclude", "");
    expect(await events.next()).toEqual({ type: "review_change", root });
    write(root, "gen/b.txt", "b\n");
    expect(await events.next()).toEqual({ type: "review_change", root });
  });

  it("does not enter the ignored folders of a folder that appears", async () => {
    const root = repoWithCommit();
    const outside = tempDir();
    for (let index = 0; index < 5; index++) fs.mkdirSync(path.join(outside, "project", "node_modules", `p${index}`), { recursive: true });
    fs.mkdirSync(path.join(outside, "project", "src"));
    const registry = watchers();
    const events = new Events();
    registry.subscribe(root, events.listener);
    expect(await events.next()).toEqual({ type: "review_ready" });
    const baseline = registry.watchedFolders(root);
    fs.renameSync(path.join(outside, "project"), path.join(root, "project"));
    expect(await events.next()).toEqual({ type: "review_change", root });
    // project and project/src, not node_modules and its packages.
    expect(registry.watchedFolders(root)).toBe(baseline + 2);
    write(root, "project/node_modules/p1/index.js", "x\n");
    expect(await events.within(QUIET_MS)).toEqual([]);
  });

  it("settles what changed during the setup: a folder made after its parent was listed is watched", async () => {
    const root = repoWithCommit();
    let made = false;
    // The git dir is watched after the working tree was walked: a folder made then is only seen as an event.
    const watch: WatchFunction = (dir, listener) => {
      if (!made && dir === path.join(root, ".git")) {
        made = true;
        fs.mkdirSync(path.join(root, "late"));
      }
      return defaultWatch(dir, listener);
    };
    const registry = watchers({ watch });
    const events = new Events();
    registry.subscribe(root, events.listener);
    expect(await events.next()).toEqual({ type: "review_ready" });
    expect(await events.next()).toEqual({ type: "review_change", root });
    write(root, "late/file.txt", "x\n");
    expect(await events.next()).toEqual({ type: "review_change", root });
  });

  it("does not start on part of a tree beyond its watch budget: a watch error without a retry", async () => {
    const root = repoWithCommit();
    for (let index = 0; index < 6; index++) fs.mkdirSync(path.join(root, `d${index}`));
    const watched = new Set<string>();
    const watch: WatchFunction = (dir, listener) => {
      const watcher = defaultWatch(dir, listener);
      watched.add(dir);
      const close = watcher.close.bind(watcher);
      watcher.close = () => {
        watched.delete(dir);
        close();
      };
      return watcher;
    };
    const registry = watchers({ watch, watchBudget: 5 });
    const events = new Events();
    registry.subscribe(root, events.listener);
    expect(await events.next()).toEqual({ type: "review_watch_error", message: watchBudgetMessage(5), retry: false });
    expect(watchBudgetMessage(5)).toBe("This repository has more than 5 folders to watch; the review updates on Refresh only.");
    expect(registry.activeWatchers()).toBe(0);
    expect(watched.size).toBe(0);
  });

  it("ends with a watch error without a retry when folders that appear pass the watch budget", async () => {
    const root = repoWithCommit();
    const probe = watchers();
    const ready = new Events();
    probe.subscribe(root, ready.listener);
    await ready.next();
    const needed = probe.watchedFolders(root);
    probe.close();

    const registry = watchers({ watchBudget: needed + 2 });
    const events = new Events();
    registry.subscribe(root, events.listener);
    expect(await events.next()).toEqual({ type: "review_ready" });
    fs.mkdirSync(path.join(root, "a", "b"), { recursive: true });
    expect(await events.next()).toEqual({ type: "review_change", root });
    expect(registry.watchedFolders(root)).toBe(needed + 2);
    fs.mkdirSync(path.join(root, "c"));
    expect(await events.next()).toEqual({ type: "review_watch_error", message: watchBudgetMessage(needed + 2), retry: false });
    expect(registry.activeWatchers()).toBe(0);
  });
});
