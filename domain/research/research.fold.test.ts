import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  arbForeignEntry,
  arbResearchRun,
  arbResearchUpdate,
  arbSourceInput,
  assistantEntry,
  researchEntry,
  toEntries,
} from "../../test/arbitraries/research.arbitrary.ts";
import type { SessionEntry } from "../session-log.ts";
import { applyResearchEvent, researchStateFromEntries, summarizeResearch } from "./research.fold.ts";
import type { ResearchEvent, ResearchState } from "./research-types.ts";
import { registerSources, sourceEventPayload } from "./source-ledger.ts";

const S = "sess-a";
const T0 = Date.parse("2025-01-01T00:00:00.000Z");

function fold(events: ResearchEvent[]): ResearchState | null {
  return researchStateFromEntries(S, toEntries(events));
}

function must(state: ResearchState | null): ResearchState {
  if (state === null) throw new Error("expected a research state");
  return state;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

const marker: ResearchEvent = { kind: "session", sessionId: S, objective: "  How do ledgers work?  " };

describe("researchStateFromEntries", () => {
  it("is null before a marker and for other sessions' markers", () => {
    expect(fold([{ kind: "objective", sessionId: S, objective: "x" }])).toBeNull();
    expect(researchStateFromEntries(S, toEntries([{ kind: "session", sessionId: "other" }]))).toBeNull();
    expect(researchStateFromEntries("", toEntries([{ kind: "session", sessionId: "" }]))).toBeNull();
  });

  it("starts at the marker: running, plan phase, objective, times from the entry", () => {
    const state = must(fold([marker]));
    expect(state).toEqual({
      version: 1,
      sessionId: S,
      status: "running",
      phase: "plan",
      objective: "How do ledgers work?",
      reportTitle: "",
      reportEntryId: "",
      threadCount: 0,
      completedThreadCount: 0,
      sourceCount: 0,
      citedSourceCount: 0,
      excludedSourceCount: 0,
      updatedAt: T0,
      strategy: "",
      note: "",
      threads: [],
      sources: [],
      citedSourceIds: [],
      error: "",
      createdAt: T0,
      completedAt: 0,
      reportRequestedAt: 0,
      lastEventId: "e1",
    });
  });

  it("ignores a second marker of the same session", () => {
    const state = must(fold([marker, { kind: "objective", sessionId: S, objective: "new" }, { kind: "session", sessionId: S }]));
    expect(state.objective).toBe("new");
    expect(state.lastEventId).toBe("e2");
  });

  it("ignores events of another session id, even after its marker", () => {
    const state = must(
      researchStateFromEntries(
        S,
        toEntries([
          { kind: "session", sessionId: "other" },
          marker,
          { kind: "error", sessionId: "other", message: "not ours" },
          { kind: "objective", sessionId: "other", objective: "not ours" },
        ]),
      ),
    );
    expect(state.status).toBe("running");
    expect(state.objective).toBe("How do ledgers work?");
    expect(state.lastEventId).toBe("e2");
  });

  it("uses data.updatedAt before the entry timestamp, and updatedAt never goes back", () => {
    const state = must(
      fold([
        { ...marker, updatedAt: 1000 },
        { kind: "objective", sessionId: S, objective: "later", updatedAt: 5000 },
        { kind: "objective", sessionId: S, objective: "earlier", updatedAt: 3000 },
      ]),
    );
    expect(state.createdAt).toBe(1000);
    expect(state.updatedAt).toBe(5000);
  });
});

describe("applyResearchEvent by kind", () => {
  const start = must(fold([marker]));
  const at = (entryId: string, timestampMs = T0 + 1000) => ({ entryId, timestampMs });

  it("plan sets strategy and threads (deduplicated, fallback ids, at most 12), phase plan, status running", () => {
    const planned = must(
      applyResearchEvent(
        start,
        {
          kind: "plan",
          sessionId: S,
          strategy: " split ",
          threads: [
            { id: "T1", title: "", task: "Read the spec" },
            { id: "T1", title: "dup", task: "" },
            { id: "", title: "Untitled id", task: "" },
            ...Array.from({ length: 12 }, (_, i) => ({ id: `X${i}`, title: `x${i}`, task: "" })),
          ],
        },
        at("p"),
      ),
    );
    expect(planned.strategy).toBe("split");
    expect(planned.threads).toHaveLength(12);
    expect(planned.threads[0]).toMatchObject({ id: "T1", title: "Read the spec", task: "Read the spec", status: "queued" });
    expect(planned.threads[1]).toMatchObject({ id: "T3", title: "Untitled id" });
    expect(planned.threadCount).toBe(12);
    expect(planned.lastEventId).toBe("p");
  });

  it("a re-plan keeps the progress of a planned thread that already exists", () => {
    const s1 = must(
      applyResearchEvent(start, { kind: "thread", sessionId: S, thread: { id: "T1", status: "done", summary: "found" } }, at("t")),
    );
    const s2 = must(
      applyResearchEvent(s1, { kind: "plan", sessionId: S, strategy: "", threads: [{ id: "T1", title: "New", task: "k" }] }, at("p")),
    );
    expect(s2.threads).toEqual([expect.objectContaining({ id: "T1", title: "New", task: "k", status: "done", summary: "found" })]);
    expect(s2.completedThreadCount).toBe(1);
  });

  it("thread merges given fields into the thread with the same id", () => {
    const s1 = must(
      applyResearchEvent(
        start,
        { kind: "thread", sessionId: S, thread: { id: "T1", title: "First", task: "t", status: "running", startedAt: 10 } },
        at("t1"),
      ),
    );
    const s2 = must(
      applyResearchEvent(
        s1,
        {
          kind: "thread",
          sessionId: S,
          thread: {
            id: "T1",
            title: "",
            status: "done",
            sourceIds: [2, 2, 1, -1],
            childSession: { id: "c", path: "/p", cwd: "/w" },
            completedAt: 20,
          },
        },
        at("t2"),
      ),
    );
    expect(s2.threads).toEqual([
      {
        id: "T1",
        title: "First",
        task: "t",
        status: "done",
        summary: "",
        sourceIds: [2, 1],
        childSession: { id: "c", path: "/p", cwd: "/w" },
        error: "",
        startedAt: 10,
        completedAt: 20,
      },
    ]);
    expect(s2.completedThreadCount).toBe(1);
    const s3 = must(
      applyResearchEvent(s2, { kind: "thread", sessionId: S, thread: { id: "T2", status: "error", error: "boom" } }, at("t3")),
    );
    expect(s3.threads.map((t) => [t.id, t.title, t.status])).toEqual([
      ["T1", "First", "done"],
      ["T2", "T2", "error"],
    ]);
    // finished threads count, done or error (existing readers of the format count them so)
    expect(s3.completedThreadCount).toBe(2);
    const s4 = must(applyResearchEvent(s3, { kind: "thread", sessionId: S, thread: { id: "T3", status: "running" } }, at("t4")));
    expect(s4.completedThreadCount).toBe(2);
  });

  it("source merges by canonical key, keeps ids, and derives statuses", () => {
    const events: ResearchEvent[] = [
      { kind: "source", sessionId: S, source: { url: "https://example.com/a#x", title: "A", threadId: "T1" } },
      { kind: "source", sessionId: S, source: { url: "https://example.com/a/", claim: "c", threadId: "T2", id: 5 } },
      { kind: "source", sessionId: S, source: { path: "./notes.md", id: 5 } },
      { kind: "source", sessionId: S, source: { path: "notes.md", status: "excluded", exclusionReason: "old" } },
      { kind: "phase", sessionId: S, phase: "synthesize", citedSourceIds: [1, 2] },
    ];
    const state = must(fold([marker, ...events]));
    expect(state.sources.map((s) => [s.id, s.key, s.status, s.threadIds, s.title])).toEqual([
      [1, "url:https://example.com/a", "cited", ["T1", "T2"], "A"],
      [5, "path:notes.md", "excluded", [], "./notes.md"],
    ]);
    expect(state.sources[0]?.claim).toBe("c");
    expect(state.sources[1]?.exclusionReason).toBe("old");
    expect([state.sourceCount, state.citedSourceCount, state.excludedSourceCount]).toEqual([2, 1, 1]);
  });

  it("a source status can un-exclude; an absent status leaves the exclusion", () => {
    const state = must(
      fold([
        marker,
        { kind: "source", sessionId: S, source: { path: "a.md", status: "excluded" } },
        { kind: "source", sessionId: S, source: { path: "a.md", title: "kept" } },
      ]),
    );
    expect(state.sources[0]?.status).toBe("excluded");
    const back = must(applyResearchEvent(state, { kind: "source", sessionId: S, source: { path: "a.md", status: "candidate" } }, at("x")));
    expect(back.sources[0]?.status).toBe("candidate");
  });

  it("phase sets phase, status, note, title and intended citations; report checkpoint time", () => {
    const s1 = must(
      applyResearchEvent(
        start,
        { kind: "phase", sessionId: S, phase: "report", note: "n", title: "The report", citedSourceIds: [3] },
        at("ph", 7000),
      ),
    );
    expect(s1).toMatchObject({
      phase: "report",
      status: "running",
      note: "n",
      reportTitle: "The report",
      citedSourceIds: [3],
      reportRequestedAt: 7000,
    });
    const s2 = must(applyResearchEvent(s1, { kind: "phase", sessionId: S, phase: "gather", status: "error" }, at("ph2", 8000)));
    expect(s2).toMatchObject({
      phase: "gather",
      status: "error",
      note: "",
      reportTitle: "The report",
      citedSourceIds: [3],
      reportRequestedAt: 0,
    });
  });

  it("report marks complete; error marks failed", () => {
    const s1 = must(
      applyResearchEvent(start, { kind: "report", sessionId: S, reportEntryId: "m9", title: "T", citedSourceIds: [1] }, at("r", 9000)),
    );
    expect(s1).toMatchObject({
      status: "complete",
      phase: "report",
      reportEntryId: "m9",
      reportTitle: "T",
      citedSourceIds: [1],
      completedAt: 9000,
      reportRequestedAt: 9000,
      lastEventId: "r",
    });
    const s2 = must(applyResearchEvent(s1, { kind: "error", sessionId: S, message: "" }, at("err")));
    expect(s2).toMatchObject({ status: "error", error: "Research failed", reportEntryId: "m9" });
  });

  it("returns the same object for an ignored event, and never throws on a malformed hand-built event", () => {
    expect(applyResearchEvent(start, { kind: "objective", sessionId: S, objective: "  " }, at("x"))).toBe(start);
    expect(applyResearchEvent(start, { kind: "objective", sessionId: "other", objective: "x" }, at("x"))).toBe(start);
    expect(applyResearchEvent(null, { kind: "error", sessionId: S, message: "x" }, at("x"))).toBeNull();
    const broken = { kind: "thread", sessionId: S, thread: null } as unknown as ResearchEvent;
    expect(applyResearchEvent(start, broken, at("x"))).toBe(start);
    const weird = { kind: "source", sessionId: S, source: 5 } as unknown as ResearchEvent;
    expect(applyResearchEvent(start, weird, at("x"))).toBe(start);
  });

  it("summarizeResearch keeps exactly the ResearchSummary fields", () => {
    const summary = summarizeResearch(start);
    expect(Object.keys(summary).sort()).toEqual(
      [
        "sessionId",
        "status",
        "phase",
        "objective",
        "reportTitle",
        "reportEntryId",
        "threadCount",
        "completedThreadCount",
        "sourceCount",
        "citedSourceCount",
        "excludedSourceCount",
        "updatedAt",
      ].sort(),
    );
    expect(summary.objective).toBe(start.objective);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Laws
// ---------------------------------------------------------------------------------------------------------

/** Entries of a run with ids prefixed by the session, so that interleavings keep their ids. */
function runEntries(events: ResearchEvent[], prefix: string): SessionEntry[] {
  return toEntries(events, prefix);
}

function interleave<T>(a: readonly T[], b: readonly T[], picks: readonly boolean[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length || j < b.length) {
    const takeA = j >= b.length || (i < a.length && (picks[k++ % Math.max(picks.length, 1)] ?? true));
    if (takeA) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

describe("fold laws", () => {
  it("ignores events of other session ids", () => {
    fc.assert(
      fc.property(arbResearchRun("sess-a"), arbResearchRun("sess-b"), fc.array(fc.boolean()), (runA, runB, picks) => {
        const own = runEntries(runA, "a");
        const mixed = interleave(own, runEntries(runB, "b"), picks);
        expect(researchStateFromEntries("sess-a", mixed)).toEqual(researchStateFromEntries("sess-a", own));
      }),
    );
  });

  it("unknown and invalid entries change nothing", () => {
    fc.assert(
      fc.property(arbResearchRun(S), fc.array(arbForeignEntry, { maxLength: 8 }), fc.array(fc.boolean()), (run, foreign, picks) => {
        const own = runEntries(run, "a");
        expect(researchStateFromEntries(S, interleave(own, foreign, picks))).toEqual(researchStateFromEntries(S, own));
      }),
    );
  });

  it("is pure: folding twice gives equal states and neither entries nor states are mutated", () => {
    fc.assert(
      fc.property(arbResearchRun(S), (run) => {
        const entries = deepFreeze(runEntries(run, "a"));
        const first = researchStateFromEntries(S, entries);
        const second = researchStateFromEntries(S, entries);
        expect(second).toEqual(first);
        // Applying events to a frozen state must not try to mutate it (strict mode would throw).
        let state: ResearchState | null = null;
        run.forEach((event, index) => {
          state = applyResearchEvent(deepFreeze(state), event, { entryId: `a${index + 1}`, timestampMs: T0 + index * 1000 });
        });
        expect(state).toEqual(first);
      }),
    );
  });

  it("an incremental fold equals the full fold at every split point", () => {
    fc.assert(
      fc.property(arbResearchRun(S), fc.nat(), (run, cut) => {
        const entries = runEntries(run, "a");
        const split = cut % (entries.length + 1);
        let state = researchStateFromEntries(S, entries.slice(0, split));
        for (const entry of entries.slice(split)) {
          const data = entry.type === "custom" ? entry.data : null;
          const event = data as ResearchEvent;
          state = applyResearchEvent(state, event, { entryId: entry.id, timestampMs: Date.parse(entry.timestamp) });
        }
        expect(state).toEqual(researchStateFromEntries(S, entries));
      }),
    );
  });

  it("keeps its invariants: unique ids, counts match, statuses derived, reportRequestedAt only in the report phase", () => {
    fc.assert(
      fc.property(arbResearchRun(S, 40), (run) => {
        const state = must(fold(run));
        const ids = state.sources.map((s) => s.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect([...ids].sort((a, b) => a - b)).toEqual(ids);
        expect(new Set(state.sources.map((s) => s.key)).size).toBe(ids.length);
        expect(new Set(state.threads.map((t) => t.id)).size).toBe(state.threads.length);
        expect(state.threadCount).toBe(state.threads.length);
        expect(state.completedThreadCount).toBe(state.threads.filter((t) => t.status === "done" || t.status === "error").length);
        expect(state.sourceCount).toBe(state.sources.length);
        for (const s of state.sources) {
          if (s.status !== "excluded") expect(s.status).toBe(state.citedSourceIds.includes(s.id) ? "cited" : "candidate");
        }
        expect(state.citedSourceCount).toBe(state.sources.filter((s) => s.status === "cited").length);
        expect(state.excludedSourceCount).toBe(state.sources.filter((s) => s.status === "excluded").length);
        if (state.phase !== "report") expect(state.reportRequestedAt).toBe(0);
        else expect(state.reportRequestedAt).toBeGreaterThan(0);
        expect(state.updatedAt).toBeGreaterThanOrEqual(Math.max(state.createdAt, state.completedAt, state.reportRequestedAt));
        expect(JSON.parse(JSON.stringify(state))).toEqual(state);
      }),
    );
  });

  it("never throws on arbitrary research entry data", () => {
    fc.assert(
      fc.property(arbResearchRun(S, 5), fc.array(fc.anything(), { maxLength: 5 }), (run, junk) => {
        const entries = [
          ...runEntries(run, "a"),
          ...junk
            .map((data, i) => researchEntry({ kind: "error", sessionId: S, message: "" }, `j${i}`))
            .map((e, i) => ({
              ...e,
              data: junk[i],
            })),
        ];
        expect(() => researchStateFromEntries(S, entries)).not.toThrow();
      }),
    );
  });
});

describe("fold with messages", () => {
  it("ignores assistant messages and other sessions' update arbitraries", () => {
    fc.assert(
      fc.property(fc.array(arbResearchUpdate("sess-b"), { maxLength: 10 }), (updates) => {
        const entries = toEntries([marker, assistantEntry("[1](https://example.com)"), ...updates]);
        expect(researchStateFromEntries(S, entries)).toEqual(researchStateFromEntries(S, toEntries([marker])));
      }),
    );
  });
});

describe("ledger and fold agree", () => {
  it("folding the source events written after a registration gives the registered ledger", () => {
    fc.assert(
      fc.property(
        arbResearchRun(S, 25),
        fc.constantFrom("T1", "T2"),
        fc.array(arbSourceInput({ valid: false }), { maxLength: 25 }),
        (run, threadId, inputs) => {
          const state = must(fold(run));
          const { state: registered, report } = registerSources(state, threadId, inputs);
          let folded: ResearchState | null = state;
          [...report.added, ...report.merged].forEach((id, index) => {
            const source = registered.sources.find((s) => s.id === id);
            if (!source) throw new Error(`registered source ${id} is missing`);
            const event: ResearchEvent = { kind: "source", sessionId: S, source: sourceEventPayload(source) };
            folded = applyResearchEvent(folded, event, { entryId: `s${index}`, timestampMs: T0 });
          });
          expect(must(folded).sources).toEqual(registered.sources);
        },
      ),
    );
  });
});
