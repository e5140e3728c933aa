/**
 * Reset-to-entry on the file level (POST /api/pi/reset-to-entry): the session file is cut so that it ends at
 * the chosen entry, after the ORIGINAL file was copied to the trash so the removed tail stays recoverable.
 *
 * How: the runtime's worker is disposed first (nobody appends while we rewrite); `resetSessionFile` then
 * (1) checks that the entry is on the active branch (pi's leaf is the last entry of the file; the branch is
 * its parentId chain), (2) copies the whole original file byte for byte to
 * `<trashDir>/<file name without .jsonl>.reset-<ISO time>.jsonl` (never overwriting), (3) writes the kept
 * prefix — every line up to and including the entry's line, unchanged — to a temp file next to the session
 * and renames it over the session file (atomic on one file system). Reopening the file in a new worker puts
 * pi's leaf on the entry. Restoring = copying the trash file back over the session file.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { RuntimeHostError } from "./runtime-host-error.ts";

interface LineInfo {
  id: string | null;
  parentId: string | null;
  /** Byte offset just after this line's newline. */
  end: number;
}

function parseLines(bytes: Buffer): LineInfo[] {
  const lines: LineInfo[] = [];
  let start = 0;
  while (start < bytes.length) {
    let newline = bytes.indexOf(0x0a, start);
    // A torn last line (no newline) is not an entry pi can have on its branch.
    if (newline === -1) break;
    const text = bytes.subarray(start, newline).toString("utf8");
    newline += 1;
    let id: string | null = null;
    let parentId: string | null = null;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        const record = value as Record<string, unknown>;
        if (record["type"] !== "session" && typeof record["id"] === "string") {
          id = record["id"];
          parentId = typeof record["parentId"] === "string" ? record["parentId"] : null;
        }
      }
    } catch {
      // malformed line: kept as bytes, never on the branch
    }
    lines.push({ id, parentId, end: newline });
    start = newline;
  }
  return lines;
}

/** Ids on the active branch (root … leaf), the leaf being the last entry of the file. */
export function activeBranchIds(bytes: Buffer): string[] {
  const entries = parseLines(bytes).filter((line) => line.id !== null);
  const byId = new Map(entries.map((line) => [line.id, line] as const));
  const branch: string[] = [];
  const seen = new Set<string>();
  let current = entries.at(-1) ?? null;
  while (current && current.id !== null && !seen.has(current.id)) {
    seen.add(current.id);
    branch.push(current.id);
    current = current.parentId === null ? null : (byId.get(current.parentId) ?? null);
  }
  return branch.reverse();
}

function timestampName(now: number): string {
  return new Date(now).toISOString().replace(/[:.]/g, "-");
}

export interface ResetResult {
  /** The byte-identical copy of the file before the reset. */
  trashPath: string;
  /** Bytes kept / removed. */
  keptBytes: number;
  removedBytes: number;
}

/** Cuts `sessionFile` after `entryId` (see the module comment). Throws RuntimeHostError 400/404/500. */
export function resetSessionFile(sessionFile: string, entryId: string, options: { trashDir: string; now: number }): ResetResult {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(sessionFile);
  } catch (error) {
    throw new RuntimeHostError(500, `Cannot read the session file: ${error instanceof Error ? error.message : String(error)}`);
  }
  const lines = parseLines(bytes);
  const line = lines.find((candidate) => candidate.id === entryId);
  if (!line) throw new RuntimeHostError(404, `Entry ${entryId} not found`);
  if (!activeBranchIds(bytes).includes(entryId)) throw new RuntimeHostError(400, `Entry ${entryId} is not on the active branch`);

  fs.mkdirSync(options.trashDir, { recursive: true });
  const base = path.basename(sessionFile, ".jsonl");
  let trashPath = path.join(options.trashDir, `${base}.reset-${timestampName(options.now)}.jsonl`);
  for (let n = 2; fs.existsSync(trashPath); n++) {
    trashPath = path.join(options.trashDir, `${base}.reset-${timestampName(options.now)}-${n}.jsonl`);
  }
  fs.copyFileSync(sessionFile, trashPath, fs.constants.COPYFILE_EXCL);

  const kept = bytes.subarray(0, line.end);
  const temp = `${sessionFile}.reset-${process.pid}.tmp`;
  fs.writeFileSync(temp, kept);
  fs.renameSync(temp, sessionFile);
  return { trashPath, keptBytes: kept.length, removedBytes: bytes.length - kept.length };
}

/** `<agentDir>/leyline-trash`: the trash folder beside pi's `sessions` folder that holds `sessionFile`. */
export function defaultTrashDir(sessionFile: string): string {
  let dir = path.dirname(path.resolve(sessionFile));
  for (let depth = 0; depth < 4; depth++) {
    if (path.basename(dir) === "sessions") return path.join(path.dirname(dir), "leyline-trash");
    dir = path.dirname(dir);
  }
  return path.join(path.dirname(path.dirname(path.resolve(sessionFile))), "leyline-trash");
}
