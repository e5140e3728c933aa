/**
 * append_vs_refold: one growing session. After one entry is appended, bringing its projections (summary, tree,
 * transcript) up to date through the adapters' path (`advanceFold`: read the new bytes, decode, fold), against
 * a full re-fold of the file (readFileSync + decodeSessionText + rebuild of each projection). Measured at three
 * sizes (the smaller files are prefixes of the largest) so that flatness shows: the append must not cost more
 * as the file grows.
 *
 * append_flatness times the same work (`advanceFold` of one appended entry) apart from the paired rounds, which
 * force a GC before every timed run and alternate with multi-second re-folds: single appends timed right after
 * such a GC swing between ~1 and ~17 ms with the heap's background sweeping, not with the append. So, once every
 * size is measured, with the three sessions' folds all held: settle the heap (full GC, then a pause for V8's
 * sweeper), fold a few untimed warm-up appends per size, then time appends in rounds, one per size per round
 * (order reversed every other round; no GC between them), so that the heap and the machine's load are the same
 * for every size. The figure is the largest size's median over the smallest's.
 */
import fs from "node:fs";
import type { SingleSession } from "./corpus.ts";
import { measuredFigure, pendingFigure, type Figure } from "./figure.ts";
import { alternate, median, medianRatio, quantile, round, settleHeap, type AlternateOptions } from "./measure.ts";
import { missing, type AnyProjection, type CoreSubjects } from "./subjects.ts";
import type { FoldedFile } from "../../adapters/projections/file-fold.ts";

export const APPEND_VS_REFOLD_TARGET = 0.01;

function sinceMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}
/** The bench's own reading of "flat": the append at 4x the file size may cost at most 1.5x as much. */
export const APPEND_FLATNESS_TARGET = 1.5;

/** Figure names, smallest file first; the last one is the headline. */
export const APPEND_FIGURES = ["append_vs_refold_quarter", "append_vs_refold_half", "append_vs_refold"] as const;
export type AppendFigureName = (typeof APPEND_FIGURES)[number] | "append_flatness";

function description(bytes: number): string {
  return `append 1 entry via advanceFold / full re-fold, ${round(bytes / 1e6, 1)} MB session`;
}
const FLATNESS_DESCRIPTION =
  "append via advanceFold, median at the largest size / at the smallest (4x smaller) size (settled heap, sizes interleaved)";

export interface AppendOptions extends AlternateOptions {
  /** Appends timed per round (their median is the round's sample). */
  readonly appendsPerRound: number;
  /** Appends timed per size for append_flatness, interleaved across sizes (their median is the size's figure). */
  readonly flatnessAppends: number;
  /** Untimed appends folded per size before those. */
  readonly flatnessWarmup: number;
}

export async function benchAppendVsRefold(
  series: readonly SingleSession[],
  subjects: CoreSubjects,
  options: AppendOptions,
): Promise<Record<AppendFigureName, Figure>> {
  const { decoder, projection, summary, tree, transcript, fileFold, reader } = subjects;
  const reason = missing(decoder, projection, fileFold, reader, summary, tree);
  if (reason !== null || !decoder.ok || !projection.ok || !fileFold.ok || !reader.ok || !summary.ok || !tree.ok) {
    const why = reason ?? "subjects missing";
    const figures = Object.fromEntries(
      APPEND_FIGURES.map((name, i) => [name, pendingFigure(description(series[i]?.bytes ?? 0), APPEND_VS_REFOLD_TARGET, why)]),
    ) as Record<(typeof APPEND_FIGURES)[number], Figure>;
    return { ...figures, append_flatness: pendingFigure(FLATNESS_DESCRIPTION, APPEND_FLATNESS_TARGET, why) };
  }
  const { decodeSessionText } = decoder.module;
  const { rebuild, fold } = projection.module;
  const { advanceFold } = fileFold.module;
  const { readSessionFile } = reader.module;
  const projections: AnyProjection[] = [
    summary.module.sessionSummaryProjection as unknown as AnyProjection,
    tree.module.sessionTreeProjection as unknown as AnyProjection,
  ];
  if (transcript.ok) projections.push(transcript.module.transcriptProjection as unknown as AnyProjection);
  const names = projections.map((p) => p.name);

  const figures: Partial<Record<AppendFigureName, Figure>> = {};
  const appendMedians: number[] = [];
  /** Per size: the fold after the size's last append (append_flatness continues from it). */
  const foldedBySize: FoldedFile[] = [];
  for (const [index, session] of series.entries()) {
    const name = APPEND_FIGURES[index] as (typeof APPEND_FIGURES)[number];
    const initial = await advanceFold(session.path, projections, null);
    if (initial.kind !== "advanced") throw new Error(`append bench: cannot fold ${session.path} (${initial.kind})`);
    let folded: FoldedFile = initial.folded;
    let anomalies = 0;
    let appended = 0;
    let sink = 0;

    const refold = (): void => {
      const { records } = decodeSessionText(fs.readFileSync(session.path, "utf8"));
      for (const p of projections) if (rebuild(p, records) !== null) sink++;
    };
    const append = {
      before: () => {
        fs.appendFileSync(session.path, session.nextLine() + "\n");
        appended++;
      },
      run: async () => {
        const next = await advanceFold(session.path, projections, folded);
        if (next.kind !== "advanced" || next.restart !== null || next.records !== 1) anomalies++;
        if (next.kind === "advanced") folded = next.folded;
      },
      repeat: options.appendsPerRound,
    };
    // Warm-up only on the smallest file: the code paths are the same at every size, and a warm-up round
    // of the largest re-fold alone would cost many seconds.
    const samples = await alternate({ refold: { run: refold }, append }, { ...options, warmup: index === 0 ? options.warmup : 0 });
    // Instrumented appends (not part of the ratio): where an append's time goes.
    const appendBreakdown: Record<string, number[]> = { readDecode: [] };
    for (const p of projections) appendBreakdown[p.name] = [];
    for (let i = 0; i < options.appendsPerRound; i++) {
      fs.appendFileSync(session.path, session.nextLine() + "\n");
      appended++;
      let t = process.hrtime.bigint();
      const read = await readSessionFile(session.path, folded.position);
      if (read.kind !== "appended") {
        anomalies++;
        break;
      }
      appendBreakdown["readDecode"]?.push(sinceMs(t));
      const states: Record<string, unknown> = {};
      for (const p of projections) {
        t = process.hrtime.bigint();
        states[p.name] = fold(p, folded.states[p.name], read.records);
        appendBreakdown[p.name]?.push(sinceMs(t));
      }
      folded = { key: folded.key, position: read.position, states };
    }
    // One instrumented re-fold: read, decode, then each projection's rebuild.
    const refoldBreakdown: Record<string, number> = {};
    let t = process.hrtime.bigint();
    const text = fs.readFileSync(session.path, "utf8");
    refoldBreakdown["read"] = round(sinceMs(t), 1);
    t = process.hrtime.bigint();
    const { records } = decodeSessionText(text);
    refoldBreakdown["decode"] = round(sinceMs(t), 1);
    for (const p of projections) {
      t = process.hrtime.bigint();
      rebuild(p, records);
      refoldBreakdown[p.name] = round(sinceMs(t), 1);
    }
    foldedBySize[index] = folded;
    const appendMs = median(samples.append);
    appendMedians.push(appendMs);
    const stat = fs.statSync(session.path);
    figures[name] = measuredFigure(
      description(session.bytes),
      round(medianRatio(samples.append, samples.refold), 5),
      APPEND_VS_REFOLD_TARGET,
      {
        mb: round(session.bytes / 1e6, 1),
        lines: session.lines,
        projections: names,
        baselineMs: round(median(samples.refold), 1),
        subjectMs: round(appendMs, 3),
        appendsTimed: options.rounds * options.appendsPerRound,
        appendBreakdownMs: Object.fromEntries(Object.entries(appendBreakdown).map(([k, v]) => [k, round(median(v), 3)])),
        refoldBreakdownMs: refoldBreakdown,
        check: anomalies === 0 && sink > 0 ? "ok" : `${anomalies} appends were not folded as one appended record`,
        appendedEntries: appended,
        finalMb: round(stat.size / 1e6, 1),
      },
    );
  }
  const flat = await flatnessSamples(series, projections, foldedBySize, options, advanceFold);
  const bySize = (value: (i: number) => number): Record<string, number> =>
    Object.fromEntries(series.map((s, i) => [`${round(s.bytes / 1e6, 1)}MB`, round(value(i), 3)]));
  const smallest = flat.times[0] as number[];
  const largest = flat.times[flat.times.length - 1] as number[];
  figures.append_flatness = measuredFigure(FLATNESS_DESCRIPTION, round(median(largest) / median(smallest)), APPEND_FLATNESS_TARGET, {
    appendMsBySize: bySize((i) => median(flat.times[i] as number[])),
    p25MsBySize: bySize((i) => quantile(flat.times[i] as number[], 0.25)),
    p90MsBySize: bySize((i) => quantile(flat.times[i] as number[], 0.9)),
    pairedRatio: round(medianRatio(largest, smallest)),
    appendsPerSize: options.flatnessAppends,
    warmupAppends: options.flatnessWarmup,
    gcEachAppendMsBySize: bySize((i) => appendMedians[i] as number),
    check: flat.anomalies === 0 ? "ok" : `${flat.anomalies} appends were not folded as one appended record`,
    note: "ratio of the per-size medians of appends interleaved across sizes; pairedRatio = median of per-round largest/smallest; gcEachAppendMsBySize = the paired rounds' append medians (GC before each), for comparison",
  });
  return figures as Record<AppendFigureName, Figure>;
}

/**
 * The append_flatness samples: per size, `flatnessAppends` timed appends (after `flatnessWarmup` untimed ones),
 * interleaved across sizes round by round on a settled heap. `folded` holds each size's current fold.
 */
async function flatnessSamples(
  series: readonly SingleSession[],
  projections: readonly AnyProjection[],
  folded: FoldedFile[],
  options: AppendOptions,
  advanceFold: typeof import("../../adapters/projections/file-fold.ts").advanceFold,
): Promise<{ times: number[][]; anomalies: number }> {
  const times = series.map(() => [] as number[]);
  let anomalies = 0;
  await settleHeap();
  for (let round = 0; round < options.flatnessWarmup + options.flatnessAppends; round++) {
    const order = series.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const session = series[i] as SingleSession;
      fs.appendFileSync(session.path, session.nextLine() + "\n");
      const t = process.hrtime.bigint();
      const next = await advanceFold(session.path, projections, folded[i] as FoldedFile);
      const ms = sinceMs(t);
      if (next.kind !== "advanced" || next.restart !== null || next.records !== 1) anomalies++;
      if (next.kind === "advanced") folded[i] = next.folded;
      if (round >= options.flatnessWarmup) times[i]?.push(ms);
    }
  }
  return { times, anomalies };
}
