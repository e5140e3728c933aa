/**
 * ws_fanout (issue 3, redefined for issue 10's live protocol): one runtime streams a reply to many WS
 * /api/pi/events clients focused on its session.
 *
 * Setup: the real app (`buildApp`) listening on 127.0.0.1 port 0, its RuntimeHost with FORKED workers (the
 * production path: the pi runtime and the faux provider run in the worker process, so this process's CPU is
 * the server's: Fastify, the runtime host's fold per event, the events route's fan-out, ws framing and
 * permessage-deflate, the detail worker thread's transcript deltas). The clients run in a second child process
 * (ws-fanout-clients.ts) so that their frame decoding and JSON.parse do not count either. Every client
 * connects with ?sessionId=<id> (the focus: only focused sockets get `stream_delta`), waits for the session's
 * snapshot, and answers heartbeat pings with the literal {"type":"pong"}. The worker's CPU (from /proc, Linux)
 * and the clients' CPU are reported as details.
 *
 * What travels: the faux model streams each run's reply as 4-character text deltas (faux tokenSize 1),
 * paced by `tokensPerSecond` (default 500 deltas per second, 2,000 characters per second: a few times faster
 * than a fast model). pi's `message_update` events never leave the worker: it sends one coalesced
 * `stream_delta` event per ≤ 30 ms carrying the text added since the previous one (~15 deltas, ~60 characters
 * at the default pace), and `message_end`/`turn_end`/`agent_end` without content; the persisted reply reaches
 * the clients once, in the session's transcript delta. A run is ONE reply of `deltas` text deltas (a long
 * reply no longer makes the events heavy: each stream_delta carries only what was added).
 *
 * Delivered event = one `stream_delta` runtime event received by one client (their number per run depends on
 * the pacing: the host's count is the reference, and each client must receive exactly that many and every
 * character of the reply, then the run's agent_end and the transcript delta with the persisted reply).
 *
 * Latency of a chunk of text = the time a client's `message` handler receives its stream_delta (before
 * JSON.parse) minus the time the runtime host emitted it on `events$` (a subscriber of this bench registered
 * before any socket, so it runs before the events route's per-socket sends). Both are `process.hrtime`
 * (CLOCK_MONOTONIC, one clock for every process of the machine). The k-th stream_delta a client receives is
 * matched with the k-th emitted (one runtime: order is preserved). So it covers the fan-out loop (per socket:
 * the seq tail, ws send), the kernel's loopback and the client process's event loop (50 sockets in one
 * process: its queueing counts). It does not cover the worker's coalescing window (≤ 30 ms) or the worker →
 * host IPC hop.
 *
 * CPU per delivered event = this process's `process.cpuUsage()` (user + system, every thread) from the prompt
 * until every client has the whole reply (every stream_delta, agent_end, the persisted reply), divided by
 * stream_delta events × clients. It includes everything the server does in that time (the other messages it
 * sends too: message_start/end, turn_end, agent_end, active_session snapshots, the session list and transcript
 * deltas, compressed per socket when ≥ 1 KiB).
 *
 * The figure: CPU per delivered event with `clients` sockets / with 1 socket, same stream, same run (order:
 * a short warm-up reply, the 1-client run, the N-client run). Target ≤ 1.0: the per-event work (IPC decode,
 * folds, encoding each message once) is shared, so fanning out must not cost more per delivered event than
 * delivering to one client. `ws_fanout_latency` (informational): p99 latency at N clients / at 1 client.
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { FastifyInstance } from "fastify";
import type { Subscription } from "rxjs";
import { buildBenchApp } from "./bench-app.ts";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../../adapters/runtime-client/runtime-test-support.ts";
import { informationalFigure, measuredFigure, type Figure } from "./figure.ts";
import { quantile, round } from "./measure.ts";
import { CLIENT_PROCESS_ENV, monotonicMs, streamedChars, type ClientCommand, type ClientReply } from "./ws-fanout-clients.ts";

export const WS_FANOUT_TARGET = 1.0;
export const WS_FANOUT_FIGURES = ["ws_fanout", "ws_fanout_latency"] as const;
export type WsFanoutFigureName = (typeof WS_FANOUT_FIGURES)[number];

/** Text deltas of the warm-up reply (at most). */
const WARMUP_DELTAS = 250;
/** Characters per text delta: faux tokenSize 1 is 4 characters. */
const CHARS_PER_DELTA = 4;

export interface WsFanoutOptions {
  /** Text deltas the model streams per run, as one reply (each client must receive all of its text). */
  readonly deltas: number;
  /** Sockets of the subject run (the baseline run has 1). */
  readonly clients: number;
  /** Faux streaming speed, deltas per second (default 500). */
  readonly tokensPerSecond?: number;
  readonly log?: (line: string) => void;
}

export function wsFanoutDescription(clients: number, deltas: number): string {
  return `server CPU per delivered stream_delta event, one reply of ${deltas * CHARS_PER_DELTA} characters to ${clients} focused WS clients / to 1 client`;
}

export function wsLatencyDescription(clients: number): string {
  return `p99 stream_delta latency (host emit -> client receipt), ${clients} WS clients / 1 client`;
}

interface RunResult {
  readonly clients: number;
  /** Characters of the run's reply. */
  readonly chars: number;
  /** stream_delta events the host emitted for the run. */
  readonly events: number;
  /** Characters of text those events carried. */
  readonly emittedChars: number;
  /** Per client: stream_delta events received, characters they carried, whether the whole reply arrived. */
  readonly delivered: number[];
  readonly deliveredChars: number[];
  readonly complete: boolean[];
  readonly latenciesMs: number[];
  readonly serverCpuUs: number;
  readonly workerCpuUs: number | null;
  readonly clientCpuUs: number;
  readonly wallMs: number;
  readonly messagesPerClient: number;
  readonly bytesPerClient: number;
}

/** One reply of `deltas` text deltas, unique to the run (so that each client can find its persisted text). */
function replyOf(run: string, deltas: number): { prompt: string; turn: FauxTurn; text: string } {
  const words = `stream ${run} through every socket to the client `;
  const chars = deltas * CHARS_PER_DELTA;
  const text = words.repeat(Math.ceil(chars / words.length)).slice(0, chars);
  const prompt = `fanout ${run}`;
  return { prompt, turn: { match: prompt, text }, text };
}

/** CPU time (µs, user + system) of another process, from /proc (Linux); null elsewhere. */
function processCpuUs(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line (11 and 12 after the command), in clock ticks.
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1e6) / 100 : null;
  } catch {
    return null;
  }
}

function tsxLoaderUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
}

/** The clients' child process, one command at a time. */
class ClientProcess {
  private readonly child: ChildProcess;
  private waiting: { resolve: (reply: ClientReply) => void; reject: (error: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor() {
    const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), "ws-fanout-clients.ts");
    this.child = fork(entry, [], {
      execArgv: ["--import", tsxLoaderUrl()],
      env: { ...process.env, [CLIENT_PROCESS_ENV]: "1" },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child.on("message", (message: unknown) => {
      const reply = message as ClientReply;
      const waiting = this.waiting;
      this.waiting = null;
      if (reply.type === "error") this.fail(new Error(`ws clients: ${reply.message}`), waiting);
      else waiting?.resolve(reply);
    });
    this.child.on("exit", (code, signal) => this.fail(new Error(`ws clients exited (code ${code}, signal ${signal})`), this.waiting));
    this.child.on("error", (error) => this.fail(error, this.waiting));
  }

  private fail(error: Error, waiting: { reject: (error: Error) => void } | null): void {
    this.failure ??= error;
    this.waiting = null;
    waiting?.reject(error);
  }

  ask<T extends ClientReply["type"]>(command: ClientCommand, expect: T, timeoutMs: number): Promise<Extract<ClientReply, { type: T }>> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        reject(new Error(`ws clients: no ${expect} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting = {
        resolve: (reply) => {
          clearTimeout(timer);
          if (reply.type === expect) resolve(reply as Extract<ClientReply, { type: T }>);
          else reject(new Error(`ws clients: expected ${expect}, got ${reply.type}`));
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.child.send(command);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.failure ??= new Error("ws clients stopped");
    if (this.child.connected) this.child.send({ type: "exit" } satisfies ClientCommand);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
}

interface Stream {
  /** Emission times (monotonic ms) of the stream_delta events since the last reset. */
  emitted: number[];
  /** Characters of text they carried. */
  emittedChars: number;
  /** Resolves at the next agent_end of the session. */
  nextAgentEnd(timeoutMs: number): Promise<void>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Watches the host's events$ (subscribed before any socket, so it sees each event before the fan-out). */
function watchStream(app: FastifyInstance, sessionId: () => string | null): { stream: Stream; subscription: Subscription } {
  const agentEnds: Array<() => void> = [];
  const stream: Stream = {
    emitted: [],
    emittedChars: 0,
    nextAgentEnd: (timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no agent_end within ${timeoutMs} ms`)), timeoutMs);
        agentEnds.push(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
  const subscription = app.leyline.host.events$.subscribe((hostEvent) => {
    if (hostEvent.type !== "runtime_event" || hostEvent.sessionId === null || hostEvent.sessionId !== sessionId()) return;
    const at = monotonicMs();
    const data: unknown = hostEvent.data(true);
    const event = isRecord(data) ? data["event"] : undefined;
    if (!isRecord(event)) return;
    if (event["type"] === "stream_delta") {
      stream.emitted.push(at);
      stream.emittedChars += streamedChars(event);
    } else if (event["type"] === "agent_end") {
      for (const resolve of agentEnds.splice(0)) resolve();
    }
  });
  return { stream, subscription };
}

async function post(app: FastifyInstance, url: string, payload: object): Promise<Record<string, unknown>> {
  const response = await app.inject({ method: "POST", url, payload });
  const body: unknown = response.json();
  if (response.statusCode !== 200 || !isRecord(body)) throw new Error(`POST ${url}: ${response.statusCode} ${response.body}`);
  return body;
}

export async function benchWsFanout(options: WsFanoutOptions): Promise<Record<WsFanoutFigureName, Figure>> {
  const log = options.log ?? (() => undefined);
  const tokensPerSecond = options.tokensPerSecond ?? 500;
  const runs = [
    { name: "warmup", clients: options.clients, deltas: Math.min(WARMUP_DELTAS, Math.max(1, Math.floor(options.deltas / 10))) },
    { name: "baseline", clients: 1, deltas: options.deltas },
    { name: "subject", clients: options.clients, deltas: options.deltas },
  ];
  const replies = runs.map((run) => replyOf(run.name, run.deltas));
  const streamTimeoutMs = (deltas: number): number => 60_000 + (deltas / tokensPerSecond) * 4000;

  const dirs: RuntimeTestDirs = createRuntimeTestDirs("leyline-bench-ws-");
  let app: FastifyInstance | null = null;
  let clients: ClientProcess | null = null;
  let subscription: Subscription | null = null;
  try {
    app = await buildBenchApp(
      dirs,
      replies.map((reply) => reply.turn),
      { tokenSize: 1, tokensPerSecond },
    );
    await app.leyline.readSide.ready();
    let sessionId: string | null = null;
    const watched = watchStream(app, () => sessionId);
    subscription = watched.subscription;
    const { stream } = watched;
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (typeof address !== "object" || address === null) throw new Error("the app has no address");

    const created = await post(app, "/api/pi/sessions", { cwd: dirs.cwd });
    const active = created["active"];
    const id = isRecord(active) && typeof active["id"] === "string" ? active["id"] : null;
    if (id === null) throw new Error(`POST /api/pi/sessions: no active.id in ${JSON.stringify(created)}`);
    sessionId = id;
    const workerPid = app.leyline.host.get(id)?.workerPid ?? null;
    const url = `ws://127.0.0.1:${address.port}/api/pi/events?sessionId=${encodeURIComponent(id)}`;
    clients = new ClientProcess();

    const results: RunResult[] = [];
    for (const [index, run] of runs.entries()) {
      const reply = replies[index] as { prompt: string; text: string };
      log(`ws ${run.name}: one reply of ${run.deltas} deltas to ${run.clients} clients`);
      await clients.ask({ type: "connect", url, count: run.clients }, "connected", 60_000);
      stream.emitted = [];
      stream.emittedChars = 0;
      const wallStart = monotonicMs();
      const cpuStart = process.cpuUsage();
      const workerStart = processCpuUs(workerPid);
      const ended = stream.nextAgentEnd(streamTimeoutMs(run.deltas));
      await post(app, `/api/pi/sessions/${encodeURIComponent(id)}/prompt`, { text: reply.prompt });
      await ended;
      const events = stream.emitted.length;
      const received = await clients.ask({ type: "await", events, reply: reply.text, timeoutMs: 30_000 }, "received", 60_000);
      const cpu = process.cpuUsage(cpuStart);
      const workerEnd = processCpuUs(workerPid);
      const wallMs = monotonicMs() - wallStart;
      const report = await clients.ask({ type: "report" }, "report", 60_000);
      const emitted = stream.emitted;
      const latenciesMs = report.receipts.flatMap((receipts) =>
        receipts.slice(0, emitted.length).map((at, k) => at - (emitted[k] as number)),
      );
      const average = (values: readonly number[]): number => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
      results.push({
        clients: run.clients,
        chars: reply.text.length,
        events,
        emittedChars: stream.emittedChars,
        delivered: received.counts,
        deliveredChars: received.chars,
        complete: received.complete,
        latenciesMs,
        serverCpuUs: cpu.user + cpu.system,
        workerCpuUs: workerStart !== null && workerEnd !== null ? workerEnd - workerStart : null,
        clientCpuUs: report.cpuUs,
        wallMs,
        messagesPerClient: average(report.messages),
        bytesPerClient: average(report.bytes),
      });
      if (stream.emittedChars !== reply.text.length) {
        throw new Error(
          `${run.name}: the runtime streamed ${stream.emittedChars} characters in ${events} stream_delta events, expected ${reply.text.length}`,
        );
      }
    }
    return figures(results[1] as RunResult, results[2] as RunResult, tokensPerSecond, options.deltas);
  } finally {
    subscription?.unsubscribe();
    await clients?.stop().catch(() => undefined);
    await app?.close().catch(() => undefined);
    dirs.cleanup();
  }
}

function cpuUsPerDelivered(run: RunResult): number {
  return run.serverCpuUs / (run.events * run.clients);
}

function runDetails(run: RunResult): Record<string, unknown> {
  return {
    events: run.events,
    deliveredPerClient: { min: Math.min(...run.delivered), max: Math.max(...run.delivered) },
    charsPerClient: { min: Math.min(...run.deliveredChars), max: Math.max(...run.deliveredChars) },
    charsPerEvent: round(run.emittedChars / Math.max(1, run.events), 1),
    p50Ms: round(quantile(run.latenciesMs, 0.5), 2),
    p99Ms: round(quantile(run.latenciesMs, 0.99), 2),
    maxMs: round(quantile(run.latenciesMs, 1), 2),
    serverCpuMs: round(run.serverCpuUs / 1000, 0),
    cpuUsPerDelivered: round(cpuUsPerDelivered(run), 2),
    workerCpuMs: run.workerCpuUs === null ? null : round(run.workerCpuUs / 1000, 0),
    clientCpuMs: round(run.clientCpuUs / 1000, 0),
    wallMs: round(run.wallMs, 0),
    messagesPerClient: round(run.messagesPerClient, 0),
    kbPerClient: round(run.bytesPerClient / 1024, 0),
  };
}

function checkOf(runs: readonly RunResult[]): string {
  const problems = runs.flatMap((run) => {
    const found: string[] = [];
    if (run.events === 0) found.push(`${run.clients} clients: no stream_delta event`);
    if (run.delivered.some((count) => count !== run.events)) {
      found.push(
        `${run.clients} clients: delivered ${Math.min(...run.delivered)}..${Math.max(...run.delivered)} of ${run.events} stream_delta events`,
      );
    }
    if (run.deliveredChars.some((chars) => chars !== run.chars)) {
      found.push(
        `${run.clients} clients: received ${Math.min(...run.deliveredChars)}..${Math.max(...run.deliveredChars)} of ${run.chars} characters`,
      );
    }
    const incomplete = run.complete.filter((complete) => !complete).length;
    if (incomplete > 0) found.push(`${run.clients} clients: ${incomplete} without agent_end or the persisted reply`);
    return found;
  });
  return problems.length === 0 ? "ok" : problems.join("; ");
}

function figures(baseline: RunResult, subject: RunResult, tokensPerSecond: number, deltas: number): Record<WsFanoutFigureName, Figure> {
  const check = checkOf([baseline, subject]);
  const common = { clients: subject.clients, deltas, chars: subject.chars, deltasPerSecond: tokensPerSecond, check };
  const subjectCpu = cpuUsPerDelivered(subject);
  const baselineCpu = cpuUsPerDelivered(baseline);
  const subjectP99 = quantile(subject.latenciesMs, 0.99);
  const baselineP99 = quantile(baseline.latenciesMs, 0.99);
  // The server CPU each extra client adds per event (the shared per-event work cancels out).
  const baselinePerEvent = baseline.serverCpuUs / baseline.events;
  const marginal = (subject.serverCpuUs / subject.events - baselinePerEvent) / Math.max(1, subject.clients - 1);
  return {
    // subjectMs/baselineMs: server CPU ms per 1,000 delivered stream_delta events (= µs per delivered event).
    ws_fanout: measuredFigure(wsFanoutDescription(subject.clients, deltas), round(subjectCpu / baselineCpu, 4), WS_FANOUT_TARGET, {
      subjectMs: round(subjectCpu, 2),
      baselineMs: round(baselineCpu, 2),
      unit: "server CPU ms per 1000 delivered stream_delta events",
      marginalUsPerDelivery: round(marginal, 2),
      ...common,
      subject: runDetails(subject),
      baseline: runDetails(baseline),
    }),
    ws_fanout_latency: informationalFigure(wsLatencyDescription(subject.clients), round(subjectP99 / Math.max(baselineP99, 0.001), 4), {
      subjectMs: round(subjectP99, 2),
      baselineMs: round(baselineP99, 2),
      p50Ms: round(quantile(subject.latenciesMs, 0.5), 2),
      baselineP50Ms: round(quantile(baseline.latenciesMs, 0.5), 2),
      ...common,
    }),
  };
}
