/**
 * The read side, live (issue 10), against the real app (`buildApp` on a temp agent dir, listening on 127.0.0.1):
 *
 * - detail_warm_vs_cold: GET /api/pi/sessions/:id of a linear 10,000-entry session over HTTP, again (warm: the
 *   kept detail, a stat in the worker, the JSON bytes the main thread holds for that version) / the first time
 *   (cold: the detail worker folds the file and builds the JSON). Timed to the response's first byte: the server's
 *   work, not the transfer of the same ~40 MB of JSON to the client, which both pay alike (reported as details:
 *   the full download of a warm request is ~0.15× a cold one's, most of it the loopback copy and the client's
 *   reading). Each round is a fresh app (so a fresh fold); warm is the median of five requests. Target ≤ 0.1.
 * - detail_cold_block: the longest the server's event loop is held (a setImmediate ticker and
 *   `monitorEventLoopDelay`, the larger of the two) while a 50 MB session is opened cold, by GET and by an events
 *   socket focusing it (snapshot in chunks), / 50 ms (the promise). Target ≤ 1. A warm-up request on a small
 *   session runs first: the server's very first request compiles routes and loads modules (~100 ms, once per
 *   process, whatever the session). The idle loop's own worst delay over the same time is a detail.
 * - cli_append_latency: a separate process (test/support/pi-session-writer.ts) appends turns to a session the
 *   client focuses, and creates new sessions, through pi's own SessionManager; the time from just before pi's
 *   append (writer's monotonic clock) to the client's receipt of the `session_delta` / the `session_list_delta`
 *   naming the new session (the client's monotonic clock: one clock for the machine). p50 and p99 over the
 *   appends; the figure is p99 / 1,000 ms (the sidebar and the transcript follow other writers within 1 s).
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { FastifyInstance } from "fastify";
import WebSocket from "ws";
import { buildApp } from "../../api/app.ts";
import { monotonicMs, startPiSessionWriter } from "../support/pi-session-writer.ts";
import { generateSessionSeries } from "./corpus.ts";
import { errorMessage, measuredFigure, pendingFigure, type Figure } from "./figure.ts";
import { longestBlock, median, quantile, round, settleHeap } from "./measure.ts";
import { createRng } from "./prng.ts";
import { buildTextPools, sliceOf } from "./text-pool.ts";

export const DETAIL_WARM_TARGET = 0.1;
export const DETAIL_BLOCK_TARGET = 1;
export const CLI_APPEND_TARGET = 1;
export const LIVE_DETAIL_FIGURES = ["detail_warm_vs_cold", "detail_cold_block", "cli_append_latency"] as const;

const BLOCK_LIMIT_MS = 50;
const APPEND_PROMISE_MS = 1000;
const MB = 1024 * 1024;

export interface LiveDetailOptions {
  readonly workDir: string;
  readonly seed: number;
  /** Transcript entries of the linear session (detail_warm_vs_cold). */
  readonly entries: number;
  /** Size of the large session (detail_cold_block). */
  readonly largeBytes: number;
  readonly rounds: number;
  /** Appends and new sessions timed (cli_append_latency). */
  readonly appends: number;
  readonly log?: (line: string) => void;
}

const cwd = "/home/dev/projects/leyline";
const folderOf = (agentDir: string): string => path.join(agentDir, "sessions", "--home-dev-projects-leyline--");

/** A linear session of `entries` user and assistant messages (0.3 to 3 KB each), as pi writes them. */
function writeLinearSession(folder: string, seed: number, entries: number): { id: string; file: string; bytes: number } {
  const rng = createRng(seed);
  const pools = buildTextPools(rng);
  const id = `0190d1e2-0000-7000-8000-${String(seed).padStart(12, "0")}`;
  const file = path.join(folder, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
  const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd })];
  const usage = {
    input: 1000,
    output: 200,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 1200,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  let parentId: string | null = null;
  let clock = Date.UTC(2026, 0, 1);
  for (let i = 0; i < entries; i++) {
    clock += 1000;
    const entryId = i.toString(16).padStart(8, "0");
    const text = sliceOf(rng, rng.int(0, 3) === 0 ? pools.code : pools.prose, rng.int(300, 3000));
    const message =
      i % 2 === 0
        ? { role: "user", content: [{ type: "text", text }], timestamp: clock }
        : {
            role: "assistant",
            content: [{ type: "text", text }],
            api: "anthropic-messages",
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            usage,
            stopReason: "stop",
            timestamp: clock,
          };
    lines.push(JSON.stringify({ type: "message", id: entryId, parentId, timestamp: new Date(clock).toISOString(), message }));
    parentId = entryId;
  }
  const text = lines.join("\n") + "\n";
  fs.writeFileSync(file, text);
  return { id, file, bytes: Buffer.byteLength(text) };
}

async function openApp(agentDir: string, dataDir: string): Promise<{ app: FastifyInstance; base: string }> {
  const app = await buildApp({ agentDir, dataDir, env: { PI_OFFLINE: "1" }, runtimeHostOptions: { fauxScript: null } });
  await app.leyline.readSide.ready();
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return { app, base: `127.0.0.1:${address.port}` };
}

/** A GET over HTTP: ms to the first byte of the body, ms to its end, and its size (identity encoding). */
function timedGet(url: string): Promise<{ firstByteMs: number; totalMs: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get(url, { headers: { "accept-encoding": "identity" } }, (response) => {
      let firstByteMs = -1;
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - started;
        bytes += chunk.length;
      });
      response.on("end", () => {
        if (response.statusCode !== 200) reject(new Error(`detail answered ${response.statusCode}`));
        else resolve({ firstByteMs, totalMs: performance.now() - started, bytes });
      });
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}

/** Focuses a session on a new events socket and resolves when its snapshot is complete (bytes received). */
function focusUntilSnapshot(base: string, sessionId: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://${base}/api/pi/events?sessionId=${sessionId}`);
    let bytes = 0;
    socket.on("message", (data: Buffer) => {
      bytes += data.length;
      const message = JSON.parse(data.toString("utf8")) as { type: string; data?: { done?: boolean } };
      if (message.type === "session_snapshot" && message.data?.done === true) {
        socket.close();
        resolve(bytes);
      } else if (message.type === "session_unavailable") reject(new Error("session unavailable"));
    });
    socket.on("error", reject);
  });
}

async function warmDetail(options: LiveDetailOptions): Promise<Figure> {
  const description = `GET a ${options.entries}-entry session's detail again (kept) / the first time (folded), to the first byte, fresh app per round`;
  const agentDir = path.join(options.workDir, "warm-agent");
  fs.mkdirSync(folderOf(agentDir), { recursive: true });
  const session = writeLinearSession(folderOf(agentDir), options.seed, options.entries);
  const cold: number[] = [];
  const warm: number[] = [];
  const fullCold: number[] = [];
  const fullWarm: number[] = [];
  let bodyBytes = 0;
  let entries = 0;
  for (let round = 0; round < options.rounds + 1; round++) {
    const { app, base } = await openApp(agentDir, path.join(options.workDir, `warm-data-${round}`));
    const fullMs: number[] = [];
    try {
      // The server's first request compiles routes: not the detail's cost.
      await app.inject({ method: "GET", url: "/api/pi/sessions" });
      await settleHeap();
      const get = async (): Promise<number> => {
        const timed = await timedGet(`http://${base}/api/pi/sessions/${session.id}`);
        bodyBytes = timed.bytes;
        fullMs.push(timed.totalMs);
        return timed.firstByteMs;
      };
      const first = await get();
      const again: number[] = [];
      for (let i = 0; i < 5; i++) again.push(await get());
      if (round === 0) {
        entries = (JSON.parse((await app.inject({ method: "GET", url: `/api/pi/sessions/${session.id}` })).body) as { entries: unknown[] })
          .entries.length;
        continue; // warm-up round (and the check of the detail)
      }
      cold.push(first);
      warm.push(median(again));
      fullCold.push(fullMs[0] as number);
      fullWarm.push(median(fullMs.slice(1)));
    } finally {
      await app.close();
    }
  }
  const ratios = cold.map((c, i) => (warm[i] as number) / c);
  return measuredFigure(description, round(median(ratios), 4), DETAIL_WARM_TARGET, {
    entries,
    fileMb: round(session.bytes / MB, 1),
    bodyMb: round(bodyBytes / MB, 2),
    subjectMs: round(median(warm), 1),
    baselineMs: round(median(cold), 1),
    downloadWarmMs: round(median(fullWarm), 1),
    downloadColdMs: round(median(fullCold), 1),
    rounds: cold.length,
    check: entries === options.entries ? "ok" : `the detail has ${entries} entries, not ${options.entries}`,
  });
}

async function coldBlock(options: LiveDetailOptions): Promise<Figure> {
  const description = `longest event-loop block while a ${round(options.largeBytes / MB, 0)} MB session opens cold (GET, then a socket focus) / ${BLOCK_LIMIT_MS} ms`;
  const agentDir = path.join(options.workDir, "block-agent");
  const folder = folderOf(agentDir);
  fs.mkdirSync(folder, { recursive: true });
  const [large] = generateSessionSeries({ dir: folder, seed: options.seed + 7, bytes: [options.largeBytes] });
  if (large === undefined) throw new Error("no large session");
  const largeId = (JSON.parse(fs.readFileSync(large.path, "utf8").split("\n", 1)[0] as string) as { id: string }).id;
  const small = writeLinearSession(folder, options.seed + 8, 20);
  const results: Array<{ blockMs: number; tickerMs: number; histogramMs: number; via: string; ms: number }> = [];
  let idleMs = 0;
  for (const via of ["get", "socket"] as const) {
    const { app, base } = await openApp(agentDir, path.join(options.workDir, `block-data-${via}`));
    try {
      await app.inject({ method: "GET", url: `/api/pi/sessions/${small.id}` });
      await settleHeap();
      const idle = await longestBlock(() => new Promise((resolve) => setTimeout(resolve, 300)));
      idleMs = Math.max(idleMs, idle.blockMs);
      const started = performance.now();
      const block = await longestBlock(async () => {
        if (via === "get") {
          const response = await app.inject({ method: "GET", url: `/api/pi/sessions/${largeId}` });
          if (response.statusCode !== 200) throw new Error(`detail answered ${response.statusCode}`);
        } else {
          await focusUntilSnapshot(base, largeId);
        }
      });
      results.push({ ...block, via, ms: round(performance.now() - started, 0) });
    } finally {
      await app.close();
    }
  }
  const worst = Math.max(...results.map((r) => r.blockMs));
  return measuredFigure(description, round(worst / BLOCK_LIMIT_MS, 3), DETAIL_BLOCK_TARGET, {
    fileMb: round(large.bytes / MB, 1),
    lines: large.lines,
    subjectMs: round(worst, 1),
    // The same measure on the idle loop, just before: what the machine adds whatever the server does.
    baselineMs: round(idleMs, 1),
    check: "ok",
    runs: results.map((r) => `${r.via}: open ${r.ms} ms, ticker ${r.tickerMs} ms, histogram ${r.histogramMs} ms`).join("; "),
  });
}

async function appendLatency(options: LiveDetailOptions): Promise<Figure> {
  const description = `p99 time from a pi SessionManager append in another process to the client's delta / ${APPEND_PROMISE_MS} ms`;
  const agentDir = path.join(options.workDir, "append-agent");
  const folder = folderOf(agentDir);
  fs.mkdirSync(folder, { recursive: true });
  const target = writeLinearSession(folder, options.seed + 9, 40);
  const { app, base } = await openApp(agentDir, path.join(options.workDir, "append-data"));
  const writer = startPiSessionWriter({ ...process.env, PI_CODING_AGENT_DIR: agentDir });
  const socket = new WebSocket(`ws://${base}/api/pi/events?sessionId=${target.id}`);
  /** Waiters for a message the client receives: resolve with the receipt time. */
  const waiting: Array<{ match: (message: { type: string; data?: unknown }) => boolean; resolve: (at: number) => void }> = [];
  socket.on("message", (data: Buffer) => {
    const at = monotonicMs();
    const message = JSON.parse(data.toString("utf8")) as { type: string; data?: unknown };
    for (let i = waiting.length - 1; i >= 0; i--) {
      const waiter = waiting[i];
      if (waiter !== undefined && waiter.match(message)) {
        waiting.splice(i, 1);
        waiter.resolve(at);
      }
    }
  });
  const receipt = (match: (message: { type: string; data?: unknown }) => boolean): Promise<number> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no delta within 10 s")), 10_000);
      waiting.push({ match, resolve: (at) => (clearTimeout(timer), resolve(at)) });
    });
  const snapshot = receipt((m) => m.type === "session_snapshot" && (m.data as { done?: boolean }).done === true);
  const transcript: number[] = [];
  const list: number[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    await snapshot;
    for (let i = 0; i < options.appends; i++) {
      const text = `appended by the pi CLI #${i}`;
      const delta = receipt((m) => m.type === "session_delta" && JSON.stringify(m.data).includes(text));
      const { at } = await writer.append(target.file, text);
      transcript.push((await delta) - at);
      const name = `new session #${i}`;
      const listed = receipt((m) => m.type === "session_list_delta" && JSON.stringify(m.data).includes(name));
      const created = await writer.create(cwd, folder, name);
      list.push((await listed) - created.at);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    socket.close();
    await writer.close();
    await app.close();
  }
  const all = [...transcript, ...list];
  const p99 = quantile(all, 0.99);
  return measuredFigure(description, round(p99 / APPEND_PROMISE_MS, 3), CLI_APPEND_TARGET, {
    appends: transcript.length,
    created: list.length,
    transcriptP50Ms: round(quantile(transcript, 0.5), 1),
    transcriptP99Ms: round(quantile(transcript, 0.99), 1),
    listP50Ms: round(quantile(list, 0.5), 1),
    listP99Ms: round(quantile(list, 0.99), 1),
    subjectMs: round(p99, 1),
    // Every append and every new session reached the client (a missing one fails the run after 10 s).
    check: transcript.length === options.appends && list.length === options.appends ? "ok" : "missing deltas",
  });
}

export async function benchLiveDetail(options: LiveDetailOptions): Promise<Record<(typeof LIVE_DETAIL_FIGURES)[number], Figure>> {
  const log = options.log ?? (() => undefined);
  const guarded = async (name: string, target: number, run: () => Promise<Figure>): Promise<Figure> => {
    log(`${name} ...`);
    try {
      return await run();
    } catch (error) {
      return pendingFigure(name, target, `benchmark failed: ${errorMessage(error)}`);
    }
  };
  fs.mkdirSync(options.workDir, { recursive: true });
  return {
    detail_warm_vs_cold: await guarded("detail_warm_vs_cold", DETAIL_WARM_TARGET, () => warmDetail(options)),
    detail_cold_block: await guarded("detail_cold_block", DETAIL_BLOCK_TARGET, () => coldBlock(options)),
    cli_append_latency: await guarded("cli_append_latency", CLI_APPEND_TARGET, () => appendLatency(options)),
  };
}

/** A work dir for a standalone run (the bench passes its own). */
export function liveDetailWorkDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "leyline-live-detail-"));
}
