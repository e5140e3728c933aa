/**
 * The paths a review action names (issue 14, beyond the spec): repository-relative paths as the review status
 * lists them, checked before git sees them.
 *
 * Rules: a non-empty string of `/`-separated segments, none empty, `.` or `..` (so nothing can escape the
 * repository root, and `.` cannot widen an action to the whole repository); not absolute (`/x`, `C:\x`, `\\x`);
 * no control characters (NUL included); no `.git` part (git's own files are not changes). A folder the status lists (an untracked nested
 * repository, `dir/`) keeps its one trailing `/` when the action accepts folders. Git receives the paths after
 * `--` with literal pathspecs, so `*`, `?`, `[` and `:` in a name are plain characters.
 */

/** The most paths one stage or unstage request may name (the status lists at most 500). */
export const REVIEW_ACTION_MAX_PATHS = 500;

export interface RepoPathRules {
  /** A trailing `/` (a folder the status lists) is allowed. Default false. */
  readonly allowFolder?: boolean;
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what this rejects
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `path` cannot be named by a review action, or null when it can. */
export function repoPathFailure(path: string, rules: RepoPathRules = {}): string | null {
  if (path === "") return "A path must not be empty";
  if (CONTROL.test(path)) return `Path ${JSON.stringify(path)} contains a control character`;
  if (path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(path)) {
    return `Path ${JSON.stringify(path)} must be relative to the repository root`;
  }
  const body = rules.allowFolder === true && path.endsWith("/") ? path.slice(0, -1) : path;
  const segments = body.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    return `Path ${JSON.stringify(path)} must name a file inside the repository (no empty, "." or ".." parts)`;
  }
  if (segments.some((segment) => segment.toLowerCase() === ".git")) return `Path ${JSON.stringify(path)} is inside a .git folder`;
  return null;
}

/** The first failure among `paths` (a list for stage/unstage: folders allowed), or null. */
export function repoPathsFailure(paths: readonly string[]): string | null {
  if (paths.length === 0) return "paths must name at least one file";
  if (paths.length > REVIEW_ACTION_MAX_PATHS) return `paths may name at most ${REVIEW_ACTION_MAX_PATHS} files`;
  for (const path of paths) {
    const failure = repoPathFailure(path, { allowFolder: true });
    if (failure !== null) return failure;
  }
  return null;
}
