/**
 * Traces (spec "Trace routes"): every captured run (`traces`), its model calls, tool executions and events
 * (`trace_observations`), the scores stored for it (`trace_scores`), and the capture setting (`trace_settings`:
 * `tracing.enabled`; absent means on). A trace's token and cost columns are its own model calls' sums (a child
 * run is a trace of its own, linked by `parent_trace_id`, and never added to its parent's columns).
 */
import { sql, type Kysely } from "kysely";

// Migrations take Kysely<any> (house style): they are frozen in time and must not follow today's row types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("traces")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("session_file", "text")
    .addColumn("session_name", "text")
    .addColumn("cwd", "text")
    .addColumn("parent_session_file", "text")
    .addColumn("parent_trace_id", "text")
    .addColumn("parent_session_id", "text")
    .addColumn("parent_tool_call_id", "text")
    .addColumn("agent", "text")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("status_message", "text")
    .addColumn("start_ms", "integer", (c) => c.notNull())
    .addColumn("end_ms", "integer")
    .addColumn("updated_ms", "integer", (c) => c.notNull())
    .addColumn("input", "text")
    .addColumn("output", "text")
    .addColumn("model", "text", (c) => c.notNull())
    .addColumn("user_entry_id", "text")
    .addColumn("start_entry_id", "text")
    .addColumn("end_entry_id", "text")
    .addColumn("input_tokens", "integer", (c) => c.notNull())
    .addColumn("output_tokens", "integer", (c) => c.notNull())
    .addColumn("total_tokens", "integer", (c) => c.notNull())
    .addColumn("cost", "real", (c) => c.notNull())
    .addColumn("bookmarked", "integer", (c) => c.notNull())
    .addColumn("revision", "integer", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("tags", "text", (c) => c.notNull())
    .addColumn("metadata", "text", (c) => c.notNull())
    .addCheckConstraint("traces_status", sql`status in ('running', 'completed', 'error', 'aborted')`)
    .addCheckConstraint("traces_level", sql`level in ('DEFAULT', 'WARNING', 'ERROR')`)
    .execute();
  await db.schema.createIndex("traces_by_time").on("traces").columns(["start_ms desc", "id desc"]).execute();
  await db.schema.createIndex("traces_by_session").on("traces").columns(["session_id", "start_ms"]).execute();
  await db.schema.createIndex("traces_by_parent").on("traces").column("parent_trace_id").execute();
  await db.schema.createIndex("traces_by_status").on("traces").column("status").execute();

  await db.schema
    .createTable("trace_observations")
    .addColumn("trace_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("parent_id", "text")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("start_ms", "integer", (c) => c.notNull())
    .addColumn("end_ms", "integer")
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("status_message", "text")
    .addColumn("model", "text")
    .addColumn("input", "text")
    .addColumn("output", "text")
    .addColumn("input_tokens", "integer", (c) => c.notNull())
    .addColumn("output_tokens", "integer", (c) => c.notNull())
    .addColumn("total_tokens", "integer", (c) => c.notNull())
    .addColumn("cost", "real", (c) => c.notNull())
    .addColumn("tool_call_id", "text")
    .addColumn("entry_id", "text")
    .addColumn("metadata", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("trace_observations_pk", ["trace_id", "id"])
    .addCheckConstraint("trace_observations_type", sql`type in ('GENERATION', 'TOOL', 'EVENT')`)
    .addCheckConstraint("trace_observations_status", sql`status in ('running', 'completed', 'error', 'aborted')`)
    .addCheckConstraint("trace_observations_level", sql`level in ('DEFAULT', 'WARNING', 'ERROR')`)
    .execute();
  await db.schema.createIndex("trace_observations_in_order").on("trace_observations").columns(["trace_id", "start_ms", "seq"]).execute();
  await db.schema.createIndex("trace_observations_by_tool_call").on("trace_observations").column("tool_call_id").execute();
  // The next insertion order of a capture write, read from the index.
  await db.schema.createIndex("trace_observations_by_seq").on("trace_observations").columns(["trace_id", "seq"]).execute();

  await db.schema
    .createTable("trace_scores")
    .addColumn("trace_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("value_number", "real")
    .addColumn("value_text", "text")
    .addColumn("comment", "text")
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("timestamp_ms", "integer", (c) => c.notNull())
    .addColumn("data_type", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("trace_scores_pk", ["trace_id", "id"])
    .execute();

  await db.schema
    .createTable("trace_settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["trace_settings", "trace_scores", "trace_observations", "traces"]) await db.schema.dropTable(table).execute();
}
