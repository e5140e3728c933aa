/**
 * The Traces view in happy-dom, routed (`/traces`, `/traces/:id`, `?sessionId=`), over a fake trace backend
 * (traces.fixture.ts, answering as the spec says): the list (rows, search, status, paging, the session chip,
 * empty and error states), the capture switch and its error, a run's detail (header, clipped fields, the
 * timeline with tools nested under their model call and a subagent's run under its tool call, read when
 * expanded), the bookmark, "Load more", and a notice that makes the view read again.
 */
import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineComponent, h } from "vue";
import { createMemoryHistory, createRouter, RouterView, type Router } from "vue-router";
import { checkBackendInfo } from "../../backend-info.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import { TRACE_REFRESH_DELAY_MS, useTracesStore } from "../../stores/traces.store.ts";
import TracesView from "../../views/TracesView.vue";
import { cleanedAfterEach, fakeBackend, type RecordedRequest } from "../composer/composer.fixture.ts";
import { child, observation, Q_TOO_LONG, trace, tracesBackend, usage, type TraceServer } from "./traces.fixture.ts";

const mounted = cleanedAfterEach();
const Stub = defineComponent({ render: () => h("div") });
let router: Router | null = null;

afterEach(() => {
  useTracesStore().$dispose();
  router = null;
  vi.useRealTimers();
});

async function openAt(path: string, server: TraceServer, tracing = true): Promise<VueWrapper> {
  setActivePinia(createPinia());
  const backend = useBackendStore();
  backend.info = checkBackendInfo({ name: "Leyline", version: "1", apiVersion: 2, capabilities: { tracing } }).info ?? null;
  backend.status = "ready";
  mounted.backend = fakeBackend(tracesBackend(server));
  router = createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: "/", component: Stub },
      { path: "/sessions/:id", component: Stub },
      { path: "/traces/:id?", component: TracesView, props: true },
    ],
  });
  await router.push(path);
  await router.isReady();
  mounted.wrapper = mount(RouterView, { global: { plugins: [router] }, attachTo: document.body });
  await flushPromises();
  return mounted.wrapper;
}

const requests = (): RecordedRequest[] => mounted.backend?.requests ?? [];
const listed = (w: VueWrapper) => w.findAll("[data-test=trace-row]").map((row) => row.attributes("data-trace-id"));
const at = (minute: number) => new Date(Date.UTC(2025, 2, 12, 10, minute)).toISOString();

function listServer(): TraceServer {
  const traces = Array.from({ length: 60 }, (_, i) =>
    trace({
      id: `t${String(i).padStart(2, "0")}`,
      name: `Run number ${i}`,
      timestamp: at(i),
      latency: 12.5,
      inputTokens: 1200,
      outputTokens: 340,
      cost: 0.0123,
      model: "faux/faux-1",
    }),
  );
  traces.push(
    trace({
      id: "kid",
      name: "researcher: gather sales data",
      timestamp: at(61),
      sessionId: "s-child",
      metadata: { parent: { traceId: "t59", sessionId: "s1", toolCallId: "call-1" } },
    }),
  );
  return { traces, config: { enabled: true } };
}

/** A run with two model calls, a tool call under the first that started a subagent, and an event. */
function timelineServer(): TraceServer {
  const parent = trace({
    id: "parent",
    name: "Research heat pumps",
    latency: 10,
    inputTokens: 2000,
    outputTokens: 500,
    cost: 0.02,
    model: "faux/faux-1",
    input: "How did heat pump sales change?",
    output: "They fell in 2023.",
    readTruncation: { fields: ["output"], fieldBytes: { output: 40_960 } },
    observations: [
      observation({
        id: "gen2",
        name: "chat",
        type: "GENERATION",
        startTime: 8,
        duration: 1.5,
        model: "faux/faux-1",
        inputTokens: 800,
        outputTokens: 200,
      }),
      observation({
        id: "tool1",
        parentId: "gen1",
        name: "subagent",
        type: "TOOL",
        startTime: 2,
        duration: 6,
        input: '{"agent":"researcher","task":"gather sales data"}',
        output: "done",
        metadata: { toolCallId: "call-1" },
      }),
      observation({
        id: "gen1",
        name: "chat",
        type: "GENERATION",
        startTime: 0,
        duration: 2,
        model: "faux/faux-1",
        inputTokens: 1200,
        outputTokens: 300,
        cost: 0.0123,
      }),
      observation({ id: "retry1", name: "retry", type: "EVENT", startTime: 1, duration: 0, level: "WARNING" }),
    ],
    pagination: {
      observations: { total: 4, offset: 0, limit: 200, nextOffset: null, truncated: false },
      scores: { total: 0, offset: 0, limit: 200, nextOffset: null, truncated: false },
    },
    metadata: {
      usage: {
        own: usage({ inputTokens: 2000, outputTokens: 500, totalTokens: 2500, cost: 0.02 }),
        descendants: usage({ inputTokens: 500, outputTokens: 100, totalTokens: 600, cost: 0.01 }),
        total: usage({ inputTokens: 2500, outputTokens: 600, totalTokens: 3100, cost: 0.03 }),
      },
      children: [
        child({
          traceId: "kid",
          toolCallId: "call-1",
          name: "researcher",
          usage: usage({ inputTokens: 500, outputTokens: 100, totalTokens: 600, cost: 0.01 }),
        }),
      ],
    },
  });
  const kid = trace({
    id: "kid",
    name: "researcher",
    sessionId: "s-child",
    latency: 6,
    timestamp: at(1),
    observations: [
      observation({ id: "kgen", name: "chat", type: "GENERATION", startTime: 0, duration: 3 }),
      observation({
        id: "ktool",
        parentId: "kgen",
        name: "web_search",
        type: "TOOL",
        startTime: 3,
        duration: 2,
        metadata: { toolCallId: "k-call" },
      }),
    ],
    metadata: { parent: { traceId: "parent", sessionId: "s1", toolCallId: "call-1" } },
  });
  return { traces: [parent, kid], config: { enabled: true } };
}

describe("Traces view: the list", () => {
  it("lists runs newest first with their facts and parent, searches with q, filters by status and pages", async () => {
    const w = await openAt("/traces", listServer());
    expect(requests().map((r) => r.path)).toEqual(["/api/pi/traces/config", "/api/pi/traces?page=1&limit=50"]);
    expect(listed(w)).toHaveLength(50);
    expect(listed(w)[0]).toBe("kid");
    const row = w.get("[data-test=trace-row][data-trace-id=t59]");
    expect(row.text()).toContain("Run number 59");
    expect(row.text()).toContain("Completed");
    expect(row.text()).toContain("12.5 s");
    expect(row.text()).toContain("1.2k in · 340 out");
    expect(row.text()).toContain("$0.01");
    expect(row.text()).toContain("faux/faux-1");
    expect(w.get("[data-trace-id=kid] [data-test=trace-row-parent]").text()).toBe("subagent of Run number 59");
    expect(w.get("[data-test=trace-page]").text()).toBe("1–50 of 61");

    await w.get("[data-test=trace-next]").trigger("click");
    await flushPromises();
    expect(requests().at(-1)?.path).toBe("/api/pi/traces?page=2&limit=50");
    expect(listed(w)).toEqual(["t10", "t09", "t08", "t07", "t06", "t05", "t04", "t03", "t02", "t01", "t00"]);
    expect(w.get("[data-test=trace-page]").text()).toBe("51–61 of 61");
    expect(w.get("[data-test=trace-next]").attributes("disabled")).toBeDefined();

    await w.get("[data-test=trace-search]").setValue("run NUMBER 4");
    await w.get("form[role=search]").trigger("submit");
    await flushPromises();
    expect(requests().at(-1)?.path).toBe("/api/pi/traces?q=run+NUMBER+4&page=1&limit=50");
    expect(listed(w)).toEqual(["t54", "t49", "t48", "t47", "t46", "t45", "t44", "t43", "t42", "t41", "t40", "t34", "t24", "t14", "t04"]);
    expect(w.get("[data-test=trace-page]").text()).toBe("1–15 of 15");

    await w.get("[data-test=trace-status]").setValue("error");
    await flushPromises();
    expect(requests().at(-1)?.path).toBe("/api/pi/traces?q=run+NUMBER+4&status=error&page=1&limit=50");
    expect(w.get("[data-test=trace-list-empty]").text()).toBe("No trace matches these filters.");
  });

  it("shows the server's refusal of a search over 32 terms, and says when there are no traces yet", async () => {
    const w = await openAt("/traces", listServer());
    await w.get("[data-test=trace-search]").setValue(Array.from({ length: 33 }, (_, i) => `t${i}`).join(" "));
    await w.get("form[role=search]").trigger("submit");
    await flushPromises();
    expect(w.get("[data-test=trace-list-error]").text()).toContain(Q_TOO_LONG);
    expect(listed(w)).toEqual([]);

    const empty = await openAt("/traces", { traces: [], config: { enabled: true } });
    expect(empty.get("[data-test=trace-list-empty]").text()).toBe("No traces yet: runs are captured as they happen.");
  });

  it("filters to the session it was opened from, and the chip removes the filter", async () => {
    const server = listServer();
    const w = await openAt("/traces?sessionId=s-child", server);
    expect(requests().at(-1)?.path).toBe("/api/pi/traces?sessionId=s-child&page=1&limit=50");
    expect(listed(w)).toEqual(["kid"]);
    expect(w.get("[data-test=trace-session-filter]").text()).toContain("Session:");
    await w.get("[data-test=trace-session-filter] button").trigger("click");
    await flushPromises();
    expect(router?.currentRoute.value.fullPath).toBe("/traces");
    expect(requests().at(-1)?.path).toBe("/api/pi/traces?page=1&limit=50");
    expect(listed(w)).toHaveLength(50);
  });

  it("shows the capture setting's error even while capture is on, and switches capture off", async () => {
    const server = listServer();
    server.config = { enabled: true, error: "Could not read or save trace settings. Check the backend log." };
    const w = await openAt("/traces", server);
    const capture = w.get<HTMLInputElement>("[data-test=trace-capture]");
    expect(capture.element.checked).toBe(true);
    expect(w.get("[data-test=trace-capture-error]").text()).toContain("Could not read or save trace settings. Check the backend log.");
    await capture.setValue(false);
    await flushPromises();
    expect(requests().filter((r) => r.method === "PUT")).toEqual([
      { method: "PUT", path: "/api/pi/traces/config", body: { enabled: false } },
    ]);
    expect(w.get<HTMLInputElement>("[data-test=trace-capture]").element.checked).toBe(false);
  });

  it("reads nothing when the backend records no traces", async () => {
    const w = await openAt("/traces", listServer(), false);
    expect(w.get("[data-test=traces-unavailable]").text()).toContain("does not record traces");
    expect(requests()).toEqual([]);
  });
});

describe("Traces view: a run", () => {
  it("opens a row's run: header, totals with subagents, clipped output, and a nested timeline", async () => {
    const w = await openAt("/traces", timelineServer());
    await w.get("[data-test=trace-row][data-trace-id=parent] button.open").trigger("click");
    await flushPromises();
    expect(router?.currentRoute.value.path).toBe("/traces/parent");
    const detail = w.get("[data-test=trace-detail]");
    expect(detail.attributes("data-trace-id")).toBe("parent");
    expect(detail.get("h2").text()).toBe("Research heat pumps");
    expect(detail.get("[data-test=trace-model]").text()).toBe("faux/faux-1");
    expect(detail.get("[data-test=trace-tokens]").text()).toBe("2.0k in · 500 out");
    expect(detail.get("[data-test=trace-cost]").text()).toBe("$0.02");
    expect(detail.get("[data-test=trace-total]").text()).toBe("2.5k in · 600 out · $0.03");
    expect(detail.get("[data-test=trace-input] pre").text()).toBe("How did heat pump sales change?");
    expect(detail.get("[data-test=trace-output] [data-test=trace-clipped]").text()).toBe("clipped (40 KB)");

    // Roots by start time; the tool under the model call that asked for it; the subagent's run under the tool.
    const roots = detail.findAll("[data-test=trace-observation][data-depth='0']").map((o) => o.attributes("data-observation-id"));
    expect(roots).toEqual(["gen1", "retry1", "gen2"]);
    const tool = detail.get("[data-observation-id=gen1] [data-test=trace-observation][data-observation-id=tool1]");
    expect(tool.attributes("data-depth")).toBe("1");
    const run = tool.get("[data-test=trace-child-run][data-trace-id=kid]");
    expect(run.get("[data-test=trace-child-totals]").text()).toBe("500 in · 100 out · $0.01");
    expect(requests().some((r) => r.path.startsWith("/api/pi/traces/kid"))).toBe(false);

    await run.get("[data-test=trace-child-toggle]").trigger("click");
    await flushPromises();
    expect(
      requests()
        .filter((r) => r.path.startsWith("/api/pi/traces/kid"))
        .map((r) => r.path),
    ).toEqual(["/api/pi/traces/kid"]);
    expect(detail.get("[data-trace-id=kid] [data-observation-id=kgen]").attributes("data-depth")).toBe("2");
    const nested = detail.get("[data-trace-id=kid] [data-observation-id=kgen] [data-test=trace-observation][data-observation-id=ktool]");
    expect(nested.attributes("data-depth")).toBe("3");

    // A row opens what it recorded.
    await tool.get("button.row").trigger("click");
    const recorded = tool.get("[data-test=trace-observation-detail]");
    expect(recorded.get("[data-test=trace-observation-input] pre").text()).toBe(
      JSON.stringify({ agent: "researcher", task: "gather sales data" }, null, 2),
    );
    expect(recorded.get("[data-test=trace-observation-output] pre").text()).toBe("done");
    expect(recorded.text()).toContain("toolCallId");
    expect(tool.get("button.row").attributes("aria-expanded")).toBe("true");
  });

  it("bookmarks the open run with PATCH; the row's star follows", async () => {
    const w = await openAt("/traces/parent", timelineServer());
    const button = w.get("[data-test=trace-bookmark]");
    expect(button.attributes("aria-pressed")).toBe("false");
    await button.trigger("click");
    await flushPromises();
    expect(requests().filter((r) => r.method === "PATCH")).toEqual([
      { method: "PATCH", path: "/api/pi/traces/parent", body: { bookmarked: true } },
    ]);
    expect(w.get("[data-test=trace-bookmark]").attributes("aria-pressed")).toBe("true");
    expect(w.get("[data-trace-id=parent] [data-test=trace-row-bookmark]").attributes("aria-pressed")).toBe("true");
  });

  it("loads further observation pages with Load more", async () => {
    const observations = Array.from({ length: 230 }, (_, i) => observation({ id: `o${i}`, startTime: i, name: `step ${i}` }));
    const w = await openAt("/traces/big", { traces: [trace({ id: "big", observations, latency: 300 })], config: { enabled: true } });
    expect(w.findAll("[data-test=trace-observation]")).toHaveLength(200);
    await w.get("[data-test=trace-load-more]").trigger("click");
    await flushPromises();
    expect(w.findAll("[data-test=trace-observation]")).toHaveLength(230);
    expect(w.find("[data-test=trace-load-more]").exists()).toBe(false);
  });

  it("reads the run and the list again after a notice about it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const server = timelineServer();
    server.traces[0] = { ...server.traces[0]!, status: "running" };
    const w = await openAt("/traces/parent", server);
    expect(w.get("[data-test=trace-detail]").attributes("data-status")).toBe("running");
    server.traces[0] = { ...server.traces[0]!, status: "completed", revision: 5 };
    useTracesStore().receive({ kind: "updated", notice: { traceId: "parent", sessionId: "s1", revision: 5, activeSessionId: "s1" } });
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS);
    await flushPromises();
    expect(w.get("[data-test=trace-detail]").attributes("data-status")).toBe("completed");
    expect(w.get("[data-test=trace-row][data-trace-id=parent]").attributes("data-status")).toBe("completed");
  });

  it("says so when a run is not found", async () => {
    const w = await openAt("/traces/missing", timelineServer());
    expect(w.get("[data-test=trace-detail-error]").text()).toContain("Trace not found");
  });
});
