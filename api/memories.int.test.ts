/**
 * The Memory Inspector routes through the real app (testApp + inject) over a real memory.sqlite in a temp
 * LEYLINE_MEMORY_DIR, with real git projects and a real session file: every route, every status the spec lists
 * (400 for bad requests, 500 for missing memories, 405 for other methods), scopes and visibility, counts,
 * archive/restore, all-or-nothing bulk writes, a restart, an unreadable file moved aside, and that viewing and
 * editing memories writes nothing into pi's files. LEYLINE_CHECK_RESPONSES checks every answer against its schema.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { compareMemories } from "../domain/memories/memory-rules.ts";
import type { MemoriesView, Memory } from "../domain/memories/memory-types.ts";
import { openMemoryDatabase } from "../adapters/memories/memory-database.ts";
import { insertMemory } from "../adapters/memories/memory-store.ts";
import { headerLine, userLine } from "../adapters/session-files/session-lines.fixture.ts";
import { projectIdOf } from "../adapters/subagents/subagent-context.ts";
import { closeTestApps, testApp, testDirs, type TestDirs } from "./app.fixture.ts";

afterEach(closeTestApps);

interface Setup {
  readonly dirs: TestDirs;
  readonly memoryDir: string;
  /** A git project and a folder inside it. */
  readonly project: string;
  readonly cwd: string;
  /** Another git project. */
  readonly other: string;
  /** A session of `project` (header id "session-1") and another one ("session-2"). */
  readonly sessionFile: string;
  readonly otherSession: string;
}

function gitProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("git", ["init", "-q", dir]);
}

function setup(): Setup {
  const dirs = testDirs("memories");
  const root = fs.realpathSync(dirs.root);
  const project = path.join(root, "work", "app");
  const cwd = path.join(project, "src");
  gitProject(project);
  fs.mkdirSync(cwd);
  const other = path.join(root, "work", "other");
  gitProject(other);
  const sessions = fs.realpathSync(dirs.projectSessions);
  const sessionFile = path.join(sessions, "2026-01-02_one.jsonl");
  fs.writeFileSync(sessionFile, headerLine("session-1", cwd) + userLine("hello", null));
  const otherSession = path.join(sessions, "2026-01-03_two.jsonl");
  fs.writeFileSync(otherSession, headerLine("session-2", cwd) + userLine("hi", null));
  return { dirs, memoryDir: path.join(root, "memories"), project, cwd, other, sessionFile, otherSession };
}

async function start(s: Setup, env: NodeJS.ProcessEnv = { LEYLINE_MEMORY_DIR: s.memoryDir }): Promise<FastifyInstance> {
  return (await testApp({ env }, s.dirs)).app;
}

type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
async function send(app: FastifyInstance, method: Method, url: string, payload?: unknown) {
  const response = await app.inject({ method, url, ...(payload !== undefined ? { payload: payload as object } : {}) });
  return { status: response.statusCode, body: response.json() as unknown, headers: response.headers };
}

async function list(app: FastifyInstance, cwd: string, sessionPath?: string): Promise<MemoriesView> {
  const query = new URLSearchParams({ cwd, ...(sessionPath !== undefined ? { sessionPath } : {}) });
  const response = await send(app, "GET", `/api/pi/memories?${query.toString()}`);
  expect(response.status).toBe(200);
  return response.body as MemoriesView;
}

async function create(app: FastifyInstance, body: Record<string, unknown>): Promise<Memory> {
  const response = await send(app, "POST", "/api/pi/memories", body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body).toMatchObject({ ok: true });
  return (response.body as { memory: Memory }).memory;
}

const ids = (memories: readonly Memory[]) => memories.map((m) => m.id).sort();

describe("GET /api/pi/memories", () => {
  it("answers the context of a folder (its git project) and of a session, with no memories yet", async () => {
    const s = setup();
    const app = await start(s);
    const view = await list(app, s.cwd);
    expect(view.context).toEqual({
      cwd: s.cwd,
      projectId: projectIdOf(s.project),
      projectName: "app",
      projectRoot: s.project,
      sessionAvailable: false,
      sessionFile: null,
      sessionId: null,
    });
    expect(view.memories).toEqual([]);
    expect(view.counts).toEqual({
      active: 0,
      archived: 0,
      scopes: { global: { active: 0, archived: 0 }, project: { active: 0, archived: 0 }, session: { active: 0, archived: 0 } },
    });
    const withSession = await list(app, `${s.cwd}/`, s.sessionFile);
    expect(withSession.context).toMatchObject({ cwd: s.cwd, sessionAvailable: true, sessionFile: s.sessionFile, sessionId: "session-1" });
  });

  it("needs cwd (400)", async () => {
    const s = setup();
    const app = await start(s);
    expect(await send(app, "GET", "/api/pi/memories")).toMatchObject({ status: 400, body: { error: "Missing query parameter: cwd" } });
    expect(await send(app, "GET", "/api/pi/memories?cwd=%20")).toMatchObject({
      status: 400,
      body: { error: "Missing query parameter: cwd" },
    });
  });
});

describe("creating and seeing memories by scope", () => {
  it("creates user memories in each scope and shows each only where it is visible, with counts", async () => {
    const s = setup();
    const app = await start(s);
    const global = await create(app, {
      cwd: s.cwd,
      scope: "global",
      contentMd: "\n\nPrefer **pnpm**.\n\n",
      tags: [" #Tools", "tools", "Build Setup"],
    });
    expect(global).toMatchObject({
      scope: "global",
      projectId: null,
      projectRoot: null,
      projectName: null,
      sessionId: null,
      sessionFile: null,
      cwd: s.cwd,
      contentMd: "Prefer **pnpm**.",
      reasonMd: "",
      tags: ["tools", "build-setup"],
      status: "active",
      source: "user",
      archivedAt: null,
      lastAccessedAt: null,
    });
    expect(global.createdAt).toBe(global.updatedAt);
    expect(global.id).toMatch(/^[0-9a-f-]{36}$/);
    const project = await create(app, { cwd: s.cwd, scope: "project", contentMd: "Tests live next to the code." });
    expect(project).toMatchObject({
      projectId: projectIdOf(s.project),
      projectRoot: s.project,
      projectName: "app",
      sessionFile: null,
      tags: [],
    });
    const session = await create(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", contentMd: "We are renaming the API." });
    expect(session).toMatchObject({ projectId: projectIdOf(s.project), sessionFile: s.sessionFile, sessionId: "session-1" });
    const elsewhere = await create(app, { cwd: s.other, scope: "project", contentMd: "Other project's note." });

    // This project, no session: global + project.
    const plain = await list(app, s.cwd);
    expect(ids(plain.memories)).toEqual(ids([global, project]));
    // Newest update first (then newest creation, then id).
    expect(plain.memories).toEqual([...plain.memories].sort(compareMemories));
    expect(plain.counts).toEqual({
      active: 2,
      archived: 0,
      scopes: { global: { active: 1, archived: 0 }, project: { active: 1, archived: 0 }, session: { active: 0, archived: 0 } },
    });
    // The project root sees the same project memories as a folder inside it.
    expect(ids((await list(app, s.project)).memories)).toEqual(ids([global, project]));
    // With the session: its memory too; another session of the project does not see it.
    expect(ids((await list(app, s.cwd, s.sessionFile)).memories)).toEqual(ids([global, project, session]));
    expect((await list(app, s.cwd, s.sessionFile)).counts.scopes.session).toEqual({ active: 1, archived: 0 });
    expect(ids((await list(app, s.cwd, s.otherSession)).memories)).toEqual(ids([global, project]));
    // Another project: global + its own project memory, never this project's.
    expect(ids((await list(app, s.other)).memories)).toEqual(ids([global, elsewhere]));
  });

  it("refuses bad requests with 400 and the field's words", async () => {
    const s = setup();
    const app = await start(s);
    const cases: Array<[unknown, string]> = [
      [{ scope: "global", contentMd: "x" }, "cwd is required"],
      [{ cwd: 5, scope: "global", contentMd: "x" }, "cwd must be a string"],
      [{ cwd: "  ", scope: "global", contentMd: "x" }, "cwd must be a non-empty string"],
      [{ cwd: s.cwd, scope: "team", contentMd: "x" }, "scope must be global, project or session"],
      [{ cwd: s.cwd, contentMd: "x" }, "scope must be global, project or session"],
      [{ cwd: s.cwd, scope: "global" }, "contentMd is required"],
      [{ cwd: s.cwd, scope: "global", contentMd: 7 }, "contentMd must be a string"],
      [{ cwd: s.cwd, scope: "global", contentMd: " \n " }, "contentMd must not be empty"],
      [{ cwd: s.cwd, scope: "global", contentMd: "x".repeat(20_001) }, "contentMd must be at most 20000 characters"],
      [{ cwd: s.cwd, scope: "global", contentMd: "x", tags: "a,b" }, "tags must be an array of strings"],
      [{ cwd: s.cwd, scope: "global", contentMd: "x", tags: [1] }, "tags must be an array of strings"],
      [{ cwd: s.cwd, scope: "global", contentMd: "x", tags: ["y".repeat(49)] }, "every tag must be at most 48 characters"],
      [{ cwd: s.cwd, scope: "session", contentMd: "x" }, "sessionPath is required for the session scope"],
      [{ cwd: s.cwd, sessionPath: "  ", scope: "session", contentMd: "x" }, "sessionPath is required for the session scope"],
      [{ cwd: s.cwd, sessionPath: 3, scope: "global", contentMd: "x" }, "sessionPath must be a string"],
      [[1], "Request body must be a JSON object"],
    ];
    for (const [payload, error] of cases) {
      expect(await send(app, "POST", "/api/pi/memories", payload), JSON.stringify(payload).slice(0, 80)).toMatchObject({
        status: 400,
        body: { error },
      });
    }
    const malformed = await app.inject({
      method: "POST",
      url: "/api/pi/memories",
      payload: "{",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.statusCode).toBe(400);
    expect((await list(app, s.cwd)).memories).toEqual([]);
  });
});

describe("PATCH /api/pi/memories/:id", () => {
  it("changes content and tags only; absent tags stay", async () => {
    const s = setup();
    const dbFile = await seedAgentMemory(s);
    const app = await start(s);
    const mine = await create(app, { cwd: s.cwd, scope: "global", contentMd: "mine" });
    const listed = (await list(app, s.cwd)).memories;
    // Newest update first: the agent's older record comes last.
    expect(listed.map((m) => m.id)).toEqual([mine.id, "agent-1"]);
    const before = listed[1]!;
    expect(before).toMatchObject({ source: "agent", reasonMd: "The build failed on Node 20.", lastAccessedAt: 12 });
    const patched = await send(app, "PATCH", "/api/pi/memories/agent-1", { cwd: s.cwd, contentMd: "Use Node 22.", tags: ["Runtime"] });
    expect(patched.status).toBe(200);
    const memory = (patched.body as { ok: true; memory: Memory }).memory;
    expect(memory).toEqual({ ...before, contentMd: "Use Node 22.", tags: ["runtime"], updatedAt: memory.updatedAt });
    expect(memory.updatedAt).toBeGreaterThanOrEqual(before.updatedAt);
    // Scope, source, reason and status stay (an archived record stays archived).
    await send(app, "POST", "/api/pi/memories/status", { cwd: s.cwd, ids: ["agent-1"], status: "archived" });
    const again = await send(app, "PATCH", "/api/pi/memories/agent-1", { cwd: s.cwd, contentMd: "Use Node 24." });
    expect((again.body as { memory: Memory }).memory).toMatchObject({
      scope: "project",
      source: "agent",
      reasonMd: "The build failed on Node 20.",
      status: "archived",
      tags: ["runtime"],
      contentMd: "Use Node 24.",
    });
    expect(dbFile).toBe(path.join(s.memoryDir, "memory.sqlite"));
  });

  it("answers 500 for a missing or invisible memory and 400 for a bad body", async () => {
    const s = setup();
    const app = await start(s);
    const otherProject = await create(app, { cwd: s.other, scope: "project", contentMd: "theirs" });
    const session = await create(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", contentMd: "ours" });
    expect(await send(app, "PATCH", "/api/pi/memories/nope", { cwd: s.cwd, contentMd: "x" })).toMatchObject({
      status: 500,
      body: { error: "Memory not found: nope" },
    });
    expect(await send(app, "PATCH", `/api/pi/memories/${otherProject.id}`, { cwd: s.cwd, contentMd: "x" })).toMatchObject({
      status: 500,
      body: { error: `Memory not found: ${otherProject.id}` },
    });
    expect(await send(app, "PATCH", `/api/pi/memories/${session.id}`, { cwd: s.cwd, contentMd: "x" })).toMatchObject({ status: 500 });
    expect(
      await send(app, "PATCH", `/api/pi/memories/${session.id}`, { cwd: s.cwd, sessionPath: s.otherSession, contentMd: "x" }),
    ).toMatchObject({
      status: 500,
    });
    expect(await send(app, "PATCH", `/api/pi/memories/${session.id}`, { cwd: s.cwd, contentMd: "" })).toMatchObject({
      status: 400,
      body: { error: "contentMd must not be empty" },
    });
    expect(await send(app, "PATCH", `/api/pi/memories/${session.id}`, { contentMd: "x" })).toMatchObject({
      status: 400,
      body: { error: "cwd is required" },
    });
    // Nothing changed.
    expect((await list(app, s.other)).memories.find((m) => m.id === otherProject.id)?.contentMd).toBe("theirs");
    expect((await list(app, s.cwd, s.sessionFile)).memories.find((m) => m.id === session.id)?.contentMd).toBe("ours");
  });
});

describe("POST /api/pi/memories/status", () => {
  it("archives and restores visible records in one go and answers every visible record", async () => {
    const s = setup();
    const app = await start(s);
    const a = await create(app, { cwd: s.cwd, scope: "global", contentMd: "a" });
    const b = await create(app, { cwd: s.cwd, scope: "project", contentMd: "b" });
    const c = await create(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", contentMd: "c" });

    const archived = await send(app, "POST", "/api/pi/memories/status", {
      cwd: s.cwd,
      sessionPath: s.sessionFile,
      ids: [a.id, c.id, a.id],
      status: "archived",
    });
    expect(archived.status).toBe(200);
    const after = (archived.body as { ok: true; memories: Memory[] }).memories;
    expect(ids(after)).toEqual(ids([a, b, c]));
    const byId = new Map(after.map((m) => [m.id, m]));
    expect(byId.get(a.id)).toMatchObject({ status: "archived", updatedAt: a.updatedAt });
    expect(byId.get(a.id)!.archivedAt).toEqual(expect.any(Number));
    expect(byId.get(b.id)).toMatchObject({ status: "active", archivedAt: null });
    const view = await list(app, s.cwd, s.sessionFile);
    expect(view.counts).toEqual({
      active: 1,
      archived: 2,
      scopes: { global: { active: 0, archived: 1 }, project: { active: 1, archived: 0 }, session: { active: 0, archived: 1 } },
    });
    // Without the session, its record is neither listed nor counted.
    expect((await list(app, s.cwd)).counts).toMatchObject({ active: 1, archived: 1 });

    // Archiving again keeps the first stamp; restoring clears it.
    const stamp = byId.get(a.id)!.archivedAt;
    const twice = (await send(app, "POST", "/api/pi/memories/status", { cwd: s.cwd, ids: [a.id], status: "archived" })).body as {
      memories: Memory[];
    };
    expect(twice.memories.find((m) => m.id === a.id)?.archivedAt).toBe(stamp);
    const restored = (await send(app, "POST", "/api/pi/memories/status", { cwd: s.cwd, ids: [a.id], status: "active" })).body as {
      memories: Memory[];
    };
    expect(restored.memories.find((m) => m.id === a.id)).toMatchObject({ status: "active", archivedAt: null });
  });

  it("changes nothing when one id is missing (500) and refuses bad bodies (400)", async () => {
    const s = setup();
    const app = await start(s);
    const a = await create(app, { cwd: s.cwd, scope: "global", contentMd: "a" });
    const session = await create(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", contentMd: "s" });
    expect(await send(app, "POST", "/api/pi/memories/status", { cwd: s.cwd, ids: [a.id, "gone"], status: "archived" })).toMatchObject({
      status: 500,
      body: { error: "Memory not found: gone" },
    });
    expect(await send(app, "POST", "/api/pi/memories/status", { cwd: s.cwd, ids: [a.id, session.id], status: "archived" })).toMatchObject({
      status: 500,
      body: { error: `Memory not found: ${session.id}` },
    });
    expect((await list(app, s.cwd)).counts.archived).toBe(0);
    const bad: Array<[unknown, string]> = [
      [{ cwd: s.cwd, ids: [a.id], status: "deleted" }, "status must be active or archived"],
      [{ cwd: s.cwd, ids: [a.id] }, "status must be active or archived"],
      [{ cwd: s.cwd, status: "archived" }, "ids is required"],
      [{ cwd: s.cwd, ids: a.id, status: "archived" }, "ids must be an array of strings"],
      [{ cwd: s.cwd, ids: [], status: "archived" }, "ids must name at least one memory"],
      [{ cwd: s.cwd, ids: [""], status: "archived" }, "ids must be non-empty strings of at most 128 characters"],
      [
        { cwd: s.cwd, ids: Array.from({ length: 501 }, (_, i) => `m${i}`), status: "archived" },
        "ids can name at most 500 memories per request",
      ],
      [{ ids: [a.id], status: "archived" }, "cwd is required"],
    ];
    for (const [payload, error] of bad) {
      expect(await send(app, "POST", "/api/pi/memories/status", payload)).toMatchObject({ status: 400, body: { error } });
    }
  });
});

describe("deleting memories", () => {
  it("DELETE /api/pi/memories deletes every named visible record in one transaction", async () => {
    const s = setup();
    const app = await start(s);
    const a = await create(app, { cwd: s.cwd, scope: "global", contentMd: "a" });
    const b = await create(app, { cwd: s.cwd, scope: "project", contentMd: "b" });
    const c = await create(app, { cwd: s.cwd, scope: "project", contentMd: "c" });
    const theirs = await create(app, { cwd: s.other, scope: "project", contentMd: "theirs" });

    // One invisible id (another project's): nothing is deleted.
    expect(await send(app, "DELETE", "/api/pi/memories", { cwd: s.cwd, ids: [a.id, b.id, theirs.id] })).toMatchObject({
      status: 500,
      body: { error: `Memory not found: ${theirs.id}` },
    });
    expect(ids((await list(app, s.cwd)).memories)).toEqual(ids([a, b, c]));

    const deleted = await send(app, "DELETE", "/api/pi/memories", { cwd: s.cwd, ids: [a.id, b.id] });
    expect(deleted).toMatchObject({ status: 200, body: { ok: true } });
    expect(ids((deleted.body as { memories: Memory[] }).memories)).toEqual([c.id]);
    expect(ids((await list(app, s.other)).memories)).toEqual([theirs.id]);
    expect(await send(app, "DELETE", "/api/pi/memories", { cwd: s.cwd, ids: [] })).toMatchObject({
      status: 400,
      body: { error: "ids must name at least one memory" },
    });
    expect(await send(app, "DELETE", "/api/pi/memories", { cwd: s.cwd })).toMatchObject({
      status: 400,
      body: { error: "ids is required" },
    });
  });

  it("DELETE /api/pi/memories/:id deletes one visible record; a second time it is missing (500)", async () => {
    const s = setup();
    const app = await start(s);
    const a = await create(app, { cwd: s.cwd, scope: "global", contentMd: "a" });
    const session = await create(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", contentMd: "s" });
    expect(await send(app, "DELETE", `/api/pi/memories/${session.id}`, { cwd: s.cwd })).toMatchObject({
      status: 500,
      body: { error: `Memory not found: ${session.id}` },
    });
    const deleted = await send(app, "DELETE", `/api/pi/memories/${session.id}`, { cwd: s.cwd, sessionPath: s.sessionFile });
    expect(deleted).toMatchObject({ status: 200, body: { ok: true } });
    expect(ids((deleted.body as { memories: Memory[] }).memories)).toEqual([a.id]);
    expect(await send(app, "DELETE", `/api/pi/memories/${session.id}`, { cwd: s.cwd, sessionPath: s.sessionFile })).toMatchObject({
      status: 500,
      body: { error: `Memory not found: ${session.id}` },
    });
    const noBody = await app.inject({ method: "DELETE", url: `/api/pi/memories/${a.id}` });
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json()).toEqual({ error: "cwd is required" });
  });

  it("answers 405 for other methods on known paths", async () => {
    const s = setup();
    const app = await start(s);
    const put = await send(app, "PUT", "/api/pi/memories", { cwd: s.cwd });
    expect(put.status).toBe(405);
    expect(put.headers["allow"]).toContain("GET");
    expect((await send(app, "GET", "/api/pi/memories/some-id")).status).toBe(405);
    expect((await send(app, "GET", "/api/pi/memories/status")).status).toBe(405);
  });
});

describe("memory.sqlite", () => {
  it("lives in LEYLINE_MEMORY_DIR, survives a restart, and viewing or editing writes nothing into pi's files", async () => {
    const s = setup();
    const piFiles = snapshot(s.dirs.agentDir);
    const projectFiles = snapshot(path.dirname(s.project));
    const missingSession = path.join(s.dirs.projectSessions, "not-yet.jsonl");
    const first = await start(s);
    expect((await list(first, s.cwd, missingSession)).context).toMatchObject({
      sessionAvailable: true,
      sessionFile: missingSession,
      sessionId: null,
    });
    const kept = await create(first, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", contentMd: "kept", tags: ["a"] });
    await send(first, "POST", "/api/pi/memories/status", { cwd: s.cwd, sessionPath: s.sessionFile, ids: [kept.id], status: "archived" });
    expect(fs.existsSync(path.join(s.memoryDir, "memory.sqlite"))).toBe(true);
    expect(fs.existsSync(path.join(s.dirs.dataDir, "memory.sqlite"))).toBe(false);
    await closeTestApps();

    const second = await start(s);
    const view = await list(second, s.cwd, s.sessionFile);
    expect(view.memories).toEqual([{ ...kept, status: "archived", archivedAt: expect.any(Number) }]);
    expect(fs.existsSync(missingSession)).toBe(false);
    expect(snapshot(s.dirs.agentDir)).toEqual(piFiles);
    expect(snapshot(path.dirname(s.project))).toEqual(projectFiles);
  });

  it("defaults to Leyline's data dir without LEYLINE_MEMORY_DIR", async () => {
    const s = setup();
    const app = await start(s, {});
    await create(app, { cwd: s.cwd, scope: "global", contentMd: "x" });
    expect(fs.existsSync(path.join(s.dirs.dataDir, "memory.sqlite"))).toBe(true);
  });

  it("moves an unreadable memory.sqlite aside and starts empty", async () => {
    const s = setup();
    fs.mkdirSync(s.memoryDir, { recursive: true });
    fs.writeFileSync(path.join(s.memoryDir, "memory.sqlite"), "not a database ".repeat(100));
    const app = await start(s);
    expect((await list(app, s.cwd)).memories).toEqual([]);
    const aside = fs.readdirSync(s.memoryDir).filter((name) => name.startsWith("memory.sqlite.unreadable-"));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(s.memoryDir, aside[0]!), "utf8")).toContain("not a database");
    await create(app, { cwd: s.cwd, scope: "global", contentMd: "fresh" });
    expect((await list(app, s.cwd)).counts.active).toBe(1);
  });
});

/** An agent's project memory with a reason, written before the app starts. Answers the database file. */
async function seedAgentMemory(s: Setup): Promise<string> {
  const handle = await openMemoryDatabase(s.memoryDir);
  await insertMemory(handle.db, {
    id: "agent-1",
    scope: "project",
    projectId: projectIdOf(s.project),
    projectRoot: s.project,
    projectName: "app",
    sessionId: null,
    sessionFile: null,
    cwd: s.project,
    contentMd: "Use Node 20.",
    reasonMd: "The build failed on Node 20.",
    tags: ["node"],
    status: "active",
    source: "agent",
    createdAt: 10,
    updatedAt: 10,
    archivedAt: null,
    lastAccessedAt: 12,
  });
  await handle.close();
  return handle.file;
}

/** Every file under `dir` with its size and modification time. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const stat = fs.statSync(full);
        out[path.relative(dir, full)] = `${stat.size}:${stat.mtimeMs}`;
      }
    }
  };
  walk(dir);
  return out;
}
