/**
 * The Git review DTOs (spec "Git review routes"): one changed file of the status list, one diff section, the
 * GET /api/pi/review answer and the GET /api/pi/review/diff answer. domain/contract/http-review.ts holds their
 * schemas (checked equal to these types).
 *
 * Field conventions (the spec gives the names, these give the values):
 * - `indexStatus` / `worktreeStatus` are git's two status letters as `git status --short` prints them: a space for
 *   "unchanged", `?` for untracked, `U`/`A`/`D` pairs for conflicts, else `M`, `A`, `D`, `R`, `C`, `T`.
 * - `oldPath` is the source of a rename or copy, else the empty string.
 * - `staged`: the index differs from HEAD; `unstaged`: the working tree differs from the index (untracked files and
 *   conflicts count as unstaged: they wait to be added); a conflicted file is neither staged nor resolved.
 * - An untracked nested repository is one entry whose path ends with `/` (git does not list inside it).
 */

export const GIT_REVIEW_KINDS = ["added", "conflicted", "copied", "deleted", "modified", "renamed", "replaced", "untracked"] as const;
export type GitReviewKind = (typeof GIT_REVIEW_KINDS)[number];

export interface GitReviewFile {
  conflicted: boolean;
  indexStatus: string;
  kind: GitReviewKind;
  oldPath: string;
  path: string;
  staged: boolean;
  unstaged: boolean;
  untracked: boolean;
  worktreeStatus: string;
}

export const GIT_REVIEW_DIFF_SCOPES = ["staged", "working", "conflict"] as const;
export type GitReviewDiffScope = (typeof GIT_REVIEW_DIFF_SCOPES)[number];

export interface GitReviewDiff {
  binary: boolean;
  /** Bytes of the whole patch (also when it is too large to send). */
  bytes: number;
  /** Present (true) only on the one section of an untracked nested repository. */
  directory?: boolean;
  /** Lines of the whole patch. */
  lines: number;
  /** The unified diff; empty when `tooLarge`. */
  patch: string;
  scope: GitReviewDiffScope;
  tooLarge: boolean;
}

/** GET /api/pi/review. */
export interface ReviewStatus {
  additions: number;
  available: boolean;
  branch: string;
  conflicts: number;
  deletions: number;
  files: GitReviewFile[];
  filesTruncated: boolean;
  lineStatsAvailable: boolean;
  root: string;
  totalFiles: number | null;
}

/** GET /api/pi/review/diff. */
export interface ReviewDiffResponse {
  path: string;
  diffs: GitReviewDiff[];
}
