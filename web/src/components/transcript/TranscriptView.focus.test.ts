/**
 * TranscriptView's `focusEntryId` (search hits, the session tree): an entry far up a long, virtualized transcript
 * is scrolled into the window and highlighted; a session entry shown by a tool row is found through it; an entry
 * the transcript does not show gives a notice and `focused` with `found: false`.
 */
import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it, vi } from "vitest";
import type { TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import { cleanedAfterEach, fakeBackend } from "../composer/composer.fixture.ts";
import { syntheticTranscript, toolEntry, userEntry } from "./transcript.fixture.ts";
import TranscriptView from "./TranscriptView.vue";

const mounted = cleanedAfterEach();

async function mountView(entries: TranscriptEntry[], focusEntryId: string | null = null) {
  setActivePinia(createPinia());
  mounted.backend = fakeBackend();
  await loadMarkdownRenderer();
  mounted.wrapper = mount(TranscriptView, { props: { sessionId: "s1", entries, focusEntryId }, attachTo: document.body });
  await settle(mounted.wrapper);
  return mounted.wrapper;
}

/** Lets the view render, and reports the scroller's position as a browser's scroll event would (happy-dom sends none). */
async function settle(w: VueWrapper): Promise<void> {
  await flushPromises();
  w.get("[role=log]").element.dispatchEvent(new Event("scroll"));
  await flushPromises();
}

const renderedIds = (w: VueWrapper) => w.findAll("[data-test=entry]").map((e) => e.attributes("data-entry-id"));
const focusedIds = (w: VueWrapper) => w.findAll(".row[data-focused=true] [data-test=entry]").map((e) => e.attributes("data-entry-id"));

type ExposedVirtualizer = { scrollToIndex(index: number, options?: unknown): void; measurementsCache: { start: number }[] };
const virtualizerOf = (w: VueWrapper) => (w.vm as unknown as { virtualizer: ExposedVirtualizer }).virtualizer;

/**
 * happy-dom has no layout (every scroll offset is clamped to 0), so the scroll the view asks for is checked on the
 * virtualizer and then done as a browser would: the scroller moves to the row's offset.
 */
async function scrollAsBrowser(w: VueWrapper, scrollToIndex: ReturnType<typeof vi.spyOn>): Promise<number> {
  const call = scrollToIndex.mock.calls.at(-1) as [number, { align: string }] | undefined;
  if (call === undefined) throw new Error("no scrollToIndex call");
  expect(call[1]).toEqual({ align: "center" });
  const scroller = w.get("[role=log]").element as HTMLElement;
  scroller.scrollTop = virtualizerOf(w).measurementsCache[call[0]]?.start ?? 0;
  await settle(w);
  return call[0];
}

describe("TranscriptView focusEntryId", () => {
  it("brings an entry far up a 10,000-entry transcript into the window and highlights it briefly", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const entries = syntheticTranscript(10_000);
      const w = await mountView(entries);
      expect(renderedIds(w)).not.toContain("n40");
      const scrollToIndex = vi.spyOn(virtualizerOf(w), "scrollToIndex");
      await w.setProps({ focusEntryId: "n40" });
      await flushPromises();
      // The view no longer follows the end (checked before the simulated scroll: without layout, happy-dom puts
      // every offset at the end).
      expect(w.get("[data-test=transcript]").attributes("data-stuck")).toBe("false");
      expect(await scrollAsBrowser(w, scrollToIndex)).toBe(40);
      expect(renderedIds(w)).toContain("n40");
      expect(renderedIds(w)).not.toContain("n9999");
      expect(focusedIds(w)).toEqual(["n40"]);
      expect(w.emitted("focused")).toEqual([[{ id: "n40", found: true }]]);
      vi.advanceTimersByTime(3000);
      await flushPromises();
      expect(focusedIds(w)).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("focuses once the entries arrive, and again for another id", async () => {
    const w = await mountView([], "n8");
    expect(w.emitted("focused")).toBeUndefined();
    const scrollToIndex = vi.spyOn(virtualizerOf(w), "scrollToIndex");
    await w.setProps({ entries: syntheticTranscript(400) });
    await settle(w);
    expect(await scrollAsBrowser(w, scrollToIndex)).toBe(8);
    expect(renderedIds(w)).toContain("n8");
    expect(w.emitted("focused")).toEqual([[{ id: "n8", found: true }]]);
    await w.setProps({ focusEntryId: "n300" });
    await settle(w);
    expect(await scrollAsBrowser(w, scrollToIndex)).toBe(300);
    expect(renderedIds(w)).toContain("n300");
    expect(focusedIds(w)).toEqual(["n300"]);
    // The same id again does nothing until it is cleared.
    await w.setProps({ entries: syntheticTranscript(401) });
    await settle(w);
    expect(w.emitted("focused")).toHaveLength(2);
  });

  it("finds a tool result's or a tool call's session entry by its tool row", async () => {
    const entries: TranscriptEntry[] = [userEntry("u1", "hello"), toolEntry("a1", "c1", {}, 1)];
    const w = await mountView(entries, "a1-result");
    expect(focusedIds(w)).toEqual(["a1:c1"]);
    await w.setProps({ focusEntryId: "a1:c1" });
    await flushPromises();
    expect(focusedIds(w)).toEqual(["a1:c1"]);
  });

  it("says so when the entry is not on the active branch", async () => {
    const w = await mountView([userEntry("u1", "hello")], "elsewhere");
    expect(w.emitted("focused")).toEqual([[{ id: "elsewhere", found: false }]]);
    const notice = w.get("[data-test=focus-missing]");
    expect(notice.text()).toContain("not on the active branch");
    await notice.get("button").trigger("click");
    expect(w.find("[data-test=focus-missing]").exists()).toBe(false);
  });
});
