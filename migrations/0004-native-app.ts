/**
 * The native backend's own records (spec "Connection registry", "App settings", "Network access", "Pinned
 * sessions"): saved backend connections, app settings (ui.thinking_default, server.network_access,
 * server.network_access_port) and pinned session ids per connection.
 */
import { sql, type Kysely } from "kysely";

// Migrations take Kysely<any> (house style): they are frozen in time and must not follow today's row types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("backend_connections")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .addCheckConstraint("backend_connections_not_builtin", sql`id <> 'builtin'`)
    .execute();
  await db.schema
    .createTable("app_settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("pinned_sessions")
    .addColumn("connection_id", "text", (c) => c.notNull())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("pinned_at", "integer", (c) => c.notNull())
    // Insertion order among pins of the same millisecond.
    .addColumn("seq", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("pinned_sessions_pk", ["connection_id", "session_id"])
    .execute();
  await db.schema.createIndex("pinned_sessions_by_order").on("pinned_sessions").columns(["connection_id", "seq"]).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("pinned_sessions").execute();
  await db.schema.dropTable("app_settings").execute();
  await db.schema.dropTable("backend_connections").execute();
}
