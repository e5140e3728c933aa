import path from "node:path";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../session-files/session-lines.fixture.ts";
import { openLeylineDatabase, sqliteConnectionOf, type LeylineDatabaseHandle } from "../sqlite/database.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import { openSqliteFile, sqliteForKysely } from "../sqlite/sqlite-connection.ts";
import { loadStoredSummaries, writeCheckpoints, type CheckpointWrite } from "./checkpoint-store.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function openDb(): Promise<LeylineDatabaseHandle> {
  const handle = await openLeylineDatabase({ dataDir: path.join(tempDir("store"), "data") });
  closers.push(() => handle.close());
  return handle;
}

/** A second Kysely instance over the same file, not opened by `openLeylineDatabase` (the Kysely-only read). */
function plainKysely(file: string): Kysely<LeylineDatabase> {
  const db = new Kysely<LeylineDatabase>({ dialect: new SqliteDialect({ database: sqliteForKysely(openSqliteFile(file)) }) });
  closers.push(() => db.destroy());
  return db;
}

function write(file: string, key: string, summary: unknown): CheckpointWrite {
  return {
    path: file,
    stamp: { size: 10, mtimeMs: 1.5, ino: "7" },
    cursor: { offset: 10, fingerprint: "f" },
    projectionKey: key,
    summaryJson: summary === null ? null : JSON.stringify(summary),
    decoderJson: "{}",
    statesJson: "{}",
  };
}

describe("loadStoredSummaries", () => {
  const root = "/agent/sessions";
  const inside = [`${root}/--b--/2.jsonl`, `${root}/--a--/1.jsonl`, `${root}/--a--/deep/3.jsonl`, `${root}/notes.jsonl`];
  const outside = [`${root}-old/--a--/x.jsonl`, `${root}`, `/agent/sessionsX/y.jsonl`, `/agent/other/z.jsonl`];

  it("reads the summaries below the folder in path order, the same through the prepared statement and Kysely", async () => {
    const handle = await openDb();
    expect(sqliteConnectionOf(handle.db)).not.toBeNull();
    const summaryOf = (f: string): unknown => (f.endsWith("notes.jsonl") ? null : { path: f, title: "é → ok" });
    const stale = `${root}/--a--/stale.jsonl`;
    await writeCheckpoints(
      handle.db,
      "s",
      [...inside.map((f) => write(f, "k1", summaryOf(f))), ...outside.map((f) => write(f, "k0", { path: f })), write(stale, "k0", {})],
      [],
    );
    await writeCheckpoints(handle.db, "other", [write(`${root}/--a--/0.jsonl`, "k0", { path: "x" })], []);
    const expected = [...inside].sort().map((f) => {
      const summary = summaryOf(f);
      return { path: f, summaryJson: summary === null ? null : JSON.stringify(summary) };
    });
    // The row of another key below the folder makes the whole folder unusable.
    expect(await loadStoredSummaries(handle.db, "s", root, "k1")).toBeNull();
    await writeCheckpoints(handle.db, "s", [], [stale]);
    expect(await loadStoredSummaries(handle.db, "s", root, "k1")).toEqual(expected);
    expect(await loadStoredSummaries(plainKysely(handle.file), "s", root, "k1")).toEqual(expected);
    expect(await loadStoredSummaries(handle.db, "s", root, "k0")).toBeNull();
    expect(await loadStoredSummaries(plainKysely(handle.file), "s", root, "k0")).toBeNull();
    expect(await loadStoredSummaries(handle.db, "s", "/agent/empty", "k1")).toEqual([]);
  });
});
