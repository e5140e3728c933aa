import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryHistory } from "vue-router";
import type { BackendInfo } from "../backend-info.ts";
import { fakeBackend } from "../components/composer/composer.fixture.ts";
import { detailSession } from "../lib/live-messages.fixture.ts";
import { createAppRouter } from "../router.ts";
import { useBackendStore } from "../stores/backend.store.ts";
import { useOpenSessionStore } from "../stores/open-session.store.ts";
import SessionView from "./SessionView.vue";

/** The session header's Export button (GET /api/pi/sessions/:id/export answers the HTML as an attachment). */
async function mountView(id: string, exportsCapability?: boolean) {
  const pinia = createPinia();
  setActivePinia(pinia);
  useOpenSessionStore().$patch((state) => {
    Object.assign(state, { id, detail: { session: detailSession(id), entries: [] }, status: "ready", error: "", runtimeStatus: "none" });
  });
  if (exportsCapability !== undefined) {
    useBackendStore().$patch((state) => {
      state.info = { capabilities: { exports: exportsCapability } } as unknown as BackendInfo;
    });
  }
  const router = createAppRouter(createMemoryHistory());
  await router.push(`/sessions/${id}`);
  const wrapper = mount(SessionView, { props: { id }, global: { plugins: [pinia, router] }, attachTo: document.body });
  await flushPromises();
  return wrapper;
}

describe("SessionView export", () => {
  let backend: ReturnType<typeof fakeBackend> | undefined;
  afterEach(() => {
    document.body.innerHTML = "";
    backend?.restore();
    backend = undefined;
  });

  it("offers the session's HTML export as a download link in the header", async () => {
    backend = fakeBackend();
    const wrapper = await mountView("s 1");
    const link = wrapper.get(".session-head [data-test=session-export]");
    expect(link.element.tagName).toBe("A");
    expect(link.attributes("href")).toBe("/api/pi/sessions/s%201/export");
    expect(link.attributes("download")).toBeDefined();
    expect(link.text()).toBe("Export");
    expect(link.find("svg[data-icon=download]").exists()).toBe(true);
    expect(backend.requests).toEqual([]);
    wrapper.unmount();
  });

  it("hides it when the backend says it has no exports", async () => {
    backend = fakeBackend();
    const wrapper = await mountView("s1", false);
    expect(wrapper.find("[data-test=session-export]").exists()).toBe(false);
    wrapper.unmount();
  });
});
