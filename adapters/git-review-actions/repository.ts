/**
 * The repository a review action acts on, and the checks every action makes before it writes (issue 14):
 *
 * - `actionFolder`: the request's cwd (`~` expanded) must be a folder, else `review_failed` (500), as the review
 *   read routes answer an invalid directory.
 * - `openRepository`: `git rev-parse --show-toplevel --absolute-git-dir` from that folder; not a working tree →
 *   409 "This folder is not a Git repository.". Actions run git at the root, so paths are root-relative.
 * - `isConflicted`: unmerged paths, or a merge, rebase (`rebase-merge/`, `rebase-apply/`, also `git am`),
 *   cherry-pick or revert in progress (their marker under the git dir, per worktree).
 * - `busyAgentsInRepository`: busyAgentsIn (open runtimes mid-turn whose cwd is inside the root), plus runtimes
 *   whose cwd reaches the repository through a symbolic link (git answers the real root).
 * - `gitRefusal`: how a failing git write answers. git refusing in the repository's state (a lock, a stale path,
 *   an ignored path, a hook) is 409 with git's message; git not running at all (missing, timed out) is 500.
 * - `literal`: paths reach git as `:(literal)<path>` pathspecs, so `*`, `?`, `[` in a name are plain characters.
 */
import fs from "node:fs";
import path from "node:path";
import { CONFLICTED_REPOSITORY, NOT_A_REPOSITORY } from "../../domain/git-review-actions/review-action-rules.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { GitError, gitText, runGit } from "../git/git-cli.ts";
import type { RuntimeHost } from "../runtime-host/runtime-host.ts";
import { busyAgentsIn, sessionAgentBusy } from "../session-resolution/session-cwd.ts";
import { resolveClientPath } from "../session-files/session-paths.ts";

export interface Repository {
  /** The working tree's root (git's answer: symbolic links resolved). */
  readonly root: string;
  /** The (worktree's) git dir, absolute. */
  readonly gitDir: string;
}

/** Markers under the git dir of an operation the review pane cannot represent. */
const IN_PROGRESS = ["MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply"];

/** The request's cwd as a folder; `review_failed` when it is not one. */
export function actionFolder(cwd: string): string {
  const folder = resolveClientPath(cwd);
  let isFolder: boolean;
  try {
    isFolder = fs.statSync(folder).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new ServiceError("review_failed", `cwd is not a readable folder: ${folder}`);
  return folder;
}

/** The repository whose working tree holds `folder`; 409 when there is none. */
export async function openRepository(folder: string): Promise<Repository> {
  let output: string;
  try {
    output = await gitText(["rev-parse", "--show-toplevel", "--absolute-git-dir"], { cwd: folder });
  } catch (error) {
    if (error instanceof GitError && /not a git repository|must be run in a work tree/i.test(error.stderr)) {
      throw new ServiceError("conflict", NOT_A_REPOSITORY);
    }
    throw gitReadFailure(error);
  }
  const [root, gitDir] = output.split("\n");
  if (root === undefined || root === "" || gitDir === undefined || gitDir === "") throw new ServiceError("conflict", NOT_A_REPOSITORY);
  return { root, gitDir };
}

/** Whether the repository has unmerged paths or an operation in progress that leaves conflicts to resolve. */
export async function isConflicted(repo: Repository): Promise<boolean> {
  if (IN_PROGRESS.some((marker) => fs.existsSync(path.join(repo.gitDir, marker)))) return true;
  try {
    // One byte of output is enough to know.
    const unmerged = await runGit(["ls-files", "--unmerged", "-z"], { cwd: repo.root, maxBytes: 1 });
    return unmerged.stdout.length > 0;
  } catch (error) {
    throw gitReadFailure(error);
  }
}

/** Refuses with 409 when the repository is conflicted. */
export async function refuseConflicted(repo: Repository): Promise<void> {
  if (await isConflicted(repo)) throw new ServiceError("conflict", CONFLICTED_REPOSITORY);
}

function isInside(root: string, folder: string): boolean {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return folder === root || folder.startsWith(prefix);
}

/** The open runtimes mid-turn inside `root`, by their cwd as given or as resolved. */
export function busyAgentsInRepository(host: RuntimeHost, root: string): string[] {
  const ids = new Set(busyAgentsIn(host, root));
  for (const handle of host.openRuntimes()) {
    if (ids.has(handle.sessionId)) continue;
    let real: string;
    try {
      real = fs.realpathSync(handle.cwd);
    } catch {
      continue;
    }
    if (real !== handle.cwd && isInside(root, real) && sessionAgentBusy(host, handle.sessionId)) ids.add(handle.sessionId);
  }
  return [...ids];
}

/** A pathspec that matches exactly `repoPath` (no globs, no magic). */
export function literal(repoPath: string): string {
  return `:(literal)${repoPath}`;
}

const LOCK = /Unable to create '([^']*index\.lock)': File exists/;

/** A failing git read (status, diff, rev-parse): 500 with git's message. */
export function gitReadFailure(error: unknown): unknown {
  if (error instanceof GitError) return new ServiceError("review_failed", error.message, { cause: error });
  return error;
}

/** A failing git write: 409 when git refused (its message), 500 when git did not run (missing, timed out). */
export function gitRefusal(error: unknown, context?: string): unknown {
  if (!(error instanceof GitError)) return error;
  if (error.code === null) return new ServiceError("review_failed", error.message, { cause: error });
  const lock = LOCK.exec(error.stderr);
  if (lock !== null) {
    return new ServiceError(
      "conflict",
      `Another git process is running in this repository (${lock[1]} exists). Try again when it ends; if no git process is running, delete that file.`,
      { cause: error },
    );
  }
  return new ServiceError("conflict", context === undefined ? error.message : `${context} (${error.message})`, { cause: error });
}
