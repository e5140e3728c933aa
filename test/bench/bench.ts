/**
 * The acceptance benchmarks as a module: generate the corpora (deterministic from a seed) in a temp dir, run
 * the selected benchmarks, return the figures. `run.ts` is the command line; `bench.test.ts` runs this in a
 * tiny quick mode so the bench keeps working.
 */
import { benchTraceWrite, TRACE_WRITE_FLATNESS_TARGET } from "./trace-write.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { APPEND_FLATNESS_TARGET, APPEND_VS_REFOLD_TARGET, benchAppendVsRefold } from "./append-vs-refold.ts";
import { generateCorpus, generateSessionSeries, type Corpus } from "./corpus.ts";
import { errorMessage, pendingFigure, type Figure } from "./figure.ts";
import { FOLD_VS_PARSE_TARGET, benchFoldVsParse } from "./fold-vs-parse.ts";
import { LIST_COLD_TARGET, LIST_WARM_TARGET, benchListVsPi } from "./list-vs-pi.ts";
import { LIST_WIRE_TARGET, benchListWire } from "./list-wire.ts";
import { round } from "./measure.ts";
import { RUNTIME_READY_TARGET, STATE_CACHED_TARGET, benchRuntimeReady } from "./runtime-ready.ts";
import { benchLiveDetail } from "./live-detail.ts";
import { STREAM_UNWATCHED_TARGET, STREAM_WIRE_TARGET, benchStreamWire } from "./stream-wire.ts";
import { SEARCH_QUERY_TARGET, benchSearch } from "./search-query.ts";
import { loadCoreSubjects } from "./subjects.ts";
import { WS_FANOUT_TARGET, benchWsFanout } from "./ws-fanout.ts";

export const BENCHMARKS = ["fold", "list", "search", "append", "ws", "runtime", "live", "stream", "traces"] as const;
export type BenchmarkName = (typeof BENCHMARKS)[number];

export interface BenchScale {
  /** Session files in the shared corpus (fold and list benchmarks). */
  readonly sessions: number;
  readonly corpusBytes: number;
  /** Sizes of the growing single session (append benchmark), ascending, exactly three. */
  readonly appendBytes: readonly [number, number, number];
  readonly rounds: number;
  readonly warmup: number;
  readonly appendsPerRound: number;
  /** Rounds of the append benchmark (its full re-folds of the largest file are the slowest runs of all). */
  readonly appendRounds: number;
  /** Appends timed back to back per size for append_flatness (after `flatnessWarmup` untimed ones). */
  readonly flatnessAppends: number;
  readonly flatnessWarmup: number;
  /** Text deltas one runtime streams to every WS client (ws benchmark). */
  readonly wsDeltas: number;
  /** WS /api/pi/events clients of the ws benchmark's subject run (its baseline has 1). */
  readonly wsClients: number;
  /** Transcript entries of the session whose warm and cold detail are compared (live benchmark). */
  readonly liveEntries: number;
  /** Size of the session opened cold while the event loop is watched (live benchmark). */
  readonly liveLargeBytes: number;
  /** Appends by another process, and sessions it creates, timed to the client (live benchmark). */
  readonly liveAppends: number;
  /** Characters of the watched reply (stream_wire_bytes) and of the unwatched one (stream_unwatched_vs_model). */
  readonly streamWireChars: number;
  readonly streamUnwatchedChars: number;
  /** trace_write_flatness: observations already in the small and the large trace. */
  readonly traceSmall: number;
  readonly traceLarge: number;
}

const MB = 1024 * 1024;

export const FULL_SCALE: BenchScale = {
  sessions: 2000,
  corpusBytes: 100 * MB,
  appendBytes: [12.5 * MB, 25 * MB, 50 * MB],
  rounds: 5,
  warmup: 1,
  appendsPerRound: 5,
  appendRounds: 3,
  flatnessAppends: 21,
  flatnessWarmup: 5,
  wsDeltas: 5000,
  wsClients: 50,
  liveEntries: 10_000,
  liveLargeBytes: 50 * MB,
  liveAppends: 40,
  streamWireChars: 20_000,
  streamUnwatchedChars: 100_000,
  traceSmall: 100,
  traceLarge: 2_000,
};

export const QUICK_SCALE: BenchScale = {
  sessions: 200,
  corpusBytes: 10 * MB,
  appendBytes: [1 * MB, 2 * MB, 4 * MB],
  rounds: 3,
  warmup: 1,
  appendsPerRound: 3,
  appendRounds: 3,
  flatnessAppends: 15,
  flatnessWarmup: 3,
  wsDeltas: 200,
  wsClients: 5,
  liveEntries: 1000,
  liveLargeBytes: 4 * MB,
  liveAppends: 5,
  streamWireChars: 8_000,
  streamUnwatchedChars: 20_000,
  traceSmall: 50,
  traceLarge: 500,
};

export interface BenchOptions {
  readonly scale: BenchScale;
  readonly seed?: number;
  /** Benchmarks to run (default: all). */
  readonly only?: readonly BenchmarkName[];
  /** Where the corpora go (default: a new temp dir, removed afterwards unless `keep`). */
  readonly workDir?: string;
  readonly keep?: boolean;
  /** Progress lines (default: none). */
  readonly log?: (line: string) => void;
}

export interface BenchReport {
  readonly figures: Record<string, Figure>;
  readonly meta: {
    readonly seed: number;
    readonly scale: BenchScale;
    readonly node: string;
    readonly cpus: number;
    readonly workDir: string;
    readonly generateMs: number;
    readonly totalMs: number;
  };
}

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const started = process.hrtime.bigint();
  const seed = options.seed ?? 20250601;
  const scale = options.scale;
  const only = new Set<BenchmarkName>(options.only ?? BENCHMARKS);
  const log = options.log ?? (() => undefined);
  const workDir = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "leyline-bench-"));
  const alternateOptions = { rounds: scale.rounds, warmup: scale.warmup };
  const figures: Record<string, Figure> = {};
  let generateMs = 0;
  try {
    const subjects = await loadCoreSubjects();
    let corpus: Corpus | null = null;
    if (only.has("fold") || only.has("list") || only.has("search")) {
      const t = process.hrtime.bigint();
      corpus = generateCorpus({
        agentDir: path.join(workDir, "agent"),
        seed,
        sessions: scale.sessions,
        totalBytes: scale.corpusBytes,
      });
      generateMs += elapsedMs(t);
      log(
        `corpus: ${corpus.files.length} files, ${round(corpus.bytes / 1e6, 1)} MB, ${corpus.lines} lines (${round(elapsedMs(t) / 1000, 1)} s)`,
      );
    }
    if (corpus !== null && only.has("fold")) {
      log("fold_vs_parse ...");
      Object.assign(
        figures,
        await guard(() => benchFoldVsParse(corpus, subjects, alternateOptions), {
          fold_vs_parse: FOLD_VS_PARSE_TARGET,
          fold_vs_parse_tree: null,
        }),
      );
    }
    if (corpus !== null && only.has("list")) {
      log("list_vs_pi ...");
      Object.assign(
        figures,
        await guard(() => benchListVsPi(corpus, subjects, alternateOptions), {
          list_cold_vs_pi: LIST_COLD_TARGET,
          list_warm_vs_pi: LIST_WARM_TARGET,
        }),
      );
      log("list_wire_bytes ...");
      Object.assign(figures, await guard(() => benchListWire(corpus, alternateOptions), { list_wire_bytes: LIST_WIRE_TARGET }));
    }
    if (corpus !== null && only.has("search")) {
      log("search_query_p95, search_build_vs_list ...");
      Object.assign(
        figures,
        await guard(() => benchSearch(corpus, { ...alternateOptions, seed }), {
          search_query_p95: SEARCH_QUERY_TARGET,
          search_build_vs_list: null,
        }),
      );
    }
    if (only.has("append")) {
      const t = process.hrtime.bigint();
      const series = generateSessionSeries({ dir: path.join(workDir, "single"), seed: seed + 1, bytes: scale.appendBytes });
      generateMs += elapsedMs(t);
      log(`single session: ${series.map((s) => `${round(s.bytes / 1e6, 1)} MB`).join(", ")} (${round(elapsedMs(t) / 1000, 1)} s)`);
      log("append_vs_refold ...");
      Object.assign(
        figures,
        await guard(
          () =>
            benchAppendVsRefold(series, subjects, {
              rounds: scale.appendRounds,
              warmup: scale.warmup,
              appendsPerRound: scale.appendsPerRound,
              flatnessAppends: scale.flatnessAppends,
              flatnessWarmup: scale.flatnessWarmup,
            }),
          {
            append_vs_refold_quarter: APPEND_VS_REFOLD_TARGET,
            append_vs_refold_half: APPEND_VS_REFOLD_TARGET,
            append_vs_refold: APPEND_VS_REFOLD_TARGET,
            append_flatness: APPEND_FLATNESS_TARGET,
          },
        ),
      );
    }
    if (only.has("runtime")) {
      log("runtime_ready_vs_sdk, state_cached_vs_first ...");
      Object.assign(
        figures,
        await guard(() => benchRuntimeReady({ rounds: scale.rounds, warmup: scale.warmup, seed, log }), {
          runtime_ready_vs_sdk: RUNTIME_READY_TARGET,
          runtime_ready_cold_vs_sdk: null,
          state_cached_vs_first: STATE_CACHED_TARGET,
        }),
      );
    }
    if (only.has("live")) {
      Object.assign(
        figures,
        await benchLiveDetail({
          workDir: path.join(workDir, "live"),
          seed,
          entries: scale.liveEntries,
          largeBytes: scale.liveLargeBytes,
          rounds: scale.rounds,
          appends: scale.liveAppends,
          log,
        }),
      );
    }
    if (only.has("stream")) {
      log("stream_unwatched_vs_model, stream_wire_bytes ...");
      Object.assign(
        figures,
        await guard(
          () =>
            benchStreamWire({
              wireChars: scale.streamWireChars,
              unwatchedChars: scale.streamUnwatchedChars,
              rounds: scale.rounds,
              warmup: scale.warmup,
              seed,
              log,
            }),
          { stream_wire_bytes: STREAM_WIRE_TARGET, stream_unwatched_vs_model: STREAM_UNWATCHED_TARGET },
        ),
      );
    }
    if (only.has("traces")) {
      log("trace_write_flatness ...");
      Object.assign(
        figures,
        await guard(
          () =>
            benchTraceWrite({
              dir: path.join(workDir, "traces"),
              small: scale.traceSmall,
              large: scale.traceLarge,
              rounds: scale.rounds,
              warmup: scale.warmup,
              writesPerRound: 20,
            }),
          { trace_write_flatness: TRACE_WRITE_FLATNESS_TARGET },
        ),
      );
    }
    if (only.has("ws")) {
      log("ws_fanout ...");
      Object.assign(
        figures,
        await guard(() => benchWsFanout({ deltas: scale.wsDeltas, clients: scale.wsClients, log }), {
          ws_fanout: WS_FANOUT_TARGET,
          ws_fanout_latency: null,
        }),
      );
    }
  } finally {
    if (options.workDir === undefined && options.keep !== true) fs.rmSync(workDir, { recursive: true, force: true });
  }
  return {
    figures,
    meta: {
      seed,
      scale,
      node: process.version,
      cpus: os.cpus().length,
      workDir,
      generateMs: round(generateMs, 0),
      totalMs: round(elapsedMs(started), 0),
    },
  };
}

/** A benchmark that throws yields pending figures with the error, so the other figures still come out. */
async function guard(
  run: () => Promise<Record<string, Figure>>,
  targets: Readonly<Record<string, number | null>>,
): Promise<Record<string, Figure>> {
  try {
    return await run();
  } catch (error) {
    const reason = `benchmark failed: ${errorMessage(error)}`;
    return Object.fromEntries(Object.entries(targets).map(([name, target]) => [name, pendingFigure(name, target, reason)]));
  }
}

function formatRatio(figure: Figure): string {
  if (figure.ratio === null) return "-";
  return figure.ratio < 0.1 ? figure.ratio.toFixed(4) : figure.ratio.toFixed(3);
}

function formatMs(value: unknown): string {
  return typeof value === "number" ? `${value} ms` : "-";
}

/** The figures as a fixed-width text table, then one line of details per figure. */
export function formatTable(report: BenchReport): string {
  const header = ["figure", "ratio", "target", "result", "subject", "baseline"];
  const rows = Object.entries(report.figures).map(([name, figure]) => [
    name,
    formatRatio(figure),
    figure.target === null ? "none" : `<= ${figure.target}`,
    figure.pending !== undefined
      ? "PENDING"
      : figure.informational === true || figure.target === null
        ? "info only"
        : figure.pass
          ? "pass"
          : `MISS x${round((figure.ratio as number) / figure.target, 2)}`,
    formatMs(figure.details["subjectMs"]),
    formatMs(figure.details["baselineMs"]),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] as number))
      .join("  ")
      .trimEnd();
  const out = [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
  if (Object.values(report.figures).some((f) => f.informational === true)) {
    out.push("(info only: measured for context, not a project target; no pass/fail)");
  }
  out.push("");
  for (const [name, figure] of Object.entries(report.figures)) {
    out.push(`${name}: ${figure.description}`);
    if (figure.pending !== undefined) out.push(`  pending: ${figure.pending}`);
    const details = Object.entries(figure.details)
      .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
      .join(" ");
    if (details) out.push(`  ${details}`);
  }
  const m = report.meta;
  out.push(
    "",
    `seed=${m.seed} node=${m.node} cpus=${m.cpus} rounds=${m.scale.rounds} warmup=${m.scale.warmup} generate=${round(m.generateMs / 1000, 1)}s total=${round(m.totalMs / 1000, 1)}s`,
  );
  return out.join("\n");
}

/** The JSON line: figures by name (ratio, target, pass, details; pending when not measured) plus `_meta`. */
export function reportJson(report: BenchReport): string {
  return JSON.stringify({ ...report.figures, _meta: report.meta });
}
