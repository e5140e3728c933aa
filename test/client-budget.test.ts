// The client's performance budget (issue 5): scripts/client-budget.mjs builds web/ into a temp folder and
// measures the initial JavaScript (entry chunk + static imports) gzipped; this test runs it as `npm` would.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

interface Chunk {
  name: string;
  file: string;
  bytes: number;
  gzipBytes: number;
}

interface BudgetResult {
  budgetBytes: number;
  initialGzipBytes: number;
  withinBudget: boolean;
  initial: Chunk[];
  lazy: Chunk[];
}

describe("client budget", () => {
  it("keeps the initial JavaScript within 250 KB gzipped, with the workbench and markdown split off", { timeout: 120_000 }, () => {
    const run = spawnSync(process.execPath, ["scripts/client-budget.mjs", "--json"], { cwd: root, encoding: "utf8" });
    expect(run.stderr).toBe("");
    const lines = run.stdout.trim().split("\n");
    const result = JSON.parse(lines.at(-1) ?? "{}") as BudgetResult;
    expect(run.status).toBe(result.withinBudget ? 0 : 1);
    expect(result.budgetBytes).toBe(250_000);
    expect(result.initialGzipBytes).toBeLessThanOrEqual(250_000);
    expect(result.withinBudget).toBe(true);
    // Route-level splitting: the session workbench is not part of the first load.
    expect(result.initial.some((c) => c.file.includes("SessionView"))).toBe(false);
    expect(result.lazy.some((c) => c.file.includes("SessionView"))).toBe(true);
    expect(result.initial.some((c) => /markdown|highlight/i.test(c.file))).toBe(false);
  });
});
