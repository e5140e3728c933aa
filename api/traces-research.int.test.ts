/**
 * Trace capture of a research run (deep-research "Research workers": the lead and its workers are captured
 * independently of any view; child usage is counted once). A listening app with a real runtime host (in-process
 * workers), the bundled research and subagent extensions, the scripted faux provider: the lead plans three
 * threads and runs three researchers in parallel, then reports.
 * - each researcher's run is a trace of its own child session whose parent is the lead's trace, session and the
 *   `subagent` tool call (anchored on the lead's TOOL observation);
 * - every trace's totals equal the usage of its own session file's assistant messages, exactly;
 * - the lead's detail adds its descendants once: total = the sum over the four files; the sum of all traces'
 *   totals is the same number (no child counted twice).
 */
import fs from "node:fs";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FauxTurn } from "../adapters/runtime-protocol/faux-script.ts";
import { jsonlLines } from "../adapters/runtime-host/runtime-host-test-support.ts";
import { addUsage, ZERO_USAGE } from "../domain/traces/trace-records.ts";
import type { Trace, TraceList, TraceUsage } from "../domain/traces/trace-types.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { call, listeningRuntimeApp, type ListeningRuntimeApp, type RuntimeApiDirs } from "./runtime-api.fixture.ts";

function result(threadId: string, url: string): string {
  const sources = [{ url, title: threadId, publisher: "", publishedAt: "", kind: "article", claim: "c", evidence: "e" }];
  return `Notes for ${threadId}.\n\n<research_result>${JSON.stringify({ threadId, title: threadId, summary: `About ${threadId}.`, sources })}</research_result>`;
}

const LEAD = "Investigate OKAPI";
const TURNS: FauxTurn[] = [
  {
    match: LEAD,
    toolCalls: [
      {
        name: "research_update",
        arguments: {
          action: "plan",
          strategy: "three angles",
          threads: [
            { id: "t1", title: "One", task: "ONE task" },
            { id: "t2", title: "Two", task: "TWO task" },
            { id: "t3", title: "Three", task: "THREE task" },
          ],
        },
      },
    ],
  },
  {
    match: LEAD,
    toolCalls: [
      {
        name: "subagent",
        arguments: {
          tasks: [
            { agent: "researcher", task: "t1: ONE task" },
            { agent: "researcher", task: "t2: TWO task" },
            { agent: "researcher", task: "t3: THREE task" },
          ],
        },
      },
    ],
  },
  {
    match: LEAD,
    toolCalls: [{ name: "research_update", arguments: { action: "phase", phase: "report", title: "Okapi", citedSourceIds: [1, 2, 3] } }],
  },
  { match: LEAD, text: "# Okapi\n\nOne [1](https://one.example/), two [2](https://two.example/), three [3](https://three.example/)." },
  // t2 reads first, so a researcher has a tool of its own in its trace.
  { match: "t1: ONE task", text: result("t1", "https://one.example/") },
  { match: "t2: TWO task", toolCalls: [{ name: "bash", arguments: { command: "echo reading" } }] },
  { match: "t2: TWO task", text: result("t2", "https://two.example/") },
  { match: "t3: THREE task", text: result("t3", "https://three.example/") },
];

let served: ListeningRuntimeApp;
let dirs: RuntimeApiDirs;
let app: FastifyInstance;

beforeAll(async () => {
  served = await listeningRuntimeApp("leyline-trace-research-", { turns: TURNS });
  ({ dirs, app } = served);
}, 60_000);

afterAll(async () => {
  await served?.close();
});

/** The usage of a session file's assistant messages. */
function fileUsage(file: string): TraceUsage {
  let usage = ZERO_USAGE;
  for (const line of jsonlLines(file)) {
    const message = line["message"] as
      | {
          role?: string;
          usage?: { input: number; output: number; cacheRead: number; cacheWrite: number; totalTokens: number; cost: { total: number } };
        }
      | undefined;
    if (line["type"] !== "message" || message?.role !== "assistant" || message.usage === undefined) continue;
    const u = message.usage;
    usage = addUsage(usage, {
      inputTokens: u.input + u.cacheRead + u.cacheWrite,
      outputTokens: u.output,
      totalTokens: u.totalTokens,
      cost: u.cost.total,
    });
  }
  return usage;
}

function totalsOf(trace: { inputTokens: number; outputTokens: number; totalTokens: number; cost: number }): TraceUsage {
  return { inputTokens: trace.inputTokens, outputTokens: trace.outputTokens, totalTokens: trace.totalTokens, cost: trace.cost };
}

async function waitUntil(check: () => Promise<boolean>, label: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("trace capture of a research run", () => {
  it(
    "the lead and three researchers: parent links, and totals equal to the runs' usage with no child counted twice",
    { timeout: 180_000 },
    async () => {
      const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd, kind: "research" });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const leadId = (created.body["active"] as Active).id;
      await app.leyline.host.require(leadId).runToCompletion(LEAD);
      const leadFile = app.leyline.host.require(leadId).sessionFile!;

      let list: TraceList = { traces: [], total: 0, page: 1, limit: 50 };
      await waitUntil(async () => {
        await app.leyline.traces.settled();
        list = (await call(app, "GET", "/api/pi/traces")).body as unknown as TraceList;
        return list.total === 4 && list.traces.every((trace) => trace.status !== "running");
      }, "four finished traces");

      const lead = list.traces.find((trace) => trace.sessionId === leadId)!;
      expect(lead).toMatchObject({ name: LEAD, status: "completed", tags: ["research"] });
      const children = list.traces.filter((trace) => trace.sessionId !== leadId);
      expect(children).toHaveLength(3);

      // The lead's subagent call is the anchor of every child.
      const leadDetail = ((await call(app, "GET", `/api/pi/traces/${lead.id}`)).body as { trace: Trace }).trace;
      const subagentTool = leadDetail.observations.find((o) => o.type === "TOOL" && o.name === "subagent")!;
      expect(subagentTool).toBeDefined();
      const toolCallId = subagentTool.metadata["toolCallId"];
      for (const child of children) {
        expect(child.metadata.parent).toEqual({ traceId: lead.id, sessionId: leadId, toolCallId });
        expect(child.metadata.parentSessionFile).toBe(leadFile);
        expect(child.tags).toEqual(["subagent", "researcher"]);
        expect(child.name).toMatch(/^researcher: t[123]: /);
        expect(child.status).toBe("completed");
        // The worker's marker keeps the trace anchor (deep-research: "Worker markers retain available parent trace and tool anchors").
        const marker = jsonlLines(child.metadata.sessionFile!).find((line) => line["customType"] === "leyline-subagent");
        expect(marker?.["data"]).toMatchObject({ parentSessionId: leadId, toolCallId, parentTraceId: lead.id });
      }
      expect(leadDetail.metadata.children.map((c) => c.traceId).sort()).toEqual(children.map((c) => c.id).sort());
      for (const entry of leadDetail.metadata.children) expect(entry.toolCallId).toBe(toolCallId);

      // Each trace counts its own file's usage, exactly.
      const leadUsage = fileUsage(leadFile);
      expect(leadUsage.totalTokens).toBeGreaterThan(0);
      expect(totalsOf(lead)).toEqual(leadUsage);
      let descendants = ZERO_USAGE;
      for (const child of children) {
        const file = child.metadata.sessionFile!;
        expect(fs.existsSync(file)).toBe(true);
        const usage = fileUsage(file);
        expect(usage.totalTokens).toBeGreaterThan(0);
        expect(totalsOf(child)).toEqual(usage);
        descendants = addUsage(descendants, usage);
      }
      // The researcher that read has its tool in its own trace, never in the lead's.
      const reader = children.find((child) => child.name.includes("t2:"))!;
      const readerDetail = ((await call(app, "GET", `/api/pi/traces/${reader.id}`)).body as { trace: Trace }).trace;
      expect(readerDetail.observations.filter((o) => o.type === "TOOL").map((o) => o.name)).toEqual(["bash"]);
      expect(leadDetail.observations.filter((o) => o.type === "TOOL").map((o) => o.name)).toEqual([
        "research_update",
        "subagent",
        "research_update",
      ]);

      // The lead's detail adds each child once; summing every trace gives the same total.
      expect(leadDetail.metadata.usage).toEqual({ own: leadUsage, descendants, total: addUsage(leadUsage, descendants) });
      const everyTrace = list.traces.reduce((sum, trace) => addUsage(sum, totalsOf(trace)), ZERO_USAGE);
      expect(everyTrace).toEqual(leadDetail.metadata.usage.total);
    },
  );
});
