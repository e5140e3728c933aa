import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBackend, type FakeAnswer, type RecordedRequest } from "../components/composer/composer.fixture.ts";
import { inventory, mcpInventory, mcpServer, provider } from "../components/settings/pi-settings.fixture.ts";
import { REVISION_CHANGED_WHILE_SAVING, REVISION_STALE, usePiSettingsStore } from "./pi-settings.store.ts";

let backend: ReturnType<typeof fakeBackend> | undefined;
afterEach(() => {
  backend?.restore();
  backend = undefined;
});
beforeEach(() => setActivePinia(createPinia()));

function serve(handler: (request: RecordedRequest) => FakeAnswer | undefined) {
  backend = fakeBackend(handler);
  return backend.requests;
}

const local = provider("local-llm");

describe("pi settings store: inventories and revisions", () => {
  it("reads the provider inventory for its target folder and saves with the inventory's revision and target", async () => {
    const requests = serve((request) => {
      if (request.method === "GET") return { body: inventory("r1", []) };
      return { body: inventory("r2", [local]) };
    });
    const store = usePiSettingsStore();
    store.setTarget({ cwd: "/work/app" });
    expect(await store.loadProviders()).toBe(true);
    expect(store.providers?.revision).toBe("r1");

    const result = await store.putProvider({
      id: "local-llm",
      create: true,
      values: { baseUrl: "http://localhost:8080/v1", api: "openai-completions" },
    });
    expect(result).toEqual({ ok: true });
    expect(requests).toEqual([
      { method: "GET", path: "/api/pi/settings/providers?cwd=%2Fwork%2Fapp", body: undefined },
      {
        method: "PUT",
        path: "/api/pi/settings/providers",
        body: {
          id: "local-llm",
          create: true,
          values: { baseUrl: "http://localhost:8080/v1", api: "openai-completions" },
          revision: "r1",
          target: { cwd: "/work/app" },
        },
      },
    ]);
    // The answer is the new inventory: its revision is the one the next write sends.
    expect(store.providers?.revision).toBe("r2");
    expect(store.providers?.providers.map((p) => p.id)).toEqual(["local-llm"]);
  });

  it("a 409 with a revision message marks the file stale, keeps it that way without re-sending, and Refresh re-reads it", async () => {
    let revision = "r1";
    const requests = serve((request) => {
      if (request.method === "GET") return { body: inventory(revision, [local]) };
      const sent = (request.body as { revision: string }).revision;
      if (sent !== revision) return { status: 409, body: { error: REVISION_STALE } };
      return { body: inventory(`${revision}+`, [local]) };
    });
    const store = usePiSettingsStore();
    await store.loadProviders();
    revision = "r1-edited-by-hand"; // another tab or an editor changed models.json

    const first = await store.putProvider({ id: "local-llm", values: { name: "Local" } });
    expect(first).toEqual({ ok: false, error: REVISION_STALE, stale: true });
    expect(store.stale).toEqual({ scope: "providers", message: REVISION_STALE });
    // The inventory stays as it was read; nothing is re-sent on its own.
    expect(store.providers?.revision).toBe("r1");
    expect(requests.filter((r) => r.method === "PUT")).toHaveLength(1);

    // Saving again before Refresh is refused here, without a request.
    expect(await store.putProvider({ id: "local-llm", values: { name: "Local" } })).toEqual({
      ok: false,
      error: REVISION_STALE,
      stale: true,
    });
    expect(requests.filter((r) => r.method === "PUT")).toHaveLength(1);

    expect(await store.refreshStale()).toBe(true);
    expect(store.stale).toBeNull();
    expect(store.providers?.revision).toBe("r1-edited-by-hand");

    expect(await store.putProvider({ id: "local-llm", values: { name: "Local" } })).toEqual({ ok: true });
    expect(requests.at(-1)).toMatchObject({ method: "PUT", body: { revision: "r1-edited-by-hand" } });
  });

  it("a change during the save is stale too; another 409 is an ordinary error that leaves the file current", async () => {
    serve((request) => {
      if (request.method === "GET") return { body: inventory("r1", [local]) };
      const name = (request.body as { values: { name?: string } }).values.name;
      if (name === "busy") return { status: 409, body: { error: "Provider settings are busy. Finish or cancel sign-in, then try again." } };
      return { status: 409, body: { error: REVISION_CHANGED_WHILE_SAVING } };
    });
    const store = usePiSettingsStore();
    await store.loadProviders();
    const busy = await store.putProvider({ id: "local-llm", values: { name: "busy" } });
    expect(busy).toEqual({ ok: false, error: "Provider settings are busy. Finish or cancel sign-in, then try again.", stale: false });
    expect(store.stale).toBeNull();
    const during = await store.putModel({ providerId: "local-llm", modelId: "m", kind: "custom", values: { name: "x" } });
    expect(during).toEqual({ ok: false, error: REVISION_CHANGED_WHILE_SAVING, stale: true });
    expect(store.stale?.scope).toBe("providers");
  });

  it("without a revision (an unreadable models.json) asks for a refresh instead of sending", async () => {
    const requests = serve(() => ({ body: inventory(null, [local], "models.json is not valid JSON.") }));
    const store = usePiSettingsStore();
    await store.loadProviders();
    const result = await store.removeProvider("local-llm");
    expect(result).toEqual({ ok: false, error: "Refresh settings before saving.", stale: true });
    expect(requests.map((r) => r.method)).toEqual(["GET"]);
  });

  it("MCP writes use the mcp.json revision and are stale on their own", async () => {
    const requests = serve((request) => {
      if (request.path.startsWith("/api/pi/settings/mcp") && request.method === "GET")
        return { body: mcpInventory("m1", [mcpServer("docs")]) };
      if (request.path === "/api/pi/settings/mcp" && request.method === "DELETE") return { status: 409, body: { error: REVISION_STALE } };
      return { body: inventory("r1", []) };
    });
    const store = usePiSettingsStore();
    await Promise.all([store.loadProviders(), store.loadMcp()]);
    expect(await store.removeMcpServer("docs")).toMatchObject({ ok: false, stale: true });
    expect(requests.at(-1)).toEqual({ method: "DELETE", path: "/api/pi/settings/mcp", body: { name: "docs", revision: "m1" } });
    expect(store.stale).toEqual({ scope: "mcp", message: REVISION_STALE });
    // Provider writes are not blocked by a stale mcp.json.
    expect(await store.putProvider({ id: "x", values: { name: "X" } })).toEqual({ ok: true });
  });

  it("counts a models change when the modal closes after a provider write or a sign-in, not after nothing or an MCP write", async () => {
    serve((request) => {
      if (request.path.includes("/mcp")) return { body: mcpInventory("m2") };
      return { body: inventory("r1", [local]) };
    });
    const store = usePiSettingsStore();
    await Promise.all([store.loadProviders(), store.loadMcp()]);

    store.opened();
    store.closed();
    expect(store.modelsChangeCount).toBe(0);

    store.opened();
    await store.putMcpServer({ name: "docs", create: true, values: { url: "http://localhost:3000/mcp" } });
    store.closed();
    expect(store.modelsChangeCount).toBe(0);

    store.opened();
    await store.putModel({ providerId: "local-llm", modelId: "qwen", kind: "custom", create: true, values: { contextWindow: 32_000 } });
    expect(store.modelsChangeCount).toBe(0); // not while the modal is open
    store.closed();
    expect(store.modelsChangeCount).toBe(1);

    store.opened();
    await store.providerActionEnded(true);
    store.closed();
    expect(store.modelsChangeCount).toBe(2);
  });
});
