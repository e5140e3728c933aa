/**
 * fold_vs_parse: reading, decoding and folding every file of a corpus, against reading and JSON.parse-ing the
 * same lines. Baseline: readFileSync + split("\n") + JSON.parse of each line. Subjects: readFileSync +
 * decodeSessionText + rebuild(session summary) (+ selectSessionSummary, as the index does), and the same plus
 * rebuild(session tree). The headline (and the project target) is the summary fold, what the index does for
 * every file; `fold_vs_parse_tree` is informational (the tree is folded only for an opened session).
 */
import fs from "node:fs";
import type { Corpus } from "./corpus.ts";
import { informationalFigure, measuredFigure, pendingFigure, type Figure } from "./figure.ts";
import { alternate, median, medianRatio, round, type AlternateOptions, type Variant } from "./measure.ts";
import { missing, type CoreSubjects } from "./subjects.ts";
import type { LogRecord } from "../../domain/session-log.ts";

export const FOLD_VS_PARSE_TARGET = 1.5;

const SUMMARY_DESCRIPTION = "read+decode+fold(summary) / read+JSON.parse, whole corpus";
const TREE_DESCRIPTION = "read+decode+fold(summary)+fold(tree) / read+JSON.parse, whole corpus (informational: no target)";

export async function benchFoldVsParse(
  corpus: Corpus,
  subjects: CoreSubjects,
  options: AlternateOptions,
): Promise<{ fold_vs_parse: Figure; fold_vs_parse_tree: Figure }> {
  const { decoder, projection, summary, tree } = subjects;
  const summaryMissing = missing(decoder, projection, summary);
  const treeMissing = summaryMissing ?? missing(tree);
  if (!decoder.ok || !projection.ok || !summary.ok) {
    const reason = summaryMissing ?? "subjects missing";
    return {
      fold_vs_parse: pendingFigure(SUMMARY_DESCRIPTION, FOLD_VS_PARSE_TARGET, reason),
      fold_vs_parse_tree: pendingFigure(TREE_DESCRIPTION, null, reason),
    };
  }
  const { decodeSessionText } = decoder.module;
  const { rebuild } = projection.module;
  const { sessionSummaryProjection, selectSessionSummary } = summary.module;
  const treeProjection = tree.ok ? tree.module.sessionTreeProjection : null;
  const paths = corpus.files.map((f) => f.path);

  // Sinks: results are used, so nothing can be optimised away; they double as a sanity check.
  let parsedMessages = 0;
  let foldedMessages = 0;
  let treeEntries = 0;

  const parseOnly = (): void => {
    let messages = 0;
    for (const file of paths) {
      const lines = fs.readFileSync(file, "utf8").split("\n");
      for (const line of lines) {
        if (line.length === 0) continue;
        const value = JSON.parse(line) as { type?: unknown };
        if (value.type === "message") messages++;
      }
    }
    parsedMessages = messages;
  };
  const foldSummary = (withTree: boolean): void => {
    let messages = 0;
    let entries = 0;
    for (const file of paths) {
      const { records } = decodeSessionText(fs.readFileSync(file, "utf8"));
      const state = rebuild(sessionSummaryProjection, records);
      const listed = selectSessionSummary(state, { path: file, mtimeMs: 0 });
      messages += listed?.messageCount ?? 0;
      if (withTree && treeProjection !== null) entries += rebuild(treeProjection, records).order.length;
    }
    foldedMessages = messages;
    if (withTree) treeEntries = entries;
  };

  const variants: Record<string, Variant> = {
    parse: { run: parseOnly },
    summary: { run: () => foldSummary(false) },
  };
  if (treeProjection !== null) variants["summaryTree"] = { run: () => foldSummary(true) };
  const samples = await alternate(variants, options);
  const folds: [string, (records: readonly LogRecord[]) => unknown][] = [
    ["summaryFold", (records) => selectSessionSummary(rebuild(sessionSummaryProjection, records), { path: "", mtimeMs: 0 })],
  ];
  if (treeProjection !== null) folds.push(["treeFold", (records) => rebuild(treeProjection, records)]);
  const breakdown = breakdownPass(paths, (text) => decodeSessionText(text).records, folds);
  const parse = samples["parse"] as number[];
  const summaryMs = samples["summary"] as number[];
  const corpusDetails = {
    files: corpus.files.length,
    mb: round(corpus.bytes / 1e6, 1),
    lines: corpus.lines,
    rounds: options.rounds,
    breakdownMs: breakdown,
    check: parsedMessages === foldedMessages ? "ok" : `message counts differ: parse ${parsedMessages}, fold ${foldedMessages}`,
  };
  const parseMedian = round(median(parse), 1);
  const result = {
    fold_vs_parse: measuredFigure(SUMMARY_DESCRIPTION, round(medianRatio(summaryMs, parse)), FOLD_VS_PARSE_TARGET, {
      ...corpusDetails,
      baselineMs: parseMedian,
      subjectMs: round(median(summaryMs), 1),
      baselineMbPerS: round(corpus.bytes / 1e3 / median(parse), 1),
    }),
    fold_vs_parse_tree: pendingFigure(TREE_DESCRIPTION, null, treeMissing ?? "tree projection missing"),
  };
  const treeMs = samples["summaryTree"];
  if (treeMs !== undefined) {
    result.fold_vs_parse_tree = informationalFigure(TREE_DESCRIPTION, round(medianRatio(treeMs, parse)), {
      ...corpusDetails,
      baselineMs: parseMedian,
      subjectMs: round(median(treeMs), 1),
      treeEntries,
    });
  }
  return result;
}

/**
 * One instrumented pass (not part of the ratio): where the time goes, summed over the corpus, in ms. `read` is
 * readFileSync (utf8), `splitParse` the baseline's split + JSON.parse, `decode` decodeSessionText, then each fold.
 */
function breakdownPass(
  paths: readonly string[],
  decode: (text: string) => readonly LogRecord[],
  folds: ReadonlyArray<readonly [string, (records: readonly LogRecord[]) => unknown]>,
): Record<string, number> {
  const totals: Record<string, bigint> = { read: 0n, splitParse: 0n, decode: 0n };
  for (const [name] of folds) totals[name] = 0n;
  const add = (name: string, start: bigint): bigint => {
    const now = process.hrtime.bigint();
    totals[name] = (totals[name] ?? 0n) + (now - start);
    return now;
  };
  for (const file of paths) {
    let t = process.hrtime.bigint();
    const text = fs.readFileSync(file, "utf8");
    t = add("read", t);
    for (const line of text.split("\n")) if (line.length > 0) JSON.parse(line);
    t = add("splitParse", t);
    const records = decode(text);
    t = add("decode", t);
    for (const [name, run] of folds) {
      run(records);
      t = add(name, t);
    }
  }
  return Object.fromEntries(Object.entries(totals).map(([name, ns]) => [name, round(Number(ns) / 1e6, 1)]));
}
