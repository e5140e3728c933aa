/**
 * Parsing `git status --porcelain=v2 -z --branch --untracked-files=all` into the review's changed files.
 *
 * Records (NUL-terminated; paths are never quoted with -z):
 * - `# branch.head <name>` (`(detached)` without a branch) and other `# ...` headers;
 * - `1 <XY> <sub> <mH> <mI> <mW> <hH> <hI> <path>`: an ordinary change;
 * - `2 <XY> <sub> <mH> <mI> <mW> <hH> <hI> <Xscore> <path>` then `<origPath>` as the next field: a rename or copy;
 * - `u <XY> <sub> <m1> <m2> <m3> <mW> <h1> <h2> <h3> <path>`: an unmerged (conflicted) path;
 * - `? <path>`: untracked (a nested repository is one entry ending with `/`); `! <path>`: ignored.
 * XY are the index and working-tree letters with `.` for "unchanged".
 *
 * Rules: the kind says what the path is relative to HEAD. `u` → conflicted, `?` → untracked, `2` → renamed or
 * copied; for `1`: added (in the index, or intent-to-add), deleted (on either side, unless added), replaced (a
 * type change), else modified. Malformed or unknown records are skipped, never thrown: git adds record types.
 */
import type { GitReviewFile, GitReviewKind } from "./review-types.ts";

export interface PorcelainStatus {
  /** The branch name; `HEAD` when detached; empty when git printed no branch header. */
  branch: string;
  /** Changed paths in git's order (tracked changes and conflicts by path, then untracked paths). */
  files: GitReviewFile[];
  /** `! <path>` records (only when asked for with --ignored); directories end with `/`. */
  ignored: string[];
}

/** Git's letter as `git status --short` shows it: `.` (unchanged) becomes a space. */
function letter(value: string): string {
  return value === "." ? " " : value;
}

/** The text after the first `count` space-separated fields, or null when the record has fewer. */
function afterFields(record: string, count: number): string | null {
  let index = 0;
  for (let field = 0; field < count; field++) {
    const space = record.indexOf(" ", index);
    if (space === -1) return null;
    index = space + 1;
  }
  return index < record.length ? record.slice(index) : null;
}

function ordinaryKind(x: string, y: string): GitReviewKind {
  if (x === "A" || y === "A") return "added";
  if (x === "D" || y === "D") return "deleted";
  if (x === "T" || y === "T") return "replaced";
  return "modified";
}

function changed(x: string, y: string, path: string, oldPath: string, kind: GitReviewKind): GitReviewFile {
  const indexStatus = letter(x);
  const worktreeStatus = letter(y);
  return {
    conflicted: false,
    indexStatus,
    kind,
    oldPath,
    path,
    staged: indexStatus !== " ",
    unstaged: worktreeStatus !== " ",
    untracked: false,
    worktreeStatus,
  };
}

function conflicted(xy: string, path: string): GitReviewFile {
  return {
    conflicted: true,
    indexStatus: xy[0] ?? "U",
    kind: "conflicted",
    oldPath: "",
    path,
    staged: false,
    unstaged: true,
    untracked: false,
    worktreeStatus: xy[1] ?? "U",
  };
}

function untracked(path: string): GitReviewFile {
  return {
    conflicted: false,
    indexStatus: "?",
    kind: "untracked",
    oldPath: "",
    path,
    staged: false,
    unstaged: true,
    untracked: true,
    worktreeStatus: "?",
  };
}

export function parsePorcelainStatus(output: string): PorcelainStatus {
  const fields = output.split("\0");
  const files: GitReviewFile[] = [];
  const ignored: string[] = [];
  let branch = "";
  for (let i = 0; i < fields.length; i++) {
    const record = fields[i] ?? "";
    const type = record.slice(0, 2);
    if (record.startsWith("# branch.head ")) {
      const head = record.slice("# branch.head ".length);
      branch = head === "(detached)" ? "HEAD" : head;
    } else if (type === "1 ") {
      const xy = afterFields(record, 1)?.slice(0, 2) ?? "";
      const path = afterFields(record, 8);
      if (xy.length === 2 && path !== null) {
        const [x, y] = [xy[0] as string, xy[1] as string];
        files.push(changed(x, y, path, "", ordinaryKind(x, y)));
      }
    } else if (type === "2 ") {
      // The original path is the next NUL-terminated field.
      const oldPath = fields[i + 1] ?? "";
      i++;
      const xy = afterFields(record, 1)?.slice(0, 2) ?? "";
      const path = afterFields(record, 9);
      if (xy.length === 2 && path !== null && oldPath !== "") {
        const [x, y] = [xy[0] as string, xy[1] as string];
        files.push(changed(x, y, path, oldPath, x === "C" || y === "C" ? "copied" : "renamed"));
      }
    } else if (type === "u ") {
      const xy = afterFields(record, 1)?.slice(0, 2) ?? "";
      const path = afterFields(record, 10);
      if (xy.length === 2 && path !== null) files.push(conflicted(xy, path));
    } else if (type === "? " && record.length > 2) {
      files.push(untracked(record.slice(2)));
    } else if (type === "! " && record.length > 2) {
      ignored.push(record.slice(2));
    }
  }
  return { branch, files, ignored };
}
