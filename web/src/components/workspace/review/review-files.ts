/**
 * The review pane's file list (pure): the status's files in three groups, Conflicts, Staged and Changes, each row
 * with the status letter and a word for its kind. A file staged in part is in both Staged and Changes; a
 * conflicted file only under Conflicts. Rows keep the server's order within a group.
 */
import type { GitReviewFile, GitReviewKind } from "../../../api/review.ts";

export type ReviewGroupId = "conflicts" | "staged" | "changes";

export interface ReviewRow {
  readonly group: ReviewGroupId;
  readonly file: GitReviewFile;
  /** One letter: M, A, D, R, C, T, U (untracked), ! (conflict). */
  readonly letter: string;
  /** The kind in words ("modified", "renamed from a.ts"). */
  readonly label: string;
}

export interface ReviewGroup {
  readonly id: ReviewGroupId;
  readonly title: string;
  readonly rows: readonly ReviewRow[];
}

const KIND_LETTER: Readonly<Record<GitReviewKind, string>> = {
  added: "A",
  conflicted: "!",
  copied: "C",
  deleted: "D",
  modified: "M",
  renamed: "R",
  replaced: "T",
  untracked: "U",
};

const CODE_KIND: Readonly<Record<string, GitReviewKind>> = {
  M: "modified",
  A: "added",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "replaced",
  U: "conflicted",
  "?": "untracked",
};

/** The kind a porcelain status letter stands for, or the file's kind when the letter says nothing. */
function kindOf(code: string, fallback: GitReviewKind): GitReviewKind {
  const letter = code.trim().charAt(0).toUpperCase();
  return CODE_KIND[letter] ?? fallback;
}

function labelOf(kind: GitReviewKind, file: GitReviewFile): string {
  if ((kind === "renamed" || kind === "copied") && file.oldPath !== "" && file.oldPath !== file.path) {
    return `${kind} from ${file.oldPath}`;
  }
  return kind;
}

function rowOf(group: ReviewGroupId, file: GitReviewFile): ReviewRow {
  const kind =
    group === "conflicts"
      ? "conflicted"
      : group === "staged"
        ? kindOf(file.indexStatus, file.kind)
        : file.untracked
          ? "untracked"
          : kindOf(file.worktreeStatus, file.kind);
  return { group, file, letter: KIND_LETTER[kind], label: labelOf(kind, file) };
}

/** The non-empty groups of a file list, Conflicts first. */
export function groupReviewFiles(files: readonly GitReviewFile[]): ReviewGroup[] {
  const conflicts: ReviewRow[] = [];
  const staged: ReviewRow[] = [];
  const changes: ReviewRow[] = [];
  for (const file of files) {
    if (file.conflicted) {
      conflicts.push(rowOf("conflicts", file));
      continue;
    }
    if (file.staged) staged.push(rowOf("staged", file));
    if (file.unstaged || file.untracked) changes.push(rowOf("changes", file));
  }
  const groups: ReviewGroup[] = [
    { id: "conflicts", title: "Conflicts", rows: conflicts },
    { id: "staged", title: "Staged", rows: staged },
    { id: "changes", title: "Changes", rows: changes },
  ];
  return groups.filter((group) => group.rows.length > 0);
}

/** The file's name and the folder it is in, for a compact row. */
export function splitPath(path: string): { name: string; folder: string } {
  const slash = path.lastIndexOf("/", path.endsWith("/") ? path.length - 2 : path.length);
  if (slash === -1) return { name: path, folder: "" };
  return { name: path.slice(slash + 1), folder: path.slice(0, slash) };
}
