/**
 * Scripted research runs through the HTTP API that end in each report error, and a run at the ledger's limits
 * (issue 4's test matrix, items 2 and 3). Same setting as research-runs.int.test.ts: a listening app, in-process
 * workers, the faux provider, real researchers; asserted on the session file, GET /api/pi/sessions and
 * GET /api/pi/sessions/:id.
 *
 * - An invalid numeric citation, a citation of a source the lead excluded (research_update exclude), and a
 *   report without any citation although usable sources exist: each ends the research in status error with a
 *   message naming the citation or the reason, and records no report.
 * - Four researchers offer 75 sources, 70 of them unique within their results: one result of 25 keeps its first
 *   20 (the others wait in bash until those 20 are registered, so that it is never cut by the session limit);
 *   the ledger keeps 60 and reports the other 10, in the lead's tool result and in the state's notes.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeApiSuite } from "../../api/runtime-api.fixture.ts";
import type { ResearchState } from "../../domain/research/research-types.ts";
import {
  checkpointTurn,
  createResearchSession,
  detailResearch,
  leadCall,
  manySources,
  planTurn,
  projectDir,
  prompt,
  researcherTurns,
  researchersTurn,
  researchEventsOf,
  researchOfFile,
  researchResultText,
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
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";

const URL_X = "https://example.net/x";
const URL_Y1 = "https://example.net/y1";
const URL_Y2 = "https://example.net/y2";
const URL_Z = "https://example.net/z";

/** A lead with one thread: plan, one researcher, `beforeReport` calls, the checkpoint and `report`. */
function oneThreadRun(
  lead: string,
  thread: { id: string; task: string },
  answer: string,
  beforeReport: FauxTurn[],
  cited: number[],
  report: string,
): FauxTurn[] {
  return [
    planTurn(lead, [{ id: thread.id, title: thread.id, task: thread.task }]),
    researchersTurn(lead, [thread]),
    ...beforeReport,
    checkpointTurn(lead, `${thread.id} report`, cited),
    { match: lead, text: report },
    ...researcherTurns(`${thread.id}: ${thread.task}`, answer),
  ];
}

const INVALID = "Investigate ERR-INVALID";
const EXCLUDED = "Investigate ERR-EXCLUDED";
const NONE = "Investigate ERR-NONE";
const LIMITS = "Investigate LIMITS";

const LIMIT_THREADS = [
  { id: "l1", title: "Alpha", task: "ALPHA sources" },
  { id: "l2", title: "Beta", task: "BETA sources" },
  { id: "l3", title: "Gamma", task: "GAMMA sources" },
  { id: "l4", title: "Delta", task: "DELTA sources" },
];

function turns(limitsFolder: string): FauxTurn[] {
  const afterAlpha = [waitCommand(sourceEventsAtLeast(limitsFolder, 20))];
  return [
    ...oneThreadRun(
      INVALID,
      { id: "ta", task: "INVALID task" },
      researchResultText("ta", "A", "One source.", [{ url: URL_X, title: "X", claim: "x", evidence: "x" }]),
      [],
      [1],
      `# Invalid\n\nTrue [1](${URL_X}). Made up [7](https://nowhere.example/x).`,
    ),
    ...oneThreadRun(
      EXCLUDED,
      { id: "tb", task: "EXCLUDED task" },
      researchResultText("tb", "B", "Two sources.", [
        { url: URL_Y1, title: "Y1", claim: "y", evidence: "y" },
        { url: URL_Y2, title: "Y2", claim: "y", evidence: "y" },
      ]),
      [leadCall(EXCLUDED, "research_update", { action: "exclude", sourceId: 2, reason: "paywalled and unverifiable" })],
      [1, 2],
      `# Excluded\n\nGood [1](${URL_Y1}). Excluded [2](${URL_Y2}).`,
    ),
    ...oneThreadRun(
      NONE,
      { id: "tc", task: "NONE task" },
      researchResultText("tc", "C", "One source.", [{ url: URL_Z, title: "Z", claim: "z", evidence: "z" }]),
      [],
      [],
      "# Nothing\n\nEverything is fine, trust me.",
    ),
    planTurn(LIMITS, LIMIT_THREADS),
    researchersTurn(LIMITS, LIMIT_THREADS),
    { match: LIMITS, text: "Gathered." },
    ...researcherTurns("l1: ALPHA", researchResultText("l1", "Alpha", "25 sources.", manySources("a.example", 25))),
    ...researcherTurns("l2: BETA", researchResultText("l2", "Beta", "20 sources.", manySources("b.example", 20)), afterAlpha),
    ...researcherTurns("l3: GAMMA", researchResultText("l3", "Gamma", "20 sources.", manySources("c.example", 20)), afterAlpha),
    ...researcherTurns(
      "l4: DELTA",
      researchResultText("l4", "Delta", "10 sources and a duplicate.", [...manySources("d.example", 10), ...manySources("a.example", 1)]),
      afterAlpha,
    ),
  ];
}

const suite = runtimeApiSuite("leyline-research-errors-");
let research: ResearchApp;
let app: FastifyInstance;
let limitsCwd = "";

beforeAll(async () => {
  suite.setUp();
  limitsCwd = projectDir(suite.dirs, "limits");
  research = await startResearchApp(suite.dirs, turns(sessionFolderOf(suite.dirs.agentDir, limitsCwd)));
  app = research.app;
}, 60_000);

afterAll(async () => {
  await app?.close();
  suite.tearDown();
});

/** Creates a research session in `cwd`, prompts `lead` and waits until the run ended with `check`. */
async function run(
  cwd: string,
  lead: string,
  check: (state: ResearchState) => boolean,
): Promise<{ id: string; file: string; state: ResearchState }> {
  const { id, file } = await createResearchSession(app, cwd);
  const watch = await watchSession(research.eventsUrl, id);
  const since = watch.mark();
  await prompt(app, id, lead);
  await watch.settled(since, check, `${lead} ends`);
  await watch.close();
  return { id, file, state: researchOfFile(file, id) };
}

/** The run ends in status error with `message` (file, detail and list agree); no report is recorded. */
async function expectReportError(cwd: string, lead: string, message: string): Promise<{ state: ResearchState; file: string }> {
  const { id, file, state } = await run(cwd, lead, (s) => s.status !== "running");
  expect(state).toMatchObject({ status: "error", phase: "report", reportEntryId: "" });
  expect(state.error).toContain("Invalid research report");
  expect(state.error).toContain(message);
  const last = researchEventsOf(file).at(-1)?.event;
  expect(last).toEqual({ kind: "error", sessionId: id, message: state.error });
  expect(researchEventsOf(file).some(({ event }) => event.kind === "report")).toBe(false);
  expect(await detailResearch(app, id)).toEqual(state);
  await untilListed(app, id, (summary) => summary.status === "error" && summary.reportEntryId === "", "the error summary");
  return { state, file };
}

describe("research runs that end in a report error", () => {
  it("an invalid numeric citation", { timeout: 120_000 }, async () => {
    const { state } = await expectReportError(
      projectDir(suite.dirs, "invalid"),
      INVALID,
      "Citation [7](https://nowhere.example/x) names no ledger source 7",
    );
    expect(state.error).not.toContain(`[1](${URL_X})`);
    expect(state.sources.map((s) => [s.id, s.url])).toEqual([[1, URL_X]]);
  });

  it("a citation of a source the lead excluded", { timeout: 120_000 }, async () => {
    const { state, file } = await expectReportError(
      projectDir(suite.dirs, "excluded"),
      EXCLUDED,
      `Citation [2](${URL_Y2}) cites excluded source 2`,
    );
    expect(state.sources.map((s) => [s.id, s.status, s.exclusionReason])).toEqual([
      [1, "cited", ""],
      [2, "excluded", "paywalled and unverifiable"],
    ]);
    // the checkpoint already left the excluded source out of the intended citations, and said so
    expect(state.citedSourceIds).toEqual([1]);
    const updates = toolResultsOf(file, "research_update").map((r) => r.text);
    expect(updates.find((text) => text.startsWith("Source 2 excluded"))).toBe(
      "Source 2 excluded (paywalled and unverifiable). Do not cite it.",
    );
    expect(updates.find((text) => text.startsWith("Report checkpoint recorded"))).toContain(
      "Left out of citedSourceIds (not a usable ledger source): 2.",
    );
  });

  it("no citation although usable sources exist", { timeout: 120_000 }, async () => {
    const { state } = await expectReportError(
      projectDir(suite.dirs, "none"),
      NONE,
      "The report has no valid numeric citation of the 1 usable ledger source",
    );
    expect(state.sourceCount).toBe(1);
  });
});

describe("a research run at the ledger's limits", () => {
  it("keeps 20 sources of one result and 60 per session, and reports the rest", { timeout: 180_000 }, async () => {
    const { id, file, state } = await run(
      limitsCwd,
      LIMITS,
      (s) => s.threads.length === 4 && s.threads.every((t) => t.status === "done" || t.status === "error"),
    );
    expect(state.threads.map((t) => [t.id, t.status, t.error])).toEqual(LIMIT_THREADS.map((t) => [t.id, "done", ""]));
    expect(state).toMatchObject({ status: "running", phase: "gather", sourceCount: 60 });
    expect(state.sources).toHaveLength(60);
    expect(state.sources.map((s) => s.id)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));

    // the result of 25: its first 20 registered (ids 1..20), the other 5 reported
    const [l1, l2, l3, l4] = state.threads;
    for (const thread of [l2, l3, l4]) {
      // each waited (read-only bash, not refused) until l1's sources were in
      expect(toolResultsOf(thread?.childSession?.path ?? "", "bash")).toMatchObject([
        { isError: false, text: expect.stringContaining("released") },
      ]);
    }
    expect(l1?.sourceIds).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(state.sources.slice(0, 20).map((s) => s.url)).toEqual(manySources("a.example", 20).map((s) => s.url));
    expect(state.sources.some((s) => s.url === "https://a.example/20")).toBe(false);
    // the duplicate of l4 merged into source 1 (a merge is taken even when the ledger is full)
    expect(state.sources[0]?.threadIds).toEqual(["l1", "l4"]);
    expect(l4?.sourceIds).toContain(1);
    // the other three offered 50 unique sources; 40 fit
    const later = [l2, l3, l4].map((t) => (t?.sourceIds ?? []).filter((sourceId) => sourceId > 20).length);
    expect(later.reduce((a, b) => a + b, 0)).toBe(40);

    // the lead read what was not registered, and why
    const [result] = toolResultsOf(file, "subagent");
    expect(result?.text).toContain("Parallel: 4/4 succeeded");
    const count = (text: string, part: string): number => text.split(part).length - 1;
    expect(count(result?.text ?? "", "only the first 20 sources of one result are registered")).toBe(5);
    expect(count(result?.text ?? "", "the research session already holds 60 sources")).toBe(10);
    // ... and so do the notes of the state
    const notes = researchEventsOf(file).flatMap(({ event }) => (event.kind === "phase" && event.note ? [event.note] : []));
    const reported = notes.map((note) => Number(/: (\d+) sources? not registered/.exec(note)?.[1] ?? 0));
    expect(reported.reduce((a, b) => a + b, 0)).toBe(15);
    expect(notes.find((note) => note.startsWith("Thread l1:"))).toBe(
      "Thread l1: 5 sources not registered (" +
        [21, 22, 23, 24, 25].map((n) => `source #${n}: only the first 20 sources of one result are registered`).join("; ") +
        ")",
    );

    // every source registered once: one id per canonical key
    const byKey = sourceEventsByKey(file, id);
    expect(byKey.size).toBe(60);
    for (const [key, events] of byKey) expect(new Set(events.map((e) => e.id)).size, key).toBe(1);

    expect(await detailResearch(app, id)).toMatchObject({ sourceCount: 60, threadCount: 4, completedThreadCount: 4 });
    await untilListed(app, id, (summary) => summary.sourceCount === 60 && summary.completedThreadCount === 4, "the limits summary");
  });
});
