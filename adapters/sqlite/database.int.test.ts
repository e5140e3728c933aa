import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { tempDir } from "../session-files/session-lines.fixture.ts";
import { resolveDataDir } from "./data-dir.ts";
import { PAGE_SIZE, openLeylineDatabase, sqliteConnectionOf } from "./database.ts";
import { LEYLINE_SCHEMA_VERSION, leylineMigrations } from "./leyline-migrations.ts";
import { openSqliteFile, pragmaValue } from "./sqlite-connection.ts";

describe("resolveDataDir", () => {
  it("uses LEYLINE_DATA_DIR with ~ expanded, else ~/.local/share/leyline", () => {
    expect(resolveDataDir({ LEYLINE_DATA_DIR: "~/data" }, "/home/u")).toBe("/home/u/data");
    expect(resolveDataDir({ LEYLINE_DATA_DIR: "/srv/leyline" }, "/home/u")).toBe("/srv/leyline");
    expect(resolveDataDir({}, "/home/u")).toBe("/home/u/.local/share/leyline");
  });
});

describe("openLeylineDatabase", () => {
  it("creates leyline.sqlite in WAL mode with the migrations applied, and reopens it as it is", async () => {
    const dataDir = path.join(tempDir("db"), "nested", "data");
    const first = await openLeylineDatabase({ dataDir });
    expect(first.file).toBe(path.join(dataDir, "leyline.sqlite"));
    expect(first.movedAside).toBeNull();
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(first.db);
    expect(mode.rows[0]?.journal_mode).toBe("wal");
    const version = await sql<{ user_version: number }>`pragma user_version`.execute(first.db);
    expect(version.rows[0]?.user_version).toBe(LEYLINE_SCHEMA_VERSION);
    await first.db
      .insertInto("projection_checkpoints")
      .values({
        scope: "s",
        path: "/p",
        size: 1,
        mtime_ms: 2.5,
        ino: "3",
        offset: 1,
        fingerprint: "f",
        projection_key: "k",
        summary: null,
        decoder_state: "{}",
        states: "{}",
      })
      .execute();
    await first.close();

    const second = await openLeylineDatabase({ dataDir });
    const rows = await second.db.selectFrom("projection_checkpoints").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.mtime_ms).toBe(2.5);
    const migrations = await sql<{ name: string }>`select name from kysely_migration`.execute(second.db);
    expect(migrations.rows.map((r) => r.name)).toEqual(Object.keys(leylineMigrations));
    await second.close();
  });

  it("creates a new file with 16 KiB pages, and opens an older file with its own page size and rows", async () => {
    const fresh = await openLeylineDatabase({ dataDir: tempDir("db") });
    const freshConnection = sqliteConnectionOf(fresh.db);
    expect(freshConnection).not.toBeNull();
    expect(pragmaValue(freshConnection!, "page_size")).toBe(PAGE_SIZE);
    await fresh.close();

    const dataDir = tempDir("db");
    const older = openSqliteFile(path.join(dataDir, "leyline.sqlite"));
    older.exec("pragma page_size = 4096");
    older.exec("pragma journal_mode = WAL");
    older.exec("create table kept (value text)");
    older.prepare("insert into kept values (?)").run("row");
    older.close();
    const reopened = await openLeylineDatabase({ dataDir });
    const raw = sqliteConnectionOf(reopened.db);
    expect(raw).not.toBeNull();
    expect(pragmaValue(raw!, "page_size")).toBe(4096);
    expect(
      raw!
        .prepare("select value from kept")
        .all()
        .map((row) => row.value),
    ).toEqual(["row"]);
    expect(await reopened.db.selectFrom("projection_checkpoints").selectAll().execute()).toEqual([]);
    await reopened.close();
  });

  it("moves an unreadable file aside and starts with a fresh database", async () => {
    const dataDir = tempDir("db");
    const file = path.join(dataDir, "leyline.sqlite");
    fs.writeFileSync(file, Buffer.alloc(8192, 0x5a));
    const handle = await openLeylineDatabase({ dataDir });
    expect(handle.movedAside).not.toBeNull();
    expect(fs.readFileSync(handle.movedAside as string)).toEqual(Buffer.alloc(8192, 0x5a));
    const rows = await handle.db.selectFrom("projection_checkpoints").selectAll().execute();
    expect(rows).toEqual([]);
    await handle.close();
  });

  it("recovers from a database whose header is valid but whose pages are garbage", async () => {
    const dataDir = tempDir("db");
    const good = await openLeylineDatabase({ dataDir });
    await good.close();
    const file = path.join(dataDir, "leyline.sqlite");
    const bytes = fs.readFileSync(file);
    // Keep the 100-byte header, destroy the schema page.
    bytes.fill(0xff, 100, Math.min(bytes.length, 4096));
    fs.writeFileSync(file, bytes);
    for (const suffix of ["-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    const handle = await openLeylineDatabase({ dataDir });
    expect(handle.movedAside).not.toBeNull();
    expect(await handle.db.selectFrom("projection_checkpoints").selectAll().execute()).toEqual([]);
    await handle.close();
  });
});
