/**
 * `/sessions/<id>?entry=<entry id>` (a search hit): the workbench hands the entry to the transcript to focus, then
 * drops it from the URL (so the same hit opened again focuses again).
 */
import "../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryHistory } from "vue-router";
import { fakeBackend } from "../components/composer/composer.fixture.ts";
import { syntheticTranscript } from "../components/transcript/transcript.fixture.ts";
import { detailSession } from "../lib/live-messages.fixture.ts";
import { loadMarkdownRenderer } from "../markdown/load-markdown.ts";
import { createAppRouter } from "../router.ts";
import { useOpenSessionStore } from "../stores/open-session.store.ts";
import SessionView from "./SessionView.vue";

describe("SessionView ?entry=", () => {
  let backend: ReturnType<typeof fakeBackend> | undefined;
  afterEach(() => {
    document.body.innerHTML = "";
    backend?.restore();
    backend = undefined;
  });

  it("opens the transcript at the entry, then drops the entry from the URL", async () => {
    backend = fakeBackend();
    await loadMarkdownRenderer();
    const pinia = createPinia();
    setActivePinia(pinia);
    const entries = syntheticTranscript(8);
    useOpenSessionStore().$patch((state) => {
      Object.assign(state, {
        id: "s1",
        detail: { session: detailSession("s1"), entries },
        status: "ready",
        error: "",
        runtimeStatus: "none",
      });
    });
    const router = createAppRouter(createMemoryHistory());
    await router.push("/sessions/s1?entry=n2");
    const wrapper = mount(SessionView, { props: { id: "s1" }, global: { plugins: [pinia, router] }, attachTo: document.body });
    await flushPromises();
    await vi.waitFor(() => expect(router.currentRoute.value.fullPath).toBe("/sessions/s1"));
    expect(wrapper.findAll(".row[data-focused=true] [data-test=entry]").map((e) => e.attributes("data-entry-id"))).toEqual(["n2"]);
    wrapper.unmount();
  });
});
