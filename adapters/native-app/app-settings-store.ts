/**
 * `app_settings` of leyline.sqlite (migrations/0004-native-app.ts) as repository functions, `db` first: the
 * native backend's key → text records (see native-app.table.ts for the keys). A missing row is "unset".
 */
import type { Kysely, Transaction } from "kysely";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";

type Db = Kysely<LeylineDatabase> | Transaction<LeylineDatabase>;

/** The stored values of `keys` (absent keys are missing from the record). */
export async function readAppSettings(db: Db, keys: readonly string[]): Promise<Record<string, string>> {
  if (keys.length === 0) return {};
  const rows = await db
    .selectFrom("app_settings")
    .select(["key", "value"])
    .where("key", "in", [...keys])
    .execute();
  const values: Record<string, string> = {};
  for (const row of rows) values[row.key] = row.value;
  return values;
}

/** The stored value of one key, or null when it is unset. */
export async function readAppSetting(db: Db, key: string): Promise<string | null> {
  return (await readAppSettings(db, [key]))[key] ?? null;
}

/**
 * Stores every pair of `values` in one transaction (all or none): a null value deletes the key. `now` is the
 * write time in milliseconds.
 */
export async function writeAppSettings(
  db: Kysely<LeylineDatabase>,
  values: Readonly<Record<string, string | null>>,
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === null) {
        await trx.deleteFrom("app_settings").where("key", "=", key).execute();
      } else {
        await trx
          .insertInto("app_settings")
          .values({ key, value, updated_at: now })
          .onConflict((oc) => oc.column("key").doUpdateSet({ value, updated_at: now }))
          .execute();
      }
    }
  });
}
