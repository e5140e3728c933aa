import { describe, expect, it } from "vitest";
import { mcpServer, model, provider } from "./pi-settings.fixture.ts";
import {
  apiOptions,
  authStateLabel,
  canAddModels,
  describeTest,
  mcpFormOf,
  mcpValues,
  modelFormOf,
  modelValues,
  providerFormOf,
  providerValues,
  signInLabel,
  testOutcomeOf,
  toolsOf,
} from "./settings-forms.ts";

describe("provider form", () => {
  it("a new provider sends its base URL, API, name and key when one is given", () => {
    const initial = providerFormOf(null);
    expect(initial.api).toBe("openai-completions");
    const form = { ...initial, id: "local-llm", name: "Local", baseUrl: " http://127.0.0.1:8080/v1 ", keyMode: "none" as const };
    expect(providerValues(form, initial, true)).toEqual({
      ok: true,
      value: { name: "Local", baseUrl: "http://127.0.0.1:8080/v1", api: "openai-completions" },
    });
    expect(providerValues({ ...form, keyMode: "replace", apiKey: "LOCAL_KEY" }, initial, true)).toMatchObject({
      value: { apiKey: "LOCAL_KEY" },
    });
    expect(providerValues({ ...form, id: "has space" }, initial, true)).toMatchObject({ ok: false });
    expect(providerValues({ ...form, id: "a/b" }, initial, true)).toMatchObject({ ok: false });
    expect(providerValues({ ...form, baseUrl: "" }, initial, true)).toMatchObject({ ok: false });
  });

  it("an edit sends only what changed; the saved key is kept, replaced or removed (null), never read back", () => {
    const saved = provider("local-llm", {}, { apiKeyConfigured: true, name: "Local" });
    const initial = providerFormOf(saved);
    expect(initial).toMatchObject({ keyMode: "keep", apiKey: "", name: "Local" });
    expect(providerValues(initial, initial, false)).toEqual({ ok: true, value: {} });
    expect(providerValues({ ...initial, baseUrl: "http://localhost:9000/v1" }, initial, false)).toEqual({
      ok: true,
      value: { baseUrl: "http://localhost:9000/v1" },
    });
    expect(providerValues({ ...initial, keyMode: "remove" }, initial, false)).toEqual({ ok: true, value: { apiKey: null } });
    expect(providerValues({ ...initial, keyMode: "replace", apiKey: "" }, initial, false)).toMatchObject({ ok: false });
  });

  it("offers the ten supported APIs, plus a provider's own other one", () => {
    expect(apiOptions("openai-completions")).toHaveLength(10);
    expect(apiOptions("custom-api")[0]).toBe("custom-api");
  });

  it("says how a provider is authenticated", () => {
    expect(authStateLabel(provider("a", { configured: true, authSource: "environment", authLabel: "OPENAI_API_KEY" }))).toBe(
      "configured via OPENAI_API_KEY",
    );
    expect(authStateLabel(provider("a", { configured: true, authSource: null, authLabel: "no key needed" }))).toBe(
      "configured (no key needed)",
    );
    expect(authStateLabel(provider("a"))).toBe("not configured");
  });
});

describe("model form", () => {
  it("a new custom model sends every field", () => {
    const initial = modelFormOf(null);
    const form = { ...initial, id: "qwen3-coder", contextWindow: 32_768, maxTokens: 4096, imageInput: true };
    expect(modelValues(form, initial, { create: true, kind: "custom" })).toEqual({
      ok: true,
      value: { contextWindow: 32_768, maxTokens: 4096, reasoning: false, input: ["text", "image"] },
    });
    expect(modelValues({ ...form, id: "" }, initial, { create: true, kind: "custom" })).toMatchObject({ ok: false });
    expect(modelValues({ ...form, contextWindow: -1 }, initial, { create: true, kind: "custom" })).toMatchObject({ ok: false });
  });

  it("an override sends only the changed fields, and needs at least one", () => {
    const catalog = model("gpt-x", { kind: "catalog", contextWindow: 400_000, maxTokens: 128_000, reasoning: true, name: "GPT X" });
    const initial = modelFormOf(catalog);
    expect(modelValues({ ...initial, maxTokens: 32_000 }, initial, { create: true, kind: "override" })).toEqual({
      ok: true,
      value: { maxTokens: 32_000 },
    });
    expect(modelValues(initial, initial, { create: true, kind: "override" })).toMatchObject({ ok: false });
    // An empty number field leaves the value as it is.
    expect(modelValues({ ...initial, contextWindow: "", reasoning: false }, initial, { create: false, kind: "override" })).toEqual({
      ok: true,
      value: { reasoning: false },
    });
  });
});

describe("operation results", () => {
  it("reads a connection test's time and status, and an MCP check's tools", () => {
    const outcome = testOutcomeOf({ providerId: "p", modelId: "m", action: "test", durationMs: 812.4, httpStatus: 200 });
    expect(outcome).toEqual({ durationMs: 812.4, httpStatus: 200 });
    expect(describeTest(outcome!)).toBe("Connected in 812 ms (HTTP 200).");
    expect(describeTest({ durationMs: 40 })).toBe("Connected in 40 ms.");
    expect(testOutcomeOf({ providerId: "p" })).toBeNull();
    expect(toolsOf({ report: "ok", tools: [{ name: "search", description: "Search docs", exposure: "deferred" }] })).toEqual([
      { name: "search", description: "Search docs", exposure: "deferred" },
    ]);
    expect(toolsOf(null)).toBeNull();
  });
});

describe("MCP form", () => {
  it("a new HTTP server sends its URL, headers, enabled and exposure (deferred by default)", () => {
    const initial = mcpFormOf(null);
    const form = {
      ...initial,
      name: "docs",
      url: "http://localhost:3000/mcp",
      headers: [{ name: "Authorization", saved: false, remove: false, value: "Bearer x" }],
    };
    expect(mcpValues(form, initial, true)).toEqual({
      ok: true,
      value: { url: "http://localhost:3000/mcp", headers: { Authorization: "Bearer x" }, enabled: true, exposure: "deferred" },
    });
    expect(mcpValues({ ...form, name: "bad name" }, initial, true)).toMatchObject({ ok: false });
  });

  it("a new command server sends command, arguments and environment, never a URL", () => {
    const initial = mcpFormOf(null);
    const form = {
      ...initial,
      name: "fs",
      transport: "stdio" as const,
      url: "http://ignored",
      command: "npx",
      args: "-y\n@modelcontextprotocol/server-filesystem\n",
      env: [{ name: "ROOT", saved: false, remove: false, value: "/tmp" }],
    };
    expect(mcpValues(form, initial, true)).toEqual({
      ok: true,
      value: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem"],
        env: { ROOT: "/tmp" },
        enabled: true,
        exposure: "deferred",
      },
    });
  });

  it("an edit keeps saved secrets and arguments unless replaced or removed, and keeps a legacy exposure", () => {
    const server = mcpServer("fs", {
      transport: "stdio",
      url: undefined,
      command: "node",
      argsConfigured: true,
      argsCount: 2,
      exposure: "codemode",
      env: [{ name: "TOKEN", configured: true }],
    });
    const initial = mcpFormOf(server);
    expect(mcpValues(initial, initial, false)).toMatchObject({ ok: false, error: "Nothing changed." });
    const env = [{ name: "TOKEN", saved: true, remove: true, value: "" }];
    expect(mcpValues({ ...initial, env, enabled: false }, initial, false)).toEqual({
      ok: true,
      value: { removeEnv: ["TOKEN"], enabled: false },
    });
    expect(mcpValues({ ...initial, argsMode: "remove" }, initial, false)).toEqual({ ok: true, value: { args: null } });
    expect(mcpValues({ ...initial, exposure: "hidden" }, initial, false)).toEqual({ ok: true, value: { exposure: "hidden" } });
    // Switching to HTTP sends the URL (the server drops the stdio fields).
    expect(mcpValues({ ...initial, transport: "http", url: "https://mcp.example.com/mcp" }, initial, false)).toEqual({
      ok: true,
      value: { url: "https://mcp.example.com/mcp" },
    });
  });
});

describe("provider buttons", () => {
  it("names sign-in methods without repeating pi's own 'Sign in'", () => {
    expect(signInLabel({ id: "oauth", label: "Sign in with ChatGPT" }, 2)).toBe("Sign in with ChatGPT");
    expect(signInLabel({ id: "api_key", label: "OpenAI API key" }, 2)).toBe("Sign in (OpenAI API key)");
    expect(signInLabel({ id: "oauth", label: "GitHub Copilot" }, 1)).toBe("Sign in");
  });

  it("offers custom models only on custom providers", () => {
    expect(canAddModels(provider("local", { kind: "custom" }))).toBe(true);
    expect(canAddModels(provider("openai", { kind: "builtin" }))).toBe(false);
  });
});
