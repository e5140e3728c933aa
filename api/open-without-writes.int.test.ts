/**
 * Opening a session in a runtime writes nothing unasked, with real forked workers, the real pi SDK and files in
 * a temp agent dir (the scripted faux model is the only stand-in):
 * - a CLI-like session without a thinking_level_change keeps its bytes and mtime when a runtime opens it; the
 *   held-back level is written only with the first prompt, where pi would have put it;
 * - pi's v1 fixture, acted on, is upgraded: byte-identical trash copy, the ids the page showed stay, a fork
 *   from a shown id works, and Active says so (`file-upgraded`, plus `model-fallback`: no anthropic key here);
 * - a session whose model pi does not know reports the fallback to the faux model;
 * - the faux model never becomes pi's global default in settings.json; a real model chosen by the person does;
 * - a session whose cwd is gone is read-only in its detail, and every route that would open it answers 409
 *   with that message without spawning a worker.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { FauxTurn } from "../adapters/runtime-protocol/faux-script.ts";
import { defaultSessionDir } from "../adapters/runtime-worker/worker-runtime.ts";
import { jsonlLines, recordHost } from "../adapters/runtime-host/runtime-host-test-support.ts";
import { leylineTrashDirOf } from "../adapters/session-files/agent-dir.ts";
import type { Active, RuntimeNotice } from "../domain/runtime/runtime-types.ts";
import type { SessionDetail } from "../domain/session-detail.ts";
import { PI_SESSION_FIXTURES_DIR } from "../test/support/fixtures.ts";
import { call, runtimeApiSuite } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-open-no-writes-");
beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

const SLOW = { timeout: 120_000 };

interface FileState {
  bytes: Buffer;
  mtimeMs: number;
}

function fileState(file: string): FileState {
  return { bytes: fs.readFileSync(file), mtimeMs: fs.statSync(file).mtimeMs };
}

function expectUnchanged(file: string, before: FileState): void {
  const after = fileState(file);
  expect(after.bytes.toString("utf8")).toBe(before.bytes.toString("utf8"));
  expect(after.mtimeMs).toBe(before.mtimeMs);
}

/** Writes a session file into pi's folder for `cwd` with an old mtime (a rewrite in the same ms still shows). */
function writeSession(cwd: string, name: string, text: string | Buffer): string {
  const dir = defaultSessionDir(suite.dirs.agentDir, cwd);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  fs.utimesSync(file, new Date("2024-01-01T00:00:00Z"), new Date("2024-01-01T00:00:00Z"));
  return file;
}

const usage = {
  input: 5,
  output: 3,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 8,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** A v3 session as pi's CLI leaves it after one exchange with `provider/model`, without a thinking level entry. */
function cliSessionText(id: string, cwd: string, provider: string, model: string): string {
  const lines = [
    { type: "session", version: 3, id, timestamp: "2025-05-01T10:00:00.000Z", cwd },
    { type: "model_change", id: "c0000001", parentId: null, timestamp: "2025-05-01T10:00:00.100Z", provider, modelId: model },
    {
      type: "message",
      id: "c0000002",
      parentId: "c0000001",
      timestamp: "2025-05-01T10:00:01.000Z",
      message: { role: "user", content: [{ type: "text", text: "first question" }], timestamp: 1746093601000 },
    },
    {
      type: "message",
      id: "c0000003",
      parentId: "c0000002",
      timestamp: "2025-05-01T10:00:02.000Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "first answer" }],
        api: "faux",
        provider,
        model,
        usage,
        stopReason: "stop",
        timestamp: 1746093602000,
      },
    },
  ];
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}

/** An app whose session index has checked the disk (a warm start serves the stored list before that). */
async function makeApp(turns: FauxTurn[]): Promise<FastifyInstance> {
  const app = await suite.makeApp({ forked: true, turns });
  await (
    await app.leyline.readSide.ready()
  ).index.verified;
  return app;
}

async function detailOf(app: FastifyInstance, id: string): Promise<SessionDetail> {
  const res = await call(app, "GET", `/api/pi/sessions/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as SessionDetail;
}

describe("opening a session writes nothing unasked (forked workers)", () => {
  it("a CLI-like session keeps its bytes and mtime when opened; the first prompt then records the thinking level", SLOW, async () => {
    const id = "0196a1b2-0000-7000-8000-00000000c1c1";
    const file = writeSession(suite.dirs.cwd, `2025-05-01T10-00-00-000Z_${id}.jsonl`, cliSessionText(id, suite.dirs.cwd, "faux", "faux-1"));
    const app = await makeApp([{ match: "second question", text: "second answer" }]);
    const before = fileState(file);
    const detail = await detailOf(app, id);
    expect(detail.session).toMatchObject({
      model: { provider: "faux", id: "faux-1" },
      thinkingLevel: null,
      fileVersion: 3,
      readOnly: null,
    });

    const opened = await call(app, "POST", "/api/pi/active-session", { id });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const active = opened.body["active"] as Active;
    expect(active.id).toBe(id);
    expect(active.state.notices).toBeUndefined();
    // Extensions bound and the first snapshots went out; a fresh snapshot from the worker changes nothing either.
    const handle = app.leyline.host.get(id);
    expect(handle?.workerPid).not.toBe(process.pid);
    await call(app, "GET", `/api/pi/sessions/${id}`);
    expectUnchanged(file, before);
    await app.leyline.host.close(id);
    expectUnchanged(file, before);

    // Acting on it: the held-back thinking level goes in first, on the branch the prompt continues.
    const host = recordHost(app.leyline.host);
    const prompt = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "second question" });
    expect(prompt.status, JSON.stringify(prompt.body)).toBe(200);
    await host.until(() => host.runtimeEvents(id).includes("agent_end"), "agent_end");
    host.stop();
    const lines = jsonlLines(file);
    expect(fs.readFileSync(file).subarray(0, before.bytes.length).equals(before.bytes)).toBe(true);
    const added = lines.slice(4);
    // pi 1.x stores its system prompt before the first prompt it sends for a session written by pi 0.x.
    expect(added.map((line) => line["type"])).toEqual(["thinking_level_change", "message", "message", "message"]);
    expect(added.map((line) => (line["message"] as { role?: string } | undefined)?.role)).toEqual([
      undefined,
      "system",
      "user",
      "assistant",
    ]);
    expect(added[0]).toMatchObject({ parentId: "c0000003", thinkingLevel: active.state.thinkingLevel });
    expect(added[1]).toMatchObject({ parentId: added[0]?.["id"], message: { role: "system" } });
  });

  it("upgrades pi's v1 fixture when acted on: trash copy, the shown ids, fork from a shown id, the notices", SLOW, async () => {
    // pi's fixture with its header's cwd pointed at a folder that exists here.
    const fixture = fs.readFileSync(path.join(PI_SESSION_FIXTURES_DIR, "v1-large-session.jsonl"), "utf8");
    const newline = fixture.indexOf("\n");
    const header = JSON.parse(fixture.slice(0, newline)) as Record<string, unknown>;
    const id = String(header["id"]);
    const original = Buffer.from(`${JSON.stringify({ ...header, cwd: suite.dirs.cwd })}${fixture.slice(newline)}`, "utf8");
    const file = writeSession(suite.dirs.cwd, `2025-11-20T23-33-50-805Z_${id}.jsonl`, original);
    const app = await makeApp([{ match: "after the upgrade", text: "upgraded answer" }]);

    const shown = await detailOf(app, id);
    expect(shown.session).toMatchObject({
      fileVersion: 1,
      model: { provider: "anthropic", id: "claude-sonnet-4-5" },
      thinkingLevel: "off",
      readOnly: null,
    });
    const shownIds = shown.entries.map((entry) => entry.id);
    const shownUser = shown.entries.filter((entry) => entry.type === "message" && entry.role === "user").at(-3);
    expect(shownUser).toBeDefined();

    const host = recordHost(app.leyline.host);
    const prompt = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "after the upgrade" });
    expect(prompt.status, JSON.stringify(prompt.body)).toBe(200);
    await host.until(() => host.runtimeEvents(id).includes("agent_end"), "agent_end");
    host.stop();

    const trash = leylineTrashDirOf(suite.dirs.agentDir);
    const copies = fs.readdirSync(trash).filter((name) => name.startsWith(`${path.basename(file, ".jsonl")}.v1-`));
    expect(copies).toHaveLength(1);
    const backupPath = path.join(trash, copies[0] ?? "");
    expect(fs.readFileSync(backupPath).equals(original)).toBe(true);
    expect(JSON.parse(fs.readFileSync(file, "utf8").split("\n", 1)[0] ?? "")).toMatchObject({ type: "session", version: 3, id });

    const after = await detailOf(app, id);
    expect(after.session.fileVersion).toBe(3);
    expect(after.entries.map((entry) => entry.id).slice(0, shownIds.length)).toEqual(shownIds);
    expect(JSON.stringify(after.entries.slice(shownIds.length))).toContain("upgraded answer");

    const notices = app.leyline.host.get(id)?.active().state.notices ?? [];
    const expected: RuntimeNotice[] = [
      {
        kind: "file-upgraded",
        message: `This session file was in pi's version-1 format. Leyline upgraded it to version 3 and kept the original at ${backupPath}.`,
        fromVersion: 1,
        backupPath,
      },
      {
        kind: "model-fallback",
        message: "This session used anthropic/claude-sonnet-4-5, which is not available here; pi continues with faux/faux-1.",
        requested: { provider: "anthropic", id: "claude-sonnet-4-5" },
        used: { provider: "faux", id: "faux-1" },
      },
    ];
    expect(notices).toEqual(expected);

    const fork = await call(app, "POST", `/api/pi/sessions/${id}/fork`, { entryId: shownUser?.id });
    expect(fork.status, JSON.stringify(fork.body)).toBe(200);
    expect((fork.body["active"] as Active).id).not.toBe(id);
  });

  it("reports the fallback when the session's model is unknown here, and writes nothing on open", SLOW, async () => {
    const id = "0196a1b2-0000-7000-8000-0000000000aa";
    const file = writeSession(
      suite.dirs.cwd,
      `2025-05-02T10-00-00-000Z_${id}.jsonl`,
      cliSessionText(id, suite.dirs.cwd, "nowhere", "unknown-model"),
    );
    const app = await makeApp([]);
    const before = fileState(file);
    const opened = await call(app, "POST", "/api/pi/active-session", { id });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const active = opened.body["active"] as Active;
    expect(active.state.model).toMatchObject({ provider: "faux", id: "faux-1" });
    expect(active.state.notices).toEqual([
      {
        kind: "model-fallback",
        message: "This session used nowhere/unknown-model, which is not available here; pi continues with faux/faux-1.",
        requested: { provider: "nowhere", id: "unknown-model" },
        used: { provider: "faux", id: "faux-1" },
      },
    ]);
    // Once the person picks a model, the notice has nothing left to say.
    const chosen = await call(app, "POST", `/api/pi/sessions/${id}/model`, { provider: "faux", id: "faux-2" });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect((chosen.body["active"] as Active).state.notices).toBeUndefined();
    await app.leyline.host.close(id);
    // The model change is the person's act; before it, nothing was written.
    expect(fs.readFileSync(file).subarray(0, before.bytes.length).equals(before.bytes)).toBe(true);
  });

  it("never saves the faux model as pi's global default; a real model the person picks is saved", SLOW, async () => {
    const settingsFile = path.join(suite.dirs.agentDir, "settings.json");
    const models = {
      providers: {
        local: {
          baseUrl: "http://127.0.0.1:9/v1",
          api: "openai-completions",
          apiKey: "local-key",
          models: [
            {
              id: "local-coder",
              name: "Local Coder",
              reasoning: false,
              input: ["text"],
              contextWindow: 8192,
              maxTokens: 1024,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            },
          ],
        },
      },
    };
    fs.writeFileSync(path.join(suite.dirs.agentDir, "models.json"), JSON.stringify(models));
    try {
      const app = await makeApp([]);
      const created = await call(app, "POST", "/api/pi/sessions", { cwd: suite.dirs.cwd });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const active = created.body["active"] as Active;
      expect(active.state.model).toMatchObject({ provider: "faux", id: "faux-1" });
      const faux = await call(app, "POST", `/api/pi/sessions/${active.id}/model`, { provider: "faux", id: "faux-2" });
      expect(faux.status, JSON.stringify(faux.body)).toBe(200);
      const afterFaux = JSON.parse(fs.readFileSync(settingsFile, "utf8")) as Record<string, unknown>;
      expect(afterFaux["defaultProvider"]).toBeUndefined();
      expect(afterFaux["defaultModel"]).toBeUndefined();

      const local = await call(app, "POST", `/api/pi/sessions/${active.id}/model`, { provider: "local", id: "local-coder" });
      expect(local.status, JSON.stringify(local.body)).toBe(200);
      expect(JSON.parse(fs.readFileSync(settingsFile, "utf8"))).toMatchObject({ defaultProvider: "local", defaultModel: "local-coder" });
    } finally {
      fs.rmSync(path.join(suite.dirs.agentDir, "models.json"), { force: true });
    }
  });

  it("a session whose cwd is gone is read-only: the detail says so, and opening it answers 409 without a worker", SLOW, async () => {
    // pi's fixture as is: its cwd (/Users/badlogic/...) does not exist here.
    const fixture = fs.readFileSync(path.join(PI_SESSION_FIXTURES_DIR, "v1-before-compaction.jsonl"));
    const header = JSON.parse(fixture.toString("utf8").split("\n", 1)[0] ?? "") as { id: string; cwd: string };
    expect(fs.existsSync(header.cwd)).toBe(false);
    const file = writeSession(header.cwd, `2025-12-09T00-53-29-825Z_${header.id}.jsonl`, fixture);
    const app = await makeApp([]);
    const before = fileState(file);
    const message = `This session's folder ${header.cwd} no longer exists, so it can be read but not run.`;

    const detail = await detailOf(app, header.id);
    expect(detail.session.readOnly).toEqual({ reason: "cwd-missing", message });
    expect(detail.session).toMatchObject({ fileVersion: 1, model: { provider: "anthropic", id: "claude-opus-4-5" }, thinkingLevel: "off" });

    const attempts = [
      await call(app, "POST", "/api/pi/active-session", { id: header.id }),
      await call(app, "POST", "/api/pi/active-session", { path: file }),
      await call(app, "POST", "/api/pi/active-session", { cwd: header.cwd }),
      await call(app, "POST", `/api/pi/sessions/${header.id}/prompt`, { text: "hello" }),
      await call(app, "POST", `/api/pi/sessions/${header.id}/fork`, { entryId: detail.entries[0]?.id }),
      await call(app, "PATCH", `/api/pi/sessions/${header.id}`, { name: "renamed" }),
    ];
    for (const attempt of attempts) expect(attempt).toEqual({ status: 409, body: { error: message } });
    expect(app.leyline.host.openRuntimes()).toEqual([]);
    expect((await call(app, "GET", "/api/health")).body).toMatchObject({ activeWorkers: 0 });
    expectUnchanged(file, before);
    expect(
      fs.existsSync(leylineTrashDirOf(suite.dirs.agentDir)) &&
        fs.readdirSync(leylineTrashDirOf(suite.dirs.agentDir)).some((name) => name.startsWith(path.basename(file, ".jsonl"))),
    ).toBe(false);
  });
});
