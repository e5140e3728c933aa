/**
 * The projection checkpoint cache: one row per (runner scope, session file). A row is only a cache of a fold
 * over the file; dropping it changes nothing but start-up time.
 */
import type { Kysely } from "kysely";

// Migrations take Kysely<any> (house style): they are frozen in time and must not follow today's row types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("projection_checkpoints")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("mtime_ms", "real", (c) => c.notNull())
    .addColumn("ino", "text", (c) => c.notNull())
    .addColumn("offset", "integer", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("projection_key", "text", (c) => c.notNull())
    .addColumn("summary", "text")
    .addColumn("decoder_state", "text", (c) => c.notNull())
    .addColumn("states", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("projection_checkpoints_pk", ["scope", "path"])
    .execute();
  // Covering index of the warm-start query (stat columns, key and summary): reading it never touches the
  // table rows with their large state JSON.
  await db.schema
    .createIndex("projection_checkpoints_heads")
    .on("projection_checkpoints")
    .columns(["scope", "path", "size", "mtime_ms", "ino", "projection_key", "summary"])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("projection_checkpoints").execute();
}
