/**
 * A research run stopped in the middle by a server stop, then reopened by new servers on the same agent and
 * data dirs (issue 4's test matrix, item 6, and its "workers in flight are resumed or re-run" item). Through
 * the HTTP API with in-process workers and the faux provider, as research-runs.int.test.ts.
 *
 * 1. Server A: the lead plans four threads and runs four researchers; r1 answers at once, r2, r3 and r4 wait
 *    in bash for a gate file that never appears while A runs. Once they wait, A is closed (its workers die;
 *    closing does not wait for them). The file then holds r1 done and r2, r3, r4 running.
 * 2. Server B reopens the session: the state is rebuilt from the JSONL file, and the three interrupted threads
 *    are re-run in the background through the execution route (marked running again, new child sessions):
 *    r2 answers (a source already registered by r1 merges into it, a new one is added); r4's re-run fails
 *    (B has no scripted reply for it) and becomes the interrupted error naming the failure; r3 waits in bash
 *    again, and B is closed during that re-run.
 * 3. Server C reopens the session: r3's interrupted run was itself a re-run, so it is not re-run again but
 *    becomes an interrupted error. Server D reopens it once more: nothing is appended. No source was ever
 *    registered twice.
 *
 * Also: closing a server while a subagent run is in flight does not wait for the run; the execution route
 * answers it 503 "stopping" (what makes the subagent tool leave its thread running).
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { call, EventCollector, runtimeApiSuite } from "../../api/runtime-api.fixture.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchState } from "../../domain/research/research-types.ts";
import type { Active } from "../../domain/runtime/runtime-types.ts";
import { SUBAGENT_CUSTOM_TYPE } from "../../domain/session-summary.ts";
import { jsonlLines } from "../../adapters/runtime-host/runtime-host-test-support.ts";
import { SUBAGENT_STOPPING_ERROR } from "../../api/subagent.routes.ts";
import { postJson, SubagentRequestError } from "../../extensions/subagent/subagent-client.ts";
import { INTERRUPTED_THREAD_ERROR } from "../../extensions/subagent/thread-recovery.ts";
import {
  branchOf,
  createResearchSession,
  detailResearch,
  planTurn,
  projectDir,
  prompt,
  researcherTurns,
  leadCall,
  researchEventsOf,
  researchOfFile,
  researchResultText,
  sourceEventsByKey,
  startResearchApp,
  untilDetail,
  untilListed,
  waitCommand,
  watchSession,
  type ResearchApp,
} from "./research-run.fixture.ts";

const LEAD = "Investigate RESTART";
const THREADS = [
  { id: "r1", title: "Quick", task: "QUICK angle" },
  { id: "r2", title: "Slow", task: "SLOW angle" },
  { id: "r3", title: "Stuck", task: "STUCK angle" },
  { id: "r4", title: "Lost", task: "LOST angle" },
];
const URL_P = "https://example.com/p";
const URL_Q = "https://example.com/q";
const URL_S = "https://example.com/s";

const suite = runtimeApiSuite("leyline-research-restart-");
let gate = "";
const apps: FastifyInstance[] = [];

/** Bash turns of a researcher that waits for the gate (opened only when the suite ends). */
function blocked(task: string): FauxTurn[] {
  return researcherTurns(task, "never reached", [waitCommand(`[ -e ${gate} ]`, 120)]);
}

async function start(turns: FauxTurn[]): Promise<ResearchApp> {
  const started = await startResearchApp(suite.dirs, turns);
  apps.push(started.app);
  return started;
}

async function stop(app: FastifyInstance): Promise<void> {
  await app.close();
  apps.splice(apps.indexOf(app), 1);
}

/** Every session's events of a server (WS /api/pi/events without a session filter). */
async function watchAll(server: ResearchApp): Promise<EventCollector> {
  const socket = EventCollector.connect(server.eventsUrl);
  await socket.opened;
  return socket;
}

/** Resolves once bash tool calls started in `count` different sessions (the researchers' children). */
function bashWaiting(socket: EventCollector, count: number, label: string): Promise<void> {
  const sessions = (): Set<string> =>
    new Set(
      socket.messages.flatMap((message) => {
        if (message.type !== "runtime_event") return [];
        const data = message.data as { activeSessionId: string; event: { type: string; toolName?: string } };
        return data.event.type === "tool_execution_start" && data.event.toolName === "bash" ? [data.activeSessionId] : [];
      }),
    );
  return socket.until(() => sessions().size >= count, label, 60_000);
}

/** The ids of the lead's calls of `toolName` on the file's branch. */
function leadToolCalls(file: string, toolName: string): string[] {
  return branchOf(file).flatMap((entry) => {
    if (entry.type !== "message" || entry.message.role !== "assistant") return [];
    return entry.message.content.flatMap((block) => (block.type === "toolCall" && block.name === toolName ? [block.id] : []));
  });
}

/** The session ids of every `runtime_roster` the socket received. */
function rosters(socket: EventCollector): string[][] {
  return socket.messages.flatMap((message) =>
    message.type === "runtime_roster" ? [(message.data as { sessionIds: string[] }).sessionIds] : [],
  );
}

beforeAll(() => {
  suite.setUp();
  gate = path.join(suite.dirs.root, "gate-open");
});

afterAll(async () => {
  // Release any bash loop still waiting, then stop what is left.
  fs.writeFileSync(gate, "");
  await Promise.all(apps.splice(0).map((app) => app.close()));
  suite.tearDown();
});

function threadRows(state: ResearchState): string[][] {
  return state.threads.map((t) => [t.id, t.status]);
}

describe("a research run across server restarts", () => {
  it(
    "rebuilds the state from JSONL, re-runs interrupted workers once and never registers a source twice",
    { timeout: 300_000 },
    async () => {
      const cwd = projectDir(suite.dirs, "restart");

      // --- server A: r1 answers, r2 and r3 hang; the server stops ------------------------------------------
      const a = await start([
        planTurn(LEAD, THREADS),
        // r2 names its model; the others inherit the lead's (faux-1)
        leadCall(LEAD, "subagent", {
          tasks: THREADS.map((t) => ({
            agent: "researcher",
            task: `${t.id}: ${t.task}`,
            ...(t.id === "r2" ? { model: "faux/faux-2" } : {}),
          })),
        }),
        { match: LEAD, text: "unreachable: the server stops first" },
        ...researcherTurns(
          "r1: QUICK",
          researchResultText("r1", "Quick", "Quick answer.", [
            { url: URL_P, title: "P", claim: "p", evidence: "p" },
            { url: URL_Q, title: "Q", claim: "q", evidence: "q" },
          ]),
        ),
        ...blocked("r2: SLOW"),
        ...blocked("r3: STUCK"),
        ...blocked("r4: LOST"),
      ]);
      const eventsA = await watchAll(a);
      const { id, file } = await createResearchSession(a.app, cwd);
      await prompt(a.app, id, LEAD);
      await bashWaiting(eventsA, 3, "r2, r3 and r4 wait in bash");
      const midRun = await untilDetail(a.app, id, (state) => state.threads[0]?.status === "done", "r1 done");
      expect(threadRows(midRun)).toEqual([
        ["r1", "done"],
        ["r2", "running"],
        ["r3", "running"],
        ["r4", "running"],
      ]);
      const firstChildren = new Set(
        rosters(eventsA)
          .flat()
          .filter((sessionId) => sessionId !== id),
      );
      expect(firstChildren.size).toBe(4);
      await eventsA.close();
      await stop(a.app);

      // The file as the stop left it: r2, r3 and r4 still running (the dying server recorded nothing for them).
      const stopped = researchOfFile(file, id);
      expect(threadRows(stopped)).toEqual([
        ["r1", "done"],
        ["r2", "running"],
        ["r3", "running"],
        ["r4", "running"],
      ]);
      expect(stopped.sources.map((s) => [s.id, s.url, s.threadIds])).toEqual([
        [1, URL_P, ["r1"]],
        [2, URL_Q, ["r1"]],
      ]);
      const startedBefore = Math.max(...stopped.threads.map((t) => t.startedAt));

      // --- server B: reopening rebuilds the state and re-runs r2, r3 and r4 ---------------------------------
      const b = await start([
        ...researcherTurns(
          "r2: SLOW",
          researchResultText("r2", "Slow", "Slow answer after the restart.", [
            { url: `${URL_P}/`, title: "P again", claim: "", evidence: "p2" },
            { url: URL_S, title: "S", claim: "s", evidence: "s" },
          ]),
        ),
        ...blocked("r3: STUCK"),
      ]);
      const eventsB = await watchAll(b);
      const rebuilt = await detailResearch(b.app, id);
      expect(rebuilt).toEqual(stopped);
      await untilListed(b.app, id, (summary) => summary.threadCount === 4 && summary.completedThreadCount === 1, "the rebuilt summary");

      const watch = await watchSession(b.eventsUrl, id);
      const opened = await call(b.app, "POST", "/api/pi/active-session", { id });
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      await watch.until((active) => active.state.research?.threads[1]?.status === "done", "r2 re-run done");
      await watch.until((active) => active.state.research?.threads[3]?.status === "error", "r4 re-run failed");
      await bashWaiting(eventsB, 1, "r3's re-run waits in bash");
      await watch.close();
      // the re-runs were marked running again (entry data marked as a re-run), with a new start time
      const rerunStarts = jsonlLines(file).flatMap((line) => {
        const data = line["data"] as
          { kind?: string; rerun?: boolean; thread?: { id: string; status?: string; startedAt?: number } } | undefined;
        return line["customType"] === RESEARCH_CUSTOM_TYPE && data?.kind === "thread" && data.rerun === true ? [data.thread] : [];
      });
      expect(rerunStarts.map((t) => [t?.id, t?.status, (t?.startedAt ?? 0) > startedBefore])).toEqual([
        ["r2", "running", true],
        ["r3", "running", true],
        ["r4", "running", true],
      ]);

      const afterRerun = researchOfFile(file, id);
      expect(threadRows(afterRerun)).toEqual([
        ["r1", "done"],
        ["r2", "done"],
        ["r3", "running"],
        ["r4", "error"],
      ]);
      const r2 = afterRerun.threads[1];
      expect(r2).toMatchObject({ summary: "Slow answer after the restart.", sourceIds: [1, 3], error: "" });
      expect(r2?.startedAt).toBeGreaterThan(startedBefore);
      expect(afterRerun.threads[3]?.error).toContain(`${INTERRUPTED_THREAD_ERROR}. Re-running it after a restart failed: `);
      expect(afterRerun.threads[3]?.error).toContain("No scripted reply");
      expect(firstChildren.has(r2?.childSession?.id ?? "")).toBe(false);
      expect(afterRerun.sources.map((s) => [s.id, s.url, s.threadIds])).toEqual([
        [1, URL_P, ["r1", "r2"]],
        [2, URL_Q, ["r1"]],
        [3, URL_S, ["r2"]],
      ]);
      // the re-run child is a read-only researcher child of the same parent and tool call, with the model the
      // original call gave r2
      const rerunChild = jsonlLines(r2?.childSession?.path ?? "");
      expect(rerunChild[0]).toMatchObject({ type: "session", parentSession: file });
      const marker = rerunChild.find((line) => line["customType"] === SUBAGENT_CUSTOM_TYPE)?.["data"];
      const [call0] = leadToolCalls(file, "subagent");
      expect(marker).toMatchObject({ agent: "researcher", readOnlyBash: true, parentSessionId: id, toolCallId: call0 });
      expect(rerunChild.find((line) => line["type"] === "model_change")).toMatchObject({ provider: "faux", modelId: "faux-2" });
      await eventsB.close();
      await stop(b.app);

      // --- server C: r3's re-run was interrupted too: an interrupted error, no third run ---------------------
      const c = await start([]);
      const eventsC = await watchAll(c);
      const reopened = await call(c.app, "POST", "/api/pi/active-session", { id });
      expect(reopened.status, JSON.stringify(reopened.body)).toBe(200);
      const final = (reopened.body["active"] as Active).state.research;
      expect(final === null ? null : threadRows(final)).toEqual([
        ["r1", "done"],
        ["r2", "done"],
        ["r3", "error"],
        ["r4", "error"],
      ]);
      expect(final?.threads[2]?.error).toBe(`${INTERRUPTED_THREAD_ERROR}. Its automatic re-run after a restart was interrupted too`);
      expect(await untilDetail(c.app, id, (state) => state.threads[2]?.status === "error", "r3 error")).toEqual(researchOfFile(file, id));
      // no child runtime was opened for it
      expect(rosters(eventsC).some((ids) => ids.length > 1)).toBe(false);
      await eventsC.close();
      await stop(c.app);

      // --- server D: reopening once more appends nothing ---------------------------------------------------
      const size = fs.statSync(file).size;
      const d = await start([]);
      const again = await call(d.app, "POST", "/api/pi/active-session", { id });
      expect(again.status).toBe(200);
      expect(fs.statSync(file).size).toBe(size);
      expect((again.body["active"] as Active).state.research).toEqual(researchOfFile(file, id));

      // every source registered once; merges only add thread links
      const byKey = sourceEventsByKey(file, id);
      expect([...byKey.entries()].map(([key, events]) => [key, events.map((e) => e.id)])).toEqual([
        [expect.stringContaining("example.com/p"), [1, 1]],
        [expect.stringContaining("example.com/q"), [2]],
        [expect.stringContaining("example.com/s"), [3]],
      ]);
      // the thread events of the re-runs: r2, r3 and r4 started again once each
      const starts = researchEventsOf(file).flatMap(({ event }) =>
        event.kind === "thread" && event.thread.status === "running" ? [event.thread.id] : [],
      );
      expect(starts).toEqual(["r1", "r2", "r3", "r4", "r2", "r3", "r4"]);
    },
  );

  it("closing the server while a subagent runs answers the run 503 at once", { timeout: 60_000 }, async () => {
    const cwd = projectDir(suite.dirs, "closing");
    const server = await start(blocked("z1: CLOSING"));
    const events = await watchAll(server);
    const answer = postJson(server.baseUrl, "/api/pi/subagent", { task: "z1: CLOSING task", cwd, agent: "researcher" }).then(
      () => null,
      (error: unknown) => error,
    );
    await bashWaiting(events, 1, "the child waits in bash");
    await events.close();
    // the child waits up to 120 s for the gate: the close (and the test's 60 s) would run out first
    await stop(server.app);
    const error = await answer;
    expect(error).toBeInstanceOf(SubagentRequestError);
    expect(error).toMatchObject({ status: 503, message: SUBAGENT_STOPPING_ERROR });
  });
});
