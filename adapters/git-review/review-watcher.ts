/**
 * The review watchers behind WS /api/pi/review/events (spec): one recursive watcher per watch root (the
 * repository's worktree root), shared by every client whose folder resolves to that root, closed when its last
 * client leaves.
 *
 * A watcher is three tree watches (tree-watch.ts): the working tree (without `.git` folders, nested repositories
 * and the folders git reports as ignored), and the worktree's git dir and common dir (only the parts that hold
 * relevant metadata, domain/git-review/watch-rules.ts). Events within `coalesceMs` (default 120 ms) are one
 * batch; a batch emits one `review_change` when it holds relevant Git metadata, a change of ignore rules, or a
 * working-tree path that `git check-ignore --stdin -z` does not call ignored (if check-ignore fails, paths count as
 * not ignored: an extra refresh is harmless, a missed one is not). Each batch also:
 * - checks that the repository is still there: the root or the git dir's HEAD gone → `review_unavailable`;
 *   the root or git dir replaced by another folder (the watches see the old one) → `review_watch_error`;
 * - asks git again which folders are ignored when ignore rules changed (a `.gitignore`, `info/exclude`, the
 *   config) or folders appeared (they may hold ignored ones, e.g. a moved-in project's `node_modules`): watches
 *   the folders no longer ignored, drops the watches of folders now ignored;
 * - adds watches for folders that appeared (not ignored) and drops those of folders that are gone.
 * The batch's `review_change` is emitted after its watches are in place, so the status the clients fetch then
 * covers what happened before, and the watches what happens after. Events of the setup are one batch too.
 *
 * The watch budget: one watch root watches at most `watchBudget` folders in all (default: domain/git-review/
 * watch-rules.ts watchBudgetFor, 20,000 or a quarter of the system's inotify watches). A tree that needs more
 * never runs on part of it: the watcher ends with `review_watch_error { message, retry: false }`, as it does when
 * the system's limit is reached (ENOSPC); `retry: false` tells the client not to reconnect (each reconnect would
 * walk the tree and take the watches again).
 *
 * Events to a subscriber: `review_ready` once the watcher is set up (at once for a client joining a ready watcher),
 * `review_change { root }`, and at most one final event, `review_unavailable` (not a Git repository, a folder that
 * is not readable, a repository that disappeared) or `review_watch_error { message, retry? }` (git failed at setup,
 * a watch failed, the watch budget); after a final event the subscription is over.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { parsePorcelainStatus } from "../../domain/git-review/porcelain-status.ts";
import {
  changesIgnoreRules,
  classifyWorktreeChange,
  gitDirsToWatch,
  isIgnoreRulesFile,
  isRelevantGitMetadata,
  skipsWorktreeFolder,
  SYSTEM_WATCH_LIMIT_MESSAGE,
  watchBudgetFor,
  watchBudgetMessage,
  watchesGitFolder,
  type GitDirRole,
} from "../../domain/git-review/watch-rules.ts";
import { gitText, runGit } from "../git/git-cli.ts";
import { repositoryOf, resolveProjectDir, type Repository, type RepositoryLookup } from "./repository.ts";
import { WatchBudget, WatchBudgetExceeded, watchTree, type TreeWatch, type WatchFunction } from "./tree-watch.ts";

export type ReviewWatchEvent =
  | { readonly type: "review_ready" }
  | { readonly type: "review_change"; readonly root: string }
  | { readonly type: "review_unavailable" }
  /** `retry: false`: reconnecting would fail the same way (the watch budget, the system's limit). */
  | { readonly type: "review_watch_error"; readonly message: string; readonly retry?: false };

export type ReviewWatchListener = (event: ReviewWatchEvent) => void;

export interface ReviewWatchersOptions {
  /** How long events are gathered into one batch. Default 120 ms. */
  readonly coalesceMs?: number;
  /** How each folder is watched (default fs.watch); tests wrap it to reach the watchers. */
  readonly watch?: WatchFunction;
  /** Folders one watch root may watch in all. Default watchBudgetFor(the system's max_user_watches). */
  readonly watchBudget?: number;
}

export interface ReviewWatchers {
  /** Follows the repository of `cwd`; returns the unsubscribe. */
  subscribe(cwd: string, listener: ReviewWatchListener): () => void;
  /** Watch roots with a live watcher (starting or ready). */
  activeWatchers(): number;
  /** Folders the watcher of `root` watches (0 when there is none). */
  watchedFolders(root: string): number;
  /** Ends every watcher without telling its subscribers (the server is closing). */
  close(): void;
}

export const DEFAULT_COALESCE_MS = 120;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function parentOf(rel: string): string {
  const slash = rel.lastIndexOf("/");
  return slash === -1 ? "" : rel.slice(0, slash);
}

function baseName(rel: string): string {
  return rel.slice(rel.lastIndexOf("/") + 1);
}

function depth(rel: string): number {
  return rel.split("/").length;
}

const MAX_USER_WATCHES_FILE = "/proc/sys/fs/inotify/max_user_watches";

/** The default watch budget of a watch root, from the system's inotify limit when it can be read. */
async function defaultWatchBudget(): Promise<number> {
  try {
    return watchBudgetFor(Number.parseInt(await fs.readFile(MAX_USER_WATCHES_FILE, "utf8"), 10));
  } catch {
    return watchBudgetFor(null);
  }
}

function isSystemWatchLimit(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "ENOSPC";
}

/** The folders git reports as ignored (matched by an ignore pattern), relative to the root, without the slash. */
async function ignoredFolders(root: string): Promise<Set<string>> {
  const text = await gitText(
    ["status", "--porcelain=v2", "-z", "--ignored=matching", "--untracked-files=normal", "--ignore-submodules=all"],
    {
      cwd: root,
    },
  );
  return new Set(
    parsePorcelainStatus(text)
      .ignored.filter((entry) => entry.endsWith("/"))
      .map((entry) => entry.slice(0, -1)),
  );
}

/** The paths of `paths` git ignores; all of them count as not ignored when check-ignore fails. */
async function ignoredPaths(root: string, paths: readonly string[]): Promise<Set<string>> {
  try {
    const result = await runGit(["check-ignore", "--stdin", "-z"], { cwd: root, input: `${paths.join("\0")}\0`, okCodes: [0, 1] });
    return new Set(
      result.stdout
        .toString("utf8")
        .split("\0")
        .filter((entry) => entry !== ""),
    );
  } catch {
    return new Set();
  }
}

interface GitTree {
  readonly dir: string;
  readonly role: GitDirRole;
  tree: TreeWatch | null;
}

interface Batch {
  /** Relevant git metadata changed. */
  meta: boolean;
  /** Git dir files with ignore rules changed (`info/exclude`, the config). */
  rules: boolean;
  /** The root or its `.git` entry changed: only the repository check. */
  check: boolean;
  /** Working-tree paths, with whether something appeared or disappeared there. */
  readonly paths: Map<string, boolean>;
  /** Git dir folders that may have appeared or disappeared, per git tree. */
  readonly gitFolders: Map<GitTree, Set<string>>;
}

function emptyBatch(): Batch {
  return { meta: false, rules: false, check: false, paths: new Map(), gitFolders: new Map() };
}

type Identity = { readonly dev: number; readonly ino: number };

async function identity(file: string): Promise<Identity | null> {
  try {
    const stat = await fs.stat(file);
    return { dev: stat.dev, ino: stat.ino };
  } catch {
    return null;
  }
}

function sameIdentity(a: Identity | null, b: Identity | null): boolean {
  return a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;
}

/** The watcher of one watch root. */
class RootWatcher {
  private readonly listeners = new Set<ReviewWatchListener>();
  private state: "starting" | "ready" | "ended" = "starting";
  private worktree: TreeWatch | null = null;
  private readonly gitTrees: GitTree[];
  /** The folders git ignores (relative, without the slash), as of the last time it was asked. */
  private ignored = new Set<string>();
  private budget = new WatchBudget(0);
  private rootIdentity: Identity | null = null;
  private gitDirIdentity: Identity | null = null;
  private batch = emptyBatch();
  private timer: NodeJS.Timeout | null = null;
  private flushing = false;

  constructor(
    private readonly repository: Repository,
    private readonly options: { coalesceMs: number; watch?: WatchFunction; watchBudget?: number },
    private readonly onEnd: () => void,
  ) {
    this.gitTrees = gitDirsToWatch(repository.gitDir, repository.commonDir).map(({ dir, role }) => ({ dir, role, tree: null }));
  }

  watchedFolders(): number {
    return (this.worktree?.size() ?? 0) + this.gitTrees.reduce((sum, git) => sum + (git.tree?.size() ?? 0), 0);
  }

  add(listener: ReviewWatchListener): void {
    this.listeners.add(listener);
    if (this.state === "ready") listener({ type: "review_ready" });
  }

  removeListener(listener: ReviewWatchListener): void {
    this.listeners.delete(listener);
    if (this.listeners.size === 0) this.end(null);
  }

  async start(): Promise<void> {
    const { root, gitDir } = this.repository;
    try {
      let budget: number;
      [this.rootIdentity, this.gitDirIdentity, this.ignored, budget] = await Promise.all([
        identity(root),
        identity(gitDir),
        ignoredFolders(root),
        this.options.watchBudget ?? defaultWatchBudget(),
      ]);
      if (this.isEnded()) return;
      this.budget = new WatchBudget(budget);
      const shared = {
        onError: (error: Error): void => this.fail(error),
        budget: this.budget,
        ...(this.options.watch ? { watch: this.options.watch } : {}),
      };
      this.worktree = await watchTree({
        dir: root,
        descend: (rel) => this.descendsWorktree(rel),
        stopAt: ".git",
        onChange: (rel, renamed) => this.worktreeChange(rel, renamed),
        ...shared,
      });
      for (const git of this.gitTrees) {
        if (this.isEnded()) break;
        git.tree = await watchTree({
          dir: git.dir,
          descend: (rel) => watchesGitFolder(rel, git.role),
          onChange: (rel, renamed) => this.gitChange(git, rel, renamed),
          ...shared,
        });
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    if (this.isEnded()) {
      this.closeTrees();
      return;
    }
    this.state = "ready";
    this.emit({ type: "review_ready" });
    // The events of the setup are settled as one batch (folders that appeared after their parent was listed,
    // changed ignore rules): an extra review_change at worst.
    this.scheduleIfPending();
  }

  private descendsWorktree(rel: string): boolean {
    return !skipsWorktreeFolder(baseName(rel)) && !this.ignored.has(rel);
  }

  /** Read through a method: the state changes while start() awaits, which flow analysis cannot see. */
  private isEnded(): boolean {
    return this.state === "ended";
  }

  /** Ends the watcher: with a final event for the subscribers, or silently (null). */
  end(final: ReviewWatchEvent | null): void {
    if (this.state === "ended") return;
    this.state = "ended";
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.closeTrees();
    const listeners = [...this.listeners];
    this.listeners.clear();
    this.onEnd();
    if (final !== null) for (const listener of listeners) listener(final);
  }

  private closeTrees(): void {
    this.worktree?.close();
    for (const git of this.gitTrees) git.tree?.close();
  }

  private fail(error: unknown): void {
    if (error instanceof WatchBudgetExceeded)
      this.end({ type: "review_watch_error", message: watchBudgetMessage(error.limit), retry: false });
    else if (isSystemWatchLimit(error)) this.end({ type: "review_watch_error", message: SYSTEM_WATCH_LIMIT_MESSAGE, retry: false });
    else this.end({ type: "review_watch_error", message: `Review watcher failed: ${messageOf(error)}` });
  }

  private emit(event: ReviewWatchEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  private worktreeChange(rel: string, renamed: boolean): void {
    switch (classifyWorktreeChange(rel)) {
      case "worktree":
        this.batch.paths.set(rel, (this.batch.paths.get(rel) ?? false) || renamed);
        break;
      case "root":
      case "git-entry":
        // Only the repository check of the batch: the git dir's own watches report its contents.
        this.batch.check = true;
        break;
      case "git-internal":
      case "nested-git":
        return;
    }
    this.schedule();
  }

  private gitChange(git: GitTree, rel: string, renamed: boolean): void {
    const relevant = isRelevantGitMetadata(rel, git.role);
    const rules = changesIgnoreRules(rel, git.role);
    const folder = renamed && watchesGitFolder(rel, git.role);
    if (!relevant && !rules && !folder) return;
    if (relevant) this.batch.meta = true;
    if (rules) this.batch.rules = true;
    if (folder) {
      let folders = this.batch.gitFolders.get(git);
      if (folders === undefined) this.batch.gitFolders.set(git, (folders = new Set()));
      folders.add(rel);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.state !== "ready" || this.timer !== null || this.flushing) return;
    this.timer = setTimeout(() => void this.flush(), this.options.coalesceMs);
  }

  private async flush(): Promise<void> {
    this.timer = null;
    this.flushing = true;
    const batch = this.batch;
    this.batch = emptyBatch();
    try {
      const change = await this.settle(batch);
      if (this.state !== "ready") return;
      if (change) this.emit({ type: "review_change", root: this.repository.root });
    } catch (error) {
      this.fail(error);
    } finally {
      this.flushing = false;
    }
    this.scheduleIfPending();
  }

  private scheduleIfPending(): void {
    const pending = this.batch;
    if (pending.meta || pending.rules || pending.check || pending.paths.size > 0 || pending.gitFolders.size > 0) this.schedule();
  }

  /** Checks the repository, updates the watched folders; whether the batch changes the review. */
  private async settle(batch: Batch): Promise<boolean> {
    const { root, gitDir } = this.repository;
    const [rootNow, gitDirNow, head] = await Promise.all([identity(root), identity(gitDir), identity(path.join(gitDir, "HEAD"))]);
    if (rootNow === null || gitDirNow === null || head === null) {
      this.end({ type: "review_unavailable" });
      return false;
    }
    if (!sameIdentity(rootNow, this.rootIdentity) || !sameIdentity(gitDirNow, this.gitDirIdentity)) {
      this.fail(new Error("the repository folder was replaced"));
      return false;
    }
    const paths = [...batch.paths.keys()];
    const rulesChanged = batch.rules || paths.some(isIgnoreRulesFile);
    // Ignore rules changed: review_change even if nothing else did, once the watches follow the new rules.
    let change = batch.meta || rulesChanged;
    const ignored = paths.length > 0 ? await ignoredPaths(root, paths) : new Set<string>();
    if (this.state !== "ready") return false;
    const appeared: string[] = [];
    const tree = this.worktree;
    for (const rel of paths) {
      if (!ignored.has(rel)) change = true;
      if (batch.paths.get(rel) !== true || tree === null) continue;
      if (!(await isFolder(path.join(root, rel)))) {
        if (tree.watches(rel)) tree.remove(rel);
      } else if (!ignored.has(rel) && !skipsWorktreeFolder(baseName(rel)) && !tree.watches(rel)) {
        appeared.push(rel);
      }
    }
    if (tree !== null && (rulesChanged || appeared.length > 0)) {
      // Ask git again: the rules changed, or the folders that appeared may hold ignored ones.
      const before = this.ignored;
      const now = await ignoredFolders(root);
      if (this.state !== "ready") return false;
      this.ignored = now;
      for (const rel of now) if (tree.watches(rel)) tree.remove(rel);
      for (const rel of before) if (!now.has(rel)) appeared.push(rel);
    }
    if (tree !== null) {
      // Parents first; a folder already watched (below one added just before) is skipped.
      for (const rel of appeared.sort((a, b) => depth(a) - depth(b))) {
        if (this.state !== "ready") return false;
        if (!tree.watches(rel) && tree.watches(parentOf(rel)) && this.descendsWorktree(rel) && (await isFolder(path.join(root, rel)))) {
          await tree.add(rel);
        }
      }
    }
    for (const [git, folders] of batch.gitFolders) {
      for (const rel of folders) if (git.tree !== null) await this.settleGitFolder(git.tree, git.dir, rel);
    }
    return change;
  }

  /** Adds the watch of a git dir folder that appeared (or came back), drops the watches of one that is gone. */
  private async settleGitFolder(tree: TreeWatch, dir: string, rel: string): Promise<void> {
    if (this.state !== "ready") return;
    if (!(await isFolder(path.join(dir, rel)))) {
      if (tree.watches(rel)) tree.remove(rel);
    } else if (!tree.watches(rel) && tree.watches(parentOf(rel))) {
      await tree.add(rel);
    }
  }
}

async function isFolder(file: string): Promise<boolean> {
  try {
    return (await fs.lstat(file)).isDirectory();
  } catch {
    return false;
  }
}

export function createReviewWatchers(options: ReviewWatchersOptions = {}): ReviewWatchers {
  const coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
  const watchers = new Map<string, RootWatcher>();
  let closed = false;

  function watcherFor(repository: Repository): RootWatcher {
    let watcher = watchers.get(repository.root);
    if (watcher === undefined) {
      const settings = {
        coalesceMs,
        ...(options.watch ? { watch: options.watch } : {}),
        ...(options.watchBudget !== undefined ? { watchBudget: options.watchBudget } : {}),
      };
      const created: RootWatcher = new RootWatcher(repository, settings, () => {
        if (watchers.get(repository.root) === created) watchers.delete(repository.root);
      });
      watchers.set(repository.root, created);
      void created.start();
      watcher = created;
    }
    return watcher;
  }

  return {
    subscribe(cwd, listener) {
      let active = true;
      let watcher: RootWatcher | null = null;
      const deliver: ReviewWatchListener = (event) => {
        if (!active) return;
        if (event.type === "review_unavailable" || event.type === "review_watch_error") active = false;
        listener(event);
      };
      void (async () => {
        let dir: string;
        try {
          dir = await resolveProjectDir(cwd);
        } catch {
          // Not a readable folder: nothing to watch, now or later.
          deliver({ type: "review_unavailable" });
          return;
        }
        let lookup: RepositoryLookup;
        try {
          lookup = await repositoryOf(dir);
        } catch (error) {
          deliver({ type: "review_watch_error", message: `Review watcher failed: ${messageOf(error)}` });
          return;
        }
        if (!active || closed) return;
        if (lookup.kind === "none") {
          deliver({ type: "review_unavailable" });
          return;
        }
        watcher = watcherFor(lookup);
        watcher.add(deliver);
      })();
      return () => {
        active = false;
        watcher?.removeListener(deliver);
      };
    },
    activeWatchers: () => watchers.size,
    watchedFolders: (root) => watchers.get(root)?.watchedFolders() ?? 0,
    close() {
      closed = true;
      for (const watcher of [...watchers.values()]) watcher.end(null);
      watchers.clear();
    },
  };
}
