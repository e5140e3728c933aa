/**
 * Row type of `projection_checkpoints` (created by migrations/0001-projection-checkpoints.ts): the single
 * source of this table's types.
 *
 * - `scope`: which runner wrote the row (e.g. "session-index"), so several projection sets can cache the same file.
 * - `size`, `mtime_ms`, `ino`: the file's stat when it was last read; equal stat = nothing to read.
 * - `offset`: byte position just after the last complete line folded; `fingerprint`: hash of the file's first
 *   bytes and of the bytes just before `offset`, to detect a file rewritten in place.
 * - `projection_key`: the projection names and versions folded (plus the checkpoint format); any difference
 *   forces a rebuild.
 * - `summary`: small JSON read on a warm start without touching the full state; `null` = not a session file.
 * - `decoder_state`, `states`: JSON, parsed only when folding must resume.
 */
import type { Insertable, Selectable } from "kysely";

export interface ProjectionCheckpointTable {
  scope: string;
  path: string;
  size: number;
  mtime_ms: number;
  ino: string;
  offset: number;
  fingerprint: string;
  projection_key: string;
  summary: string | null;
  decoder_state: string;
  states: string;
}

export type ProjectionCheckpointRow = Selectable<ProjectionCheckpointTable>;
export type NewProjectionCheckpoint = Insertable<ProjectionCheckpointTable>;
