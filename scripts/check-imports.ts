/**
 * The import-layer check (`npm run check` runs it; `node --import tsx scripts/check-imports.ts [root]`).
 *
 * It parses every import, export-from, dynamic import, `require` and `import("x")` type in the source folders
 * (.ts/.mts/.tsx/.js/.mjs and the <script> blocks of .vue files) and enforces docs/architecture's layers:
 *
 *   domain      → domain                                   (packages: type-only for pi; no node builtins, no I/O)
 *   projections → domain, projections                       (same package rules as domain)
 *   adapters    → domain, projections, adapters, migrations
 *   api         → everything except web (and test)
 *   extensions  → domain, projections, extensions
 *   web         → web, domain, projections                  (no node builtins, no I/O packages, pi type-only)
 *   migrations  → migrations                                 (packages only otherwise)
 *   test/, scripts/ and every *.test.ts / *.bench.ts / *.fixture.ts file → unconstrained
 *
 * Layer rules apply to `import type` too (a type dependency is still a dependency); only the package rules
 * relax for type-only imports. It also reports import cycles among our files (relative imports, type-only
 * included) with their path.
 */
import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

export type Layer = "domain" | "projections" | "adapters" | "api" | "extensions" | "web" | "migrations" | "test" | "scripts";
type Target = Layer | "root";

export interface ImportRef {
  /** 1-based line of the specifier. */
  line: number;
  specifier: string;
  /** Erased at runtime: `import type`, `export type ... from`, `typeof import("x")`. */
  typeOnly: boolean;
}

export interface Violation {
  /** Repo-relative, POSIX separators. */
  file: string;
  line: number;
  specifier: string;
  message: string;
}

export interface CheckResult {
  files: number;
  imports: number;
  violations: Violation[];
  /** Each cycle as a path of repo-relative files, first file repeated at the end. */
  cycles: string[][];
}

/** The folders scanned, and the layer each one is. */
const SOURCE_DIRS: ReadonlyArray<readonly [string, Layer]> = [
  ["domain", "domain"],
  ["projections", "projections"],
  ["adapters", "adapters"],
  ["api", "api"],
  ["extensions", "extensions"],
  ["web/src", "web"],
  ["migrations", "migrations"],
  ["test", "test"],
  ["scripts", "scripts"],
];

const SOURCE_EXTENSIONS = [".ts", ".mts", ".tsx", ".js", ".mjs", ".vue"];
const SKIP_DIRS = new Set(["node_modules", "dist", "coverage", ".git"]);

const ALLOWED_LAYERS: Record<Layer, ReadonlySet<Target> | "any"> = {
  domain: new Set(["domain"]),
  projections: new Set(["domain", "projections"]),
  adapters: new Set(["domain", "projections", "adapters", "migrations", "root"]),
  api: new Set(["domain", "projections", "adapters", "api", "extensions", "migrations", "root"]),
  extensions: new Set(["domain", "projections", "extensions"]),
  web: new Set(["web", "domain", "projections"]),
  migrations: new Set(["migrations"]),
  test: "any",
  scripts: "any",
};

/** Packages that do I/O or belong to the server: never in pure layers or the browser bundle. */
const IO_PACKAGES = ["better-sqlite3", "kysely", "node-pty", "fastify", "@fastify/", "ws", "chokidar", "vite", "tsx"];
/** Heavy packages that load every provider SDK and touch the file system: type-only in pure layers and web. */
const TYPE_ONLY_PACKAGES = ["@earendil-works/"];
const PURE_LAYERS: ReadonlySet<Layer> = new Set(["domain", "projections", "web"]);

const BUILTINS = new Set(builtinModules.map((name) => name.replace(/^node:/, "")));

function isTestFile(file: string): boolean {
  return /\.(test|spec|bench|fixture)\.[cm]?[jt]sx?$/.test(file) || /\.(int|e2e)\.test\./.test(file);
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

function isBuiltin(specifier: string): boolean {
  if (specifier.startsWith("node:")) return true;
  return BUILTINS.has(packageName(specifier));
}

function matchesPackage(specifier: string, list: readonly string[]): boolean {
  const name = packageName(specifier);
  return list.some((entry) => (entry.endsWith("/") ? name.startsWith(entry) : name === entry));
}

/** Keeps only the <script> blocks of a .vue file, blanking the rest but preserving line numbers. */
export function vueScriptText(source: string): string {
  let out = "";
  let last = 0;
  const re = /<script\b[^>]*>([\s\S]*?)<\/script>/g;
  for (let m = re.exec(source); m !== null; m = re.exec(source)) {
    const bodyStart = m.index + m[0].indexOf(">") + 1;
    const body = m[1] ?? "";
    out += source.slice(last, bodyStart).replace(/[^\n]/g, " ");
    out += body;
    last = bodyStart + body.length;
  }
  out += source.slice(last).replace(/[^\n]/g, " ");
  return out;
}

function stringArg(node: ts.Node | undefined): string | undefined {
  if (node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) return node.text;
  return undefined;
}

/** Every module specifier a file mentions. */
export function parseImports(fileName: string, text: string): ImportRef[] {
  const source = fileName.endsWith(".vue") ? vueScriptText(text) : text;
  const kind = fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : fileName.match(/\.m?js$/) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, kind);
  const refs: ImportRef[] = [];
  const add = (node: ts.Node, specifier: string, typeOnly: boolean): void => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    refs.push({ line, specifier, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const spec = stringArg(node.moduleSpecifier);
      if (spec !== undefined) add(node.moduleSpecifier, spec, node.importClause?.isTypeOnly === true);
    } else if (ts.isExportDeclaration(node)) {
      const spec = stringArg(node.moduleSpecifier);
      if (spec !== undefined && node.moduleSpecifier !== undefined) add(node.moduleSpecifier, spec, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const spec = stringArg(node.moduleReference.expression);
      if (spec !== undefined) add(node.moduleReference.expression, spec, node.isTypeOnly);
    } else if (ts.isCallExpression(node)) {
      const isDynamicImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === "require";
      const spec = stringArg(node.arguments[0]);
      if ((isDynamicImport || isRequire) && spec !== undefined && node.arguments[0] !== undefined) add(node.arguments[0], spec, false);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) {
        const spec = stringArg(arg.literal);
        if (spec !== undefined) add(arg, spec, true);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return refs;
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) out.push(...listFiles(path.join(dir, entry.name)));
    } else if (entry.isFile() && SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith(".d.ts")) {
      out.push(path.join(dir, entry.name));
    }
  }
  return out;
}

/** Resolves a relative specifier the way Node/tsx/Vite would for our files; undefined when nothing matches. */
function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier.split("?", 1)[0] ?? specifier);
  const candidates = [base];
  if (/\.[cm]?js$/.test(base)) candidates.push(base.replace(/\.([cm]?)js$/, ".$1ts"));
  for (const ext of [".ts", ".tsx", ".mts", ".vue", ".mjs", ".js"]) candidates.push(base + ext);
  for (const index of ["index.ts", "index.mjs", "index.js"]) candidates.push(path.join(base, index));
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

function targetLayer(root: string, file: string): Target | undefined {
  const rel = toPosix(path.relative(root, file));
  if (rel.startsWith("../") || path.isAbsolute(rel)) return undefined;
  if (rel.startsWith("web/")) return "web";
  const first = rel.split("/")[0] ?? "";
  const hit = SOURCE_DIRS.find(([dir]) => dir === first);
  return hit ? hit[1] : "root";
}

function packageRule(layer: Layer, ref: ImportRef): string | undefined {
  if (!PURE_LAYERS.has(layer)) return undefined;
  const where = layer === "web" ? "the browser client (web/)" : `${layer}/ (pure: no I/O)`;
  if (isBuiltin(ref.specifier)) {
    if (ref.typeOnly && layer !== "web") return undefined;
    return `${where} may not import the Node builtin "${ref.specifier}"`;
  }
  if (matchesPackage(ref.specifier, IO_PACKAGES)) {
    if (ref.typeOnly) return undefined;
    return `${where} may not import the I/O package "${packageName(ref.specifier)}"`;
  }
  if (matchesPackage(ref.specifier, TYPE_ONLY_PACKAGES) && !ref.typeOnly) {
    return `${where} may only \`import type\` from "${packageName(ref.specifier)}" (it loads every provider SDK and does I/O)`;
  }
  return undefined;
}

/** Finds one cycle through each strongly connected component with more than one file (or a self-import). */
function findCycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowlinks = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];

  const strongConnect = (v: string): void => {
    indices.set(v, index);
    lowlinks.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        strongConnect(w);
        lowlinks.set(v, Math.min(lowlinks.get(v) ?? 0, lowlinks.get(w) ?? 0));
      } else if (onStack.has(w)) {
        lowlinks.set(v, Math.min(lowlinks.get(v) ?? 0, indices.get(w) ?? 0));
      }
    }
    if (lowlinks.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) strongConnect(v);

  const cycles: string[][] = [];
  for (const component of components) {
    const members = new Set(component);
    const start = [...component].sort()[0];
    if (start === undefined) continue;
    if (component.length === 1 && !(graph.get(start)?.has(start) ?? false)) continue;
    // Breadth-first search from start back to start inside the component: the shortest cycle through it.
    const previous = new Map<string, string>();
    const queue: string[] = [start];
    let closing: string | undefined;
    for (let head = 0; head < queue.length && closing === undefined; head++) {
      const v: string = queue[head] ?? start;
      const next: string[] = [...(graph.get(v) ?? [])].sort();
      for (const w of next) {
        if (!members.has(w)) continue;
        if (w === start) {
          closing = v;
          break;
        }
        if (!previous.has(w)) {
          previous.set(w, v);
          queue.push(w);
        }
      }
    }
    if (closing === undefined) continue;
    const cycle = [start];
    for (let v: string | undefined = closing; v !== undefined && v !== start; v = previous.get(v)) cycle.splice(1, 0, v);
    cycle.push(start);
    cycles.push(cycle);
  }
  return cycles.sort((a, b) => ((a[0] ?? "") < (b[0] ?? "") ? -1 : 1));
}

/** Checks every source file under `root` (the repository root). */
export function checkImports(root: string): CheckResult {
  const violations: Violation[] = [];
  const graph = new Map<string, Set<string>>();
  let fileCount = 0;
  let importCount = 0;

  for (const [dir, layer] of SOURCE_DIRS) {
    for (const file of listFiles(path.join(root, dir))) {
      fileCount++;
      const rel = toPosix(path.relative(root, file));
      const edges = new Set<string>();
      graph.set(rel, edges);
      const unconstrained = ALLOWED_LAYERS[layer] === "any" || isTestFile(rel);
      const refs = parseImports(file, fs.readFileSync(file, "utf8"));
      importCount += refs.length;
      for (const ref of refs) {
        const report = (message: string): void => {
          violations.push({ file: rel, line: ref.line, specifier: ref.specifier, message });
        };
        if (ref.specifier.startsWith(".") || ref.specifier.startsWith("/")) {
          const resolved = ref.specifier.startsWith("/") ? undefined : resolveRelative(file, ref.specifier);
          if (resolved === undefined) {
            if (!ref.specifier.startsWith("/")) report("cannot resolve this relative import to a file");
            else if (!unconstrained) report("absolute import paths are not allowed");
            continue;
          }
          const target = targetLayer(root, resolved);
          const targetRel = toPosix(path.relative(root, resolved));
          if (target !== undefined && SOURCE_EXTENSIONS.some((ext) => resolved.endsWith(ext))) edges.add(targetRel);
          const allowed = ALLOWED_LAYERS[layer];
          if (unconstrained || allowed === "any") continue;
          if (target === undefined) report("imports a file outside the repository");
          else if (!allowed.has(target)) {
            report(`${layer}/ may not import ${target === "root" ? "top-level files" : `${target}/`} (${targetRel})`);
          }
        } else if (!unconstrained) {
          const message = packageRule(layer, ref);
          if (message !== undefined) report(message);
        }
      }
    }
  }

  // Only edges between scanned files form cycles.
  for (const edges of graph.values()) for (const to of [...edges]) if (!graph.has(to)) edges.delete(to);
  violations.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  return { files: fileCount, imports: importCount, violations, cycles: findCycles(graph) };
}

export function formatResult(result: CheckResult): string {
  const lines: string[] = [];
  for (const v of result.violations) lines.push(`${v.file}:${v.line}  "${v.specifier}": ${v.message}`);
  for (const cycle of result.cycles) lines.push(`import cycle: ${cycle.join(" → ")}`);
  const problems = result.violations.length + result.cycles.length;
  lines.push(
    problems === 0
      ? `import layers OK (${result.files} files, ${result.imports} imports)`
      : `import layers: ${result.violations.length} forbidden import(s), ${result.cycles.length} cycle(s) in ${result.files} files`,
  );
  return lines.join("\n");
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
  const result = checkImports(root);
  process.stdout.write(`${formatResult(result)}\n`);
  process.exitCode = result.violations.length + result.cycles.length === 0 ? 0 : 1;
}
