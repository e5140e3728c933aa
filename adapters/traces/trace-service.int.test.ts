/**
 * The trace service over a real leyline.sqlite, fed as the runtime host feeds it (writes, worker losses, runtime
 * removals): capture on and off for new runs only, runs whose worker or runtime is gone, leftovers of a previous
 * server, a write naming another session's trace, a child run raising its parent's revision, search in any case
 * and language, tags searched one by one, and reads after close.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Subject } from "rxjs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openLeylineDatabase, type LeylineDatabaseHandle } from "../sqlite/database.ts";
import { type CaptureWrite, type ObservationRecord, observationRecord } from "../../domain/traces/trace-records.ts";
import { checkListQuery } from "../../domain/traces/trace-read.ts";
import { createTraceService, type TraceNotice, type TraceRuntime, type TraceService } from "./trace-service.ts";

let dir = "";
let handle: LeylineDatabaseHandle;
let writes$: Subject<{ handle: TraceRuntime; writes: CaptureWrite[] }>;
let losses$: Subject<{ handle: { sessionId: string } }>;
let hostEvents$: Subject<{ type: string; data(full: boolean): unknown }>;
let service: TraceService;
let notices: TraceNotice[];
const clock = 1_000_000;

const silent = { warn: () => {}, error: () => {} };

function start(): TraceService {
  writes$ = new Subject();
  losses$ = new Subject();
  hostEvents$ = new Subject();
  notices = [];
  service = createTraceService({
    database: async () => handle.db,
    traceWrites$: writes$,
    workerLosses$: losses$,
    hostEvents$,
    version: "test",
    log: silent,
    now: () => clock,
  });
  service.notices$.subscribe((notice) => notices.push(notice));
  return service;
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-trace-service-"));
  handle = await openLeylineDatabase({ dataDir: dir });
  start();
  await service.settled();
});

afterEach(async () => {
  await service.close();
  await handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function runtime(sessionId: string, extra: Partial<TraceRuntime> = {}): TraceRuntime {
  return { sessionId, sessionFile: `/s/${sessionId}.jsonl`, sessionName: null, cwd: "/work", kind: "session", child: null, ...extra };
}

function startWrite(traceId: string, name = "a prompt", input = name): CaptureWrite {
  return { traceId, trace: { startMs: clock, status: "running", level: "DEFAULT", endMs: null, name, input } };
}

function endWrite(traceId: string): CaptureWrite {
  return { traceId, trace: { endMs: clock + 10, status: "completed", level: "DEFAULT", statusMessage: null } };
}

function tool(traceId: string, toolCallId: string): ObservationRecord {
  return observationRecord({ id: `${traceId}:tool:${toolCallId}`, type: "TOOL", name: "subagent", startMs: clock, toolCallId });
}

async function feed(from: TraceRuntime, ...writes: CaptureWrite[]): Promise<void> {
  writes$.next({ handle: from, writes });
  await service.settled();
}

async function list(q = "") {
  const query = checkListQuery({ q });
  if (!query.ok) throw new Error(query.error);
  return service.list(query.value);
}

const detailOf = (id: string) => service.detail(id, { observationOffset: 0, observationLimit: 200, scoreOffset: 0, scoreLimit: 200 });

describe("capture applies to new runs", () => {
  it("a run started while capture is off is never stored, even when capture comes back on mid-run", async () => {
    await service.setConfig(false);
    await feed(runtime("s1"), startWrite("off-run"));
    await service.setConfig(true);
    await feed(runtime("s1"), endWrite("off-run"));
    expect((await list()).total).toBe(0);
    await feed(runtime("s1"), startWrite("on-run"));
    expect((await list()).traces.map((t) => t.id)).toEqual(["on-run"]);
  });

  it("a run started while capture is on goes on being captured after capture is turned off", async () => {
    await feed(runtime("s1"), startWrite("kept"));
    await service.setConfig(false);
    await feed(runtime("s1"), endWrite("kept"));
    expect((await list()).traces.map((t) => [t.id, t.status])).toEqual([["kept", "completed"]]);
    expect(notices.filter((n) => n.type === "trace_config").map((n) => n.data(true))).toEqual([{ enabled: false }]);
  });
});

describe("runs whose runtime is gone", () => {
  it("a lost worker ends its session's running trace as aborted, with a trace_updated notice", async () => {
    await feed(runtime("s1"), startWrite("crashed"), { traceId: "crashed", observations: [tool("crashed", "c1")] });
    await feed(runtime("s2"), startWrite("other"));
    notices.length = 0;
    losses$.next({ handle: { sessionId: "s1" } });
    await service.settled();
    const trace = await detailOf("crashed");
    expect(trace).toMatchObject({ status: "aborted", level: "WARNING" });
    expect(trace.metadata["statusMessage"]).toBe("The runtime's worker stopped during the run");
    expect(trace.observations.map((o) => o.status)).toEqual(["aborted"]);
    expect((await detailOf("other")).status).toBe("running");
    expect(notices.map((n) => (n.data(true) as { traceId: string }).traceId)).toEqual(["crashed"]);
  });

  it("a removed runtime ends its running traces; a new server ends the ones a previous server left running", async () => {
    await feed(runtime("s1"), startWrite("removed"));
    await feed(runtime("s2"), startWrite("left"));
    hostEvents$.next({ type: "runtime_removed", data: () => ({ id: "s1" }) });
    await service.settled();
    expect((await detailOf("removed")).status).toBe("aborted");
    // A second service over the same file (a restart without close).
    const first = service;
    start();
    await service.settled();
    const left = await detailOf("left");
    expect(left.status).toBe("aborted");
    expect(left.metadata["statusMessage"]).toBe("Leyline stopped during the run");
    await first.close();
  });
});

describe("ownership and parents", () => {
  it("refuses a write that names another session's trace", async () => {
    await feed(runtime("s1"), startWrite("mine", "mine"));
    await feed(runtime("s2"), { traceId: "mine", trace: { output: "written by another session", status: "completed" } });
    const trace = await detailOf("mine");
    expect(trace.output).toBeNull();
    expect(trace.status).toBe("running");
  });

  it("a child run links to the trace whose tool call started it and raises that trace's revision when it starts and ends", async () => {
    await feed(runtime("lead"), startWrite("lead-run"), { traceId: "lead-run", observations: [tool("lead-run", "call-7")] });
    const before = (await detailOf("lead-run")).revision;
    const child = runtime("child", {
      child: {
        parentSession: "/s/lead.jsonl",
        marker: {
          version: 1,
          parentSessionId: "lead",
          parentSessionPath: "/s/lead.jsonl",
          toolCallId: "call-7",
          agent: "researcher",
          readOnlyBash: true,
        },
      },
    });
    await feed(child, startWrite("child-run", "t1: task"));
    expect((await detailOf("lead-run")).revision).toBe(before + 1);
    await feed(child, endWrite("child-run"));
    const lead = await detailOf("lead-run");
    expect(lead.revision).toBe(before + 2);
    expect(lead.metadata.children).toEqual([
      expect.objectContaining({
        traceId: "child-run",
        sessionId: "child",
        toolCallId: "call-7",
        name: "researcher: t1: task",
        status: "completed",
      }),
    ]);
    const summary = (await list()).traces.find((t) => t.id === "child-run")!;
    expect(summary.metadata.parent).toEqual({ traceId: "lead-run", sessionId: "lead", toolCallId: "call-7" });
    expect(summary.tags).toEqual(["subagent", "researcher"]);
  });
});

describe("a child reopened from its file", () => {
  it("takes its parent links from the marker in the session file when the runtime has no child options", async () => {
    await feed(runtime("lead"), startWrite("lead-run"), { traceId: "lead-run", observations: [tool("lead-run", "call-9")] });
    const file = path.join(dir, "child.jsonl");
    const marker = {
      version: 1,
      parentSessionId: "lead",
      parentSessionPath: "/s/lead.jsonl",
      toolCallId: "call-9",
      agent: "researcher",
      readOnlyBash: true,
    };
    fs.writeFileSync(
      file,
      [
        { type: "session", version: 3, id: "child", timestamp: "2026-12-07T00:00:00.000Z", cwd: "/work", parentSession: "/s/lead.jsonl" },
        { type: "custom", customType: "leyline-subagent", data: marker, id: "e1", parentId: null, timestamp: "2026-12-07T00:00:00.000Z" },
      ]
        .map((line) => JSON.stringify(line))
        .join("\n") + "\n",
    );
    await feed(runtime("child", { sessionFile: file }), startWrite("child-run", "t1: again"));
    const summary = (await list()).traces.find((t) => t.id === "child-run")!;
    expect(summary.metadata.parent).toEqual({ traceId: "lead-run", sessionId: "lead", toolCallId: "call-9" });
    expect(summary.tags).toEqual(["subagent", "researcher"]);
  });
});

describe("totals", () => {
  it("a model call rewritten several times counts once, with its last usage; tools and events never count", async () => {
    const call = (usage: number, endMs: number | null): ObservationRecord => ({
      ...tool("t", "unused"),
      id: "t:gen:1",
      type: "GENERATION",
      name: "chat m",
      toolCallId: null,
      endMs,
      status: endMs === null ? "running" : "completed",
      usage: { inputTokens: usage, outputTokens: usage / 10, totalTokens: usage * 1.1, cost: usage / 1000 },
    });
    await feed(runtime("s1"), startWrite("t"), { traceId: "t", observations: [call(0, null)] });
    await feed(runtime("s1"), { traceId: "t", observations: [call(500, clock + 1)] });
    await feed(runtime("s1"), {
      traceId: "t",
      observations: [call(500, clock + 1), { ...tool("t", "c1"), usage: { inputTokens: 9, outputTokens: 9, totalTokens: 18, cost: 9 } }],
    });
    await feed(runtime("s1"), { traceId: "t", observations: [{ ...call(200, clock + 2), id: "t:gen:2" }] });
    const summary = (await list()).traces[0]!;
    expect([summary.inputTokens, summary.outputTokens, summary.totalTokens, summary.cost]).toEqual([700, 70, 770, 0.7]);
  });
});

describe("search", () => {
  it("matches terms in any case, in any language, and tags one by one", async () => {
    await feed(runtime("s1", { kind: "research" }), startWrite("t-umlaut", "Ärger über ÉLAN"));
    await feed(runtime("s2"), startWrite("t-plain", "plain words"));
    expect((await list("ärger")).traces.map((t) => t.id)).toEqual(["t-umlaut"]);
    expect((await list("ÜBER élan")).traces.map((t) => t.id)).toEqual(["t-umlaut"]);
    expect((await list("RESEARCH")).traces.map((t) => t.id)).toEqual(["t-umlaut"]);
    // The tags' JSON punctuation is not text.
    expect((await list('"')).total).toBe(0);
    expect((await list("[")).total).toBe(0);
  });
});

describe("close", () => {
  it("stores what was received, ends running traces, and then answers that tracing is shutting down", async () => {
    writes$.next({ handle: runtime("s1"), writes: [startWrite("late")] });
    await service.close();
    const rows = await handle.db.selectFrom("traces").select(["id", "status"]).execute();
    expect(rows).toEqual([{ id: "late", status: "aborted" }]);
    await expect(list()).rejects.toThrow("Tracing is shutting down.");
    expect(await service.config()).toEqual({ enabled: false, error: "Tracing is shutting down." });
  });
});
