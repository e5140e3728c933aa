import { describe, expect, it } from "vitest";
import { toEntries } from "../../test/arbitraries/research.arbitrary.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import type { ResearchEvent, ResearchState } from "../../domain/research/research-types.ts";
import { researchUpdate, ResearchUpdateError } from "./research-update.ts";

const S = "sess-a";

function stateOf(events: ResearchEvent[]): ResearchState {
  const state = researchStateFromEntries(S, toEntries(events));
  if (state === null) throw new Error("no state");
  return state;
}

const planned: ResearchEvent[] = [
  { kind: "session", sessionId: S },
  {
    kind: "plan",
    sessionId: S,
    strategy: "s",
    threads: [
      { id: "t1", title: "One", task: "a" },
      { id: "t2", title: "Two", task: "b" },
    ],
  },
];

describe("researchUpdate", () => {
  it("plan: records strategy and threads", () => {
    const state = stateOf([{ kind: "session", sessionId: S }]);
    const out = researchUpdate(state, { action: "plan", strategy: "split", threads: [{ id: "t1", title: "One", task: "a" }] });
    expect(out.events).toEqual([{ kind: "plan", sessionId: S, strategy: "split", threads: [{ id: "t1", title: "One", task: "a" }] }]);
    const next = stateOf([{ kind: "session", sessionId: S }, ...out.events]);
    expect(next.threads.map((t) => [t.id, t.status])).toEqual([["t1", "queued"]]);
    expect(out.text).toContain("t1");
  });

  it("plan without threads and phase without phase are refused", () => {
    const state = stateOf(planned);
    expect(() => researchUpdate(state, { action: "plan", strategy: "x", threads: [] })).toThrow(ResearchUpdateError);
    expect(() => researchUpdate(state, { action: "phase" })).toThrow(/needs phase/);
  });

  it("phase report: keeps only usable cited ids and says which were left out", () => {
    const state = stateOf([
      ...planned,
      { kind: "source", sessionId: S, source: { url: "https://a.example/1", title: "A" } },
      { kind: "source", sessionId: S, source: { url: "https://a.example/2", title: "B", status: "excluded", exclusionReason: "weak" } },
    ]);
    const out = researchUpdate(state, { action: "phase", phase: "report", title: "The report", citedSourceIds: [1, 2, 9], note: "n" });
    expect(out.events).toEqual([{ kind: "phase", sessionId: S, phase: "report", note: "n", title: "The report", citedSourceIds: [1] }]);
    expect(out.text).toContain("Left out of citedSourceIds (not a usable ledger source): 2, 9.");
    const next = stateOf([...planned, ...out.events]);
    expect(next.phase).toBe("report");
    expect(next.reportTitle).toBe("The report");
  });

  it("sources: assigns ids, merges by canonical key, rejects invalid ones, and links a known thread", () => {
    const base = [...planned, { kind: "source", sessionId: S, source: { url: "https://a.example/x", title: "X" } } as ResearchEvent];
    const state = stateOf(base);
    const out = researchUpdate(state, {
      action: "sources",
      threadId: "t2",
      sources: [
        { url: "https://a.example/new", title: "New" },
        { url: "https://a.example/x/#frag", title: "X again", claim: "c" },
        { title: "nowhere" },
      ],
    });
    expect(out.sourceIds).toEqual([2, 1]);
    expect(out.events.map((e) => e.kind)).toEqual(["source", "source", "thread"]);
    expect(out.text).toContain("[2] https://a.example/new | New");
    expect(out.text).toContain("[1] https://a.example/x | X (already in the ledger; merged)");
    expect(out.text).toContain("source #3: a source needs an http(s) url or a non-empty path");
    const next = stateOf([...base, ...out.events]);
    expect(next.sources.map((s) => [s.id, s.threadIds, s.claim])).toEqual([
      [1, ["t2"], "c"],
      [2, ["t2"], ""],
    ]);
    expect(next.threads.find((t) => t.id === "t2")?.sourceIds).toEqual([2, 1]);
  });

  it("sources: 20 per call and 60 per session", () => {
    const many = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ url: `https://s.example/${from + i}`, title: `S${from + i}` }));
    let events: ResearchEvent[] = [...planned];
    const first = researchUpdate(stateOf(events), { action: "sources", sources: many(0, 25) });
    expect(first.sourceIds).toHaveLength(20);
    expect(first.text).toContain("Rejected 5");
    expect(first.text).toContain("source #21: only the first 20 sources of one result are registered");
    events = [...events, ...first.events];
    for (let k = 1; k < 3; k++)
      events = [...events, ...researchUpdate(stateOf(events), { action: "sources", sources: many(k * 100, 20) }).events];
    expect(stateOf(events).sourceCount).toBe(60);
    const over = researchUpdate(stateOf(events), {
      action: "sources",
      sources: [...many(900, 1), { url: "https://s.example/0", title: "again" }],
    });
    expect(over.sourceIds).toEqual([1]);
    expect(over.text).toContain("source #1: the research session already holds 60 sources");
  });

  it("sources without any usable input writes nothing", () => {
    const out = researchUpdate(stateOf(planned), { action: "sources", sources: [{ title: "x" }] });
    expect(out.events).toEqual([]);
    expect(out.text).toContain("No source was registered.");
    expect(() => researchUpdate(stateOf(planned), { action: "sources", sources: [] })).toThrow(ResearchUpdateError);
  });

  it("exclude: excludes with a reason; unknown ids and blank reasons are refused", () => {
    const base = [...planned, { kind: "source", sessionId: S, source: { path: "./notes.md", title: "Notes" } } as ResearchEvent];
    const out = researchUpdate(stateOf(base), { action: "exclude", sourceId: 1, reason: "outdated" });
    const next = stateOf([...base, ...out.events]);
    expect(next.sources[0]).toMatchObject({ id: 1, status: "excluded", exclusionReason: "outdated", path: "./notes.md" });
    expect(() => researchUpdate(stateOf(base), { action: "exclude", sourceId: 7, reason: "x" })).toThrow("Source 7 is not in the ledger");
    expect(() => researchUpdate(stateOf(base), { action: "exclude", sourceId: 1, reason: " " })).toThrow("An exclusion needs a reason");
    expect(() => researchUpdate(stateOf(base), { action: "exclude", reason: "x" })).toThrow("needs sourceId");
  });
});
