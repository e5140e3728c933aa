/**
 * Pi Settings routes over real files in a temp agent dir (spec "Pi Settings routes"): inventory, catalog,
 * provider and model edits of models.json (revisions, comments, symlinks, concurrent editors, blocked files),
 * MCP configuration, errors and statuses, and secrets that never leave the server.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { McpInventory, ProviderInventory, SettingsOperation } from "../domain/contract/http-pi-settings.ts";
import { startOpenAiStub, type OpenAiStub } from "../test/support/openai-stub.ts";
import { ManualClock } from "../adapters/runtime-host/host-clock.ts";
import { closeTestApps, testApp, type TestDirs } from "./app.fixture.ts";

afterAll(closeTestApps);

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub({ models: ["stub-model"] });
});
afterAll(() => stub.close());
afterEach(() => {
  stub.failWith = null;
  stub.requireKey = null;
});

const MODELS_WITH_COMMENTS = `{
  // My providers: keep this comment
  "providers": {
    "zeta": {
      "baseUrl": "http://127.0.0.1:1/v1",   // odd spacing stays
      "api": "openai-completions",
      "models": [
        { "id": "z1", "contextWindow": 4096, },
      ],
      "x-unknown": { "kept": true },
    },
  },
  "topLevelUnknown": 42,
}
`;

async function app(): Promise<{ app: FastifyInstance; dirs: TestDirs }> {
  return testApp();
}

function modelsFile(dirs: TestDirs): string {
  return path.join(dirs.agentDir, "models.json");
}

async function inventory(server: FastifyInstance): Promise<ProviderInventory> {
  const res = await server.inject({ method: "GET", url: "/api/pi/settings/providers" });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<ProviderInventory>();
}

async function send(server: FastifyInstance, method: "PUT" | "DELETE" | "POST" | "GET", url: string, payload?: unknown) {
  return server.inject({ method, url, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });
}

async function poll(server: FastifyInstance, id: string, until: (op: SettingsOperation) => boolean): Promise<SettingsOperation> {
  for (let i = 0; i < 400; i++) {
    const res = await send(server, "GET", `/api/pi/settings/operations/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    const op = res.json<SettingsOperation>();
    if (until(op)) return op;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`operation ${id} did not reach the expected state`);
}

const ended = (op: SettingsOperation): boolean => op.state === "completed" || op.state === "error" || op.state === "cancelled";

/** Starts an API-key sign-in to openai and waits for its key prompt; returns the operation at the prompt. */
async function openAiSignInAtPrompt(server: FastifyInstance): Promise<SettingsOperation> {
  const res = await send(server, "POST", "/api/pi/settings/providers/action", {
    providerId: "openai",
    action: "login",
    authType: "api_key",
  });
  expect(res.statusCode, res.body).toBe(200);
  return poll(server, res.json<SettingsOperation>().id, (op) => op.prompt !== null || ended(op));
}

describe("provider inventory", () => {
  it("lists pi's providers without writing anything, with no-store", async () => {
    const { app: server, dirs } = await app();
    const before = fs.readdirSync(dirs.agentDir).sort();
    const res = await send(server, "GET", "/api/pi/settings/providers");
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = res.json<ProviderInventory>();
    expect(typeof body.revision).toBe("string");
    const openai = body.providers.find((provider) => provider.id === "openai");
    expect(openai).toMatchObject({ kind: "builtin", configured: false, authSource: null });
    expect(openai?.authMethods.map((method) => method.id)).toEqual(["api_key", "oauth"]);
    expect(openai?.models.length).toBeGreaterThan(0);
    expect(fs.readdirSync(dirs.agentDir).sort()).toEqual(before);
  });

  it("shows an invalid models.json read-only with a warning, and refuses writes with 409", async () => {
    const { app: server, dirs } = await app();
    fs.writeFileSync(modelsFile(dirs), '{ "providers": { /* block */ } }');
    const body = await inventory(server);
    expect(body.warning).toMatch(/block comments/);
    expect(body.providers.every((provider) => !provider.config.canEdit)).toBe(true);
    const res = await send(server, "PUT", "/api/pi/settings/providers", {
      id: "x",
      revision: body.revision,
      create: true,
      values: { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completions" },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json<{ error: string }>().error).toMatch(/block comments/);
  });
});

describe("provider configuration", () => {
  it("creates a custom provider and its model; the next save needs the new revision", async () => {
    const { app: server, dirs } = await app();
    const first = await inventory(server);
    const created = await send(server, "PUT", "/api/pi/settings/providers", {
      id: "local",
      revision: first.revision,
      create: true,
      values: { name: "Local stub", baseUrl: stub.baseUrl, api: "openai-completions" },
    });
    expect(created.statusCode, created.body).toBe(200);
    const afterProvider = created.json<ProviderInventory>();
    const local = afterProvider.providers.find((provider) => provider.id === "local");
    expect(local).toMatchObject({
      kind: "custom",
      name: "Local stub",
      config: { baseUrl: stub.baseUrl, api: "openai-completions", apiKeyConfigured: false, hasConfiguration: true },
    });
    expect(JSON.parse(fs.readFileSync(modelsFile(dirs), "utf8"))).toEqual({
      providers: { local: { name: "Local stub", baseUrl: stub.baseUrl, api: "openai-completions", models: [] } },
    });

    const stale = await send(server, "PUT", "/api/pi/settings/models", {
      providerId: "local",
      modelId: "stub-model",
      revision: first.revision,
      kind: "custom",
      create: true,
      values: { contextWindow: 32000 },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual({ error: "This configuration changed outside this editor. Refresh it before saving." });

    const model = await send(server, "PUT", "/api/pi/settings/models", {
      providerId: "local",
      modelId: "stub-model",
      revision: afterProvider.revision,
      kind: "custom",
      create: true,
      values: { name: "Stub", contextWindow: 32000, maxTokens: 2048, reasoning: false, input: ["text", "image"] },
    });
    expect(model.statusCode, model.body).toBe(200);
    const withModel = model.json<ProviderInventory>().providers.find((provider) => provider.id === "local");
    expect(withModel?.models).toEqual([
      expect.objectContaining({
        id: "stub-model",
        name: "Stub",
        contextWindow: 32000,
        maxTokens: 2048,
        input: ["text", "image"],
        kind: "custom",
      }),
    ]);
  });

  it("answers 409 for a missing revision", async () => {
    const { app: server } = await app();
    const res = await send(server, "PUT", "/api/pi/settings/providers", {
      id: "local",
      create: true,
      values: { baseUrl: stub.baseUrl, api: "openai-completions" },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: "Refresh settings before saving." });
  });

  it("keeps comments, trailing commas and unknown fields byte-identical outside the edited span", async () => {
    const { app: server, dirs } = await app();
    fs.writeFileSync(modelsFile(dirs), MODELS_WITH_COMMENTS);
    const { revision } = await inventory(server);
    const res = await send(server, "PUT", "/api/pi/settings/providers", { id: "zeta", revision, values: { name: "Zeta" } });
    expect(res.statusCode, res.body).toBe(200);
    const after = fs.readFileSync(modelsFile(dirs), "utf8");
    const start = [...MODELS_WITH_COMMENTS].findIndex((ch, i) => ch !== after[i]);
    const endBefore =
      MODELS_WITH_COMMENTS.length - [...MODELS_WITH_COMMENTS].reverse().findIndex((ch, i) => ch !== after[after.length - 1 - i]);
    const endAfter = after.length - (MODELS_WITH_COMMENTS.length - endBefore);
    expect(MODELS_WITH_COMMENTS.slice(start, endBefore)).toBe("");
    expect(after.slice(start, endAfter)).toContain('"name": "Zeta"');
    expect(after).toContain("// My providers: keep this comment");
    expect(after).toContain("// odd spacing stays");
    expect(after).toContain('"x-unknown": { "kept": true },');
    // A copy of the file as it was is kept.
    const trash = fs.readdirSync(path.join(dirs.agentDir, "leyline-trash"));
    expect(trash.some((name) => name.startsWith("models.settings-") && name.endsWith(".json"))).toBe(true);
  });

  it("lets one of two concurrent editors win; the other gets 409 and the file stays valid", async () => {
    const { app: server, dirs } = await app();
    fs.writeFileSync(modelsFile(dirs), MODELS_WITH_COMMENTS);
    const { revision } = await inventory(server);
    const [a, b] = await Promise.all([
      send(server, "PUT", "/api/pi/settings/providers", { id: "zeta", revision, values: { name: "Editor A" } }),
      send(server, "PUT", "/api/pi/settings/providers", { id: "zeta", revision, values: { name: "Editor B" } }),
    ]);
    const statuses = [a.statusCode, b.statusCode].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = a.statusCode === 409 ? a : b;
    expect(loser.json<{ error: string }>().error).toMatch(/changed (outside this editor|while saving)/);
    const winner = a.statusCode === 200 ? "Editor A" : "Editor B";
    const text = fs.readFileSync(modelsFile(dirs), "utf8");
    expect(text).toContain(`"name": "${winner}"`);
    expect((await inventory(server)).warning).toBeUndefined();
  });

  it("keeps a symlinked models.json a link and writes through it", async () => {
    const { app: server, dirs } = await app();
    const real = path.join(dirs.root, "dotfiles-models.json");
    fs.writeFileSync(real, MODELS_WITH_COMMENTS);
    fs.symlinkSync(real, modelsFile(dirs));
    const { revision } = await inventory(server);
    const res = await send(server, "PUT", "/api/pi/settings/providers", { id: "zeta", revision, values: { name: "Linked" } });
    expect(res.statusCode, res.body).toBe(200);
    expect(fs.lstatSync(modelsFile(dirs)).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(real, "utf8")).toContain('"name": "Linked"');
  });

  it("refuses writes to a broken symlink, an oversized file and a file with duplicate keys", async () => {
    const { app: server, dirs } = await app();
    fs.symlinkSync(path.join(dirs.root, "missing.json"), modelsFile(dirs));
    let { revision } = await inventory(server);
    const values = { id: "p", revision: revision ?? "none", create: true, values: { baseUrl: stub.baseUrl, api: "openai-completions" } };
    let res = await send(server, "PUT", "/api/pi/settings/providers", values);
    expect(res.statusCode).toBe(409);
    expect(res.json<{ error: string }>().error).toMatch(/broken symbolic link/);
    expect(fs.existsSync(path.join(dirs.root, "missing.json"))).toBe(false);

    fs.rmSync(modelsFile(dirs));
    fs.writeFileSync(modelsFile(dirs), `{ "providers": {}, "pad": "${"x".repeat(2 * 1024 * 1024)}" }`);
    ({ revision } = await inventory(server));
    res = await send(server, "PUT", "/api/pi/settings/providers", { ...values, revision: revision ?? "none" });
    expect(res.statusCode).toBe(409);
    expect(res.json<{ error: string }>().error).toMatch(/2 MiB/);

    const duplicate =
      '{ "providers": { "a": { "baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "models": [] }, "a": {} } }';
    fs.writeFileSync(modelsFile(dirs), duplicate);
    ({ revision } = await inventory(server));
    res = await send(server, "PUT", "/api/pi/settings/providers", { ...values, revision: revision ?? "none" });
    expect(res.statusCode).toBe(409);
    expect(res.json<{ error: string }>().error).toMatch(/duplicate/i);
    expect(fs.readFileSync(modelsFile(dirs), "utf8")).toBe(duplicate);
  });

  it("validates fields: unknown fields, bad URLs and ids answer 400; unknown providers 404", async () => {
    const { app: server } = await app();
    const { revision } = await inventory(server);
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ id: "p", revision, create: true, values: { baseUrl: stub.baseUrl, api: "openai-completions", color: "red" } }, 400],
      [{ id: "p", revision, create: true, values: { baseUrl: "ftp://example.com", api: "openai-completions" } }, 400],
      [{ id: "p", revision, create: true, values: { baseUrl: "http://user:pw@127.0.0.1/v1", api: "openai-completions" } }, 400],
      [{ id: "a/b", revision, create: true, values: { baseUrl: stub.baseUrl, api: "openai-completions" } }, 400],
      [{ id: "p", revision, create: true, values: { baseUrl: stub.baseUrl, api: "made-up-api" } }, 400],
      [{ id: "p", revision, create: true, values: { baseUrl: stub.baseUrl } }, 400],
      [{ id: "nobody", revision, values: { name: "x" } }, 404],
      [{ id: "p", revision, create: true, values: {}, extra: 1 }, 400],
    ];
    for (const [body, status] of cases) {
      const res = await send(server, "PUT", "/api/pi/settings/providers", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(typeof res.json<{ error: string }>().error).toBe("string");
    }
  });

  it("adds and removes a catalog model override, then deletes the provider entry", async () => {
    const { app: server, dirs } = await app();
    let { revision } = await inventory(server);
    let res = await send(server, "PUT", "/api/pi/settings/models", {
      providerId: "openai",
      modelId: "gpt-4o",
      revision,
      kind: "override",
      create: true,
      values: { name: "GPT-4o (team)", maxTokens: 4096 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const gpt = res
      .json<ProviderInventory>()
      .providers.find((p) => p.id === "openai")
      ?.models.find((m) => m.id === "gpt-4o");
    expect(gpt).toMatchObject({
      name: "GPT-4o (team)",
      maxTokens: 4096,
      kind: "override",
      overrides: { name: "GPT-4o (team)", maxTokens: 4096 },
    });
    revision = res.json<ProviderInventory>().revision;
    res = await send(server, "DELETE", "/api/pi/settings/models", { providerId: "openai", modelId: "gpt-4o", revision, kind: "override" });
    expect(res.statusCode, res.body).toBe(200);
    const after = JSON.parse(fs.readFileSync(modelsFile(dirs), "utf8")) as { providers: Record<string, unknown> };
    expect(after.providers["openai"]).toBeUndefined();
  });
});

describe("catalog lookup", () => {
  it("answers nothing for a blank query, 400 over 256 characters, and at most 20 sorted chat models", async () => {
    const { app: server } = await app();
    expect((await send(server, "GET", "/api/pi/settings/catalog/models?q=%20%20")).json()).toEqual({ models: [] });
    expect((await send(server, "GET", `/api/pi/settings/catalog/models?q=${"a".repeat(257)}`)).statusCode).toBe(400);
    const res = await send(server, "GET", "/api/pi/settings/catalog/models?q=GPT%20openai");
    expect(res.statusCode).toBe(200);
    const models = res.json<{ models: Array<{ id: string; providerId: string }> }>().models;
    expect(models.length).toBeGreaterThan(0);
    expect(models.length).toBeLessThanOrEqual(20);
    const keys = models.map((m) => `${m.id}\u0000${m.providerId}`);
    expect(keys).toEqual([...keys].sort());
    for (const model of models) expect(`${model.id} ${model.providerId}`.toLowerCase()).toMatch(/gpt[\s\S]*|openai/);
  });
});

describe("methods and paths", () => {
  it("answers 405 on settings resources, 404 on action paths and unknown settings paths", async () => {
    const { app: server } = await app();
    const patch = await server.inject({ method: "PATCH", url: "/api/pi/settings/providers" });
    expect(patch.statusCode).toBe(405);
    expect(patch.json()).toEqual({ error: "Method not allowed" });
    expect(patch.headers["cache-control"]).toBe("no-store");
    const action = await server.inject({ method: "GET", url: "/api/pi/settings/providers/action" });
    expect(action.statusCode).toBe(404);
    expect(action.json()).toEqual({ error: "Not found" });
    expect((await server.inject({ method: "GET", url: "/api/pi/settings/nothing" })).statusCode).toBe(404);
    const expired = await server.inject({ method: "GET", url: "/api/pi/settings/operations/nope" });
    expect(expired.statusCode).toBe(404);
    expect(expired.json()).toEqual({ error: "This settings operation expired. Start it again." });
  });
});

describe("provider actions", () => {
  async function withLocalProvider(server: FastifyInstance, apiKey?: string): Promise<ProviderInventory> {
    let { revision } = await inventory(server);
    let res = await send(server, "PUT", "/api/pi/settings/providers", {
      id: "local",
      revision,
      create: true,
      values: { baseUrl: stub.baseUrl, api: "openai-completions", ...(apiKey !== undefined ? { apiKey } : {}) },
    });
    expect(res.statusCode, res.body).toBe(200);
    revision = res.json<ProviderInventory>().revision;
    res = await send(server, "PUT", "/api/pi/settings/models", {
      providerId: "local",
      modelId: "stub-model",
      revision,
      kind: "custom",
      create: true,
      values: { contextWindow: 32000, maxTokens: 1024 },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<ProviderInventory>();
  }

  it("tests a saved model against a local OpenAI-compatible server with a 16-token probe", async () => {
    const { app: server } = await app();
    await withLocalProvider(server, "sk-local-test-key-123456");
    const seen = stub.requests.length;
    const res = await send(server, "POST", "/api/pi/settings/providers/action", {
      providerId: "local",
      action: "test",
      modelId: "stub-model",
    });
    expect(res.statusCode, res.body).toBe(200);
    const op = await poll(server, res.json<SettingsOperation>().id, ended);
    expect(op.state, op.error).toBe("completed");
    expect(op.result).toMatchObject({ providerId: "local", modelId: "stub-model", action: "test", httpStatus: 200 });
    expect(typeof (op.result as { durationMs: number }).durationMs).toBe("number");
    const probe = stub.requests.slice(seen).find((request) => request.path.endsWith("/chat/completions"));
    expect(probe?.headers.authorization).toBe("Bearer sk-local-test-key-123456");
    const limit = probe?.body?.["max_completion_tokens"] ?? probe?.body?.["max_tokens"];
    expect(limit).toBe(16);
  });

  it("tests an unsaved provider draft without saving it, and reports a failing server as an operation error", async () => {
    const { app: server, dirs } = await app();
    const { revision } = await inventory(server);
    const draft = {
      type: "provider",
      create: true,
      revision,
      values: { baseUrl: stub.baseUrl, api: "openai-completions", apiKey: "sk-draft-key-abcdef" },
    };
    let res = await send(server, "POST", "/api/pi/settings/providers/action", {
      providerId: "draftp",
      action: "test",
      modelId: "stub-model",
      draft,
    });
    expect(res.statusCode, res.body).toBe(200);
    let op = await poll(server, res.json<SettingsOperation>().id, ended);
    expect(op.state, op.error).toBe("completed");
    expect(fs.existsSync(modelsFile(dirs))).toBe(false);

    stub.failWith = { status: 503, message: "model is loading" };
    res = await send(server, "POST", "/api/pi/settings/providers/action", {
      providerId: "draftp",
      action: "test",
      modelId: "stub-model",
      draft,
    });
    op = await poll(server, res.json<SettingsOperation>().id, ended);
    expect(op.state).toBe("error");
    expect(op.error).toMatch(/503/);
    expect(op.error).not.toContain("sk-draft-key-abcdef");
  });

  it("rejects modelId or draft on other actions and a sign-in method the provider lacks", async () => {
    const { app: server } = await app();
    await withLocalProvider(server);
    expect(
      (await send(server, "POST", "/api/pi/settings/providers/action", { providerId: "local", action: "refresh", modelId: "x" }))
        .statusCode,
    ).toBe(400);
    expect((await send(server, "POST", "/api/pi/settings/providers/action", { providerId: "local", action: "test" })).statusCode).toBe(400);
    expect((await send(server, "POST", "/api/pi/settings/providers/action", { providerId: "openai", action: "login" })).statusCode).toBe(
      400,
    );
    expect((await send(server, "POST", "/api/pi/settings/providers/action", { providerId: "ghost", action: "logout" })).statusCode).toBe(
      404,
    );
  });

  it("signs in with an API key through a secret prompt, never echoing it, then signs out", async () => {
    const { app: server, dirs } = await app();
    const key = "sk-openai-planted-secret-987654";
    const prompted = await openAiSignInAtPrompt(server);
    const id = prompted.id;
    expect(prompted.prompt?.type).toBe("secret");
    const answered = await send(server, "POST", `/api/pi/settings/operations/${id}`, { promptId: prompted.prompt?.id, value: key });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.body).not.toContain(key);
    const done = await poll(server, id, ended);
    expect(done.state, done.error).toBe("completed");
    expect(done.result).toEqual({ providerId: "openai", action: "login", credentialChanged: true });
    expect(fs.readFileSync(path.join(dirs.agentDir, "auth.json"), "utf8")).toContain(key);
    const after = await send(server, "GET", "/api/pi/settings/providers");
    expect(after.body).not.toContain(key);
    expect(after.json<ProviderInventory>().providers.find((p) => p.id === "openai")).toMatchObject({
      configured: true,
      authSource: "stored",
    });

    const out = await send(server, "POST", "/api/pi/settings/providers/action", { providerId: "openai", action: "logout" });
    const loggedOut = await poll(server, out.json<SettingsOperation>().id, ended);
    expect(loggedOut.result).toEqual({ providerId: "openai", action: "logout", credentialChanged: true });
    expect(fs.readFileSync(path.join(dirs.agentDir, "auth.json"), "utf8")).not.toContain(key);
  });

  it("cancels a sign-in waiting at its prompt", async () => {
    const { app: server } = await app();
    const id = (await openAiSignInAtPrompt(server)).id;
    const duplicate = await send(server, "POST", "/api/pi/settings/providers/action", {
      providerId: "openai",
      action: "login",
      authType: "api_key",
    });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toEqual({ error: "An operation for this provider or server is already in progress." });
    const cancelled = await send(server, "DELETE", `/api/pi/settings/operations/${id}`);
    expect(cancelled.statusCode).toBe(200);
    expect(["cancelling", "cancelled"]).toContain(cancelled.json<SettingsOperation>().state);
    const done = await poll(server, id, ended);
    expect(done.state).toBe("cancelled");
    expect(done.prompt).toBeNull();
  });
});

describe("secrets", () => {
  it("never returns secrets planted in auth.json, models.json, mcp.json or the environment", async () => {
    const planted = {
      auth: "sk-ant-planted-auth-secret-111",
      modelsKey: "sk-planted-models-key-222",
      header: "Bearer planted-header-333",
      command: "!echo planted-command-444",
      env: "sk-planted-env-555",
      mcpHeader: "Bearer planted-mcp-666",
      mcpEnv: "planted-mcp-env-777",
      mcpSecret: "planted-oauth-secret-888",
      urlPassword: "planted-url-pw-999",
    };
    const previous = process.env["OPENAI_API_KEY"];
    process.env["OPENAI_API_KEY"] = planted.env;
    try {
      const { app: server, dirs } = await app();
      fs.writeFileSync(path.join(dirs.agentDir, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: planted.auth } }));
      fs.writeFileSync(
        modelsFile(dirs),
        JSON.stringify({
          providers: {
            local: {
              baseUrl: stub.baseUrl,
              api: "openai-completions",
              apiKey: planted.modelsKey,
              headers: { Authorization: planted.header },
              models: [{ id: "stub-model" }],
            },
            cmd: {
              baseUrl: `http://u:${planted.urlPassword}@127.0.0.1:9/v1`,
              api: "openai-completions",
              apiKey: planted.command,
              models: [{ id: "m" }],
            },
          },
        }),
      );
      fs.writeFileSync(
        path.join(dirs.agentDir, "mcp.json"),
        JSON.stringify({
          mcpServers: {
            web: {
              url: `https://user:${planted.urlPassword}@mcp.example.com/mcp?token=abc`,
              headers: { Authorization: planted.mcpHeader },
              oauth: { clientSecret: planted.mcpSecret },
            },
            local: { command: "node", args: ["server.js", planted.mcpEnv], env: { TOKEN: planted.mcpEnv } },
          },
        }),
      );
      const bodies: string[] = [];
      bodies.push((await send(server, "GET", "/api/pi/settings/providers")).body);
      bodies.push((await send(server, "GET", "/api/pi/settings/catalog/models?q=claude")).body);
      bodies.push((await send(server, "GET", "/api/pi/settings/mcp")).body);
      const test = await send(server, "POST", "/api/pi/settings/providers/action", {
        providerId: "local",
        action: "test",
        modelId: "stub-model",
      });
      bodies.push(test.body);
      bodies.push(JSON.stringify(await poll(server, test.json<SettingsOperation>().id, ended)));
      const inventoryBody = JSON.parse(bodies[0] ?? "{}") as ProviderInventory;
      expect(inventoryBody.providers.find((p) => p.id === "anthropic")).toMatchObject({ configured: true, authSource: "stored" });
      expect(inventoryBody.providers.find((p) => p.id === "openai")).toMatchObject({ configured: true, authSource: "environment" });
      expect(inventoryBody.providers.find((p) => p.id === "cmd")?.config.baseUrl).toBe("");
      const mcp = JSON.parse(bodies[2] ?? "{}") as McpInventory;
      expect(mcp.servers.find((server) => server.name === "local")).toMatchObject({
        argsConfigured: true,
        argsCount: 2,
        env: [{ name: "TOKEN", configured: true }],
      });
      for (const body of bodies) {
        for (const secret of Object.values(planted)) expect(body).not.toContain(secret.replace(/^!/, ""));
      }
    } finally {
      if (previous === undefined) delete process.env["OPENAI_API_KEY"];
      else process.env["OPENAI_API_KEY"] = previous;
    }
  });
});

describe("MCP configuration", () => {
  it("creates, edits and deletes a server in mcp.json with revisions", async () => {
    const { app: server, dirs } = await app();
    let res = await send(server, "GET", "/api/pi/settings/mcp");
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    let body = res.json<McpInventory>();
    expect(body.servers).toEqual([]);
    res = await send(server, "PUT", "/api/pi/settings/mcp", {
      name: "files",
      revision: body.revision,
      create: true,
      values: { command: "npx", args: ["-y", "server"] },
    });
    expect(res.statusCode, res.body).toBe(200);
    body = res.json<McpInventory>();
    expect(body.servers).toEqual([
      expect.objectContaining({ name: "files", transport: "stdio", enabled: true, exposure: "deferred", command: "npx", argsCount: 2 }),
    ]);
    const stale = await send(server, "PUT", "/api/pi/settings/mcp", { name: "files", revision: "old", values: { enabled: false } });
    expect(stale.statusCode).toBe(409);
    res = await send(server, "PUT", "/api/pi/settings/mcp", { name: "files", revision: body.revision, values: { enabled: false } });
    expect(res.statusCode, res.body).toBe(200);
    body = res.json<McpInventory>();
    expect(body.servers[0]?.enabled).toBe(false);
    const both = await send(server, "PUT", "/api/pi/settings/mcp", {
      name: "x",
      revision: body.revision,
      create: true,
      values: { command: "a", url: "http://127.0.0.1:1/mcp" },
    });
    expect(both.statusCode).toBe(400);
    res = await send(server, "DELETE", "/api/pi/settings/mcp", { name: "files", revision: body.revision });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<McpInventory>().servers).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(dirs.agentDir, "mcp.json"), "utf8"))).toEqual({ mcpServers: {} });
  });
});

describe("pi's own rules", () => {
  it("refuses an edit pi would not load (a built-in provider entry with only a name) and writes nothing", async () => {
    const { app: server, dirs } = await app();
    const { revision } = await inventory(server);
    const res = await send(server, "PUT", "/api/pi/settings/providers", { id: "openai", revision, values: { name: "My OpenAI" } });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ error: string }>().error).toMatch(/^pi would not load this configuration: .*must specify/);
    expect(fs.existsSync(modelsFile(dirs))).toBe(false);
    const withUrl = await send(server, "PUT", "/api/pi/settings/providers", {
      id: "openai",
      revision,
      values: { name: "My OpenAI", baseUrl: "https://proxy.example.com/v1" },
    });
    expect(withUrl.statusCode, withUrl.body).toBe(200);
    expect(withUrl.json<ProviderInventory>().providers.find((p) => p.id === "openai")).toMatchObject({
      name: "My OpenAI",
      config: { baseUrl: "https://proxy.example.com/v1", hasConfiguration: true },
    });
  });
});

describe("settings operations over HTTP", () => {
  it("stops a sign-in at the 10-minute cap and forgets it one minute later (injected clock)", async () => {
    const clock = new ManualClock();
    const { app: server } = await testApp({ settingsClock: clock });
    const id = (await openAiSignInAtPrompt(server)).id;
    clock.advance(599_000);
    expect((await send(server, "GET", `/api/pi/settings/operations/${id}`)).json<SettingsOperation>().state).toBe("running");
    clock.advance(1_000);
    const capped = await poll(server, id, ended);
    expect(capped.state).toBe("cancelled");
    clock.advance(60_000);
    const gone = await send(server, "GET", `/api/pi/settings/operations/${id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ error: "This settings operation expired. Start it again." });
  });

  it("answers 429 for a ninth operation while eight are running", async () => {
    const { app: server } = await app();
    const candidates = (await inventory(server)).providers.filter((p) => p.authMethods.some((m) => m.id === "api_key")).map((p) => p.id);
    expect(candidates.length).toBeGreaterThanOrEqual(9);
    const ids: string[] = [];
    for (const providerId of candidates.slice(0, 8)) {
      const res = await send(server, "POST", "/api/pi/settings/providers/action", { providerId, action: "login", authType: "api_key" });
      expect(res.statusCode, res.body).toBe(200);
      ids.push(res.json<SettingsOperation>().id);
    }
    const ninth = await send(server, "POST", "/api/pi/settings/providers/action", {
      providerId: candidates[8],
      action: "login",
      authType: "api_key",
    });
    expect(ninth.statusCode).toBe(429);
    expect(ninth.json()).toEqual({ error: "Too many settings operations are in progress." });
    for (const id of ids) await send(server, "DELETE", `/api/pi/settings/operations/${id}`);
    for (const id of ids) await poll(server, id, ended);
  });

  it("checks answers: a stale prompt is 409, a too-long value 400", async () => {
    const { app: server } = await app();
    const op = await openAiSignInAtPrompt(server);
    const id = op.id;
    const stale = await send(server, "POST", `/api/pi/settings/operations/${id}`, { promptId: "not-the-prompt", value: "x" });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual({ error: "This prompt is no longer active." });
    const long = await send(server, "POST", `/api/pi/settings/operations/${id}`, { promptId: op.prompt?.id, value: "x".repeat(32_769) });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toEqual({ error: "Invalid response." });
    await send(server, "DELETE", `/api/pi/settings/operations/${id}`);
    await poll(server, id, ended);
  });
});

describe("review findings", () => {
  it("answers the inventory when a secret-named environment variable holds a number", async () => {
    const previous = process.env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"];
    process.env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] = "128000";
    try {
      const { app: server } = await app();
      const res = await send(server, "GET", "/api/pi/settings/providers");
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain("128000");
    } finally {
      if (previous === undefined) delete process.env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"];
      else process.env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] = previous;
    }
  });

  it("never sends a stored OAuth login to the endpoint of a provider draft", async () => {
    const { app: server, dirs } = await app();
    const token = "sk-ant-oat01-planted-oauth-access";
    fs.writeFileSync(
      path.join(dirs.agentDir, "auth.json"),
      JSON.stringify({ anthropic: { type: "oauth", access: token, refresh: "planted-refresh-token", expires: Date.now() + 3_600_000 } }),
    );
    const body = await inventory(server);
    const modelId = body.providers.find((p) => p.id === "anthropic")?.models[0]?.id ?? "";
    const seen = stub.requests.length;
    const res = await send(server, "POST", "/api/pi/settings/providers/action", {
      providerId: "anthropic",
      action: "test",
      modelId,
      draft: { type: "provider", create: false, revision: body.revision, values: { baseUrl: stub.baseUrl } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const op = await poll(server, res.json<SettingsOperation>().id, ended);
    expect(op.state).toBe("error");
    expect(op.error).toMatch(/stored sign-in/);
    expect(stub.requests.slice(seen)).toEqual([]);
  });

  it("keeps settings files and their trash copies private when they hold keys", async () => {
    const { app: server, dirs } = await app();
    let res = await send(server, "PUT", "/api/pi/settings/providers", {
      id: "local",
      revision: (await inventory(server)).revision,
      create: true,
      values: { baseUrl: stub.baseUrl, api: "openai-completions", apiKey: "sk-private-key-123" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(fs.statSync(modelsFile(dirs)).mode & 0o777).toBe(0o600);
    res = await send(server, "PUT", "/api/pi/settings/providers", {
      id: "local",
      revision: res.json<ProviderInventory>().revision,
      values: { name: "Local" },
    });
    expect(res.statusCode, res.body).toBe(200);
    const trash = path.join(dirs.agentDir, "leyline-trash");
    const copy = fs.readdirSync(trash).find((name) => name.startsWith("models.settings-"));
    expect(fs.statSync(path.join(trash, copy ?? "")).mode & 0o777).toBe(0o600);
  });

  it("refuses to rewrite a models.json that is not valid UTF-8 (its bytes would change outside the edit)", async () => {
    const { app: server, dirs } = await app();
    const bytes = Buffer.concat([Buffer.from("{ // caf"), Buffer.from([0xe9]), Buffer.from('\n  "providers": {}\n}\n')]);
    fs.writeFileSync(modelsFile(dirs), bytes);
    const { revision } = await inventory(server);
    const res = await send(server, "PUT", "/api/pi/settings/providers", {
      id: "p",
      revision,
      create: true,
      values: { baseUrl: stub.baseUrl, api: "openai-completions" },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json<{ error: string }>().error).toMatch(/not valid UTF-8/);
    expect(fs.readFileSync(modelsFile(dirs)).equals(bytes)).toBe(true);
  });

  it("redacts only credentials of mcp-auth.json, not the server URL or client id", async () => {
    const { app: server, dirs } = await app();
    fs.writeFileSync(
      path.join(dirs.agentDir, "mcp.json"),
      JSON.stringify({ mcpServers: { docs: { url: "https://mcp.example.com/mcp" } } }),
    );
    fs.writeFileSync(
      path.join(dirs.agentDir, "mcp-auth.json"),
      JSON.stringify({
        "mcp__docs|https://mcp.example.com/mcp": {
          serverUrl: "https://mcp.example.com/mcp",
          clientInformation: { client_id: "client-visible-id", client_secret: "planted-client-secret" },
          tokens: { access_token: "planted-access-token", refresh_token: "planted-refresh-token", token_type: "Bearer" },
        },
      }),
    );
    const res = await send(server, "GET", "/api/pi/settings/mcp");
    expect(res.statusCode).toBe(200);
    expect(res.json<McpInventory>().servers[0]?.url).toBe("https://mcp.example.com/mcp");
    expect(res.body).not.toContain("planted-");
  });
});
