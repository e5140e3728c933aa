import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMemoryHistory } from "vue-router";
import type { SessionSummary } from "../../../../domain/session-summary.ts";
import { indexStatus, listDelta, listSnapshot } from "../../lib/live-messages.fixture.ts";
import { researchSummary, summary } from "../../lib/session-fixtures.fixture.ts";
import { createAppRouter } from "../../router.ts";
import { useDialogsStore } from "../../stores/dialogs.store.ts";
import { useOpenSessionStore } from "../../stores/open-session.store.ts";
import { useSessionsStore } from "../../stores/sessions.store.ts";
import DialogHost from "../app/DialogHost.vue";
import { fakeBackend, type FakeAnswer, type FakeBackend, type RecordedRequest } from "../composer/composer.fixture.ts";
import { searchAnswer, searchHit } from "./search.fixture.ts";
import { checkBackendInfo } from "../../backend-info.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import SessionSidebar from "./SessionSidebar.vue";

/** Local times relative to a fixed "now" (day groups are local calendar days). */
const NOW = new Date(2026, 10, 30, 15, 0);
const at = (daysAgo: number, hour = 10) => new Date(2026, 10, 30 - daysAgo, hour).toISOString();

function rows(): SessionSummary[] {
  const parent = summary("parent", {
    cwd: "/w/alpha",
    modified: at(0, 14),
    firstMessage: "Research the parsers",
    research: researchSummary("parent", { status: "running", phase: "gather" }),
  });
  return [
    parent,
    summary("child-1", {
      cwd: "/tmp/sub",
      isSubagentSession: true,
      parentSessionPath: parent.path,
      modified: at(0, 13),
      firstMessage: "t1: parser a",
    }),
    summary("child-2", {
      cwd: "/tmp/sub",
      isSubagentSession: true,
      parentSessionPath: parent.path,
      modified: at(0, 12),
      firstMessage: "t2: parser b",
    }),
    summary("today", { cwd: "/w/alpha", modified: at(0, 9), name: "Named today" }),
    summary("yesterday", { cwd: "/w/alpha", modified: at(1), firstMessage: "Fix the flaky test" }),
    summary("week", { cwd: "/w/alpha", modified: at(4), research: researchSummary("week", { status: "complete", phase: "report" }) }),
    summary("old", { cwd: "/w/alpha", modified: at(40), research: researchSummary("old", { status: "error" }) }),
    summary("other-project", { cwd: "/w/beta", modified: at(0, 8), firstMessage: "Beta work on the flaky test" }),
  ];
}

let backend: FakeBackend | null = null;
afterEach(() => {
  backend?.restore();
  backend = null;
});

/** Full-text search answers no hits unless a test says otherwise. */
const noHits = (request: RecordedRequest): FakeAnswer | undefined =>
  request.path.startsWith("/api/pi/search") ? { body: searchAnswer([]) } : undefined;

async function mountSidebar(
  state: { project?: string | null; openId?: string | null; extra?: SessionSummary[] } = {},
  answer: (request: RecordedRequest) => FakeAnswer | undefined = noHits,
) {
  backend = fakeBackend(answer);
  const pinia = createPinia();
  setActivePinia(pinia);
  const sessions = useSessionsStore();
  // The list as the events socket delivers it.
  sessions.applyListSnapshot(
    listSnapshot(
      [...(state.extra ?? []), ...rows()],
      indexStatus({ filesOnDisk: 12, indexed: 11, invalid: 1, invalidPaths: ["/agent/sessions/--w-alpha--/broken.jsonl"] }),
    ),
  );
  sessions.$patch({ now: NOW, project: state.project === undefined ? "/w/alpha" : state.project });
  // A backend that searches full text (GET /api/pi/info's flag).
  const info = checkBackendInfo({ name: "Leyline", version: "1", apiVersion: 2, capabilities: { fullTextSearch: true } }).info ?? null;
  useBackendStore().$patch({ info });
  if (state.openId) useOpenSessionStore().$patch({ id: state.openId });
  const router = createAppRouter(createMemoryHistory());
  await router.push("/");
  const wrapper = mount(
    { components: { SessionSidebar, DialogHost }, template: "<div><SessionSidebar /><DialogHost /></div>" },
    { global: { plugins: [pinia, router] }, attachTo: document.body },
  );
  await flushPromises();
  return { wrapper, sessions, router };
}

const ids = (wrapper: { findAll(selector: string): Array<{ attributes(name: string): string | undefined }> }, selector: string) =>
  wrapper.findAll(selector).map((el) => el.attributes("data-session-id"));

describe("SessionSidebar", { timeout: 20_000 }, () => {
  beforeEach(() => {
    document.body.innerHTML = "";
  });

  it("groups the project's sessions by day and nests subagent sessions under their parent", async () => {
    const { wrapper } = await mountSidebar();
    const groups = wrapper.findAll("[data-test=session-group]");
    expect(groups.map((g) => g.attributes("data-group"))).toEqual(["today", "yesterday", "week", "older"]);
    expect(groups.map((g) => g.get("h3").text())).toEqual(["Today", "Yesterday", "Past 7 days", "Older"]);
    const today = groups[0];
    if (!today) throw new Error("no today group");
    // Top-level rows of Today: the parent (with its children nested) and "today"; other-project is elsewhere.
    expect(today.findAll(":scope > ul > li > [data-test=session-item]").map((el) => el.attributes("data-session-id"))).toEqual([
      "parent",
      "today",
    ]);
    const children = today.get("[data-test=subagent-children]");
    expect(ids(children, "[data-test=session-item]")).toEqual(["child-1", "child-2"]);
    expect(ids(wrapper, "[data-test=session-item]")).not.toContain("other-project");
    expect(wrapper.get("[data-session-id=today]").text()).toContain("Named today");
  });

  it("keeps a fork top-level with a small forked-from hint; only subagent sessions nest", async () => {
    const parent = rows().find((row) => row.id === "today");
    if (!parent) throw new Error("no parent row");
    const fork = summary("fork", {
      cwd: "/w/alpha",
      modified: at(0, 11),
      parentSessionPath: parent.path,
      firstMessage: "What is a heat pump?",
    });
    const { wrapper } = await mountSidebar({ extra: [fork] });
    const today = wrapper.get("[data-test=session-group][data-group=today]");
    expect(today.findAll(":scope > ul > li > [data-test=session-item]").map((el) => el.attributes("data-session-id"))).toEqual([
      "parent",
      "fork",
      "today",
    ]); // newest first
    expect(wrapper.get("[data-session-id=today]").element.closest("li")?.querySelector("[data-test=subagent-children]")).toBeNull();
    const hint = wrapper.get("[data-session-id=fork] [data-test=session-fork]");
    expect(hint.text()).toBe("fork");
    expect(hint.attributes("title")).toBe("Forked from “Named today”");
    expect(wrapper.get("[data-session-id=child-1]").text()).toContain("subagent");
    expect(wrapper.find("[data-session-id=child-1] [data-test=session-fork]").exists()).toBe(false);
  });

  it("puts an empty new session under today: by its creation time, or at once when pi has not saved it yet", async () => {
    const created = summary("created", {
      cwd: "/w/alpha",
      modified: undefined,
      timestamp: at(0, 14),
      messageCount: 0,
      firstMessage: "(no messages)",
    });
    // A runtime-only session (GET /api/pi/sessions lists it before pi writes its file): no times at all.
    const unsaved = summary("unsaved", {
      cwd: "/w/alpha",
      modified: undefined,
      timestamp: undefined,
      messageCount: 0,
      firstMessage: "(no messages)",
    });
    const { wrapper } = await mountSidebar({ extra: [unsaved, created] });
    const today = wrapper.get("[data-test=session-group][data-group=today]");
    expect(ids(today, "[data-test=session-item]")).toEqual(expect.arrayContaining(["unsaved", "created"]));
    expect(ids(wrapper.get("[data-test=session-group][data-group=older]"), "[data-test=session-item]")).not.toContain("unsaved");
    expect(wrapper.get("[data-session-id=created] time").attributes("datetime")).toBe(at(0, 14));
    // No time to show: no empty slot before the message count.
    expect(wrapper.find("[data-session-id=unsaved] time").exists()).toBe(false);
    expect(wrapper.get("[data-session-id=unsaved] .meta").text()).toBe("0 msg");
  });

  it("marks research sessions with their status", async () => {
    const { wrapper } = await mountSidebar();
    expect(wrapper.get("[data-session-id=parent]").attributes("data-research-status")).toBe("running");
    expect(wrapper.get("[data-session-id=parent]").text()).toContain("Research · gather");
    expect(wrapper.get("[data-session-id=week]").attributes("data-research-status")).toBe("complete");
    expect(wrapper.get("[data-session-id=week]").text()).toContain("Report ready");
    expect(wrapper.get("[data-session-id=old]").attributes("data-research-status")).toBe("error");
    expect(wrapper.get("[data-session-id=today]").attributes("data-research-status")).toBeUndefined();
  });

  it("searches across projects while a query is typed, and Escape clears it", async () => {
    const { wrapper } = await mountSidebar();
    const search = wrapper.get("[data-test=session-search]");
    expect(search.attributes("id")).toBe("session-search");
    expect(wrapper.get("label[for=session-search]").text()).toContain("Search sessions");
    await search.setValue("flaky TEST");
    expect(ids(wrapper, "[data-test=session-item]")).toEqual(["other-project", "yesterday"]);
    // Results from other projects show their folder.
    expect(wrapper.get("[data-session-id=other-project]").text()).toContain("beta");
    await search.setValue("no such thing");
    expect(wrapper.get("[data-test=session-list]").text()).toContain("No session title matches");
    await search.trigger("keydown", { key: "Escape" });
    expect((search.element as HTMLInputElement).value).toBe("");
    expect(ids(wrapper, "[data-test=session-item]")).toContain("parent");
  });

  it("shows full-text hits below the title matches; arrows move through them, Enter opens one at its entry", async () => {
    const hits = [
      searchHit({ sessionId: "yesterday", entryId: "e7", sessionName: "Flaky", snippet: [{ text: "flaky", match: true }] }),
      searchHit({ sessionId: "other-project", entryId: "a1", role: "toolCall", toolCallId: "c1", cwd: "/w/beta" }),
    ];
    const { wrapper, router } = await mountSidebar({}, (request) =>
      request.path.startsWith("/api/pi/search") ? { body: searchAnswer(hits, { indexed: 5, total: 8, ready: false }) } : undefined,
    );
    const search = wrapper.get("[data-test=session-search]");
    await search.setValue("flaky");
    await vi.waitFor(() => expect(wrapper.findAll("[data-test=search-result]")).toHaveLength(2), { timeout: 2000 });
    expect(backend?.requests.filter((r) => r.path.startsWith("/api/pi/search")).map((r) => r.path)).toEqual(["/api/pi/search?q=flaky"]);
    // Below the title matches, and it says the index is still being built.
    const list = wrapper.get("[data-test=session-list]").element;
    const firstTitleMatch = list.querySelector("[data-test=session-item]");
    const results = list.querySelector("[data-test=search-results]");
    expect(firstTitleMatch && results && firstTitleMatch.compareDocumentPosition(results) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(wrapper.get("[data-test=search-building]").text()).toContain("5 of 8 sessions");

    await search.trigger("keydown", { key: "ArrowDown" });
    await search.trigger("keydown", { key: "ArrowDown" });
    await search.trigger("keydown", { key: "ArrowUp" });
    expect(search.attributes("aria-activedescendant")).toBe("session-search-hits-0");
    expect(wrapper.findAll("[data-test=search-result]").map((h) => h.attributes("aria-selected"))).toEqual(["true", "false"]);
    await search.trigger("keydown", { key: "ArrowDown" });
    await search.trigger("keydown", { key: "Enter" });
    // The workbench route is a lazy chunk: navigation completes once it loaded.
    await vi.waitFor(() => expect(router.currentRoute.value.path).toBe("/sessions/other-project"), { timeout: 15_000 });
    expect(router.currentRoute.value.query).toEqual({ entry: "a1:c1" });

    await search.trigger("keydown", { key: "Escape" });
    expect((search.element as HTMLInputElement).value).toBe("");
    await flushPromises();
    expect(wrapper.find("[data-test=search-results]").exists()).toBe(false);
  });

  it("shows the index status from the stream: files on disk, listed, unreadable files with their paths, progress", async () => {
    const { wrapper, sessions } = await mountSidebar();
    expect(wrapper.get("[data-test=index-status]").text()).toBe("12 session files on disk · 8 listed");
    const unreadable = wrapper.get("[data-test=index-unreadable]");
    expect(unreadable.get("summary").text()).toBe("1 unreadable");
    expect(unreadable.get("summary").attributes("title")).toBe("/agent/sessions/--w-alpha--/broken.jsonl");
    expect(unreadable.findAll("li").map((li) => li.text())).toEqual(["/agent/sessions/--w-alpha--/broken.jsonl"]);

    // A delta: another file is unreadable, one session is gone, the index is checking the files.
    const status = indexStatus({ filesOnDisk: 13, indexed: 10, invalid: 60, invalidPaths: ["/a.jsonl", "/b.jsonl"], verified: false });
    sessions.applyListDelta(listDelta([], [summary("old").path], 2, status));
    await flushPromises();
    expect(wrapper.get("[data-test=index-status]").text()).toBe("13 session files on disk · 7 listed · checking files…");
    expect(wrapper.get("[data-test=index-unreadable] summary").text()).toBe("60 unreadable");
    expect(wrapper.findAll("[data-test=index-unreadable] li").map((li) => li.text())).toEqual(["/a.jsonl", "/b.jsonl", "and 58 more"]);

    // A fresh stream: the rows stay, marked as updating.
    sessions.markStale();
    await flushPromises();
    expect(wrapper.get("[data-test=index-status]").text()).toContain("· updating…");
  });

  it("marks the open session and navigates when a row is clicked", async () => {
    const { wrapper, router } = await mountSidebar({ openId: "today" });
    expect(wrapper.get("[data-session-id=today] a").attributes("aria-current")).toBe("page");
    await wrapper.get("[data-session-id=yesterday] .meta").trigger("click");
    // The workbench route is a lazy chunk: navigation completes once it loaded.
    await vi.waitFor(() => expect(router.currentRoute.value.fullPath).toBe("/sessions/yesterday"), { timeout: 15_000 });
    await wrapper.get("[data-test=new-session]").trigger("click");
    await flushPromises();
    expect(router.currentRoute.value.fullPath).toBe("/?start=1");
  });

  it("collapses subagent children with an accessible toggle", async () => {
    const { wrapper } = await mountSidebar();
    const toggle = wrapper.get("button.toggle[aria-controls]");
    const children = wrapper.get(`[id="${toggle.attributes("aria-controls")}"]`);
    expect(children.attributes("data-test")).toBe("subagent-children");
    expect(toggle.attributes("aria-expanded")).toBe("true");
    expect(toggle.text()).toContain("2 subagent sessions");
    await toggle.trigger("click");
    expect(toggle.attributes("aria-expanded")).toBe("false");
    expect(wrapper.get("[data-test=subagent-children]").isVisible()).toBe(false);
  });

  it("asks before deleting; Cancel keeps the session and sends nothing", async () => {
    const { wrapper, sessions } = await mountSidebar();
    await wrapper.get("[data-session-id=yesterday] [data-test=session-delete]").trigger("click");
    await flushPromises();
    const dialogs = useDialogsStore();
    expect(dialogs.current?.title).toBe("Delete this session?");
    expect(wrapper.get("[data-test=confirm-dialog]").text()).toContain("Fix the flaky test");
    expect(wrapper.get("[data-test=confirm-ok]").text()).toBe("Delete");
    await wrapper.get("[data-test=confirm-cancel]").trigger("click");
    await flushPromises();
    expect(dialogs.current).toBeNull();
    expect(sessions.byId("yesterday")).toBeDefined();
  });

  it("renames inline: Escape cancels without a request", async () => {
    const { wrapper, sessions } = await mountSidebar();
    await wrapper.get("[data-session-id=today] [data-test=session-rename]").trigger("click");
    await flushPromises();
    const input = wrapper.get("[data-test=session-rename-input]");
    expect((input.element as HTMLInputElement).value).toBe("Named today");
    expect(document.activeElement).toBe(input.element);
    await input.setValue("Changed");
    await input.trigger("keydown", { key: "Escape" });
    await flushPromises();
    expect(wrapper.find("[data-test=session-rename-input]").exists()).toBe(false);
    expect(sessions.byId("today")?.name).toBe("Named today");
  });

  it("without a project, lists every session with its folder", async () => {
    const { wrapper } = await mountSidebar({ project: null });
    expect(ids(wrapper, "[data-test=session-item]")).toContain("other-project");
    expect(wrapper.get(".head .name").text()).toBe("All projects");
  });
});
