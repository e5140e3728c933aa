/**
 * The repository a review action acts on, and the checks every action makes before it writes (issue 14):
 *
 * - `actionRepository`: the request's cwd (`~` expanded) found as the read side finds it
 *   (adapters/git-review/repository.ts); not absolute → 400 "cwd must be an absolute path" (never resolved
 *   against the server's own folder); not a readable folder → `review_failed` (500), as the review read routes
 *   answer an invalid directory; not in a working tree → 409 "This folder is not a Git repository.". Actions run
 *   git at the root, so paths are root-relative.
 * - `isConflicted`: unmerged paths, or a merge, rebase (`rebase-merge/`, `rebase-apply/`, also `git am`),
 *   cherry-pick or revert in progress (their marker under the git dir, per worktree).
 * - `gitRefusal`: how a failing git write answers. git refusing in the repository's state (a lock, a stale path,
 *   an ignored path, a hook) is 409 with git's message; git not running at all (missing, timed out) is 500.
 * - `literal`: paths reach git as `:(literal)<path>` pathspecs, so `*`, `?`, `[` in a name are plain characters.
 */
import fs from "node:fs";
import path from "node:path";
import { literalPathspec } from "../../domain/git-review/diff-args.ts";
import { CONFLICTED_REPOSITORY, CWD_NOT_ABSOLUTE, NOT_A_REPOSITORY } from "../../domain/git-review-actions/review-action-rules.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { GitError, runGit } from "../git/git-cli.ts";
import { repositoryOf, resolveProjectDir, type Repository } from "../git-review/repository.ts";
import { expandHome } from "../sqlite/data-dir.ts";

/** Markers under the git dir of an operation the review pane cannot represent. */
const IN_PROGRESS = ["MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply"];

/**
 * The repository whose working tree holds the request's cwd: 400 when cwd is not absolute (after `~`), never
 * resolved against the server's own folder; `review_failed` when it is no folder; 409 when in no repository.
 */
export async function actionRepository(cwd: string): Promise<Repository> {
  const folder = expandHome(cwd);
  if (!path.isAbsolute(folder)) throw new ServiceError("invalid_request", CWD_NOT_ABSOLUTE);
  let dir: string;
  try {
    dir = await resolveProjectDir(folder);
  } catch (error) {
    throw new ServiceError("review_failed", `cwd is not a readable folder: ${folder}`, { cause: error });
  }
  const found = await repositoryOf(dir);
  if (found.kind === "none") throw new ServiceError("conflict", NOT_A_REPOSITORY);
  return found;
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

/** A pathspec that matches exactly `repoPath` (no globs, no magic). */
export const literal = literalPathspec;

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
