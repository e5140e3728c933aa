/**
 * Repository of projection checkpoints (plain functions, `db` first). Heads (stamp, key, summary) are read
 * without the full state so a warm start never parses large JSON; bodies are read one file at a time, only
 * when folding must resume.
 */
import type { Kysely } from "kysely";
import type { DecoderState } from "../../domain/session-decoder.ts";
import type { FileStamp, TailCursor } from "../session-files/file-tail.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";

export interface CheckpointHead {
  readonly path: string;
  readonly stamp: FileStamp;
  readonly projectionKey: string;
  /** The summary column as stored (JSON text, or null when the set summarised the file as null). */
  readonly summaryJson: string | null;
}

export interface CheckpointBody {
  readonly stamp: FileStamp;
  readonly cursor: TailCursor;
  readonly projectionKey: string;
  readonly decoder: DecoderState;
  readonly states: Record<string, unknown>;
}

export interface CheckpointWrite {
  readonly path: string;
  readonly stamp: FileStamp;
  readonly cursor: TailCursor;
  readonly projectionKey: string;
  readonly summaryJson: string | null;
  readonly decoderJson: string;
  readonly statesJson: string;
}

export async function loadCheckpointHeads(db: Kysely<LeylineDatabase>, scope: string): Promise<CheckpointHead[]> {
  const rows = await db
    .selectFrom("projection_checkpoints")
    .select(["path", "size", "mtime_ms", "ino", "projection_key", "summary"])
    .where("scope", "=", scope)
    .execute();
  return rows.map((row) => ({
    path: row.path,
    stamp: { size: row.size, mtimeMs: row.mtime_ms, ino: row.ino },
    projectionKey: row.projection_key,
    summaryJson: row.summary,
  }));
}

/** The full checkpoint of one file, or null when there is none or it cannot be parsed (a cache miss). */
export async function loadCheckpointBody(
  db: Kysely<LeylineDatabase>,
  scope: string,
  path: string,
): Promise<CheckpointBody | null> {
  const row = await db
    .selectFrom("projection_checkpoints")
    .selectAll()
    .where("scope", "=", scope)
    .where("path", "=", path)
    .executeTakeFirst();
  if (row === undefined) return null;
  try {
    const decoder = JSON.parse(row.decoder_state) as DecoderState;
    const states = JSON.parse(row.states) as unknown;
    if (typeof states !== "object" || states === null || Array.isArray(states)) return null;
    return {
      stamp: { size: row.size, mtimeMs: row.mtime_ms, ino: row.ino },
      cursor: { offset: row.offset, fingerprint: row.fingerprint },
      projectionKey: row.projection_key,
      decoder,
      states: states as Record<string, unknown>,
    };
  } catch {
    return null;
  }
}

/** Rows per INSERT statement (11 columns each, well below SQLite's 32766 bound variables). */
const ROWS_PER_INSERT = 200;

/** Upserts `writes` and deletes `removedPaths` in one transaction. */
export async function writeCheckpoints(
  db: Kysely<LeylineDatabase>,
  scope: string,
  writes: readonly CheckpointWrite[],
  removedPaths: readonly string[],
): Promise<void> {
  if (writes.length === 0 && removedPaths.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < writes.length; i += ROWS_PER_INSERT) {
      const rows = writes.slice(i, i + ROWS_PER_INSERT).map((w) => ({
        scope,
        path: w.path,
        size: w.stamp.size,
        mtime_ms: w.stamp.mtimeMs,
        ino: w.stamp.ino,
        offset: w.cursor.offset,
        fingerprint: w.cursor.fingerprint,
        projection_key: w.projectionKey,
        summary: w.summaryJson,
        decoder_state: w.decoderJson,
        states: w.statesJson,
      }));
      await trx
        .insertInto("projection_checkpoints")
        .values(rows)
        .onConflict((oc) =>
          oc.columns(["scope", "path"]).doUpdateSet((eb) => ({
            size: eb.ref("excluded.size"),
            mtime_ms: eb.ref("excluded.mtime_ms"),
            ino: eb.ref("excluded.ino"),
            offset: eb.ref("excluded.offset"),
            fingerprint: eb.ref("excluded.fingerprint"),
            projection_key: eb.ref("excluded.projection_key"),
            summary: eb.ref("excluded.summary"),
            decoder_state: eb.ref("excluded.decoder_state"),
            states: eb.ref("excluded.states"),
          })),
        )
        .execute();
    }
    for (let i = 0; i < removedPaths.length; i += ROWS_PER_INSERT) {
      await trx
        .deleteFrom("projection_checkpoints")
        .where("scope", "=", scope)
        .where("path", "in", removedPaths.slice(i, i + ROWS_PER_INSERT))
        .execute();
    }
  });
}

export async function deleteCheckpointScope(db: Kysely<LeylineDatabase>, scope: string): Promise<void> {
  await db.deleteFrom("projection_checkpoints").where("scope", "=", scope).execute();
}
