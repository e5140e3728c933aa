/**
 * runtime_ready_vs_sdk, runtime_ready_cold_vs_sdk, state_cached_vs_first: how fast a session's runtime is
 * ready for the first action, and how fast GET /api/pi/state answers once it has answered.
 *
 * One persisted pi session (~0.5 MB, written by the bench's session builder, a model nobody has a key for) in
 * a temp agent dir (PI_CODING_AGENT_DIR), two real apps over it listening on 127.0.0.1 with forked workers
 * as api/main.ts configures them (no faux model): one with the spare worker (the product), one without.
 * - subject (runtime_ready_vs_sdk): `POST /api/pi/active-session { id }`, from the request until it answers
 *   with the runtime ready (its `active.id`), over HTTP, on the product app. Before each round (untimed) the
 *   runtime of the previous round is closed and the spare worker has imported pi: the state of a server that
 *   has been up for a few seconds when the person first acts. The check asserts that each round's runtime
 *   ran in the spare and that opening left the session file's bytes as they were.
 * - cold (runtime_ready_cold_vs_sdk, informational): the same request on the app without a spare: a worker
 *   started for it (the bundled worker, no tsx), as after a burst of opens used the spare up.
 * - baseline: a plain `node` child that imports the pi SDK, `SessionManager.open`s the same file and
 *   `createAgentSession({ cwd, agentDir, sessionManager })` with pi's defaults (resource discovery, settings,
 *   auth), timed from the spawn until it reports the session. Subject, cold and baseline run alternately
 *   (measure.ts `alternate`); the ratios are medians of per-round ratios.
 * - state_cached_vs_first: GET /api/pi/state?cwd for a new folder (a preview is built; the spare is warm
 *   before it, as above) and then the same request again, five times (served from the preview cache: the
 *   check asserts that no worker was taken for them; their median is the round's subject). The two run in
 *   that order in every round, so they do not alternate.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../../adapters/runtime-client/runtime-test-support.ts";
import { defaultSessionDir } from "../../adapters/runtime-worker/worker-runtime.ts";
import { buildApp } from "../../api/app.ts";
import { errorMessage, informationalFigure, measuredFigure, pendingFigure, type Figure } from "./figure.ts";
import { alternate, median, medianRatio, round, timeOnce, type AlternateOptions } from "./measure.ts";
import { createRng } from "./prng.ts";
import { SessionBuilder } from "./session-builder.ts";
import { buildTextPools } from "./text-pool.ts";

export const RUNTIME_READY_TARGET = 1.5;
export const STATE_CACHED_TARGET = 0.1;
/** Cached calls timed per round (their median is the round's subject): a few ms each, so one sample is noise. */
const CACHED_REPEATS = 5;

export type RuntimeReadyFigureName = "runtime_ready_vs_sdk" | "runtime_ready_cold_vs_sdk" | "state_cached_vs_first";

const READY_DESCRIPTION =
  "POST /api/pi/active-session on a persisted session until its runtime is ready (product app: forked workers, spare worker warm) / plain node: import pi SDK + SessionManager.open + createAgentSession on the same file";
const COLD_DESCRIPTION = "the same request on an app without a spare worker (a bundled worker started for it) / the same baseline";
const STATE_DESCRIPTION =
  "GET /api/pi/state?cwd again (preview cache, inputs unchanged) / its first call for that folder (a preview built)";

export interface RuntimeReadyOptions extends AlternateOptions {
  readonly seed: number;
  /** Size of the session file (default 512 KiB). */
  readonly sessionBytes?: number;
  readonly log?: (line: string) => void;
}

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The baseline process: pi's SDK with its defaults, nothing of Leyline. Args: file, cwd, agentDir. */
const BASELINE_SCRIPT = `
const [file, cwd, agentDir] = process.argv.slice(1);
const { SessionManager, createAgentSession } = await import("@earendil-works/pi-coding-agent");
const sessionManager = SessionManager.open(file);
const { session } = await createAgentSession({ cwd, agentDir, sessionManager });
process.stdout.write("ready " + session.sessionId + "\\n");
process.exit(0);
`;

function sha256(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** Spawns the baseline and resolves with the session id once it reports it (the child exits by itself). */
function runBaseline(file: string, cwd: string, agentDir: string): { ready: Promise<string>; exited: Promise<void> } {
  const child = spawn(process.execPath, ["--input-type=module", "-e", BASELINE_SCRIPT, file, cwd, agentDir], {
    cwd: REPO_ROOT,
    env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /^ready (\S+)\n/m.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`the baseline exited (${String(code)}) without a session: ${stderr.slice(-500)}`)));
  });
  return { ready, exited };
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("the app has no address");
  return `http://127.0.0.1:${address.port}`;
}

async function requestJson(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, init);
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, body: { text } };
  }
}

function activeField(body: Record<string, unknown>, field: "id" | "cwd"): string | null {
  const active = body["active"];
  if (typeof active !== "object" || active === null) return null;
  const value = (active as Record<string, unknown>)[field];
  return typeof value === "string" ? value : null;
}

/** The app as api/main.ts configures it (spare on or off), without idle cleanup or the watchdog. */
async function productApp(dirs: RuntimeTestDirs, name: string, spareWorker: boolean): Promise<{ app: FastifyInstance; base: string }> {
  const api: { url: string | undefined } = { url: undefined };
  const app = await buildApp({
    dataDir: path.join(dirs.root, `data-${name}`),
    agentDir: dirs.agentDir,
    home: dirs.root,
    env: { PI_OFFLINE: "1" },
    runtimeHostOptions: { apiUrl: () => api.url, spareWorker, fauxScript: null, idleMs: 0, watchdogMs: 0 },
  });
  await app.leyline.readSide.ready();
  const base = await listen(app);
  api.url = base;
  return { app, base };
}

/** Waits until the app's spare worker exists and has imported pi; returns its pid. */
async function warmSpare(app: FastifyInstance): Promise<number | null> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const spare = app.leyline.host.spareWorker();
    if (spare !== null) {
      if (!(await spare.warm)) throw new Error("the spare worker failed to import pi");
      return spare.pid;
    }
    if (Date.now() > deadline) throw new Error("no spare worker within 120 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function benchRuntimeReady(options: RuntimeReadyOptions): Promise<Record<RuntimeReadyFigureName, Figure>> {
  const log = options.log ?? (() => undefined);
  const dirs = createRuntimeTestDirs("leyline-bench-runtime-");
  const apps: FastifyInstance[] = [];
  try {
    const rng = createRng(options.seed);
    const builder = new SessionBuilder(rng, buildTextPools(rng), { cwd: dirs.cwd, startMs: Date.UTC(2025, 5, 1) });
    builder.fillTo(options.sessionBytes ?? 512 * 1024);
    const sessionDir = defaultSessionDir(dirs.agentDir, dirs.cwd);
    fs.mkdirSync(sessionDir, { recursive: true });
    const file = path.join(sessionDir, builder.fileName);
    fs.writeFileSync(file, builder.text);
    const id = builder.sessionId;

    const product = await productApp(dirs, "spare", true);
    const cold = await productApp(dirs, "cold", false);
    apps.push(product.app, cold.app);
    const problems = new Set<string>();
    let spareUsed = 0;
    let subjectRounds = 0;
    let sparePid: number | null = null;

    const open = async (base: string): Promise<void> => {
      const answer = await requestJson(`${base}/api/pi/active-session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id }),
      });
      if (answer.status !== 200 || activeField(answer.body, "id") !== id) {
        problems.add(`POST /api/pi/active-session answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      }
    };
    const closeRuntime = async (app: FastifyInstance): Promise<void> => {
      if (app.leyline.host.get(id) !== undefined) await app.leyline.host.close(id);
    };
    const fileHash = sha256(file);
    let baselineRun: { ready: Promise<string>; exited: Promise<void> } | null = null;

    log(`runtime: session ${round(builder.bytes / 1024, 0)} KiB; subject, cold and baseline alternate`);
    const samples = await alternate(
      {
        subject: {
          before: async () => {
            await closeRuntime(product.app);
            sparePid = await warmSpare(product.app);
          },
          run: () => open(product.base),
          after: async () => {
            subjectRounds += 1;
            if (sparePid !== null && product.app.leyline.host.get(id)?.workerPid === sparePid) spareUsed += 1;
            await closeRuntime(product.app);
            if (sha256(file) !== fileHash) problems.add("opening the runtime changed the session file");
            // The next spare imports pi now: not while another variant is timed.
            await warmSpare(product.app);
          },
        },
        cold: {
          before: () => closeRuntime(cold.app),
          run: () => open(cold.base),
          after: () => closeRuntime(cold.app),
        },
        baseline: {
          run: async () => {
            baselineRun = runBaseline(file, dirs.cwd, dirs.agentDir);
            const reported = await baselineRun.ready;
            if (reported !== id) problems.add(`the baseline opened session ${reported}, not ${id}`);
          },
          after: async () => {
            await baselineRun?.exited;
          },
        },
      },
      options,
    );
    if (spareUsed !== subjectRounds) problems.add(`the spare worker served ${spareUsed} of ${subjectRounds} opens`);

    log("runtime: GET /api/pi/state first and second call");
    const first: number[] = [];
    const second: number[] = [];
    const stateProblems = new Set<string>();
    for (let i = 0; i < options.warmup + options.rounds; i++) {
      const folder = path.join(dirs.root, `state-${i}`);
      fs.mkdirSync(folder, { recursive: true });
      const url = `${product.base}/api/pi/state?cwd=${encodeURIComponent(folder)}`;
      await warmSpare(product.app);
      const check = async (): Promise<void> => {
        const answer = await requestJson(url);
        if (answer.status !== 200 || activeField(answer.body, "cwd") !== folder) {
          stateProblems.add(`GET /api/pi/state answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        }
      };
      const firstMs = await timeOnce(check);
      const spareBefore = await warmSpare(product.app);
      const repeats: number[] = [];
      for (let k = 0; k < CACHED_REPEATS; k++) repeats.push(await timeOnce(check));
      const secondMs = median(repeats);
      if (product.app.leyline.host.spareWorker()?.pid !== spareBefore)
        stateProblems.add("the second call took a worker (not served from the cache)");
      if (i >= options.warmup) {
        first.push(firstMs);
        second.push(secondMs);
      }
    }

    const check = problems.size === 0 ? "ok" : [...problems].join("; ");
    const common = { rounds: options.rounds, sessionKiB: round(builder.bytes / 1024, 0), baselineMs: round(median(samples.baseline), 0) };
    return {
      runtime_ready_vs_sdk: measuredFigure(READY_DESCRIPTION, round(medianRatio(samples.subject, samples.baseline)), RUNTIME_READY_TARGET, {
        ...common,
        subjectMs: round(median(samples.subject), 0),
        spareUsed: `${spareUsed}/${subjectRounds}`,
        check,
      }),
      runtime_ready_cold_vs_sdk: informationalFigure(COLD_DESCRIPTION, round(medianRatio(samples.cold, samples.baseline)), {
        ...common,
        subjectMs: round(median(samples.cold), 0),
        check,
      }),
      state_cached_vs_first: measuredFigure(STATE_DESCRIPTION, round(medianRatio(second, first), 5), STATE_CACHED_TARGET, {
        rounds: options.rounds,
        subjectMs: round(median(second), 2),
        baselineMs: round(median(first), 0),
        check: stateProblems.size === 0 ? "ok" : [...stateProblems].join("; "),
      }),
    };
  } catch (error) {
    const reason = `runtime benchmark failed: ${errorMessage(error)}`;
    return {
      runtime_ready_vs_sdk: pendingFigure(READY_DESCRIPTION, RUNTIME_READY_TARGET, reason),
      runtime_ready_cold_vs_sdk: pendingFigure(COLD_DESCRIPTION, null, reason),
      state_cached_vs_first: pendingFigure(STATE_DESCRIPTION, STATE_CACHED_TARGET, reason),
    };
  } finally {
    await Promise.all(apps.map((app) => app.close().catch(() => undefined)));
    dirs.cleanup();
  }
}
