/**
 * memory.sqlite's `memories` as repository functions, `db` first. Every read and write is scoped to what a
 * context sees (the visibility rule of domain/memories/memory-rules.ts, stated once more in SQL by `visibleTo`
 * and checked against it by memory-store.int.test.ts); a write names ids, and an id the context does not see
 * fails the whole request (`MemoryNotFound`) with nothing changed: each write is one transaction.
 */
import type { ExpressionBuilder, Kysely, Transaction } from "kysely";
import {
  compareMemories,
  editedMemory,
  memoryNotFoundMessage,
  missingIds,
  withStatus,
  type VisibilityContext,
} from "../../domain/memories/memory-rules.ts";
import type { Memory, MemoryStatus } from "../../domain/memories/memory-types.ts";
import type { MemoryDatabase, MemoryRow, MemoryTable } from "./memory.table.ts";

type Db = Kysely<MemoryDatabase> | Transaction<MemoryDatabase>;

/** Ids a write named that its context does not see (the routes answer the spec's status for missing memories). */
export class MemoryNotFound extends Error {
  constructor(readonly ids: readonly string[]) {
    super(memoryNotFoundMessage(ids));
    this.name = "MemoryNotFound";
  }
}

function tagsOf(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === "string") : [];
  } catch {
    return [];
  }
}

export function memoryOfRow(row: MemoryRow): Memory {
  return {
    id: row.id,
    scope: row.scope,
    projectId: row.project_id,
    projectRoot: row.project_root,
    projectName: row.project_name,
    sessionId: row.session_id,
    sessionFile: row.session_file,
    cwd: row.cwd,
    contentMd: row.content_md,
    reasonMd: row.reason_md,
    tags: tagsOf(row.tags),
    status: row.status,
    source: row.source,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    archivedAt: row.archived_at === null ? null : Number(row.archived_at),
    lastAccessedAt: row.last_accessed_at === null ? null : Number(row.last_accessed_at),
  };
}

export function rowOfMemory(memory: Memory): MemoryTable {
  return {
    id: memory.id,
    scope: memory.scope,
    project_id: memory.projectId,
    project_root: memory.projectRoot,
    project_name: memory.projectName,
    session_id: memory.sessionId,
    session_file: memory.sessionFile,
    cwd: memory.cwd,
    content_md: memory.contentMd,
    reason_md: memory.reasonMd,
    tags: JSON.stringify(memory.tags),
    status: memory.status,
    source: memory.source,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
    archived_at: memory.archivedAt,
    last_accessed_at: memory.lastAccessedAt,
  };
}

/** The SQL form of `isVisibleIn` (memory-rules.ts). */
function visibleTo(context: VisibilityContext) {
  return (eb: ExpressionBuilder<MemoryDatabase, "memories">) => {
    const branches = [eb("scope", "=", "global"), eb.and([eb("scope", "=", "project"), eb("project_id", "=", context.projectId)])];
    if (context.sessionAvailable) {
      const sameSession = [];
      if (context.sessionFile !== null) sameSession.push(eb("session_file", "=", context.sessionFile));
      if (context.sessionId !== null) sameSession.push(eb("session_id", "=", context.sessionId));
      if (sameSession.length > 0) branches.push(eb.and([eb("scope", "=", "session"), eb.or(sameSession)]));
    }
    return eb.or(branches);
  };
}

/** Every record the context sees, newest update first. */
export async function listVisibleMemories(db: Db, context: VisibilityContext): Promise<Memory[]> {
  const rows = await db.selectFrom("memories").selectAll().where(visibleTo(context)).execute();
  return rows.map(memoryOfRow).sort(compareMemories);
}

/** The visible records among `ids` (in the list's order). */
async function visibleAmong(db: Db, context: VisibilityContext, ids: readonly string[]): Promise<Memory[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("memories")
    .selectAll()
    .where("id", "in", [...ids])
    .where(visibleTo(context))
    .execute();
  return rows.map(memoryOfRow).sort(compareMemories);
}

/** The visible records named by `ids`, or MemoryNotFound naming the others. */
async function requireVisible(db: Db, context: VisibilityContext, ids: readonly string[]): Promise<Memory[]> {
  const found = await visibleAmong(db, context, ids);
  const missing = missingIds(ids, found);
  if (missing.length > 0) throw new MemoryNotFound(missing);
  return found;
}

/** Stores a new record (any source: the routes write user memories, tests and imports others). */
export async function insertMemory(db: Db, memory: Memory): Promise<Memory> {
  await db.insertInto("memories").values(rowOfMemory(memory)).execute();
  return memory;
}

/** PATCH: new content and (when given) tags of a visible record. */
export async function updateMemory(
  db: Kysely<MemoryDatabase>,
  context: VisibilityContext,
  id: string,
  change: { contentMd: string; tags?: readonly string[] | undefined },
  now: number,
): Promise<Memory> {
  return db.transaction().execute(async (trx) => {
    const [memory] = await requireVisible(trx, context, [id]);
    const edited = editedMemory(memory!, change, now);
    const row = rowOfMemory(edited);
    await trx
      .updateTable("memories")
      .set({ content_md: row.content_md, tags: row.tags, updated_at: row.updated_at })
      .where("id", "=", id)
      .execute();
    return edited;
  });
}

/** Archives or restores visible records; answers every visible record after the change. */
export async function setMemoriesStatus(
  db: Kysely<MemoryDatabase>,
  context: VisibilityContext,
  ids: readonly string[],
  status: MemoryStatus,
  now: number,
): Promise<Memory[]> {
  return db.transaction().execute(async (trx) => {
    for (const memory of await requireVisible(trx, context, ids)) {
      const changed = withStatus(memory, status, now);
      if (changed === memory) continue;
      await trx
        .updateTable("memories")
        .set({ status: changed.status, archived_at: changed.archivedAt })
        .where("id", "=", memory.id)
        .execute();
    }
    return listVisibleMemories(trx, context);
  });
}

/** Deletes visible records for good; answers every visible record after the deletion. */
export async function deleteMemories(db: Kysely<MemoryDatabase>, context: VisibilityContext, ids: readonly string[]): Promise<Memory[]> {
  return db.transaction().execute(async (trx) => {
    await requireVisible(trx, context, ids);
    await trx
      .deleteFrom("memories")
      .where("id", "in", [...ids])
      .execute();
    return listVisibleMemories(trx, context);
  });
}
