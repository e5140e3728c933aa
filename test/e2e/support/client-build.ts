/**
 * The built client for the browser tests: `web/dist`, rebuilt with `npx vite build web` only when it is
 * missing or older than its inputs (scripts/client-stale.mjs, the rule `npm start` uses too). Call it while
 * holding the e2e lock (e2e-lock.ts) so two suites never build at once.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { clientIsStale } from "../../../scripts/client-stale.mjs";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const WEB_DIST_DIR = path.join(REPO_ROOT, "web", "dist");
const DIST_INDEX = path.join(WEB_DIST_DIR, "index.html");

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
