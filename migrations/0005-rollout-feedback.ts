/**
 * Rollout feedback (spec "Rollout feedback route"): one verdict per transcript entry, keyed by session id and
 * entry id, with the cwd and session path the browser named, an optional note and the time it was last set.
 */
import { sql, type Kysely } from "kysely";

// Migrations take Kysely<any> (house style): they are frozen in time and must not follow today's row types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("rollout_feedback")
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("entry_id", "text", (c) => c.notNull())
    .addColumn("cwd", "text", (c) => c.notNull())
    .addColumn("session_path", "text", (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("feedback_text", "text", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("rollout_feedback_pk", ["session_id", "entry_id"])
    .addCheckConstraint("rollout_feedback_label", sql`label in ('helpful', 'unhelpful')`)
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("rollout_feedback").execute();
}
