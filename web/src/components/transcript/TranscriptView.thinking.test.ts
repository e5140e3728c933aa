import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it } from "vitest";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import { useAppSettingsStore } from "../../stores/app-settings.store.ts";
import { cleanedAfterEach, fakeBackend } from "../composer/composer.fixture.ts";
import { assistantEntry } from "./transcript.fixture.ts";
import TranscriptView from "./TranscriptView.vue";

/** The thinking default of Settings › Appearance (ui.thinking_default), as the transcript applies it. */
const mounted = cleanedAfterEach();

async function mountWithStored(value: "" | "collapsed" | "expanded") {
  setActivePinia(createPinia());
  mounted.backend = fakeBackend((request) =>
    request.path === "/api/leyline/settings/ui.thinking_default" ? { body: { key: "ui.thinking_default", value } } : undefined,
  );
  await useAppSettingsStore().load();
  await loadMarkdownRenderer();
  const entries = [assistantEntry("a1", "first", "thought one", 1), assistantEntry("a2", "second", "thought two", 2)];
  mounted.wrapper = mount(TranscriptView, { props: { sessionId: "s1", entries }, attachTo: document.body });
  await flushPromises();
  return mounted.wrapper;
}

const openStates = (w: Awaited<ReturnType<typeof mountWithStored>>) =>
  w.findAll("[data-test=thinking]").map((t) => t.attributes("data-open"));

describe("TranscriptView thinking default from the app settings", () => {
  it("starts collapsed when nothing is stored", async () => {
    const w = await mountWithStored("");
    expect(openStates(w)).toEqual(["false", "false"]);
    expect(w.find("[data-test=thinking-text]").exists()).toBe(false);
  });

  it("starts expanded when expanded is stored", async () => {
    const w = await mountWithStored("expanded");
    expect(openStates(w)).toEqual(["true", "true"]);
    expect(w.findAll("[data-test=thinking-text]").map((t) => t.text())).toEqual(["thought one", "thought two"]);
  });

  it("a changed default applies to the blocks not toggled by hand; a toggled one keeps its state", async () => {
    const w = await mountWithStored("collapsed");
    await w.get('[data-entry-id="a2"] [data-test=thinking-toggle]').trigger("click");
    expect(openStates(w)).toEqual(["false", "true"]);

    useAppSettingsStore().thinkingDefault = "expanded";
    await flushPromises();
    expect(openStates(w)).toEqual(["true", "true"]);

    await w.get('[data-entry-id="a2"] [data-test=thinking-toggle]').trigger("click");
    useAppSettingsStore().thinkingDefault = "collapsed";
    await flushPromises();
    expect(openStates(w)).toEqual(["false", "false"]);
    useAppSettingsStore().thinkingDefault = "expanded";
    await flushPromises();
    expect(openStates(w)).toEqual(["true", "false"]);
  });
});
