/**
 * POST /api/pi/sessions/:id/reload keeps the providers Leyline registered: pi's reload resets pi-ai's api
 * registry, which used to drop the scripted faux provider (its models stayed listed, prompts then failed with
 * "No API provider registered"). Real worker processes, the faux script of LEYLINE_FAUX_RESPONSES.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageTexts, recordHost } from "../adapters/runtime-host/runtime-host-test-support.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { call, runtimeApp, runtimeApiDirs, type RuntimeApiDirs } from "./runtime-api.fixture.ts";

let dirs: RuntimeApiDirs;
let app: FastifyInstance;

beforeAll(async () => {
  dirs = runtimeApiDirs("leyline-rt-reload-");
  app = await runtimeApp(dirs, {
    forked: true,
    turns: [
      { match: "before reload", text: "answer before the reload" },
      { match: "after reload", text: "answer after the reload" },
    ],
  });
});
afterAll(async () => {
  await app.close();
  dirs.cleanup();
});

describe("reload with forked workers", () => {
  it("keeps the faux provider and the session's model; the next prompt gets its scripted reply", { timeout: 120_000 }, async () => {
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = (created.body["active"] as Active).id;
    const handle = app.leyline.host.get(id);
    if (!handle) throw new Error("no handle");
    const rec = recordHost(app.leyline.host);

    expect((await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "before reload" })).status).toBe(200);
    await rec.until(
      () => !handle.busy() && messageTexts(handle.sessionFile ?? "").includes("assistant:answer before the reload"),
      "first reply",
    );

    const reloaded = await call(app, "POST", `/api/pi/sessions/${id}/reload`);
    expect(reloaded.status, JSON.stringify(reloaded.body)).toBe(200);
    const active = reloaded.body["active"] as Active;
    expect(active.state.model).toMatchObject({ provider: "faux", id: "faux-1" });
    expect(active.state.availableModels.map((model) => `${model.provider}/${model.id}`)).toEqual(
      expect.arrayContaining(["faux/faux-1", "faux/faux-2"]),
    );

    expect((await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "after reload" })).status).toBe(200);
    await rec.until(() => !handle.busy() && messageTexts(handle.sessionFile ?? "").length >= 4, "second reply");
    expect(messageTexts(handle.sessionFile ?? "")).toEqual([
      "user:before reload",
      "assistant:answer before the reload",
      "user:after reload",
      "assistant:answer after the reload",
    ]);
    rec.stop();
  });
});
