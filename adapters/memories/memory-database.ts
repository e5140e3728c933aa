/**
 * Opens memory.sqlite, the Memory Inspector's database, the way adapters/sqlite/database.ts opens leyline.sqlite:
 * Node's node:sqlite in WAL mode, a Kysely instance over it, its own migrations (memory-migrations.ts) run before
 * it is returned. A file SQLite cannot read (not a database, corrupt) is moved aside (kept for inspection, with
 * its -wal and -shm) and a fresh database is created.
 *
 * Its folder is LEYLINE_MEMORY_DIR, else Leyline's data dir (`resolveMemoryDir`). Only that folder is written.
 */
import fs from "node:fs";
import path from "node:path";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { expandHome } from "../sqlite/data-dir.ts";
import { isUnreadableDatabaseError, openSqliteFile, pragmaValue, sqliteForKysely } from "../sqlite/sqlite-connection.ts";
import { MEMORY_SCHEMA_VERSION, memoryMigrationProvider } from "./memory-migrations.ts";
import type { MemoryDatabase } from "./memory.table.ts";

export const MEMORY_DATABASE_FILE = "memory.sqlite";
export const MEMORY_DIR_ENV = "LEYLINE_MEMORY_DIR";

/** The folder of memory.sqlite: LEYLINE_MEMORY_DIR (from `env`; `~` expanded, made absolute), else `dataDir`. */
export function resolveMemoryDir(env: NodeJS.ProcessEnv, dataDir: string): string {
  const fromEnv = env[MEMORY_DIR_ENV]?.trim();
  return fromEnv ? path.resolve(expandHome(fromEnv)) : dataDir;
}

export interface MemoryDatabaseHandle {
  readonly db: Kysely<MemoryDatabase>;
  readonly file: string;
  /** Where an unreadable previous file was moved, or null when the file opened as it was. */
  readonly movedAside: string | null;
  close(): Promise<void>;
}

export async function openMemoryDatabase(memoryDir: string): Promise<MemoryDatabaseHandle> {
  fs.mkdirSync(memoryDir, { recursive: true });
  const file = path.join(memoryDir, MEMORY_DATABASE_FILE);
  let movedAside: string | null = null;
  let db: Kysely<MemoryDatabase>;
  try {
    db = await openAndMigrate(file);
  } catch (error) {
    if (!isUnreadableDatabaseError(error)) throw error;
    movedAside = moveAside(file);
    db = await openAndMigrate(file);
  }
  return { db, file, movedAside, close: () => db.destroy() };
}

async function openAndMigrate(file: string): Promise<Kysely<MemoryDatabase>> {
  const sqlite = openSqliteFile(file);
  let db: Kysely<MemoryDatabase> | null = null;
  try {
    sqlite.exec("pragma journal_mode = WAL");
    sqlite.exec("pragma synchronous = NORMAL");
    sqlite.exec("pragma busy_timeout = 5000");
    db = new Kysely<MemoryDatabase>({ dialect: new SqliteDialect({ database: sqliteForKysely(sqlite) }) });
    if (pragmaValue(sqlite, "user_version") !== MEMORY_SCHEMA_VERSION) {
      const { error } = await new Migrator({ db, provider: memoryMigrationProvider }).migrateToLatest();
      if (error !== undefined) throw error;
      sqlite.exec(`pragma user_version = ${MEMORY_SCHEMA_VERSION}`);
    }
    return db;
  } catch (error) {
    if (db !== null) await db.destroy().catch(() => undefined);
    else sqlite.close();
    throw error;
  }
}

function moveAside(file: string): string {
  const aside = `${file}.unreadable-${Date.now()}`;
  fs.renameSync(file, aside);
  for (const suffix of ["-wal", "-shm"]) {
    try {
      fs.renameSync(file + suffix, aside + suffix);
    } catch {
      // absent: nothing to move
    }
  }
  return aside;
}
