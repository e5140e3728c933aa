/**
 * `npm run bench [-- options]`: the acceptance benchmarks (see bench.ts).
 *   --quick          small corpora, fewer rounds (a smoke test, ~30 s)
 *   --json           also print the figures as one JSON object on the last line
 *   --only=a,b       run only some of: fold, list, search, append, ws, runtime, live, stream
 *   --seed=N         corpus seed (default 20250601)
 *   --rounds=N       measured rounds per figure (default 5, append 3; quick 3)
 *   --keep           keep the generated corpora (the path is printed)
 * Progress goes to stderr; the table (and the JSON line) to stdout. Exit code 0 even when a figure misses its
 * target: the figures are the result.
 */
import { BENCHMARKS, FULL_SCALE, QUICK_SCALE, formatTable, reportJson, runBench, type BenchmarkName } from "./bench.ts";

function option(args: readonly string[], name: string): string | undefined {
  const prefix = `--${name}=`;
  return args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

function isBenchmarkName(value: string): value is BenchmarkName {
  return (BENCHMARKS as readonly string[]).includes(value);
}

async function main(args: readonly string[]): Promise<void> {
  const known = ["--quick", "--json", "--keep"];
  const valued = ["only", "seed", "rounds"];
  for (const arg of args) {
    if (!known.includes(arg) && !valued.some((v) => arg.startsWith(`--${v}=`))) {
      throw new Error(`unknown option ${arg} (known: ${[...known, ...valued.map((v) => `--${v}=`)].join(" ")})`);
    }
  }
  const base = args.includes("--quick") ? QUICK_SCALE : FULL_SCALE;
  const rounds = option(args, "rounds");
  const roundCount = rounds === undefined ? undefined : Math.max(1, Number.parseInt(rounds, 10));
  const scale = roundCount === undefined ? base : { ...base, rounds: roundCount, appendRounds: roundCount };
  const onlyText = option(args, "only");
  const only = onlyText?.split(",").map((s) => s.trim());
  if (only !== undefined) {
    for (const name of only) if (!isBenchmarkName(name)) throw new Error(`unknown benchmark ${name} (${BENCHMARKS.join(", ")})`);
  }
  const seedText = option(args, "seed");
  const report = await runBench({
    scale,
    ...(seedText !== undefined ? { seed: Number.parseInt(seedText, 10) } : {}),
    ...(only !== undefined ? { only: only.filter(isBenchmarkName) } : {}),
    keep: args.includes("--keep"),
    log: (line) => process.stderr.write(`[bench] ${line}\n`),
  });
  process.stdout.write(formatTable(report) + "\n");
  if (args.includes("--keep")) process.stdout.write(`corpora kept in ${report.meta.workDir}\n`);
  if (args.includes("--json")) process.stdout.write(reportJson(report) + "\n");
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
