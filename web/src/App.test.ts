import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryHistory } from "vue-router";
import App from "./App.vue";
import { CAPABILITY_NAMES } from "./backend-info.ts";
import { createAppRouter } from "./router.ts";
import { useBackendStore } from "./stores/backend.store.ts";
import { useConnectionStore } from "./stores/connection.store.ts";
import { useNoticesStore } from "./stores/notices.store.ts";
import { ApiError } from "./api/http.ts";

const capabilities = Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, false])) as Record<
  (typeof CAPABILITY_NAMES)[number],
  boolean
>;

async function mountApp(width = 1280) {
  (window as unknown as { happyDOM: { setViewport(v: { width: number; height: number }): void } }).happyDOM.setViewport({
    width,
    height: 800,
  });
  const pinia = createPinia();
  setActivePinia(pinia);
  useBackendStore().$patch({ status: "ready", info: { name: "Leyline", version: "0.1.0", apiVersion: 2, capabilities } });
  const router = createAppRouter(createMemoryHistory());
  await router.push("/");
  // `live: false`: no requests, no events socket (the stores are tested against the real backend elsewhere).
  const wrapper = mount(App, {
    props: { live: false },
    global: { plugins: [pinia, router], stubs: { RouterView: true } },
    attachTo: document.body,
  });
  await flushPromises();
  return { wrapper, router };
}

const press = (key: string, init: KeyboardEventInit = {}) =>
  window.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init }));

describe("App shell", () => {
  beforeEach(() => {
    localStorage.clear();
    document.documentElement.removeAttribute("data-theme");
  });
  afterEach(() => {
    document.body.innerHTML = "";
  });

  it("shows the connection status, the sidebar and the main region", async () => {
    const { wrapper } = await mountApp();
    const status = wrapper.get("[data-test=connection-status]");
    expect(status.attributes("data-state")).toBe("offline");
    expect(status.text()).toContain("Offline");
    useConnectionStore().$patch({ status: "connected", started: true });
    await flushPromises();
    expect(status.attributes("data-state")).toBe("connected");
    expect(status.get("[role=status]").text()).toBe("Live");
    expect(wrapper.find("[data-test=sidebar]").exists()).toBe(true);
    expect(wrapper.get("main#main").attributes("tabindex")).toBe("-1");
    expect(wrapper.get("a.skip").attributes("href")).toBe("#main");
  });

  it("says how many events behind it is while a resumed stream catches up", async () => {
    const { wrapper } = await mountApp();
    const connection = useConnectionStore();
    connection.$patch({ status: "connected", started: true, behind: 12 });
    await flushPromises();
    expect(wrapper.get("[data-test=events-behind]").text()).toBe("12 events behind");
    expect(wrapper.get("[data-test=connection-status]").attributes("title")).toContain("Catching up");
    connection.$patch({ behind: 1 });
    await flushPromises();
    expect(wrapper.get("[data-test=events-behind]").text()).toBe("1 event behind");
    connection.$patch({ behind: 0 });
    await flushPromises();
    expect(wrapper.find("[data-test=events-behind]").exists()).toBe(false);
    // Offline, nothing is "behind": the pill says offline.
    connection.$patch({ status: "offline", behind: 5 });
    await flushPromises();
    expect(wrapper.find("[data-test=events-behind]").exists()).toBe(false);
  });

  it("toggles the theme (dark first) and remembers it", async () => {
    const { wrapper } = await mountApp();
    const toggle = wrapper.get("[data-test=theme-toggle]");
    expect(toggle.attributes("aria-label")).toBe("Switch to the light theme");
    await toggle.trigger("click");
    expect(document.documentElement.dataset["theme"]).toBe("light");
    expect(localStorage.getItem("leyline.theme")).toBe("light");
    expect(toggle.attributes("aria-label")).toBe("Switch to the dark theme");
    await toggle.trigger("click");
    expect(document.documentElement.dataset["theme"]).toBe("dark");
    expect(localStorage.getItem("leyline.theme")).toBe("dark");
  });

  it("opens the shortcut help with ? and closes it with Escape", async () => {
    const { wrapper } = await mountApp();
    expect(wrapper.find("[data-test=shortcuts-help]").exists()).toBe(false);
    press("?", { shiftKey: true });
    await flushPromises();
    const help = wrapper.get("[data-test=shortcuts-help]");
    for (const text of ["New session", "Search sessions", "Focus the composer", "Send", "Interrupt"]) expect(help.text()).toContain(text);
    expect(wrapper.get("[data-test=shortcuts-button]").attributes("aria-expanded")).toBe("true");
    await help.trigger("keydown", { key: "Escape" });
    expect(wrapper.find("[data-test=shortcuts-help]").exists()).toBe(false);
  });

  it("Alt+N goes to the start screen; Ctrl+K focuses the session search", async () => {
    const { router } = await mountApp();
    press("k", { code: "KeyK", ctrlKey: true });
    await flushPromises();
    expect(document.activeElement?.getAttribute("data-test")).toBe("session-search");
    press("n", { code: "KeyN", altKey: true });
    await flushPromises();
    expect(router.currentRoute.value.fullPath).toBe("/?start=1");
  });

  it("on a phone-sized screen the session list is a drawer", async () => {
    const { wrapper } = await mountApp(390);
    const menu = wrapper.get("button.menu");
    const slot = wrapper.get("#app-sidebar");
    expect(wrapper.get(".app").classes()).toContain("narrow");
    expect(menu.attributes("aria-expanded")).toBe("false");
    expect(slot.attributes("inert")).toBeDefined();
    await menu.trigger("click");
    expect(menu.attributes("aria-expanded")).toBe("true");
    expect(slot.attributes("inert")).toBeUndefined();
    expect(wrapper.get(".app").classes()).toContain("drawer-open");
    await slot.trigger("keydown", { key: "Escape" });
    expect(menu.attributes("aria-expanded")).toBe("false");
  });

  it("shows API errors in words and says why a backend cannot be used", async () => {
    const { wrapper } = await mountApp();
    useNoticesStore().report(new ApiError(409, "Queue revision is stale"), "Moving the task");
    useBackendStore().$patch({ status: "incompatible", problem: "The backend speaks API version 1; this client needs 2." });
    await flushPromises();
    const error = wrapper.get("[data-test=api-error]");
    expect(error.attributes("role")).toBe("alert");
    expect(error.text()).toContain("Moving the task failed.");
    expect(error.text()).toContain("Queue revision is stale");
    expect(wrapper.get("[data-test=problem]").text()).toContain("Incompatible backend");
    await error.get("button").trigger("click");
    expect(wrapper.find("[data-test=api-error]").exists()).toBe(false);
  });
});
