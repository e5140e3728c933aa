/**
 * Reset-to-entry on the file level (POST /api/pi/reset-to-entry), its read-only preview and its undo. The
 * session file is cut so that it ends at the chosen entry, after the ORIGINAL file was copied to the trash so
 * the removed tail stays recoverable.
 *
 * How: the runtime's worker is disposed first (nobody appends while we rewrite); `resetSessionFile` then
 * (1) checks that the entry is on the active branch (pi's leaf is the last entry of the file; the branch is
 * its parentId chain), (2) copies the whole original file byte for byte to
 * `<trashDir>/<file name without .jsonl>.reset-<ISO time>.jsonl` (never overwriting), (3) writes the kept
 * prefix — every line up to and including the entry's line, unchanged — to a temp file next to the session
 * and renames it over the session file (atomic on one file system). Reopening the file in a new worker puts
 * pi's leaf on the entry.
 *
 * The trash is always `<agentDir>/leyline-trash` (the host passes it; adapters/session-files/agent-dir.ts), also
 * for a session file outside `<agentDir>/sessions` (pi's --session-dir inside a project): a copy never lands
 * in the user's project.
 *
 * `resetPreview` counts what the cut removes, exactly as `resetSessionFile` cuts it: every entry after the
 * chosen one in FILE order, entries of other branches included. `restoreResetCopy` (undo) puts a trash copy
 * back after copying the current file to the trash too (`.undo-<ISO time>`), so an undo loses nothing and can
 * itself be undone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ResetPreview } from "../../domain/reset-preview.ts";
import { keepTrashCopy, replaceFileAtomically } from "../session-files/trash-copy.ts";
import { RuntimeHostError, SESSION_NOT_FOUND } from "./runtime-host-error.ts";

interface LineInfo {
  id: string | null;
  parentId: string | null;
  /** The entry's `type` ("message", "model_change", …); null for the header and malformed lines. */
  type: string | null;
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
    let type: string | null = null;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        const record = value as Record<string, unknown>;
        if (record["type"] !== "session" && typeof record["id"] === "string") {
          id = record["id"];
          parentId = typeof record["parentId"] === "string" ? record["parentId"] : null;
          type = typeof record["type"] === "string" ? record["type"] : null;
        }
      }
    } catch {
      // malformed line: kept as bytes, never on the branch
    }
    lines.push({ id, parentId, type, end: newline });
    start = newline;
  }
  return lines;
}

/**
 * Ids on the active branch (root … leaf), the leaf being the last entry of the file, or `leaf` when given (a leaf an
 * open runtime moved to without writing; `undefined`: the file's; null: no branch).
 */
export function activeBranchIds(bytes: Buffer, leaf?: string | null): string[] {
  const entries = parseLines(bytes).filter((line) => line.id !== null);
  const byId = new Map(entries.map((line) => [line.id, line] as const));
  const branch: string[] = [];
  const seen = new Set<string>();
  let current = leaf === undefined ? (entries.at(-1) ?? null) : leaf === null ? null : (byId.get(leaf) ?? entries.at(-1) ?? null);
  while (current && current.id !== null && !seen.has(current.id)) {
    seen.add(current.id);
    branch.push(current.id);
    current = current.parentId === null ? null : (byId.get(current.parentId) ?? null);
  }
  return branch.reverse();
}

function readSessionBytes(sessionFile: string): Buffer {
  try {
    return fs.readFileSync(sessionFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new RuntimeHostError("session_not_found", SESSION_NOT_FOUND);
    throw new RuntimeHostError("runtime_failed", `Cannot read the session file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** The line of `entryId`, checked to be on the active branch (ending at `leaf`): 404 unknown, 400 on another branch. */
function cutLine(bytes: Buffer, entryId: string, leaf?: string | null): { lines: LineInfo[]; index: number; branch: Set<string> } {
  const lines = parseLines(bytes);
  const index = lines.findIndex((candidate) => candidate.id === entryId);
  if (index === -1) throw new RuntimeHostError("entry_not_found", `Entry ${entryId} not found`);
  const branch = new Set(activeBranchIds(bytes, leaf));
  if (!branch.has(entryId)) throw new RuntimeHostError("invalid_request", `Entry ${entryId} is not on the active branch`);
  return { lines, index, branch };
}

/** Checks that `resetSessionFile(sessionFile, entryId)` can cut there (404 unknown, 400 off the branch). */
export function checkResetEntry(sessionFile: string, entryId: string, leaf?: string | null): void {
  cutLine(readSessionBytes(sessionFile), entryId, leaf);
}

/** Counts what `resetSessionFile(bytes' file, entryId)` would remove; pure on the bytes. Throws 400/404. */
export function resetPreview(bytes: Buffer, entryId: string, leaf?: string | null): ResetPreview {
  const { lines, index, branch } = cutLine(bytes, entryId, leaf);
  const entries = (from: number, to: number): LineInfo[] => lines.slice(from, to).filter((line) => line.id !== null);
  const removed = entries(index + 1, lines.length);
  return {
    entryId,
    removedEntryCount: removed.length,
    removedMessageCount: removed.filter((line) => line.type === "message").length,
    removedOtherBranchEntryCount: removed.filter((line) => line.id !== null && !branch.has(line.id)).length,
    keptEntryCount: entries(0, index + 1).length,
  };
}

/** `resetPreview` of a session file. */
export function resetPreviewOfFile(sessionFile: string, entryId: string, leaf?: string | null): ResetPreview {
  return resetPreview(readSessionBytes(sessionFile), entryId, leaf);
}

export interface ResetResult {
  /** The byte-identical copy of the file before the reset. */
  trashPath: string;
  /** Bytes kept / removed. */
  keptBytes: number;
  removedBytes: number;
}

/** Cuts `sessionFile` after `entryId` (see the module comment). Throws RuntimeHostError 400/404/500. */
export function resetSessionFile(
  sessionFile: string,
  entryId: string,
  options: { trashDir: string; now: number; leaf?: string | null },
): ResetResult {
  const bytes = readSessionBytes(sessionFile);
  const { lines, index } = cutLine(bytes, entryId, options.leaf);
  const trashPath = keepTrashCopy(options.trashDir, sessionFile, "reset", bytes, options.now);
  const kept = bytes.subarray(0, lines[index]?.end ?? bytes.length);
  replaceFileAtomically(sessionFile, kept);
  return { trashPath, keptBytes: kept.length, removedBytes: bytes.length - kept.length };
}

/** A copy `resetSessionFile` or `restoreResetCopy` made: `<name>.reset-<time>.jsonl` or `<name>.undo-<time>.jsonl`. */
const RESET_COPY_NAME = /^.+\.(?:reset|undo)-[0-9TZ-]+\.jsonl$/;

/** The session id in the header (first line) of a session file, or null. */
function headerId(bytes: Buffer): string | null {
  const newline = bytes.indexOf(0x0a);
  try {
    const value: unknown = JSON.parse(bytes.subarray(0, newline === -1 ? bytes.length : newline).toString("utf8"));
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const record = value as Record<string, unknown>;
    return record["type"] === "session" && typeof record["id"] === "string" ? record["id"] : null;
  } catch {
    return null;
  }
}

/**
 * A reset (or undo) copy of session `sessionId`: directly in `trashDir` with a name Leyline gives (400
 * otherwise), existing (404), its header holding `sessionId` (400). Returns its bytes.
 */
export function readResetCopy(sessionId: string, trashPath: string, trashDir: string): Buffer {
  const resolved = path.resolve(trashPath);
  if (path.dirname(resolved) !== path.resolve(trashDir) || !RESET_COPY_NAME.test(path.basename(resolved))) {
    throw new RuntimeHostError("invalid_request", "trashPath must be a reset copy in leyline-trash");
  }
  let copy: Buffer;
  try {
    copy = fs.readFileSync(resolved);
  } catch {
    throw new RuntimeHostError("not_found", "Trash copy not found");
  }
  if (headerId(copy) !== sessionId) throw new RuntimeHostError("invalid_request", "The trash copy belongs to another session");
  return copy;
}

/**
 * Undo of a reset (POST /api/pi/sessions/:id/reset-undo) with the bytes `readResetCopy` checked: copies the
 * current file to the trash first (its path is returned; null when there was no file), then the copy replaces
 * the session file atomically. The caller closes the session's runtime before.
 */
export function restoreResetCopy(
  sessionFile: string,
  copy: Buffer,
  options: { trashDir: string; now: number },
): { trashPath: string | null } {
  const current = fs.existsSync(sessionFile)
    ? keepTrashCopy(options.trashDir, sessionFile, "undo", fs.readFileSync(sessionFile), options.now)
    : null;
  replaceFileAtomically(sessionFile, copy);
  return { trashPath: current };
}
