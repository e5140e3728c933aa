/**
 * The traces store over a fake trace backend (components/traces/traces.fixture.ts, behind `fetch`) and a real
 * events socket fed by a fake WebSocket: the list reads its filters and pages, the detail follows observation
 * pages, the bookmark's answer shows everywhere, and the socket's trace notices (which never reach the runtime
 * message handler) make it read again, coalesced, what they concern: the list, the open run, a watched session.
 */
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EventsSocket } from "../api/events-socket.ts";
import { fakeSockets, ManualTimers } from "../api/events-socket.fixture.ts";
import type { EventEnvelope } from "../api/events-machine.ts";
import { checkBackendInfo } from "../backend-info.ts";
import { fakeBackend, type FakeBackend, type RecordedRequest } from "../components/composer/composer.fixture.ts";
import { child, observation, Q_TOO_LONG, trace, tracesBackend, type TraceServer } from "../components/traces/traces.fixture.ts";
import { useBackendStore } from "./backend.store.ts";
import { TRACE_REFRESH_DELAY_MS, useTracesStore } from "./traces.store.ts";

let backend: FakeBackend | null = null;
let store: ReturnType<typeof useTracesStore> | null = null;

function setUp(server: TraceServer, tracing = true) {
  setActivePinia(createPinia());
  const info = checkBackendInfo({ name: "Leyline", version: "1", apiVersion: 2, capabilities: { tracing } }).info ?? null;
  useBackendStore().info = info;
  backend = fakeBackend(tracesBackend(server));
  store = useTracesStore();
  return { traces: store, requests: backend.requests };
}

/** A greeted events socket: `send(type, data)` delivers one numbered message; `messages` is what `onMessage` got. */
function liveSocket() {
  const { createSocket, last } = fakeSockets();
  const messages: EventEnvelope[] = [];
  const socket = new EventsSocket({
    wsBase: "ws://leyline.test",
    createSocket,
    timers: new ManualTimers(),
    random: () => 0.5,
    silenceMs: 0,
    onMessage: (message) => messages.push(message),
  });
  socket.start("");
  last().open();
  last().receive({ type: "hello", data: { stream: "st", resumed: false, latestSeq: 0 }, seq: 0, epoch: "e1" });
  let seq = 0;
  return {
    socket,
    messages,
    send: (type: string, data: unknown) => last().receive({ type, data, seq: (seq += 1) }),
    drop: () => last().drop(),
  };
}

const gets = (requests: RecordedRequest[]) => requests.filter((r) => r.method === "GET").map((r) => r.path);

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

function manyTraces(count: number) {
  return Array.from({ length: count }, (_, i) =>
    trace({ id: `t${String(i).padStart(3, "0")}`, timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(), name: `run ${i}` }),
  );
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  store?.$dispose();
  store = null;
  backend?.restore();
  backend = null;
  vi.useRealTimers();
});

describe("traces store: list and detail", () => {
  it("reads the setting and the list, sends the search and status, pages, and shows a refused query in the server's words", async () => {
    const server: TraceServer = { traces: manyTraces(60), config: { enabled: true } };
    server.traces[3] = trace({
      ...server.traces[3],
      id: "t003",
      name: "Deploy the docs",
      timestamp: server.traces[3]!.timestamp,
      status: "error",
    });
    const { traces, requests } = setUp(server);
    traces.openView({ sessionId: "" });
    await settle();
    expect(gets(requests)).toEqual(["/api/pi/traces/config", "/api/pi/traces?page=1&limit=50"]);
    expect(traces.list?.total).toBe(60);
    expect(traces.list?.traces[0]?.id).toBe("t059");

    await traces.setFilters({ page: 2 });
    expect(traces.list?.traces.map((t) => t.id)).toEqual(["t009", "t008", "t007", "t006", "t005", "t004", "t003", "t002", "t001", "t000"]);

    await traces.setFilters({ q: "deploy DOCS", status: "error" });
    expect(requests.at(-1)?.path).toBe("/api/pi/traces?q=deploy+DOCS&status=error&page=1&limit=50");
    expect(traces.list?.traces.map((t) => t.id)).toEqual(["t003"]);

    await traces.setFilters({ q: Array.from({ length: 33 }, (_, i) => `w${i}`).join(" ") });
    expect(traces.listError).toBe(Q_TOO_LONG);
    expect(traces.list).toBeNull();
  });

  it("opens a run, loads further observation pages, and a refresh keeps as many as were shown", async () => {
    const observations = Array.from({ length: 450 }, (_, i) => observation({ id: `o${i}`, startTime: i }));
    const server: TraceServer = { traces: [trace({ id: "big", observations, latency: 500 })], config: { enabled: true } };
    const { traces, requests } = setUp(server);
    traces.select("big");
    await settle();
    expect(traces.detail?.observations).toHaveLength(200);
    expect(traces.detail?.pagination.observations.nextOffset).toBe(200);

    await traces.loadMore();
    expect(requests.at(-1)?.path).toBe("/api/pi/traces/big?observationOffset=200&observationLimit=200&scoreOffset=0&scoreLimit=1");
    expect(traces.detail?.observations).toHaveLength(400);
    expect(new Set(traces.detail?.observations.map((o) => o.id)).size).toBe(400);

    await traces.loadDetail("big", true);
    expect(traces.detail?.observations).toHaveLength(400);
    await traces.loadMore();
    expect(traces.detail?.observations.map((o) => o.id).slice(-2)).toEqual(["o448", "o449"]);
    expect(traces.detail?.pagination.observations.nextOffset).toBeNull();
  });

  it("a bookmark's answer replaces the bookmark and revision in the list, the detail and a watched session", async () => {
    const server: TraceServer = {
      traces: [trace({ id: "t1" }), trace({ id: "t2", timestamp: "2025-03-13T00:00:00.000Z" })],
      config: { enabled: true },
    };
    const { traces, requests } = setUp(server);
    traces.openView();
    traces.select("t1");
    const stop = traces.watchSession("s1");
    await settle();
    await traces.setBookmark("t1", true);
    expect(requests.filter((r) => r.method === "PATCH")).toEqual([
      { method: "PATCH", path: "/api/pi/traces/t1", body: { bookmarked: true } },
    ]);
    expect(traces.list?.traces.find((t) => t.id === "t1")).toMatchObject({ bookmarked: true, revision: 2 });
    expect(traces.list?.traces.find((t) => t.id === "t2")?.bookmarked).toBe(false);
    expect(traces.detail).toMatchObject({ id: "t1", bookmarked: true, revision: 2 });
    expect(traces.sessionTraces["s1"]?.traces.find((t) => t.id === "t1")?.bookmarked).toBe(true);
    stop();
  });
});

describe("traces store: live notices", () => {
  it("a trace_updated notice reads the list and the open run again once, after the delay; it never reaches onMessage", async () => {
    const server: TraceServer = { traces: [trace({ id: "t1", status: "running" })], config: { enabled: true } };
    const { traces, requests } = setUp(server);
    const live = liveSocket();
    traces.openView();
    traces.select("t1");
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS); // the socket's first stream asks for a refresh too
    await settle();
    const before = requests.length;

    server.traces[0] = trace({ id: "t1", status: "completed", revision: 2, name: "Fixed the build" });
    live.send("trace_updated", { traceId: "t1", sessionId: "s1", revision: 2, activeSessionId: "s1" });
    live.send("trace_updated", { traceId: "t1", sessionId: "s1", revision: 2, activeSessionId: "s1" });
    live.send("runtime_roster", { sessionIds: [] });
    await settle();
    expect(requests.length).toBe(before);
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS);
    await settle();
    expect(gets(requests.slice(before)).sort()).toEqual(["/api/pi/traces/t1", "/api/pi/traces?page=1&limit=50"]);
    expect(traces.list?.traces[0]).toMatchObject({ status: "completed", name: "Fixed the build" });
    expect(traces.detail).toMatchObject({ status: "completed", revision: 2 });
    expect(live.messages.map((m) => m.type)).toEqual(["runtime_roster"]);

    // A notice no newer than what is shown reads nothing.
    const after = requests.length;
    live.send("trace_updated", { traceId: "t1", sessionId: "s1", revision: 2, activeSessionId: "s1" });
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS);
    await settle();
    expect(requests.length).toBe(after);
    live.socket.stop();
  });

  it("trace_config replaces the setting; a reconnect reads what is shown again", async () => {
    const server: TraceServer = { traces: [trace({ id: "t1" })], config: { enabled: true } };
    const { traces, requests } = setUp(server);
    const live = liveSocket();
    traces.openView();
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS);
    await settle();
    live.send("trace_config", { enabled: true, error: "Could not read or save trace settings. Check the backend log." });
    expect(traces.config).toEqual({ enabled: true, error: "Could not read or save trace settings. Check the backend log." });
    expect(live.messages).toEqual([]);

    const before = requests.length;
    live.drop();
    live.socket.stop();
    const again = liveSocket();
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS);
    await settle();
    expect(gets(requests.slice(before)).sort()).toEqual(["/api/pi/traces/config", "/api/pi/traces?page=1&limit=50"]);
    again.socket.stop();
  });

  it("a watched session is read once for every watcher and again on its notices; an unwatched one is forgotten", async () => {
    const server: TraceServer = {
      traces: [trace({ id: "t1", metadata: { userEntryId: "u1" } }), trace({ id: "x1", sessionId: "s2" })],
      config: { enabled: true },
    };
    const { traces, requests } = setUp(server);
    const first = traces.watchSession("s1");
    const second = traces.watchSession("s1");
    await settle();
    expect(gets(requests)).toEqual(["/api/pi/traces?sessionId=s1&limit=200"]);

    server.traces.push(trace({ id: "t2", timestamp: "2025-03-13T00:00:00.000Z", metadata: { userEntryId: "u2" } }));
    traces.receive({ kind: "updated", notice: { traceId: "t2", sessionId: "s1", revision: 1, activeSessionId: "s1" } });
    traces.receive({ kind: "updated", notice: { traceId: "x1", sessionId: "s2", revision: 3, activeSessionId: "s2" } });
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS);
    await settle();
    expect(gets(requests)).toHaveLength(2);
    expect(traces.sessionTraces["s1"]?.traces.map((t) => t.id)).toEqual(["t2", "t1"]);

    first();
    second();
    traces.receive({ kind: "updated", notice: { traceId: "t2", sessionId: "s1", revision: 2, activeSessionId: "s1" } });
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS);
    await settle();
    expect(gets(requests)).toHaveLength(2);
    expect(traces.sessionTraces["s1"]).toBeUndefined();
  });

  it("a notice about an expanded child run reads that run again", async () => {
    const server: TraceServer = {
      traces: [
        trace({ id: "parent", metadata: { children: [child({ traceId: "kid" })] } }),
        trace({ id: "kid", sessionId: "s-child", status: "running" }),
      ],
      config: { enabled: true },
    };
    const { traces, requests } = setUp(server);
    await traces.loadChild("kid");
    expect(traces.childRuns["kid"]?.trace?.status).toBe("running");
    server.traces[1] = trace({ id: "kid", sessionId: "s-child", status: "completed", revision: 4 });
    traces.receive({ kind: "updated", notice: { traceId: "kid", sessionId: "s-child", revision: 4, activeSessionId: "s-child" } });
    await vi.advanceTimersByTimeAsync(TRACE_REFRESH_DELAY_MS);
    await settle();
    expect(gets(requests)).toEqual(["/api/pi/traces/kid", "/api/pi/traces/kid"]);
    expect(traces.childRuns["kid"]?.trace?.status).toBe("completed");
  });
});
