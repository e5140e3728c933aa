import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkImports, formatResult, parseImports, vueScriptText } from "./check-imports.ts";

/** Writes a small repository tree into a fresh temp dir and returns its root. */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-imports-"));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const cleanTree = {
  "domain/entry.ts": 'import type { SessionEntry } from "@earendil-works/pi-coding-agent";\nexport type E = SessionEntry;\n',
  "domain/tree.ts": 'import type { E } from "./entry.ts";\nexport const size = (e: E[]) => e.length;\n',
  "domain/tree.test.ts": 'import fs from "node:fs";\nimport { size } from "./tree.ts";\nimport "../test/arbitraries.ts";\n',
  "projections/summary.projection.ts": 'import { produce } from "immer";\nimport { size } from "../domain/tree.ts";\n',
  "adapters/store.ts":
    'import Database from "better-sqlite3";\nimport "../projections/summary.projection.ts";\nimport "../migrations/001-init.ts";\n',
  "api/app.ts": 'import Fastify from "fastify";\nimport "../adapters/store.ts";\nimport "../extensions/research/index.ts";\n',
  "extensions/research/index.ts": 'import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";\nimport "../../domain/tree.ts";\n',
  "migrations/001-init.ts": 'import type { Kysely } from "kysely";\n',
  "web/src/App.vue":
    '<template><p>{{ n }}</p></template>\n<script setup lang="ts">\nimport { size } from "../../domain/tree.ts";\nconst n = size([]);\n</script>\n',
  "web/src/main.ts": 'import { createApp } from "vue";\nimport App from "./App.vue";\n',
  "test/arbitraries.ts": 'import "../adapters/store.ts";\nimport "../api/app.ts";\n',
  "scripts/tool.mjs": 'import fs from "node:fs";\nawait import("../api/app.ts");\n',
};

describe("checkImports", () => {
  it("accepts a tree that keeps the layer rules", () => {
    const result = checkImports(tree(cleanTree));
    expect(result.violations).toEqual([]);
    expect(result.cycles).toEqual([]);
    expect(result.files).toBe(Object.keys(cleanTree).length);
    expect(formatResult(result)).toMatch(/^import layers OK/);
  });

  it("catches forbidden imports between layers, node builtins and I/O packages in pure code", () => {
    const root = tree({
      ...cleanTree,
      "domain/bad-layer.ts": 'import { x } from "../adapters/store.ts";\n',
      "domain/bad-io.ts": '\n\nimport fs from "node:fs";\nimport { readFile } from "fs/promises";\n',
      "domain/bad-pi.ts": 'import { SessionManager } from "@earendil-works/pi-coding-agent";\n',
      "projections/bad-dynamic.ts": 'export const load = () => import("../api/app.ts");\n',
      "projections/bad-reexport.ts": 'export { x } from "../adapters/store.ts";\n',
      "extensions/bad.ts": 'import "../adapters/store.ts";\n',
      "migrations/bad.ts": 'import "../domain/tree.ts";\n',
      "web/src/Bad.vue": '<script setup lang="ts">\nimport { buildApp } from "../../api/app.ts";\n</script>\n',
      "web/src/bad-node.ts": 'import path from "node:path";\n',
    });
    const found = checkImports(root).violations.map((v) => `${v.file}:${v.line} ${v.specifier}`);
    expect(found).toEqual([
      "domain/bad-io.ts:3 node:fs",
      "domain/bad-io.ts:4 fs/promises",
      "domain/bad-layer.ts:1 ../adapters/store.ts",
      "domain/bad-pi.ts:1 @earendil-works/pi-coding-agent",
      "extensions/bad.ts:1 ../adapters/store.ts",
      "migrations/bad.ts:1 ../domain/tree.ts",
      "projections/bad-dynamic.ts:1 ../api/app.ts",
      "projections/bad-reexport.ts:1 ../adapters/store.ts",
      "web/src/Bad.vue:2 ../../api/app.ts",
      "web/src/bad-node.ts:1 node:path",
    ]);
    const message = checkImports(root).violations.find((v) => v.file === "domain/bad-layer.ts")?.message;
    expect(message).toBe("domain/ may not import adapters/ (adapters/store.ts)");
  });

  it("reports an unresolvable relative import", () => {
    const result = checkImports(tree({ "domain/a.ts": 'import "./missing.ts";\n' }));
    expect(result.violations).toMatchObject([{ file: "domain/a.ts", message: expect.stringContaining("cannot resolve") }]);
  });

  it("reports an import cycle with its path", () => {
    const root = tree({
      ...cleanTree,
      "domain/a.ts": 'import { b } from "./b.ts";\nexport const a = 1;\n',
      "domain/b.ts": 'import type { C } from "./c.ts";\nexport const b = 2;\n',
      "domain/c.ts": 'export { a } from "./a.ts";\nexport type C = number;\n',
      "api/self.ts": 'import "./self.ts";\n',
    });
    const result = checkImports(root);
    expect(result.violations).toEqual([]);
    expect(result.cycles).toEqual([
      ["api/self.ts", "api/self.ts"],
      ["domain/a.ts", "domain/b.ts", "domain/c.ts", "domain/a.ts"],
    ]);
    expect(formatResult(result)).toContain("import cycle: domain/a.ts → domain/b.ts → domain/c.ts → domain/a.ts");
  });
});

describe("parseImports", () => {
  it("finds every kind of specifier and marks type-only ones", () => {
    const text = [
      'import a from "pkg-a";',
      'import type { B } from "pkg-b";',
      'import { type C } from "pkg-c";',
      'export * from "./d.ts";',
      'export type { E } from "./e.ts";',
      'const f = await import("pkg-f");',
      'type G = typeof import("pkg-g");',
      'const h = require("pkg-h");',
      'import "./side-effect.css";',
      "const dynamic = await import(somewhere);",
    ].join("\n");
    expect(parseImports("x.ts", text)).toEqual([
      { line: 1, specifier: "pkg-a", typeOnly: false },
      { line: 2, specifier: "pkg-b", typeOnly: true },
      // With verbatimModuleSyntax an inline `type` still leaves `import {} from "pkg-c"` at runtime.
      { line: 3, specifier: "pkg-c", typeOnly: false },
      { line: 4, specifier: "./d.ts", typeOnly: false },
      { line: 5, specifier: "./e.ts", typeOnly: true },
      { line: 6, specifier: "pkg-f", typeOnly: false },
      { line: 7, specifier: "pkg-g", typeOnly: true },
      { line: 8, specifier: "pkg-h", typeOnly: false },
      { line: 9, specifier: "./side-effect.css", typeOnly: false },
    ]);
  });

  it("reads only the script blocks of a .vue file, keeping line numbers", () => {
    const vue = '<template>\n  <div>import "nope"</div>\n</template>\n<script lang="ts">\nimport x from "yes";\n</script>\n';
    expect(vueScriptText(vue).split("\n").length).toBe(vue.split("\n").length);
    expect(parseImports("X.vue", vue)).toEqual([{ line: 5, specifier: "yes", typeOnly: false }]);
  });
});

describe("the command line", () => {
  it("exits 1 and names the file when a rule is broken", () => {
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "check-imports.ts");
    const bad = spawnSync(process.execPath, ["--import", "tsx", script, tree({ "domain/a.ts": 'import "node:fs";\n' })], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("domain/a.ts:1");
  });
});
