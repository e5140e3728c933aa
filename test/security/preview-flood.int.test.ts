/**
 * Security suite: GET /api/pi/state preview floods stay bounded (issue 9). Real forked worker processes
 * (the app's default worker factory), real HTTP over a listening socket, 30 parallel requests; the worker
 * processes are counted from /proc (descendants of this process running runtime-worker.ts, sampled every
 * 25 ms) and their memory summed from VmRSS:
 * - one folder: the 30 requests share one build (one worker), a request right after is served from the
 *   short cache (no worker), `refresh=1` builds a fresh preview;
 * - several folders: previews hold slots of the host's capacity next to the open runtimes, so at most
 *   `capacity` workers run at once and the folders beyond it get 503 with the capacity message.
 * Before this change the same flood started one worker per request (30 workers, ~3.5 GB, and every request
 * failed once the machine was too busy to open them within the open timeout).
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Active } from "../../domain/runtime/runtime-types.ts";
import { call, runtimeApiSuite } from "../../api/runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-sec-flood-");
const { dirs } = suite;

beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

/** Pids of this process's descendants (from /proc's parent links). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // the process exited while we looked
    }
  }
  const found: number[] = [];
  const stack = [root];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}

function procText(pid: number, file: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return "";
  }
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(procText(pid, "status"));
  return match ? Number(match[1]) / 1024 : 0;
}

/** Samples this process's runtime workers until `stop()`: distinct pids, peak count, peak summed RSS. */
function sampleWorkers(): { stop: () => { pids: Set<number>; peak: number; peakWorkersRssMb: number; peakServerRssMb: number } } {
  const pids = new Set<number>();
  let peak = 0;
  let peakWorkersRssMb = 0;
  let peakServerRssMb = 0;
  const sample = (): void => {
    const workers = descendants(process.pid).filter((pid) => procText(pid, "cmdline").includes("runtime-worker"));
    for (const pid of workers) pids.add(pid);
    peak = Math.max(peak, workers.length);
    peakWorkersRssMb = Math.max(
      peakWorkersRssMb,
      workers.reduce((sum, pid) => sum + rssMb(pid), 0),
    );
    peakServerRssMb = Math.max(peakServerRssMb, rssMb(process.pid));
  };
  sample();
  const timer = setInterval(sample, 25);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return { pids, peak, peakWorkersRssMb, peakServerRssMb };
    },
  };
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return `http://127.0.0.1:${address.port}`;
}

async function getState(
  base: string,
  cwd: string,
  refresh = false,
): Promise<{ status: number; body: { active?: Active; error?: string } }> {
  const res = await fetch(`${base}/api/pi/state?cwd=${encodeURIComponent(cwd)}${refresh ? "&refresh=1" : ""}`);
  return { status: res.status, body: (await res.json()) as { active?: Active; error?: string } };
}

function folder(name: string): string {
  const dir = path.join(dirs.root, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** One worker process's RSS is ~150-300 MB; a bound of 512 MB per allowed worker leaves room for noise. */
const WORKER_RSS_BOUND_MB = 512;

describe("GET /api/pi/state preview floods", () => {
  it("30 parallel previews of one folder share one worker; the next is cached; refresh=1 builds anew", { timeout: 240_000 }, async () => {
    const app = await suite.makeApp({ forked: true, turns: [] });
    const base = await listen(app);
    const cwd = folder("one-folder");
    const sampler = sampleWorkers();
    const answers = await Promise.all(Array.from({ length: 30 }, () => getState(base, cwd)));
    const cached = await getState(base, cwd);
    const flood = sampler.stop();
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.active).toMatchObject({ id: "", path: "", cwd });
    }
    expect(cached.status).toBe(200);
    expect(cached.body.active?.cwd).toBe(cwd);
    expect(flood.pids.size).toBe(1);
    expect(flood.peak).toBe(1);
    expect(flood.peakWorkersRssMb).toBeLessThan(WORKER_RSS_BOUND_MB);

    const again = sampleWorkers();
    const refreshed = await getState(base, cwd, true);
    const fresh = again.stop();
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect([...fresh.pids].filter((pid) => !flood.pids.has(pid))).toHaveLength(1);
    // every preview worker is gone once its answer is out
    expect(descendants(process.pid).filter((pid) => procText(pid, "cmdline").includes("runtime-worker"))).toEqual([]);
    expect(app.leyline.host.openRuntimes()).toHaveLength(0);
  });

  it(
    "30 parallel previews of five folders: previews and open runtimes share the capacity; the rest get 503",
    { timeout: 240_000 },
    async () => {
      const capacity = 3;
      const app = await suite.makeApp({ forked: true, turns: [], host: { capacity } });
      const base = await listen(app);
      // One selected runtime holds a slot (never evicted while selected), so two are left for previews.
      const created = await call(app, "POST", "/api/pi/sessions", { cwd: folder("open-session") });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const folders = ["a", "b", "c", "d", "e"].map((name) => folder(`flood-${name}`));

      const sampler = sampleWorkers();
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => getState(base, folders[i % folders.length] ?? "")));
      const flood = sampler.stop();

      const served = new Set<string>();
      for (const [i, answer] of answers.entries()) {
        if (answer.status === 200) {
          served.add(folders[i % folders.length] ?? "");
          expect(answer.body.active).toMatchObject({ id: "" });
        } else {
          expect(answer.status).toBe(503);
          // Refused by the capacity, or first by the bound on folders built at once (PREVIEW_MAX_BUILDING = 2).
          expect(answer.body.error).toMatch(
            /^Runtime capacity reached \(3 workers in use, none idle\): no worker is free to preview |^Previews of 2 other folders are being built: try /,
          );
        }
      }
      expect(served.size).toBe(capacity - 1);
      // the open runtime's worker plus one per served folder, never more than the capacity at once
      expect(flood.peak).toBeLessThanOrEqual(capacity);
      expect(flood.pids.size).toBe(1 + served.size);
      expect(flood.peakWorkersRssMb).toBeLessThan(capacity * WORKER_RSS_BOUND_MB);
      // slots come back: a refused folder previews once the flood is over
      const refused = folders.find((dir) => !served.has(dir)) ?? "";
      expect((await getState(base, refused)).status).toBe(200);
      expect(app.leyline.host.openRuntimes()).toHaveLength(1);
    },
  );
});
