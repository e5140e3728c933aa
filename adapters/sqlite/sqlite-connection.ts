/**
 * SQLite through Node's own `node:sqlite` (Node ≥ 22.13): no native addon to build, so the same install works on
 * every Node that can run pi 1.x, whatever headers the machine has. `sqliteForKysely` adapts a connection to the
 * interface Kysely's SqliteDialect drives (the subset of better-sqlite3 it names); everything else in Leyline
 * goes through Kysely, but for a few hot reads and pragmas that use the connection directly.
 */
import { createRequire } from "node:module";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { SqliteDatabase, SqliteStatement } from "kysely";

export type SqliteConnection = DatabaseSync;

const require = createRequire(import.meta.url);

let databaseSync: typeof DatabaseSync | null = null;

/**
 * `node:sqlite`, loaded once. Node 22 marks the module experimental and prints a warning on its first load, into
 * every log and test run; that one warning is left out (any other warning, and this one for other modules, still
 * prints).
 */
function loadDatabaseSync(): typeof DatabaseSync {
  if (databaseSync !== null) return databaseSync;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/^SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    databaseSync = (require("node:sqlite") as typeof import("node:sqlite")).DatabaseSync;
  } finally {
    process.emitWarning = emitWarning;
  }
  return databaseSync;
}

/** Opens (creating when missing) the SQLite file at `file`. */
export function openSqliteFile(file: string): SqliteConnection {
  const DatabaseSyncClass = loadDatabaseSync();
  return new DatabaseSyncClass(file);
}

/** The value of `pragma name` (its first column), e.g. `pragmaValue(c, "page_size")`. */
export function pragmaValue(connection: SqliteConnection, name: string): unknown {
  const statement = connection.prepare(`pragma ${name}`);
  statement.setReturnArrays(true);
  const row = statement.get() as unknown[] | undefined;
  return row?.[0];
}

/** The connection as Kysely's SqliteDialect drives it (`new SqliteDialect({ database: sqliteForKysely(c) })`). */
export function sqliteForKysely(connection: SqliteConnection): SqliteDatabase {
  return {
    close: () => connection.close(),
    prepare: (sql: string): SqliteStatement => {
      const statement = connection.prepare(sql);
      const params = (parameters: ReadonlyArray<unknown>): SQLInputValue[] => parameters as SQLInputValue[];
      return {
        reader: statement.columns().length > 0,
        all: (parameters) => statement.all(...params(parameters)),
        run: (parameters) => statement.run(...params(parameters)),
        iterate: (parameters) => statement.iterate(...params(parameters)),
      };
    },
  };
}

/** SQLite's primary result codes for "not a database" and "database disk image is malformed". */
const SQLITE_NOTADB = 26;
const SQLITE_CORRUPT = 11;

/** SQLite's own verdict that the file is not a (sound) database; other errors (permissions, disk full) are not. */
export function isUnreadableDatabaseError(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("errcode" in error)) return false;
  const code = (error as { errcode: unknown }).errcode;
  if (typeof code !== "number") return false;
  const primary = code & 0xff;
  return primary === SQLITE_NOTADB || primary === SQLITE_CORRUPT;
}
