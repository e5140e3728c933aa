/**
 * The Memory inspector in happy-dom over a fake Memory Inspector backend (memories.fixture.ts, answering as the
 * server does): opening it from its button, filters, counts and search, writing, editing, archiving and
 * restoring (one and several), deleting after a confirmation, sanitised Markdown, errors in words, and that its
 * requests go to the selected backend.
 */
import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setApiBase } from "../../api/http.ts";
import type { Memory } from "../../api/memories.ts";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import DialogHost from "../app/DialogHost.vue";
import { fakeBackend, type FakeBackend, type RecordedRequest } from "../composer/composer.fixture.ts";
import { fileLinksPinia } from "../workspace/file-links.fixture.ts";
import MemoriesButton from "./MemoriesButton.vue";
import { memoriesBackend, memory } from "./memories.fixture.ts";

const SESSION_FILE = "/agent/sessions/s1.jsonl";

let backend: FakeBackend | null = null;
let wrapper: VueWrapper | null = null;
afterEach(() => {
  wrapper?.unmount();
  wrapper = null;
  backend?.restore();
  backend = null;
  setApiBase("");
  document.body.innerHTML = "";
});

function records(): Memory[] {
  return [
    memory({
      id: "g1",
      scope: "global",
      projectId: null,
      projectName: null,
      contentMd: "Prefer **pnpm** <img src=x onerror=alert(1)>",
      tags: ["tools"],
      updatedAt: 4_000,
    }),
    memory({
      id: "p1",
      scope: "project",
      contentMd: "Tests live next to the code",
      source: "agent",
      reasonMd: "Seen in *three* PRs",
      updatedAt: 3_000,
      lastAccessedAt: 3_500,
    }),
    memory({ id: "p2", scope: "project", contentMd: "Old build notes", status: "archived", archivedAt: 2_500, updatedAt: 2_000 }),
    memory({ id: "s1", scope: "session", sessionFile: SESSION_FILE, sessionId: "s1", contentMd: "Renaming the API", updatedAt: 1_500 }),
    memory({ id: "x1", scope: "project", projectId: "p2", projectName: "other", contentMd: "Another project", updatedAt: 5_000 }),
  ];
}

async function open(options: { sessionPath?: string | null; store?: Memory[]; failList?: string } = {}) {
  const store = options.store ?? records();
  let clock = 10_000;
  const handler = memoriesBackend(store, { now: () => (clock += 1), ...(options.failList ? { failList: options.failList } : {}) });
  backend = fakeBackend(handler);
  const pinia = fileLinksPinia(false);
  wrapper = mount(
    {
      components: { MemoriesButton, DialogHost },
      props: ["cwd", "sessionPath"],
      template: `<div><MemoriesButton :cwd="cwd" :session-path="sessionPath" /><DialogHost /></div>`,
    },
    { props: { cwd: "/work/app", sessionPath: options.sessionPath ?? null }, global: { plugins: [pinia] }, attachTo: document.body },
  );
  await wrapper.get("[data-test=memory-open]").trigger("click");
  await loadMarkdownRenderer();
  await flushPromises();
  return { w: wrapper, store, requests: backend.requests };
}

const listed = (w: VueWrapper) => w.findAll("[data-test=memory-item]").map((item) => item.attributes("data-memory-id"));
const text = (w: VueWrapper, test: string) => w.get(`[data-test=${test}]`).text();
const writes = (requests: RecordedRequest[]) =>
  requests.filter((r) => r.method !== "GET").map((r) => ({ method: r.method, path: r.path, body: r.body }));

describe("Memory inspector", () => {
  it("lists what the folder sees, newest first, with counts by scope and status, and shows each record's facts", async () => {
    const { w, requests } = await open();
    expect(requests[0]).toMatchObject({ method: "GET", path: "/api/pi/memories?cwd=%2Fwork%2Fapp" });
    expect(text(w, "memory-context")).toContain("Project app");
    expect(text(w, "memory-context")).toContain("no session open");
    // Another project's memory and the session's are not visible; the archived one is in the other list.
    expect(listed(w)).toEqual(["g1", "p1"]);
    expect(text(w, "memory-scope-all")).toBe("All 2");
    expect(text(w, "memory-scope-global")).toBe("Global 1");
    expect(text(w, "memory-scope-project")).toBe("Project 1");
    expect(w.find("[data-test=memory-scope-session]").exists()).toBe(false);
    expect(text(w, "memory-status-active")).toBe("Active 2");
    expect(text(w, "memory-status-archived")).toBe("Archived 1");

    const agent = w.get("[data-memory-id=p1]");
    expect(agent.get("[data-test=memory-scope-badge]").text()).toBe("Project · app");
    expect(agent.get("[data-test=memory-source]").text()).toBe("by agent");
    expect(agent.get("[data-test=memory-reason]").find("em").text()).toBe("three");
    expect(agent.get("[data-test=memory-dates]").attributes("title")).toContain("Last used by an agent");
    const global = w.get("[data-memory-id=g1]");
    expect(global.get("[data-test=memory-content]").find("strong").text()).toBe("pnpm");
    expect(global.get("[data-test=memory-content]").find("img").exists()).toBe(false);
    expect(global.findAll("[data-test=memory-tag]").map((t) => t.text())).toEqual(["tools"]);
    expect(global.find("[data-test=memory-reason]").exists()).toBe(false);
  });

  it("filters by scope, status and search", async () => {
    const { w } = await open();
    await w.get("[data-test=memory-scope-project]").trigger("click");
    expect(listed(w)).toEqual(["p1"]);
    expect(text(w, "memory-status-archived")).toBe("Archived 1");
    await w.get("[data-test=memory-status-archived]").trigger("click");
    expect(listed(w)).toEqual(["p2"]);
    expect(text(w, "memory-scope-all")).toBe("All 1");
    await w.get("[data-test=memory-scope-global]").trigger("click");
    expect(listed(w)).toEqual([]);
    expect(text(w, "memory-empty")).toBe("No archived memories in this scope.");
    await w.get("[data-test=memory-scope-all]").trigger("click");
    await w.get("[data-test=memory-status-active]").trigger("click");
    await w.get("[data-test=memory-search]").setValue("PNPM");
    expect(listed(w)).toEqual(["g1"]);
    await w.get("[data-test=memory-search]").setValue("tools prefer");
    expect(listed(w)).toEqual(["g1"]);
    await w.get("[data-test=memory-search]").setValue("nothing like this");
    expect(text(w, "memory-empty")).toBe("No memory matches the search.");
  });

  it("from a session: its memories show, and a new memory can go to the session scope", async () => {
    const { w, requests, store } = await open({ sessionPath: SESSION_FILE });
    expect(requests[0]?.path).toBe(`/api/pi/memories?cwd=%2Fwork%2Fapp&sessionPath=${encodeURIComponent(SESSION_FILE)}`);
    expect(listed(w)).toEqual(["g1", "p1", "s1"]);
    expect(text(w, "memory-scope-session")).toBe("Session 1");
    await w.get("[data-test=memory-scope-session]").trigger("click");
    await w.get("[data-test=memory-new]").trigger("click");
    const scope = w.get<HTMLSelectElement>("[data-test=memory-editor-scope]");
    expect(scope.element.value).toBe("session");
    expect(scope.findAll("option").map((o) => o.attributes("value"))).toEqual(["global", "project", "session"]);
    await w.get("[data-test=memory-editor-content]").setValue("We are *mid-rename*.");
    await w.get("[data-test=memory-editor-tags]").setValue("Rename, api");
    await w.get("[data-test=memory-editor]").trigger("submit");
    await flushPromises();
    expect(writes(requests)).toEqual([
      {
        method: "POST",
        path: "/api/pi/memories",
        body: { cwd: "/work/app", sessionPath: SESSION_FILE, scope: "session", contentMd: "We are *mid-rename*.", tags: ["Rename", "api"] },
      },
    ]);
    expect(w.find("[data-test=memory-editor]").exists()).toBe(false);
    expect(listed(w)).toEqual(["new-1", "s1"]);
    expect(
      w
        .get("[data-memory-id=new-1]")
        .findAll("[data-test=memory-tag]")
        .map((t) => t.text()),
    ).toEqual(["rename", "api"]);
    expect(store.some((m) => m.id === "new-1" && m.scope === "session")).toBe(true);
  });

  it("writes a memory without a session (no session scope offered), previews it, and shows a refusal in words", async () => {
    const { w, requests } = await open();
    await w.get("[data-test=memory-new]").trigger("click");
    const scope = w.get<HTMLSelectElement>("[data-test=memory-editor-scope]");
    expect(scope.findAll("option").map((o) => o.attributes("value"))).toEqual(["global", "project"]);
    expect(scope.element.value).toBe("project");
    expect(w.get("[data-test=memory-editor-save]").attributes("disabled")).toBeDefined();
    expect(text(w, "memory-editor-hint")).toBe("Write what to remember.");
    await w.get("[data-test=memory-editor-content]").setValue("# Heading\n\nUse `node 22`.");
    await w.get("[data-test=memory-editor-preview]").setValue(true);
    await flushPromises();
    expect(w.get("[data-test=memory-editor-rendered]").find("h1").text()).toBe("Heading");
    await w.get("[data-test=memory-editor-preview]").setValue(false);
    await scope.setValue("global");
    await w.get("[data-test=memory-editor-save]").trigger("click");
    await w.get("[data-test=memory-editor]").trigger("submit");
    await flushPromises();
    expect(writes(requests)).toEqual([
      {
        method: "POST",
        path: "/api/pi/memories",
        body: { cwd: "/work/app", scope: "global", contentMd: "# Heading\n\nUse `node 22`.", tags: [] },
      },
    ]);
    expect(listed(w)[0]).toBe("new-1");
    expect(text(w, "memory-scope-global")).toBe("Global 2");

    // The server's refusal shows under the form, which keeps what was typed.
    backend!.restore();
    backend = fakeBackend(() => ({ status: 400, body: { error: "a memory can have at most 20 tags" } }));
    await w.get("[data-test=memory-new]").trigger("click");
    await w.get("[data-test=memory-editor-content]").setValue("Too many tags");
    await w.get("[data-test=memory-editor]").trigger("submit");
    await flushPromises();
    expect(text(w, "memory-editor-error")).toBe("a memory can have at most 20 tags");
    expect(w.get<HTMLTextAreaElement>("[data-test=memory-editor-content]").element.value).toBe("Too many tags");
    await w.get("[data-test=memory-editor-cancel]").trigger("click");
    expect(w.find("[data-test=memory-editor]").exists()).toBe(false);
  });

  it("edits content and tags of a record; its scope stays", async () => {
    const { w, requests } = await open();
    await w.get("[data-memory-id=p1] [data-test=memory-edit]").trigger("click");
    expect(w.find("[data-test=memory-editor-scope]").exists()).toBe(false);
    expect(text(w, "memory-editor-scope-fixed")).toBe("Project · app");
    const content = w.get<HTMLTextAreaElement>("[data-test=memory-editor-content]");
    expect(content.element.value).toBe("Tests live next to the code");
    await content.setValue("Tests live in `test/`");
    await w.get("[data-test=memory-editor-tags]").setValue("tests, layout");
    await w.get("[data-test=memory-editor]").trigger("submit");
    await flushPromises();
    expect(writes(requests)).toEqual([
      {
        method: "PATCH",
        path: "/api/pi/memories/p1",
        body: { cwd: "/work/app", contentMd: "Tests live in `test/`", tags: ["tests", "layout"] },
      },
    ]);
    // Edited: newest update first, reason and source kept.
    expect(listed(w)).toEqual(["p1", "g1"]);
    const edited = w.get("[data-memory-id=p1]");
    expect(edited.get("[data-test=memory-content] code").text()).toBe("test/");
    expect(edited.get("[data-test=memory-source]").text()).toBe("by agent");
  });

  it("archives and restores one record, and several selected at once", async () => {
    const { w, requests } = await open({ sessionPath: SESSION_FILE });
    await w.get("[data-memory-id=g1] [data-test=memory-toggle-status]").trigger("click");
    await flushPromises();
    expect(listed(w)).toEqual(["p1", "s1"]);
    expect(text(w, "memory-status-archived")).toBe("Archived 2");

    await w.get("[data-memory-id=p1] [data-test=memory-select]").setValue(true);
    await w.get("[data-memory-id=s1] [data-test=memory-select]").setValue(true);
    expect(text(w, "memory-selected-count")).toBe("2 selected");
    expect(text(w, "memory-bulk-status")).toBe("Archive selected");
    await w.get("[data-test=memory-bulk-status]").trigger("click");
    await flushPromises();
    expect(listed(w)).toEqual([]);
    expect(text(w, "memory-status-active")).toBe("Active 0");
    expect(text(w, "memory-status-archived")).toBe("Archived 4");

    await w.get("[data-test=memory-status-archived]").trigger("click");
    expect(listed(w)).toEqual(["g1", "p1", "p2", "s1"]);
    expect(w.get("[data-memory-id=g1] [data-test=memory-dates]").text()).toContain("archived");
    await w.get("[data-test=memory-select-all]").setValue(true);
    expect(text(w, "memory-selected-count")).toBe("4 selected");
    expect(text(w, "memory-bulk-status")).toBe("Restore selected");
    await w.get("[data-test=memory-bulk-status]").trigger("click");
    await flushPromises();
    expect(text(w, "memory-status-active")).toBe("Active 4");
    expect(writes(requests).map((r) => r.body)).toEqual([
      { cwd: "/work/app", sessionPath: SESSION_FILE, ids: ["g1"], status: "archived" },
      { cwd: "/work/app", sessionPath: SESSION_FILE, ids: ["p1", "s1"], status: "archived" },
      { cwd: "/work/app", sessionPath: SESSION_FILE, ids: ["g1", "p1", "p2", "s1"], status: "active" },
    ]);
  });

  it("deletes after a confirmation only, one record by its own route; only listed selected records are acted on", async () => {
    const { w, requests } = await open();
    await w.get("[data-memory-id=g1] [data-test=memory-delete]").trigger("click");
    await flushPromises();
    expect(text(w, "confirm-dialog")).toContain("Delete this memory?");
    await w.get("[data-test=confirm-cancel]").trigger("click");
    await flushPromises();
    expect(writes(requests)).toEqual([]);
    expect(listed(w)).toEqual(["g1", "p1"]);

    await w.get("[data-memory-id=g1] [data-test=memory-delete]").trigger("click");
    await flushPromises();
    await w.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(listed(w)).toEqual(["p1"]);

    await w.get("[data-test=memory-status-archived]").trigger("click");
    await w.get("[data-test=memory-scope-all]").trigger("click");
    await w.get("[data-test=memory-status-active]").trigger("click");
    await w.get("[data-test=memory-select-all]").setValue(true);
    await w.get("[data-test=memory-status-archived]").trigger("click");
    await w.get("[data-test=memory-select-all]").setValue(true);
    // Only what is listed (the archived record) is acted on.
    expect(text(w, "memory-selected-count")).toBe("1 selected");
    await w.get("[data-memory-id=p2] [data-test=memory-select]").setValue(false);
    await w.get("[data-test=memory-status-active]").trigger("click");
    await w.get("[data-test=memory-bulk-delete]").trigger("click");
    await flushPromises();
    expect(text(w, "confirm-dialog")).toContain("Delete this memory?");
    await w.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(writes(requests)).toEqual([
      { method: "DELETE", path: "/api/pi/memories/g1", body: { cwd: "/work/app" } },
      { method: "DELETE", path: "/api/pi/memories/p1", body: { cwd: "/work/app" } },
    ]);
    expect(text(w, "memory-status-active")).toBe("Active 0");
  });

  it("bulk delete of several sends their ids in one request; a missing memory's error shows and the list stays", async () => {
    const { w, requests, store } = await open();
    await w.get("[data-test=memory-select-all]").setValue(true);
    await w.get("[data-test=memory-bulk-delete]").trigger("click");
    await flushPromises();
    expect(text(w, "confirm-dialog")).toContain("Delete 2 memories?");
    // Someone else deleted one meanwhile: the server refuses the whole request.
    store.splice(
      store.findIndex((m) => m.id === "p1"),
      1,
    );
    await w.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(writes(requests)).toEqual([{ method: "DELETE", path: "/api/pi/memories", body: { cwd: "/work/app", ids: ["g1", "p1"] } }]);
    expect(text(w, "memory-action-error")).toBe("Memory not found: p1");
    expect(listed(w)).toEqual(["g1", "p1"]);
  });

  it("says when the list cannot be loaded, and retries", async () => {
    const { w, requests } = await open({ failList: "Internal server error" });
    expect(text(w, "memory-error")).toContain("The memories could not be loaded: Internal server error");
    await w.get("[data-test=memory-retry]").trigger("click");
    await flushPromises();
    expect(requests.filter((r) => r.method === "GET")).toHaveLength(2);
  });

  it("talks to the selected backend and closes", async () => {
    const urls: string[] = [];
    setApiBase("http://remote.example:8787/base/");
    vi.stubGlobal("fetch", async (input: string | URL | Request) => {
      urls.push(String(input));
      return new Response(JSON.stringify({ error: "nope" }), { status: 404, headers: { "content-type": "application/json" } });
    });
    try {
      wrapper = mount(MemoriesButton, {
        props: { cwd: "/work/app" },
        global: { plugins: [fileLinksPinia(false)] },
        attachTo: document.body,
      });
      await wrapper.get("[data-test=memory-open]").trigger("click");
      await flushPromises();
      expect(urls).toEqual(["http://remote.example:8787/base/api/pi/memories?cwd=%2Fwork%2Fapp"]);
      expect(wrapper.get("[data-test=memory-error]").text()).toContain("nope");
      await wrapper.get("[data-test=memory-close]").trigger("click");
      expect(wrapper.find("[data-test=memory-inspector]").exists()).toBe(false);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe("unsaved words", () => {
  it("Escape, the backdrop and Close do not close the inspector over an unsaved memory; Cancel discards, then it closes", async () => {
    const { w } = await open();
    await w.get("[data-test=memory-new]").trigger("click");
    await w.get("[data-test=memory-editor-content]").setValue("Half a thought");
    const dialog = () => document.querySelector("[data-test=memory-inspector]");
    dialog()!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await flushPromises();
    expect(dialog()).not.toBeNull();
    expect(text(w, "memory-close-refused")).toContain("not saved");
    expect(document.activeElement?.getAttribute("data-test")).toBe("memory-editor-content");
    await w.get("[data-test=memory-close]").trigger("click");
    expect(dialog()).not.toBeNull();
    expect((w.get("[data-test=memory-editor-content]").element as HTMLTextAreaElement).value).toBe("Half a thought");

    // An untouched editor does not hold the inspector open.
    await w.get("[data-test=memory-editor-content]").setValue("");
    dialog()!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await flushPromises();
    expect(dialog()).toBeNull();
  });
});
