/**
 * Staging one hunk (issue 14): the pure half. The client sends the exact text of one hunk as it saw it in the
 * review's diff; the server recomputes the file's diff, finds that hunk in it (exact text, so a stale view never
 * stages something else) and applies a patch made of the file's headers and that one hunk.
 *
 * Parsing follows `git diff` output (unified, `diff --git` sections) and counts lines by the hunk header, never
 * by what a line looks like: a removed line reading `-- a/x` or an added line reading `+@@ …` stays inside its
 * hunk. A hunk is its `@@ -a,b +c,d @@ …` line, then exactly b old and d new lines (` ` both, `-` old, `+` new,
 * an empty line counts as context), with any `\ No newline at end of file` markers among or after them. Every
 * line of a hunk's `text` ends with "\n"; a hunk the client sends without its final newline is the same hunk.
 *
 * Only text changes of a file that exists on both sides can be staged by hunk: a binary, new, deleted, renamed or
 * copied file is staged whole. The patch keeps the `diff --git`, `---` and `+++` lines (verbatim, so git's quoted
 * names stay valid) and drops mode lines: staging a hunk stages content, never a mode change.
 */

export interface DiffHunk {
  /** The `@@ … @@` line, without its newline. */
  readonly header: string;
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  /** The hunk as git printed it, header first, every line ending with "\n". */
  readonly text: string;
}

export interface FileDiff {
  /** The `diff --git …` line. */
  readonly gitLine: string;
  /** The lines between it and the first hunk (index, modes, renames, `---`, `+++`, `Binary files …`). */
  readonly headerLines: readonly string[];
  /** The `--- …` line, when the section has one. */
  readonly oldFileLine: string | null;
  /** The `+++ …` line, when the section has one. */
  readonly newFileLine: string | null;
  readonly hunks: readonly DiffHunk[];
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const FILE_START = "diff --git ";

/** Lines without their "\n" (a final line without one counts as a line). */
function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Reads the hunk whose header is `lines[start]`; the value's `next` is the index after it. */
function readHunk(lines: readonly string[], start: number): Parsed<{ hunk: DiffHunk; next: number }> {
  const header = lines[start] ?? "";
  const match = HUNK_HEADER.exec(header);
  if (match === null) return { ok: false, error: `line ${start + 1} is not a hunk header` };
  const oldLines = match[2] === undefined ? 1 : Number(match[2]);
  const newLines = match[4] === undefined ? 1 : Number(match[4]);
  let oldLeft = oldLines;
  let newLeft = newLines;
  let next = start + 1;
  while (oldLeft > 0 || newLeft > 0) {
    const line = lines[next];
    if (line === undefined) return { ok: false, error: `the hunk at line ${start + 1} ends before its last line` };
    const kind = line === "" ? " " : line[0];
    if (kind === " " && oldLeft > 0 && newLeft > 0) {
      oldLeft--;
      newLeft--;
    } else if (kind === "-" && oldLeft > 0) oldLeft--;
    else if (kind === "+" && newLeft > 0) newLeft--;
    else if (kind !== "\\") return { ok: false, error: `line ${next + 1} does not fit the hunk at line ${start + 1}` };
    next++;
  }
  while (lines[next]?.startsWith("\\") === true) next++;
  const hunk: DiffHunk = {
    header,
    oldStart: Number(match[1]),
    oldLines,
    newStart: Number(match[3]),
    newLines,
    text: lines
      .slice(start, next)
      .map((line) => `${line}\n`)
      .join(""),
  };
  return { ok: true, value: { hunk, next } };
}

/** The file sections of `git diff` output. */
export function parseGitDiff(text: string): Parsed<FileDiff[]> {
  const lines = linesOf(text);
  const files: FileDiff[] = [];
  let index = 0;
  while (index < lines.length) {
    const gitLine = lines[index] ?? "";
    if (!gitLine.startsWith(FILE_START)) return { ok: false, error: `line ${index + 1} does not start a file's diff` };
    index++;
    const headerLines: string[] = [];
    while (index < lines.length && !(lines[index] ?? "").startsWith(FILE_START) && !(lines[index] ?? "").startsWith("@@")) {
      headerLines.push(lines[index] ?? "");
      index++;
    }
    const hunks: DiffHunk[] = [];
    while ((lines[index] ?? "").startsWith("@@")) {
      const read = readHunk(lines, index);
      if (!read.ok) return read;
      hunks.push(read.value.hunk);
      index = read.value.next;
    }
    if (index < lines.length && !(lines[index] ?? "").startsWith(FILE_START)) {
      return { ok: false, error: `line ${index + 1} follows a hunk but is not part of the diff` };
    }
    files.push({
      gitLine,
      headerLines,
      oldFileLine: headerLines.find((line) => line.startsWith("--- ")) ?? null,
      newFileLine: headerLines.find((line) => line.startsWith("+++ ")) ?? null,
      hunks,
    });
  }
  return { ok: true, value: files };
}

/** One hunk's text (from its `@@` line to its end) as a client sends it; a missing final newline is added. */
export function parseHunkText(text: string): Parsed<DiffHunk> {
  const lines = linesOf(text);
  const read = readHunk(lines, 0);
  if (!read.ok) return read;
  if (read.value.next !== lines.length) return { ok: false, error: "the text goes on after the hunk's last line" };
  return { ok: true, value: read.value.hunk };
}

/** Why this file's changes cannot be staged or unstaged by hunk (stage the whole file instead), or null. */
export function hunkStagingRefusal(file: FileDiff): string | null {
  const has = (prefix: string): boolean => file.headerLines.some((line) => line.startsWith(prefix));
  const whole = "stage or unstage the whole file instead.";
  if (has("Binary files ") || has("GIT binary patch")) return `A binary file has no hunks: ${whole}`;
  if (has("new file mode")) return `A new file is staged whole: ${whole}`;
  if (has("deleted file mode")) return `A deleted file is staged whole: ${whole}`;
  if (has("rename from") || has("copy from")) return `A renamed or copied file is staged whole: ${whole}`;
  if (file.oldFileLine === null || file.newFileLine === null || file.hunks.length === 0) {
    return `This change has no text hunk: ${whole}`;
  }
  return null;
}

/** The file section and hunk of `files` whose text is exactly `hunk`'s, or null. */
export function locateHunk(files: readonly FileDiff[], hunk: DiffHunk): { file: FileDiff; hunk: DiffHunk } | null {
  for (const file of files) {
    const found = file.hunks.find((candidate) => candidate.text === hunk.text);
    if (found !== undefined) return { file, hunk: found };
  }
  return null;
}

/** A patch of one hunk: the file's `diff --git`, `---` and `+++` lines, then the hunk. */
export function oneHunkPatch(file: FileDiff, hunk: DiffHunk): string {
  if (file.oldFileLine === null || file.newFileLine === null) throw new Error("oneHunkPatch needs a text file section");
  return `${file.gitLine}\n${file.oldFileLine}\n${file.newFileLine}\n${hunk.text}`;
}

/** Whether the hunk has no context line (a diff read with diff.context=0): `git apply` then needs `--unidiff-zero`. */
export function hasNoContext(hunk: DiffHunk): boolean {
  return hunk.text
    .split("\n")
    .slice(1, -1)
    .every((line) => line !== "" && line[0] !== " ");
}
