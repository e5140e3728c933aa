#!/usr/bin/env node
// `npm start [-- --port N --host H]`: builds the client when web/dist is missing or stale, then runs the
// server (`node --import tsx api/main.ts ...args`), forwarding signals and its exit code. The server runs on
// Node >= 22.19 (scripts/node-runtime.mjs): this Node when it is one, else the one `npm ci` installed.
// Build output goes to stderr so stdout carries only the server's `Leyline listening on ...` line.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { clientIsStale } from "./client-stale.mjs";
import { serverNode } from "./node-runtime.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
let node;
try {
  node = serverNode(root);
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

function run(args, stdio) {
  return new Promise((resolve) => {
    const child = spawn(node, args, { cwd: root, stdio });
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
