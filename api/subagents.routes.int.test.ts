import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { RESEARCHER_AGENT_KEY } from "../domain/subagent/researcher-agent.ts";
import type { SubagentResolution, SubagentsView } from "../domain/subagent/subagent-types.ts";
import { projectIdOf } from "../adapters/subagents/subagent-context.ts";
import { headerLine, userLine } from "../adapters/session-files/session-lines.fixture.ts";
import { closeTestApps, testApp, testDirs, type TestDirs } from "./app.fixture.ts";

afterEach(closeTestApps);

function agentFile(dir: string, file: string, frontmatter: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const target = path.join(dir, file);
  fs.writeFileSync(target, `---\n${frontmatter}\n---\n\nYou are ${file}.\n`);
  return target;
}

interface Setup {
  readonly dirs: TestDirs;
  readonly project: string;
  readonly cwd: string;
  readonly otherProject: string;
  readonly sessionFile: string;
  readonly helperKey: string;
  readonly xKey: string;
}

/** A user agent `helper`, a git project with `.pi/agents/x.md`, researcher files in both, and a session file. */
function setup(dirs: TestDirs = testDirs("subagents")): Setup {
  const root = fs.realpathSync(dirs.root);
  const project = path.join(root, "work", "my-project");
  const cwd = path.join(project, "src");
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(path.join(project, ".git"));
  const otherProject = path.join(root, "work", "other");
  fs.mkdirSync(otherProject);
  const helper = agentFile(
    path.join(fs.realpathSync(dirs.agentDir), "agents"),
    "helper.md",
    "name: helper\ndescription: Helps\ntools: read, grep\nmodel: def/helper\nthinking: low",
  );
  agentFile(
    path.join(dirs.agentDir, "agents"),
    "researcher.md",
    "name: researcher\ndescription: User replacement attempt\nmodel: fake/user",
  );
  const x = agentFile(path.join(project, ".pi", "agents"), "x.md", "name: x\ndescription: Project agent x");
  agentFile(
    path.join(project, ".pi", "agents"),
    "researcher.md",
    "name: researcher\ndescription: Project replacement attempt\nmodel: fake/project",
  );
  const sessionFile = path.join(fs.realpathSync(dirs.projectSessions), "2025-01-02_session.jsonl");
  fs.writeFileSync(sessionFile, headerLine("session-1", cwd) + userLine("hello", null));
  return { dirs, project, cwd, otherProject, sessionFile, helperKey: `user:${helper}#helper`, xKey: `project:${x}#x` };
}

function modelUrl(key: string): string {
  return `/api/pi/subagents/${encodeURIComponent(key)}/model`;
}

async function view(app: FastifyInstance, cwd: string, sessionPath?: string): Promise<SubagentsView> {
  const query = new URLSearchParams({ cwd, ...(sessionPath !== undefined ? { sessionPath } : {}) });
  const res = await app.inject({ method: "GET", url: `/api/pi/subagents?${query.toString()}` });
  expect(res.statusCode).toBe(200);
  return res.json<SubagentsView>();
}

async function put(app: FastifyInstance, key: string, body: Record<string, unknown>) {
  return app.inject({ method: "PUT", url: modelUrl(key), payload: body });
}

async function del(app: FastifyInstance, key: string, body: Record<string, unknown>) {
  return app.inject({ method: "DELETE", url: modelUrl(key), payload: body });
}

async function resolve(app: FastifyInstance, body: Record<string, unknown>): Promise<SubagentResolution> {
  const res = await app.inject({ method: "POST", url: "/api/pi/subagents/resolve", payload: body });
  expect(res.statusCode).toBe(200);
  return res.json<SubagentResolution>();
}

describe("GET /api/pi/subagents", () => {
  it("lists user and project agents with the context, and never a researcher file", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    const result = await view(app, s.cwd, s.sessionFile);
    expect(result.context).toEqual({
      cwd: s.cwd,
      projectId: projectIdOf(s.project),
      projectName: "my-project",
      projectRoot: s.project,
      sessionAvailable: true,
      sessionFile: s.sessionFile,
      sessionId: "session-1",
    });
    expect(result.agents).toEqual([
      {
        key: s.helperKey,
        name: "helper",
        description: "Helps",
        source: "user",
        path: s.helperKey.slice("user:".length, -"#helper".length),
        model: "def/helper",
        thinking: "low",
        tools: ["read", "grep"],
        overrides: {},
        effectiveModel: "def/helper",
        modelSource: "definition",
      },
      {
        key: s.xKey,
        name: "x",
        description: "Project agent x",
        source: "project",
        path: path.join(s.project, ".pi", "agents", "x.md"),
        model: "",
        thinking: "",
        tools: [],
        overrides: {},
        effectiveModel: "",
        modelSource: "definition",
      },
    ]);
    const outside = await view(app, s.otherProject);
    expect(outside.context).toMatchObject({ projectRoot: s.otherProject, sessionAvailable: false, sessionFile: null, sessionId: null });
    expect(outside.agents.map((a) => a.name)).toEqual(["helper"]);
  });

  it("answers 400 without a cwd and 405 for an unsupported method", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    const missing = await app.inject({ method: "GET", url: "/api/pi/subagents" });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ error: "Missing query parameter: cwd" });
    expect((await app.inject({ method: "GET", url: "/api/pi/subagents?cwd=%20" })).statusCode).toBe(400);
    const wrong = await app.inject({ method: "GET", url: modelUrl(s.helperKey) });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers["allow"]).toBe("DELETE, PUT");
    expect((await app.inject({ method: "GET", url: "/api/pi/subagents/resolve" })).statusCode).toBe(405);
  });
});

describe("PUT and DELETE /api/pi/subagents/:agentKey/model", () => {
  it("stores an override per scope, answers the updated view, and resolve follows session > project > global > static", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    const base = { cwd: s.cwd, sessionPath: s.sessionFile };
    const key = s.helperKey;
    const resolveHelper = () => resolve(app, { agentKey: key, ...base, staticModel: "static/m", staticThinking: "high" });

    expect(await resolveHelper()).toEqual({ model: "static/m", modelSource: "definition", thinking: "high", thinkingSource: "definition" });

    const global = await put(app, key, { ...base, scope: "global", model: "  g/model " });
    expect(global.statusCode).toBe(200);
    const afterGlobal = global.json<SubagentsView>().agents.find((a) => a.key === key);
    expect(afterGlobal).toMatchObject({ overrides: { global: "g/model" }, effectiveModel: "g/model", modelSource: "global" });
    expect(await resolveHelper()).toMatchObject({ model: "g/model", modelSource: "global", thinking: "high" });

    expect((await put(app, key, { ...base, scope: "project", model: "p/model" })).statusCode).toBe(200);
    expect(await resolveHelper()).toMatchObject({ model: "p/model", modelSource: "project" });

    const session = await put(app, key, { ...base, scope: "session", model: "s/model" });
    expect(session.json<SubagentsView>().agents[0]).toMatchObject({
      overrides: { global: "g/model", project: "p/model", session: "s/model" },
      effectiveModel: "s/model",
      modelSource: "session",
    });
    expect(await resolveHelper()).toEqual({ model: "s/model", modelSource: "session", thinking: "high", thinkingSource: "definition" });

    // Scopes stay where they belong: another project sees only the global override, no session → no session one.
    expect((await view(app, s.otherProject)).agents[0]).toMatchObject({ overrides: { global: "g/model" }, modelSource: "global" });
    expect((await view(app, s.cwd)).agents[0]).toMatchObject({
      overrides: { global: "g/model", project: "p/model" },
      modelSource: "project",
    });

    // Deleting peels the layers off again; deleting what is not there is fine.
    expect((await del(app, key, { ...base, scope: "session" })).json<SubagentsView>().agents[0]?.modelSource).toBe("project");
    expect(await resolveHelper()).toMatchObject({ model: "p/model", modelSource: "project" });
    expect((await del(app, key, { ...base, scope: "session" })).statusCode).toBe(200);
    await del(app, key, { ...base, scope: "project" });
    await del(app, key, { ...base, scope: "global" });
    const cleared = await view(app, s.cwd, s.sessionFile);
    expect(cleared.agents[0]).toMatchObject({ overrides: {}, effectiveModel: "def/helper", modelSource: "definition" });
    // Without a static model, resolve falls back to the definition's model and thinking.
    expect(await resolve(app, { agentKey: key, ...base })).toEqual({
      model: "def/helper",
      modelSource: "definition",
      thinking: "low",
      thinkingSource: "definition",
    });
  });

  it("overrides project agents too, and accepts agent keys longer than the router's default limit", async () => {
    const dirs = testDirs("subagents");
    const s = setup(dirs);
    const deep = path.join(s.project, "a-rather-long-folder-name", "and-another-long-folder-name", "and-one-more-folder-name");
    const deepAgent = agentFile(path.join(deep, ".pi", "agents"), "deep-agent-with-a-long-name.md", "name: deep\ndescription: Deep");
    const deepKey = `project:${deepAgent}#deep`;
    expect(deepKey.length).toBeGreaterThan(100);
    const { app } = await testApp({}, dirs);
    const res = await put(app, deepKey, { cwd: deep, scope: "project", model: "p/deep" });
    expect(res.statusCode).toBe(200);
    expect(res.json<SubagentsView>().agents.find((a) => a.key === deepKey)).toMatchObject({
      effectiveModel: "p/deep",
      modelSource: "project",
    });
    expect((await put(app, s.xKey, { cwd: s.cwd, scope: "project", model: "p/x" })).json<SubagentsView>().agents[1]).toMatchObject({
      name: "x",
      overrides: { project: "p/x" },
    });
  });

  it("rejects bad input with the spec's statuses and the error envelope", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    const key = s.helperKey;
    const cases: [Awaited<ReturnType<typeof put>>, number, string][] = [
      [await put(app, key, { cwd: s.cwd, scope: "global", model: "" }), 400, "model must be a non-empty string"],
      [await put(app, key, { cwd: s.cwd, scope: "global", model: "   " }), 400, "model must be a non-empty string"],
      [await put(app, key, { cwd: s.cwd, scope: "global" }), 400, "model must be a non-empty string"],
      [await put(app, key, { cwd: s.cwd, scope: "global", model: 5 }), 400, "model must be a string"],
      [await put(app, key, { cwd: s.cwd, scope: "team", model: "m" }), 400, "scope must be global, project or session"],
      [await put(app, key, { cwd: s.cwd, model: "m" }), 400, "scope must be global, project or session"],
      [await put(app, key, { cwd: s.cwd, scope: "session", model: "m" }), 400, "sessionPath is required for the session scope"],
      [await del(app, key, { cwd: s.cwd, scope: "session", sessionPath: " " }), 400, "sessionPath is required for the session scope"],
      [await put(app, key, { scope: "global", model: "m" }), 400, "cwd must be a non-empty string"],
      [await put(app, "user:/nowhere/agent.md#agent", { cwd: s.cwd, scope: "global", model: "m" }), 404, "Subagent not found"],
      [await del(app, "user:/nowhere/agent.md#agent", { cwd: s.cwd, scope: "global" }), 404, "Subagent not found"],
      // The researcher is built in: it takes no overrides, and files named researcher have no key to override.
      [await put(app, RESEARCHER_AGENT_KEY, { cwd: s.cwd, scope: "global", model: "m" }), 404, "Subagent not found"],
      [
        await put(app, `user:${path.join(fs.realpathSync(s.dirs.agentDir), "agents", "researcher.md")}#researcher`, {
          cwd: s.cwd,
          scope: "global",
          model: "m",
        }),
        404,
        "Subagent not found",
      ],
      // A project agent is unknown from a cwd outside its project.
      [await put(app, s.xKey, { cwd: s.otherProject, scope: "global", model: "m" }), 404, "Subagent not found"],
    ];
    for (const [res, status, error] of cases) {
      expect({ status: res.statusCode, body: res.json() as unknown }).toEqual({ status, body: { error } });
    }
    const notObject = await app.inject({ method: "PUT", url: modelUrl(key), payload: [1] });
    expect(notObject.statusCode).toBe(400);
    expect((await view(app, s.cwd)).agents[0]?.overrides).toEqual({});
  });
});

describe("POST /api/pi/subagents/resolve", () => {
  it("resolves the built-in researcher from the caller's static values only, and rejects bad requests", async () => {
    const s = setup();
    const { app } = await testApp({}, s.dirs);
    expect(await resolve(app, { agentKey: RESEARCHER_AGENT_KEY, cwd: s.cwd, staticModel: "parent/m", staticThinking: "xhigh" })).toEqual({
      model: "parent/m",
      modelSource: "definition",
      thinking: "xhigh",
      thinkingSource: "definition",
    });
    expect(await resolve(app, { agentKey: RESEARCHER_AGENT_KEY, cwd: s.cwd })).toEqual({
      modelSource: "definition",
      thinkingSource: "definition",
    });

    const post = (payload: Record<string, unknown>) => app.inject({ method: "POST", url: "/api/pi/subagents/resolve", payload });
    const missingKey = await post({ cwd: s.cwd });
    expect([missingKey.statusCode, missingKey.json()]).toEqual([400, { error: "agentKey must be a non-empty string" }]);
    const missingCwd = await post({ agentKey: s.helperKey });
    expect([missingCwd.statusCode, missingCwd.json()]).toEqual([400, { error: "cwd must be a non-empty string" }]);
    const badStatic = await post({ agentKey: s.helperKey, cwd: s.cwd, staticModel: 3 });
    expect([badStatic.statusCode, badStatic.json()]).toEqual([400, { error: "staticModel must be a string" }]);
    const unknown = await post({ agentKey: "user:/nowhere.md#nowhere", cwd: s.cwd });
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: "Subagent not found" }]);
  });
});

describe("persistence", () => {
  it("keeps overrides across an app restart on the same data dir", async () => {
    const s = setup();
    const first = await testApp({}, s.dirs);
    const base = { cwd: s.cwd, sessionPath: s.sessionFile };
    expect((await put(first.app, s.helperKey, { ...base, scope: "global", model: "g/m" })).statusCode).toBe(200);
    expect((await put(first.app, s.helperKey, { ...base, scope: "session", model: "s/m" })).statusCode).toBe(200);
    expect((await put(first.app, s.xKey, { ...base, scope: "project", model: "p/x" })).statusCode).toBe(200);
    await first.app.close();

    const second = await testApp({}, s.dirs);
    const restored = await view(second.app, s.cwd, s.sessionFile);
    expect(restored.agents.map((a) => [a.name, a.overrides, a.effectiveModel])).toEqual([
      ["helper", { global: "g/m", session: "s/m" }, "s/m"],
      ["x", { project: "p/x" }, "p/x"],
    ]);
    expect(await resolve(second.app, { agentKey: s.helperKey, ...base })).toMatchObject({ model: "s/m", modelSource: "session" });
  });
});
