/**
 * The connection registry in leyline.sqlite (`backend_connections`, and the default id in `app_settings` under
 * `connections.default`; no row = builtin) as repository functions, `db` first. Callers check the values
 * (domain/native-app/native-records.ts); here: ids, times, the default, and what goes with a deleted connection
 * (its pins; the default returns to builtin).
 */
import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import { BUILTIN_CONNECTION_ID, type BackendConnection, type BackendRegistry } from "../../domain/native-app/native-records.ts";
import { ServiceError } from "../../domain/service-error.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import type { BackendConnectionRow } from "./native-app.table.ts";

type Db = Kysely<LeylineDatabase> | Transaction<LeylineDatabase>;

export const DEFAULT_CONNECTION_KEY = "connections.default";
export const CONNECTION_NOT_FOUND = "Connection not found";

function connectionOf(row: BackendConnectionRow): BackendConnection {
  return { id: row.id, name: row.name, url: row.url, createdAt: row.created_at, updatedAt: row.updated_at };
}

export async function readRegistry(db: Db): Promise<BackendRegistry> {
  const rows = await db.selectFrom("backend_connections").selectAll().orderBy("created_at").orderBy("id").execute();
  const stored = await db.selectFrom("app_settings").select("value").where("key", "=", DEFAULT_CONNECTION_KEY).executeTakeFirst();
  const connections = rows.map(connectionOf);
  const defaultId = stored?.value ?? BUILTIN_CONNECTION_ID;
  return {
    connections,
    defaultConnectionId: connections.some((c) => c.id === defaultId) ? defaultId : BUILTIN_CONNECTION_ID,
  };
}

/** Whether `id` names a connection pins may belong to: builtin or a saved one. */
export async function connectionExists(db: Db, id: string): Promise<boolean> {
  if (id === BUILTIN_CONNECTION_ID) return true;
  const row = await db.selectFrom("backend_connections").select("id").where("id", "=", id).executeTakeFirst();
  return row !== undefined;
}

export async function createConnection(
  db: Kysely<LeylineDatabase>,
  input: { name: string; url: string },
  now: number,
): Promise<BackendRegistry> {
  await db
    .insertInto("backend_connections")
    .values({ id: randomUUID(), name: input.name, url: input.url, created_at: now, updated_at: now })
    .execute();
  return readRegistry(db);
}

function refuseBuiltin(id: string, what: string): void {
  if (id === BUILTIN_CONNECTION_ID) throw new ServiceError("invalid_request", `The native backend (builtin) cannot be ${what}`);
}

export async function updateConnection(
  db: Kysely<LeylineDatabase>,
  id: string,
  changes: { name?: string; url?: string },
  now: number,
): Promise<BackendRegistry> {
  refuseBuiltin(id, "changed");
  const result = await db
    .updateTable("backend_connections")
    .set({ ...changes, updated_at: now })
    .where("id", "=", id)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new ServiceError("connection_not_found", CONNECTION_NOT_FOUND);
  return readRegistry(db);
}

export async function deleteConnection(db: Kysely<LeylineDatabase>, id: string): Promise<BackendRegistry> {
  refuseBuiltin(id, "removed");
  return db.transaction().execute(async (trx) => {
    const result = await trx.deleteFrom("backend_connections").where("id", "=", id).executeTakeFirst();
    if (result.numDeletedRows === 0n) throw new ServiceError("connection_not_found", CONNECTION_NOT_FOUND);
    await trx.deleteFrom("pinned_sessions").where("connection_id", "=", id).execute();
    await trx.deleteFrom("app_settings").where("key", "=", DEFAULT_CONNECTION_KEY).where("value", "=", id).execute();
    return readRegistry(trx);
  });
}

export async function setDefaultConnection(db: Kysely<LeylineDatabase>, id: string, now: number): Promise<BackendRegistry> {
  return db.transaction().execute(async (trx) => {
    if (!(await connectionExists(trx, id))) throw new ServiceError("connection_not_found", CONNECTION_NOT_FOUND);
    if (id === BUILTIN_CONNECTION_ID) {
      await trx.deleteFrom("app_settings").where("key", "=", DEFAULT_CONNECTION_KEY).execute();
    } else {
      await trx
        .insertInto("app_settings")
        .values({ key: DEFAULT_CONNECTION_KEY, value: id, updated_at: now })
        .onConflict((oc) => oc.column("key").doUpdateSet({ value: id, updated_at: now }))
        .execute();
    }
    return readRegistry(trx);
  });
}
