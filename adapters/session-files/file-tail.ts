/**
 * Reading what was appended to a file since a byte offset, for JSONL files that another process appends to.
 *
 * - Only complete lines are returned: the bytes after the last "\n" (a torn line, a crash mid-append) are
 *   held back and read again next time. Cutting at a "\n" byte never splits a UTF-8 sequence (0x0A is never
 *   part of a multi-byte sequence), so decoding is exact.
 * - A file that was replaced or rewritten is read again from byte 0: the stamp (size, mtime, inode) and a
 *   fingerprint (hash of the first bytes of the file and of the bytes just before the offset) are kept with
 *   the offset; a smaller size, another inode or another fingerprint means "restart".
 * - Only the new bytes (plus a small window before the offset, to check the fingerprint) are read.
 * - Synchronous on purpose: measured here, promise-based FileHandle reads cost twice the CPU of sync reads for
 *   the many small files of a sessions folder. Callers that scan many files yield to the event loop between
 *   files (see the projection runner).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";

/** What a stat says about a file; equal stamps mean nothing to read. */
export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
  /** Inode number as a string (inode numbers may exceed 2^53 and are only compared). */
  readonly ino: string;
}

/** Where the next read starts, and the fingerprint that proves the bytes before it are unchanged. */
export interface TailCursor {
  readonly offset: number;
  readonly fingerprint: string;
}

export interface TailPosition {
  readonly stamp: FileStamp;
  readonly cursor: TailCursor;
}

export type RestartReason = "new" | "shrunk" | "replaced" | "rewritten";

export type TailRead =
  | { readonly kind: "missing" }
  | { readonly kind: "unchanged"; readonly stamp: FileStamp }
  /** Complete lines after the previous offset (possibly none, when only a torn line was added). */
  | { readonly kind: "appended"; readonly lines: string[]; readonly position: TailPosition; readonly more?: boolean }
  /** Complete lines from byte 0: no previous position, or the file is not the one the position describes. */
  | {
      readonly kind: "restarted";
      readonly reason: RestartReason;
      readonly lines: string[];
      readonly position: TailPosition;
      readonly more?: boolean;
    };

export interface ReadTailOptions {
  /**
   * Read at most about this many new bytes (whole lines; a longer single line is read whole). The read then
   * says `more: true`, and its position is that of a file that ended at the last line read (its stamp's size is
   * that offset), so the next read continues from there. Used to fold a large file in slices.
   */
  readonly maxBytes?: number;
}

/** Bytes of the file start covered by the fingerprint. Must not exceed FINGERPRINT_WINDOW (see readTail). */
export const FINGERPRINT_HEAD = 64;
/** Bytes before the offset covered by the fingerprint. */
export const FINGERPRINT_WINDOW = 256;

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

export function stampOf(stat: { size: number; mtimeMs: number; ino: number | bigint }): FileStamp {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ino: String(stat.ino) };
}

/** A slice of the file held in memory: `bytes` are the file's bytes from `start`. */
interface Span {
  readonly start: number;
  readonly bytes: Buffer;
}

function slice(spans: readonly Span[], from: number, to: number): Buffer {
  for (const span of spans) {
    if (from >= span.start && to <= span.start + span.bytes.length) {
      return span.bytes.subarray(from - span.start, to - span.start);
    }
  }
  throw new Error(`file-tail: bytes ${from}..${to} not in memory`);
}

/** Fingerprint of the bytes before `offset`: the first FINGERPRINT_HEAD bytes and the last FINGERPRINT_WINDOW. */
function fingerprintAt(spans: readonly Span[], offset: number): string {
  const hash = createHash("sha1");
  hash.update(slice(spans, 0, Math.min(FINGERPRINT_HEAD, offset)));
  hash.update(slice(spans, Math.max(0, offset - FINGERPRINT_WINDOW), offset));
  return `${offset}:${hash.digest("base64")}`;
}

function readFully(fd: number, start: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const bytesRead = fs.readSync(fd, buffer, filled, length - filled, start + filled);
    if (bytesRead === 0) break; // the file shrank while reading: keep what is there
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/**
 * The lines of `bytes[from, end)`, a range that ends with "\n", without their "\n" (nor a "\r" before it), as
 * `splitCompleteLines` cuts them. Each line is decoded on its own: V8 then keeps every line whose characters
 * all fit in Latin-1 as a one-byte string, where decoding the whole text at once makes all of it two-byte
 * as soon as one character anywhere is not Latin-1 (several times slower to decode, split and JSON.parse).
 * "\n" never occurs inside a UTF-8 sequence, so the characters are the same.
 */
export function splitUtf8Lines(bytes: Buffer, from: number, end: number): string[] {
  const lines: string[] = [];
  let start = from;
  while (start < end) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline < 0 || newline >= end) break; // only when `end` does not follow a "\n": ignore the rest
    const stop = newline > start && bytes[newline - 1] === 0x0d ? newline - 1 : newline;
    lines.push(bytes.toString("utf8", start, stop));
    start = newline + 1;
  }
  return lines;
}

/** Splits the bytes of `span` from `from` into complete lines; returns them and the offset after the last "\n". */
function completeLines(span: Span, from: number): { lines: string[]; offset: number } {
  const relative = from - span.start;
  const lastNewline = span.bytes.lastIndexOf(0x0a);
  if (lastNewline < relative) return { lines: [], offset: from };
  return { lines: splitUtf8Lines(span.bytes, relative, lastNewline + 1), offset: span.start + lastNewline + 1 };
}

/**
 * The file's bytes from `start` up to `size`, or, with a limit, up to about `limit` bytes past `from` (at least
 * one whole line past `from` when there is one): `limited` says the span stops before `size`.
 */
function readSpan(fd: number, start: number, from: number, size: number, limit: number | undefined): { span: Span; limited: boolean } {
  if (limit === undefined || from + limit >= size) return { span: { start, bytes: readFully(fd, start, size - start) }, limited: false };
  let end = from + Math.max(1, limit);
  let bytes = readFully(fd, start, end - start);
  if (bytes.lastIndexOf(0x0a) < from - start) {
    // A line longer than the limit: read on to its end (the first newline after the window), or to the file's end.
    const probe = Buffer.allocUnsafe(64 * 1024);
    let at = end;
    end = size;
    while (at < size) {
      const read = fs.readSync(fd, probe, 0, Math.min(probe.length, size - at), at);
      if (read === 0) break;
      const newline = probe.subarray(0, read).indexOf(0x0a);
      if (newline >= 0) {
        end = at + newline + 1;
        break;
      }
      at += read;
    }
    bytes = readFully(fd, start, end - start);
  }
  return { span: { start, bytes }, limited: end < size };
}

/** The stamp a limited read records: a file that ended after the last line read (so the next read goes on). */
function stampUpTo(stamp: FileStamp, offset: number, limited: boolean): FileStamp {
  return limited ? { ...stamp, size: offset } : stamp;
}

function isMissing(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * Reads the complete lines appended to `file` since `previous` (or all of them when `previous` is null).
 * The returned position goes into the next call.
 */
export function readTail(file: string, previous: TailPosition | null, options: ReadTailOptions = {}): TailRead {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (error) {
    if (isMissing(error)) return { kind: "missing" };
    throw error;
  }
  try {
    const stamp = stampOf(fs.fstatSync(fd));
    if (previous !== null && sameStamp(previous.stamp, stamp)) return { kind: "unchanged", stamp };
    const limit = options.maxBytes;

    let reason: RestartReason = "new";
    if (previous !== null) {
      const offset = previous.cursor.offset;
      if (stamp.ino !== previous.stamp.ino) reason = "replaced";
      else if (stamp.size < previous.stamp.size || stamp.size < offset) reason = "shrunk";
      else {
        // FINGERPRINT_HEAD <= FINGERPRINT_WINDOW: when the offset is within the head, the window starts at 0.
        const windowStart = Math.max(0, offset - FINGERPRINT_WINDOW);
        const { span: tail, limited } = readSpan(fd, windowStart, offset, stamp.size, limit);
        const spans: Span[] = [tail];
        if (windowStart > 0) spans.push({ start: 0, bytes: readFully(fd, 0, FINGERPRINT_HEAD) });
        if (tail.bytes.length < offset - windowStart) reason = "shrunk";
        else if (fingerprintAt(spans, offset) !== previous.cursor.fingerprint) reason = "rewritten";
        else {
          const { lines, offset: next } = completeLines(tail, offset);
          const fingerprint = next === offset ? previous.cursor.fingerprint : fingerprintAt(spans, next);
          const position = { stamp: stampUpTo(stamp, next, limited), cursor: { offset: next, fingerprint } };
          return limited ? { kind: "appended", lines, position, more: true } : { kind: "appended", lines, position };
        }
      }
    }
    const { span: whole, limited } = readSpan(fd, 0, 0, stamp.size, limit);
    const { lines, offset } = completeLines(whole, 0);
    const cursor = { offset, fingerprint: fingerprintAt([whole], offset) };
    const position = { stamp: stampUpTo(stamp, offset, limited), cursor };
    return limited ? { kind: "restarted", reason, lines, position, more: true } : { kind: "restarted", reason, lines, position };
  } finally {
    fs.closeSync(fd);
  }
}
