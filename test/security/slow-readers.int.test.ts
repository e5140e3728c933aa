/**
 * Security suite: slow or stalled WebSocket readers cannot exhaust the server (issue 9).
 *
 * The real server (buildApp as api/main.ts runs it, in its own process: slow-readers-server.fixture.ts) with
 * a real forked worker and the scripted faux model streaming one ~100 KB reply at a steady pace (1 ms per
 * 12-character chunk, as a fast real provider would). Each `message_update` carries the whole partial
 * message, so the reply is ~800 MB on every socket that follows the session. Four sockets stop reading
 * (`ws.pause()`: the TCP window closes and the server's send buffers fill) and one reads normally. The
 * server's RSS is sampled from /proc during the run: it must stay under 1 GiB (the sampler kills the server
 * past it, so that a regression cannot exhaust the shared machine). The paused sockets must be closed by the
 * server (each logged once), the reader must get every message of the reply in order, and the server must
 * still answer /api/health afterwards.
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
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../../adapters/runtime/runtime-test-support.ts";
import { PONG_TEXT } from "../../api/events.routes.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const RSS_LIMIT_BYTES = 1024 ** 3;
const PAUSED_READERS = 4;
const PROMPT = "long reply please";
/** Faux streaming pace: 3 tokens (one 12-character chunk) per ms. */
const TOKENS_PER_SECOND = 3000;
/** ~100 KB of text: the faux model streams it in 12-character chunks, one message_update each. */
const LONG_REPLY = Array.from({ length: 20_000 }, (_, i) => `w${i}`)
  .join(" ")
  .slice(0, 100_000);

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

interface Reader {
  readonly socket: WebSocket;
  /** seq of every message, in arrival order. */
  readonly seqs: number[];
  bytes: number;
  /** The assistant's text from message_end, once it arrived. */
  finalText: string | null;
  agentEnded: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
}

const SEQ_AT_END = /"seq":(\d+),"epoch":"[^"]*"\}$/;
const EVENT_TYPE = /"event":\{"type":"([a-z_]+)"/;

/**
 * A socket that reads everything but decodes little: the seq (from the message's tail) and, for the few
 * message_end/agent_end events, the JSON. Parsing every multi-KB partial would make the test process the
 * slow reader.
 */
function reader(url: string): Reader {
  const socket = new WebSocket(url);
  let ended = (): void => undefined;
  const result: Reader = {
    socket,
    seqs: [],
    bytes: 0,
    finalText: null,
    agentEnded: new Promise<void>((resolve) => (ended = resolve)),
    closed: new Promise((resolve) => socket.on("close", (code: number, reason: Buffer) => resolve({ code, reason: reason.toString("utf8") }))),
  };
  socket.on("message", (data: RawData) => {
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    result.bytes += buffer.length;
    const tail = buffer.subarray(Math.max(0, buffer.length - 120)).toString("utf8");
    result.seqs.push(Number(SEQ_AT_END.exec(tail)?.[1] ?? "NaN"));
    // The server's heartbeat: answer it, or the server drops this socket after two periods (60 s).
    if (buffer.length < 200 && buffer.toString("utf8").startsWith('{"type":"ping"')) socket.send(PONG_TEXT);
    const eventType = EVENT_TYPE.exec(buffer.subarray(0, 200).toString("utf8"))?.[1];
    if (eventType === "message_end") {
      const event = (JSON.parse(buffer.toString("utf8")) as { data: { event: { message: { role: string; content: Array<{ type: string; text?: string }> } } } }).data.event;
      if (event.message.role === "assistant") result.finalText = event.message.content.map((part) => part.text ?? "").join("");
    }
    if (eventType === "agent_end") ended();
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

let dirs: RuntimeTestDirs;
let server: ChildProcess;
let baseUrl: string;
let stderr = "";
let workers: Set<number> = new Set();

beforeAll(async () => {
  dirs = createRuntimeTestDirs("leyline-slow-readers-");
  const script = dirs.writeScript([{ match: PROMPT, text: LONG_REPLY }]);
  server = spawn(process.execPath, ["--import", "tsx", "test/security/slow-readers-server.fixture.ts", String(TOKENS_PER_SECOND)], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PI_OFFLINE: "1",
      PI_CODING_AGENT_DIR: dirs.agentDir,
      LEYLINE_DATA_DIR: path.join(dirs.root, "data"),
      LEYLINE_FAUX_RESPONSES: script,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
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
  it("four paused readers and one 100 KB reply: RSS < 1 GiB, paused sockets closed, the reader gets it all", { timeout: 240_000 }, async () => {
    const created = await fetch(`${baseUrl}/api/pi/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ cwd: dirs.cwd }),
    });
    expect(created.status).toBe(200);
    const id = ((await created.json()) as { active: { id: string } }).active.id;
    const eventsUrl = `${baseUrl.replace(/^http/, "ws")}/api/pi/events?sessionId=${encodeURIComponent(id)}`;

    const live = reader(eventsUrl);
    const paused = Array.from({ length: PAUSED_READERS }, () => reader(eventsUrl));
    await Promise.all([live, ...paused].map((r) => opened(r.socket)));
    for (const r of paused) r.socket.pause();

    const { sample, stop } = sampleRss(server);
    workers = sample.workers;
    const started = performance.now();
    try {
      const prompt = await fetch(`${baseUrl}/api/pi/sessions/${encodeURIComponent(id)}/prompt`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: PROMPT }),
      });
      expect(prompt.status).toBe(200);
      const serverGone = new Promise<never>((_, reject) =>
        server.once("exit", (code, signal) =>
          reject(new Error(`server died (code ${String(code)}, signal ${String(signal)}, peak RSS ${sample.max} B after ${sample.maxAtMs.toFixed(0)} ms): ${stderr.slice(-2000)}`)),
        ),
      );
      await within(Promise.race([live.agentEnded, serverGone]), 150_000, "agent_end on the reading socket");
    } finally {
      stop();
    }
    const seconds = (performance.now() - started) / 1000;
    // The figures behind the note (peak RSS of the server process and of its worker, duration, bytes).
    console.info(
      `slow readers: peak server RSS ${(sample.max / 2 ** 20).toFixed(0)} MiB, peak worker RSS ${(sample.maxWorker / 2 ** 20).toFixed(0)} MiB, ` +
        `${seconds.toFixed(1)} s, reader got ${live.seqs.length} messages (${(live.bytes / 2 ** 20).toFixed(0)} MiB)`,
    );
    expect(sample.killed, `server RSS passed 1 GiB (peak ${sample.max} B)`).toBe(false);
    expect(sample.max).toBeLessThan(RSS_LIMIT_BYTES);

    // The reader got the whole reply, every message in order, and is still connected.
    expect(live.finalText).toBe(LONG_REPLY);
    expect(live.seqs).toEqual(live.seqs.map((_, i) => i + 1));
    expect(live.socket.readyState).toBe(WebSocket.OPEN);

    // The paused sockets were cut by the server: once they read again, they see the end of the stream
    // (the 1013 close frame, or 1006 when the server gave up waiting for the close handshake) long before
    // the reply's end, and the server logged each once.
    for (const r of paused) r.socket.resume();
    const closes = await within(Promise.all(paused.map((r) => r.closed)), 40_000, "the paused sockets' close");
    for (const close of closes) expect([1013, 1006]).toContain(close.code);
    for (const r of paused) {
      expect(r.seqs.length).toBeLessThan(live.seqs.length / 2);
      expect(r.seqs).toEqual(r.seqs.map((_, i) => i + 1));
    }
    expect(stderr.match(/slow reader/g)?.length ?? 0).toBe(PAUSED_READERS);

    const health = await fetch(`${baseUrl}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, activeWorkers: 1 });
    live.socket.close();
    await live.closed;
  });
});
