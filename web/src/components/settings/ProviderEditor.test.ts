import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it } from "vitest";
import type { ProviderSettings } from "../../api/pi-settings.ts";
import { REVISION_STALE, usePiSettingsStore } from "../../stores/pi-settings.store.ts";
import { fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import { inventory, model, operation, provider } from "./pi-settings.fixture.ts";
import ProviderEditor from "./ProviderEditor.vue";

let backend: ReturnType<typeof fakeBackend> | undefined;
let wrapper: VueWrapper | undefined;
afterEach(() => {
  wrapper?.unmount();
  wrapper = undefined;
  backend?.restore();
  backend = undefined;
});

async function mountEditor(saved: ProviderSettings | null, handler: (request: RecordedRequest) => FakeAnswer | undefined) {
  backend = fakeBackend(handler);
  const pinia = createPinia();
  setActivePinia(pinia);
  const store = usePiSettingsStore();
  store.setTarget({ cwd: "/work/app" });
  store.providers = inventory("rev-1", saved === null ? [] : [saved]);
  wrapper = mount(ProviderEditor, { props: { provider: saved }, global: { plugins: [pinia] }, attachTo: document.body });
  await flushPromises();
  return { wrapper, requests: backend.requests, store };
}

const puts = (requests: RecordedRequest[]) => requests.filter((r) => r.method === "PUT");

describe("ProviderEditor", () => {
  it("adds a local OpenAI-compatible server: id, base URL, OpenAI completions by default, no key", async () => {
    const created = provider("local-llm");
    const { wrapper: w, requests } = await mountEditor(null, () => ({ body: inventory("rev-2", [created]) }));
    expect((w.get("[data-test=provider-api]").element as HTMLSelectElement).value).toBe("openai-completions");
    expect(w.findAll("[data-test=provider-api] option")).toHaveLength(10);
    await w.get("[data-test=provider-id]").setValue("local-llm");
    await w.get("[data-test=provider-name]").setValue("Local LLM");
    await w.get("[data-test=provider-base-url]").setValue("http://localhost:8080/v1");
    await w.get("[data-test=provider-save]").trigger("click");
    await flushPromises();

    expect(puts(requests)).toEqual([
      {
        method: "PUT",
        path: "/api/pi/settings/providers",
        body: {
          id: "local-llm",
          create: true,
          values: { name: "Local LLM", baseUrl: "http://localhost:8080/v1", api: "openai-completions" },
          revision: "rev-1",
          target: { cwd: "/work/app" },
        },
      },
    ]);
    expect(w.emitted("saved")).toEqual([["local-llm"]]);
  });

  it("typing a key sends it; an edit sends only the changed fields; Remove sends apiKey null; a saved key is never shown", async () => {
    const saved = provider("local-llm", { configured: true, authLabel: "models.json key" }, { apiKeyConfigured: true, name: "Local" });
    const { wrapper: w, requests } = await mountEditor(saved, () => ({ body: inventory("rev-2", [saved]) }));
    expect(w.find("[data-test=provider-id]").exists()).toBe(false);
    expect(w.get("[data-test=provider-key-configured]").text()).toContain("never shown");
    expect((w.get("[data-test=provider-api-key]").element as HTMLInputElement).value).toBe("");
    expect((w.get("[data-test=provider-key-keep]").element as HTMLInputElement).checked).toBe(true);

    await w.get("[data-test=provider-api]").setValue("anthropic-messages");
    await w.get("[data-test=provider-key-remove]").setValue(true);
    await w.get("[data-test=provider-save]").trigger("click");
    await flushPromises();
    expect(puts(requests).at(-1)?.body).toEqual({
      id: "local-llm",
      values: { api: "anthropic-messages", apiKey: null },
      revision: "rev-1",
      target: { cwd: "/work/app" },
    });

    // Typing a key (after Keep: Remove disables the field) switches to Replace.
    await w.get("[data-test=provider-key-keep]").setValue(true);
    await w.get("[data-test=provider-api-key]").setValue("!pass show llm");
    expect((w.get("[data-test=provider-key-replace]").element as HTMLInputElement).checked).toBe(true);
  });

  it("on a stale revision keeps the form, shows the message and Refresh; Refresh re-reads without saving", async () => {
    let revision = "rev-1";
    const saved = provider("local-llm");
    const {
      wrapper: w,
      requests,
      store,
    } = await mountEditor(saved, (request) => {
      if (request.method === "GET") return { body: inventory(revision, [saved]) };
      return { status: 409, body: { error: REVISION_STALE } };
    });
    revision = "rev-by-hand";
    await w.get("[data-test=provider-base-url]").setValue("http://localhost:11434/v1");
    await w.get("[data-test=provider-save]").trigger("click");
    await flushPromises();

    expect(w.get("[data-test=stale-message]").text()).toContain(REVISION_STALE);
    expect(w.find("[data-test=provider-form-error]").exists()).toBe(false);
    expect(w.get("[data-test=provider-save]").attributes("disabled")).toBeDefined();
    expect((w.get("[data-test=provider-base-url]").element as HTMLInputElement).value).toBe("http://localhost:11434/v1");

    await w.get("[data-test=stale-refresh]").trigger("click");
    await flushPromises();
    expect(requests.map((r) => r.method)).toEqual(["PUT", "GET"]);
    expect(store.providers?.revision).toBe("rev-by-hand");
    expect(w.find("[data-test=stale-message]").exists()).toBe(false);
    expect((w.get("[data-test=provider-base-url]").element as HTMLInputElement).value).toBe("http://localhost:11434/v1");
    expect(w.get("[data-test=provider-save]").attributes("disabled")).toBeUndefined();
  });

  it("tests the unsaved form as a provider draft and shows the time and HTTP status", async () => {
    const saved = provider("local-llm", {}, {});
    saved.models = [model("qwen3-coder")];
    const done = operation("t1", {
      state: "completed",
      result: { providerId: "local-llm", modelId: "qwen3-coder", action: "test", durationMs: 250, httpStatus: 200 },
    });
    const { wrapper: w, requests } = await mountEditor(saved, (request) => (request.path.endsWith("/action") ? { body: done } : undefined));
    await w.get("[data-test=provider-base-url]").setValue("http://127.0.0.1:8081/v1");
    expect((w.get("[data-test=provider-test-model]").element as HTMLInputElement).value).toBe("qwen3-coder");
    await w.get("[data-test=provider-test-draft]").trigger("click");
    await flushPromises();
    expect(requests.at(-1)).toEqual({
      method: "POST",
      path: "/api/pi/settings/providers/action",
      body: {
        providerId: "local-llm",
        action: "test",
        modelId: "qwen3-coder",
        draft: { type: "provider", create: false, revision: "rev-1", values: { baseUrl: "http://127.0.0.1:8081/v1" } },
        target: { cwd: "/work/app" },
      },
    });
    expect(w.get("[data-test=test-result]").text()).toBe("Connected in 250 ms (HTTP 200).");
    expect(puts(requests)).toEqual([]);
  });
});
