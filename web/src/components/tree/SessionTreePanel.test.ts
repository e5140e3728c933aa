import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it, vi } from "vitest";
import { nextTick } from "vue";
import { createMemoryHistory, createRouter, type Router } from "vue-router";
import type { SessionTreeView } from "../../../../domain/session-tree-view.ts";
import type { TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { detailSession, sessionDelta, snapshotChunks } from "../../lib/live-messages.fixture.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import { useComposerDraftStore } from "../../stores/composer-draft.store.ts";
import { useOpenSessionStore } from "../../stores/open-session.store.ts";
import { useRuntimesStore } from "../../stores/runtimes.store.ts";
import { useWorkspaceStore } from "../../stores/workspace.store.ts";
import { activeOf, cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import { assistantEntry, toolEntry, userEntry } from "../transcript/transcript.fixture.ts";
import WorkspaceButtons from "../workspace/WorkspaceButtons.vue";
import WorkspacePanel from "../workspace/WorkspacePanel.vue";
import SessionTreePanel from "./SessionTreePanel.vue";
import { branchedView, largeView, treeNode, treeViewOf, twoBranches } from "./tree.fixture.ts";

const mounted = cleanedAfterEach();

type Handler = (request: RecordedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>;

function detailOf(sessionId: string, entries: TranscriptEntry[] = []) {
  return { session: detailSession(sessionId), entries };
}

/**
 * Answers the tree routes: `views` in turn for GET .../tree (the last one repeats), as the server does: only the
 * nodes after `from` when the view still has `after` there, else the whole view; `handler` for the rest.
 */
function treeBackend(views: SessionTreeView[], handler: Handler = () => undefined) {
  let served = 0;
  return fakeBackend(async (request) => {
    const url = new URL(request.path, "http://leyline.test");
    if (request.method === "GET" && url.pathname === "/api/pi/sessions/s1/tree") {
      const view = views[Math.min(served, views.length - 1)] as SessionTreeView;
      served += 1;
      const from = Number(url.searchParams.get("from") ?? "0");
      if (from > 0 && view.nodes[from - 1]?.id === url.searchParams.get("after"))
        return { body: { ...view, nodes: view.nodes.slice(from), from } };
      return { body: view };
    }
    return handler(request);
  });
}

function memoryRouter(): Router {
  const page = { template: "<div />" };
  return createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: "/", component: page },
      { path: "/sessions/:id", component: page },
    ],
  });
}

async function mountPanel(views: SessionTreeView[], handler?: Handler, router = memoryRouter()) {
  setActivePinia(createPinia());
  mounted.backend = treeBackend(views, handler);
  mounted.wrapper = mount(SessionTreePanel, { props: { sessionId: "s1" }, attachTo: document.body, global: { plugins: [router] } });
  await flushPromises();
  return mounted.wrapper;
}

const rowIds = (w: VueWrapper) => w.findAll("[data-test=tree-row]").map((row) => row.attributes("data-entry-id"));
const row = (w: VueWrapper, id: string) => w.get(`[data-test=tree-row][data-entry-id="${id}"]`);
const selectedId = (w: VueWrapper) => w.find("[data-test=tree-row][aria-selected=true]").attributes("data-entry-id");
const treeRequests = () => mounted.backend?.requests.filter((r) => r.method === "GET" && r.path.split("?")[0]?.endsWith("/tree")) ?? [];
const treeGets = () => treeRequests().length;
const posts = (action: string) =>
  mounted.backend?.requests.filter((r) => r.method === "POST" && r.path === `/api/pi/sessions/s1/${action}`) ?? [];

async function press(w: VueWrapper, key: string) {
  await w.get("[data-test=tree-list]").trigger("keydown", { key });
  await nextTick();
}

describe("SessionTreePanel: the tree", () => {
  it("shows every branch like pi's /tree: the active one first, indents at the branch point, labels, summaries, errors, the leaf", async () => {
    const w = await mountPanel([branchedView()]);
    expect(rowIds(w)).toEqual(["u1", "t1", "a2", "bs1", "u3", "a5", "c1", "u4", "a6", "u2", "t2", "a4", "u5", "a7"]);
    expect(row(w, "a2").findAll(".lane")).toHaveLength(0);
    expect(
      row(w, "bs1")
        .findAll(".lane")
        .map((lane) => lane.attributes("data-lane")),
    ).toEqual(["tee"]);
    expect(
      row(w, "u5")
        .findAll(".lane")
        .map((lane) => lane.attributes("data-lane")),
    ).toEqual(["elbow"]);
    expect(row(w, "u2").get("[data-test=tree-label]").text()).toBe("oauth");
    expect(row(w, "bs1").attributes("data-kind")).toBe("branch_summary");
    expect(row(w, "c1").attributes("data-kind")).toBe("compaction");
    expect(row(w, "a6").attributes("data-error")).toBe("true");
    expect(row(w, "a6").find("[data-test=tree-leaf]").exists()).toBe(true);
    expect(w.findAll("[data-test=tree-leaf]")).toHaveLength(1);
    expect(w.findAll("[data-test=tree-row][data-active]").map((r) => r.attributes("data-entry-id"))).toEqual([
      "u1",
      "t1",
      "a2",
      "bs1",
      "u3",
      "a5",
      "c1",
      "u4",
      "a6",
    ]);
    expect(row(w, "t1").text()).toContain("read(src/app.ts)");
    expect(row(w, "a6").attributes("title")).toContain("the active leaf");
    expect(row(w, "a6").attributes("title")).toMatch(/2026|5\/1|1\.5|01/);
    // The leaf starts selected, and the keyboard is in the tree.
    expect(selectedId(w)).toBe("a6");
    expect(document.activeElement).toBe(w.get("[data-test=tree-list]").element);
    expect(w.get("[data-test=tree-count]").text()).toBe("9/14 of 17");
  });

  it("filters like pi (show all, prompts only) and searches", async () => {
    const w = await mountPanel([branchedView()]);
    await w.get("[data-test=tree-filter]").setValue("all");
    expect(rowIds(w)).toHaveLength(17);
    await w.get("[data-test=tree-filter]").setValue("user-only");
    expect(rowIds(w)).toEqual(["u1", "u3", "u4", "u2", "u5"]);
    await w.get("[data-test=tree-filter]").setValue("default");
    await w.get("[data-test=tree-search]").setValue("oauth");
    expect(rowIds(w)).toEqual(["bs1", "u2", "a4"]);
    await w.get("[data-test=tree-search]").setValue("no such words");
    expect(w.get("[data-test=tree-empty]").text()).toContain("No entry matches");
  });

  it("moves with the arrows, folds with left and right, jumps between segments", async () => {
    const w = await mountPanel([branchedView()]);
    await press(w, "ArrowUp");
    expect(selectedId(w)).toBe("u4");
    await press(w, "ArrowDown");
    await press(w, "ArrowDown");
    expect(selectedId(w)).toBe("u2");
    // u2 starts a branch segment: left folds it, right unfolds it.
    await press(w, "ArrowLeft");
    expect(rowIds(w)).not.toContain("t2");
    expect(row(w, "u2").get("[data-test=tree-hidden]").text()).toBe("+2");
    expect(row(w, "u2").attributes("aria-expanded")).toBe("false");
    await press(w, "ArrowRight");
    expect(rowIds(w)).toContain("t2");
    // Right again on an open segment start: to the end of its branch.
    await press(w, "ArrowRight");
    expect(selectedId(w)).toBe("a4");
    await press(w, "ArrowLeft");
    expect(selectedId(w)).toBe("u2");
    await press(w, "Home");
    expect(selectedId(w)).toBe("u1");
    await press(w, "End");
    expect(selectedId(w)).toBe("a7");
    // The fold button does the same with the mouse.
    await row(w, "bs1").get("[data-test=tree-fold]").trigger("click");
    expect(rowIds(w)).not.toContain("u3");
    // Clicking selects.
    await row(w, "a2").trigger("click");
    expect(selectedId(w)).toBe("a2");
  });
});

describe("SessionTreePanel: continue from here", () => {
  it("navigates to a user message and puts its text in the composer; the tree is read again", async () => {
    const moved = { ...branchedView("a2") };
    const w = await mountPanel([branchedView(), moved], (request) =>
      request.path === "/api/pi/sessions/s1/navigate"
        ? { body: { ok: true, active: activeOf(), detail: detailOf("s1"), editorText: "Use OAuth instead" } }
        : undefined,
    );
    await row(w, "u2").trigger("click");
    expect(w.get("[data-test=tree-actions] .buttons button").attributes("data-test")).toBe("tree-continue");
    await w.get("[data-test=tree-continue]").trigger("click");
    await flushPromises();
    expect(posts("navigate").map((r) => r.body)).toEqual([{ entryId: "u2" }]);
    expect(useComposerDraftStore().pending("s1")?.text).toBe("Use OAuth instead");
    expect(treeGets()).toBe(2);
    expect(w.find("[data-test=tree-leaf]").element.closest("[data-test=tree-row]")?.getAttribute("data-entry-id")).toBe("a2");
  });

  it("makes way for the composer where the panel is a drawer (a phone)", async () => {
    vi.stubGlobal("matchMedia", (query: string) => ({
      matches: query.includes("1000px"),
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }));
    const w = await mountPanel([branchedView()], (request) =>
      request.path === "/api/pi/sessions/s1/navigate"
        ? { body: { ok: true, active: activeOf(), detail: detailOf("s1"), editorText: "Use passwords" } }
        : undefined,
    );
    const workspace = useWorkspaceStore();
    workspace.attach("s1");
    workspace.show("tree");
    await row(w, "u3").trigger("click");
    await w.get("[data-test=tree-continue]").trigger("click");
    await flushPromises();
    expect(workspace.tab).toBeNull();
    expect(useComposerDraftStore().pending("s1")?.text).toBe("Use passwords");
  });

  it("Enter continues from the selected entry, with pi's summary of the branch left and its instructions", async () => {
    let answer: (value: FakeAnswer) => void = () => undefined;
    const w = await mountPanel([branchedView()], (request) =>
      request.path === "/api/pi/sessions/s1/navigate" ? new Promise<FakeAnswer>((resolve) => (answer = resolve)) : undefined,
    );
    await row(w, "a7").trigger("click");
    await w.get("[data-test=tree-summarize]").setValue(true);
    await w.get("[data-test=tree-summary-instructions]").setValue("  Keep the mail provider  ");
    await press(w, "Enter");
    await flushPromises();
    expect(posts("navigate").map((r) => r.body)).toEqual([
      { entryId: "a7", summarize: true, customInstructions: "Keep the mail provider" },
    ]);
    expect(w.get("[data-test=tree-progress]").text()).toContain("summarizing");
    expect(w.get("[data-test=tree-continue]").attributes("disabled")).toBeDefined();
    answer({ body: { ok: true, active: activeOf(), detail: detailOf("s1"), summaryEntryId: "bs9" } });
    await flushPromises();
    expect(w.find("[data-test=tree-progress]").exists()).toBe(false);
    expect(w.find("[data-test=tree-summarize]").element).toHaveProperty("checked", false);
    expect(useComposerDraftStore().pending("s1")).toBeNull();
  });

  it("shows the server's refusal, and is off while the agent works", async () => {
    const w = await mountPanel([branchedView()], (request) =>
      request.path === "/api/pi/sessions/s1/navigate" ? { status: 500, body: { error: "The agent is working" } } : undefined,
    );
    await row(w, "u5").trigger("click");
    await w.get("[data-test=tree-continue]").trigger("click");
    await flushPromises();
    expect(w.get("[data-test=tree-action-error]").text()).toBe("The agent is working");

    const open = useOpenSessionStore();
    void open.open("s1");
    useRuntimesStore().applySnapshot(activeOf({ isStreaming: true }));
    await nextTick();
    expect(w.get("[data-test=tree-continue]").attributes("disabled")).toBeDefined();
    expect(w.get("[data-test=tree-continue]").attributes("title")).toContain("working");
    await press(w, "Enter");
    await flushPromises();
    expect(posts("navigate")).toHaveLength(1);
  });

  it("offers nothing to do on the leaf itself", async () => {
    const w = await mountPanel([branchedView()]);
    expect(selectedId(w)).toBe("a6");
    expect(w.get("[data-test=tree-continue]").attributes("disabled")).toBeDefined();
  });
});

describe("SessionTreePanel: labels, fork, show in transcript", () => {
  it("edits a label with `l`, and removes it", async () => {
    // The server's next answer: nothing appended, the label changed (the labels map says so).
    const labeled = { ...branchedView(), labels: { u2: "auth v1" } };
    const w = await mountPanel([branchedView(), labeled], (request) =>
      request.path === "/api/pi/sessions/s1/label" ? { body: { ok: true, active: activeOf() } } : undefined,
    );
    await row(w, "u2").trigger("click");
    await press(w, "l");
    const input = document.querySelector<HTMLInputElement>("[data-test=tree-label-input]");
    expect(input?.value).toBe("oauth");
    expect(document.activeElement).toBe(input);
    await w.get("[data-test=tree-label-input]").setValue("  auth v1 ");
    await w.get("#tree-label-form").trigger("submit");
    await flushPromises();
    expect(posts("label").map((r) => r.body)).toEqual([{ entryId: "u2", label: "auth v1" }]);
    expect(w.find("[data-test=tree-label-dialog]").exists()).toBe(false);
    expect(treeGets()).toBe(2);
    expect(row(w, "u2").get("[data-test=tree-label]").text()).toBe("auth v1");

    await w.get("[data-test=tree-label-edit]").trigger("click");
    await w.get("[data-test=tree-label-clear]").trigger("click");
    await flushPromises();
    expect(posts("label").at(-1)?.body).toEqual({ entryId: "u2", label: "" });
  });

  it("keeps the label dialog open with the error when saving fails", async () => {
    const w = await mountPanel([branchedView()], (request) =>
      request.path === "/api/pi/sessions/s1/label"
        ? { status: 400, body: { error: "label must be a string of at most 200 characters" } }
        : undefined,
    );
    await w.get("[data-test=tree-label-edit]").trigger("click");
    await w.get("[data-test=tree-label-input]").setValue("x");
    await w.get("#tree-label-form").trigger("submit");
    await flushPromises();
    expect(w.get("[data-test=tree-label-error]").text()).toContain("at most 200");
    await w.get("[data-test=tree-label-cancel]").trigger("click");
    expect(w.find("[data-test=tree-label-dialog]").exists()).toBe(false);
  });

  it("forks from a user message into a new session whose composer gets the prompt", async () => {
    const router = memoryRouter();
    await router.push("/sessions/s1");
    const w = await mountPanel(
      [branchedView()],
      (request) =>
        request.path === "/api/pi/sessions/s1/fork"
          ? { body: { ok: true, active: activeOf({}, 1, "s2"), detail: detailOf("s2"), editorText: "A third idea: magic links" } }
          : undefined,
      router,
    );
    await row(w, "u5").trigger("click");
    await w.get("[data-test=tree-fork]").trigger("click");
    await flushPromises();
    expect(posts("fork").map((r) => r.body)).toEqual([{ entryId: "u5" }]);
    expect(useComposerDraftStore().pending("s2")?.text).toBe("A third idea: magic links");
    expect(router.currentRoute.value.fullPath).toBe("/sessions/s2");
  });

  it("makes way for the new session's composer after a fork where the panel is a drawer (a phone)", async () => {
    vi.stubGlobal("matchMedia", (query: string) => ({
      matches: query.includes("1000px"),
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }));
    const router = memoryRouter();
    await router.push("/sessions/s1");
    const w = await mountPanel(
      [branchedView()],
      (request) =>
        request.path === "/api/pi/sessions/s1/fork"
          ? { body: { ok: true, active: activeOf({}, 1, "s2"), detail: detailOf("s2"), editorText: "Use passwords" } }
          : undefined,
      router,
    );
    const workspace = useWorkspaceStore();
    workspace.attach("s1");
    workspace.show("tree");
    await row(w, "u3").trigger("click");
    await w.get("[data-test=tree-fork]").trigger("click");
    await flushPromises();
    expect(router.currentRoute.value.fullPath).toBe("/sessions/s2");
    expect(workspace.tab).toBeNull();
  });

  it("shows an entry of the active branch in the transcript (the session at ?entry=), a label as the entry it is on", async () => {
    const router = memoryRouter();
    await router.push("/sessions/s1");
    const labeled = branchedView("l1");
    labeled.nodes.push(treeNode("l1", "a4", "label", "label: done"));
    labeled.total += 1;
    const w = await mountPanel([labeled], undefined, router);
    const open = useOpenSessionStore();
    const entries: TranscriptEntry[] = [
      userEntry("u1", "Add a login page"),
      assistantEntry("a2", "Which sign-in method?", null),
      userEntry("u2", "Use OAuth instead"),
      toolEntry("a3", "call-1", { resultEntryId: "t2" }),
      assistantEntry("a4", "Done with OAuth.", null),
    ];
    const done = open.open("s1");
    for (const chunk of snapshotChunks(detailSession("s1"), entries, 1, 1000, "a4")) open.receiveSnapshot(chunk);
    await done;
    await flushPromises();
    await row(w, "t2").trigger("click");
    await w.get("[data-test=tree-show]").trigger("click");
    await flushPromises();
    expect(router.currentRoute.value.fullPath).toBe("/sessions/s1?entry=t2");
    await w.get("[data-test=tree-filter]").setValue("all");
    await row(w, "l1").trigger("click");
    await w.get("[data-test=tree-show]").trigger("click");
    await flushPromises();
    expect(router.currentRoute.value.fullPath).toBe("/sessions/s1?entry=a4");
    // Not on the active branch: nothing to show.
    await row(w, "u5").trigger("click");
    expect(w.get("[data-test=tree-show]").attributes("disabled")).toBeDefined();
  });
});

describe("SessionTreePanel: compare", () => {
  it("compares two branches side by side from their common ancestor, with the files each changed", async () => {
    const { a, b } = twoBranches();
    const w = await mountPanel([branchedView()], (request) => {
      if (request.path.startsWith("/api/pi/sessions/s1/branch?")) {
        const leafId = new URLSearchParams(request.path.split("?")[1]).get("leafId");
        return { body: { sessionId: "s1", leafId, entries: leafId === "m1" ? a : b } };
      }
      return undefined;
    });
    await row(w, "u2").trigger("click");
    await w.get("[data-test=tree-compare]").trigger("click");
    expect(row(w, "u2").attributes("data-marked")).toBe("true");
    expect(w.find("[data-test=tree-compare-hint]").exists()).toBe(true);
    await row(w, "u5").trigger("click");
    expect(w.get("[data-test=tree-compare]").text()).toContain("Compare with marked");
    await w.get("[data-test=tree-compare]").trigger("click");
    await flushPromises();
    // Each node stands for the tip of its branch: u2 → m1 (the latest entry below it), u5 → a7.
    const branchPaths = mounted.backend?.requests.filter((r) => r.path.includes("/branch?")).map((r) => r.path);
    expect(branchPaths).toEqual(["/api/pi/sessions/s1/branch?leafId=m1", "/api/pi/sessions/s1/branch?leafId=a7"]);
    const dialog = w.get("[data-test=compare-dialog]");
    expect(dialog.get("[data-test=compare-shared]").text()).toBe("2 shared entries");
    expect(dialog.get("[data-test=compare-files-a]").text()).toContain("src/login.ts");
    expect(dialog.get("[data-test=compare-files-a]").text()).not.toContain("src/app.ts");
    expect(dialog.get("[data-test=compare-files-b]").text()).toContain("src/password.ts");
    expect(dialog.findAll("[data-test=compare-files-b] [data-both]").map((li) => li.text())).toEqual([
      expect.stringContaining("src/login.ts"),
    ]);
    expect(dialog.findAll("[data-test=compare-entries-a] li").map((li) => li.attributes("data-entry-id"))).toEqual([
      "u2",
      "a3:call-1",
      "a3:call-2",
      "a4",
    ]);
    await dialog.get("[data-test=compare-shared]").trigger("click");
    expect(w.findAll("[data-test=compare-shared-entries] li")).toHaveLength(2);
    await w.get("[data-test=compare-close]").trigger("click");
    expect(w.find("[data-test=compare-dialog]").exists()).toBe(false);
  });

  it("compares a marked branch with the active one, one column at a time on a phone", async () => {
    const { a, b } = twoBranches();
    const matchMedia = vi.fn((query: string) => ({
      matches: query.includes("700px"),
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }));
    vi.stubGlobal("matchMedia", matchMedia);
    const w = await mountPanel([branchedView()], (request) =>
      request.path.includes("/branch?")
        ? { body: { sessionId: "s1", leafId: "x", entries: request.path.endsWith("a7") ? a : b } }
        : undefined,
    );
    await row(w, "u5").trigger("click");
    await w.get("[data-test=tree-compare]").trigger("click");
    await w.get("[data-test=tree-compare-leaf]").trigger("click");
    await flushPromises();
    expect(mounted.backend?.requests.filter((r) => r.path.includes("/branch?")).map((r) => r.path)).toEqual([
      "/api/pi/sessions/s1/branch?leafId=a7",
      "/api/pi/sessions/s1/branch?leafId=a6",
    ]);
    expect(w.find("[data-test=compare-column-a]").exists()).toBe(true);
    expect(w.find("[data-test=compare-column-b]").exists()).toBe(false);
    await w.get("[data-test=compare-switch-b]").trigger("click");
    expect(w.find("[data-test=compare-column-a]").exists()).toBe(false);
    expect(w.get("[data-test=compare-column-b]").text()).toContain("src/password.ts");
  });
});

describe("SessionTreePanel: live and large", () => {
  it("reads what was appended once after the open session's stream moves (debounced), not before", async () => {
    const grown = branchedView("a8");
    grown.nodes.push(treeNode("a8", "a7", "user", "Which mail provider?"));
    grown.total += 1;
    const w = await mountPanel([branchedView(), grown]);
    const open = useOpenSessionStore();
    const v1 = [userEntry("u1", "Add a login page")];
    const v2 = [...v1, assistantEntry("a7", "Magic links need mail.", null)];
    const done = open.open("s1");
    for (const chunk of snapshotChunks(detailSession("s1"), v1, 1)) open.receiveSnapshot(chunk);
    await done;
    open.receiveDelta(sessionDelta("s1", v1, v2, 1, { leafId: "a7" }));
    await flushPromises();
    expect(treeGets()).toBeLessThanOrEqual(1);
    await vi.waitFor(() => expect(treeGets()).toBe(2));
    await flushPromises();
    expect(treeRequests()[1]?.path).toBe("/api/pi/sessions/s1/tree?from=17&after=a7");
    expect(w.find("[data-test=tree-leaf]").element.closest("[data-test=tree-row]")?.getAttribute("data-entry-id")).toBe("a8");
    expect(rowIds(w)).toHaveLength(15);
  });

  it("says so when the first read fails, and Try again reads it", async () => {
    setActivePinia(createPinia());
    let fail = true;
    mounted.backend = fakeBackend(() => (fail ? { status: 404, body: { error: "Session not found" } } : { body: branchedView() }));
    mounted.wrapper = mount(SessionTreePanel, { props: { sessionId: "s1" }, global: { plugins: [memoryRouter()] } });
    await flushPromises();
    expect(mounted.wrapper.get("[data-test=tree-error]").text()).toContain("Session not found");
    fail = false;
    await mounted.wrapper.get("[data-test=tree-error] button").trigger("click");
    await flushPromises();
    expect(rowIds(mounted.wrapper)).toHaveLength(14);
  });

  it("says so when a later read fails, and keeps the tree", async () => {
    let fail = true;
    const w = await mountPanel([branchedView()]);
    expect(rowIds(w)).toHaveLength(14);
    mounted.backend?.restore();
    mounted.backend = fakeBackend(() => (fail ? { status: 500, body: { error: "disk on fire" } } : { body: branchedView("a7") }));
    const open = useOpenSessionStore();
    const done = open.open("s1");
    for (const chunk of snapshotChunks(detailSession("s1"), [userEntry("u1", "x")], 1)) open.receiveSnapshot(chunk);
    await done;
    await vi.waitFor(() => expect(w.find("[data-test=tree-stale]").exists()).toBe(true));
    expect(w.get("[data-test=tree-stale]").text()).toContain("disk on fire");
    expect(rowIds(w)).toHaveLength(14);
    fail = false;
    await w.get("[data-test=tree-stale] button").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=tree-stale]").exists()).toBe(false);
    expect(w.find("[data-test=tree-leaf]").element.closest("[data-test=tree-row]")?.getAttribute("data-entry-id")).toBe("a7");
  });

  it("keeps a 10,000-entry tree to a window of rows and moves through it quickly", async () => {
    const view = largeView(10_000);
    const started = performance.now();
    const w = await mountPanel([view]);
    const mountedMs = performance.now() - started;
    const rendered = rowIds(w);
    expect(rendered.length).toBeGreaterThan(10);
    expect(rendered.length).toBeLessThan(80);
    expect(rendered).toContain(view.leafId);
    const total = Number((w.get("[data-test=tree-count]").text().split("/")[1] ?? "").split(" ")[0]);
    expect(total).toBeGreaterThan(7000);
    const moves: number[] = [];
    for (const key of ["Home", "PageDown", "End", "ArrowUp"]) {
      const t = performance.now();
      await press(w, key);
      moves.push(performance.now() - t);
      expect(rowIds(w).length).toBeLessThan(80);
    }
    expect(rowIds(w)).toContain(selectedId(w));
    const t = performance.now();
    await w.get("[data-test=tree-search]").setValue("side 5000");
    const searchMs = performance.now() - t;
    expect(rowIds(w)).toContain("b5000");
    console.info(
      `10,000-node tree: mounted in ${mountedMs.toFixed(0)} ms with ${rendered.length} rows in the DOM; ` +
        `keys ${moves.map((ms) => `${ms.toFixed(0)} ms`).join(", ")}; search ${searchMs.toFixed(0)} ms (happy-dom)`,
    );
  }, 30_000);
});

describe("SessionTreePanel: another session", () => {
  /** s1's tree, and s2's: a short session of its own. */
  const s2View = () =>
    treeViewOf([treeNode("x1", null, "user", "Another session's prompt"), treeNode("x2", "x1", "assistant", "Its answer")], "x2", "s2");
  const otherSession: Handler = (request) => (request.path.startsWith("/api/pi/sessions/s2/tree") ? { body: s2View() } : undefined);

  it("drops the previous session's dialogs and options: a label dialog left open does not save into the new one", async () => {
    const w = await mountPanel([branchedView()], otherSession);
    await row(w, "u2").trigger("click");
    await w.get("[data-test=tree-summarize]").setValue(true);
    await w.get("[data-test=tree-summary-instructions]").setValue("keep it short");
    await press(w, "l");
    expect(w.find("[data-test=tree-label-dialog]").exists()).toBe(true);
    await w.setProps({ sessionId: "s2" });
    await flushPromises();
    expect(rowIds(w)).toEqual(["x1", "x2"]);
    expect(w.find("[data-test=tree-label-dialog]").exists()).toBe(false);
    expect(w.find("[data-test=tree-summarize]").element).toHaveProperty("checked", false);
    expect(w.find("[data-test=tree-summary-instructions]").exists()).toBe(false);
    expect(mounted.backend?.requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("drops a compare dialog and mark of the previous session", async () => {
    const { a, b } = twoBranches();
    const w = await mountPanel([branchedView()], (request) => {
      if (request.path.includes("/branch?"))
        return { body: { sessionId: "s1", leafId: "x", entries: request.path.endsWith("a7") ? a : b } };
      return otherSession(request);
    });
    await row(w, "u5").trigger("click");
    await w.get("[data-test=tree-compare]").trigger("click");
    await w.get("[data-test=tree-compare-leaf]").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=compare-dialog]").exists()).toBe(true);
    await w.setProps({ sessionId: "s2" });
    await flushPromises();
    expect(w.find("[data-test=compare-dialog]").exists()).toBe(false);
    expect(w.find("[data-test=tree-compare-hint]").exists()).toBe(false);
  });

  it("takes the keyboard when the panel opens, not when the session changes under it", async () => {
    const w = await mountPanel([branchedView()], otherSession);
    expect(document.activeElement).toBe(w.get("[data-test=tree-list]").element);
    const elsewhere = document.createElement("textarea");
    document.body.append(elsewhere);
    elsewhere.focus();
    await w.setProps({ sessionId: "s2" });
    await flushPromises();
    expect(rowIds(w)).toEqual(["x1", "x2"]);
    expect(document.activeElement).toBe(elsewhere);
    // A click in the tree takes it.
    await row(w, "x1").trigger("click");
    expect(document.activeElement).toBe(w.get("[data-test=tree-list]").element);
  });
});

describe("SessionTreePanel: assistive technology", () => {
  it("names a row in the DOM as the active descendant even with the selection scrolled out of the window", async () => {
    const view = largeView(2_000);
    const w = await mountPanel([view]);
    const list = w.get("[data-test=tree-list]");
    const named = () => document.getElementById(list.attributes("aria-activedescendant") ?? "");
    expect(named()?.getAttribute("data-entry-id")).toBe(view.leafId);
    (list.element as HTMLElement).scrollTop = 0;
    await list.trigger("scroll");
    expect(rowIds(w)).toContain("n0");
    expect(named()?.getAttribute("data-entry-id")).toBe(view.leafId);
    expect(named()?.getAttribute("aria-selected")).toBe("true");
  });

  it("gives each row its level, its place in its set and the set's size", async () => {
    const w = await mountPanel([branchedView()]);
    const aria = (id: string) => ["aria-level", "aria-posinset", "aria-setsize"].map((name) => row(w, id).attributes(name));
    expect(aria("u1")).toEqual(["1", "1", "3"]);
    expect(aria("bs1")).toEqual(["2", "1", "11"]);
    expect(aria("u5")).toEqual(["2", "10", "11"]);
  });
});

describe("the Tree tab of the workspace", () => {
  it("is offered when the backend serves the tree, and opens the panel", async () => {
    setActivePinia(createPinia());
    mounted.backend = treeBackend([branchedView()]);
    const backend = useBackendStore();
    const capabilities = { review: false, terminal: false, fileLinks: false, sessionTree: true };
    backend.$patch({ info: { name: "Leyline", version: "1", apiVersion: 2, capabilities } as never });
    const workspace = useWorkspaceStore();
    workspace.attach("s1");
    const buttons = mount(WorkspaceButtons, { props: { cwd: "/w" }, global: { plugins: [memoryRouter()] } });
    await buttons.get("[data-test=open-tree]").trigger("click");
    expect(workspace.tab).toBe("tree");
    mounted.wrapper = mount(WorkspacePanel, { props: { sessionId: "s1", cwd: "/w" }, global: { plugins: [memoryRouter()] } });
    await flushPromises();
    expect(mounted.wrapper.get("[data-test=workspace-tab-tree]").attributes("aria-selected")).toBe("true");
    expect(mounted.wrapper.findAll("[data-test=tree-row]").length).toBeGreaterThan(5);
    buttons.unmount();
  });

  it("is not offered by a backend without the tree", async () => {
    setActivePinia(createPinia());
    useBackendStore().$patch({ info: { name: "Leyline", version: "1", apiVersion: 2, capabilities: { terminal: true } } as never });
    const buttons = mount(WorkspaceButtons, { props: { cwd: "/w" } });
    expect(buttons.find("[data-test=open-tree]").exists()).toBe(false);
    buttons.unmount();
  });
});
