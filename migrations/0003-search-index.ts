/**
 * The full-text search index (adapters/search/): only a cache of the session files, rebuilt from them when it is
 * dropped; dropping it changes nothing but start-up time.
 *
 * - `search_files`: one row per indexed session file: where its indexing stopped (stat, byte offset, fingerprint
 *   and decoder state, as the projection checkpoints keep them), its session id and folder, and the format of
 *   its rows (a format other than the indexer's own makes it index the file again).
 * - `search_docs`: one row per searchable document (a message's text, a tool output...; domain/search/): the file
 *   and session entry it came from. `search_text`: its text, under the same id.
 * - `search_fts`: the FTS5 index of `search_text.text` (an external-content table: the text is stored once, in
 *   `search_text`; the indexer writes all three and deletes from all three).
 */
import { sql, type Kysely } from "kysely";

// Migrations take Kysely<any> (house style): they are frozen in time and must not follow today's row types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("search_files")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("path", "text", (c) => c.notNull().unique())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("cwd", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("mtime_ms", "real", (c) => c.notNull())
    .addColumn("ino", "text", (c) => c.notNull())
    .addColumn("offset", "integer", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("decoder_state", "text", (c) => c.notNull())
    .addColumn("format", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("search_docs")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("file_id", "integer", (c) => c.notNull())
    .addColumn("entry_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("timestamp", "text", (c) => c.notNull())
    .addColumn("tool_call_id", "text", (c) => c.notNull())
    .execute();
  // A file's rows go when it is rewritten or deleted.
  await db.schema.createIndex("search_docs_by_file").on("search_docs").column("file_id").execute();
  // The texts apart from the small document rows: a query joins hundreds of hits to their files, and reading
  // that from rows that also hold kilobytes of text would touch many more pages.
  await db.schema
    .createTable("search_text")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("text", "text", (c) => c.notNull())
    .execute();
  await sql`create virtual table search_fts using fts5(
    text,
    content = 'search_text',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
  )`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists search_fts`.execute(db);
  await db.schema.dropTable("search_text").execute();
  await db.schema.dropTable("search_docs").execute();
  await db.schema.dropTable("search_files").execute();
}
