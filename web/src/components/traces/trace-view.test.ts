/**
 * The trace views' pure rules: the timeline tree (parents, start order, loops, child runs by tool call, parallel
 * runs of one call, unplaced runs), the offset bar, labels, the clipped note, the user-turn map, the page merge
 * and the decoding of the socket's trace notices.
 */
import { describe, expect, it } from "vitest";
import { mergeTracePages, traceSignalOf } from "../../api/traces.ts";
import {
  buildTimeline,
  clippedNote,
  durationText,
  offsetBar,
  pageRangeText,
  readableText,
  timelineOf,
  tokensText,
  tracesByUserEntry,
  type TimelineNode,
} from "./trace-view.ts";
import { child, observation, summaryOf, trace } from "./traces.fixture.ts";

const ids = (nodes: TimelineNode[]): unknown[] =>
  nodes.map((node) => (node.children.length === 0 ? node.observation.id : [node.observation.id, ids(node.children)]));

describe("timelineOf", () => {
  it("builds a record's timeline once, and a new one for a new record", () => {
    const record = trace({
      observations: [observation({ id: "g1" }), observation({ id: "t1", parentId: "g1", type: "TOOL", metadata: { toolCallId: "c1" } })],
      metadata: { children: [child({ traceId: "kid", toolCallId: "c1" })] },
    });
    const timeline = timelineOf(record);
    expect(timelineOf(record)).toBe(timeline);
    expect(ids(timeline.roots)).toEqual([["g1", ["t1"]]]);
    expect(timeline.roots[0]?.children[0]?.childRuns.map((run) => run.traceId)).toEqual(["kid"]);
    const refreshed = { ...record };
    expect(timelineOf(refreshed)).not.toBe(timeline);
    expect(timelineOf(refreshed)).toEqual(timeline);
  });
});

describe("buildTimeline", () => {
  it("nests each observation under its loaded parent, by start time, and keeps orphans at the top", () => {
    const timeline = buildTimeline(
      [
        observation({ id: "g2", startTime: 5 }),
        observation({ id: "tool-b", parentId: "g1", type: "TOOL", startTime: 3 }),
        observation({ id: "g1", startTime: 0 }),
        observation({ id: "tool-a", parentId: "g1", type: "TOOL", startTime: 2 }),
        observation({ id: "orphan", parentId: "not-loaded", startTime: 4 }),
      ],
      [],
    );
    expect(ids(timeline.roots)).toEqual([["g1", ["tool-a", "tool-b"]], "orphan", "g2"]);
  });

  it("puts observations caught in a parent loop at the top instead of losing them", () => {
    const timeline = buildTimeline(
      [
        observation({ id: "a", parentId: "b", startTime: 1 }),
        observation({ id: "b", parentId: "a", startTime: 2 }),
        observation({ id: "self", parentId: "self" }),
      ],
      [],
    );
    expect(ids(timeline.roots).sort()).toEqual(["a", "b", "self"]);
  });

  it("hangs child runs under the tool call that started them (several for a parallel call); the rest are unplaced", () => {
    const timeline = buildTimeline(
      [
        observation({ id: "g1" }),
        observation({ id: "call", parentId: "g1", type: "TOOL", metadata: { toolCallId: "c1" } }),
        observation({ id: "gen-with-call-id", metadata: { toolCallId: "c2" } }),
      ],
      [
        child({ traceId: "r1", toolCallId: "c1" }),
        child({ traceId: "r2", toolCallId: "c1" }),
        child({ traceId: "r3", toolCallId: "c2" }),
        child({ traceId: "r4", toolCallId: null }),
      ],
    );
    expect(timeline.roots[0]?.children[0]?.childRuns.map((run) => run.traceId)).toEqual(["r1", "r2"]);
    expect(timeline.unplaced.map((run) => run.traceId)).toEqual(["r3", "r4"]);
  });
});

describe("labels", () => {
  it("places a bar on the run's time axis; a running row reaches the end", () => {
    expect(offsetBar(2, 3, 10)).toEqual({ left: 20, width: 30 });
    expect(offsetBar(8, null, 10)).toEqual({ left: 80, width: 20 });
    expect(offsetBar(12, 5, 10)).toEqual({ left: 100, width: 0.5 });
    expect(offsetBar(0, 1, 0)).toEqual({ left: 0, width: 100 });
  });

  it("says durations, tokens, clipping, JSON and page ranges as people read them", () => {
    expect([
      durationText(0.0423),
      durationText(3.456),
      durationText(42.25),
      durationText(125),
      durationText(3725),
      durationText(null),
    ]).toEqual(["42 ms", "3.46 s", "42.3 s", "2 min 5 s", "1 h 2 min", ""]);
    expect(tokensText(12_345, 0)).toBe("12k in · 0 out");
    expect(tokensText(0, 0)).toBe("");
    expect(clippedNote({ fields: ["output"], fieldBytes: { output: 40_960 } }, "output")).toBe("clipped (40 KB)");
    expect(clippedNote({ fields: ["output"] }, "output")).toBe("clipped");
    expect(clippedNote({ fields: ["output"] }, "input")).toBeNull();
    expect(readableText('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(readableText("{not json")).toBe("{not json");
    expect(pageRangeText({ traces: [summaryOf(trace())], total: 51, page: 2, limit: 50 })).toBe("51–51 of 51");
  });

  it("maps each user turn to its newest run in a newest-first list", () => {
    const list = [
      trace({ id: "new", metadata: { userEntryId: "u1" } }),
      trace({ id: "old", metadata: { userEntryId: "u1" } }),
      trace({ id: "none" }),
      trace({ id: "other", metadata: { userEntryId: "u2" } }),
    ].map(summaryOf);
    expect(tracesByUserEntry(list)).toEqual({ u1: "new", u2: "other" });
  });
});

describe("api helpers", () => {
  it("appends a further page once, and keeps a collection that had no further page", () => {
    const first = trace({
      observations: [observation({ id: "o1" }), observation({ id: "o2" })],
      scores: [],
      pagination: {
        observations: { total: 3, offset: 0, limit: 2, nextOffset: 2, truncated: true },
        scores: { total: 0, offset: 0, limit: 200, nextOffset: null, truncated: false },
      },
    });
    const next = trace({
      revision: 2,
      observations: [observation({ id: "o2" }), observation({ id: "o3" })],
      scores: [],
      pagination: {
        observations: { total: 3, offset: 2, limit: 2, nextOffset: null, truncated: false },
        scores: { total: 0, offset: 0, limit: 1, nextOffset: null, truncated: false },
      },
    });
    const merged = mergeTracePages(first, next);
    expect(merged.observations.map((o) => o.id)).toEqual(["o1", "o2", "o3"]);
    expect(merged.pagination.observations.nextOffset).toBeNull();
    expect(merged.pagination.scores.limit).toBe(200);
    expect(merged.revision).toBe(2);
  });

  it("decodes trace notices and refuses malformed ones", () => {
    expect(traceSignalOf({ type: "trace_updated", data: { traceId: "t", sessionId: "s", revision: 3, activeSessionId: "s" } })).toEqual({
      kind: "updated",
      notice: { traceId: "t", sessionId: "s", revision: 3, activeSessionId: "s" },
    });
    expect(traceSignalOf({ type: "trace_config", data: { enabled: false } })).toEqual({ kind: "config", config: { enabled: false } });
    expect(traceSignalOf({ type: "trace_config", data: { enabled: true, error: "Tracing is unavailable." } })).toEqual({
      kind: "config",
      config: { enabled: true, error: "Tracing is unavailable." },
    });
    expect(traceSignalOf({ type: "trace_updated", data: { traceId: "t" } })).toBeNull();
    expect(traceSignalOf({ type: "trace_config", data: { enabled: "yes" } })).toBeNull();
    expect(traceSignalOf({ type: "runtime_roster", data: { sessionIds: [] } })).toBeNull();
  });
});
