/**
 * Pinned session ids per connection in leyline.sqlite (`pinned_sessions`), as repository functions, `db` first.
 * Order: the order they were pinned (`seq`). Pinning a pinned id changes nothing; a connection holds at most
 * PINS_PER_CONNECTION pins. Callers check ids (domain/native-app/native-records.ts); the connection must be builtin or
 * a saved one (404 otherwise), checked in the same transaction as the change, so a pin never outlives its connection.
 */
import type { Kysely, Transaction } from "kysely";
import { PINS_PER_CONNECTION, type PinnedSessions } from "../../domain/native-app/native-records.ts";
import { ServiceError } from "../../domain/service-error.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import { CONNECTION_NOT_FOUND, connectionExists } from "./connections-store.ts";

type Db = Kysely<LeylineDatabase> | Transaction<LeylineDatabase>;

async function requireConnection(db: Db, connectionId: string): Promise<void> {
  if (!(await connectionExists(db, connectionId))) throw new ServiceError("connection_not_found", CONNECTION_NOT_FOUND);
}

/** The pins of a known connection (404 for an unknown one). */
export async function readKnownPins(db: Kysely<LeylineDatabase>, connectionId: string): Promise<PinnedSessions> {
  return db.transaction().execute(async (trx) => {
    await requireConnection(trx, connectionId);
    return readPins(trx, connectionId);
  });
}

export async function readPins(db: Db, connectionId: string): Promise<PinnedSessions> {
  const rows = await db
    .selectFrom("pinned_sessions")
    .select("session_id")
    .where("connection_id", "=", connectionId)
    .orderBy("seq")
    .execute();
  return { connectionId, pinnedIds: rows.map((row) => row.session_id) };
}

export async function addPin(db: Kysely<LeylineDatabase>, connectionId: string, sessionId: string, now: number): Promise<PinnedSessions> {
  return db.transaction().execute(async (trx) => {
    await requireConnection(trx, connectionId);
    const existing = await trx
      .selectFrom("pinned_sessions")
      .select("session_id")
      .where("connection_id", "=", connectionId)
      .where("session_id", "=", sessionId)
      .executeTakeFirst();
    if (existing === undefined) {
      const stats = await trx
        .selectFrom("pinned_sessions")
        .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.max("seq").as("last")])
        .where("connection_id", "=", connectionId)
        .executeTakeFirstOrThrow();
      if (Number(stats.count) >= PINS_PER_CONNECTION) {
        throw new ServiceError("invalid_request", `A connection can have at most ${PINS_PER_CONNECTION} pinned sessions`);
      }
      const seq = stats.last === null ? 0 : Number(stats.last) + 1;
      await trx.insertInto("pinned_sessions").values({ connection_id: connectionId, session_id: sessionId, pinned_at: now, seq }).execute();
    }
    return readPins(trx, connectionId);
  });
}

export async function removePins(
  db: Kysely<LeylineDatabase>,
  connectionId: string,
  sessionIds: readonly string[],
): Promise<PinnedSessions> {
  return db.transaction().execute(async (trx) => {
    await requireConnection(trx, connectionId);
    if (sessionIds.length > 0) {
      await trx
        .deleteFrom("pinned_sessions")
        .where("connection_id", "=", connectionId)
        .where("session_id", "in", [...sessionIds])
        .execute();
    }
    return readPins(trx, connectionId);
  });
}
