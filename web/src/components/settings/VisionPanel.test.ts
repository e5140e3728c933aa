import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it } from "vitest";
import { CAPABILITY_NAMES, type CapabilityName } from "../../backend-info.ts";
import type { VisionConfig, VisionOverrides, VisionScope } from "../../../../domain/vision/vision-types.ts";
import { visionConfigValues } from "../../../../domain/vision/vision-resolution.ts";
import { activeSnapshot } from "../../lib/active.fixture.ts";
import { detailSession } from "../../lib/live-messages.fixture.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import { useOpenSessionStore } from "../../stores/open-session.store.ts";
import { useSessionsStore } from "../../stores/sessions.store.ts";
import { cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import SettingsModal from "./SettingsModal.vue";
import VisionPanel from "./VisionPanel.vue";

const mounted = cleanedAfterEach();

const SESSION = detailSession("s1", { cwd: "/w/project", path: "/agent/sessions/s1.jsonl" });
const MODELS = [
  { id: "eyes", name: "Eyes", provider: "p", supportsImages: true, supportsUltrafast: false, availableThinkingLevels: ["off"] },
  { id: "blind", name: "Blind", provider: "p", supportsImages: false, supportsUltrafast: false, availableThinkingLevels: ["off"] },
  { id: "lens", name: "lens", provider: "q", supportsImages: true, supportsUltrafast: false, availableThinkingLevels: ["off"] },
];

/** A vision backend over a map of overrides (as the server stores them), with the server's resolution. */
function visionBackend(initial: VisionOverrides = {}, options: { refuse?: string } = {}) {
  let overrides: VisionOverrides = structuredClone(initial);
  const answer = (query: URLSearchParams | Record<string, unknown>): VisionConfig => {
    const get = (key: string) => (query instanceof URLSearchParams ? query.get(key) : (query[key] as string | undefined)) ?? null;
    const sessionFile = get("sessionPath");
    const applying: VisionOverrides = { ...(overrides.global ? { global: overrides.global } : {}) };
    if (overrides.project) applying.project = overrides.project;
    if (sessionFile !== null && overrides.session) applying.session = overrides.session;
    return {
      context: {
        cwd: get("cwd") ?? "",
        projectId: "pid",
        projectName: "project",
        projectRoot: "/w/project",
        sessionAvailable: sessionFile !== null,
        sessionFile,
        sessionId: sessionFile !== null ? "s1" : null,
      },
      overrides: applying,
      ...visionConfigValues(applying),
    };
  };
  return (request: RecordedRequest): FakeAnswer | undefined => {
    const url = new URL(request.path, "http://x");
    if (url.pathname === "/api/pi/state") return { body: { active: activeSnapshot("preview", 1, { availableModels: MODELS }) } };
    if (url.pathname === "/api/pi/vision/config") return { body: answer(url.searchParams) };
    if (url.pathname !== "/api/pi/vision/override") return undefined;
    const body = request.body as { scope: VisionScope; model?: string; thinking?: string };
    if (options.refuse !== undefined && request.method === "PUT") return { status: 400, body: { error: options.refuse } };
    if (request.method === "DELETE") delete overrides[body.scope];
    else if ((body.model ?? "") === "" && (body.thinking ?? "") === "") delete overrides[body.scope];
    else overrides = { ...overrides, [body.scope]: { model: body.model ?? "", thinking: body.thinking ?? "" } };
    return { body: answer(body as unknown as Record<string, unknown>) };
  };
}

function pinia(withSession: boolean) {
  const store = createPinia();
  setActivePinia(store);
  const capabilities = Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, false])) as Record<CapabilityName, boolean>;
  useBackendStore().$patch({ status: "ready", info: { name: "Leyline", version: "0.1.0", apiVersion: 2, capabilities } });
  useSessionsStore().setProject("/w/chosen");
  if (withSession) {
    useOpenSessionStore().$patch((state) => {
      Object.assign(state, { id: "s1", detail: { session: SESSION, entries: [] }, status: "ready" });
    });
  }
  return store;
}

async function mountPanel(options: { session?: boolean; overrides?: VisionOverrides; refuse?: string } = {}) {
  const store = pinia(options.session ?? false);
  mounted.backend = fakeBackend(visionBackend(options.overrides, options.refuse !== undefined ? { refuse: options.refuse } : {}));
  mounted.wrapper = mount(VisionPanel, { global: { plugins: [store] }, attachTo: document.body });
  await flushPromises();
  return { w: mounted.wrapper, requests: mounted.backend.requests };
}

const writes = (requests: RecordedRequest[]) =>
  requests.filter((r) => r.method === "PUT" || r.method === "DELETE").map((r) => [r.method, r.body]);
const options = (w: Awaited<ReturnType<typeof mountPanel>>["w"], selector: string) =>
  w
    .get(selector)
    .findAll("option")
    .map((option) => option.text());

describe("Settings › Vision", () => {
  it("without an open session offers only the setting for everywhere, read for the chosen project", async () => {
    const { w, requests } = await mountPanel();
    expect(requests.map((r) => r.path)).toEqual(
      expect.arrayContaining(["/api/pi/vision/config?cwd=%2Fw%2Fchosen", "/api/pi/state?cwd=%2Fw%2Fchosen"]),
    );
    expect(w.findAll("form").map((form) => form.attributes("data-test"))).toEqual(["vision-scope-global"]);
    expect(w.get("[data-test=vision-session-hint]").text()).toContain("Open a session");
    expect(w.get("[data-test=vision-effective-model]").text()).toContain("none");
    expect(w.get("[data-test=vision-model-source]").text()).toContain("not set");
    // Only the available models with image input are offered.
    expect(options(w, "[data-test=vision-global-model]")).toEqual(["Not set", "p/eyes · Eyes", "q/lens"]);
    expect(options(w, "[data-test=vision-global-thinking]")).toContain("The session's level");
    expect(w.get("[data-test=vision-global-save]").attributes("disabled")).toBeDefined();
    expect(w.get("[data-test=vision-global-clear]").attributes("disabled")).toBeDefined();
  });

  it("saves model and thinking of a scope and shows what applies and where it comes from", async () => {
    const { w, requests } = await mountPanel();
    await w.get("[data-test=vision-global-model]").setValue("p/eyes");
    await w.get("[data-test=vision-global-thinking]").setValue("inherit");
    await w.get("[data-test=vision-scope-global]").trigger("submit");
    await flushPromises();
    expect(writes(requests)).toEqual([["PUT", { cwd: "/w/chosen", scope: "global", model: "p/eyes", thinking: "inherit" }]]);
    expect(w.get("[data-test=vision-effective-model]").text()).toBe("p/eyes");
    expect(w.get("[data-test=vision-model-source]").text()).toContain("set everywhere");
    expect(w.get("[data-test=vision-effective-thinking]").text()).toBe("the session's level");
    expect(w.get("[data-test=vision-global-save]").attributes("disabled")).toBeDefined();
    expect(w.get("[data-test=vision-global-clear]").attributes("disabled")).toBeUndefined();
  });

  it("with an open session offers its project and the session, each inheriting model and thinking on its own", async () => {
    const { w, requests } = await mountPanel({
      session: true,
      overrides: {
        global: { model: "p/eyes", thinking: "low" },
        project: { model: "", thinking: "high" },
        session: { model: "gone/model", thinking: "" },
      },
    });
    expect(requests.some((r) => r.path === "/api/pi/vision/config?cwd=%2Fw%2Fproject&sessionPath=%2Fagent%2Fsessions%2Fs1.jsonl")).toBe(
      true,
    );
    expect(w.findAll("form").map((form) => form.attributes("data-test"))).toEqual([
      "vision-scope-global",
      "vision-scope-project",
      "vision-scope-session",
    ]);
    expect(w.get("[data-test=vision-scope-project] legend").text()).toBe("This project (project)");
    expect(w.get("[data-test=vision-effective-model]").text()).toBe("gone/model");
    expect(w.get("[data-test=vision-model-source]").text()).toContain("set for this session");
    expect(w.get("[data-test=vision-effective-thinking]").text()).toBe("high");
    expect(w.get("[data-test=vision-thinking-source]").text()).toContain("set for this project");
    // The stored session model is not available: still shown, marked.
    expect(w.get<HTMLSelectElement>("[data-test=vision-session-model]").element.value).toBe("gone/model");
    expect(options(w, "[data-test=vision-session-model]")).toContain("gone/model (not available)");

    await w.get("[data-test=vision-session-clear]").trigger("click");
    await flushPromises();
    expect(writes(requests)).toEqual([["DELETE", { cwd: "/w/project", sessionPath: "/agent/sessions/s1.jsonl", scope: "session" }]]);
    expect(w.get("[data-test=vision-effective-model]").text()).toBe("p/eyes");
    expect(w.get("[data-test=vision-model-source]").text()).toContain("set everywhere");
  });

  it("shows a refused change inline and keeps the form", async () => {
    const { w } = await mountPanel({ refuse: "thinking must be one of inherit, off" });
    await w.get("[data-test=vision-global-model]").setValue("q/lens");
    await w.get("[data-test=vision-scope-global]").trigger("submit");
    await flushPromises();
    expect(w.get("[data-test=vision-global-error]").text()).toBe("thinking must be one of inherit, off");
    expect(w.get<HTMLSelectElement>("[data-test=vision-global-model]").element.value).toBe("q/lens");
    expect(w.get("[data-test=vision-effective-model]").text()).toContain("none");
  });
});

describe("Settings modal › Vision section", () => {
  async function mountModal(handler: (request: RecordedRequest) => FakeAnswer | undefined) {
    const store = pinia(false);
    mounted.backend = fakeBackend(handler);
    mounted.wrapper = mount(SettingsModal, { global: { plugins: [store] }, attachTo: document.body });
    await flushPromises();
    return mounted.wrapper;
  }

  it("is offered when the backend serves the vision routes", async () => {
    const w = await mountModal(visionBackend());
    expect(w.findAll("[role=tab]").map((tab) => tab.text())).toContain("Vision");
    await w.get("[data-test=settings-section-vision]").trigger("click");
    expect(w.get("[data-test=settings-vision]").isVisible()).toBe(true);
  });

  it("is not offered when the backend answers anything but a vision configuration", async () => {
    const w = await mountModal((request) =>
      request.path.startsWith("/api/pi/vision") ? { status: 404, body: { error: "Not found" } } : undefined,
    );
    expect(w.findAll("[role=tab]").map((tab) => tab.text())).not.toContain("Vision");
  });
});
