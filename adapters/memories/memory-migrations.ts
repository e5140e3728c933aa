/**
 * The migrations of memory.sqlite (a database of its own, beside leyline.sqlite), imported explicitly as in
 * adapters/sqlite/leyline-migrations.ts. Keys sort in run order.
 */
import type { Migration, MigrationProvider } from "kysely";
import * as m0001 from "../../migrations/memory/0001-memories.ts";

export const memoryMigrations: Readonly<Record<string, Migration>> = {
  "0001-memories": m0001,
};

export const memoryMigrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve({ ...memoryMigrations }),
};

/** Number of migrations: stored in `PRAGMA user_version` once they all ran (see memory-database.ts). */
export const MEMORY_SCHEMA_VERSION = Object.keys(memoryMigrations).length;
