/**
 * Opens memory.sqlite, the Memory Inspector's database, with adapters/sqlite/database.ts `openSqliteDatabase` (as
 * leyline.sqlite is opened: WAL, Kysely, its own migrations (memory-migrations.ts) run first, an unreadable file
 * moved aside).
 *
 * Its folder is LEYLINE_MEMORY_DIR, else Leyline's data dir (`resolveMemoryDir`). Only that folder is written.
 */
import path from "node:path";
import type { Kysely } from "kysely";
import { openSqliteDatabase } from "../sqlite/database.ts";
import { expandHome } from "../sqlite/data-dir.ts";
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
  const file = path.join(memoryDir, MEMORY_DATABASE_FILE);
  const { db, movedAside } = await openSqliteDatabase<MemoryDatabase>({
    file,
    provider: memoryMigrationProvider,
    schemaVersion: MEMORY_SCHEMA_VERSION,
  });
  return { db, file, movedAside, close: () => db.destroy() };
}
