/**
 * The provider actions' own rules with a real pi ModelRuntime: the sign-in route guard, the transports a
 * connection test refuses, and the provider lock (writes wait briefly, then 409; sign-in holds it).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../domain/service-error.ts";
import { PROVIDER_BUSY, ProviderLock, refusedTransport, routeConflict } from "./provider-actions.ts";
import { loadPi } from "./settings-runtime.ts";

async function runtimeWith(providers: Record<string, unknown>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-actions-"));
  fs.writeFileSync(path.join(dir, "models.json"), JSON.stringify({ providers }));
  const pi = await loadPi();
  return pi.ModelRuntime.create({ authPath: path.join(dir, "auth.json"), modelsPath: path.join(dir, "models.json") });
}

const local = (api: string, models: unknown[] = [{ id: "m" }]) => ({ baseUrl: "http://127.0.0.1:9/v1", api, apiKey: "sk-x", models });

describe("the sign-in route guard", () => {
  it("blocks a sign-in while an open runtime knows the provider's models differently", async () => {
    const runtime = await runtimeWith({ local: local("openai-completions") });
    expect(routeConflict(runtime, "local", [{ sessionId: "s1", provider: "local", id: "m", api: "openai-completions" }])).toBeNull();
    expect(routeConflict(runtime, "local", [{ sessionId: "s1", provider: "other", id: "x" }])).toBeNull();
    expect(routeConflict(runtime, "local", [{ sessionId: "s1", provider: "local", id: "gone" }])).toMatch(/Reload all affected sessions/);
    expect(routeConflict(runtime, "local", [{ sessionId: "s1", provider: "local", id: "m", api: "anthropic-messages" }])).toMatch(
      /old endpoint/,
    );
    expect(
      routeConflict(runtime, "local", [
        { sessionId: "s1", provider: "local", id: "m", api: "openai-completions", baseUrl: "http://old/v1" },
      ]),
    ).toMatch(/old endpoint/);
  });
});

describe("connection test transports", () => {
  it("refuses the transports whose output limit or retries cannot be enforced", async () => {
    const runtime = await runtimeWith({
      codex: local("openai-codex-responses"),
      bedrock: local("bedrock-converse-stream"),
      responses: local("openai-responses", [{ id: "m", compat: { supportsMaxOutputTokens: false } }]),
      fine: local("openai-completions"),
    });
    const refused = (provider: string) => refusedTransport(runtime, runtime.getModel(provider, "m")!);
    expect(refused("codex")).toMatch(/openai-codex-responses/);
    expect(refused("bedrock")).toMatch(/retries cannot be disabled/);
    expect(refused("responses")).toMatch(/supportsMaxOutputTokens is false/);
    expect(refused("fine")).toBeNull();
  });
});

describe("the provider lock", () => {
  it("runs holders one at a time; a writer waiting past its limit gets 409 busy", async () => {
    const lock = new ProviderLock();
    let releaseSignIn!: () => void;
    const signIn = lock.run(() => new Promise<string>((resolve) => (releaseSignIn = () => resolve("signed in"))), null);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lock.busy).toBe(true);
    const write = lock.run(async () => "written", 50);
    await expect(write).rejects.toEqual(new ServiceError("conflict", PROVIDER_BUSY));
    const later = lock.run(async () => "written later", 5_000);
    releaseSignIn();
    expect(await signIn).toBe("signed in");
    expect(await later).toBe("written later");
    expect(lock.busy).toBe(false);
  });
});
