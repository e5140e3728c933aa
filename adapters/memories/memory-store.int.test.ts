/**
 * memory.sqlite through its opener and repository functions, on real files in a temp folder: the SQL visibility
 * rule equals the pure one (memory-rules.ts `visibleMemories`) on random records, writes are all-or-nothing, an
 * unreadable file is moved aside, and a reopened file keeps its records.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { visibleMemories, type VisibilityContext } from "../../domain/memories/memory-rules.ts";
import { MEMORY_SCOPES, MEMORY_SOURCES, MEMORY_STATUSES, type Memory } from "../../domain/memories/memory-types.ts";
import { MEMORY_DATABASE_FILE, openMemoryDatabase, resolveMemoryDir, type MemoryDatabaseHandle } from "./memory-database.ts";
import { deleteMemories, insertMemory, listVisibleMemories, MemoryNotFound, setMemoriesStatus, updateMemory } from "./memory-store.ts";

const handles: MemoryDatabaseHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "leyline-memory-"));
}

async function open(dir: string): Promise<MemoryDatabaseHandle> {
  const handle = await openMemoryDatabase(dir);
  handles.push(handle);
  return handle;
}

function memory(overrides: Partial<Memory>): Memory {
  return {
    id: "m",
    scope: "global",
    projectId: null,
    projectRoot: null,
    projectName: null,
    sessionId: null,
    sessionFile: null,
    cwd: null,
    contentMd: "note",
    reasonMd: "",
    tags: [],
    status: "active",
    source: "user",
    createdAt: 1,
    updatedAt: 1,
    archivedAt: null,
    lastAccessedAt: null,
    ...overrides,
  };
}

const here: VisibilityContext = { projectId: "p1", sessionAvailable: true, sessionFile: "/s/1.jsonl", sessionId: "s1" };

describe("memory.sqlite", () => {
  it("resolves its folder from LEYLINE_MEMORY_DIR, else the data dir", () => {
    expect(resolveMemoryDir({}, "/data")).toBe("/data");
    expect(resolveMemoryDir({ LEYLINE_MEMORY_DIR: "  " }, "/data")).toBe("/data");
    expect(resolveMemoryDir({ LEYLINE_MEMORY_DIR: "/mem" }, "/data")).toBe("/mem");
    expect(resolveMemoryDir({ LEYLINE_MEMORY_DIR: "~/mem" }, "/data")).toBe(path.join(os.homedir(), "mem"));
  });

  it("lists exactly what the pure visibility rule shows, in its order", async () => {
    const { db } = await open(tempDir());
    const arb = fc.uniqueArray(
      fc.record({
        id: fc.uuid(),
        scope: fc.constantFrom(...MEMORY_SCOPES),
        project: fc.constantFrom("p1", "p2"),
        file: fc.constantFrom("/s/1.jsonl", "/s/2.jsonl", null),
        sessionId: fc.constantFrom("s1", "s2", null),
        status: fc.constantFrom(...MEMORY_STATUSES),
        source: fc.constantFrom(...MEMORY_SOURCES),
        createdAt: fc.integer({ min: 0, max: 9 }),
        updatedAt: fc.integer({ min: 0, max: 9 }),
        tags: fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
      }),
      { selector: (r) => r.id, maxLength: 25 },
    );
    const contexts: VisibilityContext[] = [
      here,
      { projectId: "p2", sessionAvailable: false, sessionFile: null, sessionId: null },
      { projectId: "p1", sessionAvailable: true, sessionFile: "/s/2.jsonl", sessionId: null },
    ];
    await fc.assert(
      fc.asyncProperty(arb, async (records) => {
        await db.deleteFrom("memories").execute();
        const memories = records.map((r) =>
          memory({
            id: r.id,
            scope: r.scope,
            projectId: r.scope === "global" ? null : r.project,
            sessionFile: r.scope === "session" ? (r.file ?? (r.sessionId === null ? "/s/x.jsonl" : null)) : null,
            sessionId: r.scope === "session" ? r.sessionId : null,
            status: r.status,
            source: r.source,
            createdAt: r.createdAt,
            updatedAt: r.updatedAt,
            tags: r.tags,
          }),
        );
        for (const m of memories) await insertMemory(db, m);
        for (const context of contexts) expect(await listVisibleMemories(db, context)).toEqual(visibleMemories(memories, context));
      }),
      { numRuns: 25 },
    );
  });

  it("refuses a write naming an invisible record and changes nothing", async () => {
    const { db } = await open(tempDir());
    await insertMemory(db, memory({ id: "a" }));
    await insertMemory(db, memory({ id: "b", scope: "project", projectId: "p2" }));
    await insertMemory(db, memory({ id: "c", scope: "session", projectId: "p1", sessionFile: "/s/1.jsonl", sessionId: "s1" }));
    const noSession: VisibilityContext = { ...here, sessionAvailable: false, sessionFile: null, sessionId: null };

    await expect(deleteMemories(db, here, ["a", "b"])).rejects.toEqual(new MemoryNotFound(["b"]));
    await expect(deleteMemories(db, noSession, ["a", "c"])).rejects.toThrow("Memory not found: c");
    await expect(setMemoriesStatus(db, here, ["a", "zz", "b"], "archived", 5)).rejects.toThrow("Memories not found: zz, b");
    await expect(updateMemory(db, here, "b", { contentMd: "x" }, 5)).rejects.toThrow("Memory not found: b");
    const all = await db.selectFrom("memories").select(["id", "status", "content_md"]).orderBy("id").execute();
    expect(all).toEqual([
      { id: "a", status: "active", content_md: "note" },
      { id: "b", status: "active", content_md: "note" },
      { id: "c", status: "active", content_md: "note" },
    ]);

    expect((await deleteMemories(db, here, ["a", "c"])).map((m) => m.id)).toEqual([]);
    expect(await db.selectFrom("memories").select("id").execute()).toEqual([{ id: "b" }]);
  });

  it("keeps its records across a reopen, and the CHECKs keep scopes, statuses and keys", async () => {
    const dir = tempDir();
    const first = await open(dir);
    await insertMemory(first.db, memory({ id: "kept", tags: ["x", "y"], source: "agent", reasonMd: "because" }));
    await expect(
      first.db
        .insertInto("memories")
        .values({ ...rowOf("bad1"), scope: "team" as never })
        .execute(),
    ).rejects.toThrow();
    await expect(
      first.db
        .insertInto("memories")
        .values({ ...rowOf("bad2"), scope: "project" })
        .execute(),
    ).rejects.toThrow();
    await expect(
      first.db
        .insertInto("memories")
        .values({ ...rowOf("bad3"), scope: "session", project_id: "p" })
        .execute(),
    ).rejects.toThrow();
    await first.close();
    handles.splice(handles.indexOf(first), 1);

    const second = await open(dir);
    expect(second.movedAside).toBeNull();
    expect(await listVisibleMemories(second.db, here)).toEqual([
      memory({ id: "kept", tags: ["x", "y"], source: "agent", reasonMd: "because" }),
    ]);
  });

  it("moves an unreadable file aside and starts a fresh one", async () => {
    const dir = tempDir();
    const file = path.join(dir, MEMORY_DATABASE_FILE);
    fs.writeFileSync(file, "this is not a database, just text that is long enough to be read as a header".repeat(20));
    const handle = await open(dir);
    expect(handle.movedAside).not.toBeNull();
    expect(fs.readFileSync(handle.movedAside!, "utf8")).toContain("this is not a database");
    expect(await listVisibleMemories(handle.db, here)).toEqual([]);
  });
});

function rowOf(id: string) {
  return {
    id,
    scope: "global" as const,
    project_id: null,
    project_root: null,
    project_name: null,
    session_id: null,
    session_file: null,
    cwd: null,
    content_md: "x",
    reason_md: "",
    tags: "[]",
    status: "active" as const,
    source: "user" as const,
    created_at: 1,
    updated_at: 1,
    archived_at: null,
    last_accessed_at: null,
  };
}
