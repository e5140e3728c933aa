/**
 * Vision agent overrides (spec "Vision agent routes"): one row per (scope, scope id) holding the vision model
 * and thinking setting of that scope. The scope id is "" for global, the project id for project, the canonical
 * session file for session. Either value may be "" (that field is not set at this scope); a row with both
 * empty is deleted instead of stored.
 */
import { sql, type Kysely } from "kysely";

// Migrations take Kysely<any> (house style): they are frozen in time and must not follow today's row types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("vision_overrides")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("scope_id", "text", (c) => c.notNull())
    .addColumn("model", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("thinking", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("vision_overrides_pk", ["scope", "scope_id"])
    .addCheckConstraint("vision_overrides_scope", sql`scope in ('global', 'project', 'session')`)
    .addCheckConstraint("vision_overrides_not_empty", sql`model <> '' or thinking <> ''`)
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("vision_overrides").execute();
}
