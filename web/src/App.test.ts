import { mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it } from "vitest";
import App from "./App.vue";
import { CAPABILITY_NAMES } from "./backend-info.ts";
import { useBackendStore } from "./stores/backend.store.ts";

function mountWith(state: Partial<ReturnType<typeof useBackendStore>["$state"]>) {
  const pinia = createPinia();
  setActivePinia(pinia);
  useBackendStore().$patch(state);
  return mount(App, { global: { plugins: [pinia] } });
}

const capabilities = Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, name === "research"])) as Record<
  (typeof CAPABILITY_NAMES)[number],
  boolean
>;

describe("App", () => {
  it("shows the backend's name, version, API version and which capabilities are available", () => {
    const wrapper = mountWith({ status: "ready", info: { name: "Leyline", version: "0.1.0", apiVersion: 2, capabilities } });
    expect(wrapper.get("[data-test=name]").text()).toBe("Leyline");
    expect(wrapper.get("[data-test=version]").text()).toBe("0.1.0");
    expect(wrapper.get("[data-test=api-version]").text()).toBe("2");
    expect(wrapper.get("[data-capability=research]").classes()).toContain("on");
    expect(wrapper.get("[data-capability=research]").text()).toContain("available");
    expect(wrapper.get("[data-capability=terminal]").classes()).not.toContain("on");
    expect(wrapper.get("[data-capability=terminal]").text()).toContain("not yet");
    expect(wrapper.text()).toContain("1 of 9 available");
    expect(wrapper.find("[data-test=problem]").exists()).toBe(false);
  });

  it("says why a backend cannot be used", () => {
    const wrapper = mountWith({
      status: "incompatible",
      problem: "The backend speaks API version 1; this client needs 2.",
      info: { name: "Leyline", version: "0.0.1", apiVersion: 1, capabilities },
    });
    expect(wrapper.get("[data-test=problem]").text()).toContain("Incompatible backend");
    expect(wrapper.get("[data-test=problem]").text()).toContain("API version 1");
  });
});
