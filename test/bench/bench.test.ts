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
};

const FIGURES = [
  "fold_vs_parse",
  "fold_vs_parse_tree",
  "list_cold_vs_pi",
  "list_warm_vs_pi",
  "append_vs_refold_quarter",
  "append_vs_refold_half",
  "append_vs_refold",
  "append_flatness",
  "ws_fanout",
  "ws_fanout_latency",
];

const INFORMATIONAL = ["fold_vs_parse_tree", "ws_fanout_latency"];

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
      // Every paired figure reports its absolute medians, and its sanity check passed.
      if (name !== "append_flatness") {
        expect(typeof figure.details["subjectMs"], name).toBe("number");
        expect(typeof figure.details["baselineMs"], name).toBe("number");
        expect(figure.details["check"], name).toBe("ok");
      }
    }
    expect(report.figures["list_cold_vs_pi"]?.details["listed"]).toBe(TINY.sessions);
    // ws: every client got every delta, in both runs; latencies and CPU were measured.
    expect(report.figures["ws_fanout"]?.details).toMatchObject({
      clients: TINY.wsClients,
      deltas: TINY.wsDeltas,
      subject: { deliveredPerClient: { min: TINY.wsDeltas, max: TINY.wsDeltas }, p50Ms: expect.any(Number), p99Ms: expect.any(Number) },
      baseline: { deliveredPerClient: { min: TINY.wsDeltas, max: TINY.wsDeltas } },
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
      _meta: { seed: 7 },
    });
  });
});
