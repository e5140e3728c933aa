/**
 * memory.sqlite's first table (spec "Memory Inspector routes"): `memories`, one row per record. Tags are a JSON
 * array of strings. CHECKs keep the closed sets (scope, status, source) and the keys each scope needs: a project
 * memory names its project, a session memory its session file or id.
 */
import { sql, type Kysely } from "kysely";

// Migrations take Kysely<any> (house style): they are frozen in time and must not follow today's row types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("memories")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("project_id", "text")
    .addColumn("project_root", "text")
    .addColumn("project_name", "text")
    .addColumn("session_id", "text")
    .addColumn("session_file", "text")
    .addColumn("cwd", "text")
    .addColumn("content_md", "text", (c) => c.notNull())
    .addColumn("reason_md", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("tags", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .addColumn("archived_at", "integer")
    .addColumn("last_accessed_at", "integer")
    .addCheckConstraint("memories_scope", sql`scope in ('global', 'project', 'session')`)
    .addCheckConstraint("memories_status", sql`status in ('active', 'archived')`)
    .addCheckConstraint("memories_source", sql`source in ('agent', 'user', 'system', 'import')`)
    .addCheckConstraint("memories_project_key", sql`scope = 'global' or project_id is not null`)
    .addCheckConstraint("memories_session_key", sql`scope <> 'session' or session_file is not null or session_id is not null`)
    .execute();
  await db.schema.createIndex("memories_by_project").on("memories").columns(["scope", "project_id"]).execute();
  await db.schema.createIndex("memories_by_session_file").on("memories").columns(["session_file"]).execute();
  await db.schema.createIndex("memories_by_session_id").on("memories").columns(["session_id"]).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("memories").execute();
}
