/**
 * The Traces view in happy-dom, routed (`/traces`, `/traces/:id`, `?sessionId=`), over a fake trace backend
 * (traces.fixture.ts, answering as the spec says): the list (rows, search, status, paging, the session chip,
 * empty and error states), the capture switch and its error, a run's detail (header, clipped fields, the
 * timeline with tools nested under their model call and a subagent's run under its tool call, read when
 * expanded), the bookmark, "Load more", and a notice that makes the view read again; and for keyboard and screen
 * reader users: busy controls keep the focus (aria-disabled), names that do not change with state, `aria-controls`
 * only for what is there, failures said in words, and the focus on the new run's heading after a navigation.
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
import { child, observation, Q_TOO_LONG, slowTracesBackend, trace, usage, type TraceServer } from "./traces.fixture.ts";

const mounted = cleanedAfterEach();
const Stub = defineComponent({ render: () => h("div") });
let router: Router | null = null;

afterEach(() => {
  useTracesStore().$dispose();
  router = null;
  vi.useRealTimers();
});

let releaseHeld: () => void = () => {};

/** The view at `path` over `server`; answers to the requests `hold` picks wait until `releaseHeld()`. */
async function openAt(
  path: string,
  server: TraceServer,
  tracing = true,
  hold: (request: RecordedRequest) => boolean = () => false,
): Promise<VueWrapper> {
  setActivePinia(createPinia());
  const backend = useBackendStore();
  backend.info = checkBackendInfo({ name: "Leyline", version: "1", apiVersion: 2, capabilities: { tracing } }).info ?? null;
  backend.status = "ready";
  const slow = slowTracesBackend(server, hold);
  releaseHeld = slow.release;
  mounted.backend = fakeBackend(slow.handler);
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
    expect(w.get("[data-test=trace-next]").attributes("aria-disabled")).toBe("true");
    await w.get("[data-test=trace-next]").trigger("click");
    await flushPromises();
    expect(requests().at(-1)?.path).toBe("/api/pi/traces?page=2&limit=50");

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

/** A control's accessible name as its text gives it: what is hidden from assistive technology is left out. */
function textName(element: Element): string {
  const copy = element.cloneNode(true) as Element;
  for (const hidden of copy.querySelectorAll("[aria-hidden=true]")) hidden.remove();
  return (copy.textContent ?? "").replace(/\s+/g, " ").trim();
}

/** The screen matches `(max-width: 900px)` (the view stacks the detail under the list). */
function narrowScreen(): void {
  vi.stubGlobal("matchMedia", (query: string) => ({
    matches: query.includes("max-width"),
    media: query,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }));
}

describe("Traces view: keyboard and screen readers", () => {
  it("a busy Load more keeps the focus (aria-disabled, not disabled) and a second press reads nothing", async () => {
    let slow = true;
    const observations = Array.from({ length: 230 }, (_, i) => observation({ id: `o${i}`, startTime: i }));
    const server: TraceServer = { traces: [trace({ id: "big", observations, latency: 300 })], config: { enabled: true } };
    const w = await openAt("/traces/big", server, true, (r) => slow && r.path.startsWith("/api/pi/traces/big?"));
    const more = w.get<HTMLButtonElement>("[data-test=trace-load-more]");
    more.element.focus();
    await more.trigger("click");
    await flushPromises();
    expect(more.attributes("disabled")).toBeUndefined();
    expect(more.attributes("aria-disabled")).toBe("true");
    expect(document.activeElement).toBe(more.element);
    await more.trigger("click");
    await flushPromises();
    expect(requests().filter((r) => r.path.startsWith("/api/pi/traces/big?"))).toHaveLength(1);
    slow = false;
    releaseHeld();
    await flushPromises();
    expect(w.findAll("[data-test=trace-observation]")).toHaveLength(230);
  });

  it("stars are named for their run and pressed or not; saving keeps them focusable and ignores a second press", async () => {
    let slow = true;
    const w = await openAt("/traces/t59", listServer(), true, (r) => slow && r.method === "PATCH");
    const star = w.get<HTMLButtonElement>("[data-trace-id=t59] [data-test=trace-row-bookmark]");
    expect(star.attributes("aria-label")).toBe("Bookmark Run number 59");
    expect(star.attributes("aria-pressed")).toBe("false");
    star.element.focus();
    await star.trigger("click");
    await flushPromises();
    expect(star.attributes("disabled")).toBeUndefined();
    expect(star.attributes("aria-disabled")).toBe("true");
    expect(document.activeElement).toBe(star.element);
    const bookmark = w.get("[data-test=trace-bookmark]");
    expect(bookmark.attributes("disabled")).toBeUndefined();
    expect(bookmark.attributes("aria-disabled")).toBe("true");
    await star.trigger("click");
    await bookmark.trigger("click");
    expect(requests().filter((r) => r.method === "PATCH")).toHaveLength(1);
    slow = false;
    releaseHeld();
    await flushPromises();
    expect(star.attributes("aria-label")).toBe("Bookmark Run number 59");
    expect(star.attributes("aria-pressed")).toBe("true");
    expect(star.attributes("aria-disabled")).toBeUndefined();
    expect(textName(bookmark.element)).toBe("Bookmark");
    expect(bookmark.attributes("aria-pressed")).toBe("true");
  });

  it("the capture switch is named without its state, and while saving keeps the focus and ignores a press", async () => {
    let slow = true;
    const server = listServer();
    const w = await openAt("/traces", server, true, (r) => slow && r.method === "PUT");
    const capture = w.get<HTMLInputElement>("[data-test=trace-capture]");
    expect(textName(capture.element.closest("label")!)).toBe("Capture runs");
    expect(w.get("[data-test=trace-capture-state]").text()).toBe("on");
    capture.element.focus();
    await capture.trigger("click");
    await flushPromises();
    expect(capture.attributes("disabled")).toBeUndefined();
    expect(capture.attributes("aria-disabled")).toBe("true");
    expect(document.activeElement).toBe(capture.element);
    expect(capture.element.checked).toBe(false);
    await capture.trigger("click");
    expect(capture.element.checked).toBe(false);
    expect(requests().filter((r) => r.method === "PUT")).toEqual([
      { method: "PUT", path: "/api/pi/traces/config", body: { enabled: false } },
    ]);
    slow = false;
    releaseHeld();
    await flushPromises();
    expect(capture.attributes("aria-disabled")).toBeUndefined();
    expect(w.get("[data-test=trace-capture-state]").text()).toBe("off");
  });

  it("aria-controls names a row's recorded detail and a child run's body only while they are shown", async () => {
    const w = await openAt("/traces/parent", timelineServer());
    const row = w.get("[data-observation-id=gen1] > button.row");
    expect(row.attributes("aria-controls")).toBeUndefined();
    await row.trigger("click");
    const controlled = row.attributes("aria-controls");
    expect(controlled).toBeDefined();
    expect(document.getElementById(controlled!)?.getAttribute("data-test")).toBe("trace-observation-detail");
    await row.trigger("click");
    expect(row.attributes("aria-controls")).toBeUndefined();

    const toggle = w.get("[data-test=trace-child-run][data-trace-id=kid] [data-test=trace-child-toggle]");
    expect(toggle.attributes("aria-controls")).toBeUndefined();
    await toggle.trigger("click");
    await flushPromises();
    expect(document.getElementById(toggle.attributes("aria-controls")!)?.closest("[data-test=trace-child-run]")).toBe(
      w.get("[data-test=trace-child-run][data-trace-id=kid]").element,
    );
  });

  it("says in words, not only in colour, which observations failed", async () => {
    const server: TraceServer = {
      traces: [
        trace({
          id: "t1",
          observations: [
            observation({ id: "ok", name: "chat", startTime: 0 }),
            observation({ id: "broken", name: "bash", type: "TOOL", startTime: 1, status: "error" }),
            observation({ id: "refused", name: "chat", startTime: 2, level: "ERROR" }),
          ],
          pagination: {
            observations: { total: 3, offset: 0, limit: 200, nextOffset: null, truncated: false },
            scores: { total: 0, offset: 0, limit: 200, nextOffset: null, truncated: false },
          },
        }),
      ],
      config: { enabled: true },
    };
    const w = await openAt("/traces/t1", server);
    const failed = (id: string) => w.find(`[data-observation-id=${id}] > button.row [data-test=trace-observation-failed]`);
    expect(failed("ok").exists()).toBe(false);
    expect(failed("broken").text()).toBe("(failed)");
    expect(failed("broken").classes()).toContain("visually-hidden");
    expect(failed("refused").exists()).toBe(true);
    expect(w.get("[data-observation-id=broken] > button.row").text()).toContain("bash (failed)");
  });

  it("a link inside the detail that opens another run moves the focus to that run's heading", async () => {
    const w = await openAt("/traces/kid", timelineServer());
    const parentLink = w.get<HTMLAnchorElement>("[data-test=trace-parent] a");
    parentLink.element.focus();
    await parentLink.trigger("click");
    await flushPromises();
    expect(router?.currentRoute.value.path).toBe("/traces/parent");
    const heading = w.get("[data-test=trace-detail] [data-test=trace-heading]");
    expect(heading.text()).toBe("Research heat pumps");
    expect(heading.attributes("tabindex")).toBe("-1");
    expect(document.activeElement).toBe(heading.element);

    // The list's own links leave the focus where it is on a wide screen.
    const rowButton = w.get<HTMLButtonElement>("[data-test=trace-row][data-trace-id=kid] button.open");
    rowButton.element.focus();
    await rowButton.trigger("click");
    await flushPromises();
    expect(router?.currentRoute.value.path).toBe("/traces/kid");
    expect(document.activeElement).toBe(rowButton.element);
  });

  it("on a narrow screen, choosing a row moves the focus to the run's heading (or its error)", async () => {
    narrowScreen();
    const server = timelineServer();
    server.traces.push(trace({ id: "gone", name: "Gone", timestamp: "2025-03-12T09:00:00.000Z" }));
    const w = await openAt("/traces", server);
    const rowButton = w.get<HTMLButtonElement>("[data-test=trace-row][data-trace-id=parent] button.open");
    rowButton.element.focus();
    await rowButton.trigger("click");
    await flushPromises();
    expect(document.activeElement).toBe(w.get("[data-test=trace-heading]").element);

    server.traces = server.traces.filter((t) => t.id !== "gone");
    const goneButton = w.get<HTMLButtonElement>("[data-test=trace-row][data-trace-id=gone] button.open");
    goneButton.element.focus();
    await goneButton.trigger("click");
    await flushPromises();
    expect(document.activeElement).toBe(w.get("[data-test=trace-detail-error]").element);
  });
});
