#!/usr/bin/env node
// `npm run check`: every static check, run in parallel; fails if any fails, with a summary at the end.
//   tsc (server)   tsc -p tsconfig.json --noEmit
//   vue-tsc (web)  vue-tsc --noEmit -p web/tsconfig.json
//   eslint         eslint . (flat config: eslint.config.js)
//   import layers  scripts/check-imports.ts (layer rules and import cycles)
//   prettier       prettier --check on the code (.prettierrc.json; `npm run format` writes it)
// `npm run check -- eslint tsc` runs only the named checks (matched by prefix).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (file) => path.join(root, "node_modules", file);
// Incremental caches make repeated checks fast; deleting node_modules/.cache/leyline-check changes nothing else.
// One cache per checkout: git worktrees that share one node_modules (a symlink) must not share build info.
const checkout = createHash("sha256").update(root).digest("hex").slice(0, 12);
const cache = (file) => path.join(root, "node_modules", ".cache", "leyline-check", checkout, file);

/** What the formatter owns: the code (Markdown, fixtures and the lock file are left as written; .prettierignore). */
const FORMATTED = ["**/*.{ts,mts,js,mjs,vue,css}"];

const CHECKS = [
  {
    name: "tsc (server)",
    args: [
      bin("typescript/bin/tsc"),
      "-p",
      "tsconfig.json",
      "--noEmit",
      "--pretty",
      "false",
      "--incremental",
      "--tsBuildInfoFile",
      cache("server.tsbuildinfo"),
    ],
  },
  {
    name: "vue-tsc (web)",
    args: [
      bin("vue-tsc/bin/vue-tsc.js"),
      "--noEmit",
      "-p",
      "web/tsconfig.json",
      "--pretty",
      "false",
      "--incremental",
      "--tsBuildInfoFile",
      cache("web.tsbuildinfo"),
    ],
  },
  { name: "eslint", args: [bin("eslint/bin/eslint.js"), "--cache", "--cache-location", cache("eslint/"), "."] },
  { name: "import layers", args: ["--import", "tsx", "scripts/check-imports.ts"] },
  {
    name: "prettier",
    args: [
      bin("prettier/bin/prettier.cjs"),
      "--check",
      "--log-level",
      "warn",
      "--cache",
      "--cache-location",
      cache("prettier"),
      ...FORMATTED,
    ],
  },
];

function run(check) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, check.args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.on("error", (error) => resolve({ ...check, ok: false, output: String(error), seconds: 0 }));
    child.on("close", (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      const ok = code === 0;
      if (!ok && signal) output += `\n(killed by ${signal})`;
      resolve({ ...check, ok, output: output.trim(), seconds });
    });
  });
}

const only = process.argv.slice(2);
const selected = only.length === 0 ? CHECKS : CHECKS.filter((c) => only.some((o) => c.name.startsWith(o)));
if (selected.length === 0) {
  console.error(`No check matches ${only.join(", ")}; checks: ${CHECKS.map((c) => c.name).join(", ")}`);
  process.exit(2);
}

const results = await Promise.all(selected.map(run));

for (const r of results) {
  if (r.ok || r.output === "") continue;
  console.log(`\n── ${r.name} ${"─".repeat(Math.max(0, 60 - r.name.length))}`);
  console.log(r.output);
}
console.log("\nCheck summary:");
for (const r of results) {
  console.log(`  ${r.ok ? "✓ pass" : "✗ FAIL"}  ${r.name.padEnd(14)} ${r.seconds.toFixed(1)}s`);
}
const failed = results.filter((r) => !r.ok);
console.log(failed.length === 0 ? "All checks passed." : `${failed.length} of ${results.length} checks failed.`);
process.exitCode = failed.length === 0 ? 0 : 1;
