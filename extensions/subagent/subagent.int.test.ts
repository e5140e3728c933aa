/**
 * The bundled subagent extension against the real execution route: a listening app with a real runtime host
 * (in-process workers), the scripted faux provider, the bundled research and subagent extensions loaded in
 * every runtime (parent and children), LEYLINE_API_URL pointing at the app.
 *
 * - A research session's lead plans three threads and runs three researchers in parallel: the threads go
 *   queued → running → done / error with child-session links, their sources are registered automatically
 *   (merged by canonical key, at most 20 per result with the rest reported), a worker without a result block
 *   fails its thread, the state moves plan → gather, and a valid report completes the research.
 * - Five file-defined agents in one parallel call: never more than four children at once (the first four wait
 *   for each other in bash, so four do run together), the fifth after a slot frees.
 * - Unknown agents and bad modes are tool errors.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { jsonlLines, recordHost } from "../../adapters/runtime-host/runtime-host-test-support.ts";
import { call, runtimeApiDirs, runtimeApp, type RuntimeApiDirs } from "../../api/runtime-api.fixture.ts";
import { parseResearchEvent } from "../../domain/research/research-event.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import type { ResearchState } from "../../domain/research/research-types.ts";
import type { Active } from "../../domain/runtime/runtime-types.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import { activeBranch, addEntry, emptySessionTree } from "../../domain/session-tree.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import { SUBAGENT_CUSTOM_TYPE } from "../../domain/session-summary.ts";

const URL_A = "https://example.org/alpha";
const URL_C = "https://example.org/gamma";

function researchResult(threadId: string, title: string, summary: string, sources: Array<Record<string, unknown>>): string {
  return `Findings for ${threadId} in prose.\n\n<research_result>${JSON.stringify({ threadId, title, summary, sources })}</research_result>`;
}

const extraSources = Array.from({ length: 19 }, (_, i) => ({
  url: `https://extra.example/${i}`,
  title: `Extra ${i}`,
  publisher: "",
  publishedAt: "",
  kind: "article",
  claim: "c",
  evidence: "e",
}));

const LEAD = "Investigate ZEBRA";

/** Waits (read-only) until the research session's file records thread t1 as done. */
const AFTER_T1_DONE = `for n in $(seq 1 1200); do grep -rqsF '"id":"t1","status":"done"' "$PI_CODING_AGENT_DIR/sessions" && exit 0; sleep 0.05; done; echo t1-not-done; exit 1`;
const TURNS: FauxTurn[] = [
  // the lead (its latest user text stays the prompt for the whole run)
  {
    match: LEAD,
    toolCalls: [
      {
        name: "research_update",
        arguments: {
          action: "plan",
          strategy: "three angles",
          threads: [
            { id: "t1", title: "Origins", task: "ORIGINS task" },
            { id: "t2", title: "Today", task: "TODAY task" },
            { id: "t3", title: "Broken", task: "BROKEN task" },
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
            { agent: "researcher", task: "t1: ORIGINS task" },
            { agent: "researcher", task: "t2: TODAY task", model: "faux/faux-2" },
            { agent: "researcher", task: "t3: BROKEN task" },
          ],
        },
      },
    ],
  },
  {
    match: LEAD,
    toolCalls: [
      { name: "research_update", arguments: { action: "phase", phase: "report", title: "Zebra report", citedSourceIds: [1, 2, 3] } },
    ],
  },
  { match: LEAD, text: `# Zebra report\n\nOrigins [1](${URL_A}), notes [2](docs/notes.md), today [21](${URL_C}).` },
  // the researchers (matched by their task text)
  {
    match: "t1: ORIGINS task",
    text: researchResult("t1", "Origins", "Zebras began long ago.", [
      { url: URL_A, title: "Alpha", publisher: "Ex", publishedAt: "2020-01-01", kind: "article", claim: "old", evidence: "quote" },
      { path: "./docs/notes.md", title: "Notes", publisher: "", publishedAt: "", kind: "file", claim: "n", evidence: "e" },
      ...extraSources,
    ]),
  },
  // t2 reports after t1 registered its sources (read-only bash polls the parent's file for t1's done event):
  // ledger ids follow registration order, and the report below cites t1's sources as 1 and 2 and t2's as 21.
  {
    match: "t2: TODAY task",
    toolCalls: [{ name: "bash", arguments: { command: AFTER_T1_DONE } }],
  },
  {
    match: "t2: TODAY task",
    text: researchResult("t2", "Today", "Zebras are fine.", [
      { url: `${URL_A}/#section`, title: "Alpha again", publisher: "Ex", publishedAt: "", kind: "article", claim: "", evidence: "more" },
      { url: URL_C, title: "Gamma", publisher: "Gx", publishedAt: "", kind: "article", claim: "now", evidence: "e" },
    ]),
  },
  { match: "t3: BROKEN task", text: "I forgot the result block." },
  // the parallel limit
  ...[1, 2, 3, 4, 5].flatMap((index): FauxTurn[] => [
    { match: `BARRIER-${index}`, toolCalls: [{ name: "bash", arguments: { command: barrierCommand(index) } }] },
    { match: `BARRIER-${index}`, text: `barrier ${index} done` },
  ]),
  {
    match: "RUN FIVE",
    toolCalls: [
      { name: "subagent", arguments: { tasks: [1, 2, 3, 4, 5].map((index) => ({ agent: "helper", task: `BARRIER-${index}` })) } },
    ],
  },
  { match: "RUN FIVE", text: "Five done." },
  { match: "RUN UNKNOWN", toolCalls: [{ name: "subagent", arguments: { agent: "nobody", task: "x" } }] },
  {
    match: "RUN UNKNOWN",
    toolCalls: [{ name: "subagent", arguments: { agent: "helper", task: "x", tasks: [{ agent: "helper", task: "y" }] } }],
  },
  { match: "RUN UNKNOWN", text: "Unknown done." },
];

/** Each child records itself, then waits until four children did (the fifth finds four already there). */
function barrierCommand(index: number): string {
  return `mkdir -p barrier && touch barrier/${index} && for n in $(seq 1 1200); do [ "$(ls barrier | wc -l)" -ge 4 ] && echo released && exit 0; sleep 0.05; done; echo barrier-timeout; exit 1`;
}

let dirs: RuntimeApiDirs;
let app: FastifyInstance;
let baseUrl = "";
let previousAgentDir: string | undefined;

beforeAll(async () => {
  dirs = runtimeApiDirs("leyline-subagent-ext-");
  previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
  process.env["PI_CODING_AGENT_DIR"] = dirs.agentDir;
  fs.mkdirSync(path.join(dirs.agentDir, "agents"), { recursive: true });
  fs.writeFileSync(path.join(dirs.agentDir, "agents", "helper.md"), "---\nname: helper\ndescription: A helper\n---\nYou help.\n");
  // A file claiming the reserved name is never used.
  fs.writeFileSync(
    path.join(dirs.agentDir, "agents", "researcher.md"),
    "---\nname: researcher\ndescription: impostor\nmodel: faux/faux-2\n---\nIMPOSTOR PROMPT\n",
  );
  app = await runtimeApp(dirs, { turns: TURNS, host: { apiUrl: () => baseUrl } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("not listening");
  baseUrl = `http://127.0.0.1:${address.port}`;
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
  else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
  dirs?.cleanup();
});

function branchOf(file: string): SessionEntry[] {
  const tree = emptySessionTree();
  for (const record of decodeSessionText(fs.readFileSync(file, "utf8")).records) {
    if (record.kind === "entry") addEntry(tree, record.entry);
  }
  return activeBranch(tree);
}

function researchOf(file: string, sessionId: string): ResearchState {
  const state = researchStateFromEntries(sessionId, branchOf(file));
  if (state === null) throw new Error("no research state");
  return state;
}

function toolResults(file: string, toolName: string): Array<{ isError: boolean; text: string; details: unknown }> {
  return branchOf(file).flatMap((entry) => {
    if (entry.type !== "message" || entry.message.role !== "toolResult" || entry.message.toolName !== toolName) return [];
    return [
      {
        isError: entry.message.isError,
        text: entry.message.content.map((c) => (c.type === "text" ? c.text : "")).join(""),
        details: entry.message.details,
      },
    ];
  });
}

async function open(kind: "session" | "research", cwd: string): Promise<{ id: string; file: () => string }> {
  const created = await call(app, "POST", "/api/pi/sessions", { cwd, kind });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = (created.body["active"] as Active).id;
  return { id, file: () => app.leyline.host.require(id).sessionFile ?? "" };
}

describe("subagent extension (real execution route)", () => {
  it("runs researchers in a research session: threads, automatic source registration, errors, report", { timeout: 180_000 }, async () => {
    const { id, file } = await open("research", dirs.cwd);
    await app.leyline.host.require(id).runToCompletion(LEAD);
    const state = researchOf(file(), id);

    expect(state).toMatchObject({
      status: "complete",
      phase: "report",
      objective: LEAD,
      reportTitle: "Zebra report",
      strategy: "three angles",
    });
    const [t1, t2, t3] = state.threads;
    expect(t1).toMatchObject({ id: "t1", status: "done", summary: "Zebras began long ago.", error: "" });
    expect(t2).toMatchObject({ id: "t2", status: "done", summary: "Zebras are fine.", error: "" });
    expect(t3).toMatchObject({ id: "t3", status: "error", sourceIds: [] });
    expect(t3?.error).toContain("no valid research_result block");
    for (const thread of [t1, t2, t3]) {
      expect(thread?.startedAt).toBeGreaterThan(0);
      expect(thread?.completedAt).toBeGreaterThanOrEqual(thread?.startedAt ?? Infinity);
      expect(thread?.childSession?.path).toMatch(/\.jsonl$/);
      expect(fs.existsSync(thread?.childSession?.path ?? "")).toBe(true);
    }

    // t1: 21 sources → the first 20 registered (ids 1..20); t2: Alpha merged into 1, Gamma new (21)
    expect(t1?.sourceIds).toHaveLength(20);
    expect(state.sources).toHaveLength(21);
    const alpha = state.sources.find((s) => s.url === URL_A);
    expect(alpha).toMatchObject({ id: 1, threadIds: ["t1", "t2"], title: "Alpha", evidence: "quote" });
    const gamma = state.sources.find((s) => s.url === URL_C);
    expect(gamma?.id).toBe(21);
    expect(t2?.sourceIds).toEqual([1, 21]);
    // the state moved plan → gather when the researchers started; the rejected source went into a note
    const phases = branchOf(file()).flatMap((entry) => {
      const event = parseResearchEvent(entry);
      return event?.kind === "phase" ? [[event.phase, event.note ?? ""]] : [];
    });
    expect(phases).toEqual([
      ["gather", ""],
      ["gather", "Thread t1: 1 source not registered (source #21: only the first 20 sources of one result are registered)"],
      ["report", ""],
    ]);

    // the lead read the ids, the rejection and the failure in the tool result
    const [result] = toolResults(file(), "subagent");
    expect(result?.isError).toBe(false);
    expect(result?.text).toContain("Parallel: 2/3 succeeded");
    expect(result?.text).toContain(`[1] ${URL_A} | Alpha`);
    expect(result?.text).toContain("source #21: only the first 20 sources of one result are registered");
    expect(result?.text).toContain("[researcher t3] failed");
    expect(result?.text).toContain("Findings for t1 in prose.");
    expect(result?.text).not.toContain("<research_result>{");

    // children: researcher marker (read-only bash), the parent's tool call, model inheritance and the task's model
    const children = [t1, t2, t3].map((thread) => jsonlLines(thread?.childSession?.path ?? ""));
    for (const lines of children) {
      const marker = lines.find((line) => line["customType"] === SUBAGENT_CUSTOM_TYPE)?.["data"];
      expect(marker).toMatchObject({ agent: "researcher", readOnlyBash: true, parentSessionId: id });
    }
    const modelOf = (lines: Array<Record<string, unknown>>): unknown => lines.find((line) => line["type"] === "model_change")?.["modelId"];
    expect(modelOf(children[0] ?? [])).toBe("faux-1");
    expect(modelOf(children[1] ?? [])).toBe("faux-2");
    const details = result?.details as { results: Array<{ model?: string; threadId?: string }> };
    expect(details.results.map((r) => [r.threadId, r.model])).toEqual([
      ["t1", "faux/faux-1"],
      ["t2", "faux/faux-2"],
      ["t3", "faux/faux-1"],
    ]);

    // the valid report completed the research
    expect(state.reportEntryId).toBe(
      branchOf(file())
        .filter((e) => e.type === "message")
        .at(-1)?.id,
    );
    expect(state.citedSourceIds).toEqual([1, 2, 21]);

    // Leyline's fork route at the report message: the fork replays the research bound to its own id and
    // revalidates the retained report (its report event was after the message, so it is not retained)
    const forked = await call(app, "POST", `/api/pi/sessions/${id}/fork`, { entryId: state.reportEntryId });
    expect(forked.status, JSON.stringify(forked.body)).toBe(200);
    const forkId = (forked.body["active"] as Active).id;
    expect(forkId).not.toBe(id);
    const forkState = researchOf(app.leyline.host.require(forkId).sessionFile ?? "", forkId);
    const { sessionId: _s, lastEventId: _l, updatedAt: _u, completedAt: _c, ...same } = state;
    expect(forkState).toMatchObject({ ...same, sessionId: forkId });
  });

  it("runs at most four children at once; the fifth waits for a free slot", { timeout: 180_000 }, async () => {
    const host = app.leyline.host;
    const cwd = path.join(dirs.root, "five");
    fs.mkdirSync(cwd, { recursive: true });
    const { id, file } = await open("session", cwd);
    const recorder = recordHost(host);
    await host.require(id).runToCompletion("RUN FIVE");
    const [result] = toolResults(file(), "subagent");
    expect(result?.text, result?.text).toContain("Parallel: 5/5 succeeded");
    const details = result?.details as { results: Array<{ childSession?: { id: string }; output: string }> };
    const childIds = new Set(details.results.map((r) => r.childSession?.id ?? ""));
    expect(childIds.size).toBe(5);
    const atOnce = recorder.all
      .filter((event) => event.type === "runtime_roster")
      .map((event) => (event.data(true) as { sessionIds: string[] }).sessionIds.filter((sid) => childIds.has(sid)).length);
    expect(Math.max(...atOnce), `children open at each roster change: ${JSON.stringify(atOnce)}`).toBe(4);
    expect(details.results.map((r) => r.output)).toEqual([1, 2, 3, 4, 5].map((i) => `barrier ${i} done`));
    recorder.stop();
  });

  it("an unknown agent or two modes at once is a tool error naming the available agents", { timeout: 60_000 }, async () => {
    const cwd = path.join(dirs.root, "unknown");
    fs.mkdirSync(cwd, { recursive: true });
    const { id, file } = await open("session", cwd);
    await app.leyline.host.require(id).runToCompletion("RUN UNKNOWN");
    const [unknown, twoModes] = toolResults(file(), "subagent");
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown?.text).toContain("Unknown agent: nobody. Available agents: researcher, helper");
    expect(twoModes?.text).toContain("Provide exactly one mode");
  });
});
