import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMemoryHistory } from "vue-router";
import type { SessionSummary } from "../../../../domain/session-summary.ts";
import { indexStatus, listDelta, listSnapshot } from "../../lib/live-messages.fixture.ts";
import { summary } from "../../lib/session-fixtures.fixture.ts";
import { createAppRouter } from "../../router.ts";
import { useDialogsStore } from "../../stores/dialogs.store.ts";
import { useNoticesStore } from "../../stores/notices.store.ts";
import { usePinsStore } from "../../stores/pins.store.ts";
import { useSessionsStore } from "../../stores/sessions.store.ts";
import DialogHost from "../app/DialogHost.vue";
import { fakeBackend, type FakeAnswer, type FakeBackend, type RecordedRequest } from "../composer/composer.fixture.ts";
import SessionSidebar from "./SessionSidebar.vue";

const NOW = new Date(2026, 10, 30, 15, 0);
const at = (daysAgo: number, hour = 10) => new Date(2026, 10, 30 - daysAgo, hour).toISOString();

function rows(): SessionSummary[] {
  const parent = summary("parent", { cwd: "/w/alpha", modified: at(0, 14), firstMessage: "Research the parsers" });
  return [
    parent,
    summary("child", { cwd: "/tmp/sub", isSubagentSession: true, parentSessionPath: parent.path, modified: at(0, 13) }),
    summary("today", { cwd: "/w/alpha", modified: at(0, 9), name: "Named today" }),
    summary("yesterday", { cwd: "/w/alpha", modified: at(1), firstMessage: "Fix the flaky test" }),
    summary("old", { cwd: "/w/alpha", modified: at(40) }),
    summary("beta", { cwd: "/w/beta", modified: at(0, 8), firstMessage: "Beta work on the flaky test" }),
  ];
}

/** The native backend's pinned-session routes in memory (pin order, prune of at most 500 ids). */
function pinRoutes(initial: string[]) {
  const state = { pinned: [...initial] };
  const handle = (request: RecordedRequest): FakeAnswer | undefined => {
    const url = new URL(request.path, "http://native.test");
    if (!url.pathname.startsWith("/api/leyline/pinned-sessions")) return undefined;
    const body = (request.body ?? {}) as { sessionId?: string; sessionIds?: string[] };
    if (request.method === "DELETE") state.pinned = state.pinned.filter((id) => id !== url.searchParams.get("sessionId"));
    else if (url.pathname.endsWith("/prune")) {
      if ((body.sessionIds ?? []).length > 500) return { status: 400, body: { error: "too many ids" } };
      state.pinned = state.pinned.filter((id) => !(body.sessionIds ?? []).includes(id));
    } else if (request.method === "POST" && body.sessionId !== undefined && !state.pinned.includes(body.sessionId)) {
      state.pinned = [...state.pinned, body.sessionId];
    }
    return {
      status: request.method === "POST" && !url.pathname.endsWith("/prune") ? 201 : 200,
      body: { connectionId: "builtin", pinnedIds: state.pinned },
    };
  };
  return { state, handle };
}

let backend: FakeBackend | null = null;
afterEach(() => {
  backend?.restore();
  backend = null;
});

async function mountSidebar(
  options: { pinned?: string[]; complete?: boolean; answer?: (request: RecordedRequest) => FakeAnswer | undefined } = {},
) {
  const server = pinRoutes(options.pinned ?? []);
  backend = fakeBackend((request) => options.answer?.(request) ?? server.handle(request));
  const pinia = createPinia();
  setActivePinia(pinia);
  const sessions = useSessionsStore();
  const status = options.complete === false ? indexStatus({ verified: false }) : indexStatus();
  sessions.applyListSnapshot(listSnapshot(rows(), status));
  sessions.$patch({ now: NOW, project: "/w/alpha" });
  const pins = usePinsStore();
  await pins.load();
  const router = createAppRouter(createMemoryHistory());
  await router.push("/");
  const wrapper = mount(
    { components: { SessionSidebar, DialogHost }, template: "<div><SessionSidebar /><DialogHost /></div>" },
    { global: { plugins: [pinia, router] }, attachTo: document.body },
  );
  await flushPromises();
  return { wrapper, sessions, pins, server };
}

type Finder = { findAll(selector: string): Array<{ attributes(name: string): string | undefined }> };
/** Top-level rows of a group, in order. */
const topIds = (wrapper: Finder, group: string) =>
  wrapper.findAll(`${group} > ul > li > [data-test=session-item]`).map((el) => el.attributes("data-session-id"));
const dayIds = (wrapper: Finder) => topIds(wrapper, "[data-test=session-group]");
const pinnedIds = (wrapper: Finder) => topIds(wrapper, "[data-test=pinned-group]");
const prunes = () => backend?.requests.filter((r) => r.path === "/api/leyline/pinned-sessions/prune") ?? [];

describe("Pinned group in the sidebar", { timeout: 20_000 }, () => {
  beforeEach(() => {
    document.body.innerHTML = "";
  });

  it("is hidden without pins", async () => {
    const { wrapper } = await mountSidebar();
    expect(wrapper.find("[data-test=pinned-group]").exists()).toBe(false);
    expect(dayIds(wrapper)).toEqual(["parent", "today", "yesterday", "old"]);
  });

  it("lists pinned sessions on top in pin order (every project); they leave their day group", async () => {
    const { wrapper } = await mountSidebar({ pinned: ["yesterday", "beta", "parent"] });
    const group = wrapper.get("[data-test=pinned-group]");
    expect(group.get("h3").text()).toBe("Pinned");
    expect(group.get("h3 svg").attributes("data-icon")).toBe("pin");
    expect(pinnedIds(wrapper)).toEqual(["yesterday", "beta", "parent"]);
    // Above the day groups.
    const first = wrapper.get("[data-test=session-list]").element.querySelector("[data-test=pinned-group], [data-test=session-group]");
    expect(first?.getAttribute("data-test")).toBe("pinned-group");
    // Shown once: no longer in Today / Yesterday; the Yesterday group is gone as it is empty.
    expect(dayIds(wrapper)).toEqual(["today", "old"]);
    expect(wrapper.findAll("[data-test=session-group]").map((g) => g.attributes("data-group"))).toEqual(["today", "older"]);
    // A pinned parent keeps its subagent sessions nested; another project's session shows its folder.
    expect(group.get("[data-test=subagent-children] [data-test=session-item]").attributes("data-session-id")).toBe("child");
    expect(group.get("[data-session-id=beta] .folder").text()).toBe("beta");
    expect(group.find("[data-session-id=yesterday] .folder").exists()).toBe(false);
    // Rows are rendered like the others: the pin button says Unpin.
    expect(group.get("[data-session-id=beta] [data-test=session-pin]").attributes("aria-label")).toBe("Unpin session");
  });

  it("steps aside while a query is typed: the search results show pinned sessions as usual, with a mark", async () => {
    const { wrapper } = await mountSidebar({ pinned: ["yesterday"] });
    await wrapper.get("[data-test=session-search]").setValue("flaky");
    expect(wrapper.find("[data-test=pinned-group]").exists()).toBe(false);
    const found = wrapper.findAll("[data-test=session-item]").map((el) => el.attributes("data-session-id"));
    expect(found).toEqual(["beta", "yesterday"]);
    expect(wrapper.find("[data-session-id=yesterday] .pinned-mark").exists()).toBe(true);
    expect(wrapper.get("[data-session-id=yesterday]").text()).toContain("Pinned.");
    expect(wrapper.find("[data-session-id=beta] .pinned-mark").exists()).toBe(false);
  });

  it("pins and unpins from a row's button; the focus follows the row", async () => {
    const { wrapper, server } = await mountSidebar();
    const button = wrapper.get("[data-session-id=today] [data-test=session-pin]");
    expect(button.element.tagName).toBe("BUTTON");
    expect(button.attributes("aria-label")).toBe("Pin session");
    expect(button.get("svg").attributes("data-icon")).toBe("pin");
    (button.element as HTMLButtonElement).focus();
    await button.trigger("click");
    await flushPromises();
    expect(server.state.pinned).toEqual(["today"]);
    expect(pinnedIds(wrapper)).toEqual(["today"]);
    expect(dayIds(wrapper)).toEqual(["parent", "yesterday", "old"]);
    const moved = wrapper.get("[data-test=pinned-group] [data-session-id=today] [data-test=session-pin]");
    expect(moved.attributes("aria-label")).toBe("Unpin session");
    expect(moved.attributes("data-pinned")).toBe("true");
    expect(document.activeElement).toBe(moved.element);

    await moved.trigger("click");
    await flushPromises();
    expect(server.state.pinned).toEqual([]);
    expect(wrapper.find("[data-test=pinned-group]").exists()).toBe(false);
    expect(dayIds(wrapper)).toEqual(["parent", "today", "yesterday", "old"]);
    expect(document.activeElement?.closest("[data-test=session-item]")?.getAttribute("data-session-id")).toBe("today");
    expect(backend?.requests.filter((r) => r.path.startsWith("/api/leyline")).map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /api/leyline/pinned-sessions?connectionId=builtin",
      "POST /api/leyline/pinned-sessions",
      "DELETE /api/leyline/pinned-sessions?connectionId=builtin&sessionId=today",
    ]);
  });

  it("takes back a refused pin and shows the server's words", async () => {
    const { wrapper } = await mountSidebar({
      answer: (request) =>
        request.method === "POST" && request.path === "/api/leyline/pinned-sessions"
          ? { status: 400, body: { error: "A connection can have at most 200 pinned sessions." } }
          : undefined,
    });
    await wrapper.get("[data-session-id=old] [data-test=session-pin]").trigger("click");
    await flushPromises();
    expect(wrapper.find("[data-test=pinned-group]").exists()).toBe(false);
    expect(dayIds(wrapper)).toContain("old");
    expect(useNoticesStore().notices.map((n) => n.message)).toEqual(["A connection can have at most 200 pinned sessions."]);
  });

  it("says how many pinned sessions no longer exist; Remove asks first, Cancel sends nothing", async () => {
    const { wrapper, pins } = await mountSidebar({ pinned: ["gone-1", "today", "gone-2"] });
    expect(pinnedIds(wrapper)).toEqual(["today"]);
    expect(wrapper.get("[data-test=pinned-stale]").text()).toContain("2 pinned sessions no longer exist");
    await wrapper.get("[data-test=pinned-prune]").trigger("click");
    await flushPromises();
    expect(useDialogsStore().current?.title).toBe("Remove 2 pins?");
    expect(wrapper.get("[data-test=confirm-dialog]").text()).toContain("no session file is touched");
    await wrapper.get("[data-test=confirm-cancel]").trigger("click");
    await flushPromises();
    expect(prunes()).toEqual([]);
    expect(pins.pinnedIds).toEqual(["gone-1", "today", "gone-2"]);
  });

  it("removes exactly the confirmed stale pins that are still stale", async () => {
    const { wrapper, sessions, pins, server } = await mountSidebar({ pinned: ["gone-1", "today", "gone-2", "late"] });
    expect(wrapper.get("[data-test=pinned-stale]").text()).toContain("3 pinned sessions no longer exist");
    await wrapper.get("[data-test=pinned-prune]").trigger("click");
    await flushPromises();
    // While the dialog is open, one of them is listed after all.
    sessions.applyListDelta(listDelta([summary("late", { cwd: "/w/alpha", modified: at(2) })], [], 2));
    await flushPromises();
    await wrapper.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(prunes().map((r) => r.body)).toEqual([{ connectionId: "builtin", sessionIds: ["gone-1", "gone-2"] }]);
    expect(server.state.pinned).toEqual(["today", "late"]);
    expect(pins.pinnedIds).toEqual(["today", "late"]);
    expect(wrapper.find("[data-test=pinned-stale]").exists()).toBe(false);
    expect(pinnedIds(wrapper)).toEqual(["today", "late"]);
  });

  it("sends a large removal in batches of 500", async () => {
    const gone = Array.from({ length: 501 }, (_, i) => `gone-${i}`);
    const { wrapper, server } = await mountSidebar({ pinned: gone });
    // Only stale pins: the group shows just the line.
    expect(wrapper.find("[data-test=pinned-group] [data-test=session-item]").exists()).toBe(false);
    expect(wrapper.get("[data-test=pinned-stale]").text()).toContain("501 pinned sessions no longer exist");
    await wrapper.get("[data-test=pinned-prune]").trigger("click");
    await flushPromises();
    await wrapper.get("[data-test=confirm-ok]").trigger("click");
    await vi.waitFor(() => expect(server.state.pinned).toEqual([]));
    expect(prunes().map((r) => (r.body as { sessionIds: string[] }).sessionIds.length)).toEqual([500, 1]);
    await flushPromises();
    expect(wrapper.find("[data-test=pinned-group]").exists()).toBe(false);
  });

  it("counts nothing as stale while the list is not complete (the index is still checking the files)", async () => {
    const { wrapper, sessions } = await mountSidebar({ pinned: ["gone-1", "today"], complete: false });
    expect(pinnedIds(wrapper)).toEqual(["today"]);
    expect(wrapper.find("[data-test=pinned-stale]").exists()).toBe(false);
    // After a replaced stream the rows are stale too.
    sessions.applyListDelta(listDelta([], [], 2, indexStatus()));
    await flushPromises();
    expect(wrapper.find("[data-test=pinned-stale]").exists()).toBe(true);
    sessions.markStale();
    await flushPromises();
    expect(wrapper.find("[data-test=pinned-stale]").exists()).toBe(false);
  });
});
