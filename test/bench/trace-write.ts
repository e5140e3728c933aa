/**
 * trace_write_flatness: trace capture stores one write per pi event (adapters/traces/trace-store.ts `applyCapture`:
 * one transaction, the observation upserted, the trace's totals re-summed), while the run goes on. A long run must
 * not make each write slower: the write of one model call (its observation, a 2 KB output) on a trace that already
 * holds `large` observations (16 KB outputs each), against the same write on a trace holding `small` of them, in
 * one real leyline.sqlite, alternated round by round. The figure is the median per-round ratio (target 1.5: the
 * totals and the insertion order are read from indexes, never from the rows' long texts).
 */
import fs from "node:fs";
import path from "node:path";
import { openLeylineDatabase } from "../../adapters/sqlite/database.ts";
import { applyCapture } from "../../adapters/traces/trace-store.ts";
import { type ObservationRecord, observationRecord, type TraceOwner } from "../../domain/traces/trace-records.ts";
import { measuredFigure, type Figure } from "./figure.ts";
import { alternate, median, medianRatio, round } from "./measure.ts";

export const TRACE_WRITE_FLATNESS_TARGET = 1.5;

export interface TraceWriteOptions {
  readonly dir: string;
  readonly small: number;
  readonly large: number;
  readonly rounds: number;
  readonly warmup: number;
  /** Writes timed per round per trace (their median is the round's sample). */
  readonly writesPerRound: number;
}

const OWNER: TraceOwner = {
  sessionId: "bench-session",
  sessionFile: null,
  sessionName: null,
  cwd: "/bench",
  parentSessionFile: null,
  parent: { traceId: null, sessionId: null, toolCallId: null },
  agent: null,
  tags: [],
};
const DEFAULTS = { environment: "bench", userId: "bench", version: "bench" };

function generation(id: string, startMs: number, output: string): ObservationRecord {
  return observationRecord({
    id,
    type: "GENERATION",
    name: "chat bench/model",
    startMs,
    endMs: startMs + 1,
    status: "completed",
    model: "bench/model",
    output,
    usage: { inputTokens: 1000, outputTokens: 100, totalTokens: 1100, cost: 0.001 },
    metadata: { stopReason: "stop" },
  });
}

export async function benchTraceWrite(options: TraceWriteOptions): Promise<Record<string, Figure>> {
  fs.mkdirSync(options.dir, { recursive: true });
  const handle = await openLeylineDatabase({ dataDir: options.dir });
  try {
    const db = handle.db;
    const filler = "f".repeat(16 * 1024);
    const fill = async (traceId: string, count: number): Promise<void> => {
      await applyCapture(db, { ...OWNER, sessionId: traceId }, { traceId, trace: { startMs: 0, status: "running" } }, DEFAULTS, 0);
      for (let i = 0; i < count; i += 50) {
        const batch = Array.from({ length: Math.min(50, count - i) }, (_, k) => generation(`fill-${i + k}`, i + k, filler));
        await applyCapture(db, { ...OWNER, sessionId: traceId }, { traceId, observations: batch }, DEFAULTS, 0);
      }
    };
    await fill("small", options.small);
    await fill("large", options.large);
    const output = "o".repeat(2 * 1024);
    let next = 0;
    const calls: Record<string, number> = { small: options.small, large: options.large };
    const write = (traceId: string) => async (): Promise<void> => {
      for (let i = 0; i < options.writesPerRound; i++) {
        calls[traceId] = (calls[traceId] ?? 0) + 1;
        const id = `write-${next++}`;
        await applyCapture(db, { ...OWNER, sessionId: traceId }, { traceId, observations: [generation(id, next, output)] }, DEFAULTS, next);
      }
    };
    const samples = await alternate({ small: { run: write("small") }, large: { run: write("large") } }, options);
    const ratio = medianRatio(samples.large, samples.small);
    // Sanity: each trace's totals count every model call written to it exactly once.
    const rows = await db.selectFrom("traces").select(["id", "total_tokens"]).where("id", "in", ["small", "large"]).execute();
    const check =
      rows.length === 2 && rows.every((row) => Number(row.total_tokens) === (calls[row.id] ?? 0) * 1100) ? "ok" : "totals differ";
    return {
      trace_write_flatness: measuredFigure(
        `one capture write on a trace of ${options.large} observations / on one of ${options.small}`,
        round(ratio),
        TRACE_WRITE_FLATNESS_TARGET,
        {
          subjectMs: round(median(samples.large) / options.writesPerRound),
          baselineMs: round(median(samples.small) / options.writesPerRound),
          writesPerRound: options.writesPerRound,
          check,
        },
      ),
    };
  } finally {
    await handle.close();
    fs.rmSync(path.join(options.dir), { recursive: true, force: true });
  }
}
