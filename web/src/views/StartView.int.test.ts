// The start screen and the sidebar against the real server (a child process; the backend cannot run inside
// happy-dom): browse to a project folder, see its recent sessions, load the model preview, start a session
// with a chosen thinking level and land on its URL; rename and delete from the sidebar.
import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia, type Pinia } from "pinia";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { createMemoryHistory, type Router } from "vue-router";
import { CAPABILITY_NAMES } from "../backend-info.ts";
import { http, setApiBase } from "../api/http.ts";
import type { Active } from "../../../domain/runtime/runtime-types.ts";
import DialogHost from "../components/app/DialogHost.vue";
import SessionSidebar from "../components/sidebar/SessionSidebar.vue";
import { createAppRouter } from "../router.ts";
import type { SocketLike } from "../api/events-socket.ts";
import { useBackendStore } from "../stores/backend.store.ts";
import { useConnectionStore } from "../stores/connection.store.ts";
import { useRuntimesStore } from "../stores/runtimes.store.ts";
import { useSessionsStore } from "../stores/sessions.store.ts";
import { startServerProcess, type ServerProcess } from "./server-process.fixture.ts";
import StartView from "./StartView.vue";

let server: ServerProcess;
const now = new Date().toISOString();

beforeAll(async () => {
  server = await startServerProcess({
    folders: ["alpha", "beta", ".secret"],
    sessions: [],
    faux: [{ text: "ok" }],
  });
  // Sessions of ~/alpha (the folder exists only once the server made HOME).
  const cwd = `${server.home}/alpha`;
  const { sessionFileText } = await import("./server-process.fixture.ts");
  const fs = await import("node:fs");
  fs.writeFileSync(
    `${server.sessionsDir}/s-alpha-1.jsonl`,
    sessionFileText({ id: "a1a1a1a1-0000-4000-8000-000000000001", cwd, time: now, userText: "Refactor the alpha parser", answer: "Done." }),
  );
  fs.writeFileSync(
    `${server.sessionsDir}/s-beta-1.jsonl`,
    sessionFileText({
      id: "b1b1b1b1-0000-4000-8000-000000000002",
      cwd: `${server.home}/beta`,
      time: now,
      userText: "Beta question",
      answer: "Yes.",
    }),
  );
  setApiBase(server.url);
}, 120_000);

afterAll(async () => {
  setApiBase("");
  await server?.stop();
});

const waitFor = <T>(check: () => T, timeout = 60_000) => vi.waitFor(check, { timeout, interval: 25 });
const connections: Array<() => void> = [];
afterEach(() => {
  for (const stop of connections.splice(0)) stop();
});
const capabilities = (research: boolean) =>
  Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, name === "research" ? research : name === "events"])) as Record<
    (typeof CAPABILITY_NAMES)[number],
    boolean
  >;

async function setUp(research: boolean): Promise<{ pinia: Pinia; router: Router }> {
  localStorage.clear();
  const pinia = createPinia();
  setActivePinia(pinia);
  useBackendStore().$patch({
    status: "ready",
    info: { name: "Leyline", version: "0", apiVersion: 2, capabilities: capabilities(research) },
  });
  // The session list arrives on the events socket.
  const connection = useConnectionStore();
  connections.push(() => connection.stop());
  connection.start({ wsBase: server.url.replace(/^http/, "ws"), createSocket: (url) => new WebSocket(url) as unknown as SocketLike });
  await waitFor(() => expect(useSessionsStore().status).toBe("ready"));
  const router = createAppRouter(createMemoryHistory());
  await router.push("/");
  return { pinia, router };
}

function mountStart(pinia: Pinia, router: Router): VueWrapper {
  return mount(StartView, { global: { plugins: [pinia, router] }, attachTo: document.body });
}

describe("StartView with the real server", { timeout: 120_000 }, () => {
  it("browses to a project, lists its recent sessions, previews models and starts a session at its URL", async () => {
    const { pinia, router } = await setUp(false);
    const wrapper = mountStart(pinia, router);
    expect(wrapper.get("[data-test=start-screen]").element.tagName).toBe("DIV");

    // Home listing: visible folders only, hidden ones on request.
    await waitFor(() => expect(wrapper.findAll(".dir").map((d) => d.text())).toEqual(["alpha", "beta"]));
    await wrapper.get(".hidden-toggle input").setValue(true);
    expect(wrapper.findAll(".dir").map((d) => d.text())).toContain(".secret");
    expect(wrapper.get("[data-test=start-session]").attributes("disabled")).toBeDefined();
    // No research control without capabilities.research.
    expect(wrapper.find("[data-test=start-research]").exists()).toBe(false);

    await wrapper
      .findAll(".dir")
      .find((d) => d.text().includes("alpha"))
      ?.trigger("click");
    await waitFor(() => expect(wrapper.get(".current").text()).toBe(`${server.home}/alpha`));
    await wrapper
      .findAll("button")
      .find((b) => b.text() === "Choose this folder")
      ?.trigger("click");
    const sessions = useSessionsStore();
    expect(sessions.project).toBe(`${server.home}/alpha`);
    // Kept per backend: this window talks to the test server through its URL (setApiBase), not the page's origin.
    expect(localStorage.getItem(`leyline.project@${server.url}`)).toBe(`${server.home}/alpha`);
    expect(localStorage.getItem("leyline.project")).toBeNull();

    // Recent sessions of this project only.
    const recent = wrapper.get("[data-test=recent-sessions]");
    expect(recent.text()).toContain("Refactor the alpha parser");
    expect(recent.text()).not.toContain("Beta question");

    // The preview (a throwaway runtime) fills the model and thinking pickers.
    await waitFor(() =>
      expect(wrapper.findAll("[data-test=start-model] option").map((o) => o.attributes("value"))).toContain("faux/faux-1"),
    );
    const thinking = wrapper.get("[data-test=start-thinking]");
    const levels = thinking.findAll("option").map((o) => o.attributes("value") ?? "");
    expect(levels.length).toBeGreaterThan(0);
    const level = levels.includes("high") ? "high" : (levels.at(-1) ?? "");
    await thinking.setValue(level);

    await wrapper.get("[data-test=start-session]").trigger("click");
    await waitFor(() => expect(router.currentRoute.value.path).toMatch(/^\/sessions\/[0-9a-f-]+$/));
    const id = decodeURIComponent(router.currentRoute.value.path.slice("/sessions/".length));
    expect(sessions.byId(id)?.cwd).toBe(`${server.home}/alpha`);
    const active = useRuntimesStore().activeOf(id);
    expect(active?.cwd).toBe(`${server.home}/alpha`);
    if (level !== active?.state.thinkingLevel) {
      // The chosen level was applied (or the model clamps it); the backend agrees with the store.
      const state = await http.post<{ active: Active }>("/api/pi/active-session", { id });
      expect(state.active.state.thinkingLevel).toBe(active?.state.thinkingLevel);
    } else {
      expect(active.state.thinkingLevel).toBe(level);
    }
    wrapper.unmount();
  });

  it("types a path that does not exist yet: it becomes the project (starting creates it); research shows when available", async () => {
    const { pinia, router } = await setUp(true);
    const wrapper = mountStart(pinia, router);
    const input = wrapper.get("[data-test=project-path]");
    expect(wrapper.get("label[for=project-path]").text()).toBe("Project folder path");
    await input.setValue(`${server.home}/new-project`);
    await wrapper.get(".path-row").trigger("submit");
    await waitFor(() => expect(useSessionsStore().project).toBe(`${server.home}/new-project`));
    await waitFor(() => expect(wrapper.get("[role=alert]").text()).toContain("creates the folder"));
    expect(wrapper.get("[data-test=start-research]").attributes("disabled")).toBeUndefined();
    expect(wrapper.get("[data-test=recent-sessions]").text()).toContain("No sessions in this folder yet.");
    wrapper.unmount();
  });
});

describe("SessionSidebar with the real server", { timeout: 120_000 }, () => {
  it("renames a session inline and deletes it after confirmation", async () => {
    const { pinia, router } = await setUp(false);
    useSessionsStore().setProject(`${server.home}/beta`);
    const wrapper = mount(
      { components: { SessionSidebar, DialogHost }, template: "<div><SessionSidebar /><DialogHost /></div>" },
      { global: { plugins: [pinia, router] }, attachTo: document.body },
    );
    await flushPromises();
    const item = () => wrapper.get("[data-session-id='b1b1b1b1-0000-4000-8000-000000000002']");
    expect(item().text()).toContain("Beta question");

    await item().get("[data-test=session-rename]").trigger("click");
    await flushPromises();
    const input = wrapper.get("[data-test=session-rename-input]");
    await input.setValue("Beta, renamed");
    await input.element.closest("form")?.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    await waitFor(() => expect(item().text()).toContain("Beta, renamed"));
    expect(useSessionsStore().byId("b1b1b1b1-0000-4000-8000-000000000002")?.name).toBe("Beta, renamed");

    await waitFor(() => expect(wrapper.find("[data-test=session-rename-input]").exists()).toBe(false));
    const filesBefore = useSessionsStore().indexStatus?.filesOnDisk ?? 0;
    await item().get("[data-test=session-delete]").trigger("click");
    await flushPromises();
    await wrapper.get("[data-test=confirm-ok]").trigger("click");
    await waitFor(() => expect(wrapper.find("[data-session-id='b1b1b1b1-0000-4000-8000-000000000002']").exists()).toBe(false));
    // The server's removal arrives as a delta: the file count drops and the session stays gone.
    await waitFor(() => expect(useSessionsStore().indexStatus?.filesOnDisk).toBe(filesBefore - 1));
    expect(useSessionsStore().byId("b1b1b1b1-0000-4000-8000-000000000002")).toBeUndefined();
    expect(wrapper.get("[data-test=index-status]").text()).toMatch(/^\d+ session files? on disk · \d+ listed/);
    wrapper.unmount();
  });
});
