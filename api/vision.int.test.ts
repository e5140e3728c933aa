/**
 * The vision configuration routes over a real leyline.sqlite (spec "Vision agent routes"): GET config, PUT and
 * DELETE override per scope (global, project, session) with independent model and thinking inheritance, the
 * resolve route, the storage surviving a restart, the fork copy of the session scope (repository), and every
 * 400 of these routes and of POST /api/pi/vision's body. The vision run itself (real SDK, faux models) is in
 * vision-prompt.int.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import type { VisionConfig, VisionResolution } from "../domain/vision/vision-types.ts";
import { projectIdOf } from "../adapters/subagents/subagent-context.ts";
import { headerLine, userLine } from "../adapters/session-files/session-lines.fixture.ts";
import { copySessionVisionOverride, listVisionOverrides } from "../adapters/vision/vision-overrides.ts";
import { closeTestApps, testApp, testDirs, type TestDirs } from "./app.fixture.ts";

afterEach(closeTestApps);

interface Setup {
  readonly dirs: TestDirs;
  readonly project: string;
  readonly cwd: string;
  readonly otherProject: string;
  readonly sessionFile: string;
}

/** A git project with a sub-folder as cwd, another project, and a session file of the first. */
function setup(dirs: TestDirs = testDirs("vision")): Setup {
  const root = fs.realpathSync(dirs.root);
  const project = path.join(root, "work", "eyes-project");
  const cwd = path.join(project, "src");
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(path.join(project, ".git"));
  const otherProject = path.join(root, "work", "other");
  fs.mkdirSync(otherProject);
  const sessionFile = path.join(fs.realpathSync(dirs.projectSessions), "2025-01-02_session.jsonl");
  fs.writeFileSync(sessionFile, headerLine("session-v", cwd) + userLine("hello", null));
  return { dirs, project, cwd, otherProject, sessionFile };
}

async function config(app: FastifyInstance, cwd: string, sessionPath?: string): Promise<VisionConfig> {
  const query = new URLSearchParams({ cwd, ...(sessionPath !== undefined ? { sessionPath } : {}) });
  const res = await app.inject({ method: "GET", url: `/api/pi/vision/config?${query.toString()}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<VisionConfig>();
}

async function put(app: FastifyInstance, body: Record<string, unknown>) {
  return app.inject({ method: "PUT", url: "/api/pi/vision/override", payload: body });
}

async function putOk(app: FastifyInstance, body: Record<string, unknown>): Promise<VisionConfig> {
  const res = await put(app, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<VisionConfig>();
}

async function del(app: FastifyInstance, body: Record<string, unknown>) {
  return app.inject({ method: "DELETE", url: "/api/pi/vision/override", payload: body });
}

async function resolve(app: FastifyInstance, body: Record<string, unknown>): Promise<VisionResolution> {
  const res = await app.inject({ method: "POST", url: "/api/pi/vision/resolve", payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<VisionResolution>();
}

describe("GET /api/pi/vision/config", () => {
  it("answers the context and no overrides on a fresh database", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    expect(await config(app, s.cwd, s.sessionFile)).toEqual({
      context: {
        cwd: s.cwd,
        projectId: projectIdOf(s.project),
        projectName: "eyes-project",
        projectRoot: s.project,
        sessionAvailable: true,
        sessionFile: s.sessionFile,
        sessionId: "session-v",
      },
      overrides: {},
      model: "",
      modelSource: "none",
      thinking: "",
      thinkingSource: "none",
    });
    expect((await config(app, s.otherProject)).context).toMatchObject({ sessionAvailable: false, sessionFile: null, sessionId: null });
  });

  it("answers 400 without a cwd", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    const missing = await app.inject({ method: "GET", url: "/api/pi/vision/config" });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ error: "Missing query parameter: cwd" });
    expect((await app.inject({ method: "GET", url: "/api/pi/vision/config?cwd=%20" })).statusCode).toBe(400);
  });
});

describe("PUT and DELETE /api/pi/vision/override", () => {
  it("stores each scope, resolves model and thinking independently, and keeps projects and sessions apart", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    await putOk(app, { cwd: s.cwd, scope: "global", model: "g/vision", thinking: "low" });
    await putOk(app, { cwd: s.cwd, scope: "project", model: "p/vision" });
    const afterSession = await putOk(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", thinking: "inherit" });
    expect(afterSession.overrides).toEqual({
      global: { model: "g/vision", thinking: "low" },
      project: { model: "p/vision", thinking: "" },
      session: { model: "", thinking: "inherit" },
    });
    expect(afterSession).toMatchObject({ model: "p/vision", modelSource: "project", thinking: "inherit", thinkingSource: "session" });

    // Without the session: the session scope does not apply.
    expect(await config(app, s.cwd)).toMatchObject({
      overrides: { global: { model: "g/vision", thinking: "low" }, project: { model: "p/vision", thinking: "" } },
      model: "p/vision",
      modelSource: "project",
      thinking: "low",
      thinkingSource: "global",
    });
    // Another project sees only the global scope.
    expect(await config(app, s.otherProject)).toMatchObject({
      overrides: { global: { model: "g/vision", thinking: "low" } },
      model: "g/vision",
      modelSource: "global",
    });
  });

  it("replaces a scope's values: an omitted or empty field is cleared, both empty deletes the scope", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    await putOk(app, { cwd: s.cwd, scope: "project", model: " p/one ", thinking: "high" });
    expect((await putOk(app, { cwd: s.cwd, scope: "project", thinking: "max" })).overrides).toEqual({
      project: { model: "", thinking: "max" },
    });
    expect((await putOk(app, { cwd: s.cwd, scope: "project", model: "p/two", thinking: "" })).overrides).toEqual({
      project: { model: "p/two", thinking: "" },
    });
    const cleared = await putOk(app, { cwd: s.cwd, scope: "project", model: "", thinking: null });
    expect(cleared.overrides).toEqual({});
    expect(cleared).toMatchObject({ model: "", modelSource: "none" });
  });

  it("DELETE removes a scope (absent is no error) and answers the configuration", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    await putOk(app, { cwd: s.cwd, scope: "global", model: "g/vision" });
    await putOk(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", model: "s/vision", thinking: "off" });
    const res = await del(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session" });
    expect(res.statusCode).toBe(200);
    expect(res.json<VisionConfig>()).toMatchObject({
      overrides: { global: { model: "g/vision", thinking: "" } },
      model: "g/vision",
      modelSource: "global",
    });
    const again = await del(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session" });
    expect(again.statusCode).toBe(200);
  });

  it("answers 400 for bad bodies", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ scope: "global", model: "a/b" }, "cwd must be a non-empty string"],
      [{ cwd: 3, scope: "global" }, "cwd must be a string"],
      [{ cwd: " ", scope: "global" }, "cwd must be a non-empty string"],
      [{ cwd: s.cwd, scope: "everywhere" }, "scope must be global, project or session"],
      [{ cwd: s.cwd, scope: "global", model: 7 }, "model must be a string"],
      [
        { cwd: s.cwd, scope: "global", thinking: "huge" },
        "thinking must be one of inherit, off, minimal, low, medium, high, xhigh, max or empty",
      ],
      [{ cwd: s.cwd, scope: "session", model: "a/b" }, "sessionPath is required for the session scope"],
      [{ cwd: s.cwd, sessionPath: " ", scope: "session", model: "a/b" }, "sessionPath is required for the session scope"],
    ];
    for (const [body, error] of cases) {
      const res = await put(app, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json(), JSON.stringify(body)).toEqual({ error });
    }
    const badDelete = await del(app, { cwd: s.cwd, scope: "session" });
    expect(badDelete.statusCode).toBe(400);
    expect((await del(app, { cwd: s.cwd, scope: "nowhere" })).statusCode).toBe(400);
    expect(
      (await app.inject({ method: "PUT", url: "/api/pi/vision/override", payload: "[]", headers: { "content-type": "application/json" } }))
        .statusCode,
    ).toBe(400);
    // Nothing was stored by the refused requests.
    expect((await config(app, s.cwd, s.sessionFile)).overrides).toEqual({});
  });

  it("keeps the overrides in leyline.sqlite across a restart", async () => {
    const s = setup();
    const first = await testApp({}, s.dirs);
    await putOk(first.app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", model: "s/vision", thinking: "medium" });
    await first.app.close();
    const { app } = await testApp({}, s.dirs);
    expect(await config(app, s.cwd, s.sessionFile)).toMatchObject({
      model: "s/vision",
      modelSource: "session",
      thinking: "medium",
      thinkingSource: "session",
    });
  });
});

describe("POST /api/pi/vision/resolve", () => {
  it("uses session, project, global, then the static model; thinking has no static fallback; inherit stays", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    expect(await resolve(app, { cwd: s.cwd })).toEqual({ modelSource: "static", thinkingSource: "none" });
    expect(await resolve(app, { cwd: s.cwd, staticModel: "st/m" })).toEqual({
      model: "st/m",
      modelSource: "static",
      thinkingSource: "none",
    });
    await putOk(app, { cwd: s.cwd, scope: "global", model: "g/m", thinking: "inherit" });
    expect(await resolve(app, { cwd: s.cwd, staticModel: "st/m" })).toEqual({
      model: "g/m",
      modelSource: "global",
      thinking: "inherit",
      thinkingSource: "global",
    });
    await putOk(app, { cwd: s.cwd, scope: "project", thinking: "high" });
    await putOk(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", model: "s/m" });
    expect(await resolve(app, { cwd: s.cwd, sessionPath: s.sessionFile, staticModel: null })).toEqual({
      model: "s/m",
      modelSource: "session",
      thinking: "high",
      thinkingSource: "project",
    });
    expect(await resolve(app, { cwd: s.cwd })).toMatchObject({ model: "g/m", modelSource: "global", thinking: "high" });
  });

  it("answers 400 for bad bodies", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    for (const [body, error] of [
      [{}, "cwd must be a non-empty string"],
      [{ cwd: s.cwd, sessionPath: 1 }, "sessionPath must be a string"],
      [{ cwd: s.cwd, staticModel: [] }, "staticModel must be a string"],
    ] as const) {
      const res = await app.inject({ method: "POST", url: "/api/pi/vision/resolve", payload: body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({ error });
    }
  });
});

describe("POST /api/pi/vision (bodies)", () => {
  const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
  it("answers 400 for a bad body before any run", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ image }, /cwd must be a non-empty string/],
      [{ cwd: s.cwd }, /image/],
      [{ cwd: s.cwd, image: { ...image, mimeType: "image/bmp" } }, /image must be PNG, JPEG, GIF or WebP/],
      [{ cwd: s.cwd, image: { ...image, data: "" } }, /image/],
      [{ cwd: s.cwd, image: "picture" }, /image must be/],
      [{ cwd: s.cwd, image, model: "no-slash" }, /model must be "provider\/id"/],
      [{ cwd: s.cwd, image, model: 4 }, /model must be/],
      [{ cwd: s.cwd, image, thinking: "inherit" }, /thinking must be one of off/],
      [{ cwd: s.cwd, image, question: 5 }, /question must be a string/],
    ];
    for (const [body, error] of cases) {
      const res = await app.inject({ method: "POST", url: "/api/pi/vision", payload: body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json<{ error: string }>().error, JSON.stringify(body)).toMatch(error);
    }
  });
});

describe("fork copy of the session scope (repository)", () => {
  it("copies the session row to the fork's file, replacing the fork's, and copies nothing without one", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    const forkFile = path.join(path.dirname(s.sessionFile), "fork.jsonl");
    await putOk(app, { cwd: s.cwd, sessionPath: s.sessionFile, scope: "session", model: "s/m", thinking: "low" });
    await putOk(app, { cwd: s.cwd, sessionPath: forkFile, scope: "session", model: "old/m" });
    const db = (await app.leyline.readSide.database()).db;
    expect(await copySessionVisionOverride(db, s.sessionFile, forkFile)).toBe(1);
    expect((await listVisionOverrides(db, { projectId: "x", sessionFile: forkFile })).session).toEqual({ model: "s/m", thinking: "low" });
    expect(await copySessionVisionOverride(db, path.join(path.dirname(s.sessionFile), "none.jsonl"), forkFile)).toBe(0);
  });
});
