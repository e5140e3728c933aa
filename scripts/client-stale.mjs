// When web/dist must be rebuilt: it is missing, or older than web/ (sources, config), the backend code the
// client may import (domain/, projections/) or package-lock.json. Used by `npm start` (scripts/start.mjs)
// and the browser tests (test/e2e/support/client-build.ts).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const distIndex = path.join(root, "web", "dist", "index.html");
const SKIP = new Set(["dist", "node_modules", ".vite"]);

/** Newest modification time (ms) of any file under `dir`, skipping build output. */
function newestMtime(dir) {
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

/** Whether web/dist is missing or older than its inputs. */
export function clientIsStale() {
  if (!fs.existsSync(distIndex)) return true;
  const built = fs.statSync(distIndex).mtimeMs;
  const inputs = ["web", "domain", "projections"].map((dir) => newestMtime(path.join(root, dir)));
  const lock = fs.statSync(path.join(root, "package-lock.json")).mtimeMs;
  return Math.max(...inputs, lock) > built;
}
