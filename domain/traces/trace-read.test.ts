/**
 * Reading traces (trace-read.ts) against spec "Trace routes" and "Trace errors": the list and detail queries
 * (defaults, clamps, limits and every explicit message), trace ids, and stored records turned into the spec's
 * shapes with the read limits: text fields clipped to 32 KiB and said so, the detail's 8 MiB collection budget
 * (scores first, up to 2 MiB), pagination, and usage own / descendants / total. The budget's law is checked over
 * arbitrary collections.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { utf8Length } from "../utf8-text.ts";
import type { ObservationRecord, TraceRecord } from "./trace-records.ts";
import {
  checkDetailQuery,
  checkListQuery,
  checkTraceId,
  type DetailParts,
  MAX_FILTER_CHARS,
  MAX_QUERY_CHARS,
  MAX_QUERY_TERMS,
  observationOf,
  READ_BUDGET_BYTES,
  READ_FIELD_BYTES,
  SCORE_BUDGET_BYTES,
  scoreOf,
  traceDetailOf,
  TRACE_MESSAGES,
  traceSummaryOf,
} from "./trace-read.ts";
import type { TraceObservation, TraceScore, TraceUsage } from "./trace-types.ts";

const START = Date.UTC(2025, 2, 12, 10, 0, 0);
const ZERO: TraceUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 };

function traceRecord(overrides: Partial<TraceRecord> = {}): TraceRecord {
  return {
    id: "trace-1",
    sessionId: "session-1",
    sessionFile: "/home/me/.pi/agent/sessions/a.jsonl",
    sessionName: "Refactor",
    cwd: "/work/project",
    parentSessionFile: null,
    parent: { traceId: null, sessionId: null, toolCallId: null },
    agent: null,
    tags: ["leyline"],
    name: "Fix the failing test",
    status: "completed",
    level: "DEFAULT",
    statusMessage: null,
    startMs: START,
    endMs: START + 2_500,
    updatedMs: START + 9_000,
    input: "Fix the failing test",
    output: "Fixed.",
    model: "anthropic/claude-sonnet-4-5",
    userEntryId: "entry-1",
    startEntryId: "entry-1",
    endEntryId: "entry-4",
    usage: { inputTokens: 5_200, outputTokens: 50, totalTokens: 5_250, cost: 0.25 },
    bookmarked: false,
    revision: 7,
    environment: "default",
    userId: "me",
    version: "0.1.0",
    metadata: {},
    ...overrides,
  };
}

function observationRecord(overrides: Partial<ObservationRecord> = {}): ObservationRecord {
  return {
    id: "trace-1:gen:1",
    parentId: null,
    type: "GENERATION",
    name: "chat anthropic/claude-sonnet-4-5",
    startMs: START + 1_500,
    endMs: START + 4_000,
    level: "DEFAULT",
    status: "completed",
    statusMessage: null,
    model: "anthropic/claude-sonnet-4-5",
    input: null,
    output: "Fixed.",
    usage: { inputTokens: 5_200, outputTokens: 50, totalTokens: 5_250, cost: 0.25 },
    toolCallId: null,
    entryId: null,
    metadata: { stopReason: "stop" },
    ...overrides,
  };
}

function score(id: string, comment: string | null): TraceScore {
  return scoreOf({
    id,
    traceName: "Fix the failing test",
    name: "helpful",
    value: 1,
    comment,
    source: "ANNOTATION",
    timestamp: "2025-03-12T10:00:00.000Z",
    dataType: "NUMERIC",
  });
}

interface PartsInput {
  record?: TraceRecord;
  observations?: Partial<DetailParts["observations"]>;
  scores?: Partial<DetailParts["scores"]>;
  children?: DetailParts["children"];
  descendants?: TraceUsage;
}

/** A detail read's parts: the given collections (whole, from offset 0, unless told) around a stored trace. */
function parts(overrides: PartsInput = {}): DetailParts {
  const observations = overrides.observations?.items ?? [];
  const scores = overrides.scores?.items ?? [];
  return {
    record: overrides.record ?? traceRecord(),
    observations: { items: observations, total: observations.length, offset: 0, limit: 200, ...overrides.observations },
    scores: { items: scores, total: scores.length, offset: 0, limit: 200, ...overrides.scores },
    children: overrides.children ?? [],
    descendants: overrides.descendants ?? ZERO,
  };
}

const bytesOf = (items: readonly unknown[]): number => items.reduce<number>((sum, item) => sum + utf8Length(JSON.stringify(item)), 0);

/** A read observation of ~64 KiB of JSON: its 40 KiB input and output clipped to 32 KiB each. */
const bigObservation = (i: number): TraceObservation =>
  observationOf(observationRecord({ id: `trace-1:gen:${i}`, input: "i".repeat(40_960), output: "o".repeat(40_960) }), START);

describe("checkListQuery", () => {
  it("defaults to page 1 of 50 with no filters", () => {
    expect(checkListQuery({})).toEqual({ ok: true, value: { terms: [], page: 1, limit: 50, offset: 0 } });
  });

  it("computes the offset from page and limit, and clamps the limit to 200", () => {
    expect(checkListQuery({ page: "3", limit: "20" })).toMatchObject({ ok: true, value: { page: 3, limit: 20, offset: 40 } });
    expect(checkListQuery({ page: "2", limit: "500" })).toMatchObject({ ok: true, value: { page: 2, limit: 200, offset: 200 } });
    expect(checkListQuery({ limit: "200" })).toMatchObject({ ok: true, value: { limit: 200 } });
  });

  it("keeps the non-empty filters and lower-cases the search terms", () => {
    expect(checkListQuery({ sessionId: "s1", cwd: "/work", status: "error", q: "  Foo   BAR\tbaz " })).toEqual({
      ok: true,
      value: { sessionId: "s1", cwd: "/work", status: "error", terms: ["foo", "bar", "baz"], page: 1, limit: 50, offset: 0 },
    });
    expect(checkListQuery({ sessionId: "", cwd: "", status: "", q: "" })).toEqual({
      ok: true,
      value: { terms: [], page: 1, limit: 50, offset: 0 },
    });
  });

  it.each(["running", "completed", "error", "aborted"])("accepts the status %s", (status) => {
    expect(checkListQuery({ status })).toMatchObject({ ok: true, value: { status } });
  });

  it.each(["done", "RUNNING", " running", "pending"])("rejects the status %j with 'Invalid trace status'", (status) => {
    expect(checkListQuery({ status })).toEqual({ ok: false, error: TRACE_MESSAGES.invalidStatus });
    expect(TRACE_MESSAGES.invalidStatus).toBe("Invalid trace status");
  });

  it.each(["0", "-1", "1.5", "abc", "", "01", "1e3", " 1", "+1", "9007199254740992"])(
    "rejects page %j and limit %j with their messages",
    (raw) => {
      expect(checkListQuery({ page: raw })).toEqual({ ok: false, error: "page must be a positive integer" });
      expect(checkListQuery({ limit: raw })).toEqual({ ok: false, error: "limit must be a positive integer" });
    },
  );

  it("rejects a page whose offset is beyond the safe integers, and accepts the last safe one", () => {
    const lastPage = Math.floor(Number.MAX_SAFE_INTEGER / 50) + 1;
    expect(checkListQuery({ page: String(lastPage) })).toMatchObject({ ok: true, value: { offset: (lastPage - 1) * 50 } });
    expect(checkListQuery({ page: String(lastPage + 1) })).toEqual({ ok: false, error: "page must be a positive integer" });
    expect(checkListQuery({ page: String(Number.MAX_SAFE_INTEGER), limit: "200" })).toEqual({
      ok: false,
      error: "page must be a positive integer",
    });
    expect(checkListQuery({ page: String(Number.MAX_SAFE_INTEGER), limit: "1" })).toMatchObject({ ok: true });
  });

  it("accepts a search of exactly 2,048 characters and 32 terms, and rejects one more of either", () => {
    expect(MAX_QUERY_CHARS).toBe(2_048);
    expect(MAX_QUERY_TERMS).toBe(32);
    expect(checkListQuery({ q: "a".repeat(2_048) })).toMatchObject({ ok: true });
    expect(checkListQuery({ q: "a".repeat(2_049) })).toEqual({ ok: false, error: "Invalid trace request" });
    const terms = Array.from({ length: 33 }, (_, i) => `t${i}`);
    expect(checkListQuery({ q: terms.slice(0, 32).join(" ") })).toMatchObject({ ok: true, value: { terms: terms.slice(0, 32) } });
    expect(checkListQuery({ q: terms.join(" ") })).toEqual({ ok: false, error: "Invalid trace request" });
  });

  it("rejects a filter over 4,096 characters as an invalid request (the status too, before its value is checked)", () => {
    expect(MAX_FILTER_CHARS).toBe(4_096);
    expect(checkListQuery({ sessionId: "s".repeat(4_096), cwd: "c".repeat(4_096) })).toMatchObject({ ok: true });
    for (const key of ["sessionId", "cwd", "status"] as const) {
      expect(checkListQuery({ [key]: "x".repeat(4_097) })).toEqual({ ok: false, error: TRACE_MESSAGES.invalidRequest });
    }
  });

  test.prop([fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000 })])(
    "any page and limit: limit ≤ 200, offset = (page − 1) × limit",
    (page, limit) => {
      const result = checkListQuery({ page: String(page), limit: String(limit) });
      expect(result).toEqual({
        ok: true,
        value: { terms: [], page, limit: Math.min(limit, 200), offset: (page - 1) * Math.min(limit, 200) },
      });
    },
  );
});

describe("checkDetailQuery", () => {
  it("defaults to offsets 0 and limits 200", () => {
    expect(checkDetailQuery({})).toEqual({
      ok: true,
      value: { observationOffset: 0, observationLimit: 200, scoreOffset: 0, scoreLimit: 200 },
    });
  });

  it("takes the given offsets and limits, clamping limits to 200", () => {
    expect(checkDetailQuery({ observationOffset: "250", observationLimit: "5", scoreOffset: "0", scoreLimit: "1000" })).toEqual({
      ok: true,
      value: { observationOffset: 250, observationLimit: 5, scoreOffset: 0, scoreLimit: 200 },
    });
    expect(checkDetailQuery({ observationOffset: String(Number.MAX_SAFE_INTEGER) })).toMatchObject({
      ok: true,
      value: { observationOffset: Number.MAX_SAFE_INTEGER },
    });
  });

  it.each(["-1", "1.5", "x", "", "01", "9007199254740992"])("rejects the offset %j with '<key> must be a non-negative integer'", (raw) => {
    expect(checkDetailQuery({ observationOffset: raw })).toEqual({ ok: false, error: "observationOffset must be a non-negative integer" });
    expect(checkDetailQuery({ scoreOffset: raw })).toEqual({ ok: false, error: "scoreOffset must be a non-negative integer" });
  });

  it.each(["0", "-1", "2.0", "x", "", "9007199254740992"])("rejects the limit %j with '<key> must be a positive integer'", (raw) => {
    expect(checkDetailQuery({ observationLimit: raw })).toEqual({ ok: false, error: "observationLimit must be a positive integer" });
    expect(checkDetailQuery({ scoreLimit: raw })).toEqual({ ok: false, error: "scoreLimit must be a positive integer" });
  });
});

describe("checkTraceId", () => {
  it("accepts 1 to 160 of [a-zA-Z0-9_.:-]", () => {
    for (const id of ["trace-demo", "a", "A.b_c:d-9", "a".repeat(160)]) expect(checkTraceId(id)).toEqual({ ok: true, value: id });
  });

  it.each(["", "a".repeat(161), "a/b", "a b", "ünï", "tr%2Fx", "a\n"])("rejects %j with 'Invalid trace identifier'", (id) => {
    expect(checkTraceId(id)).toEqual({ ok: false, error: "Invalid trace identifier" });
  });
});

describe("traceSummaryOf", () => {
  it("shapes a stored trace as the spec's TraceSummary (no texts), its latency to the end", () => {
    const parent = { traceId: "trace-0", sessionId: "session-0", toolCallId: "call-9" };
    expect(traceSummaryOf(traceRecord({ parent, parentSessionFile: "/p.jsonl" }))).toEqual({
      id: "trace-1",
      source: "pi",
      status: "completed",
      revision: 7,
      name: "Fix the failing test",
      timestamp: "2025-03-12T10:00:00.000Z",
      environment: "default",
      userId: "me",
      sessionId: "session-1",
      latency: 2.5,
      totalTokens: 5_250,
      inputTokens: 5_200,
      outputTokens: 50,
      cost: 0.25,
      level: "DEFAULT",
      tags: ["leyline"],
      bookmarked: false,
      model: "anthropic/claude-sonnet-4-5",
      version: "0.1.0",
      metadata: {
        cwd: "/work/project",
        sessionName: "Refactor",
        sessionFile: "/home/me/.pi/agent/sessions/a.jsonl",
        branchId: null,
        startEntryId: "entry-1",
        endEntryId: "entry-4",
        userEntryId: "entry-1",
        parentSessionFile: "/p.jsonl",
        parent,
      },
    });
  });

  it("counts a running trace's latency to its latest capture, and never below 0", () => {
    expect(traceSummaryOf(traceRecord({ status: "running", endMs: null })).latency).toBe(9);
    expect(traceSummaryOf(traceRecord({ endMs: START - 5_000 })).latency).toBe(0);
  });
});

describe("observationOf", () => {
  it("times an observation in seconds from the trace's start, and adds its ids and totals to the metadata", () => {
    const record = observationRecord({ statusMessage: "slow", toolCallId: "call-1", entryId: "entry-2" });
    expect(observationOf(record, START)).toEqual({
      id: "trace-1:gen:1",
      parentId: null,
      name: "chat anthropic/claude-sonnet-4-5",
      type: "GENERATION",
      startTime: 1.5,
      duration: 2.5,
      level: "DEFAULT",
      status: "completed",
      model: "anthropic/claude-sonnet-4-5",
      input: null,
      output: "Fixed.",
      inputTokens: 5_200,
      outputTokens: 50,
      cost: 0.25,
      metadata: { stopReason: "stop", statusMessage: "slow", toolCallId: "call-1", entryId: "entry-2", totalTokens: 5_250 },
    });
  });

  it("has no duration while it runs, and no ids it does not know", () => {
    const running = observationOf(observationRecord({ endMs: null, status: "running" }), START);
    expect(running.duration).toBeNull();
    expect(running.metadata).toEqual({ stopReason: "stop", totalTokens: 5_250 });
    expect(running).not.toHaveProperty("readTruncation");
  });

  it("clips a 40 KiB output to 32 KiB and names it with its full size", () => {
    const read = observationOf(observationRecord({ output: "o".repeat(40_960) }), START);
    expect(read.output).toBe("o".repeat(READ_FIELD_BYTES));
    expect(read.readTruncation).toEqual({ fields: ["output"], fieldBytes: { output: 40_960 } });
  });

  it("clips multi-byte text on a character boundary, and both fields when both are long", () => {
    const read = observationOf(observationRecord({ input: "é".repeat(20_000), output: "😀".repeat(10_000) }), START);
    expect(read.input).toBe("é".repeat(READ_FIELD_BYTES / 2));
    expect(read.output).toBe("😀".repeat(READ_FIELD_BYTES / 4));
    expect(read.readTruncation).toEqual({ fields: ["input", "output"], fieldBytes: { input: 40_000, output: 40_000 } });
  });

  it("reports a pre-cut text's full size from `sizes`, keeping the text as it is", () => {
    const cut = "y".repeat(READ_FIELD_BYTES);
    const read = observationOf(observationRecord({ output: cut }), START, { output: 500_000 });
    expect(read.output).toBe(cut);
    expect(read.readTruncation).toEqual({ fields: ["output"], fieldBytes: { output: 500_000 } });
    const short = observationOf(observationRecord({ output: "y".repeat(100) }), START, { output: 40_000 });
    expect(short.output).toBe("y".repeat(100));
    expect(short.readTruncation).toEqual({ fields: ["output"], fieldBytes: { output: 40_000 } });
  });

  it("does not mark a text whose full size fits", () => {
    expect(
      observationOf(observationRecord({ output: "y".repeat(READ_FIELD_BYTES) }), START, { output: READ_FIELD_BYTES }),
    ).not.toHaveProperty("readTruncation");
  });
});

describe("scoreOf", () => {
  it("clips a long comment and names it", () => {
    const read = score("s1", "c".repeat(40_000));
    expect(read.comment).toBe("c".repeat(READ_FIELD_BYTES));
    expect(read.readTruncation).toEqual({ fields: ["comment"], fieldBytes: { comment: 40_000 } });
    expect(score("s2", null)).not.toHaveProperty("readTruncation");
  });
});

describe("traceDetailOf", () => {
  it("adds the texts, full metadata and usage (own, descendants, total) to the summary", () => {
    const children = [
      {
        traceId: "trace-2",
        sessionId: "child",
        toolCallId: "call-1",
        name: "researcher: dig",
        status: "completed" as const,
        usage: { inputTokens: 100, outputTokens: 40, totalTokens: 140, cost: 1.5 },
      },
    ];
    const detail = traceDetailOf(
      parts({
        record: traceRecord({ agent: "researcher", statusMessage: "done early", metadata: { thinkingLevel: "high", cwd: "stale" } }),
        children,
        descendants: { inputTokens: 100, outputTokens: 40, totalTokens: 140, cost: 1.5 },
      }),
    );
    expect(detail).toMatchObject({
      ...traceSummaryOf(traceRecord()),
      metadata: expect.anything(),
      input: "Fix the failing test",
      output: "Fixed.",
    });
    expect(detail.metadata).toEqual({
      ...traceSummaryOf(traceRecord()).metadata,
      thinkingLevel: "high",
      agent: "researcher",
      statusMessage: "done early",
      usage: {
        own: { inputTokens: 5_200, outputTokens: 50, totalTokens: 5_250, cost: 0.25 },
        descendants: { inputTokens: 100, outputTokens: 40, totalTokens: 140, cost: 1.5 },
        total: { inputTokens: 5_300, outputTokens: 90, totalTokens: 5_390, cost: 1.75 },
      },
      children,
    });
    expect(detail).not.toHaveProperty("readTruncation");
  });

  it("clips the trace's own input and output", () => {
    const detail = traceDetailOf(parts({ record: traceRecord({ output: "o".repeat(40_960) }) }));
    expect(detail.output).toBe("o".repeat(READ_FIELD_BYTES));
    expect(detail.readTruncation).toEqual({ fields: ["output"], fieldBytes: { output: 40_960 } });
  });

  it("ends a collection that fits with nextOffset null and not truncated", () => {
    const items = [1, 2, 3].map((i) => observationOf(observationRecord({ id: `trace-1:gen:${i}` }), START));
    const detail = traceDetailOf(parts({ observations: { items } }));
    expect(detail.observations).toEqual(items);
    expect(detail.pagination).toEqual({
      observations: { total: 3, offset: 0, limit: 200, nextOffset: null, truncated: false },
      scores: { total: 0, offset: 0, limit: 200, nextOffset: null, truncated: false },
    });
    expect(detail).not.toHaveProperty("readTruncation");
  });

  it("is truncated when a returned item was clipped, even at the end", () => {
    const detail = traceDetailOf(
      parts({ observations: { items: [bigObservation(1)] }, scores: { items: [score("s1", "c".repeat(40_000))] } }),
    );
    expect(detail.pagination.observations).toEqual({ total: 1, offset: 0, limit: 200, nextOffset: null, truncated: true });
    expect(detail.pagination.scores).toEqual({ total: 1, offset: 0, limit: 200, nextOffset: null, truncated: true });
    expect(detail).not.toHaveProperty("readTruncation");
  });

  it("points past the page when more items remain", () => {
    const items = Array.from({ length: 200 }, (_, i) => observationOf(observationRecord({ id: `trace-1:gen:${i}` }), START));
    const detail = traceDetailOf(parts({ observations: { items, total: 450, offset: 200 } }));
    expect(detail.observations).toHaveLength(200);
    expect(detail.pagination.observations).toEqual({ total: 450, offset: 200, limit: 200, nextOffset: 400, truncated: true });
    expect(detail.readTruncation).toEqual({ observations: true });
  });

  it("stops a page early at the 8 MiB budget: 200 observations of ~64 KiB", () => {
    const items = Array.from({ length: 200 }, (_, i) => bigObservation(i));
    const detail = traceDetailOf(parts({ observations: { items, total: 240, offset: 40 } }));
    const taken = detail.observations.length;
    expect(taken).toBeGreaterThan(100);
    expect(taken).toBeLessThan(200);
    expect(detail.observations).toEqual(items.slice(0, taken));
    expect(bytesOf(detail.observations)).toBeLessThanOrEqual(READ_BUDGET_BYTES);
    expect(bytesOf(items.slice(0, taken + 1))).toBeGreaterThan(READ_BUDGET_BYTES);
    expect(detail.pagination.observations).toEqual({ total: 240, offset: 40, limit: 200, nextOffset: 40 + taken, truncated: true });
    expect(detail.readTruncation).toEqual({ observations: true });
  });

  it("gives scores up to 2 MiB first and the observations the rest", () => {
    const scores = Array.from({ length: 100 }, (_, i) => score(`s${i}`, "c".repeat(30_000)));
    const observations = Array.from({ length: 200 }, (_, i) => bigObservation(i));
    const detail = traceDetailOf(parts({ observations: { items: observations }, scores: { items: scores } }));
    const scoreBytes = bytesOf(detail.scores);
    expect(detail.scores).toEqual(scores.slice(0, detail.scores.length));
    expect(scoreBytes).toBeLessThanOrEqual(SCORE_BUDGET_BYTES);
    expect(bytesOf(scores.slice(0, detail.scores.length + 1))).toBeGreaterThan(SCORE_BUDGET_BYTES);
    const taken = detail.observations.length;
    expect(bytesOf(detail.observations)).toBeLessThanOrEqual(READ_BUDGET_BYTES - scoreBytes);
    expect(bytesOf(observations.slice(0, taken + 1))).toBeGreaterThan(READ_BUDGET_BYTES - scoreBytes);
    expect(taken).toBeLessThan(traceDetailOf(parts({ observations: { items: observations } })).observations.length);
    expect(detail.pagination.scores).toMatchObject({ nextOffset: detail.scores.length, truncated: true });
    expect(detail.pagination.observations).toMatchObject({ nextOffset: taken, truncated: true });
    expect(detail.readTruncation).toEqual({ observations: true, scores: true });
  });

  it("leaves the observations what small scores do not use", () => {
    const scores = Array.from({ length: 10 }, (_, i) => score(`s${i}`, "c".repeat(1_000)));
    const observations = Array.from({ length: 200 }, (_, i) => bigObservation(i));
    const detail = traceDetailOf(parts({ observations: { items: observations }, scores: { items: scores } }));
    expect(detail.scores).toEqual(scores);
    expect(detail.pagination.scores).toEqual({ total: 10, offset: 0, limit: 200, nextOffset: null, truncated: false });
    const room = READ_BUDGET_BYTES - bytesOf(scores);
    expect(bytesOf(detail.observations)).toBeLessThanOrEqual(room);
    expect(bytesOf(observations.slice(0, detail.observations.length + 1))).toBeGreaterThan(room);
  });

  /** Items of arbitrary size (up to ~96 KiB of JSON each, some clipped). */
  const sizedItems = fc.array(fc.nat({ max: 48 }), { maxLength: 200 });

  test.prop([sizedItems, sizedItems.map((sizes) => sizes.slice(0, 100)), fc.nat({ max: 1_000 }), fc.nat({ max: 100 })], { numRuns: 25 })(
    "a page is the longest prefix within the budget, and nextOffset follows it",
    (observationKiB, scoreKiB, offset, more) => {
      const observations = observationKiB.map((kib, i) =>
        observationOf(observationRecord({ id: `o${i}`, input: "i".repeat(kib * 1_024), output: "o".repeat(kib * 1_024) }), START),
      );
      const scores = scoreKiB.map((kib, i) => score(`s${i}`, "c".repeat(kib * 1_024)));
      const total = offset + observations.length + more;
      const detail = traceDetailOf(parts({ observations: { items: observations, total, offset }, scores: { items: scores } }));
      const scoreBytes = bytesOf(detail.scores);
      expect(detail.scores).toEqual(scores.slice(0, detail.scores.length));
      expect(scoreBytes).toBeLessThanOrEqual(SCORE_BUDGET_BYTES);
      if (detail.scores.length < scores.length)
        expect(bytesOf(scores.slice(0, detail.scores.length + 1))).toBeGreaterThan(SCORE_BUDGET_BYTES);
      const taken = detail.observations.length;
      expect(detail.observations).toEqual(observations.slice(0, taken));
      expect(bytesOf(detail.observations)).toBeLessThanOrEqual(READ_BUDGET_BYTES - scoreBytes);
      if (taken < observations.length) expect(bytesOf(observations.slice(0, taken + 1))).toBeGreaterThan(READ_BUDGET_BYTES - scoreBytes);
      const end = offset + taken;
      expect(detail.pagination.observations.nextOffset).toBe(end < total ? end : null);
      expect(detail.readTruncation?.observations === true).toBe(end < total);
      const clipped = detail.observations.some((item) => item.readTruncation !== undefined);
      expect(detail.pagination.observations.truncated).toBe(end < total || clipped);
    },
  );
});
