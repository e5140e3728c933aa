/**
 * Pi Settings beside live conversations (real runtime host, in-process workers, faux model): saving provider
 * settings neither stops nor reloads an open session, and the sign-in route guard refuses to sign in while an
 * open session knows the provider's models differently from the saved configuration (spec "Provider
 * authentication, catalog, and connection tests").
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProviderInventory, SettingsOperation } from "../domain/contract/http-pi-settings.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import type { FastifyInstance } from "fastify";
import { handleOf, runtimeApiSuite } from "./runtime-api.fixture.ts";

async function call(app: FastifyInstance, method: "GET" | "POST" | "PUT", url: string, payload?: Record<string, unknown>) {
  return app.inject({ method, url, ...(payload !== undefined ? { payload } : {}) });
}

const suite = runtimeApiSuite("leyline-settings-rt-");
beforeAll(() => suite.setUp());
afterEach(() => suite.closeApps());
afterAll(() => suite.tearDown());

const ended = (op: SettingsOperation): boolean => ["completed", "error", "cancelled"].includes(op.state);

describe("settings and open sessions", () => {
  it("saves without touching an open session, and refuses a sign-in that open sessions would send to an old endpoint", async () => {
    const { dirs } = suite;
    fs.writeFileSync(
      path.join(dirs.agentDir, "models.json"),
      JSON.stringify({
        providers: {
          local: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "sk-local-abc", models: [{ id: "m1" }] },
        },
      }),
    );
    const app = await suite.makeApp({ turns: [] });
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json<{ active: Active }>().active.id;
    const handle = handleOf(app, id);
    expect(handle.modelRoutes()).toContainEqual({ provider: "local", id: "m1", api: "openai-completions" });
    const pidBefore = handle.workerPid;

    let inventory = (await call(app, "GET", "/api/pi/settings/providers")).json<ProviderInventory>();
    const saved = await call(app, "PUT", "/api/pi/settings/providers", {
      id: "local",
      revision: inventory.revision,
      values: { api: "anthropic-messages" },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    inventory = saved.json<ProviderInventory>();
    // The open session goes on as it was: same worker, same models, nothing reloaded.
    expect(handle.workerPid).toBe(pidBefore);
    expect(handle.status).not.toBe("closed");
    expect(handle.modelRoutes()).toContainEqual({ provider: "local", id: "m1", api: "openai-completions" });

    const methods = inventory.providers.find((p) => p.id === "local")?.authMethods.map((m) => m.id) ?? [];
    expect(methods).toContain("api_key");
    const started = await call(app, "POST", "/api/pi/settings/providers/action", {
      providerId: "local",
      action: "login",
      authType: "api_key",
    });
    expect(started.statusCode, started.body).toBe(200);
    let op = started.json<SettingsOperation>();
    for (let i = 0; i < 200 && !ended(op); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      op = (await call(app, "GET", `/api/pi/settings/operations/${op.id}`)).json<SettingsOperation>();
    }
    expect(op.state).toBe("error");
    expect(op.error).toMatch(/Reload all affected sessions/);
    expect(
      fs.existsSync(path.join(dirs.agentDir, "auth.json")) ? fs.readFileSync(path.join(dirs.agentDir, "auth.json"), "utf8") : "",
    ).not.toContain("local");
  });
});
