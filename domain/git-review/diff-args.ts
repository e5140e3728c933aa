/**
 * The git arguments of the review's diffs, shared by the side that shows them (adapters/git-review/review-diff.ts)
 * and the side that stages or unstages one of their hunks (adapters/git-review-actions/review-actions.ts). A hunk
 * is found by its exact text, so both sides must run exactly the same command: any difference (a context size, an
 * algorithm, a prefix) means a hunk the person saw is never "in the file".
 *
 * - Working changes: plumbing `git diff-files -p`. Porcelain `git diff` may rewrite `.git/index` and honours the
 *   person's porcelain settings (diff.context, diff.algorithm, diff.indentHeuristic, ...); plumbing does neither.
 * - Staged changes: `git diff --cached -M` (there is no plumbing that detects renames against HEAD), so porcelain
 *   settings apply to the staged diff, the same on both sides.
 * - Always: no user diff drivers or colours, and the standard `a/` `b/` prefixes whatever diff.noprefix or
 *   diff.mnemonicPrefix say (so `git apply -p1` reads the patch).
 * - Paths reach git as `:(literal)` pathspecs.
 */

/** The options every review diff is read with. */
export const DIFF_READ_ARGS = ["--no-ext-diff", "--no-textconv", "--no-color", "--src-prefix=a/", "--dst-prefix=b/"] as const;

/** A pathspec matching exactly `repoPath` (no globs, no magic). */
export function literalPathspec(repoPath: string): string {
  return `:(literal)${repoPath}`;
}

/** `git diff-files -p` of `repoPaths`: the working tree against the index (a conflict's combined diff too). */
export function workingDiffArgs(repoPaths: readonly string[]): string[] {
  return ["diff-files", "-p", ...DIFF_READ_ARGS, "--", ...repoPaths.map(literalPathspec)];
}

/** `git diff --cached -M` of `repoPaths` (a staged rename shows as one when its source is among them). */
export function stagedDiffArgs(repoPaths: readonly string[]): string[] {
  return ["diff", "--cached", "-M", ...DIFF_READ_ARGS, "--", ...repoPaths.map(literalPathspec)];
}
