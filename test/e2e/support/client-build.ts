/**
 * The built client for the browser tests: `web/dist`, rebuilt with `npx vite build web` only when it is
 * missing or older than its inputs (the same staleness rule as `npm start`, scripts/start.mjs). Call it while
 * holding the e2e lock (e2e-lock.ts) so two suites never build at once.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const WEB_DIST_DIR = path.join(REPO_ROOT, "web", "dist");
const DIST_INDEX = path.join(WEB_DIST_DIR, "index.html");
const SKIP = new Set(["dist", "node_modules", ".vite"]);

/** Newest modification time (ms) of any file under `dir`, skipping build output; test files count too (cheap). */
function newestMtime(dir: string): number {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (entry.isFile()) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Whether web/dist is missing or older than web/, domain/, projections/ or package-lock.json. */
export function clientIsStale(): boolean {
  if (!fs.existsSync(DIST_INDEX)) return true;
  const built = fs.statSync(DIST_INDEX).mtimeMs;
  const inputs = ["web", "domain", "projections"].map((dir) => newestMtime(path.join(REPO_ROOT, dir)));
  const lock = fs.statSync(path.join(REPO_ROOT, "package-lock.json")).mtimeMs;
  return Math.max(...inputs, lock) > built;
}

/** Builds web/dist when stale; throws with Vite's output when the build fails. Returns whether it built. */
export function ensureClientBuilt(): boolean {
  if (!clientIsStale()) return false;
  const vite = path.join(REPO_ROOT, "node_modules", "vite", "bin", "vite.js");
  const result = spawnSync(process.execPath, [vite, "build", "web", "--logLevel", "warn"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: 300_000,
  });
  if (result.status !== 0) {
    throw new Error(`vite build web failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  }
  if (!fs.existsSync(DIST_INDEX)) throw new Error("vite build web wrote no web/dist/index.html");
  return true;
}
