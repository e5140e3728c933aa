/**
 * Counting the lines of a file's bytes as git's numstat does, and telling text from binary as git does.
 *
 * - A file is binary when a NUL byte occurs in its first 8,000 bytes (git's `buffer_is_binary`); a binary file
 *   has no line count.
 * - Lines are the newlines, plus one for a last line without a newline (an empty file has none).
 *
 * The scan is a fold over chunks (`scanTextChunk`), so a large file is counted without being held in memory; the
 * result does not depend on how the bytes are split into chunks.
 */

/** Bytes git looks at to decide that a file is binary. */
export const BINARY_SNIFF_BYTES = 8000;

const NEWLINE = 0x0a;

export interface TextScan {
  bytes: number;
  newlines: number;
  /** The last byte seen, -1 before any. */
  lastByte: number;
  binary: boolean;
}

export function initialTextScan(): TextScan {
  return { bytes: 0, newlines: 0, lastByte: -1, binary: false };
}

export function scanTextChunk(state: TextScan, chunk: Uint8Array): TextScan {
  if (chunk.length === 0) return state;
  let { newlines, binary } = state;
  const sniffEnd = Math.max(0, Math.min(chunk.length, BINARY_SNIFF_BYTES - state.bytes));
  if (!binary && sniffEnd > 0 && chunk.subarray(0, sniffEnd).includes(0)) binary = true;
  let at = chunk.indexOf(NEWLINE);
  while (at !== -1) {
    newlines++;
    at = chunk.indexOf(NEWLINE, at + 1);
  }
  return { bytes: state.bytes + chunk.length, newlines, lastByte: chunk[chunk.length - 1] ?? state.lastByte, binary };
}

/** The line count of a scanned file, or null for a binary one. */
export function textScanLines(state: TextScan): number | null {
  if (state.binary) return null;
  return state.newlines + (state.bytes > 0 && state.lastByte !== NEWLINE ? 1 : 0);
}

/** Lines of a whole buffer (binary or not): newlines, plus one for an unterminated last line. */
export function countLines(bytes: Uint8Array): number {
  const scan = scanTextChunk(initialTextScan(), bytes);
  return scan.newlines + (scan.bytes > 0 && scan.lastByte !== NEWLINE ? 1 : 0);
}
