/**
 * Traces end to end (spec "Trace routes", "Trace errors"): a real runtime host (in-process workers, the real pi
 * SDK, the scripted faux provider), real session files, a real leyline.sqlite.
 * - a run is captured as it happens, without any view: its trace (input, output, name, status, entry ids, model),
 *   its model calls with the usage of the session file's assistant messages (summed exactly), its tool under the
 *   model call that asked for it;
 * - the list's filters, search, paging and sort; the detail's pages and the read budget on a trace with more
 *   observations than a page; bookmarks with trace_updated; capture off (a new run is not captured, the stored
 *   traces stay) and on again, with trace_config;
 * - every status of "Trace errors".
 */
import fs from "node:fs";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { jsonlLines } from "../adapters/runtime-host/runtime-host-test-support.ts";
import { startOtlpReceiver } from "../adapters/traces/otlp-receiver.fixture.ts";
import { applyCapture } from "../adapters/traces/trace-store.ts";
import { type ObservationRecord, observationRecord } from "../domain/traces/trace-records.ts";
import type { Trace, TraceConfig, TraceList, TraceUsage } from "../domain/traces/trace-types.ts";
import { call, EventCollector, listenForEvents, runtimeApiSuite, settled } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-traces-");
const sockets: EventCollector[] = [];

beforeAll(suite.setUp);
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  await suite.closeApps();
});
afterAll(suite.tearDown);

const TURNS = [
  { match: "TRACE-ONE", toolCalls: [{ name: "bash", arguments: { command: "echo traced-output" } }] },
  { match: "TRACE-ONE", text: "All done for trace one." },
  { match: "TRACE-TWO", text: "Second answer." },
  { match: "TRACE-OFF", text: "Not captured." },
  { match: "TRACE-BACK", text: "Captured again." },
];

/** The summed usage of a session file's assistant messages (what the trace must report, counted once). */
function fileUsage(file: string): TraceUsage {
  const usage: TraceUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 };
  for (const line of jsonlLines(file)) {
    const message = line["message"] as { role?: string; usage?: Record<string, number & { total?: number }> } | undefined;
    if (line["type"] !== "message" || message?.role !== "assistant" || message.usage === undefined) continue;
    const u = message.usage as unknown as {
      input: number;
      output: number;
      cacheRead: number;
      cacheWrite: number;
      totalTokens: number;
      cost: { total: number };
    };
    usage.inputTokens += u.input + u.cacheRead + u.cacheWrite;
    usage.outputTokens += u.output;
    usage.totalTokens += u.totalTokens;
    usage.cost += u.cost.total;
  }
  return usage;
}

/** Prompts and waits until the run is in the file and its capture is stored (the run's end included). */
async function prompt(app: FastifyInstance, id: string, text: string, messages: number): Promise<void> {
  const runs = app.leyline.host.get(id)?.sessionFile ? (runEnds.get(id) ?? 0) : 0;
  const res = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await settled(app, id, messages);
  const deadline = Date.now() + 10_000;
  while ((runEnds.get(id) ?? 0) <= runs && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  await app.leyline.traces.settled();
}

/** Runs whose end the worker reported, by session (every app's host, counted as the captures go by). */
const runEnds = new Map<string, number>();

/** An app whose trace tables start empty (the suite's apps share one data dir). */
async function makeApp(turns: typeof TURNS | [], env?: NodeJS.ProcessEnv): Promise<FastifyInstance> {
  const app = await suite.makeApp({ turns, ...(env !== undefined ? { app: { env: { PI_OFFLINE: "1", ...env } } } : {}) });
  const db = (await app.leyline.readSide.database()).db;
  await app.leyline.traces.settled();
  for (const table of ["trace_observations", "trace_scores", "traces"] as const) await db.deleteFrom(table).execute();
  app.leyline.host.traceWrites$.subscribe(({ handle, writes }) => {
    const ends = writes.filter((write) => write.trace?.endMs !== undefined && write.trace.endMs !== null).length;
    if (ends > 0) runEnds.set(handle.sessionId, (runEnds.get(handle.sessionId) ?? 0) + ends);
  });
  return app;
}

async function list(app: FastifyInstance, query = ""): Promise<TraceList> {
  const res = await call(app, "GET", `/api/pi/traces${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as TraceList;
}

async function detail(app: FastifyInstance, id: string, query = ""): Promise<Trace> {
  const res = await call(app, "GET", `/api/pi/traces/${encodeURIComponent(id)}${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { trace: Trace }).trace;
}

async function newSession(app: FastifyInstance): Promise<string> {
  const created = await call(app, "POST", "/api/pi/sessions", { cwd: suite.dirs.cwd });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return (created.body["active"] as { id: string }).id;
}

describe("capture", () => {
  it("captures a run with its model calls, tool and usage, exactly as the session file records them", async () => {
    const app = await makeApp(TURNS);
    const id = await newSession(app);
    // user, assistant (tool call), tool result, assistant
    await prompt(app, id, "TRACE-ONE please\nsecond line", 4);
    const { traces, total } = await list(app, `?sessionId=${id}`);
    expect(total).toBe(1);
    const summary = traces[0]!;
    expect(summary).toMatchObject({
      source: "pi",
      status: "completed",
      name: "TRACE-ONE please",
      sessionId: id,
      level: "DEFAULT",
      bookmarked: false,
      model: expect.stringMatching(/^faux\//),
    });
    expect(summary.latency).toBeGreaterThan(0);
    const file = app.leyline.host.get(id)!.sessionFile!;
    const usage = fileUsage(file);
    expect(usage.totalTokens).toBeGreaterThan(0);
    expect({
      inputTokens: summary.inputTokens,
      outputTokens: summary.outputTokens,
      totalTokens: summary.totalTokens,
      cost: summary.cost,
    }).toEqual(usage);

    const entries = jsonlLines(file).filter((line) => line["type"] === "message");
    const userEntry = entries.find((line) => (line["message"] as { role: string }).role === "user")!;
    expect(summary.metadata).toMatchObject({
      cwd: expect.any(String),
      sessionFile: file,
      userEntryId: userEntry["id"],
      startEntryId: userEntry["id"],
      endEntryId: entries[entries.length - 1]!["id"],
      parent: { traceId: null, sessionId: null, toolCallId: null },
    });

    const trace = await detail(app, summary.id);
    expect(trace.input).toBe("TRACE-ONE please\nsecond line");
    expect(trace.output).toBe("All done for trace one.");
    expect(trace.metadata.usage).toEqual({
      own: usage,
      descendants: { inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 },
      total: usage,
    });
    expect(trace.observations.map((o) => [o.type, o.name])).toEqual([
      ["GENERATION", expect.stringMatching(/^chat faux\//)],
      ["TOOL", "bash"],
      ["GENERATION", expect.stringMatching(/^chat faux\//)],
    ]);
    const [call1, tool, call2] = trace.observations as [Trace["observations"][0], Trace["observations"][0], Trace["observations"][0]];
    expect(tool.parentId).toBe(call1.id);
    expect(JSON.parse(tool.input!)).toEqual({ command: "echo traced-output" });
    expect(tool.output).toContain("traced-output");
    expect(tool.status).toBe("completed");
    expect(call2.output).toBe("All done for trace one.");
    expect(call1.startTime).toBeGreaterThanOrEqual(0);
    expect(tool.startTime).toBeGreaterThanOrEqual(call1.startTime);
    for (const observation of trace.observations) expect(observation.duration).not.toBeNull();
    // Each assistant entry is named on its model call.
    const assistantIds = entries.filter((line) => (line["message"] as { role: string }).role === "assistant").map((line) => line["id"]);
    expect([call1.metadata["entryId"], call2.metadata["entryId"]]).toEqual(assistantIds);
    expect(trace.pagination.observations).toEqual({ total: 3, offset: 0, limit: 200, nextOffset: null, truncated: false });
    expect(trace.readTruncation).toBeUndefined();
    expect(trace.scores).toEqual([]);

    // A person's verdict on the answer is a score of this run; clearing it removes the score.
    const feedbackBody = {
      cwd: suite.dirs.cwd,
      sessionPath: file,
      entryId: assistantIds[1],
      label: "unhelpful",
      feedbackText: "Too short",
    };
    expect((await call(app, "POST", `/api/pi/sessions/${id}/feedback`, feedbackBody)).status).toBe(200);
    const scored = await detail(app, summary.id);
    expect(scored.scores).toEqual([
      {
        id: `rollout-feedback:${String(assistantIds[1])}`,
        traceName: "TRACE-ONE please",
        name: "rollout-feedback",
        value: 0,
        comment: "Too short",
        source: "ANNOTATION",
        timestamp: expect.any(String),
        dataType: "BOOLEAN",
      },
    ]);
    expect(scored.revision).toBeGreaterThan(trace.revision);
    expect(scored.pagination.scores).toEqual({ total: 1, offset: 0, limit: 200, nextOffset: null, truncated: false });
    expect((await call(app, "POST", `/api/pi/sessions/${id}/feedback`, { ...feedbackBody, label: "" })).status).toBe(200);
    expect((await detail(app, summary.id)).scores).toEqual([]);
  });

  it("lists with filters, search, paging and sort; bookmarks publish trace_updated", async () => {
    const app = await makeApp(TURNS);
    const socket = EventCollector.connect(`${await listenForEvents(app)}?sessionId=`);
    sockets.push(socket);
    await socket.opened;
    const first = await newSession(app);
    await prompt(app, first, "TRACE-ONE alpha", 4);
    const second = await newSession(app);
    await prompt(app, second, "TRACE-TWO beta", 2);
    await socket.until(() => socket.messages.filter((m) => m.type === "trace_updated").length >= 2, "two trace updates");

    const all = await list(app);
    expect(all.total).toBe(2);
    expect(all.traces.map((t) => t.name)).toEqual(["TRACE-TWO beta", "TRACE-ONE alpha"]);
    expect((await list(app, `?sessionId=${first}`)).traces.map((t) => t.name)).toEqual(["TRACE-ONE alpha"]);
    expect((await list(app, "?sessionId=")).total).toBe(2);
    expect((await list(app, `?cwd=${encodeURIComponent(all.traces[0]!.metadata.cwd!)}`)).total).toBe(2);
    expect((await list(app, "?cwd=/elsewhere")).total).toBe(0);
    expect((await list(app, "?status=completed")).total).toBe(2);
    expect((await list(app, "?status=error")).total).toBe(0);
    // Case-insensitive substring terms, every term somewhere (input, output, name, session id…).
    expect((await list(app, "?q=trace-two")).traces.map((t) => t.name)).toEqual(["TRACE-TWO beta"]);
    expect((await list(app, "?q=ALPHA%20done")).traces.map((t) => t.name)).toEqual(["TRACE-ONE alpha"]);
    expect((await list(app, "?q=alpha%20second")).total).toBe(0);
    expect((await list(app, "?q=traced-output")).total).toBe(0); // tool output is an observation: not searched
    expect((await list(app, `?q=${second.slice(-12).toUpperCase()}`)).traces.map((t) => t.sessionId)).toEqual([second]);
    const page2 = await list(app, "?limit=1&page=2");
    expect(page2).toMatchObject({ total: 2, page: 2, limit: 1 });
    expect(page2.traces.map((t) => t.name)).toEqual(["TRACE-ONE alpha"]);
    expect((await list(app, "?limit=5000")).limit).toBe(200);
    expect((await list(app, "?page=9")).traces).toEqual([]);

    const target = all.traces[1]!;
    const before = socket.messages.length;
    const patched = await call(app, "PATCH", `/api/pi/traces/${target.id}`, { bookmarked: true });
    expect(patched.status).toBe(200);
    const trace = (patched.body as { trace: Trace }).trace;
    expect(trace.bookmarked).toBe(true);
    expect(trace.revision).toBe(target.revision + 1);
    expect(trace.observations.length).toBe(3);
    const isBookmarkNotice = (m: { type: string; data?: unknown }): boolean =>
      m.type === "trace_updated" &&
      (m.data as { revision: number; traceId: string }).revision === target.revision + 1 &&
      (m.data as { traceId: string }).traceId === target.id;
    await socket.until(() => socket.messages.slice(before).some(isBookmarkNotice), "the bookmark's trace_updated");
    expect(socket.messages.slice(before).find(isBookmarkNotice)?.data).toEqual({
      traceId: target.id,
      sessionId: first,
      revision: target.revision + 1,
      activeSessionId: first,
    });
    expect((await list(app)).traces.find((t) => t.id === target.id)?.bookmarked).toBe(true);
  });

  it("capture off keeps the stored traces and skips new runs; on again captures; trace_config is broadcast", async () => {
    const app = await makeApp(TURNS);
    const socket = EventCollector.connect(`${await listenForEvents(app)}?sessionId=`);
    sockets.push(socket);
    await socket.opened;
    expect((await call(app, "GET", "/api/pi/traces/config")).body).toEqual({ enabled: true });
    const id = await newSession(app);
    await prompt(app, id, "TRACE-TWO first", 2);
    const off = await call(app, "PUT", "/api/pi/traces/config", { enabled: false });
    expect(off).toEqual({ status: 200, body: { enabled: false } });
    await socket.until(() => socket.messages.some((m) => m.type === "trace_config"), "trace_config");
    expect(socket.messages.find((m) => m.type === "trace_config")?.data).toEqual({ enabled: false });
    expect((await call(app, "GET", "/api/pi/traces/config")).body).toEqual({ enabled: false });
    await prompt(app, id, "TRACE-OFF now", 4);
    expect((await list(app)).traces.map((t) => t.name)).toEqual(["TRACE-TWO first"]);
    await call(app, "PUT", "/api/pi/traces/config", { enabled: true });
    await prompt(app, id, "TRACE-BACK again", 6);
    expect((await list(app)).traces.map((t) => t.name)).toEqual(["TRACE-BACK again", "TRACE-TWO first"]);
  });

  it("a trace with more observations than a page: pages follow nextOffset within the 8 MiB read budget, fields clipped to 32 KiB", async () => {
    const app = await makeApp([]);
    const db = (await app.leyline.readSide.database()).db;
    const big = "x".repeat(40 * 1024);
    const observations: ObservationRecord[] = Array.from({ length: 260 }, (_, i) =>
      observationRecord({
        id: `obs-${String(i).padStart(3, "0")}`,
        type: "TOOL",
        name: "read",
        startMs: 1_000 + i,
        endMs: 1_001 + i,
        status: "completed",
        input: big,
        output: big,
        toolCallId: `call-${i}`,
      }),
    );
    const owner = {
      sessionId: "big-session",
      sessionFile: null,
      sessionName: null,
      cwd: null,
      parentSessionFile: null,
      parent: { traceId: null, sessionId: null, toolCallId: null },
      agent: null,
      tags: [],
    };
    const defaults = { environment: "default", userId: "u", version: "0" };
    await applyCapture(db, owner, { traceId: "big-trace", trace: { startMs: 1_000, status: "running", name: "big" } }, defaults, 1_000);
    for (let i = 0; i < observations.length; i += 20) {
      await applyCapture(db, owner, { traceId: "big-trace", observations: observations.slice(i, i + 20) }, defaults, 2_000);
    }
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const trace = await detail(app, "big-trace", `?observationOffset=${offset}`);
      pages++;
      const page = trace.pagination.observations;
      expect(page.total).toBe(260);
      expect(page.offset).toBe(offset);
      expect(trace.observations.length).toBeGreaterThan(0);
      expect(trace.observations.length).toBeLessThan(200); // the budget stops each page before the limit
      const bytes = Buffer.byteLength(JSON.stringify(trace.observations));
      expect(bytes).toBeLessThanOrEqual(8 * 1024 * 1024);
      for (const observation of trace.observations) {
        expect(observation.input!.length).toBe(32 * 1024);
        expect(observation.readTruncation).toEqual({ fields: ["input", "output"], fieldBytes: { input: 40 * 1024, output: 40 * 1024 } });
      }
      expect(page.truncated).toBe(true);
      expect(Boolean(trace.readTruncation?.observations)).toBe(page.nextOffset !== null);
      seen.push(...trace.observations.map((o) => o.id));
      offset = page.nextOffset;
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual(observations.map((o) => o.id));
    const small = await detail(app, "big-trace", "?observationOffset=250&observationLimit=5");
    expect(small.observations.map((o) => o.id)).toEqual(["obs-250", "obs-251", "obs-252", "obs-253", "obs-254"]);
    expect(small.pagination.observations).toMatchObject({ nextOffset: 255, limit: 5 });
    expect((await detail(app, "big-trace", "?observationLimit=900")).pagination.observations.limit).toBe(200);
  });
});

describe("OTLP export", () => {
  it("with OTEL_EXPORTER_OTLP_ENDPOINT set, a run's spans reach a local OTLP receiver with the GenAI conventions", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const app = await makeApp(TURNS, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
      const id = await newSession(app);
      await prompt(app, id, "TRACE-ONE exported", 4);
      await suite.closeApps(); // shutdown flushes the export
      const spans = receiver.spans();
      const root = spans.find((span) => span.name.startsWith("invoke_agent"))!;
      expect(root.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": id });
      const chats = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
      expect(chats).toHaveLength(2);
      for (const chat of chats) {
        expect(chat.traceId).toBe(root.traceId);
        expect(chat.parentSpanId).toBe(root.spanId);
        expect(chat.attributes["gen_ai.usage.output_tokens"]).toEqual(expect.any(Number));
      }
      const tool = spans.find((span) => span.attributes["gen_ai.operation.name"] === "execute_tool")!;
      expect(tool.attributes["gen_ai.tool.name"]).toBe("bash");
      expect(tool.parentSpanId).toBe(chats.find((chat) => chat.startMs <= tool.startMs)!.spanId);
      // No prompt or output text leaves the machine by default.
      expect(JSON.stringify(receiver.received.map((r) => r.json))).not.toContain("traced-output");
    } finally {
      await receiver.close();
    }
  });
});

describe("trace errors", () => {
  it("answers every status of the spec", async () => {
    const app = await makeApp([]);
    const expectError = async (
      method: "GET" | "PUT" | "PATCH" | "DELETE" | "POST",
      url: string,
      status: number,
      error: string,
      payload?: unknown,
    ) => {
      const res = await app.inject({
        method,
        url,
        ...(payload !== undefined ? { payload: payload as string, headers: { "content-type": "application/json" } } : {}),
      });
      expect({ url, status: res.statusCode, body: res.json() }).toEqual({ url, status, body: { error } });
    };
    await expectError("GET", "/api/pi/traces?page=0", 400, "page must be a positive integer");
    await expectError("GET", "/api/pi/traces?page=1.5", 400, "page must be a positive integer");
    await expectError("GET", "/api/pi/traces?limit=abc", 400, "limit must be a positive integer");
    await expectError("GET", `/api/pi/traces?page=${Number.MAX_SAFE_INTEGER}&limit=200`, 400, "page must be a positive integer");
    await expectError("GET", "/api/pi/traces?status=done", 400, "Invalid trace status");
    await expectError("GET", `/api/pi/traces?q=${"a".repeat(2049)}`, 400, "Invalid trace request");
    await expectError("GET", `/api/pi/traces?q=${Array.from({ length: 33 }, (_, i) => `t${i}`).join("%20")}`, 400, "Invalid trace request");
    await expectError("GET", `/api/pi/traces?sessionId=${"s".repeat(4097)}`, 400, "Invalid trace request");
    await expectError("GET", "/api/pi/traces?status=running&status=error", 400, "Invalid trace request");
    await expectError("GET", "/api/pi/traces/bad%20id", 400, "Invalid trace identifier");
    await expectError("GET", `/api/pi/traces/${"a".repeat(161)}`, 400, "Invalid trace identifier");
    await expectError("GET", "/api/pi/traces/missing-trace", 404, "Trace not found");
    await expectError("GET", "/api/pi/traces/t?observationOffset=-1", 400, "observationOffset must be a non-negative integer");
    await expectError("GET", "/api/pi/traces/t?observationLimit=0", 400, "observationLimit must be a positive integer");
    await expectError("GET", "/api/pi/traces/t?scoreOffset=x", 400, "scoreOffset must be a non-negative integer");
    await expectError("GET", "/api/pi/traces/t?scoreLimit=-2", 400, "scoreLimit must be a positive integer");
    await expectError("PATCH", "/api/pi/traces/missing-trace", 404, "Trace not found", JSON.stringify({ bookmarked: true }));
    await expectError("PATCH", "/api/pi/traces/t", 400, "bookmarked must be a boolean", JSON.stringify({ bookmarked: "yes" }));
    await expectError("PATCH", "/api/pi/traces/t", 400, "bookmarked must be a boolean", JSON.stringify({}));
    await expectError("PATCH", "/api/pi/traces/t", 400, "Invalid trace request", "{not json");
    await expectError("PATCH", "/api/pi/traces/t", 400, "Invalid trace request", JSON.stringify({ bookmarked: true, name: "x" }));
    await expectError("PUT", "/api/pi/traces/config", 400, "enabled must be a boolean", JSON.stringify({ enabled: 1 }));
    await expectError("PUT", "/api/pi/traces/config", 400, "Invalid trace request", "[1");
    await expectError("DELETE", "/api/pi/traces/some-trace", 405, "Method not allowed");
    await expectError("POST", "/api/pi/traces", 405, "Method not allowed");
    await expectError("GET", "/api/pi/traces/a/b", 404, "Not found");
    await expectError("GET", "/api/pi/traces/%E0%A4%A", 400, "Invalid trace request");
    await expectError("PATCH", "/api/pi/traces/config", 405, "Method not allowed", JSON.stringify({ bookmarked: true }));
    await expectError("DELETE", "/api/pi/traces/config", 405, "Method not allowed");
    await expectError("PUT", "/api/pi/traces/config", 400, "Invalid trace request", JSON.stringify({ enabled: true, extra: 1 }));
  });

  it("answers 503 when storage fails and after shutdown; a config read failure is 200 with enabled false", async () => {
    const app = await makeApp([]);
    const db = (await app.leyline.readSide.database()).db;
    await db.schema.dropTable("trace_settings").execute();
    await db.schema.dropTable("traces").execute();
    const config = await call(app, "GET", "/api/pi/traces/config");
    expect(config).toEqual({
      status: 200,
      body: { enabled: false, error: "Could not read or save trace settings. Check the backend log." } satisfies TraceConfig,
    });
    expect(await call(app, "PUT", "/api/pi/traces/config", { enabled: true })).toEqual({
      status: 503,
      body: { error: "Could not read or save trace settings. Check the backend log." },
    });
    expect(await call(app, "GET", "/api/pi/traces")).toEqual({
      status: 503,
      body: { error: "Tracing is unavailable. Check the backend log." },
    });
    await app.leyline.traces.close();
    expect(await call(app, "GET", "/api/pi/traces/x")).toEqual({ status: 503, body: { error: "Tracing is shutting down." } });
    expect(fs.existsSync(suite.dirs.dataDir)).toBe(true);
  });
});
