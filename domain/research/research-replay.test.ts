import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbResearchRun, assistantEntry, researchEntry, toEntries, userEntry } from "../../test/arbitraries/research.arbitrary.ts";
import type { SessionEntry } from "../session-log.ts";
import { validateReportCitations } from "./citations.ts";
import { parseResearchEvent } from "./research-event.ts";
import { researchStateFromEntries } from "./research.fold.ts";
import { forkReplayEvents, resetReconstruction } from "./research-replay.ts";
import type { ResearchEvent, ResearchSource, ResearchState } from "./research-types.ts";

const S = "sess-a";
const FORK = "fork-1";

function must(state: ResearchState | null): ResearchState {
  if (state === null) throw new Error("expected a research state");
  return state;
}

/** A report that cites every usable source correctly (valid against `sources` by construction). */
function validReport(sources: readonly ResearchSource[]): string {
  const cites = sources.filter((s) => s.status !== "excluded").map((s) => `[${s.id}](${s.url || s.path})`);
  return `# Findings\n\nClaims ${cites.join(", ")}.`;
}

/** Folds replay events as the fork's entries (after the retained entries of the parent session). */
function foldFork(events: ResearchEvent[], retained: SessionEntry[] = []): ResearchState | null {
  return researchStateFromEntries(FORK, [...retained, ...toEntries(events, "f")]);
}

function rebound(state: ResearchState): Omit<ResearchState, "lastEventId"> {
  const { lastEventId: _ignored, ...rest } = state;
  return { ...rest, sessionId: FORK };
}

function withoutLastEventId(state: ResearchState): Omit<ResearchState, "lastEventId"> {
  const { lastEventId: _ignored, ...rest } = state;
  return rest;
}

const base: ResearchEvent[] = [
  { kind: "session", sessionId: S, objective: "Q", updatedAt: 1_000 },
  {
    kind: "plan",
    sessionId: S,
    strategy: "two threads",
    threads: [
      { id: "T1", title: "One", task: "a" },
      { id: "T2", title: "Two", task: "b" },
    ],
  },
  { kind: "thread", sessionId: S, thread: { id: "T1", status: "done", summary: "s", sourceIds: [1], startedAt: 5, completedAt: 6 } },
  { kind: "source", sessionId: S, source: { url: "https://example.com/a", title: "A", threadId: "T1" } },
  { kind: "source", sessionId: S, source: { path: "./docs/b.md", title: "B", threadId: "T2", id: 4 } },
  { kind: "source", sessionId: S, source: { url: "https://example.com/c", status: "excluded", exclusionReason: "weak" } },
  { kind: "phase", sessionId: S, phase: "report", title: "Report title", citedSourceIds: [1, 4] },
];

describe("forkReplayEvents", () => {
  it("rebinds a complete state whose report is still valid", () => {
    const report = "See [1](https://example.com/a#x) and [4](docs/b.md).";
    const parent = toEntries([
      ...base,
      { kind: "report", sessionId: S, reportEntryId: "msg-9", title: "Report title", citedSourceIds: [1, 4] },
    ]);
    const state = must(researchStateFromEntries(S, parent));
    expect(state.status).toBe("complete");
    const events = forkReplayEvents(state, FORK, report);
    expect(events.every((e) => e.sessionId === FORK)).toBe(true);
    expect(events.map((e) => e.kind)).toEqual([
      "session",
      "objective",
      "plan",
      "thread",
      "thread",
      "source",
      "source",
      "source",
      "phase",
      "report",
    ]);
    const fork = must(foldFork(events, parent));
    expect(withoutLastEventId(fork)).toEqual(rebound(state));
    expect(fork.sources.map((s) => s.id)).toEqual([1, 4, 5]);
  });

  it("writes an error naming the invalid citations instead of a report", () => {
    const parent = toEntries([...base, { kind: "report", sessionId: S, reportEntryId: "msg-9", citedSourceIds: [1] }]);
    const state = must(researchStateFromEntries(S, parent));
    const events = forkReplayEvents(state, FORK, "See [5](https://example.com/c) and [1](https://example.com/zzz).");
    expect(events.at(-1)?.kind).toBe("error");
    const fork = must(foldFork(events));
    expect(fork.status).toBe("error");
    expect(fork.error).toContain("Citation [5](https://example.com/c) cites excluded source 5");
    expect(fork.error).toContain("Citation [1](https://example.com/zzz) does not match source 1");
    expect(fork.reportEntryId).toBe("");
  });

  it("writes an error when the report message is not retained", () => {
    const state = must(researchStateFromEntries(S, toEntries([...base, { kind: "report", sessionId: S, reportEntryId: "msg-9" }])));
    const fork = must(foldFork(forkReplayEvents(state, FORK, null)));
    expect(fork.status).toBe("error");
    expect(fork.error).toContain("msg-9");
  });

  it("replays a failed state as failed, with its message", () => {
    const state = must(researchStateFromEntries(S, toEntries([...base, { kind: "error", sessionId: S, message: "Workers timed out" }])));
    const events = forkReplayEvents(state, FORK, null);
    expect(events.some((e) => e.kind === "error" && e.message === "Workers timed out")).toBe(true);
    expect(withoutLastEventId(must(foldFork(events)))).toEqual(rebound(state));
  });

  it("law: folding the replay gives the source state rebound to the fork id (valid or no report)", () => {
    fc.assert(
      fc.property(arbResearchRun(S, 40), (run) => {
        const parent = toEntries(run, "p");
        const state = must(researchStateFromEntries(S, parent));
        const events = forkReplayEvents(state, FORK, validReport(state.sources));
        expect(events.every((e) => e.sessionId === FORK)).toBe(true);
        const fork = must(foldFork(events, parent));
        expect(withoutLastEventId(fork)).toEqual(rebound(state));
      }),
      { numRuns: 300 },
    );
  });

  it("law: a complete state with an invalid retained report becomes an error, everything else kept", () => {
    fc.assert(
      fc.property(arbResearchRun(S, 30), (run) => {
        const state = must(researchStateFromEntries(S, toEntries(run, "p")));
        fc.pre(state.status === "complete");
        const fork = must(foldFork(forkReplayEvents(state, FORK, "[999](https://nowhere.example)")));
        expect(fork.status).toBe("error");
        expect(fork.error).toContain("Citation [999](https://nowhere.example) names no ledger source 999");
        expect(fork.sources).toEqual(state.sources);
        expect(fork.threads).toEqual(state.threads);
        expect(fork.phase).toBe(state.phase);
      }),
    );
  });
});

describe("resetReconstruction", () => {
  const report = "Findings [1](https://example.com/a) and [4](./docs/b.md).";

  function branch(...tail: (ResearchEvent | SessionEntry)[]): SessionEntry[] {
    return toEntries([...base, ...tail]);
  }

  it("restores the report event when the reset cut it but kept the report message", () => {
    const entries = branch(assistantEntry("calling research_update", "x", "toolUse"), assistantEntry(report));
    const result = resetReconstruction(S, entries);
    const reportEntry = entries.at(-1)!;
    expect(result.state?.status).toBe("running");
    expect(result.restoreReport).toEqual({
      kind: "report",
      sessionId: S,
      reportEntryId: reportEntry.id,
      title: "Report title",
      citedSourceIds: [1, 4],
    });
    const restored = researchStateFromEntries(S, [...entries, ...toEntries([result.restoreReport!], "r")]);
    expect(restored).toMatchObject({ status: "complete", reportEntryId: reportEntry.id, citedSourceIds: [1, 4] });
  });

  it("restores nothing when the report event is still in the branch", () => {
    const entries = branch(assistantEntry(report));
    const withEvent = [...entries, ...toEntries([{ kind: "report", sessionId: S, reportEntryId: entries.at(-1)!.id }], "r")];
    const result = resetReconstruction(S, withEvent);
    expect(result.state?.status).toBe("complete");
    expect(result.restoreReport).toBeNull();
  });

  it("restores nothing for an invalid report, and says why", () => {
    const result = resetReconstruction(S, branch(assistantEntry("Findings [5](https://example.com/c).")));
    expect(result.restoreReport).toBeNull();
    expect(result.reason).toContain("cites excluded source 5");
  });

  it("restores nothing without a checkpoint, before the final message, or after a user message", () => {
    const noCheckpoint = toEntries([...base.slice(0, -1), assistantEntry(report)]);
    expect(resetReconstruction(S, noCheckpoint).restoreReport).toBeNull();
    expect(resetReconstruction(S, branch(assistantEntry(report, "a", "toolUse"))).restoreReport).toBeNull();
    expect(resetReconstruction(S, branch(assistantEntry(report, "a", "aborted"))).restoreReport).toBeNull();
    expect(resetReconstruction(S, branch(userEntry("wait"), assistantEntry(report))).restoreReport).toBeNull();
    expect(resetReconstruction(S, branch()).restoreReport).toBeNull();
  });

  it("ignores another session's checkpoint and is null for a non-research branch", () => {
    const other = toEntries([
      ...base.slice(0, -1),
      { kind: "phase", sessionId: "other", phase: "report", title: "x" },
      assistantEntry(report),
    ]);
    expect(resetReconstruction(S, other).restoreReport).toBeNull();
    expect(resetReconstruction(S, toEntries([userEntry("hi"), assistantEntry(report)]))).toEqual({
      state: null,
      restoreReport: null,
      reason: "",
    });
  });

  it("takes the title from the last checkpoint, else the state's report title", () => {
    const entries = toEntries([...base, { kind: "phase", sessionId: S, phase: "report" }, assistantEntry(report)]);
    expect(resetReconstruction(S, entries).restoreReport?.title).toBe("Report title");
  });
});

describe("resetReconstruction laws", () => {
  /**
   * A generated run, then the report checkpoint, the lead's checkpoint call, a valid report message and its
   * report event (as the extension writes them): the branch a reset cuts.
   */
  function reportedBranch(run: ResearchEvent[]): { entries: SessionEntry[]; messageIndex: number } {
    const checkpoint: ResearchEvent = { kind: "phase", sessionId: S, phase: "report", title: "Law report" };
    const before = toEntries([...run, checkpoint, assistantEntry("checkpoint", "x", "toolUse")], "p");
    const state = must(researchStateFromEntries(S, before));
    const report = validReport(state.sources);
    const withMessage = toEntries([...run, checkpoint, assistantEntry("checkpoint", "x", "toolUse"), assistantEntry(report)], "p");
    const message = withMessage.at(-1) as SessionEntry;
    const reportEvent: ResearchEvent = {
      kind: "report",
      sessionId: S,
      reportEntryId: message.id,
      title: "Law report",
      citedSourceIds: validateReportCitations(report, state.sources).citedSourceIds,
    };
    return {
      entries: [...withMessage, researchEntry(reportEvent, "p-report", message.id, message.timestamp)],
      messageIndex: withMessage.length - 1,
    };
  }

  function withoutTimes(state: ResearchState | null): Omit<ResearchState, "lastEventId" | "updatedAt" | "completedAt"> | null {
    if (state === null) return null;
    const { lastEventId: _l, updatedAt: _u, completedAt: _c, ...rest } = state;
    return rest;
  }

  it("law: the reconstructed state is the fold of the retained branch, at every cut", () => {
    fc.assert(
      fc.property(arbResearchRun(S, 25), fc.nat(), (run, pick) => {
        const { entries } = reportedBranch(run);
        const cut = pick % (entries.length + 1);
        const retained = entries.slice(0, cut);
        expect(resetReconstruction(S, retained).state).toEqual(researchStateFromEntries(S, retained));
      }),
      { numRuns: 300 },
    );
  });

  it("law: a cut between the valid report message and its event restores the report, and the result equals the uncut fold", () => {
    fc.assert(
      fc.property(arbResearchRun(S, 25), (run) => {
        const { entries, messageIndex } = reportedBranch(run);
        const retained = entries.slice(0, messageIndex + 1);
        const retainedState = must(researchStateFromEntries(S, retained));
        const { restoreReport } = resetReconstruction(S, retained);
        const full = must(researchStateFromEntries(S, entries));
        if (retainedState.status === "complete") {
          // an earlier report event of the generated run already completed the state: nothing to restore
          expect(restoreReport).toBeNull();
          return;
        }
        expect(restoreReport).toEqual(parseResearchEvent(entries.at(-1) as SessionEntry));
        const restored = must(
          researchStateFromEntries(S, [
            ...retained,
            researchEntry(restoreReport as ResearchEvent, "restored", entries[messageIndex]?.id ?? null),
          ]),
        );
        expect(withoutTimes(restored)).toEqual(withoutTimes(full));
        expect(restored).toMatchObject({ status: "complete", reportEntryId: entries[messageIndex]?.id });
      }),
      { numRuns: 300 },
    );
  });

  it("law: no report is restored before the report message or once the report event is retained", () => {
    fc.assert(
      fc.property(arbResearchRun(S, 25), fc.nat(), (run, pick) => {
        const { entries, messageIndex } = reportedBranch(run);
        const cut = pick % (entries.length + 1);
        fc.pre(cut <= messageIndex || cut === entries.length);
        expect(resetReconstruction(S, entries.slice(0, cut)).restoreReport).toBeNull();
      }),
      { numRuns: 300 },
    );
  });
});
