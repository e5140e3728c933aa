#!/usr/bin/env node
// `node scripts/client-budget.mjs [--json] [--budget-kb N] [--keep]`: builds the client (web/) into a temp
// folder and checks the performance budget of issue 5: the initial JavaScript — the entry chunk and every
// chunk it imports statically, i.e. what index.html loads before the first screen renders — must be at most
// 250 KB gzipped (1 KB = 1000 bytes; gzip level 9, what a static server's precompression would send).
// Lazy chunks (the workbench route, markdown, highlighting, ...) are listed but not counted.
// Exit code 0 within budget, 1 over budget, 2 when the build fails. `--json` prints one JSON object.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import zlib from "node:zlib";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const webDir = path.join(root, "web");
export const DEFAULT_BUDGET_BYTES = 250_000;

function gzipSize(file) {
  return zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
}

/** The manifest keys reachable from `key` through static imports (the entry's initial set). */
function staticClosure(manifest, key, seen = new Set()) {
  if (seen.has(key) || manifest[key] === undefined) return seen;
  seen.add(key);
  for (const next of manifest[key].imports ?? []) staticClosure(manifest, next, seen);
  return seen;
}

/** Builds web/ into `outDir` and measures its chunks. */
export async function measureClient({
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-client-budget-")),
  budgetBytes = DEFAULT_BUDGET_BYTES,
} = {}) {
  const { build } = await import("vite");
  const started = Date.now();
  await build({
    root: webDir,
    configFile: path.join(webDir, "vite.config.ts"),
    logLevel: "error",
    build: { outDir, emptyOutDir: true, manifest: "manifest.json", reportCompressedSize: false },
  });
  const buildMs = Date.now() - started;
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, "manifest.json"), "utf8"));
  const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
  if (entryKey === undefined) throw new Error("The build manifest has no entry chunk.");
  const initialKeys = staticClosure(manifest, entryKey);
  const chunk = (key) => {
    const file = path.join(outDir, manifest[key].file);
    return { name: manifest[key].name ?? key, file: manifest[key].file, bytes: fs.statSync(file).size, gzipBytes: gzipSize(file) };
  };
  const initial = [...initialKeys].map(chunk);
  const initialFiles = new Set(initial.map((c) => c.file));
  const lazy = Object.keys(manifest)
    .filter((key) => manifest[key].file.endsWith(".js") && !initialFiles.has(manifest[key].file))
    .map(chunk)
    .sort((a, b) => b.gzipBytes - a.gzipBytes);
  const css = [...new Set([...initialKeys].flatMap((key) => manifest[key].css ?? []))].map((file) => ({
    file,
    bytes: fs.statSync(path.join(outDir, file)).size,
    gzipBytes: gzipSize(path.join(outDir, file)),
  }));
  const initialGzipBytes = initial.reduce((sum, c) => sum + c.gzipBytes, 0);
  return {
    budgetBytes,
    initialGzipBytes,
    initialBytes: initial.reduce((sum, c) => sum + c.bytes, 0),
    withinBudget: initialGzipBytes <= budgetBytes,
    initial,
    initialCss: css,
    lazy,
    lazyGzipBytes: lazy.reduce((sum, c) => sum + c.gzipBytes, 0),
    buildMs,
    outDir,
  };
}

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

async function main(argv) {
  const json = argv.includes("--json");
  const keep = argv.includes("--keep");
  const budgetIndex = argv.indexOf("--budget-kb");
  const budgetBytes = budgetIndex >= 0 ? Math.round(Number(argv[budgetIndex + 1]) * 1000) : DEFAULT_BUDGET_BYTES;
  let result;
  try {
    result = await measureClient({ budgetBytes });
  } catch (error) {
    console.error(`Client build failed: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  if (!keep) fs.rmSync(result.outDir, { recursive: true, force: true });
  if (json) {
    console.log(JSON.stringify(result));
  } else {
    console.log(`Initial JavaScript (entry + static imports), gzip -9:`);
    for (const c of result.initial) console.log(`  ${c.file.padEnd(44)} ${kb(c.bytes).padStart(10)} → ${kb(c.gzipBytes).padStart(9)}`);
    for (const c of result.initialCss)
      console.log(`  ${c.file.padEnd(44)} ${kb(c.bytes).padStart(10)} → ${kb(c.gzipBytes).padStart(9)}  (CSS, not counted)`);
    console.log(`Lazy chunks (${result.lazy.length}, ${kb(result.lazyGzipBytes)} gzipped in all):`);
    for (const c of result.lazy.slice(0, 12))
      console.log(`  ${c.file.padEnd(44)} ${kb(c.bytes).padStart(10)} → ${kb(c.gzipBytes).padStart(9)}`);
    console.log(
      `Initial JS: ${kb(result.initialGzipBytes)} gzipped of a ${kb(result.budgetBytes)} budget — ${result.withinBudget ? "within budget" : "OVER BUDGET"} (build ${(result.buildMs / 1000).toFixed(1)} s)`,
    );
  }
  return result.withinBudget ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await main(process.argv.slice(2));
}
