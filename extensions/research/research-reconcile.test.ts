import { describe, expect, it } from "vitest";
import { assistantEntry, researchEntry, toEntries, userEntry } from "../../test/arbitraries/research.arbitrary.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import type { ResearchEvent } from "../../domain/research/research-types.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import { finalReportEvent } from "./report-check.ts";
import { reconcileResearch } from "./research-reconcile.ts";

const S = "sess-a";
const FORK = "fork-1";

const run = (id: string): ResearchEvent[] => [
  { kind: "session", sessionId: id },
  { kind: "objective", sessionId: id, objective: "Q" },
  { kind: "plan", sessionId: id, strategy: "s", threads: [{ id: "t1", title: "One", task: "a" }] },
  { kind: "source", sessionId: id, source: { url: "https://a.example/1", title: "A", threadId: "t1" } },
  { kind: "phase", sessionId: id, phase: "report", title: "Title" },
];

/** Appends events to a branch as entries (ids continue after the branch). */
function append(branch: SessionEntry[], events: ResearchEvent[], prefix: string): SessionEntry[] {
  return [
    ...branch,
    ...events.map((event, i) => researchEntry(event, `${prefix}${i}`, null, new Date(Date.UTC(2025, 1, 1, 0, 0, i)).toISOString())),
  ];
}

const validReport = assistantEntry("# Title\n\nFound [1](https://a.example/1).", "rep");

describe("reconcileResearch", () => {
  it("does nothing in a normal session or a session that is already consistent", () => {
    expect(reconcileResearch(S, toEntries([userEntry("hi"), assistantEntry("hello")]))).toEqual({ kind: "none", events: [] });
    expect(reconcileResearch(S, toEntries(run(S)))).toEqual({ kind: "current", events: [] });
    expect(reconcileResearch("", toEntries(run(S)))).toEqual({ kind: "none", events: [] });
  });

  it("reset: restores the report event of a valid report after its checkpoint, once", () => {
    const branch = [...toEntries(run(S)), validReport];
    const first = reconcileResearch(S, branch);
    expect(first).toEqual({
      kind: "reset",
      events: [{ kind: "report", sessionId: S, reportEntryId: "rep", title: "Title", citedSourceIds: [1] }],
    });
    const after = append(branch, first.events, "r");
    expect(researchStateFromEntries(S, after)?.status).toBe("complete");
    expect(reconcileResearch(S, after).events).toEqual([]);
  });

  it("reset: an invalid retained report is not restored", () => {
    const branch = [...toEntries(run(S)), assistantEntry("No citations at all.", "rep")];
    expect(reconcileResearch(S, branch)).toEqual({ kind: "current", events: [] });
  });

  it("fork: replays the retained state bound to the fork id, revalidating the report, once", () => {
    const parent = [...toEntries(run(S)), validReport];
    const complete = append(parent, [{ kind: "report", sessionId: S, reportEntryId: "rep", title: "Title", citedSourceIds: [1] }], "p");
    const fork = reconcileResearch(FORK, complete);
    expect(fork.kind).toBe("fork");
    expect(fork.events.every((e) => e.sessionId === FORK)).toBe(true);
    expect(fork.events.at(-1)).toMatchObject({ kind: "report", reportEntryId: "rep" });
    const forked = append(complete, fork.events, "f");
    const state = researchStateFromEntries(FORK, forked);
    expect(state).toMatchObject({ sessionId: FORK, status: "complete", objective: "Q", sourceCount: 1, reportEntryId: "rep" });
    expect(reconcileResearch(FORK, forked)).toEqual({ kind: "current", events: [] });
    // a report checkpoint replayed after the report message does not make the old message count as a new report
    expect(finalReportEvent(state, forked)).toBeNull();
  });

  it("fork at the report message (its report event not retained): the fork is complete with that report", () => {
    const parent = [...toEntries(run(S)), validReport];
    const fork = reconcileResearch(FORK, parent);
    expect(fork.events.at(-1)).toMatchObject({
      kind: "report",
      sessionId: FORK,
      reportEntryId: "rep",
      title: "Title",
      citedSourceIds: [1],
    });
    const forked = append(parent, fork.events, "f");
    expect(researchStateFromEntries(FORK, forked)).toMatchObject({ status: "complete", reportEntryId: "rep" });
    expect(reconcileResearch(FORK, forked).events).toEqual([]);
  });

  it("fork: a retained report that is no longer valid becomes an error event", () => {
    const badReport = assistantEntry("See [2](https://a.example/2).", "rep");
    const parent = append([...toEntries(run(S)), badReport], [{ kind: "report", sessionId: S, reportEntryId: "rep" }], "p");
    const fork = reconcileResearch(FORK, parent);
    expect(fork.events.at(-1)).toMatchObject({ kind: "error", sessionId: FORK });
    expect(researchStateFromEntries(FORK, append(parent, fork.events, "f"))?.status).toBe("error");
  });

  it("fork of a fork replays its direct source (the last marker on the branch)", () => {
    const parent = toEntries(run(S));
    const firstFork = append(parent, reconcileResearch(FORK, parent).events, "f");
    const extra = append(firstFork, [{ kind: "source", sessionId: FORK, source: { url: "https://b.example/2", title: "B" } }], "x");
    const second = reconcileResearch("fork-2", extra);
    expect(second).toMatchObject({ kind: "fork", sourceSessionId: FORK });
    expect(researchStateFromEntries("fork-2", append(extra, second.events, "g"))?.sourceCount).toBe(2);
  });
});
