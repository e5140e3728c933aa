/**
 * Traces in leyline.sqlite (migrations/0007-traces.ts), as repository functions, `db` first.
 *
 * - `applyCapture`: one capture write (domain/traces/trace-records.ts) in one transaction: the trace created with
 *   its owner on first sight, the patch merged, observations inserted or replaced whole (their first insertion
 *   order kept), the trace's own totals moved by what its GENERATION observations' usage changed (a rewritten
 *   record's old usage out, its new usage in: each model call counted once), the revision raised. Answers the
 *   committed trace and observations.
 * - Reads: the list (filters, every search term in some searched field, newest first, paged), one trace, a page
 *   of its observations or scores (text columns read at most `READ_TEXT_CHARS` characters: the read clips to
 *   32 KiB anyway, and a page of huge rows must not be loaded whole), the child runs and their recursive usage.
 * - `setBookmark`, `abortRunning` (runs whose runtime is gone), the capture setting.
 */
import { sql, type Kysely, type Transaction } from "kysely";
import {
  addUsage,
  type CaptureWrite,
  type ObservationRecord,
  type TraceOwner,
  type TraceRecord,
} from "../../domain/traces/trace-records.ts";
import type { TraceChild, TraceStatus, TraceUsage } from "../../domain/traces/trace-types.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import type { TraceObservationRow, TraceRow, TraceScoreRow } from "./trace.table.ts";

type Db = Kysely<LeylineDatabase> | Transaction<LeylineDatabase>;

/** Characters of a text column a page read loads (UTF-8 needs at most 4 bytes a character: 32 KiB + 1 byte fits). */
export const READ_TEXT_CHARS = 32 * 1024 + 1;

export interface TraceDefaults {
  environment: string;
  userId: string;
  version: string;
}

export interface TraceCommit {
  trace: TraceRecord;
  observations: ObservationRecord[];
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    const value: unknown = JSON.parse(text);
    return (value ?? fallback) as T;
  } catch {
    return fallback;
  }
}

/** The columns a summary shows (no input, output or full metadata: a list page never loads the long texts). */
const SUMMARY_COLUMNS = [
  "id",
  "session_id",
  "session_file",
  "session_name",
  "cwd",
  "parent_session_file",
  "parent_trace_id",
  "parent_session_id",
  "parent_tool_call_id",
  "agent",
  "name",
  "status",
  "level",
  "status_message",
  "start_ms",
  "end_ms",
  "updated_ms",
  "model",
  "user_entry_id",
  "start_entry_id",
  "end_entry_id",
  "input_tokens",
  "output_tokens",
  "total_tokens",
  "cost",
  "bookmarked",
  "revision",
  "environment",
  "user_id",
  "version",
  "tags",
] as const;

export type TraceSummaryRow = Pick<TraceRow, (typeof SUMMARY_COLUMNS)[number]>;

/** Metadata larger than this (JSON) is not stored whole (a marker with its size is). */
export const METADATA_MAX_BYTES = 16 * 1024;

function boundedMetadata(metadata: Record<string, unknown>): string {
  const text = JSON.stringify(metadata);
  return Buffer.byteLength(text) <= METADATA_MAX_BYTES ? text : JSON.stringify({ omitted: true, bytes: Buffer.byteLength(text) });
}

/** A stored trace; a summary row has no input, output or metadata (null, null, {}). */
export function traceRecordOf(row: TraceRow | TraceSummaryRow): TraceRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    sessionFile: row.session_file,
    sessionName: row.session_name,
    cwd: row.cwd,
    parentSessionFile: row.parent_session_file,
    parent: { traceId: row.parent_trace_id, sessionId: row.parent_session_id, toolCallId: row.parent_tool_call_id },
    agent: row.agent,
    tags: parseJson<string[]>(row.tags, []),
    name: row.name,
    status: row.status,
    level: row.level,
    statusMessage: row.status_message,
    startMs: Number(row.start_ms),
    endMs: row.end_ms === null ? null : Number(row.end_ms),
    updatedMs: Number(row.updated_ms),
    input: "input" in row ? row.input : null,
    output: "output" in row ? row.output : null,
    model: row.model,
    userEntryId: row.user_entry_id,
    startEntryId: row.start_entry_id,
    endEntryId: row.end_entry_id,
    usage: {
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      totalTokens: Number(row.total_tokens),
      cost: Number(row.cost),
    },
    bookmarked: row.bookmarked === 1,
    revision: Number(row.revision),
    environment: row.environment,
    userId: row.user_id,
    version: row.version,
    metadata: "metadata" in row ? parseJson<Record<string, unknown>>(row.metadata, {}) : {},
  };
}

export function observationRecordOf(row: Omit<TraceObservationRow, "trace_id" | "seq">): ObservationRecord {
  return {
    id: row.id,
    parentId: row.parent_id,
    type: row.type,
    name: row.name,
    startMs: Number(row.start_ms),
    endMs: row.end_ms === null ? null : Number(row.end_ms),
    level: row.level,
    status: row.status,
    statusMessage: row.status_message,
    model: row.model,
    input: row.input,
    output: row.output,
    usage: {
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      totalTokens: Number(row.total_tokens),
      cost: Number(row.cost),
    },
    toolCallId: row.tool_call_id,
    entryId: row.entry_id,
    metadata: parseJson<Record<string, unknown>>(row.metadata, {}),
  };
}

function observationRow(traceId: string, seq: number, record: ObservationRecord): TraceObservationRow {
  return {
    trace_id: traceId,
    id: record.id,
    seq,
    parent_id: record.parentId,
    type: record.type,
    name: record.name,
    start_ms: record.startMs,
    end_ms: record.endMs,
    level: record.level,
    status: record.status,
    status_message: record.statusMessage,
    model: record.model,
    input: record.input,
    output: record.output,
    input_tokens: record.usage.inputTokens,
    output_tokens: record.usage.outputTokens,
    total_tokens: record.usage.totalTokens,
    cost: record.usage.cost,
    tool_call_id: record.toolCallId,
    entry_id: record.entryId,
    metadata: boundedMetadata(record.metadata),
  };
}

async function insertTrace(db: Db, id: string, owner: TraceOwner, startMs: number, defaults: TraceDefaults): Promise<void> {
  await db
    .insertInto("traces")
    .values({
      id,
      session_id: owner.sessionId,
      session_file: owner.sessionFile,
      session_name: owner.sessionName,
      cwd: owner.cwd,
      parent_session_file: owner.parentSessionFile,
      parent_trace_id: owner.parent.traceId,
      parent_session_id: owner.parent.sessionId,
      parent_tool_call_id: owner.parent.toolCallId,
      agent: owner.agent,
      name: owner.agent ?? "pi",
      status: "running",
      level: "DEFAULT",
      status_message: null,
      start_ms: startMs,
      end_ms: null,
      updated_ms: startMs,
      input: null,
      output: null,
      model: "",
      user_entry_id: null,
      start_entry_id: null,
      end_entry_id: null,
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      cost: 0,
      bookmarked: 0,
      revision: 0,
      environment: defaults.environment,
      user_id: defaults.userId,
      version: defaults.version,
      tags: JSON.stringify(owner.tags),
      metadata: "{}",
    })
    .execute();
}

/** Applies one capture write (see the module comment); `owner` names the session when the trace is new. */
export async function applyCapture(
  db: Kysely<LeylineDatabase>,
  owner: TraceOwner,
  write: CaptureWrite,
  defaults: TraceDefaults,
  now: number,
): Promise<TraceCommit> {
  return db.transaction().execute(async (trx) => {
    let row = await trx.selectFrom("traces").selectAll().where("id", "=", write.traceId).executeTakeFirst();
    if (row === undefined) {
      await insertTrace(trx, write.traceId, owner, write.trace?.startMs ?? now, defaults);
      row = await trx.selectFrom("traces").selectAll().where("id", "=", write.traceId).executeTakeFirstOrThrow();
    }
    const patch = write.trace ?? {};
    const observations = write.observations ?? [];
    // The trace's totals move by what its model calls' usage changed (each call counted once, whatever how often
    // its record is rewritten): a write costs the same on a long run as on a short one (bench: trace_write_flatness).
    let totals: TraceUsage = {
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      totalTokens: Number(row.total_tokens),
      cost: Number(row.cost),
    };
    if (observations.length > 0) {
      const { next } = await trx
        .selectFrom("trace_observations")
        .select(sql<number>`coalesce(max(seq), 0) + 1`.as("next"))
        .where("trace_id", "=", write.traceId)
        .executeTakeFirstOrThrow();
      let seq = Number(next);
      for (const record of observations) {
        const before = await trx
          .selectFrom("trace_observations")
          .select(["type", "input_tokens", "output_tokens", "total_tokens", "cost"])
          .where("trace_id", "=", write.traceId)
          .where("id", "=", record.id)
          .executeTakeFirst();
        if (before?.type === "GENERATION") {
          totals = addUsage(totals, {
            inputTokens: -Number(before.input_tokens),
            outputTokens: -Number(before.output_tokens),
            totalTokens: -Number(before.total_tokens),
            cost: -Number(before.cost),
          });
        }
        if (record.type === "GENERATION") totals = addUsage(totals, record.usage);
        const insert = observationRow(write.traceId, seq++, record);
        const { trace_id: _trace, id: _id, seq: _seq, ...changes } = insert;
        await trx
          .insertInto("trace_observations")
          .values(insert)
          .onConflict((conflict) => conflict.columns(["trace_id", "id"]).doUpdateSet(changes))
          .execute();
      }
    }
    const metadata =
      patch.metadata !== undefined
        ? boundedMetadata({ ...parseJson<Record<string, unknown>>(row.metadata, {}), ...patch.metadata })
        : row.metadata;
    await trx
      .updateTable("traces")
      .set({
        ...(patch.startMs !== undefined ? { start_ms: patch.startMs } : {}),
        ...(patch.endMs !== undefined ? { end_ms: patch.endMs } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        ...(patch.level !== undefined ? { level: patch.level } : {}),
        ...(patch.statusMessage !== undefined ? { status_message: patch.statusMessage } : {}),
        ...(patch.name !== undefined
          ? { name: owner.agent !== null && owner.agent !== "" ? `${owner.agent}: ${patch.name}` : patch.name }
          : {}),
        ...(patch.input !== undefined ? { input: patch.input } : {}),
        ...(patch.output !== undefined ? { output: patch.output } : {}),
        ...(patch.model !== undefined ? { model: patch.model } : {}),
        ...(patch.userEntryId !== undefined ? { user_entry_id: patch.userEntryId } : {}),
        ...(patch.startEntryId !== undefined ? { start_entry_id: patch.startEntryId } : {}),
        ...(patch.endEntryId !== undefined ? { end_entry_id: patch.endEntryId } : {}),
        // The owner's names can change while the run goes on (pi names the session, the file appears).
        session_file: owner.sessionFile ?? row.session_file,
        session_name: owner.sessionName ?? row.session_name,
        input_tokens: totals.inputTokens,
        output_tokens: totals.outputTokens,
        total_tokens: totals.totalTokens,
        // Sums of binary fractions: kept from drifting below zero by rewrites (a record set, then set again).
        cost: Math.max(0, totals.cost),
        metadata,
        updated_ms: Math.max(now, Number(row.start_ms)),
        revision: Number(row.revision) + 1,
      })
      .where("id", "=", write.traceId)
      .execute();
    const stored = await trx.selectFrom("traces").selectAll().where("id", "=", write.traceId).executeTakeFirstOrThrow();
    return { trace: traceRecordOf(stored), observations };
  });
}

export interface TraceListQuery {
  sessionId?: string;
  cwd?: string;
  status?: TraceStatus;
  /** Lower-cased search terms; each must match some searched field or tag. */
  terms: readonly string[];
  offset: number;
  limit: number;
}

const SEARCHED_COLUMNS = ["id", "name", "user_id", "session_id", "input", "output", "model", "session_name", "cwd"] as const;

/** Rows of one page (newest first, then id) and the total of the filtered list. */
export async function listTraceRows(
  db: Kysely<LeylineDatabase>,
  query: TraceListQuery,
): Promise<{ rows: TraceSummaryRow[]; total: number }> {
  let base = db.selectFrom("traces");
  if (query.sessionId) base = base.where("session_id", "=", query.sessionId);
  if (query.cwd) base = base.where("cwd", "=", query.cwd);
  if (query.status) base = base.where("status", "=", query.status);
  for (const term of query.terms) {
    // instr over lower(): a case-insensitive substring test (no LIKE wildcards to escape).
    base = base.where((eb) =>
      eb
        .or([
          // leyline_lower: JavaScript's lower case (SQLite's lower() folds ASCII only); see adapters/sqlite/database.ts.
          ...SEARCHED_COLUMNS.map((column) => sql<boolean>`instr(leyline_lower(coalesce(${sql.ref(column)}, '')), ${term}) > 0`),
          // Each tag on its own (the JSON text's quotes and commas are not searched).
          sql<boolean>`exists (select 1 from json_each(traces.tags) where instr(leyline_lower(json_each.value), ${term}) > 0)`,
        ])
        .$castTo<boolean>(),
    );
  }
  const { count } = await base.select(sql<number>`count(*)`.as("count")).executeTakeFirstOrThrow();
  const rows = await base
    .select(SUMMARY_COLUMNS)
    .orderBy("start_ms", "desc")
    .orderBy("id", "desc")
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return { rows, total: Number(count) };
}

export async function readTraceRow(db: Kysely<LeylineDatabase>, id: string): Promise<TraceRow | undefined> {
  return db.selectFrom("traces").selectAll().where("id", "=", id).executeTakeFirst();
}

/** A page row: text columns cut to READ_TEXT_CHARS, with their full UTF-8 sizes. */
export interface ObservationPageRow extends Omit<TraceObservationRow, "trace_id" | "seq"> {
  input_bytes: number;
  output_bytes: number;
}

export async function readObservationPage(
  db: Kysely<LeylineDatabase>,
  traceId: string,
  offset: number,
  limit: number,
): Promise<{ rows: ObservationPageRow[]; total: number }> {
  const { count } = await db
    .selectFrom("trace_observations")
    .select(sql<number>`count(*)`.as("count"))
    .where("trace_id", "=", traceId)
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom("trace_observations")
    .select([
      "id",
      "parent_id",
      "type",
      "name",
      "start_ms",
      "end_ms",
      "level",
      "status",
      "status_message",
      "model",
      sql<string | null>`substr(input, 1, ${READ_TEXT_CHARS})`.as("input"),
      sql<string | null>`substr(output, 1, ${READ_TEXT_CHARS})`.as("output"),
      sql<number>`coalesce(length(cast(input as blob)), 0)`.as("input_bytes"),
      sql<number>`coalesce(length(cast(output as blob)), 0)`.as("output_bytes"),
      "input_tokens",
      "output_tokens",
      "total_tokens",
      "cost",
      "tool_call_id",
      "entry_id",
      "metadata",
    ])
    .where("trace_id", "=", traceId)
    .orderBy("start_ms")
    .orderBy("seq")
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: Number(count) };
}

export async function readScorePage(
  db: Kysely<LeylineDatabase>,
  traceId: string,
  offset: number,
  limit: number,
): Promise<{ rows: TraceScoreRow[]; total: number }> {
  const { count } = await db
    .selectFrom("trace_scores")
    .select(sql<number>`count(*)`.as("count"))
    .where("trace_id", "=", traceId)
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom("trace_scores")
    .selectAll()
    .where("trace_id", "=", traceId)
    .orderBy("timestamp_ms")
    .orderBy("id")
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: Number(count) };
}

/** The runs started from this trace's tool calls (direct children), oldest first. */
export async function readChildren(db: Kysely<LeylineDatabase>, traceId: string): Promise<TraceChild[]> {
  const rows = await db
    .selectFrom("traces")
    .select(["id", "session_id", "parent_tool_call_id", "name", "status", "input_tokens", "output_tokens", "total_tokens", "cost"])
    .where("parent_trace_id", "=", traceId)
    .orderBy("start_ms")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    traceId: row.id,
    sessionId: row.session_id,
    toolCallId: row.parent_tool_call_id,
    name: row.name,
    status: row.status,
    usage: {
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      totalTokens: Number(row.total_tokens),
      cost: Number(row.cost),
    },
  }));
}

/** Every descendant run's own usage, each run counted once (UNION drops repeats, and so any cycle). */
export async function readDescendantUsage(db: Kysely<LeylineDatabase>, traceId: string): Promise<TraceUsage> {
  const result = await sql<{ input: number | null; output: number | null; total: number | null; cost: number | null }>`
    with recursive tree(id) as (
      select id from traces where parent_trace_id = ${traceId}
      union
      select traces.id from traces join tree on traces.parent_trace_id = tree.id
    )
    select sum(input_tokens) as input, sum(output_tokens) as output, sum(total_tokens) as total, sum(cost) as cost
    from traces where id in (select id from tree) and id != ${traceId}
  `.execute(db);
  const row = result.rows[0];
  return {
    inputTokens: Number(row?.input ?? 0),
    outputTokens: Number(row?.output ?? 0),
    totalTokens: Number(row?.total ?? 0),
    cost: Number(row?.cost ?? 0),
  };
}

/** The trace of `parentSessionId` whose run made tool call `toolCallId`, else that session's running trace. */
export async function findParentTrace(
  db: Kysely<LeylineDatabase>,
  parentSessionId: string,
  toolCallId: string | null,
): Promise<string | null> {
  if (toolCallId !== null) {
    const anchored = await db
      .selectFrom("trace_observations")
      .innerJoin("traces", "traces.id", "trace_observations.trace_id")
      .select("traces.id")
      .where("trace_observations.tool_call_id", "=", toolCallId)
      .where("traces.session_id", "=", parentSessionId)
      .orderBy("traces.start_ms", "desc")
      .executeTakeFirst();
    if (anchored !== undefined) return anchored.id;
  }
  const running = await db
    .selectFrom("traces")
    .select("id")
    .where("session_id", "=", parentSessionId)
    .where("status", "=", "running")
    .orderBy("start_ms", "desc")
    .executeTakeFirst();
  return running?.id ?? null;
}

export async function setBookmark(db: Kysely<LeylineDatabase>, id: string, bookmarked: boolean): Promise<TraceRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom("traces").select(["revision"]).where("id", "=", id).executeTakeFirst();
    if (row === undefined) return undefined;
    await trx
      .updateTable("traces")
      .set({ bookmarked: bookmarked ? 1 : 0, revision: Number(row.revision) + 1 })
      .where("id", "=", id)
      .execute();
    return trx.selectFrom("traces").selectAll().where("id", "=", id).executeTakeFirst();
  });
}

/**
 * Ends running traces (of one session, or all) as aborted: their runtime went away (closed, crashed, the server
 * stopped). Their running observations end with them. Answers the ended traces.
 */
export async function abortRunning(
  db: Kysely<LeylineDatabase>,
  sessionId: string | null,
  message: string,
  now: number,
): Promise<TraceRecord[]> {
  return db.transaction().execute(async (trx) => {
    let running = trx.selectFrom("traces").selectAll().where("status", "=", "running");
    if (sessionId !== null) running = running.where("session_id", "=", sessionId);
    const rows = await running.execute();
    const ended: TraceRecord[] = [];
    for (const row of rows) {
      const endMs = Math.max(now, Number(row.start_ms));
      await trx
        .updateTable("trace_observations")
        .set({ end_ms: endMs, status: "aborted", level: "WARNING", status_message: message })
        .where("trace_id", "=", row.id)
        .where("status", "=", "running")
        .execute();
      await trx
        .updateTable("traces")
        .set({
          status: "aborted",
          level: "WARNING",
          status_message: message,
          end_ms: endMs,
          updated_ms: endMs,
          revision: Number(row.revision) + 1,
        })
        .where("id", "=", row.id)
        .execute();
      const stored = await trx.selectFrom("traces").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
      ended.push(traceRecordOf(stored));
    }
    return ended;
  });
}

/** Raises a trace's revision (its detail changed without a write of its own: a child run started or ended). */
export async function bumpRevision(db: Kysely<LeylineDatabase>, id: string): Promise<TraceRow | undefined> {
  await db
    .updateTable("traces")
    .set((eb) => ({ revision: eb("revision", "+", 1) }))
    .where("id", "=", id)
    .execute();
  return readTraceRow(db, id);
}

/** The score a rollout verdict on an entry is stored as (one per entry). */
export function feedbackScoreId(entryId: string): string {
  return `rollout-feedback:${entryId}`;
}

/**
 * Stores a person's verdict on a session entry as a score of the run that wrote the entry (a model call's entry,
 * or the run's user message), or removes it (`verdict` null). Answers the trace it changed, or undefined when no
 * captured run wrote that entry.
 */
export async function setFeedbackScore(
  db: Kysely<LeylineDatabase>,
  sessionId: string,
  entryId: string,
  verdict: { helpful: boolean; comment: string } | null,
  now: number,
): Promise<TraceRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const byObservation = await trx
      .selectFrom("trace_observations")
      .innerJoin("traces", "traces.id", "trace_observations.trace_id")
      .select("traces.id")
      .where("traces.session_id", "=", sessionId)
      .where("trace_observations.entry_id", "=", entryId)
      .executeTakeFirst();
    const byUser =
      byObservation ??
      (await trx
        .selectFrom("traces")
        .select("id")
        .where("session_id", "=", sessionId)
        .where("user_entry_id", "=", entryId)
        .executeTakeFirst());
    if (byUser === undefined) return undefined;
    const traceId = byUser.id;
    const id = feedbackScoreId(entryId);
    if (verdict === null) {
      const deleted = await trx.deleteFrom("trace_scores").where("trace_id", "=", traceId).where("id", "=", id).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return undefined;
    } else {
      const row = {
        trace_id: traceId,
        id,
        name: "rollout-feedback",
        value_number: verdict.helpful ? 1 : 0,
        value_text: null,
        comment: verdict.comment === "" ? null : verdict.comment,
        source: "ANNOTATION",
        timestamp_ms: now,
        data_type: "BOOLEAN" as const,
      };
      const { trace_id: _trace, id: _id, ...changes } = row;
      await trx
        .insertInto("trace_scores")
        .values(row)
        .onConflict((conflict) => conflict.columns(["trace_id", "id"]).doUpdateSet(changes))
        .execute();
    }
    await trx
      .updateTable("traces")
      .set((eb) => ({ revision: eb("revision", "+", 1) }))
      .where("id", "=", traceId)
      .execute();
    return trx.selectFrom("traces").selectAll().where("id", "=", traceId).executeTakeFirst();
  });
}

export const TRACING_ENABLED_KEY = "tracing.enabled";

/** The stored capture setting, or null when none was saved. */
export async function readTracingEnabled(db: Kysely<LeylineDatabase>): Promise<boolean | null> {
  const row = await db.selectFrom("trace_settings").select("value").where("key", "=", TRACING_ENABLED_KEY).executeTakeFirst();
  if (row === undefined) return null;
  return parseJson<unknown>(row.value, true) !== false;
}

export async function writeTracingEnabled(db: Kysely<LeylineDatabase>, enabled: boolean): Promise<void> {
  const value = JSON.stringify(enabled);
  await db
    .insertInto("trace_settings")
    .values({ key: TRACING_ENABLED_KEY, value })
    .onConflict((conflict) => conflict.column("key").doUpdateSet({ value }))
    .execute();
}
