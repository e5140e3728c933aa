import { mount } from "@vue/test-utils";
import { describe, expect, it } from "vitest";
import SearchResults from "./SearchResults.vue";
import { searchAnswer, searchHit } from "./search.fixture.ts";

const NOW = new Date(2026, 10, 30, 15, 0);

function mountResults(props: Partial<InstanceType<typeof SearchResults>["$props"]> = {}) {
  return mount(SearchResults, {
    props: { answer: null, loading: false, error: "", activeIndex: -1, now: NOW, listId: "hits", ...props },
    attachTo: document.body,
  });
}

describe("SearchResults", () => {
  it("shows each hit's session, folder, kind and snippet with the matches marked", () => {
    const w = mountResults({
      answer: searchAnswer([
        searchHit({ sessionName: "Parser work", cwd: "/w/alpha" }),
        searchHit({ sessionId: "s2", entryId: "r1", role: "toolResult", toolCallId: "c1", firstMessage: "Other", cwd: "/w/beta/" }),
      ]),
      activeIndex: 1,
    });
    const hits = w.findAll("[data-test=search-result]");
    expect(hits.map((h) => [h.attributes("data-session-id"), h.attributes("data-entry-id"), h.attributes("data-role")])).toEqual([
      ["s1", "e1", "user"],
      ["s2", "r1", "toolResult"],
    ]);
    expect(hits[0]?.get(".title").text()).toBe("Parser work");
    expect(hits[0]?.get(".meta").text()).toContain("alpha");
    expect(hits[1]?.get(".title").text()).toBe("Other");
    expect(hits[1]?.get(".meta").text()).toContain("Tool output");
    expect(hits[1]?.get(".meta").text()).toContain("beta");
    expect(hits[0]?.findAll("mark").map((m) => m.text())).toEqual(["parser"]);
    expect(hits.map((h) => h.attributes("aria-selected"))).toEqual(["false", "true"]);
    expect(hits[1]?.attributes("id")).toBe("hits-1");
    w.unmount();
  });

  it("renders snippet text as text, never as markup", () => {
    const w = mountResults({
      answer: searchAnswer([
        searchHit({
          snippet: [
            { text: '<img src=x onerror="alert(1)">', match: false },
            { text: "<b>bold</b>", match: true },
          ],
        }),
      ]),
    });
    const snippet = w.get("[data-test=search-snippet]");
    expect(snippet.find("img").exists()).toBe(false);
    expect(snippet.find("b").exists()).toBe(false);
    expect(snippet.text()).toBe('<img src=x onerror="alert(1)"><b>bold</b>');
    expect(snippet.get("mark").text()).toBe("<b>bold</b>");
    w.unmount();
  });

  it("opens a hit on click and makes a hovered hit the active one", async () => {
    const first = searchHit();
    const w = mountResults({ answer: searchAnswer([first, searchHit({ entryId: "e2" })]) });
    await w.findAll("[data-test=search-result]")[1]?.trigger("mousemove");
    expect(w.emitted("activate")).toEqual([[1]]);
    await w.findAll("[data-test=search-result]")[0]?.trigger("click");
    expect(w.emitted("open")).toEqual([[first]]);
    w.unmount();
  });

  it("says when the index is building, when nothing matches, and when the search failed", () => {
    const building = mountResults({ answer: searchAnswer([], { indexed: 4, total: 9, ready: false }) });
    expect(building.get("[data-test=search-building]").text()).toContain("4 of 9 sessions");
    expect(building.get("[data-test=search-empty]").text()).toBe("No message matches.");
    building.unmount();
    const failed = mountResults({ error: "Internal server error" });
    expect(failed.get("[data-test=search-error]").text()).toContain("Internal server error");
    expect(failed.find("[data-test=search-empty]").exists()).toBe(false);
    failed.unmount();
  });
});
