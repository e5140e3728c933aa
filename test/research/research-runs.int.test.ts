/**
 * A complete scripted research run through the HTTP API (issue 4's test matrix, items 1, 4 and 5): a listening
 * app with real in-process workers, the faux provider, the bundled research and subagent extensions. The run
 * is created with POST /api/pi/sessions (kind research), driven with the prompt route and followed over
 * WS /api/pi/events; it is asserted on the session file (research events), GET /api/pi/sessions
 * (ResearchSummary), GET /api/pi/sessions/:id (ResearchState, researchReport) and the export route.
 *
 * - The lead plans three threads and runs three researchers in parallel. Each researcher first waits in bash
 *   (read-only: it only lists and reads files) until the three child session files exist, so the three run at
 *   the same time; t2 then waits for t1's sources and t3 for t2's, so that the ledger ids are deterministic.
 *   Sources are duplicated across threads (merged, linked to both threads); the lead moves to synthesis, the
 *   report checkpoint and writes a report with valid citations → complete, support verdicts, export anchors.
 * - Fork in the middle (at the synthesis checkpoint) and after the report; reset to the report message (the
 *   report event is restored) and to the entry before it (back to the report phase, not complete).
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, runtimeApiSuite } from "../../api/runtime-api.fixture.ts";
import type { SessionDetail } from "../../domain/session-detail.ts";
import { researchStateFromEntries, summarizeResearch } from "../../domain/research/research.fold.ts";
import type { ResearchState } from "../../domain/research/research-types.ts";
import type { Active } from "../../domain/runtime/runtime-types.ts";
import { danglingAnchors, externalReferences } from "../../projections/session-export/export-html.fixture.ts";
import {
  branchOf,
  checkpointTurn,
  createResearchSession,
  detailResearch,
  exportHtml,
  leadCall,
  messageIdsOf,
  planTurn,
  projectDir,
  prompt,
  researcherTurns,
  researchersTurn,
  researchEventsOf,
  researchOfFile,
  researchResultText,
  sessionDetail,
  sessionFilesAtLeast,
  sessionFolderOf,
  sourceEventsAtLeast,
  sourceEventsByKey,
  startResearchApp,
  toolResultsOf,
  untilListed,
  waitCommand,
  watchSession,
  type ResearchApp,
} from "./research-run.fixture.ts";

const LEAD = "Investigate ZEBRA migration";
const THREADS = [
  { id: "t1", title: "Origins", task: "ORIGINS of the migration" },
  { id: "t2", title: "Routes", task: "ROUTES of the migration" },
  { id: "t3", title: "Threats", task: "THREATS to the migration" },
] as const;

const URL_A = "https://example.org/serengeti";
const URL_C = "https://example.org/rain";
const URL_D = "https://example.org/lions";

const REPORT = [
  "# Zebra migration",
  "",
  "Zebras cross the Serengeti every year [1](https://example.org/serengeti#crossing).",
  "",
  "The field notes map the river crossings [2](docs/notes.md).",
  "",
  "The herds follow the rain [3](https://example.org/rain/).",
  "",
  "Satellites count 1,200 calves [4](https://example.org/lions).",
].join("\n");

const suite = runtimeApiSuite("leyline-research-runs-");
let research: ResearchApp;
let app: FastifyInstance;

function turns(folder: string) {
  const allRunning = sessionFilesAtLeast(folder, 4);
  return [
    planTurn(LEAD, THREADS, "three angles"),
    researchersTurn(LEAD, THREADS),
    leadCall(LEAD, "research_update", { action: "phase", phase: "synthesize", note: "merging three threads" }),
    checkpointTurn(LEAD, "Zebra migration", [1, 2, 3, 4]),
    { match: LEAD, text: REPORT },
    ...researcherTurns(
      "t1: ORIGINS",
      researchResultText("t1", "Origins", "Zebras have migrated for ages.", [
        { url: URL_A, title: "Serengeti", claim: "Zebras cross the Serengeti every year", evidence: "a yearly crossing" },
        { path: "./docs/notes.md", title: "Field notes", claim: "The notes map the river crossings", evidence: "field notes" },
      ]),
      [waitCommand(allRunning)],
    ),
    ...researcherTurns(
      "t2: ROUTES",
      researchResultText("t2", "Routes", "The herds follow the rain.", [
        { url: `${URL_A}/#routes`, title: "Serengeti routes", claim: "", evidence: "routes" },
        { url: URL_C, title: "Rain", claim: "Herds follow the rain", evidence: "rainfall" },
      ]),
      [waitCommand(`${allRunning} && ${sourceEventsAtLeast(folder, 2)}`)],
    ),
    ...researcherTurns(
      "t3: THREATS",
      researchResultText("t3", "Threats", "Lions follow the herds.", [
        { path: "docs/notes.md", title: "Field notes again", claim: "", evidence: "more notes" },
        { url: URL_D, title: "Lions", claim: "Lions hunt at the crossings", evidence: "predation" },
      ]),
      [waitCommand(`${allRunning} && ${sourceEventsAtLeast(folder, 4)}`)],
    ),
  ];
}

let cwd = "";
let sessionId = "";
let sessionFile = "";
/** The state right after the run (before any fork or reset). */
let completed: ResearchState;

beforeAll(async () => {
  suite.setUp();
  cwd = projectDir(suite.dirs, "zebra");
  research = await startResearchApp(suite.dirs, turns(sessionFolderOf(suite.dirs.agentDir, cwd)));
  app = research.app;
}, 60_000);

afterAll(async () => {
  await app?.close();
  suite.tearDown();
});

function withoutVolatile(state: ResearchState): Omit<ResearchState, "sessionId" | "lastEventId"> {
  const { sessionId: _id, lastEventId: _last, ...rest } = state;
  return rest;
}

describe("a complete research run through the API", () => {
  it(
    "plans three threads, runs three researchers at once, merges duplicate sources and completes with a valid report",
    { timeout: 180_000 },
    async () => {
      const created = await createResearchSession(app, cwd);
      sessionId = created.id;
      sessionFile = created.file;
      const watch = await watchSession(research.eventsUrl, sessionId);
      const since = watch.mark();
      await prompt(app, sessionId, LEAD);
      const settled = await watch.settled(since, (state) => state.status !== "running", "the research completes");
      const rosters = watch.socket.messages.flatMap((message) =>
        message.type === "runtime_roster" ? [(message.data as { sessionIds: string[] }).sessionIds] : [],
      );
      await watch.close();
      expect(settled.status, settled.error).toBe("complete");

      // --- the session file: the research events in order --------------------------------------------------
      completed = researchOfFile(sessionFile, sessionId);
      expect(completed).toMatchObject({
        sessionId,
        status: "complete",
        phase: "report",
        objective: LEAD,
        strategy: "three angles",
        reportTitle: "Zebra migration",
        citedSourceIds: [1, 2, 3, 4],
        error: "",
      });
      const events = researchEventsOf(sessionFile).map(({ event }) => event);
      expect(events.every((event) => event.sessionId === sessionId)).toBe(true);
      const kinds = events.map((event) => (event.kind === "phase" ? `phase:${event.phase}` : event.kind));
      expect(kinds.slice(0, 3)).toEqual(["session", "objective", "plan"]);
      expect(kinds.indexOf("phase:gather")).toBeLessThan(kinds.indexOf("source"));
      expect(kinds.slice(-3)).toEqual(["phase:synthesize", "phase:report", "report"]);
      const reportMessage = messageIdsOf(sessionFile)
        .filter((m) => m.role === "assistant")
        .at(-1);
      expect(completed.reportEntryId).toBe(reportMessage?.id);

      // --- threads: each done by its own child session, the three at the same time ---------------------------
      expect(completed.threads.map((t) => [t.id, t.title, t.status, t.error])).toEqual([
        ["t1", "Origins", "done", ""],
        ["t2", "Routes", "done", ""],
        ["t3", "Threats", "done", ""],
      ]);
      const children = completed.threads.map((t) => t.childSession?.id ?? "");
      expect(new Set(children).size).toBe(3);
      for (const thread of completed.threads) {
        expect(thread.childSession?.path).toContain(sessionFolderOf(suite.dirs.agentDir, cwd));
        expect(thread.completedAt).toBeGreaterThanOrEqual(thread.startedAt);
        // the read-only bash barrier ran (was not refused) and opened
        expect(toolResultsOf(thread.childSession?.path ?? "", "bash")).toMatchObject([
          { isError: false, text: expect.stringContaining("released") },
        ]);
      }
      // the runtime roster (WS runtime_roster): never more than four children open, and the three at once
      const open = rosters.map((ids) => ids.filter((id) => children.includes(id)).length);
      expect(Math.max(...open), `children open at each roster change: ${JSON.stringify(open)}`).toBe(3);
      // each thread started before any finished: they overlapped
      const lastStart = Math.max(...completed.threads.map((t) => t.startedAt));
      const firstEnd = Math.min(...completed.threads.map((t) => t.completedAt));
      expect(lastStart).toBeLessThanOrEqual(firstEnd);
      const [subagentResult] = toolResultsOf(sessionFile, "subagent");
      expect(subagentResult?.text).toContain("Parallel: 3/3 succeeded");
      for (const output of (subagentResult?.details as { results: Array<{ output: string }> }).results.map((r) => r.output)) {
        expect(output).toContain("<research_result>");
      }

      // --- the ledger: duplicates merged with both thread links, every key registered once ------------------
      expect(completed.sources.map((s) => [s.id, s.url || s.path, s.threadIds, s.status])).toEqual([
        [1, URL_A, ["t1", "t2"], "cited"],
        [2, "./docs/notes.md", ["t1", "t3"], "cited"],
        [3, URL_C, ["t2"], "cited"],
        [4, URL_D, ["t3"], "cited"],
      ]);
      expect(completed.sources[0]).toMatchObject({
        title: "Serengeti",
        claim: "Zebras cross the Serengeti every year",
        evidence: "a yearly crossing",
      });
      expect(completed.threads.map((t) => t.sourceIds)).toEqual([
        [1, 2],
        [1, 3],
        [2, 4],
      ]);
      const byKey = sourceEventsByKey(sessionFile, sessionId);
      expect(byKey.size).toBe(4);
      for (const [key, registered] of byKey) {
        expect(new Set(registered.map((r) => r.id)), key).toEqual(new Set([completed.sources.find((s) => s.key === key)?.id]));
      }

      // --- GET /api/pi/sessions: the compact summary ----------------------------------------------------------
      const listed = await untilListed(app, sessionId, (summary) => summary.status === "complete", "the complete summary");
      expect(listed).toEqual(summarizeResearch(completed));
      expect(listed).toMatchObject({ threadCount: 3, completedThreadCount: 3, sourceCount: 4, citedSourceCount: 4 });

      // --- GET /api/pi/sessions/:id: the full state and the report annotation ------------------------------
      const detail = await sessionDetail(app, sessionId);
      expect(detail.session.research).toEqual(completed);
      const reportEntry = detail.entries.find((entry) => entry.id === completed.reportEntryId);
      const annotation = reportEntry?.type === "message" && reportEntry.role === "assistant" ? reportEntry.researchReport : undefined;
      expect(annotation?.citedSourceIds).toEqual([1, 2, 3, 4]);
      expect(annotation?.citations.map((c) => [c.number, c.sourceId, c.valid])).toEqual([
        [1, 1, true],
        [2, 2, true],
        [3, 3, true],
        [4, 4, true],
      ]);
      expect(annotation?.support.map((s) => [s.sourceId, s.verdict])).toEqual([
        [1, "supported"],
        [2, "supported"],
        [3, "supported"],
        [4, "unsupported"],
      ]);

      // --- the export: the report with working citation anchors, every thread and source ------------------
      const html = await exportHtml(app, sessionId);
      expect(externalReferences(html)).toEqual([]);
      expect(danglingAnchors(html)).toEqual([]);
      expect(html).toContain('<section id="report">');
      for (const id of [1, 2, 3, 4]) {
        expect(html).toContain(`<a href="#source-${id}" class="citation"`);
        expect(html).toContain(`id="source-${id}"`);
      }
      expect(html).toContain("The herds follow the rain.");
      expect(html).toContain("predation");
      expect(html).toContain(URL_D);
    },
  );

  it("a fork in the middle of the research replays the state bound to the fork, still running", { timeout: 60_000 }, async () => {
    const branch = branchOf(sessionFile);
    const at = researchEventsOf(sessionFile).find(({ event }) => event.kind === "phase" && event.phase === "synthesize");
    if (at === undefined) throw new Error("no synthesis checkpoint");
    const expected = researchStateFromEntries(sessionId, branch.slice(0, branch.findIndex((entry) => entry.id === at.entryId) + 1));
    if (expected === null) throw new Error("no state at the checkpoint");
    expect(expected).toMatchObject({ status: "running", phase: "synthesize" });

    const forked = await call(app, "POST", `/api/pi/sessions/${sessionId}/fork`, { entryId: at.entryId });
    expect(forked.status, JSON.stringify(forked.body)).toBe(200);
    const fork = forked.body["active"] as Active;
    expect(fork.id).not.toBe(sessionId);
    expect(fork.state.research).toMatchObject({ sessionId: fork.id, status: "running", phase: "synthesize" });

    const state = await detailResearch(app, fork.id);
    expect(withoutVolatile(state)).toEqual(withoutVolatile(expected));
    expect(state.sessionId).toBe(fork.id);
    expect(state.threads.map((t) => [t.id, t.status, t.sourceIds])).toEqual([
      ["t1", "done", [1, 2]],
      ["t2", "done", [1, 3]],
      ["t3", "done", [2, 4]],
    ]);
    expect(state.sources).toEqual(completed.sources.map((s) => ({ ...s, status: "candidate" })));
    expect(await untilListed(app, fork.id, (summary) => summary.sourceCount === 4, "the fork's summary")).toMatchObject({
      sessionId: fork.id,
      status: "running",
      phase: "synthesize",
    });
    // the fork's own events are bound to the fork's id; the source's stay as they were
    const forkFile = (forked.body["detail"] as SessionDetail).session.sessionFile;
    const forkEvents = researchEventsOf(forkFile);
    const ownStart = forkEvents.findIndex(({ event }) => event.kind === "session" && event.sessionId === fork.id);
    expect(ownStart).toBeGreaterThan(0);
    expect(forkEvents.slice(ownStart).every(({ event }) => event.sessionId === fork.id)).toBe(true);
    expect(researchOfFile(sessionFile, sessionId)).toEqual(completed);
  });

  it("a fork after the report is complete with the report revalidated", { timeout: 60_000 }, async () => {
    const reportEvent = researchEventsOf(sessionFile).find(({ event }) => event.kind === "report");
    if (reportEvent === undefined) throw new Error("no report event");
    const forked = await call(app, "POST", `/api/pi/sessions/${sessionId}/fork`, { entryId: reportEvent.entryId });
    expect(forked.status, JSON.stringify(forked.body)).toBe(200);
    const forkId = (forked.body["active"] as Active).id;

    const state = await detailResearch(app, forkId);
    const { updatedAt: _u, completedAt: _c, ...same } = withoutVolatile(completed);
    expect(state).toMatchObject({ ...same, sessionId: forkId });
    expect(state.reportEntryId).toBe(completed.reportEntryId);
    const forkFile = (forked.body["detail"] as SessionDetail).session.sessionFile;
    const last = researchEventsOf(forkFile).at(-1)?.event;
    expect(last).toMatchObject({ kind: "report", sessionId: forkId, reportEntryId: completed.reportEntryId, citedSourceIds: [1, 2, 3, 4] });
    const detail = await sessionDetail(app, forkId);
    const reportEntry = detail.entries.find((entry) => entry.id === completed.reportEntryId);
    expect(reportEntry?.type === "message" && reportEntry.role === "assistant" ? reportEntry.researchReport?.citedSourceIds : null).toEqual(
      [1, 2, 3, 4],
    );
    expect(await untilListed(app, forkId, (summary) => summary.status === "complete", "the fork's summary")).toMatchObject({
      reportTitle: "Zebra migration",
    });
  });

  it(
    "reset to the report message restores the report; reset to the entry before it leaves the report phase open",
    { timeout: 60_000 },
    async () => {
      const selected = await call(app, "POST", "/api/pi/active-session", { id: sessionId });
      expect(selected.status, JSON.stringify(selected.body)).toBe(200);

      // At the report message: the report event after it is cut, then written again on reopening.
      const atReport = await call(app, "POST", "/api/pi/reset-to-entry", { entryId: completed.reportEntryId });
      expect(atReport.status, JSON.stringify(atReport.body)).toBe(200);
      const restored = await detailResearch(app, sessionId);
      expect(restored).toMatchObject({
        status: "complete",
        reportEntryId: completed.reportEntryId,
        citedSourceIds: [1, 2, 3, 4],
        reportTitle: "Zebra migration",
      });
      const tail = branchOf(sessionFile).slice(-2);
      expect(tail[0]?.id).toBe(completed.reportEntryId);
      expect(researchEventsOf(sessionFile).at(-1)).toMatchObject({
        entryId: tail[1]?.id,
        event: { kind: "report", sessionId, reportEntryId: completed.reportEntryId },
      });
      expect((atReport.body["active"] as Active).state.research).toMatchObject({ status: "complete" });

      // Before the report message (the checkpoint's tool result): back to the report phase, not complete.
      const messages = messageIdsOf(sessionFile);
      const before = messages[messages.findIndex((m) => m.id === completed.reportEntryId) - 1];
      expect(before).toMatchObject({ role: "toolResult", toolName: "research_update" });
      const reset = await call(app, "POST", "/api/pi/reset-to-entry", { entryId: before?.id });
      expect(reset.status, JSON.stringify(reset.body)).toBe(200);
      const open = await detailResearch(app, sessionId);
      expect(open).toMatchObject({
        status: "running",
        phase: "report",
        reportEntryId: "",
        reportTitle: "Zebra migration",
        citedSourceIds: [1, 2, 3, 4],
        error: "",
      });
      expect(open.sources).toEqual(completed.sources);
      expect(branchOf(sessionFile).at(-1)?.id).toBe(before?.id);
      await untilListed(
        app,
        sessionId,
        (summary) => summary.status === "running" && summary.phase === "report" && summary.reportEntryId === "",
        "the reset summary",
      );
      expect((reset.body["active"] as Active).state.research).toMatchObject({ status: "running", phase: "report" });
    },
  );
});
