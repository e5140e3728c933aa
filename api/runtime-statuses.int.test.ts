/**
 * Statuses of runtime actions on sessions that went away, with a real RuntimeHost (in-process workers) and
 * real files: a session whose file was removed behind an open runtime answers 404 "Session not found" (no
 * path in the message) on prompt, fork (scoped and legacy) and rename, its runtime is closed, and pi never
 * recreates the file without its header.
 */
import fs from "node:fs";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { messageTexts, recordHost } from "../adapters/runtime-host/runtime-host-test-support.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { call, runtimeApiSuite } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-rt-statuses-");
const { dirs, makeApp } = suite;

beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

const NOT_FOUND = { error: "Session not found" };

/** A new session that answered one prompt; its file exists. */
async function answered(app: FastifyInstance, text: string): Promise<{ id: string; file: string; entryId: string }> {
  const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
  const { id } = created.body["active"] as Active;
  await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text });
  const handle = app.leyline.host.get(id);
  if (!handle) throw new Error("not open");
  const rec = recordHost(app.leyline.host);
  await rec.until(
    () =>
      !handle.busy() && handle.sessionFile !== null && fs.existsSync(handle.sessionFile) && messageTexts(handle.sessionFile).length === 2,
    "answered",
  );
  rec.stop();
  const file = handle.sessionFile ?? "";
  const last = fs.readFileSync(file, "utf8").trim().split("\n").at(-1) ?? "{}";
  return { id, file, entryId: String((JSON.parse(last) as { id?: string }).id) };
}

describe("a session whose file was removed behind its open runtime", () => {
  it("answers 404 Session not found on prompt, fork and rename, closes the runtime, and recreates no file", async () => {
    const app = await makeApp({ turns: ["one", "two", "three", "four"].map((word) => ({ match: word, text: `answer ${word}` })) });
    const sessions = {
      prompt: await answered(app, "one"),
      fork: await answered(app, "two"),
      rename: await answered(app, "three"),
      legacyFork: await answered(app, "four"),
    };
    for (const session of Object.values(sessions)) fs.rmSync(session.file);

    expect(await call(app, "POST", `/api/pi/sessions/${sessions.prompt.id}/prompt`, { text: "again" })).toEqual({
      status: 404,
      body: NOT_FOUND,
    });
    expect(await call(app, "POST", `/api/pi/sessions/${sessions.fork.id}/fork`, { entryId: sessions.fork.entryId })).toEqual({
      status: 404,
      body: NOT_FOUND,
    });
    expect(await call(app, "PATCH", `/api/pi/sessions/${sessions.rename.id}`, { name: "renamed" })).toEqual({
      status: 404,
      body: NOT_FOUND,
    });
    // the legacy twin acts on the selected runtime
    app.leyline.host.select(sessions.legacyFork.id);
    expect(await call(app, "POST", "/api/pi/fork", { entryId: sessions.legacyFork.entryId })).toEqual({ status: 404, body: NOT_FOUND });
    expect(await call(app, "POST", "/api/pi/prompt", { text: "again" })).toEqual({ status: 404, body: NOT_FOUND });

    for (const session of [sessions.prompt, sessions.fork, sessions.rename]) {
      expect(app.leyline.host.get(session.id), session.id).toBeUndefined();
      // and again once closed: still 404, no runtime, no file
      expect(await call(app, "POST", `/api/pi/sessions/${session.id}/prompt`, { text: "again" })).toEqual({ status: 404, body: NOT_FOUND });
    }
    for (const session of Object.values(sessions)) expect(fs.existsSync(session.file), session.file).toBe(false);
  });

  it("a new session whose file pi has not written yet is not a deleted one", async () => {
    const app = await makeApp({ turns: [{ match: "hello", text: "hi" }] });
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
    const { id } = created.body["active"] as Active;
    expect((await call(app, "PATCH", `/api/pi/sessions/${id}`, { name: "before any file" })).status).toBe(200);
    expect((await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status).toBe(200);
  });
});
