/**
 * Repository of projection checkpoints (plain functions, `db` first). A warm start reads the stored summaries
 * of its folder alone (`loadStoredSummaries`), then the heads (stamp, key, summary) for the check against the
 * disk; neither touches the full state, so a warm start never parses large JSON. Bodies are read one file at a
 * time, only when folding must resume.
 */
import nodePath from "node:path";
import type { Kysely } from "kysely";
import type { DecoderState } from "../../domain/session-decoder.ts";
import type { FileStamp, TailCursor } from "../session-files/file-tail.ts";
import { sqliteConnectionOf } from "../sqlite/database.ts";
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

/** A stored summary column, as a warm start lists it before any file is checked. */
export interface StoredSummary {
  readonly path: string;
  /** JSON text, or null when the set summarised the file as null. */
  readonly summaryJson: string | null;
}

/**
 * The stored summaries of the files below `folder` (any depth, as `isInside` in adapters/read-side says), in path
 * order; null when any of them was made with another projection key than `currentKey` (those summaries may
 * have another shape: the files must be folded again first).
 *
 * This is what a warm start waits for before the list can be served, and its cost grows with the number of
 * sessions, so it reads only the path and summary columns (stamps and keys are loaded later, for the check
 * against the disk), compares the key inside SQLite, and runs as a prepared node:sqlite statement returning
 * arrays when the connection is at hand (`sqliteConnectionOf`): Kysely's driver would prepare it again and
 * build an object per row. The Kysely query below is the same read, for any other Kysely instance.
 */
export async function loadStoredSummaries(
  db: Kysely<LeylineDatabase>,
  scope: string,
  folder: string,
  currentKey: string,
): Promise<StoredSummary[] | null> {
  const [low, high] = below(folder);
  const sqlite = sqliteConnectionOf(db);
  if (sqlite !== null) {
    const statement = sqlite.prepare(STORED_SUMMARIES_SQL);
    statement.setReturnArrays(true);
    const rows = statement.all(currentKey, scope, low, high) as unknown as SummaryRow[];
    const stored = new Array<StoredSummary>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const [path, summaryJson, current] = rows[i] as SummaryRow;
      if (current !== 1) return null;
      stored[i] = { path, summaryJson };
    }
    return stored;
  }
  const rows = await db
    .selectFrom("projection_checkpoints")
    .select(["path", "summary", "projection_key"])
    .where("scope", "=", scope)
    .where("path", ">", low)
    .where("path", "<", high)
    .orderBy("path")
    .execute();
  if (rows.some((row) => row.projection_key !== currentKey)) return null;
  return rows.map((row) => ({ path: row.path, summaryJson: row.summary }));
}

/** Path, summary, 1 when made with the current key (else 0). */
type SummaryRow = [string, string | null, number];

/** Reads the covering index `projection_checkpoints_heads` (migrations/0001) in path order, never the states. */
const STORED_SUMMARIES_SQL = `select path, summary, projection_key = ?
from projection_checkpoints
where scope = ? and path > ? and path < ?
order by path`;

/**
 * The bounds of the paths below `folder` in SQLite's byte order: greater than `folder/`, less than `folder`
 * followed by the character after the separator (`0` after `/`).
 */
function below(folder: string): [string, string] {
  return [folder + nodePath.sep, folder + String.fromCharCode(nodePath.sep.charCodeAt(0) + 1)];
}

/** The full checkpoint of one file, or null when there is none or it cannot be parsed (a cache miss). */
export async function loadCheckpointBody(db: Kysely<LeylineDatabase>, scope: string, path: string): Promise<CheckpointBody | null> {
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
