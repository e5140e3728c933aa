/**
 * A pi session file read incrementally: the complete lines appended since the last read, decoded into
 * `LogRecord`s with the decoder state carried between reads. On a restart (new, shrunk, replaced or rewritten
 * file) decoding starts over from the initial decoder state, and the records are those of the whole file.
 */
import type { LogRecord } from "../../domain/session-log.ts";
import { decodeLines, initialDecoderState, type DecoderState } from "../../domain/session-decoder.ts";
import { readTail, type FileStamp, type ReadTailOptions, type RestartReason, type TailPosition } from "./file-tail.ts";

export interface SessionFilePosition extends TailPosition {
  readonly decoder: DecoderState;
}

export type SessionFileRead =
  | { readonly kind: "missing" }
  | { readonly kind: "unchanged"; readonly stamp: FileStamp }
  /** `more`: a limited read stopped before the end of the file (see ReadTailOptions). */
  | { readonly kind: "appended"; readonly records: LogRecord[]; readonly position: SessionFilePosition; readonly more?: boolean }
  | {
      readonly kind: "restarted";
      readonly reason: RestartReason;
      readonly records: LogRecord[];
      readonly position: SessionFilePosition;
      readonly more?: boolean;
    };

/** Synchronous (see file-tail.ts); callers scanning many files yield between files. */
export function readSessionFile(file: string, previous: SessionFilePosition | null, options: ReadTailOptions = {}): SessionFileRead {
  const read = readTail(file, previous, options);
  const more = read.kind !== "missing" && read.kind !== "unchanged" && read.more === true ? { more: true } : {};
  switch (read.kind) {
    case "missing":
    case "unchanged":
      return read;
    case "appended": {
      const decoded = decodeLines((previous as SessionFilePosition).decoder, read.lines);
      return { kind: "appended", records: decoded.records, position: { ...read.position, decoder: decoded.state }, ...more };
    }
    case "restarted": {
      const decoded = decodeLines(initialDecoderState(), read.lines);
      return {
        kind: "restarted",
        reason: read.reason,
        records: decoded.records,
        position: { ...read.position, decoder: decoded.state },
        ...more,
      };
    }
  }
}
