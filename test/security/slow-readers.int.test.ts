/**
 * Security suite: slow or stalled WebSocket readers cannot exhaust the server (issue 9).
 *
 * The real server (buildApp as api/main.ts runs it, in its own process: slow-readers-server.fixture.ts) with
 * a real forked worker. Live traffic comes from a `!` command (POST /api/pi/sessions/:id/bash) that prints
 * random base64 (incompressible: permessage-deflate cannot shrink it much) at ~1.5 MB/s; the worker sends its
 * output as `stream_delta` events every ~30 ms (each at most 64 KiB: domain/live/live-stream.ts keeps the
 * live output's tail) to every socket focused on the session. Streamed replies no longer do for this since
 * issue 10: their deltas are small, and a reply of any sensible size never queues 8 MiB. Four sockets stop
 * reading (`ws.pause()`: the TCP window closes, the kernel's buffers fill, then the server's queue) and one
 * reads and parses everything. The command prints until the server has cut all four paused sockets (their
 * queued live messages passed 8 MiB: one "slow reader" warning each on the server's stderr), 90 s at most.
 *
 * The server's RSS is sampled from /proc during the run: it must stay under 1 GiB (the sampler kills the server
 * past it, so that a regression cannot exhaust the shared machine). The paused sockets must be closed by the
 * server (1013 "slow reader: resync", each logged once); the reader must get every message in seq order,
 * rebuild the command's output from the deltas (`applyLiveEvent`) and find the persisted output (the
 * transcript delta's bash entry) at its end; the server must still answer /api/health afterwards.
 *
 * The server is spawned rather than built in-process so that its RSS is its own (not the test runner's) and
 * a server that runs out of memory fails this test instead of killing the runner.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { type RawData } from "ws";
import { applyLiveEvent, EMPTY_LIVE_STREAM, type LiveStreamState } from "../../domain/live/live-stream.ts";
import { unpackEntry, type WireTranscriptEntry } from "../../domain/transcript/transcript-wire.ts";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../../adapters/runtime-client/runtime-test-support.ts";
import { PONG_TEXT } from "../../api/events.routes.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const RSS_LIMIT_BYTES = 1024 ** 3;
const PAUSED_READERS = 4;
const FIRST_PROMPT = "first reply please";
/** The longest the `!` command prints (it stops as soon as every paused socket was cut). */
const MAX_OUTPUT_MS = 90_000;
/** Faux streaming pace (the first reply only). */
const TOKENS_PER_SECOND = 3000;

/**
 * The `!` command: every `tickMs`, `linesPerTick` lines of random base64 (57 random bytes each, 77 characters
 * with the newline), until the stop file exists or `maxMs` passed; then `END <lines>`. Paced rather than as fast
 * as stdout takes it: pi's `!` executor sanitizes every chunk (~10 MB/s on a busy machine), and a worker
 * saturated by that fires its 30 ms flush timer only every ~700 ms, each flush carrying the last 64 KiB.
 */
const PRINTER = `
import { randomBytes } from "node:crypto";
import fs from "node:fs";
const [stopFile, maxMs, linesPerTick, tickMs] = process.argv.slice(2);
const deadline = Date.now() + Number(maxMs);
let lines = 0;
const timer = setInterval(() => {
  if (fs.existsSync(stopFile) || Date.now() > deadline) {
    clearInterval(timer);
    process.stdout.write("END " + lines + "\\n");
    return;
  }
  let chunk = "";
  for (let i = 0; i < Number(linesPerTick); i++, lines++) chunk += randomBytes(57).toString("base64") + "\\n";
  process.stdout.write(chunk);
}, Number(tickMs));
`;
/** ~1.5 MB/s of output: 400 lines (30.8 KB) every 20 ms. */
const LINES_PER_TICK = 400;
const TICK_MS = 20;

interface RssSample {
  max: number;
  /** ms from the start of sampling to the peak. */
  maxAtMs: number;
  maxWorker: number;
  killed: boolean;
  /** Worker pids seen (killed with the server, which cannot dispose them then). */
  readonly workers: Set<number>;
}

/** VmRSS of a process in bytes, or null once it is gone. */
function rssOf(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] !== undefined ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .split(" ")
      .filter((s) => s.trim() !== "")
      .map(Number);
  } catch {
    return [];
  }
}

/** Samples the server's (and its workers') RSS every 50 ms; kills the server past the limit. */
function sampleRss(child: ChildProcess): { sample: RssSample; stop: () => void } {
  const sample: RssSample = { max: 0, maxAtMs: 0, maxWorker: 0, killed: false, workers: new Set() };
  const pid = child.pid ?? 0;
  const start = performance.now();
  const timer = setInterval(() => {
    const rss = rssOf(pid);
    if (rss === null) return;
    if (rss > sample.max) {
      sample.max = rss;
      sample.maxAtMs = performance.now() - start;
    }
    for (const worker of childrenOf(pid)) {
      sample.workers.add(worker);
      sample.maxWorker = Math.max(sample.maxWorker, rssOf(worker) ?? 0);
    }
    if (rss > RSS_LIMIT_BYTES && !sample.killed) {
      sample.killed = true;
      child.kill("SIGKILL");
    }
  }, 50);
  return { sample, stop: () => clearInterval(timer) };
}

function environOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, "utf8");
  } catch {
    return "";
  }
}

function killAll(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Resolves the first time `predicate` holds (checked after every message). */
interface Waiter {
  readonly predicate: () => boolean;
  readonly resolve: () => void;
}

interface Reader {
  readonly socket: WebSocket;
  /** seq of every numbered message, in arrival order. */
  readonly seqs: number[];
  bytes: number;
  /** The live state folded from every runtime event (applyLiveEvent). */
  live: LiveStreamState;
  /** The `!` command's output as the deltas rebuilt it, read at its bash_execution_end. */
  bashOutput: string | null;
  /** seq of the bash_execution_end event. */
  bashEndSeq: number | null;
  /** The persisted bash entry's output (from the session's transcript delta). */
  persistedOutput: string | null;
  agentEnds: number;
  /** Resolves once `predicate` holds. */
  until(predicate: () => boolean): Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** The transcript entries a session_delta adds or replaces. */
function deltaEntries(data: Record<string, unknown>): WireTranscriptEntry[] {
  const transcript = isRecord(data["transcript"]) ? data["transcript"] : {};
  const replaced = Array.isArray(transcript["replaced"])
    ? (transcript["replaced"] as unknown[]).map((pair) => (Array.isArray(pair) ? pair[1] : null))
    : [];
  const appended = Array.isArray(transcript["appended"]) ? (transcript["appended"] as unknown[]) : [];
  return [...replaced, ...appended].filter((entry): entry is WireTranscriptEntry => isRecord(entry) && typeof entry["type"] === "string");
}

/** A socket that reads and parses every message: seq, the live state, the persisted bash output. */
function reader(url: string): Reader {
  const socket = new WebSocket(url);
  const waiters: Waiter[] = [];
  const result: Reader = {
    socket,
    seqs: [],
    bytes: 0,
    live: EMPTY_LIVE_STREAM,
    bashOutput: null,
    bashEndSeq: null,
    persistedOutput: null,
    agentEnds: 0,
    until: (predicate) => (predicate() ? Promise.resolve() : new Promise((resolve) => waiters.push({ predicate, resolve }))),
    closed: new Promise((resolve) =>
      socket.on("close", (code: number, reason: Buffer) => resolve({ code, reason: reason.toString("utf8") })),
    ),
  };
  socket.on("message", (data: RawData) => {
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    result.bytes += buffer.length;
    const message = JSON.parse(buffer.toString("utf8")) as { type: string; data?: unknown; seq: number };
    if (message.seq > 0) result.seqs.push(message.seq);
    const body = isRecord(message.data) ? message.data : {};
    // The server's heartbeat: answer it, or the server drops this socket after two periods (60 s).
    if (message.type === "ping") socket.send(PONG_TEXT);
    if (message.type === "runtime_event" && isRecord(body["event"])) {
      const event = body["event"] as { type: string } & Record<string, unknown>;
      if (event.type === "bash_execution_end") {
        result.bashOutput = result.live.bash?.text ?? null;
        result.bashEndSeq = message.seq;
      }
      if (event.type === "agent_end") result.agentEnds++;
      result.live = applyLiveEvent(result.live, event);
    }
    if (message.type === "session_delta") {
      for (const wire of deltaEntries(body)) {
        const entry = unpackEntry(wire) as unknown as Record<string, unknown>;
        if (entry["type"] === "bash" && typeof entry["output"] === "string") result.persistedOutput = entry["output"];
      }
    }
    for (const waiter of [...waiters]) {
      if (!waiter.predicate()) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  return result;
}

/** `promise`, or a rejection naming `label` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${label}\nserver stderr: ${stderr.slice(-2000)}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function opened(socket: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
}

async function post(route: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

function slowReaderWarnings(): number {
  return stderr.match(/slow reader/g)?.length ?? 0;
}

let dirs: RuntimeTestDirs;
let server: ChildProcess;
let baseUrl: string;
let stderr = "";
/** Resolves once the server has logged `count` slow-reader cuts. */
let stderrWaiter: { count: number; resolve: () => void } | null = null;
let workers: Set<number> = new Set();

beforeAll(async () => {
  dirs = createRuntimeTestDirs("leyline-slow-readers-");
  const script = dirs.writeScript([{ match: FIRST_PROMPT, text: "The session's first reply." }]);
  // pi's `!` executor writes long output to a temp file (os.tmpdir()): keep it in this suite's dir.
  const tmp = path.join(dirs.root, "tmp");
  fs.mkdirSync(tmp);
  server = spawn(process.execPath, ["--import", "tsx", "test/security/slow-readers-server.fixture.ts", String(TOKENS_PER_SECOND)], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PI_OFFLINE: "1",
      PI_CODING_AGENT_DIR: dirs.agentDir,
      LEYLINE_DATA_DIR: path.join(dirs.root, "data"),
      LEYLINE_FAUX_RESPONSES: script,
      TMPDIR: tmp,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    if (stderrWaiter !== null && slowReaderWarnings() >= stderrWaiter.count) stderrWaiter.resolve();
  });
  baseUrl = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    server.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /Leyline listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    server.once("exit", (code) => reject(new Error(`server exited early (${String(code)}): ${stderr}`)));
  });
});

afterAll(async () => {
  if (server.exitCode === null && server.signalCode === null) {
    const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
    server.kill("SIGTERM");
    await exited;
  }
  // Workers outlive a server killed by the sampler; only this suite's (by their agent dir) are killed.
  killAll([...workers].filter((pid) => environOf(pid).includes(`PI_CODING_AGENT_DIR=${dirs.agentDir}\0`)));
  dirs.cleanup();
});

describe("slow WebSocket readers", () => {
  it(
    "four paused readers and a `!` command printing fast: RSS < 1 GiB, paused sockets closed, the reader gets it all",
    { timeout: 240_000 },
    async () => {
      const created = await post("/api/pi/sessions", { cwd: dirs.cwd });
      expect(created.status).toBe(200);
      const id = ((await created.json()) as { active: { id: string } }).active.id;
      const eventsUrl = `${baseUrl.replace(/^http/, "ws")}/api/pi/events?sessionId=${encodeURIComponent(id)}`;

      // A first reply persists the session (its transcript deltas then carry the `!` command's entry).
      const live = reader(eventsUrl);
      await opened(live.socket);
      expect((await post(`/api/pi/sessions/${encodeURIComponent(id)}/prompt`, { text: FIRST_PROMPT })).status).toBe(200);
      await within(
        live.until(() => live.agentEnds === 1),
        60_000,
        "the first reply's agent_end",
      );

      const paused = Array.from({ length: PAUSED_READERS }, () => reader(eventsUrl));
      await Promise.all(paused.map((r) => opened(r.socket)));
      for (const r of paused) r.socket.pause();

      const printer = path.join(dirs.root, "printer.mjs");
      const stopFile = path.join(dirs.root, "stop-printing");
      fs.writeFileSync(printer, PRINTER);
      const command = `'${process.execPath}' '${printer}' '${stopFile}' ${MAX_OUTPUT_MS} ${LINES_PER_TICK} ${TICK_MS}`;

      const { sample, stop } = sampleRss(server);
      workers = sample.workers;
      const started = performance.now();
      let cutAfterMs: number;
      try {
        const serverGone = new Promise<never>((_, reject) =>
          server.once("exit", (code, signal) =>
            reject(
              new Error(
                `server died (code ${String(code)}, signal ${String(signal)}, peak RSS ${sample.max} B after ${sample.maxAtMs.toFixed(0)} ms): ${stderr.slice(-2000)}`,
              ),
            ),
          ),
        );
        const bash = post(`/api/pi/sessions/${encodeURIComponent(id)}/bash`, { command });
        // The command prints until the server has cut every paused socket.
        const allCut = new Promise<void>((resolve) => {
          stderrWaiter = { count: PAUSED_READERS, resolve };
          if (slowReaderWarnings() >= PAUSED_READERS) resolve();
        });
        await within(Promise.race([allCut, serverGone, bash.then(() => undefined)]), MAX_OUTPUT_MS + 30_000, "the paused sockets' cut");
        cutAfterMs = performance.now() - started;
        fs.writeFileSync(stopFile, "");
        const answer = await within(Promise.race([bash, serverGone]), 60_000, "the `!` command's answer");
        expect(answer.status).toBe(200);
        await within(
          Promise.race([live.until(() => live.bashOutput !== null && live.persistedOutput !== null), serverGone]),
          60_000,
          "the command's end and its entry on the reading socket",
        );
      } finally {
        stop();
        fs.writeFileSync(stopFile, "");
      }
      const seconds = (performance.now() - started) / 1000;
      // The figures behind the note (peak RSS of the server process and of its worker, duration, bytes).
      console.info(
        `slow readers: peak server RSS ${(sample.max / 2 ** 20).toFixed(0)} MiB, peak worker RSS ${(sample.maxWorker / 2 ** 20).toFixed(0)} MiB, ` +
          `all paused sockets cut after ${(cutAfterMs / 1000).toFixed(1)} s, ${seconds.toFixed(1)} s in all, ` +
          `reader got ${live.seqs.length} messages (${(live.bytes / 2 ** 20).toFixed(0)} MiB)`,
      );
      expect(sample.killed, `server RSS passed 1 GiB (peak ${sample.max} B)`).toBe(false);
      expect(sample.max).toBeLessThan(RSS_LIMIT_BYTES);
      expect(slowReaderWarnings()).toBe(PAUSED_READERS);

      // The reader got every message in order, rebuilt the output from the deltas (the live state keeps its last
      // 64 KiB), and the persisted output (pi keeps the last 50 KB) is its end; it is still connected.
      expect(live.seqs).toEqual(live.seqs.map((_, i) => i + 1));
      const output = live.bashOutput ?? "";
      expect(output.length).toBe(65_536);
      expect(output).toMatch(/\nEND \d+\n$/);
      expect(output.slice(0, -20)).toMatch(/^[A-Za-z0-9+/\n]+$/);
      expect(live.persistedOutput?.length ?? 0).toBeGreaterThan(40_000);
      // pi 1.x stores the output without its final newline.
      expect(output.trimEnd().endsWith((live.persistedOutput ?? "-").trimEnd())).toBe(true);
      expect(live.socket.readyState).toBe(WebSocket.OPEN);

      // The paused sockets were cut by the server: once they read again, they see the end of the stream (the
      // 1013 close frame, or 1006 when the server gave up waiting for the close handshake) before the command's
      // end, and each received its messages in order.
      for (const r of paused) r.socket.resume();
      const closes = await within(Promise.all(paused.map((r) => r.closed)), 40_000, "the paused sockets' close");
      for (const close of closes) {
        expect([1013, 1006]).toContain(close.code);
        if (close.code === 1013) expect(close.reason).toBe("slow reader: resync");
      }
      for (const r of paused) {
        expect(r.seqs.length).toBeLessThan(live.bashEndSeq ?? 0);
        expect(r.seqs).toEqual(r.seqs.map((_, i) => i + 1));
        expect(r.bashOutput).toBeNull();
      }

      const health = await fetch(`${baseUrl}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true, activeWorkers: 1 });
      live.socket.close();
      await live.closed;
    },
  );
});
