/**
 * Rollout feedback in leyline.sqlite (`rollout_feedback`), as repository functions, `db` first: set (insert or
 * replace the entry's verdict), clear (no row afterwards; clearing what is not there is fine) and read a
 * session's feedback by entry id (what the detail worker overlays on the session's entries). Callers check the
 * values (domain/contract/http-rollout-feedback.ts); nothing here checks the session or entry against its file.
 */
import type { Kysely } from "kysely";
import type { EntryFeedbackMap, RolloutFeedbackRecord } from "../../domain/rollout-feedback/rollout-feedback.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import type { RolloutFeedbackRow } from "./rollout-feedback.table.ts";

function recordOf(row: RolloutFeedbackRow): RolloutFeedbackRecord {
  return {
    cwd: row.cwd,
    sessionId: row.session_id,
    sessionPath: row.session_path,
    entryId: row.entry_id,
    label: row.label,
    feedbackText: row.feedback_text,
    updatedAt: Number(row.updated_at),
  };
}

/** Stores an entry's verdict (replacing an earlier one) and answers it as stored. */
export async function setRolloutFeedback(db: Kysely<LeylineDatabase>, record: RolloutFeedbackRecord): Promise<RolloutFeedbackRecord> {
  const row: RolloutFeedbackRow = {
    session_id: record.sessionId,
    entry_id: record.entryId,
    cwd: record.cwd,
    session_path: record.sessionPath,
    label: record.label,
    feedback_text: record.feedbackText,
    updated_at: record.updatedAt,
  };
  const { session_id: _session, entry_id: _entry, ...changes } = row;
  await db
    .insertInto("rollout_feedback")
    .values(row)
    .onConflict((conflict) => conflict.columns(["session_id", "entry_id"]).doUpdateSet(changes))
    .execute();
  return recordOf(row);
}

/** Removes an entry's verdict. */
export async function clearRolloutFeedback(db: Kysely<LeylineDatabase>, sessionId: string, entryId: string): Promise<void> {
  await db.deleteFrom("rollout_feedback").where("session_id", "=", sessionId).where("entry_id", "=", entryId).execute();
}

/** An entry's stored verdict, or null. */
export async function readRolloutFeedback(
  db: Kysely<LeylineDatabase>,
  sessionId: string,
  entryId: string,
): Promise<RolloutFeedbackRecord | null> {
  const row = await db
    .selectFrom("rollout_feedback")
    .selectAll()
    .where("session_id", "=", sessionId)
    .where("entry_id", "=", entryId)
    .executeTakeFirst();
  return row === undefined ? null : recordOf(row);
}

/** A session's feedback by entry id (empty when it has none). */
export async function sessionFeedback(db: Kysely<LeylineDatabase>, sessionId: string): Promise<EntryFeedbackMap> {
  const rows = await db
    .selectFrom("rollout_feedback")
    .select(["entry_id", "label", "feedback_text"])
    .where("session_id", "=", sessionId)
    .execute();
  // No prototype: an entry id such as "__proto__" is a key like any other.
  const feedback = Object.create(null) as EntryFeedbackMap;
  for (const row of rows) feedback[row.entry_id] = { label: row.label, text: row.feedback_text };
  return feedback;
}
