#!/usr/bin/env node
// `npm start [-- --port N --host H]`: builds the client when web/dist is missing or stale, then runs the
// server (`node --import tsx api/main.ts ...args`), forwarding signals and its exit code.
// Build output goes to stderr so stdout carries only the server's `Leyline listening on ...` line.
import { spawn } from "node:child_process";
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

/** The client is stale when web/dist is missing or older than web/ (sources, config) or the backend code it may import. */
export function clientIsStale() {
  if (!fs.existsSync(distIndex)) return true;
  const built = fs.statSync(distIndex).mtimeMs;
  const inputs = [path.join(root, "web"), path.join(root, "domain"), path.join(root, "projections")];
  const newestInput = Math.max(...inputs.map(newestMtime), fs.statSync(path.join(root, "package-lock.json")).mtimeMs);
  return newestInput > built;
}

function run(args, stdio) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio });
    const forward = (signal) => child.kill(signal);
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
    for (const signal of signals) process.on(signal, forward);
    // `kill <npm pid>` stops npm and its `sh -c` without reaching us: when we are orphaned, stop the child.
    const parent = process.ppid;
    const orphanWatch = setInterval(() => {
      if (process.ppid !== parent) forward("SIGTERM");
    }, 500);
    child.on("exit", (code, signal) => {
      clearInterval(orphanWatch);
      for (const s of signals) process.off(s, forward);
      resolve({ code, signal });
    });
  });
}

function exitLike({ code, signal }) {
  if (signal) process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGHUP" ? 1 : 15));
  process.exit(code ?? 1);
}

if (clientIsStale()) {
  process.stderr.write("Building the web client (web/dist is missing or stale)...\n");
  const result = await run([path.join(root, "scripts", "build.mjs")], ["ignore", process.stderr, process.stderr]);
  if (result.code !== 0) {
    process.stderr.write("The web client build failed; see above.\n");
    exitLike(result);
  }
}

exitLike(await run(["--import", "tsx", path.join(root, "api", "main.ts"), ...process.argv.slice(2)], "inherit"));
