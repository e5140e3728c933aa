/**
 * Subagent model overrides (spec "Subagent routes"): one row per (agent key, scope, scope id). The scope id is
 * "" for global, the project id for project, the canonical session file for session.
 */
import { sql, type Kysely } from "kysely";

// Migrations take Kysely<any> (house style): they are frozen in time and must not follow today's row types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("subagent_model_overrides")
    .addColumn("agent_key", "text", (c) => c.notNull())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("scope_id", "text", (c) => c.notNull())
    .addColumn("model", "text", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("subagent_model_overrides_pk", ["agent_key", "scope", "scope_id"])
    .addCheckConstraint("subagent_model_overrides_scope", sql`scope in ('global', 'project', 'session')`)
    .execute();
  // The routes read every override of one context (global, one project, one session) at once.
  await db.schema.createIndex("subagent_model_overrides_by_scope").on("subagent_model_overrides").columns(["scope", "scope_id"]).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("subagent_model_overrides").execute();
}
