/**
 * Opens leyline.sqlite: Node's node:sqlite in WAL mode (adapters/sqlite/sqlite-connection.ts), a Kysely instance over it, migrations run before it is
 * returned. A file SQLite cannot read (not a database, corrupt) does not stop start-up: it is moved aside
 * (kept for inspection) and a fresh database is created.
 */
import fs from "node:fs";
import path from "node:path";
import { Kysely, Migrator, SqliteDialect, type MigrationProvider } from "kysely";
import { LEYLINE_DATABASE_FILE } from "./data-dir.ts";
import type { LeylineDatabase } from "./leyline-database.ts";
import { LEYLINE_SCHEMA_VERSION, leylineMigrationProvider } from "./leyline-migrations.ts";
import { isUnreadableDatabaseError, openSqliteFile, pragmaValue, sqliteForKysely, type SqliteConnection } from "./sqlite-connection.ts";

export { isUnreadableDatabaseError };

/** Page size of a newly created leyline.sqlite. */
export const PAGE_SIZE = 16384;

export interface OpenDatabaseOptions {
  /** Leyline's data dir (see `resolveDataDir`); created if missing. */
  readonly dataDir: string;
  /** Defaults to `leyline.sqlite`. */
  readonly fileName?: string;
}

export interface LeylineDatabaseHandle {
  readonly db: Kysely<LeylineDatabase>;
  readonly file: string;
  /** Where an unreadable previous file was moved, or null when the file opened as it was. */
  readonly movedAside: string | null;
  close(): Promise<void>;
}

export async function openLeylineDatabase(options: OpenDatabaseOptions): Promise<LeylineDatabaseHandle> {
  const file = path.join(options.dataDir, options.fileName ?? LEYLINE_DATABASE_FILE);
  const opened = await openSqliteDatabase<LeylineDatabase>({
    file,
    provider: leylineMigrationProvider,
    schemaVersion: LEYLINE_SCHEMA_VERSION,
    // 16 KiB pages for a new file (no effect on an existing one, which keeps its page size): a warm start reads
    // every stored session summary from one index, and reading it in a quarter as many pages takes about a
    // quarter less time (fewer reads and page-cache allocations); commits write 16 KiB pages to the WAL instead
    // of 4 KiB ones, a few per commit.
    pageSize: PAGE_SIZE,
  });
  connections.set(opened.db, opened.sqlite);
  return { db: opened.db, file, movedAside: opened.movedAside, close: () => opened.db.destroy() };
}

/** The SQLite connection under each Kysely instance opened here (see `sqliteConnectionOf`). */
const connections = new WeakMap<Kysely<LeylineDatabase>, SqliteConnection>();

/**
 * The SQLite connection under a Kysely instance that `openLeylineDatabase` opened, or null for any other
 * instance. For the rare hot read that wants a prepared statement returning rows as arrays (Kysely's driver
 * prepares the statement on every query and builds an object per row); everything else goes through Kysely.
 */
export function sqliteConnectionOf(db: Kysely<LeylineDatabase>): SqliteConnection | null {
  return connections.get(db) ?? null;
}

export interface OpenSqliteOptions {
  readonly file: string;
  /** The file's migrations, and how many there are (stored in `PRAGMA user_version` once they all ran). */
  readonly provider: MigrationProvider;
  readonly schemaVersion: number;
  /** Page size of a newly created file. Default: SQLite's. */
  readonly pageSize?: number;
}

export interface OpenedSqlite<DB> {
  readonly db: Kysely<DB>;
  readonly sqlite: SqliteConnection;
  /** Where an unreadable previous file was moved, or null when the file opened as it was. */
  readonly movedAside: string | null;
}

/**
 * One of Leyline's SQLite files (leyline.sqlite, memory.sqlite), the one way: its folder created, WAL mode,
 * a Kysely instance over it, its migrations run before it is returned; a file SQLite cannot read (not a
 * database, corrupt) is moved aside with its -wal and -shm (kept for inspection) and a fresh one is created.
 */
export async function openSqliteDatabase<DB>(options: OpenSqliteOptions): Promise<OpenedSqlite<DB>> {
  fs.mkdirSync(path.dirname(options.file), { recursive: true });
  try {
    return { ...(await openAndMigrate<DB>(options)), movedAside: null };
  } catch (error) {
    if (!isUnreadableDatabaseError(error)) throw error;
    const movedAside = moveAside(options.file);
    return { ...(await openAndMigrate<DB>(options)), movedAside };
  }
}

async function openAndMigrate<DB>(options: OpenSqliteOptions): Promise<{ db: Kysely<DB>; sqlite: SqliteConnection }> {
  const sqlite = openSqliteFile(options.file);
  let db: Kysely<DB> | null = null;
  try {
    if (options.pageSize !== undefined) sqlite.exec(`pragma page_size = ${options.pageSize}`);
    sqlite.exec("pragma journal_mode = WAL");
    sqlite.exec("pragma synchronous = NORMAL");
    sqlite.exec("pragma busy_timeout = 5000");
    // SQLite's lower() folds ASCII only: searches that promise case-insensitive text use this one (JavaScript's).
    sqlite.function("leyline_lower", { deterministic: true }, (value) => (typeof value === "string" ? value.toLowerCase() : value));
    db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqliteForKysely(sqlite) }) });
    // Fast path for the common restart: `user_version` records how many migrations ran, so an up-to-date file
    // skips the Migrator's bookkeeping queries (several milliseconds of a warm start). Any other value runs it.
    if (pragmaValue(sqlite, "user_version") !== options.schemaVersion) {
      const { error } = await new Migrator({ db, provider: options.provider }).migrateToLatest();
      if (error !== undefined) throw error;
      sqlite.exec(`pragma user_version = ${options.schemaVersion}`);
    }
    return { db, sqlite };
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
