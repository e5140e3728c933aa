/**
 * The snapshot's model `authKind` comes from pi's model registry: checked on a real in-memory registry and
 * end to end through the in-process worker (faux provider plus credentials stored in the agent dir's auth.json).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pi from "@earendil-works/pi-coding-agent";
import { InMemoryCredentialStore, InMemoryModelsStore, type Api, type Model } from "@earendil-works/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../runtime-client/in-process-worker-client.ts";
import { modelAuthKind } from "../../domain/runtime/ultrafast.ts";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../runtime-client/runtime-test-support.ts";

const oauthCredential = { type: "oauth", access: "access-token", refresh: "refresh-token", expires: 4102444800000 } as const;

function builtIn(registry: pi.ModelRegistry, provider: string): Model<Api> {
  const model = registry.getAll().find((candidate) => candidate.provider === provider);
  if (!model) throw new Error(`pi has no built-in ${provider} model`);
  return model;
}

describe("modelAuthKind", () => {
  it("reads OAuth, API-key and missing credentials from pi's registry", async () => {
    const credentials = new InMemoryCredentialStore();
    await credentials.modify("openai", async () => oauthCredential);
    await credentials.modify("anthropic", async () => ({ type: "api_key", key: "sk-test" }));
    const runtime = await pi.ModelRuntime.create({ credentials, modelsPath: null, modelsStore: new InMemoryModelsStore() });
    const registry = new pi.ModelRegistry(runtime);
    expect(modelAuthKind(registry, builtIn(registry, "openai"))).toBe("oauth");
    expect(modelAuthKind(registry, builtIn(registry, "anthropic"))).toBe("apiKey");
    expect(modelAuthKind(registry, { ...builtIn(registry, "anthropic"), provider: "leyline-no-credentials" })).toBe("unknown");
  });
});

describe("runtime snapshot authKind (in-process worker)", () => {
  let dirs: RuntimeTestDirs;
  const clients: InProcessWorkerClient[] = [];
  let previousAgentDir: string | undefined;

  beforeAll(() => {
    dirs = createRuntimeTestDirs("leyline-authkind-");
    previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
    process.env["PI_CODING_AGENT_DIR"] = dirs.agentDir;
    fs.writeFileSync(
      path.join(dirs.agentDir, "auth.json"),
      JSON.stringify({ openai: oauthCredential, anthropic: { type: "api_key", key: "sk-test" } }),
      { mode: 0o600 },
    );
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose({ timeoutMs: 3000 })));
    if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
    else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
    dirs.cleanup();
  });

  it("reports the faux model as API-key authenticated and stored OAuth credentials as oauth", async () => {
    const client = InProcessWorkerClient.start({ fauxScript: new FauxScript([]) });
    clients.push(client);
    const opened = await client.request("open", { new: { cwd: dirs.cwd }, options: { agentDir: dirs.agentDir, faux: {} } });

    // the faux provider is registered with a key (scripted-faux-provider.ts), so pi counts it as configured auth
    expect(opened.model).toMatchObject({ provider: "faux", authKind: "apiKey" });
    const kinds = new Map(opened.availableModels.map((model) => [model.provider, model.authKind]));
    expect(kinds.get("faux")).toBe("apiKey");
    expect(kinds.get("openai")).toBe("oauth");
    expect(kinds.get("anthropic")).toBe("apiKey");
    expect(opened.availableModels.filter((model) => model.authKind === undefined)).toEqual([]);
  });
});
