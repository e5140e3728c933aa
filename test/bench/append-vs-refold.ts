/**
 * append_vs_refold: one growing session. After one entry is appended, bringing its projections (summary, tree,
 * transcript) up to date through the adapters' path (`advanceFold`: read the new bytes, decode, fold), against
 * a full re-fold of the file (readFileSync + decodeSessionText + rebuild of each projection). Measured at three
 * sizes (the smaller files are prefixes of the largest) so that flatness shows: the append must not cost more
 * as the file grows.
 */
import fs from "node:fs";
import type { SingleSession } from "./corpus.ts";
import { measuredFigure, pendingFigure, type Figure } from "./figure.ts";
import { alternate, median, medianRatio, round, type AlternateOptions } from "./measure.ts";
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
const FLATNESS_DESCRIPTION = "append time at the largest size / at the smallest (4x smaller) size";

export interface AppendOptions extends AlternateOptions {
  /** Appends timed per round (their median is the round's sample). */
  readonly appendsPerRound: number;
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
  const first = appendMedians[0] as number;
  const last = appendMedians[appendMedians.length - 1] as number;
  figures.append_flatness = measuredFigure(FLATNESS_DESCRIPTION, round(last / first), APPEND_FLATNESS_TARGET, {
    appendMsBySize: Object.fromEntries(series.map((s, i) => [`${round(s.bytes / 1e6, 1)}MB`, round(appendMedians[i] as number, 3)])),
    note: "ratio of absolute medians measured in this run (the only figure not paired round by round)",
  });
  return figures as Record<AppendFigureName, Figure>;
}
