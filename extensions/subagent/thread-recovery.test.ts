import type { JsonObject } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { assistantEntry, toEntries, userEntry } from "../../test/arbitraries/research.arbitrary.ts";
import { parseResearchEvent } from "../../domain/research/research-event.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchEvent, type ResearchState } from "../../domain/research/research-types.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import {
  lastStartWasRerun,
  planThreadRecovery,
  replayedIntoFork,
  rerunStartEntryData,
  threadTaskOrigin,
  type RecoveredChild,
} from "./thread-recovery.ts";

const S = "sess-a";
const T0 = 1_800_000_000_000;

const planned: ResearchEvent[] = [
  { kind: "session", sessionId: S },
  {
    kind: "plan",
    sessionId: S,
    strategy: "s",
    threads: [
      { id: "t1", title: "One", task: "first task" },
      { id: "t2", title: "Two", task: "second task" },
      { id: "t3", title: "Three", task: "third task" },
    ],
  },
];

function running(id: string, startedAt: number, sessionId = S): ResearchEvent {
  return { kind: "thread", sessionId, thread: { id, status: "running", startedAt } };
}

/** The lead's subagent call (an assistant message with one tool call). */
function subagentCall(id: string, args: JsonObject): SessionEntry {
  const entry = assistantEntry("", "x", "toolUse");
  if (entry.type !== "message" || entry.message.role !== "assistant") throw new Error("not an assistant entry");
  return { ...entry, message: { ...entry.message, content: [{ type: "toolCall", id, name: "subagent", arguments: args }] } };
}

/** A custom entry with raw research data (e.g. a marked re-run start). */
function rawResearch(data: object): SessionEntry {
  return { type: "custom", customType: RESEARCH_CUSTOM_TYPE, data, id: "r", parentId: null, timestamp: new Date(T0).toISOString() };
}

function stateOf(branch: SessionEntry[], sessionId = S): ResearchState {
  const state = researchStateFromEntries(sessionId, branch);
  if (state === null) throw new Error("no state");
  return state;
}

const CALL = subagentCall("call-7", {
  tasks: [
    { agent: "researcher", task: "t1: first task", model: "faux/faux-2", thinking: "high", cwd: "/elsewhere" },
    { agent: "researcher", task: "second task" },
    { agent: "helper", task: "t3: not a researcher" },
  ],
});

describe("planThreadRecovery", () => {
  it("completes from a finished child, else re-runs with the original call's settings, else marks interrupted", () => {
    const branch = toEntries([
      ...planned,
      CALL,
      running("t1", T0),
      running("t2", T0),
      running("t3", T0),
      { kind: "thread", sessionId: S, thread: { id: "t3", status: "done" } },
    ]);
    const state = stateOf(branch);
    const child: RecoveredChild = { output: "x", childSession: { id: "c", path: "/c.jsonl", cwd: "/" } };
    const plan = planThreadRecovery(state, branch, new Map([["t2", child]]), true);
    expect(plan.map((item) => [item.thread.id, item.action])).toEqual([
      ["t1", "rerun"],
      ["t2", "complete"],
    ]);
    expect(plan[0]).toMatchObject({ origin: { toolCallId: "call-7", model: "faux/faux-2", thinking: "high", cwd: "/elsewhere" } });
    expect(plan[1]).toMatchObject({ child });

    // Without the execution route nothing can be re-run.
    expect(planThreadRecovery(state, branch, new Map(), false).map((item) => [item.thread.id, item.action])).toEqual([
      ["t1", "interrupted"],
      ["t2", "interrupted"],
    ]);
  });

  it("re-runs a thread once: an interrupted re-run becomes an interrupted error, a later run of the lead is re-run again", () => {
    const rerun = (state: ResearchState, id: string, at: number): SessionEntry => {
      const thread = state.threads.find((t) => t.id === id);
      if (thread === undefined) throw new Error(`no thread ${id}`);
      return rawResearch(rerunStartEntryData(state, thread, at));
    };
    const before = toEntries([...planned, CALL, running("t1", T0), running("t2", T0)]);
    const afterRerun = toEntries([...planned, CALL, running("t1", T0), running("t2", T0), rerun(stateOf(before), "t1", T0 + 10)]);
    const state = stateOf(afterRerun);
    expect(state.threads[0]).toMatchObject({ status: "running", startedAt: T0 + 10, error: "", completedAt: 0 });
    expect(parseResearchEvent(afterRerun.at(-1) as SessionEntry)).toEqual({
      kind: "thread",
      sessionId: S,
      thread: { id: "t1", status: "running", error: "", startedAt: T0 + 10, completedAt: 0 },
    });
    expect(lastStartWasRerun(afterRerun, S, "t1")).toBe(true);
    expect(lastStartWasRerun(afterRerun, S, "t2")).toBe(false);
    const plan = planThreadRecovery(state, afterRerun, new Map(), true);
    expect(plan.map((item) => [item.thread.id, item.action])).toEqual([
      ["t1", "interrupted"],
      ["t2", "rerun"],
    ]);
    expect(plan[0]).toMatchObject({ detail: "Its automatic re-run after a restart was interrupted too" });

    // The lead ran t1 again itself (an unmarked start): that run may be re-run.
    const again = toEntries([
      ...planned,
      CALL,
      running("t1", T0),
      running("t2", T0),
      rerun(stateOf(before), "t1", T0 + 10),
      userEntry("go on"),
      running("t1", T0 + 99),
    ]);
    expect(planThreadRecovery(stateOf(again), again, new Map(), true).map((item) => [item.thread.id, item.action])).toEqual([
      ["t1", "rerun"],
      ["t2", "rerun"],
    ]);
  });

  it("does not re-run the running threads a fork only replayed, but does re-run the fork's own runs", () => {
    const FORK = "fork-1";
    const source = [...planned, CALL, running("t1", T0)];
    const replay: ResearchEvent[] = [
      { kind: "session", sessionId: FORK },
      { kind: "plan", sessionId: FORK, strategy: "s", threads: planned[1]?.kind === "plan" ? planned[1].threads : [] },
      running("t1", T0, FORK),
    ];
    const fork = toEntries([...source, ...replay]);
    expect(replayedIntoFork(fork, FORK, "t1")).toBe(true);
    expect(planThreadRecovery(stateOf(fork, FORK), fork, new Map(), true).map((item) => [item.thread.id, item.action])).toEqual([
      ["t1", "interrupted"],
    ]);

    const ownRun = toEntries([...source, ...replay, userEntry("continue"), running("t2", T0 + 5, FORK)]);
    expect(replayedIntoFork(ownRun, FORK, "t2")).toBe(false);
    expect(planThreadRecovery(stateOf(ownRun, FORK), ownRun, new Map(), true).map((item) => [item.thread.id, item.action])).toEqual([
      ["t1", "interrupted"],
      ["t2", "rerun"],
    ]);
    // a session that is not a fork never counts as replayed
    expect(replayedIntoFork(toEntries(source), S, "t1")).toBe(false);
  });
});

describe("threadTaskOrigin", () => {
  it("takes the last researcher task of the thread on the branch, by prefix or by planned task", () => {
    const later = subagentCall("call-9", { agent: "researcher", task: "t1: first task, again", thinking: "low" });
    const branch = toEntries([...planned, CALL, later]);
    const state = stateOf(branch);
    expect(threadTaskOrigin(state, branch, "t1")).toEqual({ toolCallId: "call-9", thinking: "low" });
    expect(threadTaskOrigin(state, branch, "t2")).toEqual({ toolCallId: "call-7" });
    // a helper task never counts; a thread without a call gets no settings
    expect(threadTaskOrigin(state, branch, "t3")).toEqual({ toolCallId: "" });
  });
});
