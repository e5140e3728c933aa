/**
 * End to end with real worker processes: the app's default runtime host (forked tsx workers) with the faux
 * script named by LEYLINE_FAUX_RESPONSES; create a session over HTTP, prompt, watch WS /api/pi/events.
 * Also the bad-input suite of the runtime routes (malformed JSON, wrong types, unknown ids, wrong methods).
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance, InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { buildApp } from "./app.ts";
import { PROMPT_BODY_LIMIT_BYTES } from "./body-limits.ts";
import { call, EventCollector, listenForEvents, runtimeApiDirs, type RuntimeApiDirs } from "./runtime-api.fixture.ts";

let dirs: RuntimeApiDirs;
let app: FastifyInstance;
let events: EventCollector | null = null;

beforeAll(async () => {
  dirs = runtimeApiDirs("leyline-rt-forked-");
  const script = dirs.writeScript([{ match: "hello worker", text: "Hello from a worker process." }]);
  app = await buildApp({
    dataDir: dirs.dataDir,
    agentDir: dirs.agentDir,
    home: dirs.home,
    env: { LEYLINE_FAUX_RESPONSES: script, PI_OFFLINE: "1" },
    runtimeHostOptions: { idleMs: 0, watchdogMs: 0 },
  });
  await app.leyline.readSide.ready();
});
afterAll(async () => {
  await events?.close();
  await app.close();
  dirs.cleanup();
});

describe("runtime API with forked workers", () => {
  it("creates a session over HTTP, prompts, streams the reply over WS; close disposes the worker", { timeout: 120_000 }, async () => {
    events = EventCollector.connect(`${await listenForEvents(app)}?sessionId=`);
    await events.opened;
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = (created.body["active"] as Active).id;
    const handle = app.leyline.host.get(id);
    expect(handle?.workerPid).not.toBe(process.pid);
    expect((await call(app, "GET", "/api/health")).body).toMatchObject({ activeWorkers: 1 });

    // this socket focuses no session: compact snapshots and no deltas, but agent_end arrives
    await events.until(
      () => events?.messages.some((m) => m.type === "active_session" && (m.data as Active).id === id) ?? false,
      "active_session",
    );
    const prompt = await call(app, "POST", "/api/pi/prompt", { text: "hello worker" });
    expect(prompt.body).toMatchObject({ ok: true, queued: false });
    await events.until(() => events?.runtimeEvents(id).some((e) => e.type === "agent_end") ?? false, "agent_end");
    expect(events.runtimeEvents(id).some((e) => e.type === "stream_delta")).toBe(false);
    const focused = EventCollector.connect(`${wsUrl()}?sessionId=${id}`);
    await focused.until(() => focused.messages.length >= 3, "focused connect");
    expect(focused.messages.slice(0, 3).map((m) => m.type)).toEqual(["hello", "active_session", "runtime_roster"]);
    // the full snapshot carries the confirmation records; compact ones do not
    expect((focused.messages[1]?.data as Active).state.extensionUi.confirmations).toEqual([]);
    // and the focused session's detail follows, from the read side
    await focused.until(() => focused.messages.some((m) => m.type === "session_snapshot"), "session snapshot");
    await focused.close();

    const file = handle?.sessionFile ?? "";
    const detail = await call(app, "GET", `/api/pi/sessions/${id}`);
    expect(JSON.stringify(detail.body)).toContain("Hello from a worker process.");
    expect(fs.existsSync(file)).toBe(true);
    const pid = handle?.workerPid ?? 0;
    await app.leyline.host.close(id);
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

function wsUrl(): string {
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("not listening");
  return `ws://127.0.0.1:${address.port}/api/pi/events`;
}

describe("runtime routes: bad input", () => {
  async function expectError(request: InjectOptions, status: number): Promise<void> {
    const res = await app.inject(request);
    const label = `${String(request.method)} ${String(request.url)} ${String(request.payload ?? "")}`;
    expect(res.statusCode, `${label} → ${res.body}`).toBe(status);
    const body = res.json<Record<string, unknown>>();
    expect(Object.keys(body), label).toEqual(["error"]);
    expect(typeof body["error"], label).toBe("string");
    expect((await app.inject({ method: "GET", url: "/api/health" })).statusCode, `after ${label}`).toBe(200);
  }
  const json = { "content-type": "application/json" };

  it("answers every new route's bad input with its status and the envelope", { timeout: 60_000 }, async () => {
    const scopedActions = [
      "prompt",
      "queue",
      "bash",
      "compact",
      "edit-prompt",
      "interrupt",
      "reload",
      "model",
      "thinking",
      "ultrafast",
      "fork",
      "mode",
    ];
    const legacyActions = [
      "prompt",
      "bash",
      "compact",
      "edit-prompt",
      "interrupt",
      "reload",
      "model",
      "thinking",
      "fork",
      "reset-to-entry",
      "mode",
    ];
    // Close whatever an earlier test left open, so nothing is selected: legacy twins answer 500
    // "No active session"; unknown ids 404.
    for (const handle of app.leyline.host.handles()) await app.leyline.host.close(handle.sessionId);
    for (const action of legacyActions) await expectError({ method: "POST", url: `/api/pi/${action}`, payload: {} }, 500);
    for (const action of scopedActions) {
      await expectError({ method: "POST", url: `/api/pi/sessions/unknown-id/${action}`, payload: {} }, 404);
      await expectError({ method: "POST", url: `/api/pi/sessions/unknown-id/${action}`, headers: json, payload: "{nope" }, 400);
      await expectError({ method: "POST", url: `/api/pi/sessions/unknown-id/${action}`, headers: json, payload: "[1,2]" }, 400);
      await expectError({ method: "GET", url: `/api/pi/sessions/unknown-id/${action}` }, 404);
      await expectError({ method: "PUT", url: `/api/pi/sessions/unknown-id/${action}`, payload: {} }, 404);
    }
    await expectError({ method: "GET", url: "/api/pi/prompt" }, 404);
    await expectError({ method: "POST", url: "/api/pi/sessions/unknown-id/extension-confirmations/r1", payload: { confirmed: true } }, 404);
    await expectError({ method: "POST", url: "/api/pi/sessions", payload: {} }, 400);
    await expectError({ method: "POST", url: "/api/pi/sessions", payload: { cwd: 5 } }, 400);
    await expectError({ method: "POST", url: "/api/pi/sessions", payload: { cwd: dirs.cwd, kind: "other" } }, 400);
    await expectError({ method: "POST", url: "/api/pi/sessions", headers: json, payload: "{" }, 400);
    await expectError({ method: "PATCH", url: "/api/pi/sessions/unknown-id", payload: { name: "x" } }, 404);
    await expectError({ method: "PATCH", url: "/api/pi/sessions/unknown-id", headers: json, payload: "{" }, 400);
    await expectError({ method: "DELETE", url: "/api/pi/sessions/unknown-id" }, 404);
    await expectError({ method: "POST", url: "/api/pi/active-session", payload: {} }, 400);
    await expectError({ method: "POST", url: "/api/pi/active-session", payload: { id: 5 } }, 400);
    await expectError({ method: "POST", url: "/api/pi/active-session", payload: { id: "unknown-id" } }, 404);
    await expectError({ method: "POST", url: "/api/pi/active-session", payload: { path: path.join(dirs.root, "none.jsonl") } }, 404);
    await expectError({ method: "POST", url: "/api/pi/active-session", payload: { cwd: path.join(dirs.root, "empty") } }, 404);
    await expectError({ method: "GET", url: `/api/pi/state?cwd=${encodeURIComponent(path.join(dirs.root, "missing"))}` }, 400);
    // Routes without images keep the 1 MiB default; prompt routes allow PROMPT_BODY_LIMIT_BYTES (api/body-limits.ts).
    await expectError(
      { method: "POST", url: "/api/pi/sessions/unknown-id/bash", payload: "x".repeat(2 * 1024 * 1024), headers: json },
      413,
    );
    await expectError(
      { method: "POST", url: "/api/pi/sessions/unknown-id/prompt", payload: "x".repeat(PROMPT_BODY_LIMIT_BYTES + 1), headers: json },
      413,
    );
  });
});
