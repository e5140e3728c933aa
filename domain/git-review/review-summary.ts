/**
 * The rules of the GET /api/pi/review answer (spec "GET /api/pi/review"):
 *
 * - At most 500 changed paths are kept (git's order). With more, `filesTruncated` is true, `totalFiles` is null,
 *   line statistics are not computed (`lineStatsAvailable: false`) and additions/deletions are 0 placeholders.
 * - When line counting fails (`lineStats: null`), `lineStatsAvailable` is false and the counts are 0 placeholders.
 * - Otherwise additions/deletions are the staged plus working-tree line changes plus the lines of untracked text
 *   files (the caller sums them; binary files contribute nothing).
 * - `conflicts` counts every conflicted path, also past the cap.
 * - Outside a repository: no files, every count 0, `totalFiles` 0, `lineStatsAvailable` true, `root` the resolved
 *   project folder.
 */
import type { LineStats } from "./numstat.ts";
import type { GitReviewFile, ReviewStatus } from "./review-types.ts";

export const REVIEW_FILE_LIMIT = 500;

/** Whether line statistics are computed for a status list at all (not when it is over the cap). */
export function wantsLineStats(files: readonly GitReviewFile[]): boolean {
  return files.length <= REVIEW_FILE_LIMIT;
}

/** The changed paths the review keeps: the first 500. */
export function boundedFiles(files: readonly GitReviewFile[]): GitReviewFile[] {
  return files.slice(0, REVIEW_FILE_LIMIT);
}

export interface ReviewSummaryInput {
  root: string;
  branch: string;
  /** Every changed path git listed. */
  files: readonly GitReviewFile[];
  /** The summed line changes, or null when counting failed; not read when the list is over the cap. */
  lineStats: LineStats | null;
}

export function summarizeReview(input: ReviewSummaryInput): ReviewStatus {
  const truncated = !wantsLineStats(input.files);
  const stats = truncated ? null : input.lineStats;
  return {
    additions: stats?.additions ?? 0,
    available: true,
    branch: input.branch,
    conflicts: input.files.reduce((sum, file) => sum + (file.conflicted ? 1 : 0), 0),
    deletions: stats?.deletions ?? 0,
    files: boundedFiles(input.files),
    filesTruncated: truncated,
    lineStatsAvailable: stats !== null,
    root: input.root,
    totalFiles: truncated ? null : input.files.length,
  };
}

export function unavailableReview(root: string): ReviewStatus {
  return {
    additions: 0,
    available: false,
    branch: "",
    conflicts: 0,
    deletions: 0,
    files: [],
    filesTruncated: false,
    lineStatsAvailable: true,
    root,
    totalFiles: 0,
  };
}

/** The paths whose line changes the sums leave out: conflicted paths. */
export function conflictedPaths(files: readonly GitReviewFile[]): Set<string> {
  return new Set(files.filter((file) => file.conflicted).map((file) => file.path));
}

/** The untracked files whose lines count as additions (a nested repository, ending with `/`, has none). */
export function untrackedFilePaths(files: readonly GitReviewFile[]): string[] {
  return files.filter((file) => file.untracked && !file.path.endsWith("/")).map((file) => file.path);
}
