import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it } from "vitest";
import type { AssistantMessageTranscriptEntry, TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import { useDialogsStore } from "../../stores/dialogs.store.ts";
import { activeOf, cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import MessageEntry from "./MessageEntry.vue";
import { assistantEntry, toolEntry, userEntry } from "./transcript.fixture.ts";
import TranscriptView from "./TranscriptView.vue";

const mounted = cleanedAfterEach();

function failed(id: string, index = 0): AssistantMessageTranscriptEntry {
  return {
    ...assistantEntry(id, "", null, index),
    blocks: [],
    stopReason: "error",
    errorMessage: "429 Too Many Requests: rate limit reached",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
  };
}

describe("MessageEntry usage", () => {
  it("shows an assistant message's tokens and cost discreetly, with the breakdown on hover", async () => {
    await loadMarkdownRenderer();
    const entry: AssistantMessageTranscriptEntry = {
      ...assistantEntry("a1", "Done.", null),
      usage: {
        input: 1_200,
        output: 350,
        cacheRead: 10_000,
        cacheWrite: 0,
        totalTokens: 11_550,
        cost: { input: 0.004, output: 0.005, cacheRead: 0.001, cacheWrite: 0, total: 0.0123 },
      },
    };
    mounted.wrapper = mount(MessageEntry, { props: { entry, isThinkingOpen: () => false } });
    const usage = mounted.wrapper.get("[data-test=message-usage]");
    expect(usage.text()).toBe("12k tokens · $0.01");
    expect(usage.attributes("title")).toBe(
      "Input 1,200, output 350, cache read 10,000, cache write 0 tokens; cost $0.01 (estimated from the model's prices)",
    );
  });

  it("shows no usage on prompts, or when the model reported none", async () => {
    await loadMarkdownRenderer();
    mounted.wrapper = mount(MessageEntry, { props: { entry: userEntry("u1", "hi"), isThinkingOpen: () => false } });
    expect(mounted.wrapper.find("[data-test=message-usage]").exists()).toBe(false);
    await mounted.wrapper.setProps({ entry: failed("e1") });
    expect(mounted.wrapper.find("[data-test=message-usage]").exists()).toBe(false);
    expect(mounted.wrapper.get("[data-test=message-failure]").text()).toBe("429 Too Many Requests: rate limit reached");
  });
});

describe("Retry after a provider error", () => {
  async function mountView(entries: TranscriptEntry[], busy: boolean, handler?: (request: RecordedRequest) => FakeAnswer | undefined) {
    setActivePinia(createPinia());
    mounted.backend = fakeBackend(handler);
    await loadMarkdownRenderer();
    mounted.wrapper = mount(TranscriptView, { props: { sessionId: "s1", entries, busy }, attachTo: document.body });
    await flushPromises();
    return mounted.wrapper;
  }
  const entryEl = (id: string) => mounted.wrapper?.get(`[data-test=entry][data-entry-id="${id}"]`);

  it("re-sends the prompt that led to the last failed answer through edit-prompt, with its images", async () => {
    const prompt = {
      ...userEntry("u2", "describe the picture", 3),
      blocks: [
        { type: "text" as const, text: "describe the picture" },
        { type: "image" as const, mimeType: "image/png", data: "iVBORw0KGgo=" },
      ],
    };
    const entries = [
      userEntry("u1", "first", 1),
      failed("e0", 2),
      prompt,
      assistantEntry("a2", "", null, 4),
      toolEntry("a2", "c1", {}, 5),
      failed("e1", 6),
    ];
    const w = await mountView(entries, false, () => ({ body: { ok: true, active: activeOf({ isStreaming: true }, 4) } }));
    // Only the last failure offers Retry.
    expect(entryEl("e0")?.find("[data-test=entry-retry]").exists()).toBe(false);
    const retry = entryEl("e1")?.get("[data-test=entry-retry]");
    expect(retry?.attributes("disabled")).toBeUndefined();
    expect(retry?.find("svg[data-icon=retry]").exists()).toBe(true);
    // The turn called a tool: Retry runs it again, so it says so and asks first.
    expect(retry?.attributes("title")).toContain("the whole turn runs again, with its 1 tool call (edit)");
    await retry?.trigger("click");
    await flushPromises();
    const dialogs = useDialogsStore();
    expect(dialogs.current).toMatchObject({ title: "Retry the whole turn?", confirmLabel: "Retry" });
    expect(mounted.backend?.requests).toEqual([]);
    dialogs.answer(true);
    await flushPromises();
    expect(mounted.backend?.requests).toEqual([
      {
        method: "POST",
        path: "/api/pi/sessions/s1/edit-prompt",
        body: { entryId: "u2", text: "describe the picture", images: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] },
      },
    ]);
    expect(w.emitted("edited")?.[0]?.[0]).toMatchObject({ snapshotRevision: 4 });
  });

  it("sends nothing when the person cancels the retry of a turn that called tools", async () => {
    const entries = [
      userEntry("u1", "fix it", 1),
      assistantEntry("a1", "", null, 2),
      toolEntry("a1", "c1", { name: "bash" }, 3),
      failed("e1", 4),
    ];
    await mountView(entries, false, () => ({ body: { ok: true, active: activeOf({ isStreaming: true }, 4) } }));
    await entryEl("e1")?.get("[data-test=entry-retry]").trigger("click");
    await flushPromises();
    useDialogsStore().answer(false);
    await flushPromises();
    expect(mounted.backend?.requests).toEqual([]);
  });

  it("retries a turn that called no tools at once, without asking", async () => {
    await mountView([userEntry("u1", "go", 1), failed("e1", 2)], false, () => ({ body: { ok: true, active: activeOf({}, 4) } }));
    const retry = entryEl("e1")?.get("[data-test=entry-retry]");
    expect(retry?.attributes("title")).toBe("Send the prompt that led here again (the failed attempt stays as a branch)");
    await retry?.trigger("click");
    await flushPromises();
    expect(useDialogsStore().current).toBeNull();
    expect(mounted.backend?.requests.map((r) => r.path)).toEqual(["/api/pi/sessions/s1/edit-prompt"]);
  });

  it("is disabled while pi works, and absent once the conversation went on", async () => {
    const w = await mountView([userEntry("u1", "go", 1), failed("e1", 2)], true);
    const retry = entryEl("e1")?.get("[data-test=entry-retry]");
    expect(retry?.attributes("disabled")).toBeDefined();
    await retry?.trigger("click");
    expect(mounted.backend?.requests).toEqual([]);
    await w.setProps({ busy: false, entries: [userEntry("u1", "go", 1), failed("e1", 2), userEntry("u2", "try something else", 3)] });
    expect(w.find("[data-test=entry-retry]").exists()).toBe(false);
  });

  it("says why a retry failed", async () => {
    const w = await mountView([userEntry("u1", "go", 1), failed("e1", 2)], false, () => ({
      status: 500,
      body: { error: "No API key for provider faux" },
    }));
    await entryEl("e1")?.get("[data-test=entry-retry]").trigger("click");
    await flushPromises();
    expect(w.get("[data-test=transcript-error]").text()).toContain("No API key for provider faux");
  });
});
