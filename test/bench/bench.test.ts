/**
 * Keeps the benchmark alive: runs it in a tiny quick mode and checks the shape of its output (never the
 * performance: these figures are measured by `npm run bench` on a quiet machine).
 */
import { describe, expect, it } from "vitest";
import { formatTable, reportJson, runBench, type BenchScale } from "./bench.ts";

const TINY: BenchScale = {
  sessions: 12,
  corpusBytes: 300 * 1024,
  appendBytes: [48 * 1024, 96 * 1024, 192 * 1024],
  rounds: 1,
  warmup: 0,
  appendsPerRound: 2,
  appendRounds: 1,
  flatnessAppends: 3,
  flatnessWarmup: 1,
  wsDeltas: 40,
  wsClients: 3,
  liveEntries: 200,
  liveLargeBytes: 512 * 1024,
  liveAppends: 2,
  streamWireChars: 1_000,
  streamUnwatchedChars: 2_000,
  traceSmall: 10,
  traceLarge: 40,
};

const FIGURES = [
  "fold_vs_parse",
  "fold_vs_parse_tree",
  "list_cold_vs_pi",
  "list_warm_vs_pi",
  "list_wire_bytes",
  "search_query_p95",
  "search_build_vs_list",
  "append_vs_refold_quarter",
  "append_vs_refold_half",
  "append_vs_refold",
  "append_flatness",
  "ws_fanout",
  "ws_fanout_latency",
  "stream_wire_bytes",
  "stream_unwatched_vs_model",
  "runtime_ready_vs_sdk",
  "runtime_ready_cold_vs_sdk",
  "state_cached_vs_first",
  "detail_warm_vs_cold",
  "detail_cold_block",
  "cli_append_latency",
  "trace_write_flatness",
];

const INFORMATIONAL = ["fold_vs_parse_tree", "ws_fanout_latency", "runtime_ready_cold_vs_sdk", "search_build_vs_list"];

describe("bench (tiny quick mode)", () => {
  it("measures every figure and reports ratios, targets and details", { timeout: 180_000 }, async () => {
    const report = await runBench({ scale: TINY, seed: 7 });

    expect(Object.keys(report.figures).sort()).toEqual([...FIGURES].sort());
    for (const [name, figure] of Object.entries(report.figures)) {
      expect(figure.pending, `${name} pending`).toBeUndefined();
      expect(typeof figure.ratio, name).toBe("number");
      const ratio = figure.ratio as number;
      expect(Number.isFinite(ratio) && ratio > 0, `${name} ratio ${ratio}`).toBe(true);
      if (INFORMATIONAL.includes(name)) {
        // Informational: measured, but no target and no pass/fail.
        expect(figure).toMatchObject({ informational: true, target: null, pass: null });
      } else {
        expect(figure.informational).toBeUndefined();
        expect(figure.target as number).toBeGreaterThan(0);
        expect(figure.pass).toBe(ratio <= (figure.target as number));
      }
      expect(figure.description.length).toBeGreaterThan(0);
      // Every paired figure reports its absolute medians, and its sanity check passed (the byte figures are not timed).
      if (name !== "append_flatness" && name !== "stream_wire_bytes") {
        expect(typeof figure.details["subjectMs"], name).toBe("number");
        // (the append latency and the search p95 are measured against a promise, not a baseline run)
        if (name !== "cli_append_latency" && name !== "search_query_p95") expect(typeof figure.details["baselineMs"], name).toBe("number");
        expect(figure.details["check"], name).toBe("ok");
      }
    }
    expect(report.figures["list_cold_vs_pi"]?.details["listed"]).toBe(TINY.sessions);
    // ws: every client got every stream_delta the host emitted and every character of the reply, in both runs;
    // latencies and CPU were measured.
    const ws = report.figures["ws_fanout"]?.details as { subject: { events: number }; baseline: { events: number } };
    const chars = TINY.wsDeltas * 4;
    expect(ws).toMatchObject({
      clients: TINY.wsClients,
      deltas: TINY.wsDeltas,
      chars,
      subject: {
        events: expect.any(Number),
        deliveredPerClient: { min: ws.subject.events, max: ws.subject.events },
        charsPerClient: { min: chars, max: chars },
        p50Ms: expect.any(Number),
        p99Ms: expect.any(Number),
      },
      baseline: { deliveredPerClient: { min: ws.baseline.events, max: ws.baseline.events }, charsPerClient: { min: chars, max: chars } },
    });
    expect(ws.subject.events).toBeGreaterThan(0);
    // stream: both wire clients were measured and their check passed; the unwatched figure has its three timings.
    expect(report.figures["stream_wire_bytes"]?.details).toMatchObject({
      deflateRatio: expect.any(Number),
      plainRatio: expect.any(Number),
      deflate: { wireKb: expect.any(Number), messageKb: expect.any(Number) },
      plain: { wireKb: expect.any(Number), messageKb: expect.any(Number) },
      check: "ok",
    });
    expect(report.figures["stream_unwatched_vs_model"]?.details).toMatchObject({
      sdkMs: expect.any(Number),
      replyChars: TINY.streamUnwatchedChars,
    });

    const table = formatTable(report);
    for (const name of FIGURES) expect(table).toContain(name);
    expect(table).toMatch(/^fold_vs_parse_tree .*none +info only/m);
    expect(table).toMatch(/^ws_fanout_latency .*none +info only/m);
    expect(report.figures["append_flatness"]?.details).toMatchObject({ appendsPerSize: TINY.flatnessAppends, check: "ok" });

    const json: unknown = JSON.parse(reportJson(report));
    expect(json).toMatchObject({
      fold_vs_parse: { target: 1.5, pass: expect.any(Boolean), ratio: expect.any(Number), details: expect.any(Object) },
      list_cold_vs_pi: { target: 1 },
      list_warm_vs_pi: { target: 0.02 },
      append_vs_refold: { target: 0.01 },
      ws_fanout: { target: 1 },
      stream_wire_bytes: { target: 3 },
      stream_unwatched_vs_model: { target: 1.25 },
      runtime_ready_vs_sdk: { target: 1.5 },
      state_cached_vs_first: { target: 0.1 },
      _meta: { seed: 7 },
    });
  });
});
