import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it } from "vitest";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import { useComposerDraftStore } from "../../stores/composer-draft.store.ts";
import { activeOf, cleanedAfterEach, fakeBackend } from "../composer/composer.fixture.ts";
import { assistantEntry, userEntry } from "./transcript.fixture.ts";
import TranscriptView from "./TranscriptView.vue";

const mounted = cleanedAfterEach();

describe("TranscriptView fork", () => {
  it("forking at a prompt offers its text to the new session's composer, as pi puts it back in the editor", async () => {
    setActivePinia(createPinia());
    mounted.backend = fakeBackend((request) =>
      request.path === "/api/pi/sessions/s1/fork"
        ? { body: { ok: true, active: activeOf({}, 1, "forked-1"), detail: { session: {}, entries: [] }, editorText: "Use OAuth instead" } }
        : undefined,
    );
    await loadMarkdownRenderer();
    const entries = [
      userEntry("u1", "Add a login page", 1),
      assistantEntry("a1", "Which method?", null, 2),
      userEntry("u2", "Use OAuth instead", 3),
    ];
    mounted.wrapper = mount(TranscriptView, { props: { sessionId: "s1", entries }, attachTo: document.body });
    await flushPromises();
    await mounted.wrapper.get('[data-test=entry][data-entry-id="u2"] [data-test=entry-fork]').trigger("click");
    await flushPromises();
    expect(mounted.backend.requests).toEqual([{ method: "POST", path: "/api/pi/sessions/s1/fork", body: { entryId: "u2" } }]);
    expect(useComposerDraftStore().pending("forked-1")?.text).toBe("Use OAuth instead");
    expect(useComposerDraftStore().pending("s1")).toBeNull();
    expect(mounted.wrapper.emitted("forked")).toEqual([["forked-1"]]);
  });

  it("forking at an answer offers nothing", async () => {
    setActivePinia(createPinia());
    mounted.backend = fakeBackend(() => ({
      body: { ok: true, active: activeOf({}, 1, "forked-2"), detail: { session: {}, entries: [] } },
    }));
    await loadMarkdownRenderer();
    const entries = [userEntry("u1", "Add a login page", 1), assistantEntry("a1", "Which method?", null, 2)];
    mounted.wrapper = mount(TranscriptView, { props: { sessionId: "s1", entries }, attachTo: document.body });
    await flushPromises();
    await mounted.wrapper.get('[data-test=entry][data-entry-id="a1"] [data-test=entry-fork]').trigger("click");
    await flushPromises();
    expect(useComposerDraftStore().pending("forked-2")).toBeNull();
    expect(mounted.wrapper.emitted("forked")).toEqual([["forked-2"]]);
  });
});
