/**
 * The traces store over a fake trace backend (components/traces/traces.fixture.ts, behind `fetch`; a slow one
 * holds chosen answers back) and a real events socket fed by a fake WebSocket: the list reads its filters and
 * pages, the detail follows observation pages, the bookmark's answer shows everywhere, and the socket's trace
 * notices (which never reach the runtime message handler) make it read again, coalesced and one read at a time,
 * what they concern: the list, the open run, an expanded child run, a watched session.
 */
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EventsSocket } from "../api/events-socket.ts";
import { fakeSockets, ManualTimers } from "../api/events-socket.fixture.ts";
import type { EventEnvelope } from "../api/events-machine.ts";
import type { TraceSignal } from "../api/traces.ts";
import { checkBackendInfo } from "../backend-info.ts";
import { fakeBackend, type FakeBackend, type RecordedRequest } from "../components/composer/composer.fixture.ts";
import { child, observation, Q_TOO_LONG, slowTracesBackend, trace, type TraceServer } from "../components/traces/traces.fixture.ts";
import { useBackendStore } from "./backend.store.ts";
import { CHILD_REFRESH_DELAY_MS, TRACE_REFRESH_DELAY_MS, useTracesStore } from "./traces.store.ts";

let backend: FakeBackend | null = null;
let store: ReturnType<typeof useTracesStore> | null = null;

/** The store over `server`; answers to the requests `hold` picks wait until `release()`. */
function setUp(server: TraceServer, options: { tracing?: boolean; hold?: (request: RecordedRequest) => boolean } = {}) {
  setActivePinia(createPinia());
  const info = checkBackendInfo({ name: "Leyline", version: "1", apiVersion: 2, capabilities: { tracing: options.tracing ?? true } }).info;
  useBackendStore().info = info ?? null;
  const slow = slowTracesBackend(server, options.hold ?? (() => false));
  backend = fakeBackend(slow.handler);
  store = useTracesStore();
  return { traces: store, requests: backend.requests, signals: backend.signals, release: slow.release, held: slow.held };
}

/** A greeted events socket: `send(type, data)` delivers one numbered message; `messages` is what `onMessage` got. */
function liveSocket() {
  const { createSocket, last } = fakeSockets();
  const timers = new ManualTimers();
  const messages: EventEnvelope[] = [];
  const socket = new EventsSocket({
    wsBase: "ws://leyline.test",
    createSocket,
    timers,
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
    /** The connection drops and comes back, resuming its stream. */
    reconnect: () => {
      last().drop();
      timers.fireAll();
      last().open();
      last().receive({ type: "hello", data: { stream: "st", resumed: true, latestSeq: seq }, seq: 0, epoch: "e1" });
    },
  };
}

const gets = (requests: RecordedRequest[]) => requests.filter((r) => r.method === "GET").map((r) => r.path);
const updated = (traceId: string, sessionId: string, revision: number): TraceSignal => ({
  kind: "updated",
  notice: { traceId, sessionId, revision, activeSessionId: sessionId },
});

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Lets `ms` pass on the fake clock, then lets the reads it started settle. */
async function wait(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await settle();
}

function manyTraces(count: number) {
  return Array.from({ length: count }, (_, i) =>
    trace({ id: `t${String(i).padStart(3, "0")}`, timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(), name: `run ${i}` }),
  );
}

function bigTrace(id: string, overrides: Parameters<typeof trace>[0] = {}) {
  const observations = Array.from({ length: 450 }, (_, i) => observation({ id: `${id}-o${i}`, startTime: i }));
  return trace({ id, observations, latency: 500, ...overrides });
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
    const server: TraceServer = { traces: [bigTrace("big")], config: { enabled: true } };
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
    expect(traces.detail?.observations.map((o) => o.id).slice(-2)).toEqual(["big-o448", "big-o449"]);
    expect(traces.detail?.pagination.observations.nextOffset).toBeNull();
  });

  it("a bookmark's answer replaces only the bookmark in the list, the detail and a watched session; its notice still reads them", async () => {
    const server: TraceServer = {
      traces: [trace({ id: "t1", metadata: { userEntryId: "u1" } }), trace({ id: "t2", timestamp: "2025-03-13T00:00:00.000Z" })],
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
    expect(traces.list?.traces.find((t) => t.id === "t1")).toMatchObject({ bookmarked: true, revision: 1 });
    expect(traces.list?.traces.find((t) => t.id === "t2")?.bookmarked).toBe(false);
    expect(traces.detail).toMatchObject({ id: "t1", bookmarked: true, revision: 1 });
    expect(traces.sessionTraces["s1"]?.traces.find((t) => t.id === "t1")?.bookmarked).toBe(true);

    // The run changed meanwhile (it ended): the bookmark's notice (revision 2) is not taken as seen.
    server.traces[0] = { ...server.traces[0]!, status: "error" };
    const before = requests.length;
    traces.receive(updated("t1", "s1", 2));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests.slice(before)).sort()).toEqual(["/api/pi/traces/t1", "/api/pi/traces?page=1&limit=50"]);
    expect(traces.detail).toMatchObject({ status: "error", revision: 2, bookmarked: true });
    expect(traces.list?.traces.find((t) => t.id === "t1")).toMatchObject({ status: "error", revision: 2 });
    stop();
  });

  it("opening another run drops the last one's pending Load more: its state does not leak and its answer is not written", async () => {
    let slow = false;
    const server: TraceServer = { traces: [bigTrace("a"), bigTrace("b")], config: { enabled: true } };
    const { traces, requests, signals, release } = setUp(server, { hold: (r) => slow && r.path.startsWith("/api/pi/traces/a?") });
    traces.select("a");
    await settle();
    slow = true;
    const more = traces.loadMore();
    expect(traces.loadingMore).toBe(true);
    const pending = requests.length - 1;

    traces.select("b");
    expect(traces.loadingMore).toBe(false);
    expect(traces.moreError).toBe("");
    expect(signals[pending]?.aborted).toBe(true);
    await settle();
    await traces.loadMore();
    expect(traces.detail?.observations.map((o) => o.id).at(-1)).toBe("b-o399");

    release();
    await more;
    expect(traces.detail?.id).toBe("b");
    expect(traces.detail?.observations).toHaveLength(400);
    expect(traces.detail?.observations.every((o) => o.id.startsWith("b-"))).toBe(true);
    expect(traces.loadingMore).toBe(false);
  });
});

describe("traces store: live notices", () => {
  it("a trace_updated notice reads the list and the open run again once, after the delay; it never reaches onMessage", async () => {
    const server: TraceServer = { traces: [trace({ id: "t1", status: "running" })], config: { enabled: true } };
    const { traces, requests } = setUp(server);
    const live = liveSocket();
    traces.openView();
    traces.select("t1");
    await wait(TRACE_REFRESH_DELAY_MS);
    const before = requests.length;

    server.traces[0] = trace({ id: "t1", status: "completed", revision: 2, name: "Fixed the build" });
    live.send("trace_updated", { traceId: "t1", sessionId: "s1", revision: 2, activeSessionId: "s1" });
    live.send("trace_updated", { traceId: "t1", sessionId: "s1", revision: 2, activeSessionId: "s1" });
    live.send("runtime_roster", { sessionIds: [] });
    await settle();
    expect(requests.length).toBe(before);
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests.slice(before)).sort()).toEqual(["/api/pi/traces/t1", "/api/pi/traces?page=1&limit=50"]);
    expect(traces.list?.traces[0]).toMatchObject({ status: "completed", name: "Fixed the build" });
    expect(traces.detail).toMatchObject({ status: "completed", revision: 2 });
    expect(live.messages.map((m) => m.type)).toEqual(["runtime_roster"]);

    // A notice no newer than what is shown reads nothing.
    const after = requests.length;
    live.send("trace_updated", { traceId: "t1", sessionId: "s1", revision: 2, activeSessionId: "s1" });
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(requests.length).toBe(after);
    live.socket.stop();
  });

  it("the socket's first stream reads nothing again when nothing shown runs; a reconnect reads everything shown", async () => {
    const server: TraceServer = { traces: [trace({ id: "t1" })], config: { enabled: true } };
    const { traces, requests } = setUp(server);
    traces.openView();
    traces.select("t1");
    await settle();
    const live = liveSocket();
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests)).toEqual(["/api/pi/traces/config", "/api/pi/traces?page=1&limit=50", "/api/pi/traces/t1"]);

    live.send("trace_config", { enabled: true, error: "Could not read or save trace settings. Check the backend log." });
    expect(traces.config).toEqual({ enabled: true, error: "Could not read or save trace settings. Check the backend log." });
    expect(live.messages).toEqual([]);

    const before = requests.length;
    live.reconnect();
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests.slice(before)).sort()).toEqual(["/api/pi/traces/config", "/api/pi/traces/t1", "/api/pi/traces?page=1&limit=50"]);
    live.socket.stop();
  });

  it("the socket's first stream reads again what shows a running run (its end may have been missed)", async () => {
    const server: TraceServer = { traces: [trace({ id: "t1", status: "running" })], config: { enabled: true } };
    const { traces, requests } = setUp(server);
    traces.openView();
    traces.select("t1");
    await settle();
    server.traces[0] = trace({ id: "t1", status: "completed", revision: 2 });
    const before = requests.length;
    const live = liveSocket();
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests.slice(before)).sort()).toEqual(["/api/pi/traces/t1", "/api/pi/traces?page=1&limit=50"]);
    expect(traces.detail?.status).toBe("completed");
    live.socket.stop();
  });

  it("a watched session is read once for every watcher, again on a notice of a run it lacks or has not linked; an unwatched one is forgotten", async () => {
    const server: TraceServer = {
      traces: [
        trace({ id: "t1", metadata: { userEntryId: "u1" } }),
        trace({ id: "t0", timestamp: "2025-03-11T00:00:00.000Z", status: "running" }),
        trace({ id: "x1", sessionId: "s2" }),
      ],
      config: { enabled: true },
    };
    const { traces, requests } = setUp(server);
    const first = traces.watchSession("s1");
    const second = traces.watchSession("s1");
    await settle();
    expect(gets(requests)).toEqual(["/api/pi/traces?sessionId=s1&limit=200"]);

    // A run the list links already: its notices change no link.
    traces.receive(updated("t1", "s1", 2));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests)).toHaveLength(1);

    // A run not yet tied to its user turn.
    server.traces[1] = trace({ id: "t0", timestamp: "2025-03-11T00:00:00.000Z", status: "running", metadata: { userEntryId: "u0" } });
    traces.receive(updated("t0", "s1", 2));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests)).toHaveLength(2);
    expect(traces.sessionTraces["s1"]?.traces.find((t) => t.id === "t0")?.metadata.userEntryId).toBe("u0");
    traces.receive(updated("t0", "s1", 3));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests)).toHaveLength(2);

    // A new run; and a notice of an unwatched session reads nothing.
    server.traces.push(trace({ id: "t2", timestamp: "2025-03-13T00:00:00.000Z", metadata: { userEntryId: "u2" } }));
    traces.receive(updated("t2", "s1", 1));
    traces.receive(updated("x1", "s2", 3));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests)).toHaveLength(3);
    expect(traces.sessionTraces["s1"]?.traces.map((t) => t.id)).toEqual(["t2", "t1", "t0"]);

    first();
    second();
    traces.receive(updated("t3", "s1", 1));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests)).toHaveLength(3);
    expect(traces.sessionTraces["s1"]).toBeUndefined();
  });

  it("a notice about an expanded child run reads that run again, less often than the rest", async () => {
    const server: TraceServer = {
      traces: [
        trace({ id: "parent", metadata: { children: [child({ traceId: "kid" })] } }),
        trace({ id: "kid", sessionId: "s-child", status: "running" }),
      ],
      config: { enabled: true },
    };
    const { traces, requests } = setUp(server);
    traces.openView();
    await settle();
    await traces.loadChild("kid");
    const kidReads = () => gets(requests).filter((path) => path.startsWith("/api/pi/traces/kid"));
    expect(traces.childRuns["kid"]?.trace?.status).toBe("running");
    server.traces[1] = trace({ id: "kid", sessionId: "s-child", status: "completed", revision: 4 });
    traces.receive(updated("kid", "s-child", 4));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(kidReads()).toHaveLength(1);
    await wait(CHILD_REFRESH_DELAY_MS - TRACE_REFRESH_DELAY_MS);
    expect(kidReads()).toEqual(["/api/pi/traces/kid", "/api/pi/traces/kid"]);
    expect(traces.childRuns["kid"]?.trace?.status).toBe("completed");
  });

  it("while the open run runs, a notice of another session's run does not read it again; one of its child runs does", async () => {
    const server: TraceServer = {
      traces: [
        trace({ id: "t1", status: "running", metadata: { children: [child({ traceId: "kid" })] } }),
        trace({ id: "other", sessionId: "s9", status: "running" }),
        trace({ id: "kid", sessionId: "s-child", status: "running" }),
      ],
      config: { enabled: true },
    };
    const { traces, requests } = setUp(server);
    traces.select("t1");
    await settle();
    traces.receive(updated("other", "s9", 5));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests)).toEqual(["/api/pi/traces/t1"]);
    traces.receive(updated("kid", "s-child", 2));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests)).toEqual(["/api/pi/traces/t1", "/api/pi/traces/t1"]);
  });

  it("closing the view releases the expanded child runs, stops its pending refreshes and drops a Load more", async () => {
    let slow = false;
    const server: TraceServer = {
      traces: [bigTrace("parent", { status: "running", metadata: { children: [child({ traceId: "kid" })] } }), trace({ id: "kid" })],
      config: { enabled: true },
    };
    const { traces, requests, signals } = setUp(server, { hold: (r) => slow && r.path.startsWith("/api/pi/traces/parent?") });
    traces.openView();
    traces.select("parent");
    await settle();
    await traces.loadChild("kid");
    slow = true;
    void traces.loadMore();
    const pending = requests.length - 1;
    traces.receive(updated("parent", "s1", 2));
    traces.receive(updated("kid", "s-child", 2));
    traces.receive(updated("new", "s1", 1));
    const before = requests.length;

    traces.closeView();
    expect(traces.childRuns).toEqual({});
    expect(signals[pending]?.aborted).toBe(true);
    expect(traces.loadingMore).toBe(false);
    await wait(CHILD_REFRESH_DELAY_MS);
    expect(requests.slice(before)).toEqual([]);
    traces.receive(updated("kid", "s-child", 3));
    await wait(CHILD_REFRESH_DELAY_MS);
    expect(requests.slice(before)).toEqual([]);
  });
});

describe("traces store: one refresh at a time on a slow backend", () => {
  it("a notice while the open run is read again does not cancel that read: it runs once more after", async () => {
    let slow = false;
    const server: TraceServer = { traces: [trace({ id: "t1", status: "running" })], config: { enabled: true } };
    const { traces, requests, signals, release, held } = setUp(server, { hold: (r) => slow && r.path === "/api/pi/traces/t1" });
    traces.select("t1");
    await settle();
    slow = true;
    const before = requests.length;
    server.traces[0] = trace({ id: "t1", status: "running", revision: 2 });
    traces.receive(updated("t1", "s1", 2));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(held()).toBe(1);

    server.traces[0] = trace({ id: "t1", status: "completed", revision: 3 });
    traces.receive(updated("t1", "s1", 3));
    await wait(TRACE_REFRESH_DELAY_MS * 3);
    expect(gets(requests.slice(before))).toEqual(["/api/pi/traces/t1"]);
    expect(signals[before]?.aborted).toBe(false);

    slow = false;
    release();
    await settle();
    expect(traces.detail?.revision).toBe(2);
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests.slice(before))).toEqual(["/api/pi/traces/t1", "/api/pi/traces/t1"]);
    expect(traces.detail).toMatchObject({ status: "completed", revision: 3 });
  });

  it("a refresh waits for the user's read of the run instead of aborting it", async () => {
    let slow = true;
    const server: TraceServer = { traces: [trace({ id: "t1", status: "running" })], config: { enabled: true } };
    const { traces, requests, signals, release } = setUp(server, { hold: (r) => slow && r.path === "/api/pi/traces/t1" });
    traces.select("t1");
    await settle();
    expect(traces.detailLoading).toBe(true);
    server.traces[0] = trace({ id: "t1", status: "completed", revision: 2 });
    traces.receive(updated("t1", "s1", 2));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests)).toEqual(["/api/pi/traces/t1"]);
    expect(signals[0]?.aborted).toBe(false);

    slow = false;
    release();
    await settle();
    expect(gets(requests)).toEqual(["/api/pi/traces/t1", "/api/pi/traces/t1"]);
    expect(traces.detail).toMatchObject({ status: "completed", revision: 2 });
    expect(traces.detailLoading).toBe(false);
  });

  it("a list refresh does not show as loading and runs one at a time", async () => {
    let slow = false;
    const server: TraceServer = { traces: [trace({ id: "t1", status: "running" })], config: { enabled: true } };
    const { traces, requests, release, held } = setUp(server, { hold: (r) => slow && r.path.startsWith("/api/pi/traces?page") });
    traces.openView();
    await settle();
    slow = true;
    const before = requests.length;
    traces.receive(updated("t2", "s1", 1));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(held()).toBe(1);
    expect(traces.listLoading).toBe(false);
    traces.receive(updated("t3", "s1", 1));
    await wait(TRACE_REFRESH_DELAY_MS * 3);
    expect(gets(requests.slice(before))).toEqual(["/api/pi/traces?page=1&limit=50"]);

    slow = false;
    release();
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(gets(requests.slice(before))).toEqual(["/api/pi/traces?page=1&limit=50", "/api/pi/traces?page=1&limit=50"]);
    expect(traces.listLoading).toBe(false);
  });

  it("an expanded child run and a watched session are read one at a time", async () => {
    let slow = false;
    const server: TraceServer = { traces: [trace({ id: "kid", sessionId: "s-child", status: "running" })], config: { enabled: true } };
    const { traces, requests, release, held } = setUp(server, {
      hold: (r) => slow && (r.path === "/api/pi/traces/kid" || r.path.startsWith("/api/pi/traces?sessionId=")),
    });
    traces.openView();
    await traces.loadChild("kid");
    const stop = traces.watchSession("s-child");
    await settle();
    slow = true;
    const before = requests.length;
    traces.receive(updated("kid", "s-child", 2));
    traces.receive(updated("new-1", "s-child", 1));
    await wait(CHILD_REFRESH_DELAY_MS);
    expect(held()).toBe(2);
    traces.receive(updated("kid", "s-child", 3));
    traces.receive(updated("new-2", "s-child", 1));
    await wait(CHILD_REFRESH_DELAY_MS * 2);
    const reads = () => gets(requests.slice(before)).filter((path) => !path.startsWith("/api/pi/traces?page"));
    expect(reads().sort()).toEqual(["/api/pi/traces/kid", "/api/pi/traces?sessionId=s-child&limit=200"]);

    slow = false;
    release();
    await wait(CHILD_REFRESH_DELAY_MS);
    expect(reads().sort()).toEqual([
      "/api/pi/traces/kid",
      "/api/pi/traces/kid",
      "/api/pi/traces?sessionId=s-child&limit=200",
      "/api/pi/traces?sessionId=s-child&limit=200",
    ]);
    stop();
  });

  it("a refresh under way does not undo Load more: it follows the pages wanted", async () => {
    let slow = false;
    const server: TraceServer = { traces: [bigTrace("big", { status: "running" })], config: { enabled: true } };
    const { traces, release, held } = setUp(server, { hold: (r) => slow && r.path === "/api/pi/traces/big" });
    traces.select("big");
    await settle();
    slow = true;
    server.traces[0] = { ...server.traces[0]!, revision: 2 };
    traces.receive(updated("big", "s1", 2));
    await wait(TRACE_REFRESH_DELAY_MS);
    expect(held()).toBe(1);
    await traces.loadMore();
    expect(traces.detail?.observations).toHaveLength(400);

    slow = false;
    release();
    await settle();
    expect(traces.detail?.revision).toBe(2);
    expect(traces.detail?.observations).toHaveLength(400);
    expect(traces.detail?.pagination.observations.nextOffset).toBe(400);
  });

  it("the capture setting keeps the newest word: a notice or a save outranks a read started before it", async () => {
    let slow = true;
    const server: TraceServer = { traces: [], config: { enabled: true } };
    const { traces, release } = setUp(server, { hold: (r) => slow && r.method === "GET" && r.path === "/api/pi/traces/config" });
    traces.openView();
    await settle();
    expect(traces.configLoading).toBe(true);
    traces.receive({ kind: "config", config: { enabled: false } });
    release();
    await settle();
    expect(traces.config).toEqual({ enabled: false });
    expect(traces.configLoading).toBe(false);

    server.config = { enabled: true };
    void traces.loadConfig();
    await settle();
    slow = false;
    await traces.setCapture(false);
    expect(traces.config).toEqual({ enabled: false });
    release();
    await settle();
    expect(traces.config).toEqual({ enabled: false });
  });
});
