/**
 * GET /api/pi/review's data: the Git status list of a project folder with its line statistics
 * (domain/git-review/review-summary.ts holds the rules; repository.ts finds the repository).
 *
 * Git runs (through adapters/git/git-cli.ts: no optional locks, so reading never writes `.git/index`):
 * - `git status --porcelain=v2 -z --branch --untracked-files=all --renames` for the list and the branch;
 * - under the 500-path cap only: `git diff --cached --numstat -z -M` (staged) and `git diff-files --numstat -z`
 *   (working), both with `--no-ext-diff --no-textconv`, and the lines of each untracked text file, read here (git's binary
 *   rule: a NUL in the first 8,000 bytes). Line counting reads at most `untrackedBytesLimit` bytes of untracked
 *   files in all (default 64 MiB); past it, or when a numstat run or a file read fails, line statistics are
 *   unavailable (the spec's "line counting fails"). Symbolic links count one line (their target), like git's.
 *
 * The working tree is compared with the plumbing `git diff-files`, never `git diff`: porcelain `git diff` refreshes
 * the index and rewrites `.git/index` when stat data is stale, whatever GIT_OPTIONAL_LOCKS says (git 2.39).
 * `git diff --cached` does not look at the working tree and writes nothing.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { parseNumstat, sumNumstat, type LineStats } from "../../domain/git-review/numstat.ts";
import { parsePorcelainStatus, type PorcelainStatus } from "../../domain/git-review/porcelain-status.ts";
import {
  conflictedPaths,
  summarizeReview,
  unavailableReview,
  untrackedFilePaths,
  wantsLineStats,
} from "../../domain/git-review/review-summary.ts";
import type { ReviewStatus } from "../../domain/git-review/review-types.ts";
import { initialTextScan, scanTextChunk, textScanLines } from "../../domain/git-review/text-lines.ts";
import { gitText } from "../git/git-cli.ts";
import { locateRepository, reviewGitFailure } from "./repository.ts";

export interface ReviewStatusOptions {
  /** Bytes of untracked files line counting may read in all. Default 64 MiB. */
  readonly untrackedBytesLimit?: number;
}

export const DEFAULT_UNTRACKED_BYTES_LIMIT = 64 * 1024 * 1024;
const READ_CHUNK_BYTES = 64 * 1024;
const PARALLEL_READS = 8;

export const STATUS_ARGS = ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--renames"] as const;
const DIFF_READ_ARGS = ["--no-ext-diff", "--no-textconv"] as const;

/** The repository's status list (all of it, before the cap), as git prints it. */
export async function readPorcelainStatus(root: string): Promise<PorcelainStatus> {
  try {
    return parsePorcelainStatus(await gitText(STATUS_ARGS, { cwd: root }));
  } catch (error) {
    throw reviewGitFailure(error);
  }
}

class LineCountFailure extends Error {}

/** Reads untracked files' lines against one shared byte budget. */
class UntrackedLineCounter {
  private remaining: number;

  constructor(
    private readonly root: string,
    limit: number,
  ) {
    this.remaining = limit;
  }

  /**
   * The lines of one untracked file; 0 for binary files and anything that is not a regular file or a link. The
   * file may be swapped between the lstat and the open (for a FIFO, whose open would block a threadpool thread
   * until a writer comes): it is opened without following a link and without blocking, and what was opened is
   * checked again.
   */
  async lines(relative: string): Promise<number> {
    const file = path.join(this.root, relative);
    const linkStat = await fs.lstat(file);
    if (linkStat.isSymbolicLink()) return 1;
    if (!linkStat.isFile()) return 0;
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    } catch (error) {
      // Replaced by a symbolic link since the lstat.
      if ((error as NodeJS.ErrnoException).code === "ELOOP") return 1;
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return 0;
      if (stat.size > this.remaining) throw new LineCountFailure("untracked files are too large to count");
      this.remaining -= stat.size;
      const buffer = Buffer.alloc(Math.min(READ_CHUNK_BYTES, Math.max(1, stat.size)));
      let scan = initialTextScan();
      let budget = stat.size;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, Math.max(budget, 1)), null);
        if (bytesRead === 0) break;
        scan = scanTextChunk(scan, buffer.subarray(0, bytesRead));
        if (scan.binary) return 0;
        budget -= bytesRead;
        // A file that grew while it is read is counted up to the size it had.
        if (budget <= 0) break;
      }
      return textScanLines(scan) ?? 0;
    } finally {
      await handle.close();
    }
  }
}

async function untrackedAdditions(root: string, paths: readonly string[], limit: number): Promise<number> {
  const counter = new UntrackedLineCounter(root, limit);
  let total = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const relative = paths[next++] as string;
      const lines = await counter.lines(relative);
      total += lines;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, paths.length) }, worker));
  return total;
}

/** Staged + working line changes + untracked text lines, or null when counting fails. */
async function lineStats(root: string, status: PorcelainStatus, limit: number): Promise<LineStats | null> {
  const exclude = conflictedPaths(status.files);
  try {
    const [staged, working, untracked] = await Promise.all([
      gitText(["diff", "--cached", "--numstat", "-z", "-M", ...DIFF_READ_ARGS], { cwd: root }),
      gitText(["diff-files", "--numstat", "-z", ...DIFF_READ_ARGS], { cwd: root }),
      untrackedAdditions(root, untrackedFilePaths(status.files), limit),
    ]);
    const a = sumNumstat(parseNumstat(staged), exclude);
    const b = sumNumstat(parseNumstat(working), exclude);
    return { additions: a.additions + b.additions + untracked, deletions: a.deletions + b.deletions };
  } catch {
    return null;
  }
}

/**
 * The review of the folder `cwd`: `available: false` outside a repository. Throws a `review_failed` ServiceError
 * for a folder that is not absolute, missing or unreadable, and for a failing git run (except line counting).
 */
export async function readReviewStatus(cwd: string, options: ReviewStatusOptions = {}): Promise<ReviewStatus> {
  const repository = await locateRepository(cwd);
  if (repository.kind === "none") return unavailableReview(repository.dir);
  const status = await readPorcelainStatus(repository.root);
  const stats = wantsLineStats(status.files)
    ? await lineStats(repository.root, status, options.untrackedBytesLimit ?? DEFAULT_UNTRACKED_BYTES_LIMIT)
    : null;
  return summarizeReview({ root: repository.root, branch: status.branch, files: status.files, lineStats: stats });
}
