/**
 * Keyless custom providers with the real pi ModelRuntime: a local server's models are available without a
 * stored key, nothing is written, and a real credential (auth.json, a models.json key) always wins.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyKeylessProvidersFromFile, isKeyless, keylessCandidates, KEYLESS_RUNTIME_KEY } from "./keyless-providers.ts";
import { loadPi } from "./settings-runtime.ts";

function agentDir(models: unknown, auth?: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-keyless-"));
  fs.writeFileSync(path.join(dir, "models.json"), JSON.stringify(models));
  if (auth !== undefined) fs.writeFileSync(path.join(dir, "auth.json"), JSON.stringify(auth));
  return dir;
}

const LOCAL = { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", models: [{ id: "llama" }] };

async function runtimeOf(dir: string) {
  const pi = await loadPi();
  const runtime = await pi.ModelRuntime.create({ authPath: path.join(dir, "auth.json"), modelsPath: path.join(dir, "models.json") });
  const builtins = await pi.ModelRuntime.create({ authPath: path.join(dir, "auth.json"), modelsPath: null, refreshOnCreate: false });
  return { runtime, builtinIds: new Set(builtins.getProviders().map((p) => p.id)) };
}

describe("keyless custom providers", () => {
  it("makes a local server's models available without storing a key", async () => {
    const dir = agentDir({ providers: { local: LOCAL } });
    const { runtime, builtinIds } = await runtimeOf(dir);
    expect(runtime.hasConfiguredAuth("local")).toBe(false);
    expect(await applyKeylessProvidersFromFile(runtime, path.join(dir, "models.json"), builtinIds)).toEqual(["local"]);
    expect(isKeyless(runtime, "local")).toBe(true);
    expect(runtime.hasConfiguredAuth("local")).toBe(true);
    expect((await runtime.getAvailable("local")).map((model) => model.id)).toEqual(["llama"]);
    expect((await runtime.getAuth("local"))?.auth.apiKey).toBe(KEYLESS_RUNTIME_KEY);
    expect(fs.readdirSync(dir).sort()).toEqual(["models.json"]);
  });

  it("leaves providers with a key, headers, or a stored credential, and built-in providers, alone", async () => {
    const dir = agentDir(
      {
        providers: {
          keyed: { ...LOCAL, apiKey: "sk-real" },
          headed: { ...LOCAL, headers: { "x-api-key": "abc" } },
          stored: LOCAL,
          openai: { baseUrl: "https://proxy.example.com/v1" },
        },
      },
      { stored: { type: "api_key", key: "sk-stored" } },
    );
    const { runtime, builtinIds } = await runtimeOf(dir);
    expect(keylessCandidates(fs.readFileSync(path.join(dir, "models.json"), "utf8"), builtinIds)).toEqual(["stored"]);
    expect(await applyKeylessProvidersFromFile(runtime, path.join(dir, "models.json"), builtinIds)).toEqual([]);
    expect((await runtime.getAuth("stored"))?.auth.apiKey).toBe("sk-stored");
    expect(runtime.hasConfiguredAuth("openai")).toBe(false);
  });
});
