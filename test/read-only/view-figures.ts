/**
 * Figures for issue 9's note ("viewing is read-only"): what opening sessions in the browser costs. Starts the
 * real server as `npm start` does (`node --import tsx api/main.ts --port 0`, its own process, so its RSS is
 * its own) over a temp agent dir of small faux sessions, opens them one by one by clicking them in the
 * sidebar of Chromium, and prints one JSON object:
 * - `clickToTranscriptMs`: per click, the time until the session's last assistant message is shown;
 * - `workersAfter` / `serverRssMb` / `workersRssMb`: runtime worker processes (children of the server) and
 *   their RSS once the server is quiet (its worker count unchanged for 3 s), and the most seen at once (the
 *   server's spare worker, which api/main.ts keeps started ahead, is one of them);
 * - `changedFiles`: the agent dir's files whose bytes, size or mtime changed by viewing.
 *
 *   npx tsx test/read-only/view-figures.ts [--sessions 10]
 *
 * Run it from any copy of the repository (for example an export of an older commit with node_modules linked)
 * to compare before and after.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ensureClientBuilt, REPO_ROOT } from "../e2e/support/client-build.ts";
import { openBrowser } from "../e2e/support/e2e-browser.ts";
import { writeSeedSession } from "../e2e/support/session-seed.ts";
import { dt } from "../e2e/support/workbench-page.ts";
import { diffSnapshots, rssBytesOf, snapshotTree, workerProcessesOf } from "./read-only.fixture.ts";

function argValue(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index === -1 ? undefined : process.argv[index + 1];
  return value === undefined ? fallback : Number(value);
}

const count = argValue("--sessions", 10);
const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  ensureClientBuilt();
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "leyline-figures-")));
  const agentDir = path.join(root, "agent");
  const sessionsDir = path.join(agentDir, "sessions");
  const home = path.join(root, "home");
  const project = path.join(home, "project");
  fs.mkdirSync(sessionsDir, { recursive: true });
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false }, retry: { enabled: false } }));
  const scriptFile = path.join(root, "faux-script.json");
  fs.writeFileSync(scriptFile, "[]");
  const start = Date.now() - 2 * 60 * 60 * 1000;
  const seeded = Array.from({ length: count }, (_, i) =>
    writeSeedSession(sessionsDir, {
      cwd: project,
      name: `Figures session ${i + 1}`,
      messages: [`Question ${i + 1}?`, `Answer number ${i + 1} of the figures run.`],
      startMs: start + i * 60_000,
    }),
  );
  const before = snapshotTree(agentDir);

  const server = spawn(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "api", "main.ts"), "--port", "0"], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HOME: home,
      PI_OFFLINE: "1",
      PI_CODING_AGENT_DIR: agentDir,
      LEYLINE_DATA_DIR: path.join(root, "data"),
      LEYLINE_FAUX_RESPONSES: scriptFile,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  server.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /Leyline listening on (\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    server.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening:\n${stderr}`)));
  });
  const pid = server.pid ?? 0;

  // Workers are sampled all along: one that starts and goes again between two readings still counts.
  const seenWorkers = new Set<number>();
  let mostAtOnce = 0;
  const sampler = setInterval(() => {
    const children = workerProcessesOf(pid);
    children.forEach((child) => seenWorkers.add(child));
    mostAtOnce = Math.max(mostAtOnce, children.length);
  }, 100);

  const browser = await openBrowser(url);
  const clickToTranscriptMs: number[] = [];
  try {
    const { page } = browser;
    await page.goto("/");
    await page.locator(dt("connection-status", { "data-state": "connected" })).waitFor();
    for (const [i, session] of seeded.entries()) {
      const item = page.locator(dt("session-item", { "data-session-id": session.id }));
      await item.waitFor();
      const t0 = performance.now();
      await item.click();
      await page
        .locator(`${dt("transcript")} ${dt("entry", { "data-entry-type": "message", "data-role": "assistant" })}`)
        .filter({ hasText: `Answer number ${i + 1} of` })
        .first()
        .waitFor();
      clickToTranscriptMs.push(Math.round(performance.now() - t0));
    }
    // Quiet: the server's worker count unchanged for 3 s (workers still starting are counted once up).
    let last = -1;
    let stableSince = performance.now();
    const deadline = performance.now() + 120_000;
    while (performance.now() < deadline) {
      const now = workerProcessesOf(pid).length;
      if (now !== last) {
        last = now;
        stableSince = performance.now();
      } else if (performance.now() - stableSince >= 3000) break;
      await sleep(250);
    }
    const workers = workerProcessesOf(pid);
    const workersRss = workers.reduce((sum, child) => sum + rssBytesOf(child), 0);
    const sorted = [...clickToTranscriptMs].sort((a, b) => a - b);
    const changes = diffSnapshots(before, snapshotTree(agentDir));
    console.log(
      JSON.stringify({
        repo: REPO_ROOT,
        sessionsOpened: count,
        clickToTranscriptMs,
        clickToTranscriptMedianMs: sorted[Math.floor(sorted.length / 2)],
        clickToTranscriptMaxMs: sorted[sorted.length - 1],
        workersAfter: workers.length,
        workersSeen: seenWorkers.size,
        mostWorkersAtOnce: mostAtOnce,
        serverRssMb: mb(rssBytesOf(pid)),
        workersRssMb: mb(workersRss),
        totalRssMb: mb(rssBytesOf(pid) + workersRss),
        changedFiles: changes.length,
        changes: changes.slice(0, 20),
      }),
    );
  } finally {
    clearInterval(sampler);
    await browser.close();
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
