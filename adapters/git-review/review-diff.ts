/**
 * GET /api/pi/review/diff's data: the diff sections of one changed file (domain/git-review/diff-bounds.ts holds
 * the size and binary rules).
 *
 * The path must be one of the first 500 changed paths of the status list (else a stale path: `review_failed`);
 * it is then a path git itself printed, never a path the client made up. Sections, each from one git run with
 * `--no-ext-diff --no-textconv` and literal pathspecs:
 * - a conflict: one `conflict` section, `git diff-files -p -- <path>` (git's combined diff of the unmerged path);
 * - an untracked nested repository (`dir/`): one `working` section with `directory: true`;
 * - an untracked file: one `working` section, `git diff --no-index -- /dev/null <path>` (exit 1 means "differs",
 *   unless git also reports an error); an untracked symbolic link's patch is made here (git would follow a link to a
 *   folder);
 * - otherwise a `staged` section when the index differs from HEAD (`git diff --cached -M`, with the rename's source
 *   in the pathspec so the rename shows), then a `working` section when the working tree differs from the index
 *   (`git diff-files -p`: the plumbing, since porcelain `git diff` may rewrite `.git/index`, see review-status.ts).
 * Output is read up to `measureLimitBytes`, by default one byte past the 1 MiB a patch may have: git is stopped
 * there (a patch of tens of megabytes is neither held nor waited for), and the section is too large with `bytes`
 * and `lines` what was read, lower bounds (domain/git-review/diff-bounds.ts).
 */
import { DIFF_READ_ARGS, stagedDiffArgs, workingDiffArgs } from "../../domain/git-review/diff-args.ts";
import fs from "node:fs/promises";
import path from "node:path";
import { boundedFiles } from "../../domain/git-review/review-summary.ts";
import { DIFF_MAX_BYTES, diffSection, directorySection, untrackedSymlinkPatch } from "../../domain/git-review/diff-bounds.ts";
import type { GitReviewDiff, GitReviewDiffScope, GitReviewFile, ReviewDiffResponse } from "../../domain/git-review/review-types.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { GitError, runGit } from "../git/git-cli.ts";
import { locateRepository, reviewGitFailure } from "./repository.ts";
import { readPorcelainStatus } from "./review-status.ts";

export interface ReviewDiffOptions {
  /** Bytes of one section's patch that are read (and measured). Default DIFF_MAX_BYTES + 1. */
  readonly measureLimitBytes?: number;
}

/** One byte past the largest patch sent: reading it proves the patch too large. */
export const DEFAULT_MEASURE_LIMIT_BYTES = DIFF_MAX_BYTES + 1;

async function section(
  root: string,
  scope: GitReviewDiffScope,
  args: readonly string[],
  maxBytes: number,
  okCodes = [0],
): Promise<GitReviewDiff> {
  try {
    const result = await runGit(args, { cwd: root, maxBytes, okCodes });
    // `diff --no-index` exits 1 both for "differs" and for some errors; git's own messages tell them apart.
    if (/^(error|fatal): /m.test(result.stderr)) throw new GitError(result.stderr.trim(), result.code, result.stderr);
    return diffSection(scope, result.stdout, !result.truncated);
  } catch (error) {
    throw reviewGitFailure(error);
  }
}

/** The target of a symbolic link, or null when the path is not one. */
async function symlinkTarget(file: string): Promise<string | null> {
  try {
    return (await fs.lstat(file)).isSymbolicLink() ? await fs.readlink(file) : null;
  } catch {
    return null;
  }
}

async function sections(root: string, file: GitReviewFile, maxBytes: number): Promise<GitReviewDiff[]> {
  if (file.conflicted) return [await section(root, "conflict", workingDiffArgs([file.path]), maxBytes)];
  if (file.untracked) {
    if (file.path.endsWith("/")) return [directorySection()];
    const link = await symlinkTarget(path.join(root, file.path));
    if (link !== null) return [diffSection("working", Buffer.from(untrackedSymlinkPatch(file.path, link)))];
    return [await section(root, "working", ["diff", "--no-index", ...DIFF_READ_ARGS, "--", "/dev/null", file.path], maxBytes, [0, 1])];
  }
  const out: GitReviewDiff[] = [];
  if (file.staged) {
    const paths = file.oldPath !== "" ? [file.path, file.oldPath] : [file.path];
    out.push(await section(root, "staged", stagedDiffArgs(paths), maxBytes));
  }
  if (file.unstaged) out.push(await section(root, "working", workingDiffArgs([file.path]), maxBytes));
  return out;
}

/**
 * The diff of `filePath` (relative to the repository root, as the status list spells it) in the repository of
 * `cwd`. Throws a `review_failed` ServiceError for an invalid folder, a folder outside a repository, a path that
 * is not in the bounded status list, or a failing git run.
 */
export async function readReviewDiff(cwd: string, filePath: string, options: ReviewDiffOptions = {}): Promise<ReviewDiffResponse> {
  const repository = await locateRepository(cwd);
  if (repository.kind === "none") throw new ServiceError("review_failed", `Not a Git repository: ${repository.dir}`);
  const status = await readPorcelainStatus(repository.root);
  const file = boundedFiles(status.files).find((candidate) => candidate.path === filePath);
  if (file === undefined) throw new ServiceError("review_failed", `Not a changed file of the review: ${filePath}`);
  const diffs = await sections(repository.root, file, options.measureLimitBytes ?? DEFAULT_MEASURE_LIMIT_BYTES);
  return { path: file.path, diffs };
}
