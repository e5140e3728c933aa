/**
 * The worker bundle (worker-bundle.ts) with real esbuild builds, real files and real forked workers: a bundle
 * is built once and reused while its sources are unchanged (a touched but identical file included), an edited
 * source or a damaged manifest rebuilds it under a new name, sources outside the entry's folder may not read
 * `import.meta`; forked workers start from the bundle without tsx, load Leyline's bundled extensions from
 * `extensions/` (the bundle's `import.meta.url` is the source entry's), and a stale bundle of the real worker
 * is rebuilt and runs.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { createRuntimeTestDirs } from "./runtime-test-support.ts";
import { DEFAULT_WORKER_BUNDLE_DIR, ensureWorkerBundle, WORKER_SOURCE_ENTRY, workerEntry } from "./worker-bundle.ts";
import { ForkedWorkerClient } from "./worker-client.ts";

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(parent: string, prefix: string): string {
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, prefix));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function cmdlineOf(pid: number): string[] {
  return fs
    .readFileSync(`/proc/${pid}/cmdline`, "utf8")
    .split("\0")
    .filter((part) => part !== "");
}

describe("ensureWorkerBundle", () => {
  it("builds once, reuses the bundle while the sources are unchanged, and rebuilds after an edit", () => {
    const src = tempDir(os.tmpdir(), "leyline-bundle-src-");
    const cache = path.join(tempDir(os.tmpdir(), "leyline-bundle-cache-"), "worker");
    const entry = path.join(src, "entry.ts");
    const dep = path.join(src, "dep.ts");
    fs.writeFileSync(dep, 'export const value: string = "first";\n');
    fs.writeFileSync(entry, 'import { value } from "./dep.ts";\nconsole.log(value, new URL("./x", import.meta.url).href);\n');
    const run = (file: string): string => execFileSync(process.execPath, [file], { encoding: "utf8" }).trim();

    const first = ensureWorkerBundle({ entry, cacheDir: cache });
    expect(first.built).toBe(true);
    expect(path.dirname(first.file)).toBe(cache);
    expect(path.basename(first.file)).toMatch(/^runtime-worker-[0-9a-f]{16}\.mjs$/);
    // import.meta.url is the source entry's: paths relative to the sources still resolve
    expect(run(first.file)).toBe(`first ${new URL("./x", pathToFileURL(entry)).href}`);

    expect(ensureWorkerBundle({ entry, cacheDir: cache })).toEqual({ file: first.file, built: false });
    // a newer mtime with the same bytes (a checkout, `touch`) is still fresh
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(dep, later, later);
    expect(ensureWorkerBundle({ entry, cacheDir: cache })).toEqual({ file: first.file, built: false });

    fs.writeFileSync(dep, 'export const value: string = "second";\n');
    const second = ensureWorkerBundle({ entry, cacheDir: cache });
    expect(second.built).toBe(true);
    expect(second.file).not.toBe(first.file);
    expect(run(second.file).split(" ")[0]).toBe("second");
    // the previous bundle stays for a day: a running server may still start workers from it
    expect(fs.existsSync(first.file)).toBe(true);
    expect(ensureWorkerBundle({ entry, cacheDir: cache })).toEqual({ file: second.file, built: false });

    // a damaged manifest is a stale one
    fs.writeFileSync(path.join(cache, "manifest.json"), "{ not json");
    expect(ensureWorkerBundle({ entry, cacheDir: cache })).toEqual({ file: second.file, built: true });
  });

  it("refuses a source that reads import.meta outside the entry's folder", () => {
    const src = tempDir(os.tmpdir(), "leyline-bundle-meta-");
    fs.mkdirSync(path.join(src, "lib"));
    fs.writeFileSync(path.join(src, "lib", "where.ts"), "export const here = import.meta.url;\n");
    fs.writeFileSync(path.join(src, "entry.ts"), 'import { here } from "./lib/where.ts";\nconsole.log(here);\n');
    expect(() => ensureWorkerBundle({ entry: path.join(src, "entry.ts"), cacheDir: path.join(src, "cache") })).toThrow(
      /reads import\.meta outside/,
    );
  });
});

describe("forked workers from the bundle", () => {
  const dirs = createRuntimeTestDirs("leyline-bundle-worker-");
  cleanups.push(() => dirs.cleanup());
  const env = { ...process.env, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" };

  async function openIn(client: ForkedWorkerClient): Promise<string[]> {
    try {
      const snapshot = await client.request("open", {
        new: { cwd: dirs.cwd },
        options: { agentDir: dirs.agentDir, heartbeatMs: 0, faux: {} },
      });
      return snapshot.slashCommands.map((command) => command.name);
    } finally {
      await client.dispose();
    }
  }

  it("start from the cached bundle, without tsx, and load Leyline's bundled extensions", { timeout: 120_000 }, async () => {
    const entry = workerEntry();
    expect(path.dirname(entry)).toBe(DEFAULT_WORKER_BUNDLE_DIR);
    const client = ForkedWorkerClient.spawn({ env, fauxScript: new FauxScript([]) });
    await client.ready;
    const cmdline = cmdlineOf(client.pid ?? 0);
    expect(cmdline).toContain(entry);
    expect(cmdline.join(" ")).not.toMatch(/tsx/);
    // extensions/ultrafast registers /ultrafast: found through the bundle's import.meta.url
    expect(await openIn(client)).toContain("ultrafast");
  });

  it("rebuilds a stale bundle of the real worker, and the new one runs", { timeout: 120_000 }, async () => {
    // Inside node_modules, as the default cache: the bundle's package imports resolve from the repository.
    const cache = path.join(tempDir(path.dirname(DEFAULT_WORKER_BUNDLE_DIR), "test-"), "worker");
    const fresh = ensureWorkerBundle({ cacheDir: cache });
    expect(fresh.built).toBe(true);
    expect(ensureWorkerBundle({ cacheDir: cache }).built).toBe(false);
    // A source the manifest lists changed since (what an edit to worker-host.ts looks like to the check).
    const manifestFile = path.join(cache, "manifest.json");
    const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { inputs: Array<{ path: string; size: number; sha256: string }> };
    const host = manifest.inputs.find((input) => input.path === path.join(path.dirname(WORKER_SOURCE_ENTRY), "worker-host.ts"));
    expect(host).toBeDefined();
    if (host !== undefined) {
      host.size += 1;
      host.sha256 = "0".repeat(64);
    }
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    const rebuilt = ensureWorkerBundle({ cacheDir: cache });
    expect(rebuilt.built).toBe(true);
    const client = ForkedWorkerClient.spawn({ env, fauxScript: new FauxScript([]), workerEntry: rebuilt.file });
    await client.ready;
    expect(cmdlineOf(client.pid ?? 0)).toContain(rebuilt.file);
    expect(await openIn(client)).toContain("ultrafast");
  });
});
