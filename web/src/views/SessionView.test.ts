import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryHistory } from "vue-router";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import type { SessionDetail } from "../api/dto.ts";
import { fakeBackend } from "../components/composer/composer.fixture.ts";
import { gatheringResearch, RESEARCH_SESSION_ID, researchEntries } from "../components/research/research.fixture.ts";
import { activeSnapshot } from "../lib/active.fixture.ts";
import { detailSession, snapshotChunks, T } from "../lib/live-messages.fixture.ts";
import { createAppRouter } from "../router.ts";
import { useOpenSessionStore } from "../stores/open-session.store.ts";
import { useRuntimesStore } from "../stores/runtimes.store.ts";
import SessionView from "./SessionView.vue";
import { TINY_USAGE } from "../../../test/support/tiny-usage.ts";

const base = { timestamp: T, rolloutFeedback: "" as const, rolloutFeedbackText: "", blocks: [], messageTimestamp: 0 };
const entries: TranscriptEntry[] = [
  { ...base, id: "u1", type: "message", role: "user", text: "Hello", copyText: "Hello", blocks: [{ type: "text", text: "Hello" }] },
  {
    ...base,
    id: "a1",
    type: "message",
    role: "assistant",
    text: "Hi there",
    copyText: "Hi there",
    blocks: [{ type: "text", text: "Hi there" }],
    provider: "faux",
    model: "faux-1",
    stopReason: "stop",
    usage: TINY_USAGE,
  },
];

function detail(id: string, extra: Partial<SessionDetail["session"]> = {}, list = entries): SessionDetail {
  return { session: detailSession(id, extra), entries: list };
}

function setWidth(width: number): void {
  (window as unknown as { happyDOM: { setViewport(v: { width: number; height: number }): void } }).happyDOM.setViewport({
    width,
    height: 900,
  });
}

/** Mounts the workbench with the open session already loaded (no requests: `open` sees it is ready). */
async function mountView(
  id: string,
  seed: SessionDetail | null,
  status: "ready" | "missing" | "error" = "ready",
  error = "",
  runtimeStatus: "open" | "opening" | "none" = "open",
) {
  const pinia = createPinia();
  setActivePinia(pinia);
  useOpenSessionStore().$patch((state) => {
    Object.assign(state, { id, detail: seed, status, error, runtimeStatus });
  });
  const router = createAppRouter(createMemoryHistory());
  await router.push(`/sessions/${id}`);
  const wrapper = mount(SessionView, { props: { id }, global: { plugins: [pinia, router] }, attachTo: document.body });
  await flushPromises();
  return wrapper;
}

describe("SessionView", () => {
  let backend: ReturnType<typeof fakeBackend> | undefined;
  afterEach(() => {
    document.body.innerHTML = "";
    localStorage.clear();
    backend?.restore();
    backend = undefined;
  });

  it("places the transcript and the composer, titled by the session, with the run state shown and announced", async () => {
    setWidth(1280);
    const wrapper = await mountView("s1", detail("s1", { name: "My session" }));
    expect(wrapper.get("h1.title").text()).toBe("My session");
    expect(document.title).toBe("My session · Leyline");
    expect(wrapper.find("[data-test=transcript]").exists()).toBe(true);
    expect(wrapper.findAll("[data-test=entry]").length).toBeGreaterThanOrEqual(2);
    expect(wrapper.find("[data-test=composer-input]").exists()).toBe(true);
    expect(wrapper.find("[data-test=research-panel]").exists()).toBe(false);
    // No runtime snapshot yet; the branch ends with an answer.
    expect(wrapper.get("[data-test=workbench]").attributes("data-run-state")).toBe("finished");

    const runtimes = useRuntimesStore();
    runtimes.applySnapshot(activeSnapshot("s1", 1, { isStreaming: true }));
    await flushPromises();
    expect(wrapper.get("[data-test=workbench]").attributes("data-run-state")).toBe("working");
    expect(wrapper.get(".session-head [role=status]").text()).toBe("Working");
    runtimes.applySnapshot(activeSnapshot("s1", 2, { isStreaming: true, pendingConfirmationCount: 1 }));
    await flushPromises();
    expect(wrapper.get("[data-test=workbench]").attributes("data-run-state")).toBe("waiting");
    expect(wrapper.get(".session-head [role=status]").text()).toBe("Waiting for you");
    expect(wrapper.get(".state-bar").attributes("data-state")).toBe("waiting");
  });

  it("shows a recorded session from its file alone; the first prompt starts pi and what is sent meanwhile waits in order", async () => {
    setWidth(1280);
    let release = () => {};
    const started = new Promise<void>((resolve) => (release = resolve));
    backend = fakeBackend(async (request) => {
      if (request.path === "/api/pi/active-session") {
        await started;
        return { body: { active: activeSnapshot("s1", 1) } };
      }
      if (request.path.endsWith("/prompt"))
        return { body: { ok: true, queued: false, active: activeSnapshot("s1", 2, { isStreaming: true }) } };
      return undefined;
    });
    const facts = { model: { provider: "faux", id: "faux-1" }, thinkingLevel: "medium", fileVersion: 3 };
    const wrapper = await mountView("s1", detail("s1", { name: "Recorded", ...facts }), "ready", "", "none");
    // Nothing was asked of the server: no runtime, no selection.
    expect(backend.requests).toEqual([]);
    expect(wrapper.findAll("[data-test=entry]").map((e) => e.attributes("data-entry-id"))).toEqual(["u1", "a1"]);
    expect(wrapper.get(".session-head [role=status]").text()).toBe("Finished");
    expect(wrapper.find("[data-test=runtime-stopped]").exists()).toBe(false);
    expect((wrapper.get("[data-test=model-picker]").element as HTMLSelectElement).value).toBe("faux/faux-1");

    const input = wrapper.get("[data-test=composer-input]");
    await input.setValue("Next question");
    await input.trigger("keydown", { key: "Enter" });
    await flushPromises();
    expect(wrapper.get("[data-test=run-state]").text()).toBe("Starting pi…");
    expect(wrapper.get(".session-head").text()).not.toContain("Starting");
    await input.setValue("And another");
    await input.trigger("keydown", { key: "Enter" });
    await flushPromises();
    expect(wrapper.findAll("[data-test=held-prompt]").map((li) => li.text())).toEqual([
      "waiting for pi Next question",
      "waiting for pi And another",
    ]);
    expect(backend.requests.map((r) => r.path)).toEqual(["/api/pi/active-session"]);

    release();
    await vi.waitFor(() =>
      expect(backend?.requests.map((r) => r.path)).toEqual([
        "/api/pi/active-session",
        "/api/pi/sessions/s1/prompt",
        "/api/pi/sessions/s1/prompt",
      ]),
    );
    expect(backend.requests.slice(1).map((r) => r.body)).toEqual([{ text: "Next question" }, { text: "And another" }]);
    await flushPromises();
    expect(wrapper.findAll("[data-test=held-prompt]")).toHaveLength(0);
    expect(wrapper.get("[data-test=run-state]").attributes("data-state")).toBe("working");
  });

  it("opens a session whose folder is gone read-only: one message where the composer was, no runtime actions", async () => {
    setWidth(1280);
    backend = fakeBackend();
    const message = "The folder /w/gone no longer exists: this session can be read but not continued.";
    const wrapper = await mountView(
      "s1",
      detail("s1", { cwd: "/w/gone", readOnly: { reason: "cwd-missing", message } }),
      "ready",
      "",
      "none",
    );
    expect(wrapper.get("[data-test=read-only]").text()).toBe(message);
    expect(wrapper.findAll("[role=alert]")).toHaveLength(0);
    expect(wrapper.find("[data-test=composer]").exists()).toBe(false);
    expect(wrapper.find("[data-test=runtime-stopped]").exists()).toBe(false);
    expect(wrapper.findAll("[data-test=entry]")).toHaveLength(2);
    // Fork, reset and edit would start pi in the missing folder: not offered (copy is).
    expect(wrapper.get("[data-test=workbench]").classes()).toContain("read-only-session");
    expect(backend.requests).toEqual([]);
  });

  it("announces a file upgrade once, with the place of the original, and shows a model fallback in the transcript and beside the model", async () => {
    setWidth(1280);
    const wrapper = await mountView("s1", detail("s1"));
    const runtimes = useRuntimesStore();
    const upgraded = {
      kind: "file-upgraded" as const,
      message: "This session's file was upgraded from version 1 to version 3.",
      fromVersion: 1,
      backupPath: "/agent/leyline-trash/s1.v1.jsonl",
    };
    const fallback = {
      kind: "model-fallback" as const,
      message: "Model openai/gone is not available: pi uses faux/faux-1.",
      requested: { provider: "openai", id: "gone" },
      used: { provider: "faux", id: "faux-1" },
    };
    runtimes.applySnapshot(activeSnapshot("s1", 1, { notices: [upgraded, fallback] }));
    await flushPromises();
    const banner = wrapper.get("[data-test=file-upgraded]");
    expect(banner.text()).toContain("upgraded from version 1 to version 3");
    expect(banner.text()).toContain("/agent/leyline-trash/s1.v1.jsonl");
    expect(wrapper.get("[data-test=model-fallback]").text()).toBe("faux-1 instead of gone (not available here)");
    const rows = wrapper.findAll("[data-test=entry]");
    expect(rows.map((e) => e.attributes("data-entry-type"))).toEqual(["message", "message", "system"]);
    expect(rows[2]?.text()).toContain("Model openai/gone is not available: pi uses faux/faux-1.");

    await wrapper.get("[data-test=file-upgraded-dismiss]").trigger("click");
    runtimes.applySnapshot(activeSnapshot("s1", 2, { notices: [upgraded, fallback] }));
    await flushPromises();
    expect(wrapper.find("[data-test=file-upgraded]").exists()).toBe(false);
    expect(wrapper.findAll("[data-test=entry]")).toHaveLength(3);
  });

  it("shows the research panel beside the transcript for a research session, as a tab on narrower screens", async () => {
    const research = gatheringResearch();
    setWidth(1440);
    const wide = await mountView(RESEARCH_SESSION_ID, detail(RESEARCH_SESSION_ID, { research }, researchEntries(false)));
    expect(wide.get("[data-test=research-panel]").attributes("data-session-id")).toBe(RESEARCH_SESSION_ID);
    expect(wide.get("[data-test=phase-bar]").attributes("data-phase")).toBe("gather");
    expect(wide.get("[data-test=transcript]").isVisible()).toBe(true);
    expect(wide.find(".session-head [role=tablist]").exists()).toBe(false);
    wide.unmount();

    setWidth(1024);
    const narrow = await mountView(RESEARCH_SESSION_ID, detail(RESEARCH_SESSION_ID, { research }, researchEntries(false)));
    expect(narrow.find("[data-test=research-panel]").exists()).toBe(false);
    const tabs = narrow.findAll(".session-head [role=tab]");
    expect(tabs.map((t) => [t.text(), t.attributes("aria-selected")])).toEqual([
      ["Transcript", "true"],
      ["Research", "false"],
    ]);
    await tabs[1]?.trigger("click");
    expect(narrow.find("[data-test=research-panel]").exists()).toBe(true);
    expect(narrow.get("#workbench-transcript").isVisible()).toBe(false);
  });

  it("shows the server's progress reading a large session, then the transcript its snapshot brings, with no HTTP read", async () => {
    setWidth(1280);
    backend = fakeBackend();
    const wrapper = await mountView("big", null, "ready");
    const openSession = useOpenSessionStore();
    // The view asks for the session: status loading until the socket answers.
    openSession.close();
    void openSession.open("big");
    await flushPromises();
    expect(wrapper.get("[data-test=session-loading]").text()).toBe("Opening the session…");
    openSession.receiveLoading({ sessionId: "big", loadedBytes: 3_300_000, totalBytes: 10_000_000 });
    await flushPromises();
    expect(wrapper.get("[data-test=session-loading]").text()).toContain("Loading session… 33%");
    const bar = wrapper.get("[data-test=session-progress]");
    expect(bar.attributes("max")).toBe("100");
    expect((bar.element as HTMLProgressElement).value).toBe(33);
    openSession.receiveLoading({ sessionId: "big", loadedBytes: 10_000_000, totalBytes: 10_000_000 });
    await flushPromises();
    expect(wrapper.get("[data-test=session-loading]").text()).toContain("100%");
    for (const chunk of snapshotChunks(detail("big").session, entries, 1, 1)) openSession.receiveSnapshot(chunk);
    await flushPromises();
    expect(wrapper.find("[data-test=session-loading]").exists()).toBe(false);
    expect(wrapper.findAll("[data-test=entry]").map((e) => e.attributes("data-entry-id"))).toEqual(["u1", "a1"]);
    expect(backend.requests).toEqual([]);
  });

  it("keeps the transcript shown, marked as updating, while a fresh stream's snapshot is on its way", async () => {
    setWidth(1280);
    const wrapper = await mountView("s1", null, "ready");
    const openSession = useOpenSessionStore();
    openSession.close();
    void openSession.open("s1");
    for (const chunk of snapshotChunks(detail("s1").session, entries)) openSession.receiveSnapshot(chunk);
    await flushPromises();
    expect(wrapper.find("[data-test=session-stale]").exists()).toBe(false);
    openSession.markStale();
    await flushPromises();
    expect(wrapper.get("[data-test=session-stale]").text()).toBe("Updating…");
    expect(wrapper.get("[data-test=workbench]").attributes("data-stale")).toBe("true");
    expect(wrapper.findAll("[data-test=entry]")).toHaveLength(2);
    for (const chunk of snapshotChunks(detail("s1").session, entries.slice(0, 1), 1)) openSession.receiveSnapshot(chunk);
    await flushPromises();
    expect(wrapper.find("[data-test=session-stale]").exists()).toBe(false);
    expect(wrapper.findAll("[data-test=entry]")).toHaveLength(1);
  });

  it("says in words when a session does not exist or cannot be loaded", async () => {
    const wrapper = await mountView("gone", detail("gone"));
    const openSession = useOpenSessionStore();
    openSession.$patch({ detail: null, status: "missing", error: "Session not found" });
    await flushPromises();
    expect(wrapper.get("[data-test=session-missing]").text()).toContain("Session not found");
    expect(wrapper.get("[data-test=session-missing]").text()).toContain("gone");
    openSession.$patch({ status: "error", error: "The backend cannot be reached (fetch failed)." });
    await flushPromises();
    expect(wrapper.get("[data-test=session-error]").text()).toContain("The backend cannot be reached");
    expect(wrapper.get("[data-test=session-error] button").text()).toBe("Try again");
    // A read error while the transcript is shown keeps it and says it may be out of date.
    openSession.$patch((state) => {
      Object.assign(state, { detail: detail("gone"), status: "ready", error: "Internal server error" });
    });
    await flushPromises();
    expect(wrapper.get("[data-test=session-error]").text()).toContain("may be out of date: Internal server error");
    expect(wrapper.find("[data-test=transcript]").exists()).toBe(true);
    // Reload asks the socket for the snapshot again.
    const serial = openSession.focusRequest.serial;
    await wrapper.get("[data-test=session-error] button").trigger("click");
    expect(openSession.focusRequest).toMatchObject({ sessionId: "gone", snapshot: true, serial: serial + 1 });
  });
});
