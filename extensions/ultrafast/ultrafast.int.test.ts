/**
 * The bundled Ultrafast extension through POST /api/pi/sessions/:id/ultrafast with a real runtime host
 * (in-process workers, and one forked): the faux model is ineligible (status "off" after open, enabling → 500, disabling ok);
 * an eligible `openai/gpt-6-astra` served by a local OpenAI-Responses stub (node:http on 127.0.0.1) gets
 * `service_tier: "priority"` in its request body only while the mode is on, and a model change or a reload resets it.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { recordHost } from "../../adapters/runtime-host/runtime-host-test-support.ts";
import { call, runtimeApiDirs, runtimeApp, type RuntimeApiDirs } from "../../api/runtime-api.fixture.ts";
import type { Active } from "../../domain/runtime/runtime-types.ts";
import { ULTRAFAST_STATUS_KEY, ULTRAFAST_UNAVAILABLE_MESSAGE } from "../../domain/runtime/ultrafast.ts";

let dirs: RuntimeApiDirs;
let previousAgentDir: string | undefined;
let server: http.Server;
const requestBodies: Array<Record<string, unknown>> = [];
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  dirs = runtimeApiDirs("leyline-ultrafast-");
  previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
  process.env["PI_CODING_AGENT_DIR"] = dirs.agentDir;
  // Records every request body and answers 400 (no SDK retry), which ends the run with an error message.
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requestBodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "stub: no completions here", type: "invalid_request_error" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fs.writeFileSync(
    path.join(dirs.agentDir, "models.json"),
    JSON.stringify({
      providers: {
        openai: {
          baseUrl: `http://127.0.0.1:${port}/v1`,
          api: "openai-responses",
          apiKey: "sk-leyline-ultrafast-test",
          models: [
            { id: "gpt-6-astra", name: "GPT-6 Astra (stub)", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096 },
          ],
        },
      },
    }),
  );
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
  else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
  dirs.cleanup();
});

async function makeApp(forked = false): Promise<FastifyInstance> {
  const app = await runtimeApp(dirs, { turns: [], forked });
  apps.push(app);
  return app;
}

async function create(app: FastifyInstance): Promise<Active> {
  const res = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body["active"] as Active;
}

function statusOf(active: unknown): string | undefined {
  return (active as Active).state.extensionUi.statuses[ULTRAFAST_STATUS_KEY];
}

/** Prompts and resolves once the stub saw the request and the runtime is idle again; returns the body. */
async function promptThroughStub(app: FastifyInstance, id: string, text: string): Promise<Record<string, unknown>> {
  const seen = requestBodies.length;
  const handle = app.leyline.host.get(id);
  if (!handle) throw new Error(`no runtime ${id}`);
  const rec = recordHost(app.leyline.host);
  try {
    const res = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await rec.until(() => requestBodies.length > seen && !handle.busy(), `${text}: request seen and runtime idle`);
  } finally {
    rec.stop();
  }
  const body = requestBodies[seen];
  if (!body) throw new Error("no request body");
  return body;
}

describe("Ultrafast (bundled extension, in-process workers)", () => {
  it("is loaded in every runtime; the faux model is ineligible: off after open, enabling 500, disabling ok", async () => {
    const app = await makeApp();
    const active = await create(app);
    expect(active.state.model?.provider).toBe("faux");
    expect(active.state.model?.supportsUltrafast).toBe(false);
    expect(active.state.slashCommands).toContainEqual(expect.objectContaining({ name: "ultrafast", source: "extension" }));
    expect(statusOf(active)).toBe("off");

    const enable = await call(app, "POST", `/api/pi/sessions/${active.id}/ultrafast`, { enabled: true });
    expect(enable).toEqual({ status: 500, body: { error: ULTRAFAST_UNAVAILABLE_MESSAGE } });
    const disable = await call(app, "POST", `/api/pi/sessions/${active.id}/ultrafast`, { enabled: false });
    expect(disable.status, JSON.stringify(disable.body)).toBe(200);
    expect(disable.body["ok"]).toBe(true);
    expect(statusOf(disable.body["active"])).toBe("off");

    // An invalid body is the client's error (issue 9: 400, where the spec says 500).
    expect((await call(app, "POST", `/api/pi/sessions/${active.id}/ultrafast`, { enabled: "on" })).status).toBe(400);
    expect((await call(app, "POST", `/api/pi/sessions/${active.id}/ultrafast`, {})).status).toBe(400);
    expect((await call(app, "POST", "/api/pi/sessions/no-such-session/ultrafast", { enabled: false })).status).toBe(404);
  });

  it("sends service_tier priority to an eligible model only while on; a model change or a reload turns it off", async () => {
    const app = await makeApp();
    const { id } = await create(app);
    const selected = await call(app, "POST", `/api/pi/sessions/${id}/model`, { provider: "openai", id: "gpt-6-astra" });
    expect(selected.status, JSON.stringify(selected.body)).toBe(200);
    const model = (selected.body["active"] as Active).state.model;
    expect(model).toMatchObject({ provider: "openai", id: "gpt-6-astra", supportsUltrafast: true });
    expect(statusOf(selected.body["active"])).toBe("off");

    const plain = await promptThroughStub(app, id, "first while off");
    expect(plain["model"]).toBe("gpt-6-astra");
    expect(plain).not.toHaveProperty("service_tier");

    const on = await call(app, "POST", `/api/pi/sessions/${id}/ultrafast`, { enabled: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(statusOf(on.body["active"])).toBe("on");
    expect((await promptThroughStub(app, id, "second while on"))["service_tier"]).toBe("priority");

    const off = await call(app, "POST", `/api/pi/sessions/${id}/ultrafast`, { enabled: false });
    expect(statusOf(off.body["active"])).toBe("off");
    expect(await promptThroughStub(app, id, "third while off")).not.toHaveProperty("service_tier");

    // on again, then a model change (away and back) resets the mode to off
    expect(statusOf((await call(app, "POST", `/api/pi/sessions/${id}/ultrafast`, { enabled: true })).body["active"])).toBe("on");
    const away = await call(app, "POST", `/api/pi/sessions/${id}/model`, { provider: "faux", id: "faux-1" });
    expect(away.status, JSON.stringify(away.body)).toBe(200);
    expect(statusOf(away.body["active"])).toBe("off");

    // a reload (fresh session_start) starts off as well
    expect((await call(app, "POST", `/api/pi/sessions/${id}/model`, { provider: "openai", id: "gpt-6-astra" })).status).toBe(200);
    expect(statusOf((await call(app, "POST", `/api/pi/sessions/${id}/ultrafast`, { enabled: true })).body["active"])).toBe("on");
    const reloaded = await call(app, "POST", `/api/pi/sessions/${id}/reload`, {});
    expect(reloaded.status, JSON.stringify(reloaded.body)).toBe(200);
    expect(statusOf(reloaded.body["active"])).toBe("off");
    expect(await promptThroughStub(app, id, "fourth after reload")).not.toHaveProperty("service_tier");
  });

  it("is loaded in a forked worker too", async () => {
    const app = await makeApp(true);
    const active = await create(app);
    expect(active.state.slashCommands).toContainEqual(expect.objectContaining({ name: "ultrafast", source: "extension" }));
    expect(statusOf(active)).toBe("off");
    const disable = await call(app, "POST", `/api/pi/sessions/${active.id}/ultrafast`, { enabled: false });
    expect(disable.status, JSON.stringify(disable.body)).toBe(200);
    expect(statusOf(disable.body["active"])).toBe("off");
  });
});
