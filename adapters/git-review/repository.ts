/**
 * Finding the Git repository of a project folder, for the review routes, the review watcher and the review actions
 * (adapters/git-review-actions/repository.ts). What "no repository" answers is the caller's: the read routes
 * answer `available: false`, the actions 409.
 *
 * - The folder must be an absolute path to a readable folder; it is resolved with realpath (the answer's `root`
 *   outside a repository is this resolved folder). Anything else is a `review_failed` ServiceError (500).
 * - One `git rev-parse` gives the worktree root, the worktree's git dir and the common dir (different in a linked
 *   worktree), all absolute. "Not a git repository", and a folder inside a git dir or a bare repository (no
 *   working tree to review), are "no repository"; any other git failure is `review_failed`.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { ServiceError } from "../../domain/service-error.ts";
import { GitError, gitText } from "../git/git-cli.ts";

export type RepositoryLookup =
  | { readonly kind: "none"; readonly dir: string }
  | { readonly kind: "repository"; readonly dir: string; readonly root: string; readonly gitDir: string; readonly commonDir: string };

/** A repository found (its root, the worktree's git dir and the common dir are absolute). */
export type Repository = Extract<RepositoryLookup, { kind: "repository" }>;

const NOT_A_WORKTREE = /not a git repository|must be run in a work tree/i;

/** `cwd` resolved to a real, readable folder, or a review_failed ServiceError. */
export async function resolveProjectDir(cwd: string): Promise<string> {
  if (!path.isAbsolute(cwd)) throw new ServiceError("review_failed", `cwd must be an absolute path: ${cwd}`);
  let dir: string;
  try {
    dir = await fs.realpath(cwd);
    const stat = await fs.stat(dir);
    if (!stat.isDirectory()) throw new ServiceError("review_failed", `Not a directory: ${cwd}`);
    await fs.access(dir, fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw new ServiceError("review_failed", `Not a readable directory: ${cwd}`, { cause: error });
  }
  return dir;
}

/** A review_failed ServiceError for a failed git run. */
export function reviewGitFailure(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ServiceError("review_failed", `Git failed: ${message}`, { cause: error });
}

/** The repository of a resolved folder (see resolveProjectDir). */
export async function repositoryOf(dir: string): Promise<RepositoryLookup> {
  let text: string;
  try {
    text = await gitText(["rev-parse", "--path-format=absolute", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"], {
      cwd: dir,
    });
  } catch (error) {
    if (error instanceof GitError && NOT_A_WORKTREE.test(error.message)) return { kind: "none", dir };
    throw reviewGitFailure(error);
  }
  const [root, gitDir, commonDir] = text.split("\n");
  if (root === undefined || root === "" || gitDir === undefined || gitDir === "" || commonDir === undefined || commonDir === "") {
    throw new ServiceError("review_failed", "Git failed: unexpected rev-parse output");
  }
  return { kind: "repository", dir, root, gitDir: path.resolve(gitDir), commonDir: path.resolve(commonDir) };
}

/** The repository of the folder `cwd` (resolved first: an invalid folder is a review_failed ServiceError). */
export async function locateRepository(cwd: string): Promise<RepositoryLookup> {
  return repositoryOf(await resolveProjectDir(cwd));
}
