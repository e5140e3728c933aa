/**
 * Links into the Traces view over a fake trace backend: a user turn in the transcript links to the run whose
 * `metadata.userEntryId` is the turn's entry id (one read per session, again after a notice for it), a research
 * thread links to its researcher's newest run (its child session's traces), and nothing is read or linked when
 * the backend records no traces.
 */
import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineComponent, h } from "vue";
import { createMemoryHistory, createRouter, type Router } from "vue-router";
import type { ResearchThread } from "../../../../domain/research/research-types.ts";
import { checkBackendInfo } from "../../backend-info.ts";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import { TRACE_REFRESH_DELAY_MS, useTracesStore } from "../../stores/traces.store.ts";
import { cleanedAfterEach, fakeBackend } from "../composer/composer.fixture.ts";
import SubagentInspector from "../research/SubagentInspector.vue";
import { assistantEntry, userEntry } from "../transcript/transcript.fixture.ts";
import TranscriptView from "../transcript/TranscriptView.vue";
import { trace, tracesBackend, type TraceServer } from "./traces.fixture.ts";

const mounted = cleanedAfterEach();
const Stub = defineComponent({ render: () => h("div") });

afterEach(() => {
  useTracesStore().$dispose();
  vi.useRealTimers();
});

async function setUp(server: TraceServer, tracing = true): Promise<Router> {
  setActivePinia(createPinia());
  useBackendStore().info = checkBackendInfo({ name: "Leyline", version: "1", apiVersion: 2, capabilities: { tracing } }).info ?? null;
  mounted.backend = fakeBackend(tracesBackend(server));
  const router = createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: "/", component: Stub },
      { path: "/sessions/:id", component: Stub },
      { path: "/traces/:id?", component: Stub },
    ],
  });
  await router.push("/sessions/s1");
  await router.isReady();
  await loadMarkdownRenderer();
  return router;
}

const entries = () => [userEntry("u1", "Fix the build", 0), assistantEntry("a1", "Fixed.", null, 1), userEntry("u2", "Now the docs", 2)];
const linkOf = (w: VueWrapper, entryId: string) => w.find(`[data-test=entry][data-entry-id=${entryId}] [data-test=trace-link]`);

describe("trace links from the transcript", () => {
  it("links each user turn to the run it started, by userEntryId; a notice for the session brings a new run's link", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const server: TraceServer = {
      traces: [
        trace({ id: "run-u1-old", timestamp: "2025-03-12T10:00:00.000Z", metadata: { userEntryId: "u1" } }),
        trace({ id: "run-u1", timestamp: "2025-03-12T10:05:00.000Z", metadata: { userEntryId: "u1" } }),
        trace({ id: "other-session", sessionId: "s2", timestamp: "2025-03-12T10:06:00.000Z", metadata: { userEntryId: "u2" } }),
      ],
      config: { enabled: true },
    };
    const router = await setUp(server);
    const w = mount(TranscriptView, {
      props: { sessionId: "s1", entries: entries() },
      global: { plugins: [router] },
      attachTo: document.body,
    });
    mounted.wrapper = w;
    await flushPromises();
    expect(mounted.backend?.requests.map((r) => r.path)).toEqual(["/api/pi/traces?sessionId=s1&limit=200"]);
    expect(linkOf(w, "u1").attributes("href")).toBe("/traces/run-u1");
    expect(linkOf(w, "u2").exists()).toBe(false);
    expect(linkOf(w, "a1").exists()).toBe(false);

    server.traces.push(trace({ id: "run-u2", timestamp: "2025-03-12T10:10:00.000Z", metadata: { userEntryId: "u2" } }));
    useTracesStore().receive({ kind: "updated", notice: { traceId: "run-u2", sessionId: "s1", revision: 1, activeSessionId: "s1" } });
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS);
    await flushPromises();
    expect(mounted.backend?.requests).toHaveLength(2);
    expect(linkOf(w, "u2").attributes("href")).toBe("/traces/run-u2");

    await linkOf(w, "u2").trigger("click");
    await flushPromises();
    expect(router.currentRoute.value.fullPath).toBe("/traces/run-u2");
  });

  it("reads and links nothing when the backend records no traces", async () => {
    const router = await setUp({ traces: [trace({ id: "run-u1", metadata: { userEntryId: "u1" } })], config: { enabled: true } }, false);
    const w = mount(TranscriptView, {
      props: { sessionId: "s1", entries: entries() },
      global: { plugins: [router] },
      attachTo: document.body,
    });
    mounted.wrapper = w;
    await flushPromises();
    expect(mounted.backend?.requests).toEqual([]);
    expect(w.find("[data-test=trace-link]").exists()).toBe(false);
  });
});

describe("trace links from a research thread", () => {
  function thread(childSession: ResearchThread["childSession"]): ResearchThread {
    return {
      id: "t1",
      title: "Sales data",
      task: "Collect sales figures",
      status: "done",
      summary: "Found them",
      sourceIds: [],
      childSession,
      error: "",
      startedAt: 0,
      completedAt: 0,
    };
  }

  it("links to the researcher's newest run, read from its child session's traces", async () => {
    const server: TraceServer = {
      traces: [
        trace({ id: "research-1", sessionId: "s-child", timestamp: "2025-03-12T10:00:00.000Z" }),
        trace({ id: "research-2", sessionId: "s-child", timestamp: "2025-03-12T10:20:00.000Z" }),
        trace({ id: "lead", sessionId: "s1", timestamp: "2025-03-12T10:30:00.000Z" }),
      ],
      config: { enabled: true },
    };
    const router = await setUp(server);
    const w = mount(SubagentInspector, {
      props: { thread: thread({ id: "s-child", path: "/agent/s-child.jsonl", cwd: "/work/app" }), sources: [], id: "inspector" },
      global: { plugins: [router] },
      attachTo: document.body,
    });
    mounted.wrapper = w;
    await flushPromises();
    expect(mounted.backend?.requests.map((r) => r.path)).toEqual(["/api/pi/traces?sessionId=s-child&limit=200"]);
    const link = w.get("[data-test=trace-link]");
    expect(link.attributes("href")).toBe("/traces/research-2");
    expect(link.text()).toBe("Researcher's run trace");

    await w.setProps({ thread: thread(null) });
    await flushPromises();
    expect(w.find("[data-test=trace-link]").exists()).toBe(false);
  });
});
