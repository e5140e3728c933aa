/**
 * A pi session file read incrementally: the complete lines appended since the last read, decoded into
 * `LogRecord`s with the decoder state carried between reads. On a restart (new, shrunk, replaced or rewritten
 * file) decoding starts over from the initial decoder state, and the records are those of the whole file.
 */
import type { LogRecord } from "../../domain/session-log.ts";
import { decodeLines, initialDecoderState, type DecoderState } from "../../domain/session-decoder.ts";
import { readTail, type FileStamp, type RestartReason, type TailPosition } from "./file-tail.ts";

export interface SessionFilePosition extends TailPosition {
  readonly decoder: DecoderState;
}

export type SessionFileRead =
  | { readonly kind: "missing" }
  | { readonly kind: "unchanged"; readonly stamp: FileStamp }
  | { readonly kind: "appended"; readonly records: LogRecord[]; readonly position: SessionFilePosition }
  | {
      readonly kind: "restarted";
      readonly reason: RestartReason;
      readonly records: LogRecord[];
      readonly position: SessionFilePosition;
    };

/** Synchronous (see file-tail.ts); callers scanning many files yield between files. */
export function readSessionFile(file: string, previous: SessionFilePosition | null): SessionFileRead {
  const read = readTail(file, previous);
  switch (read.kind) {
    case "missing":
    case "unchanged":
      return read;
    case "appended": {
      const decoded = decodeLines((previous as SessionFilePosition).decoder, read.lines);
      return { kind: "appended", records: decoded.records, position: { ...read.position, decoder: decoded.state } };
    }
    case "restarted": {
      const decoded = decodeLines(initialDecoderState(), read.lines);
      return {
        kind: "restarted",
        reason: read.reason,
        records: decoded.records,
        position: { ...read.position, decoder: decoded.state },
      };
    }
  }
}
