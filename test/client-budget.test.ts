// The client's performance budget (issue 5): scripts/client-budget.mjs builds web/ into a temp folder and
// measures the initial JavaScript (entry chunk + static imports) gzipped; this test runs it as `npm` would.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
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
  initialCss: { file: string }[];
  lazy: Chunk[];
  outDir: string;
}

/** A string every build of xterm.js carries (its hidden input's class), in its JS and in its CSS. */
const XTERM_MARK = "xterm-helper-textarea";

describe("client budget", () => {
  it(
    "keeps the initial JavaScript within 250 KB gzipped, with the workbench, markdown and terminal split off",
    { timeout: 120_000 },
    () => {
      const run = spawnSync(process.execPath, ["scripts/client-budget.mjs", "--json", "--keep"], { cwd: root, encoding: "utf8" });
      expect(run.stderr).toBe("");
      const lines = run.stdout.trim().split("\n");
      const result = JSON.parse(lines.at(-1) ?? "{}") as BudgetResult;
      const contents = (file: string) => fs.readFileSync(path.join(result.outDir, file), "utf8");
      let initialText: string;
      let terminalChunks: Chunk[];
      try {
        initialText = [...result.initial, ...result.initialCss].map((c) => contents(c.file)).join("\n");
        terminalChunks = result.lazy.filter((c) => contents(c.file).includes(XTERM_MARK));
      } finally {
        fs.rmSync(result.outDir, { recursive: true, force: true });
      }
      expect(run.status).toBe(result.withinBudget ? 0 : 1);
      expect(result.budgetBytes).toBe(250_000);
      expect(result.initialGzipBytes).toBeLessThanOrEqual(250_000);
      expect(result.withinBudget).toBe(true);
      // Route-level splitting: the session workbench is not part of the first load.
      expect(result.initial.some((c) => c.file.includes("SessionView"))).toBe(false);
      expect(result.lazy.some((c) => c.file.includes("SessionView"))).toBe(true);
      expect(result.initial.some((c) => /markdown|highlight/i.test(c.file))).toBe(false);
      // The terminal (xterm.js, its CSS, the panel) is its own chunk, loaded when a terminal first opens.
      expect(initialText).not.toContain(XTERM_MARK);
      expect(result.initial.some((c) => /Terminal/.test(c.file))).toBe(false);
      expect(terminalChunks.map((c) => c.name)).toEqual(["TerminalPanel"]);
    },
  );
});
