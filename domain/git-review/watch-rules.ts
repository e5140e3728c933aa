/**
 * Which file changes the review watcher reports (spec "WS /api/pi/review/events": ordinary .git activity and
 * ignored working-tree paths do not emit review_change; relevant Git metadata does).
 *
 * Relevant Git metadata is what can change the review's status list or branch:
 * - per worktree (the worktree's own git dir): `HEAD`, `index`, `MERGE_HEAD`, `CHERRY_PICK_HEAD`, `REVERT_HEAD`,
 *   `rebase-merge/**`, `rebase-apply/**`, `config.worktree`, `info/sparse-checkout`;
 * - shared (the common dir, the same folder outside linked worktrees): `refs/**`, `packed-refs`, `config`,
 *   `info/exclude`.
 * Everything else is ordinary churn: lock files (`*.lock`: git writes `index.lock` and renames it to `index`, and
 * only the rename counts), `objects/**`, `logs/**`, `FETCH_HEAD`, `ORIG_HEAD`, `COMMIT_EDITMSG`, `AUTO_MERGE`,
 * `MERGE_MSG`, hooks, gc files, `modules/**` (submodules' git dirs), `worktrees/**` (other worktrees' git dirs).
 *
 * Working-tree paths (relative to the worktree root, `/`-separated): the `.git` entry itself (a removed or replaced
 * repository) is checked by the watcher; paths inside a `.git` folder below the root belong to a nested repository
 * and are not reported; every other path is reported unless git says it is ignored.
 *
 * Ignore rules: the watcher does not enter folders git ignores, so a change of the rules (a `.gitignore` anywhere,
 * `info/exclude`, the repository's config with `core.excludesFile`) makes it ask git again which folders are
 * ignored. The global config and the excludes file it names live outside the repository and are not watched.
 *
 * The watch budget: one inotify watch per watched folder, a per-user system resource shared with the user's editor
 * and dev servers; one watch root takes at most `MAX_WATCH_BUDGET` or a quarter of the system's limit, if smaller.
 */

/** What a git dir is for the worktree being watched: its own git dir, the shared (common) one, or both. */
export interface GitDirRole {
  readonly perWorktree: boolean;
  readonly shared: boolean;
}

const PER_WORKTREE_FILES = new Set([
  "HEAD",
  "index",
  "MERGE_HEAD",
  "CHERRY_PICK_HEAD",
  "REVERT_HEAD",
  "config.worktree",
  "info/sparse-checkout",
]);
const PER_WORKTREE_FOLDERS = ["rebase-merge", "rebase-apply"];
const SHARED_FILES = new Set(["packed-refs", "config", "info/exclude"]);
const SHARED_FOLDERS = ["refs"];

function inFolder(rel: string, folders: readonly string[]): boolean {
  return folders.some((folder) => rel === folder || rel.startsWith(`${folder}/`));
}

/** Whether a change at `rel` (relative to a git dir) can change the review. */
export function isRelevantGitMetadata(rel: string, role: GitDirRole): boolean {
  if (rel === "" || rel.endsWith(".lock")) return false;
  if (role.perWorktree && (PER_WORKTREE_FILES.has(rel) || inFolder(rel, PER_WORKTREE_FOLDERS))) return true;
  if (role.shared && (SHARED_FILES.has(rel) || inFolder(rel, SHARED_FOLDERS))) return true;
  return false;
}

/**
 * Whether a change at `rel` (relative to a git dir) can change which paths git ignores: `info/exclude` (or the
 * `info` folder appearing with it), the shared `config` and a worktree's `config.worktree` (`core.excludesFile`).
 * Lock files are not the change; their rename onto the real name is.
 */
export function changesIgnoreRules(rel: string, role: GitDirRole): boolean {
  if (role.shared && (rel === "info" || rel === "info/exclude" || rel === "config")) return true;
  return role.perWorktree && rel === "config.worktree";
}

/** Whether a working-tree path is a file of ignore rules (a `.gitignore`, at any depth). */
export function isIgnoreRulesFile(rel: string): boolean {
  return rel === ".gitignore" || rel.endsWith("/.gitignore");
}

/** Most folders one watch root watches (inotify watches). */
export const MAX_WATCH_BUDGET = 20_000;

/**
 * The folders one watch root may watch: `MAX_WATCH_BUDGET`, or a quarter of the system's inotify watches per user
 * (`/proc/sys/fs/inotify/max_user_watches`; null when it cannot be read) if that is smaller; at least 1.
 */
export function watchBudgetFor(maxUserWatches: number | null): number {
  if (maxUserWatches === null || !Number.isFinite(maxUserWatches) || maxUserWatches <= 0) return MAX_WATCH_BUDGET;
  return Math.max(1, Math.min(MAX_WATCH_BUDGET, Math.floor(maxUserWatches / 4)));
}

/** The message of a watcher that would need more than `budget` folders (the client does not reconnect). */
export function watchBudgetMessage(budget: number): string {
  return `This repository has more than ${budget.toLocaleString("en-US")} folders to watch; the review updates on Refresh only.`;
}

/** The message of a watcher that met the system's limit of inotify watches (the client does not reconnect). */
export const SYSTEM_WATCH_LIMIT_MESSAGE =
  "The system's limit of file watches (fs.inotify.max_user_watches) is reached; the review updates on Refresh only.";

/** Whether the watcher descends into folder `rel` of a git dir (it watches the git dir's top level always). */
export function watchesGitFolder(rel: string, role: GitDirRole): boolean {
  if (rel === "info") return true;
  if (role.perWorktree && inFolder(rel, PER_WORKTREE_FOLDERS)) return true;
  return role.shared && inFolder(rel, SHARED_FOLDERS);
}

/** The git dirs to watch for a worktree: its git dir and its common dir, with their roles. */
export function gitDirsToWatch(gitDir: string, commonDir: string): { dir: string; role: GitDirRole }[] {
  if (gitDir === commonDir) return [{ dir: gitDir, role: { perWorktree: true, shared: true } }];
  return [
    { dir: gitDir, role: { perWorktree: true, shared: false } },
    { dir: commonDir, role: { perWorktree: false, shared: true } },
  ];
}

export type WorktreeChange =
  /** The watched root itself (removed, renamed). */
  | "root"
  /** The root's `.git` entry (a folder or a `gitdir:` file) was created, removed or replaced. */
  | "git-entry"
  /** Inside the root's `.git` folder (watched as a git dir, not as working tree). */
  | "git-internal"
  /** Inside a nested repository's `.git`: not the review's business. */
  | "nested-git"
  /** A working-tree path: reported unless ignored. */
  | "worktree";

export function classifyWorktreeChange(rel: string): WorktreeChange {
  if (rel === "") return "root";
  const segments = rel.split("/");
  if (segments[0] === ".git") return segments.length === 1 ? "git-entry" : "git-internal";
  // A `.git` below the root that is not the last segment: a path inside a nested repository's git dir.
  if (segments.slice(1, -1).includes(".git")) return "nested-git";
  return "worktree";
}

/** Working-tree folders the watcher never descends into, by name. */
export function skipsWorktreeFolder(name: string): boolean {
  return name === ".git";
}
