/**
 * The forked workers' entry as one plain JavaScript file. Started through tsx, a worker spent up to a second
 * more before its first line ran and imported pi about twice as slowly (tsx's hooks see every module pi
 * loads): measured on a busy 2-core machine, 1.3-1.6 s to start and 7-9 s to import pi, against 0.3 s and
 * 3.5-4.7 s for plain `node`. The bundle is runtime-worker.ts and every
 * file of ours it imports, built by esbuild into ONE ES module; every package (pi included) stays an external
 * import that Node loads natively. Leyline's bundled pi extensions are not in it: pi loads them (through jiti)
 * from `extensions/` as before.
 *
 * - Built on demand, once per source change: `<repo>/node_modules/.cache/leyline/worker/<checkout>/` holds the bundles
 *   (`runtime-worker-<content hash>.mjs`, never rewritten) and `manifest.json` (the current bundle and the
 *   size, mtime and sha-256 of every source file it was built from). A bundle is fresh when every input still
 *   has its size and mtime, or else its hash; anything else (an edit, a checkout, another esbuild) rebuilds it
 *   (~0.2 s; synchronous, so the first worker start after an edit waits for it). `npm ci` wipes the cache;
 *   nothing else is set up. Concurrent builders (parallel test files) write files under unique names and
 *   rename them into place, so readers see a whole bundle or none. Bundles other than the current one are
 *   deleted once they are a day old.
 * - The cache lies inside `node_modules/` so that the bundle's bare imports resolve from the repository's
 *   packages exactly as the sources' do.
 * - `import.meta.url` in the bundle is replaced by the source entry's URL (esbuild `define`): code beside
 *   runtime-worker.ts that finds files relative to itself (the bundled extensions' folder) keeps finding them.
 *   A build refuses sources that read `import.meta` in any other folder (their relative paths would be wrong).
 * - When no bundle can be made (no esbuild, a read-only `node_modules`, a build error), workers start from
 *   the TypeScript entry through tsx, as before, after one process warning.
 */
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type Esbuild = typeof import("esbuild");

/** The worker's TypeScript entry (run through tsx when there is no bundle). */
export const WORKER_SOURCE_ENTRY = fileURLToPath(new URL("../runtime-worker/runtime-worker.ts", import.meta.url));

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Where bundles are cached by default: one folder per checkout, because git worktrees may share one
 * node_modules (a symlink) and each would otherwise rebuild the other's bundle on every start.
 */
export const DEFAULT_WORKER_BUNDLE_DIR = path.join(
  REPO_ROOT,
  "node_modules",
  ".cache",
  "leyline",
  "worker",
  createHash("sha256").update(REPO_ROOT).digest("hex").slice(0, 12),
);

/** Raised when the bundle's format changes (options below), so that older caches are rebuilt. */
const BUNDLE_FORMAT = 1;
const MANIFEST = "manifest.json";
/** Bundles other than the current one are deleted after this long (a running server may still start them). */
const OLD_BUNDLE_MS = 24 * 60 * 60 * 1000;

interface ManifestInput {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly sha256: string;
}

interface Manifest {
  readonly format: number;
  readonly esbuild: string;
  readonly entry: string;
  readonly bundle: string;
  readonly inputs: readonly ManifestInput[];
}

export interface WorkerBundleOptions {
  /** The TypeScript entry to bundle. Default runtime-worker.ts. */
  readonly entry?: string;
  /** The cache folder; it must lie inside the repository's node_modules (bare imports resolve from there). */
  readonly cacheDir?: string;
}

export interface WorkerBundle {
  /** The bundle to fork. */
  readonly file: string;
  /** True when this call built it (false: the cached one was fresh). */
  readonly built: boolean;
}

function loadEsbuild(): Esbuild {
  return createRequire(import.meta.url)("esbuild") as Esbuild;
}

function sha256(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

function readManifest(dir: string): Manifest | null {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), "utf8"));
    if (typeof parsed !== "object" || parsed === null) return null;
    const manifest = parsed as Partial<Manifest>;
    if (typeof manifest.bundle !== "string" || !Array.isArray(manifest.inputs)) return null;
    return manifest as Manifest;
  } catch {
    return null;
  }
}

/** Every input unchanged: same size and mtime, or failing that, the same content. */
function inputsFresh(inputs: readonly ManifestInput[]): boolean {
  for (const input of inputs) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(input.path);
    } catch {
      return false;
    }
    if (stat.size === input.size && stat.mtimeMs === input.mtimeMs) continue;
    if (stat.size !== input.size || sha256(input.path) !== input.sha256) return false;
  }
  return true;
}

/** Writes `content` to `file` atomically (a unique temp name, then rename). */
function writeAtomically(file: string, content: string | Uint8Array): void {
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  fs.writeFileSync(temp, content);
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

function removeOldBundles(dir: string, keep: string): void {
  const now = Date.now();
  for (const name of fs.readdirSync(dir)) {
    if (name === keep || name === MANIFEST) continue;
    const file = path.join(dir, name);
    try {
      const isTemp = name.endsWith(".tmp");
      if (!isTemp && !/^runtime-worker-[0-9a-f]+\.mjs$/.test(name)) continue;
      if (now - fs.statSync(file).mtimeMs > (isTemp ? 60 * 60 * 1000 : OLD_BUNDLE_MS)) fs.rmSync(file, { force: true });
    } catch {
      // another process removed it
    }
  }
}

function build(esbuild: Esbuild, entry: string, dir: string): Manifest {
  const result = esbuild.buildSync({
    entryPoints: [entry],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    packages: "external",
    define: { "import.meta.url": JSON.stringify(pathToFileURL(entry).href) },
    outfile: path.join(dir, "runtime-worker.mjs"),
    write: false,
    metafile: true,
    logLevel: "silent",
    legalComments: "none",
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error("esbuild produced no output");
  const sources = Object.keys(result.metafile.inputs).map((input) => path.resolve(REPO_ROOT, input));
  const entryDir = path.dirname(entry);
  const inputs = sources.map((source): ManifestInput => {
    const stat = fs.statSync(source);
    const text = fs.readFileSync(source, "utf8");
    if (path.dirname(source) !== entryDir && /\bimport\.meta\b/.test(text)) {
      throw new Error(`${source} reads import.meta outside ${entryDir}: its relative paths would be wrong in the bundle`);
    }
    return { path: source, size: stat.size, mtimeMs: stat.mtimeMs, sha256: createHash("sha256").update(text).digest("hex") };
  });
  const bundle = `runtime-worker-${createHash("sha256").update(output.contents).digest("hex").slice(0, 16)}.mjs`;
  const bundleFile = path.join(dir, bundle);
  if (!fs.existsSync(bundleFile)) writeAtomically(bundleFile, output.contents);
  const manifest: Manifest = { format: BUNDLE_FORMAT, esbuild: esbuild.version, entry, bundle, inputs };
  writeAtomically(path.join(dir, MANIFEST), JSON.stringify(manifest, null, 1));
  return manifest;
}

/**
 * The worker bundle for `entry`: the cached one when it is fresh, else a new build. Throws when none can be
 * made (see the module comment); `workerEntry()` turns that into the TypeScript entry.
 */
export function ensureWorkerBundle(options: WorkerBundleOptions = {}): WorkerBundle {
  const entry = path.resolve(options.entry ?? WORKER_SOURCE_ENTRY);
  const dir = path.resolve(options.cacheDir ?? DEFAULT_WORKER_BUNDLE_DIR);
  const esbuild = loadEsbuild();
  const cached = readManifest(dir);
  if (
    cached !== null &&
    cached.format === BUNDLE_FORMAT &&
    cached.esbuild === esbuild.version &&
    cached.entry === entry &&
    fs.existsSync(path.join(dir, cached.bundle)) &&
    inputsFresh(cached.inputs)
  ) {
    return { file: path.join(dir, cached.bundle), built: false };
  }
  fs.mkdirSync(dir, { recursive: true });
  const manifest = build(esbuild, entry, dir);
  removeOldBundles(dir, manifest.bundle);
  return { file: path.join(dir, manifest.bundle), built: true };
}

let current: string | null = null;
let warned = false;

/**
 * The file forked workers start from: the bundle of runtime-worker.ts (checked once per process, and again
 * only if its file disappeared), or runtime-worker.ts itself when no bundle can be made.
 */
export function workerEntry(): string {
  if (current !== null && fs.existsSync(current)) return current;
  try {
    current = ensureWorkerBundle().file;
    return current;
  } catch (error) {
    if (!warned) {
      warned = true;
      process.emitWarning(
        `Leyline: runtime workers start through tsx (no worker bundle: ${error instanceof Error ? error.message : String(error)})`,
      );
    }
    return WORKER_SOURCE_ENTRY;
  }
}
