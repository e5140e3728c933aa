/**
 * Unified diffs as the review pane shows them (pure): `parsePatch` reads a git patch into its header lines and
 * hunks (line numbers on both sides, and each hunk's exact text for the stage/unstage-hunk actions);
 * `splitRows` pairs a hunk's lines for the side-by-side view.
 *
 * Rules:
 * - A hunk starts at an `@@ -a,b +c,d @@` line and ends when its counts are used up (then any `\ No newline`
 *   notes), or at the first line that cannot belong to it. Its `text` is the patch's own text of those lines,
 *   newlines included: byte-for-byte what the server needs to find the hunk again.
 * - Combined diffs (`@@@ … @@@`, a conflict's `diff --cc`) have one prefix column per parent; their lines carry
 *   the new side's numbers only. They are shown, never staged.
 * - Side by side, removed and added runs pair up row by row; context lines sit on both sides; a `\ No newline`
 *   note stays on the side of the line it follows. Every line keeps its order on its side.
 * - Nothing throws: text that is not a hunk is kept as header lines.
 */

/** The diff layouts: one column, or old and new side by side. */
export type DiffMode = "unified" | "split";

export type DiffLineKind = "context" | "add" | "del" | "note";

export interface DiffLine {
  readonly kind: DiffLineKind;
  /** The line without its prefix column(s) (and without a trailing carriage return). */
  readonly text: string;
  readonly oldNo: number | null;
  readonly newNo: number | null;
}

export interface DiffHunk {
  /** The `@@ … @@` line. */
  readonly header: string;
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
  /** The text after the closing `@@` (git's function context), trimmed. */
  readonly section: string;
  /** A combined diff's hunk (several parents: a conflict). */
  readonly combined: boolean;
  readonly lines: readonly DiffLine[];
  /** The exact text of the hunk in the patch, from its @@ line to the end of the hunk. */
  readonly text: string;
}

export interface ParsedPatch {
  /** The lines outside hunks (`diff --git`, `index`, `---`/`+++`, mode and rename lines). */
  readonly header: readonly string[];
  readonly hunks: readonly DiffHunk[];
}

export interface SplitRow {
  readonly left: DiffLine | null;
  readonly right: DiffLine | null;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;
const COMBINED_HEADER = /^(@{3,}) ((?:-\d+(?:,\d+)? )+)\+(\d+)(?:,(\d+))? @{3,}(.*)$/;

/** One line of the patch with where it starts and ends (its newline included) in the patch text. */
interface RawLine {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

function rawLines(patch: string): RawLine[] {
  const lines: RawLine[] = [];
  let start = 0;
  while (start < patch.length) {
    const newline = patch.indexOf("\n", start);
    const end = newline === -1 ? patch.length : newline + 1;
    lines.push({ text: patch.slice(start, newline === -1 ? patch.length : newline), start, end });
    start = end;
  }
  return lines;
}

function withoutCr(text: string): string {
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

interface HunkStart {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
  readonly section: string;
  /** Prefix columns: 1, or one per parent in a combined diff. */
  readonly columns: number;
}

function hunkStartOf(line: string): HunkStart | null {
  const plain = HUNK_HEADER.exec(line);
  if (plain !== null) {
    return {
      oldStart: Number(plain[1]),
      oldCount: plain[2] === undefined ? 1 : Number(plain[2]),
      newStart: Number(plain[3]),
      newCount: plain[4] === undefined ? 1 : Number(plain[4]),
      section: (plain[5] ?? "").trim(),
      columns: 1,
    };
  }
  const combined = COMBINED_HEADER.exec(line);
  if (combined === null) return null;
  const firstOld = /-(\d+)(?:,(\d+))?/.exec(combined[2] ?? "");
  return {
    oldStart: Number(firstOld?.[1] ?? 0),
    oldCount: firstOld?.[2] === undefined ? 1 : Number(firstOld[2]),
    newStart: Number(combined[3]),
    newCount: combined[4] === undefined ? 1 : Number(combined[4]),
    section: (combined[5] ?? "").trim(),
    columns: (combined[1] ?? "@@@").length - 1,
  };
}

/** Reads the hunk that starts at `lines[at]`; returns it and the index after it. */
function readHunk(lines: readonly RawLine[], at: number, start: HunkStart, patch: string): { hunk: DiffHunk; next: number } {
  const headerLine = lines[at] as RawLine;
  const out: DiffLine[] = [];
  let oldNo = start.oldStart;
  let newNo = start.newStart;
  let remainingOld = start.oldCount;
  let remainingNew = start.newCount;
  const combined = start.columns > 1;
  let index = at + 1;
  let last = headerLine;
  for (; index < lines.length; index++) {
    const line = lines[index] as RawLine;
    const text = line.text;
    if (text.startsWith("\\")) {
      // "\ No newline at end of file": belongs to the line before it.
      if (out.length === 0) break;
      out.push({ kind: "note", text: withoutCr(text.slice(1).trim()), oldNo: null, newNo: null });
      last = line;
      continue;
    }
    if (combined) {
      const prefix = text.slice(0, start.columns);
      if (prefix.length < start.columns || !/^[ +-]+$/.test(prefix) || text.startsWith("@@")) break;
      const body = withoutCr(text.slice(start.columns));
      if (prefix.includes("+")) out.push({ kind: "add", text: body, oldNo: null, newNo: newNo++ });
      else if (prefix.includes("-")) out.push({ kind: "del", text: body, oldNo: null, newNo: null });
      else out.push({ kind: "context", text: body, oldNo: null, newNo: newNo++ });
      last = line;
      continue;
    }
    if (remainingOld <= 0 && remainingNew <= 0) break;
    const marker = text[0];
    const body = withoutCr(text.slice(1));
    // An empty line is a context line whose space a tool stripped.
    if ((marker === " " || text === "") && remainingOld > 0 && remainingNew > 0) {
      out.push({ kind: "context", text: body, oldNo: oldNo++, newNo: newNo++ });
      remainingOld--;
      remainingNew--;
    } else if (marker === "-" && remainingOld > 0) {
      out.push({ kind: "del", text: body, oldNo: oldNo++, newNo: null });
      remainingOld--;
    } else if (marker === "+" && remainingNew > 0) {
      out.push({ kind: "add", text: body, oldNo: null, newNo: newNo++ });
      remainingNew--;
    } else {
      break;
    }
    last = line;
  }
  const hunk: DiffHunk = {
    header: withoutCr(headerLine.text),
    oldStart: start.oldStart,
    oldCount: start.oldCount,
    newStart: start.newStart,
    newCount: start.newCount,
    section: start.section,
    combined,
    lines: out,
    text: patch.slice(headerLine.start, last.end),
  };
  return { hunk, next: index };
}

/** Reads a git patch (one file's diff) into header lines and hunks. */
export function parsePatch(patch: string): ParsedPatch {
  const lines = rawLines(patch);
  const header: string[] = [];
  const hunks: DiffHunk[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as RawLine;
    const start = hunkStartOf(withoutCr(line.text));
    if (start === null) {
      header.push(withoutCr(line.text));
      index++;
      continue;
    }
    const { hunk, next } = readHunk(lines, index, start, patch);
    hunks.push(hunk);
    index = next;
  }
  return { header, hunks };
}

/** The rows of the side-by-side view of a hunk's lines: old on the left, new on the right. */
export function splitRows(lines: readonly DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let left: DiffLine[] = [];
  let right: DiffLine[] = [];
  /** The side the last changed line was on (a note follows it there). */
  let side: "left" | "right" | "both" = "both";
  const flush = () => {
    const count = Math.max(left.length, right.length);
    for (let i = 0; i < count; i++) rows.push({ left: left[i] ?? null, right: right[i] ?? null });
    left = [];
    right = [];
  };
  for (const line of lines) {
    if (line.kind === "del") {
      // A removal after additions starts a new run (it cannot pair with lines above it).
      if (right.length > 0) flush();
      left.push(line);
      side = "left";
    } else if (line.kind === "add") {
      right.push(line);
      side = "right";
    } else if (line.kind === "note" && side !== "both") {
      (side === "left" ? left : right).push(line);
    } else {
      flush();
      rows.push({ left: line, right: line });
      side = "both";
    }
  }
  flush();
  return rows;
}

/** Counts of a hunk's added and removed lines. */
export function hunkCounts(hunk: DiffHunk): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const line of hunk.lines) {
    if (line.kind === "add") additions++;
    else if (line.kind === "del") deletions++;
  }
  return { additions, deletions };
}
