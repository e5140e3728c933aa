import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMemoryHistory } from "vue-router";
import App from "../../App.vue";
import type { OperationSnapshot, ProviderInventory, ProviderSettings } from "../../api/pi-settings.ts";
import { CAPABILITY_NAMES } from "../../backend-info.ts";
import { createAppRouter } from "../../router.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import { usePiSettingsStore } from "../../stores/pi-settings.store.ts";
import { useSessionsStore } from "../../stores/sessions.store.ts";
import { activeOf, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import { mcpInventory, mcpServer, model, operation, provider } from "./pi-settings.fixture.ts";
import { POLL_INTERVAL_MS } from "./use-settings-operation.ts";

const PROJECT = "/work/app";

/** A small Pi Settings backend: models.json as a provider list with a revision; operations answered from a script. */
function settingsBackend() {
  let revision = 1;
  const providers: ProviderSettings[] = [
    provider(
      "openai",
      { name: "OpenAI", kind: "builtin", authMethods: [{ id: "oauth", label: "ChatGPT" }], models: [model("gpt-x", { kind: "catalog" })] },
      { canEdit: true, hasConfiguration: false, baseUrl: "", api: "" },
    ),
  ];
  const operations: Record<string, OperationSnapshot[]> = {};
  let nextOperation: OperationSnapshot[] = [];
  const inventory = (): ProviderInventory => ({ revision: `r${revision}`, providers: structuredClone(providers) });

  function handle(request: RecordedRequest): FakeAnswer | undefined {
    const path = request.path.split("?")[0] ?? "";
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (path === "/api/pi/fs")
      return { body: { path: PROJECT, parent: "/work", parentPath: "/work", home: "/home", root: "/", entries: [], directories: [] } };
    if (path === "/api/pi/state") return { body: { active: activeOf() } };
    if (path === "/api/leyline/settings/ui.thinking_default") return { body: { key: "ui.thinking_default", value: "" } };
    if (path === "/api/leyline/network-access")
      return {
        body: { available: true, enabled: false, port: null, configuredPort: 0, urls: [], directAccess: false, error: "" },
      };
    if (path === "/api/pi/settings/mcp" && request.method === "GET") return { body: mcpInventory("m1", [mcpServer("docs")]) };
    if (path === "/api/pi/settings/providers" && request.method === "GET") return { body: inventory() };
    if (request.method === "PUT" && body["revision"] !== `r${revision}`)
      return { status: 409, body: { error: "This configuration changed outside this editor. Refresh it before saving." } };
    if (path === "/api/pi/settings/providers" && request.method === "PUT") {
      const values = body["values"] as { name?: string; baseUrl: string; api: string };
      providers.push(
        provider(String(body["id"]), { name: values.name ?? String(body["id"]) }, { baseUrl: values.baseUrl, api: values.api }),
      );
      revision++;
      return { body: inventory() };
    }
    if (path === "/api/pi/settings/models" && request.method === "PUT") {
      const target = providers.find((p) => p.id === body["providerId"]);
      const values = body["values"] as { contextWindow: number; maxTokens: number; reasoning: boolean; input: Array<"text" | "image"> };
      target?.models.push(model(String(body["modelId"]), values));
      revision++;
      return { body: inventory() };
    }
    if (path.endsWith("/action")) {
      const [first, ...rest] = nextOperation;
      if (first === undefined) return { status: 500, body: { error: "no operation scripted" } };
      operations[first.id] = rest;
      return { body: first };
    }
    const polled = /^\/api\/pi\/settings\/operations\/(.+)$/.exec(path);
    if (polled && request.method === "GET") {
      const queue = operations[polled[1] ?? ""] ?? [];
      const next = queue.length > 1 ? queue.shift() : queue[0];
      return next === undefined ? { status: 404, body: { error: "This settings operation expired. Start it again." } } : { body: next };
    }
    if (polled && request.method === "POST") {
      const queue = operations[polled[1] ?? ""] ?? [];
      return { body: queue[0] };
    }
    return undefined;
  }

  return {
    handle,
    /** The snapshots the next action answers with, then each poll (the last one repeats). */
    script: (snapshots: OperationSnapshot[]) => {
      nextOperation = snapshots;
    },
    bumpRevision: () => revision++,
  };
}

let backend: ReturnType<typeof fakeBackend> | undefined;
let wrapper: VueWrapper | undefined;
beforeEach(() => {
  localStorage.clear();
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  wrapper?.unmount();
  wrapper = undefined;
  backend?.restore();
  backend = undefined;
  vi.useRealTimers();
  document.body.innerHTML = "";
});

async function mountApp(piSettings = true) {
  const settings = settingsBackend();
  backend = fakeBackend(settings.handle);
  const pinia = createPinia();
  setActivePinia(pinia);
  const capabilities = Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, name === "piSettings" ? piSettings : false])) as Record<
    (typeof CAPABILITY_NAMES)[number],
    boolean
  >;
  useBackendStore().$patch({ status: "ready", info: { name: "Leyline", version: "0.1.0", apiVersion: 2, capabilities } });
  useSessionsStore().setProject(PROJECT);
  const router = createAppRouter(createMemoryHistory());
  await router.push("/");
  wrapper = mount(App, { props: { live: false }, global: { plugins: [pinia, router] }, attachTo: document.body });
  await flushPromises();
  return { w: wrapper, requests: backend.requests, settings };
}

const press = (init: KeyboardEventInit) => window.dispatchEvent(new KeyboardEvent("keydown", { bubbles: true, cancelable: true, ...init }));

async function poll(times = 1) {
  for (let i = 0; i < times; i++) await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
  await flushPromises();
}

describe("Settings modal", () => {
  it("is offered without Pi Settings too: it opens on Appearance and reads nothing of pi's configuration", async () => {
    const { w, requests } = await mountApp(false);
    press({ key: ",", code: "Comma", altKey: true });
    await flushPromises();
    expect(w.find("[data-test=settings-modal]").exists()).toBe(true);
    const tabs = w.findAll("[role=tab]");
    expect(tabs.map((tab) => tab.text())).toEqual(["Appearance", "Network access", "Connections"]);
    expect(w.get("[data-test=settings-section-appearance]").attributes("aria-selected")).toBe("true");
    expect(document.activeElement?.getAttribute("data-test")).toBe("settings-section-appearance");
    expect(w.get("[data-test=settings-appearance]").isVisible()).toBe(true);
    expect(w.find("[data-test=settings-models]").exists()).toBe(false);
    expect(requests.filter((r) => r.path.startsWith("/api/pi/settings"))).toEqual([]);
    expect(requests.map((r) => r.path)).toEqual(expect.arrayContaining(["/api/leyline/settings/ui.thinking_default"]));
    // A section's panel mounts (and asks its backend) when it is first shown.
    expect(requests.map((r) => r.path)).not.toContain("/api/leyline/network-access");
    expect(w.get("[data-test=settings-reload-note]").text()).toBe("");

    await w.get("[data-test=settings-section-appearance]").trigger("keydown", { key: "ArrowDown" });
    expect(w.get("[data-test=settings-section-network]").attributes("aria-selected")).toBe("true");
    expect(w.get("[data-test=settings-network]").isVisible()).toBe(true);
    expect(w.get("[data-test=settings-appearance]").isVisible()).toBe(false);
    await flushPromises();
    expect(requests.map((r) => r.path)).toContain("/api/leyline/network-access");
    await w.get("[data-test=settings-close]").trigger("click");
    expect(w.find("[data-test=settings-modal]").exists()).toBe(false);
    await w.get("[data-test=settings-open]").trigger("click");
    expect(w.find("[data-test=settings-modal]").exists()).toBe(true);
  });

  it("with Pi Settings lists pi's sections first, then Appearance and Network access", async () => {
    const { w } = await mountApp();
    await w.get("[data-test=settings-open]").trigger("click");
    await flushPromises();
    expect(w.findAll("[role=tab]").map((tab) => tab.text())).toEqual([
      "Models & providers",
      "MCP servers",
      "Appearance",
      "Network access",
      "Connections",
    ]);
    await w.get("[data-test=settings-section-network]").trigger("click");
    expect(w.get("[data-test=settings-network]").isVisible()).toBe(true);
    expect(w.get("[data-test=network-switch]").attributes("role")).toBe("switch");
    expect(w.get("[data-test=settings-reload-note]").text()).toBe("");
  });

  it("opens with the Settings button or Alt+, and shows the providers with their auth state", async () => {
    const { w, requests } = await mountApp();
    press({ key: ",", code: "Comma", altKey: true });
    await flushPromises();
    const modal = w.get("[data-test=settings-modal]");
    expect(modal.attributes("role")).toBe("dialog");
    expect(modal.attributes("aria-modal")).toBe("true");
    expect(document.activeElement?.getAttribute("data-test")).toBe("settings-section-models");
    expect(requests).toContainEqual({
      method: "GET",
      path: `/api/pi/settings/providers?cwd=${encodeURIComponent(PROJECT)}`,
      body: undefined,
    });
    const row = w.get("[data-test=provider-row-openai]");
    expect(row.text()).toContain("OpenAI");
    expect(row.text()).toContain("not configured");
    expect(row.text()).toContain("1 model");
    expect(w.get("[data-test=settings-reload-note]").text()).toBe("Open sessions pick up changes when reloaded.");

    await modal.trigger("keydown", { key: "Escape" });
    expect(w.find("[data-test=settings-modal]").exists()).toBe(false);
    await w.get("[data-test=settings-open]").trigger("click");
    expect(w.find("[data-test=settings-modal]").exists()).toBe(true);
  });

  it("adds a local provider and a model, tests it, and on close the start screen asks for a fresh model list", async () => {
    const { w, requests, settings } = await mountApp();
    await w.get("[data-test=settings-open]").trigger("click");
    await flushPromises();

    await w.get("[data-test=provider-add]").trigger("click");
    await w.get("[data-test=provider-id]").setValue("local-llm");
    await w.get("[data-test=provider-base-url]").setValue("http://localhost:8080/v1");
    await w.get("[data-test=provider-save]").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=provider-form]").exists()).toBe(false);
    expect(w.get("[data-test=provider-row-local-llm]").attributes("aria-expanded")).toBe("true");
    expect(document.activeElement?.getAttribute("data-test")).toBe("provider-row-local-llm");

    await w.get("[data-test=provider-detail-local-llm] [data-test=model-add]").trigger("click");
    await w.get("[data-test=model-id]").setValue("qwen3-coder");
    await w.get("[data-test=model-context-window]").setValue("32768");
    await w.get("[data-test=model-max-tokens]").setValue("4096");
    await w.get("[data-test=model-reasoning]").setValue(true);
    await w.get("[data-test=model-image-input]").setValue(true);
    await w.get("[data-test=model-save]").trigger("click");
    await flushPromises();
    expect(requests.filter((r) => r.method === "PUT").at(-1)).toEqual({
      method: "PUT",
      path: "/api/pi/settings/models",
      body: {
        providerId: "local-llm",
        modelId: "qwen3-coder",
        kind: "custom",
        create: true,
        values: { contextWindow: 32768, maxTokens: 4096, reasoning: true, input: ["text", "image"] },
        revision: "r2",
        target: { cwd: PROJECT },
      },
    });
    const row = w.get("[data-test=model-row-qwen3-coder]");
    expect(row.text()).toContain("32768 context");

    settings.script([
      operation("t1"),
      operation("t1", {
        state: "completed",
        result: { providerId: "local-llm", modelId: "qwen3-coder", action: "test", durationMs: 95, httpStatus: 200 },
      }),
    ]);
    await row.get("[data-test=model-test]").trigger("click");
    await flushPromises();
    expect(requests.at(-1)?.body).toEqual({ providerId: "local-llm", action: "test", modelId: "qwen3-coder", target: { cwd: PROJECT } });
    expect(w.get("[data-test=operation-state]").text()).toBe("Running…");
    await poll();
    expect(w.get("[data-test=test-result]").text()).toBe("Connected in 95 ms (HTTP 200).");

    const before = requests.length;
    await w.get("[data-test=settings-close]").trigger("click");
    await flushPromises();
    expect(usePiSettingsStore().modelsChangeCount).toBe(1);
    expect(requests.slice(before)).toContainEqual({
      method: "GET",
      path: `/api/pi/state?cwd=${encodeURIComponent(PROJECT)}&refresh=1`,
      body: undefined,
    });
  });

  it("signs in with a device code and a prompt, then re-reads the providers", async () => {
    const { w, requests, settings } = await mountApp();
    await w.get("[data-test=settings-open]").trigger("click");
    await flushPromises();
    await w.get("[data-test=provider-row-openai]").trigger("click");
    const prompt = { id: "p1", type: "manual_code" as const, message: "Paste the redirect URL", placeholder: "http://localhost:1455/…" };
    settings.script([
      operation("s1", {
        events: [
          { type: "auth_url", url: "https://auth.example.com/authorize?x=1", instructions: "Sign in with your ChatGPT account." },
          { type: "device_code", verificationUri: "https://auth.example.com/device", userCode: "WXYZ-1234", expiresInSeconds: 900 },
        ],
        prompt,
      }),
      operation("s1", { prompt }),
      operation("s1", { state: "completed", result: { providerId: "openai", action: "login", credentialChanged: true } }),
    ]);
    await w.get("[data-test=signin-start]").trigger("click");
    await flushPromises();
    expect(requests.at(-1)?.body).toEqual({ providerId: "openai", action: "login", authType: "oauth", target: { cwd: PROJECT } });

    const link = w.get("[data-test=operation-auth-url]");
    expect(link.attributes("href")).toBe("https://auth.example.com/authorize?x=1");
    expect(link.attributes("target")).toBe("_blank");
    expect(link.attributes("rel")).toContain("noopener");
    expect(w.get("[data-test=operation-panel]").text()).toContain("Sign in with your ChatGPT account.");
    expect(w.get("[data-test=operation-device-code]").text()).toBe("WXYZ-1234");
    const input = w.get("[data-test=operation-prompt-input]");
    expect(w.get(`label[for="${input.attributes("id")}"]`).text()).toBe("Paste the redirect URL");

    await w.get("[data-test=operation-prompt-input]").setValue("http://localhost:1455/cb?code=abc");
    await w.get("[data-test=operation-prompt-submit]").trigger("click");
    await flushPromises();
    expect(requests.at(-1)).toEqual({
      method: "POST",
      path: "/api/pi/settings/operations/s1",
      body: { promptId: "p1", value: "http://localhost:1455/cb?code=abc" },
    });
    expect(w.get("[data-test=operation-prompt-input]").attributes("disabled")).toBeDefined();

    const reads = requests.filter((r) => r.path.startsWith("/api/pi/settings/providers?")).length;
    await poll(2);
    expect(w.get("[data-test=operation-result]").text()).toBe("Signed in.");
    expect(requests.filter((r) => r.path.startsWith("/api/pi/settings/providers?")).length).toBe(reads + 1);
  });

  it("a model saved after another change shows the stale message and a Refresh, and keeps the form", async () => {
    const { w, requests, settings } = await mountApp();
    await w.get("[data-test=settings-open]").trigger("click");
    await flushPromises();
    await w.get("[data-test=provider-row-openai]").trigger("click");
    await w.get("[data-test=model-row-gpt-x] [data-test=model-edit]").trigger("click");
    await w.get("[data-test=model-max-tokens]").setValue("2048");
    settings.bumpRevision();
    await w.get("[data-test=model-save]").trigger("click");
    await flushPromises();
    expect(w.get("[data-test=stale-message]").text()).toContain(
      "This configuration changed outside this editor. Refresh it before saving.",
    );
    expect(w.find("[data-test=model-form]").exists()).toBe(true);
    await w.get("[data-test=stale-refresh]").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=stale-message]").exists()).toBe(false);
    expect((w.get("[data-test=model-max-tokens]").element as HTMLInputElement).value).toBe("2048");
    await w.get("[data-test=model-save]").trigger("click");
    await flushPromises();
    // The override holds only the changed field, with the re-read revision.
    expect(requests.filter((r) => r.method === "PUT").at(-1)?.body).toMatchObject({
      providerId: "openai",
      modelId: "gpt-x",
      kind: "override",
      create: true,
      values: { maxTokens: 2048 },
      revision: "r2",
    });
  });

  it("lists MCP servers and shows the tools a Check found", async () => {
    const { w, settings } = await mountApp();
    await w.get("[data-test=settings-open]").trigger("click");
    await flushPromises();
    await w.get("[data-test=settings-section-mcp]").trigger("click");
    expect(w.get("[data-test=settings-section-mcp]").attributes("aria-selected")).toBe("true");
    const row = w.get("[data-test=mcp-row-docs]");
    expect(row.text()).toContain("HTTP");
    expect(row.text()).toContain("deferred");
    await row.trigger("click");
    settings.script([
      operation("c1"),
      operation("c1", {
        state: "completed",
        result: {
          report: "Connected to docs: 2 tools.",
          tools: [
            { name: "search", description: "Search the docs", exposure: "deferred" },
            { name: "fetch", description: "", exposure: "deferred" },
          ],
        },
      }),
    ]);
    await w.get("[data-test=mcp-check]").trigger("click");
    await poll();
    const tools = w.get("[data-test=mcp-tools]");
    expect(tools.findAll("[data-test=mcp-tool]").map((t) => t.find("code").text())).toEqual(["search", "fetch"]);
    expect(w.get("[data-test=operation-result]").text()).toContain("Connected to docs: 2 tools.");
  });
});
