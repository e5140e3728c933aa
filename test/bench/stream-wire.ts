/**
 * stream_wire_bytes and stream_unwatched_vs_model (issue 10: live projections all the way to the browser): what
 * a streamed reply costs on the wire of a client watching it, and what it costs when nobody watches.
 *
 * Setup (each figure on its own app): the real app (`buildApp`) listening on 127.0.0.1 port 0 with FORKED
 * workers (the production path), a temp PI_CODING_AGENT_DIR, and pi-ai's faux model (the only stand-in)
 * streaming scripted replies at a fixed pace (pi-ai's faux model waits `ceil(chunk characters / 4) /
 * tokensPerSecond` before each chunk of `tokenSize × 4` characters). Replies are prose slices of the bench's
 * text pool (text-pool.ts: English-like words, markdown, quotes, backslashes, non-ASCII characters: as
 * compressible as prose, with real JSON escapes). Each runs in a persisted session (a short first reply wrote
 * its file) and is started with `POST /api/pi/sessions/:id/prompt` over HTTP.
 *
 * stream_unwatched_vs_model (target ≤ 1.25): one 100 KB reply at a fast real provider's pace (3,000 tokens per
 * second in 12-character chunks: 12,000 characters per second; the pace of the 16 s issue 10 started from) with
 * NO events socket (none ever connected to this app: a closed socket's stream is fed for its resume window).
 * Subject: the time from the prompt request until the runtime host emits the run's `agent_end` (observed
 * in-process on `events$`). Baseline: the time the faux model itself takes to stream the same reply at the
 * same pace: a plain `node` child (no tsx, nothing of Leyline) that registers pi-ai's faux provider with the
 * same token size and speed and consumes one `streamSimple` of the same text, timed inside the child (its
 * start-up and imports excluded). Detail `sdkMs`: a bare pi SDK session (`createAgentSession`, a persisted
 * session file, the same faux model) in a plain `node` child, timed from `session.prompt` to its `agent_end`:
 * pi's own cost per streamed reply, which Leyline's worker pays too. The three alternate (warm-up rounds, the
 * order reversed every other round); the ratio is the median of per-round ratios. The check: every subject run
 * streamed every character of its reply (the host's `stream_delta` events) and persisted it (the session
 * file's last assistant message), and each baseline streamed the whole reply.
 *
 * stream_wire_bytes (target ≤ 3): one 20 KB reply at ws_fanout's pace (500 tokens per second in 4-character
 * chunks: 2,000 characters per second, a few times a fast model's), watched by two clients on WS
 * /api/pi/events focused on the session (`?sessionId=`): one that offers permessage-deflate (as browsers do)
 * and one that does not. After the session's snapshot arrived, the reply is prompted; each client counts the
 * bytes its TCP socket reads (WebSocket frames with their headers: for the deflate client the compressed
 * size) from the prompt until the `session_delta` carrying the persisted reply (the assistant entry with
 * exactly the reply's text) arrived. Ratio: the larger of the two clients' bytes / the reply's UTF-8 bytes, so
 * that the figure holds without compression too; details: both clients' wire bytes, their uncompressed
 * message bytes, and the uncompressed bytes per message type (stream_delta events, session_delta,
 * active_session, ...) of the median run. One reply per round, the median over the rounds. The check: both
 * clients rebuilt each reply from the `stream_delta` events (`applyLiveEvent`), got every message in seq order,
 * and the deflate client negotiated permessage-deflate while the other did not.
 *
 * What dominates stream_wire_bytes is the envelope of each `stream_delta` (~230 bytes: the message type, the
 * session id, the event and delta framing, seq and the epoch's UUID), sent every ~30 ms whatever the pace:
 * ~7.5 KB per second of streaming, on top of the text itself and the persisted reply. Compression does not
 * touch it: the server deflates each message of 1 KiB or more on its own (no context takeover, api/app.ts), and
 * a stream_delta is smaller than that.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import WebSocket, { type RawData } from "ws";
import { applyLiveEvent, EMPTY_LIVE_STREAM, streamedText, type LiveStreamState } from "../../domain/live/live-stream.ts";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { createRuntimeTestDirs, readCompleteJsonl, type RuntimeTestDirs } from "../../adapters/runtime-client/runtime-test-support.ts";
import { buildBenchApp } from "./bench-app.ts";
import { measuredFigure, type Figure } from "./figure.ts";
import { median, medianRatio, round, type AlternateOptions } from "./measure.ts";
import { createRng } from "./prng.ts";
import { buildTextPools } from "./text-pool.ts";
import { assistantTexts, streamedChars } from "./ws-fanout-clients.ts";

export const STREAM_WIRE_TARGET = 3;
export const STREAM_UNWATCHED_TARGET = 1.25;
export type StreamFigureName = "stream_wire_bytes" | "stream_unwatched_vs_model";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The baselines, in a plain node child (nothing of Leyline). Args: mode ("model" | "sdk"), reply file, token
 * size, tokens per second, cwd, agent dir. Prints `ms <elapsed> <characters streamed>`.
 */
const BASELINE_SCRIPT = `
const [mode, file, tokenSizeText, tpsText, cwd, agentDir] = process.argv.slice(1);
const fs = await import("node:fs");
const ai = await import("@earendil-works/pi-ai");
const text = fs.readFileSync(file, "utf8");
const tokenSize = Number(tokenSizeText);
const faux = ai.fauxProvider({
  api: "faux",
  provider: "faux",
  models: [{ id: "faux-1", name: "Faux 1", reasoning: false, input: ["text"] }],
  tokenSize: { min: tokenSize, max: tokenSize },
  tokensPerSecond: Number(tpsText),
});
faux.setResponses([ai.fauxAssistantMessage([ai.fauxText(text)])]);
const model = faux.getModel();
const now = () => Number(process.hrtime.bigint()) / 1e6;
let streamed = 0;
let elapsed;
if (mode === "model") {
  const start = now();
  const models = ai.createModels();
  models.setProvider(faux.provider);
  const stream = models.streamSimple(model, { messages: [{ role: "user", content: "reply", timestamp: Date.now() }] });
  for await (const event of stream) if (event.type === "text_delta") streamed += event.delta.length;
  await stream.result();
  elapsed = now() - start;
} else {
  const pi = await import("@earendil-works/pi-coding-agent");
  const modelRuntime = await pi.ModelRuntime.create({ credentials: new ai.InMemoryCredentialStore(), modelsPath: null, modelsStore: new ai.InMemoryModelsStore() });
  modelRuntime.registerNativeProvider(faux.provider);
  await modelRuntime.refresh({ allowNetwork: false });
  const sessionManager = pi.SessionManager.create(cwd, agentDir + "/sdk-sessions");
  const { session } = await pi.createAgentSession({ cwd, agentDir, modelRuntime, model, sessionManager });
  const ended = new Promise((resolve) => session.subscribe((event) => {
    if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") streamed += event.assistantMessageEvent.delta.length;
    if (event.type === "agent_end") resolve();
  }));
  const start = now();
  await session.prompt("reply");
  await ended;
  elapsed = now() - start;
  session.dispose();
}
process.stdout.write("ms " + elapsed + " " + streamed + "\\n");
process.exit(0);
`;

/** Runs one baseline child; resolves with the time it measured (ms) and the characters it streamed. */
function runBaseline(
  mode: "model" | "sdk",
  args: { file: string; tokenSize: number; tokensPerSecond: number; cwd: string; agentDir: string },
): Promise<{ ms: number; chars: number }> {
  const child = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      BASELINE_SCRIPT,
      mode,
      args.file,
      String(args.tokenSize),
      String(args.tokensPerSecond),
      args.cwd,
      args.agentDir,
    ],
    { cwd: REPO_ROOT, env: { ...process.env, PI_CODING_AGENT_DIR: args.agentDir, PI_OFFLINE: "1" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      const match = /^ms (\S+) (\d+)$/m.exec(stdout);
      if (code === 0 && match?.[1] !== undefined && match[2] !== undefined) resolve({ ms: Number(match[1]), chars: Number(match[2]) });
      else reject(new Error(`the ${mode} baseline exited (${String(code)}): ${stderr.slice(-500)}`));
    });
  });
}

/** A variant that reports its own time (ms): a child process times itself, without its start-up. */
interface TimedVariant {
  readonly run: () => Promise<number>;
}

/** measure.ts `alternate` for variants that time themselves: warm-up rounds, the order reversed every other round. */
async function alternateTimed<K extends string>(
  variants: Record<K, TimedVariant>,
  options: AlternateOptions,
): Promise<Record<K, number[]>> {
  const names = Object.keys(variants) as K[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let index = 0; index < options.warmup + options.rounds; index++) {
    for (const name of index % 2 === 0 ? names : [...names].reverse()) {
      const ms = await variants[name].run();
      if (index >= options.warmup) samples[name].push(ms);
    }
  }
  return samples;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Replies: consecutive (so distinct) slices of the prose pool, `chars` characters each, trailing whitespace trimmed. */
class ReplyTexts {
  private readonly pool: string;
  private offset = 0;

  constructor(seed: number, chars: number) {
    let pool = "";
    for (let s = seed; pool.length < chars * 12; s++) pool += buildTextPools(createRng(s), 256 * 1024).prose;
    this.pool = pool;
  }

  next(chars: number): string {
    if (this.offset + chars > this.pool.length) this.offset = 0;
    const text = this.pool.slice(this.offset, this.offset + chars).trimEnd();
    this.offset += chars;
    return text;
  }
}

interface HostWatch {
  /** Resolves at the session's next agent_end with the characters its stream_delta events carried. */
  nextRun(sessionId: string, timeoutMs: number): Promise<{ chars: number; endedAt: number }>;
  stop(): void;
}

function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The host's live events (in-process), per session: what streamed since the last agent_end. */
function watchHost(app: FastifyInstance): HostWatch {
  const waiting = new Map<string, (result: { chars: number; endedAt: number }) => void>();
  const chars = new Map<string, number>();
  const subscription = app.leyline.host.events$.subscribe((hostEvent) => {
    if (hostEvent.type !== "runtime_event" || hostEvent.sessionId === null) return;
    const data: unknown = hostEvent.data(true);
    const event = isRecord(data) ? data["event"] : undefined;
    if (!isRecord(event)) return;
    const id = hostEvent.sessionId;
    if (event["type"] === "stream_delta") {
      chars.set(id, (chars.get(id) ?? 0) + streamedChars(event));
    } else if (event["type"] === "agent_end") {
      const endedAt = monotonicMs();
      const resolve = waiting.get(id);
      waiting.delete(id);
      resolve?.({ chars: chars.get(id) ?? 0, endedAt });
      chars.delete(id);
    }
  });
  return {
    nextRun: (sessionId, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(sessionId);
          reject(new Error(`no agent_end within ${timeoutMs} ms`));
        }, timeoutMs);
        chars.delete(sessionId);
        waiting.set(sessionId, (result) => {
          clearTimeout(timer);
          resolve(result);
        });
      }),
    stop: () => subscription.unsubscribe(),
  };
}

async function requestJson(url: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${url}: ${response.status} ${text.slice(0, 500)}`);
  const parsed: unknown = JSON.parse(text);
  if (!isRecord(parsed)) throw new Error(`POST ${url}: not an object`);
  return parsed;
}

/** The text of the last assistant message of a session file. */
function lastAssistantText(file: string): string | null {
  const lines = readCompleteJsonl(file);
  for (let i = lines.length - 1; i >= 0; i--) {
    const message = lines[i]?.["message"];
    if (!isRecord(message) || message["role"] !== "assistant" || !Array.isArray(message["content"])) continue;
    return (message["content"] as unknown[])
      .map((block) => (isRecord(block) && block["type"] === "text" && typeof block["text"] === "string" ? block["text"] : ""))
      .join("");
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Wire clients
// ---------------------------------------------------------------------------------------------------------

interface WireCount {
  /** Raw bytes the TCP socket read (frames as sent: compressed when deflate was negotiated). */
  wireBytes: number;
  /** Bytes of the messages as the application got them (decompressed). */
  messageBytes: number;
  messages: number;
  /** Uncompressed bytes per message type (runtime events by their event type). */
  byType: Record<string, number>;
}

class WireClient {
  readonly socket: WebSocket;
  readonly name: string;
  private tcp: net.Socket | null = null;
  private live: LiveStreamState = EMPTY_LIVE_STREAM;
  /** The texts of assistant messages the stream_delta events streamed (read at each assistant message_end). */
  readonly streamed: string[] = [];
  private readonly seqs: number[] = [];
  private settledResolve: (() => void) | null = null;
  readonly settled: Promise<void>;
  private counting: { startRead: number; count: WireCount; reply: string; resolve: (count: WireCount) => void } | null = null;
  private failure: Error | null = null;

  constructor(
    url: string,
    readonly deflate: boolean,
  ) {
    this.name = deflate ? "deflate" : "plain";
    this.settled = new Promise((resolve) => (this.settledResolve = resolve));
    const createConnection = ((options: net.NetConnectOpts) => {
      this.tcp = net.createConnection(options);
      return this.tcp;
    }) as unknown as typeof net.createConnection;
    this.socket = new WebSocket(url, { perMessageDeflate: deflate, createConnection });
    this.socket.on("message", (raw: RawData) => this.onMessage(raw));
    this.socket.on("error", (error: Error) => (this.failure ??= error));
  }

  /** The negotiated extensions (empty without permessage-deflate). */
  get extensions(): string {
    return this.socket.extensions;
  }

  /** Whether every numbered message arrived in order (1, 2, 3, ...). */
  get inOrder(): boolean {
    return this.seqs.every((seq, index) => seq === index + 1);
  }

  get error(): Error | null {
    return this.failure;
  }

  /** Counts from now until the session_delta (or snapshot) carrying an assistant entry with exactly `reply`. */
  count(reply: string): Promise<WireCount> {
    if (this.tcp === null) return Promise.reject(new Error("the client has no socket"));
    return new Promise((resolve) => {
      this.counting = {
        startRead: (this.tcp as net.Socket).bytesRead,
        count: { wireBytes: 0, messageBytes: 0, messages: 0, byType: {} },
        reply,
        resolve,
      };
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once("close", () => resolve());
      this.socket.close();
    });
  }

  private onMessage(raw: RawData): void {
    const buffer = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    const message: unknown = JSON.parse(buffer.toString("utf8"));
    if (!isRecord(message)) return;
    const type = String(message["type"]);
    const data = isRecord(message["data"]) ? message["data"] : {};
    if (typeof message["seq"] === "number" && message["seq"] > 0) this.seqs.push(message["seq"]);
    if (type === "ping") this.socket.send('{"type":"pong"}');
    let key = type;
    let persisted: string[] = [];
    if (type === "runtime_event" && isRecord(data["event"])) {
      const event = data["event"] as { type: string } & Record<string, unknown>;
      key = `runtime_event:${event.type}`;
      const role = isRecord(event["message"]) ? event["message"]["role"] : undefined;
      if (event.type === "message_end" && role === "assistant" && this.live.message !== null)
        this.streamed.push(streamedText(this.live.message));
      this.live = applyLiveEvent(this.live, event);
    } else if (type === "session_snapshot") {
      persisted = assistantTexts(data["entries"]);
      if (data["done"] === true) this.settledResolve?.();
    } else if (type === "session_unavailable") {
      this.settledResolve?.();
    } else if (type === "session_delta" && isRecord(data["transcript"])) {
      const transcript = data["transcript"];
      const replaced = Array.isArray(transcript["replaced"])
        ? (transcript["replaced"] as unknown[]).map((pair) => (Array.isArray(pair) ? pair[1] : null))
        : [];
      persisted = assistantTexts([...replaced, ...(Array.isArray(transcript["appended"]) ? transcript["appended"] : [])]);
    }
    const counting = this.counting;
    if (counting === null) return;
    const { count } = counting;
    count.messages++;
    count.messageBytes += buffer.length;
    count.byType[key] = (count.byType[key] ?? 0) + buffer.length;
    if (persisted.includes(counting.reply)) {
      count.wireBytes = (this.tcp as net.Socket).bytesRead - counting.startRead;
      this.counting = null;
      counting.resolve(count);
    }
  }
}

function opened(socket: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
}

function within<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${label}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------------------
// The benchmark
// ---------------------------------------------------------------------------------------------------------

/** The faux model's pace: chunks of `tokenSize` tokens (4 characters each), `tokensPerSecond`. */
export interface FauxPace {
  readonly tokenSize: number;
  readonly tokensPerSecond: number;
}

/** pi-ai's faux model waits `ceil(characters / 4) / tokensPerSecond` seconds before each chunk. */
function charsPerSecond(pace: FauxPace): number {
  return pace.tokensPerSecond * 4;
}

/** A fast real provider (3,000 tokens per second, 12-character chunks): the pace the 16 s of issue 10 were measured at. */
export const UNWATCHED_PACE: FauxPace = { tokenSize: 3, tokensPerSecond: 3000 };
/** ws_fanout's pace (500 tokens per second, 4-character chunks): a few times faster than a fast model. */
export const WIRE_PACE: FauxPace = { tokenSize: 1, tokensPerSecond: 500 };

export interface StreamWireOptions {
  /** Characters of the watched reply (stream_wire_bytes; default 20,000). */
  readonly wireChars?: number;
  /** Characters of the unwatched reply (stream_unwatched_vs_model; default 100,000). */
  readonly unwatchedChars?: number;
  readonly rounds: number;
  readonly warmup: number;
  readonly seed: number;
  readonly wirePace?: FauxPace;
  readonly unwatchedPace?: FauxPace;
  readonly log?: (line: string) => void;
}

/** The real app with forked workers, listening, and one persisted session (its first reply wrote the file). */
interface BenchSession {
  readonly app: FastifyInstance;
  readonly base: string;
  readonly id: string;
  readonly promptUrl: string;
  readonly sessionFile: string;
  readonly watch: HostWatch;
  readonly dirs: RuntimeTestDirs;
  runTimeoutMs(chars: number): number;
}

async function withSession<T>(pace: FauxPace, turns: readonly FauxTurn[], run: (session: BenchSession) => Promise<T>): Promise<T> {
  const dirs = createRuntimeTestDirs("leyline-bench-stream-");
  let app: FastifyInstance | null = null;
  let watch: HostWatch | null = null;
  const runTimeoutMs = (chars: number): number => 60_000 + (chars / charsPerSecond(pace)) * 4000;
  try {
    app = await buildBenchApp(dirs, [{ match: "first reply", text: "The session's first reply." }, ...turns], pace);
    await app.leyline.readSide.ready();
    watch = watchHost(app);
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (typeof address !== "object" || address === null) throw new Error("the app has no address");
    const base = `http://127.0.0.1:${address.port}`;
    const created = await requestJson(`${base}/api/pi/sessions`, { cwd: dirs.cwd });
    const active = created["active"];
    const id = isRecord(active) && typeof active["id"] === "string" ? active["id"] : null;
    if (id === null) throw new Error(`POST /api/pi/sessions: no active.id in ${JSON.stringify(created)}`);
    const promptUrl = `${base}/api/pi/sessions/${encodeURIComponent(id)}/prompt`;
    const first = watch.nextRun(id, runTimeoutMs(100));
    await requestJson(promptUrl, { text: "first reply" });
    await first;
    const sessionFile = app.leyline.host.get(id)?.sessionFile ?? null;
    if (sessionFile === null || !fs.existsSync(sessionFile)) throw new Error("the session was not persisted by its first reply");
    return await run({ app, base, id, promptUrl, sessionFile, watch, dirs, runTimeoutMs });
  } finally {
    watch?.stop();
    await app?.close().catch(() => undefined);
    dirs.cleanup();
  }
}

function unwatchedDescription(chars: number): string {
  return `a ${round(chars / 1000, 1)} KB streamed reply with no events socket: prompt request -> runtime agent_end (app, forked worker) / the faux model streaming the same reply at the same pace (plain node, pi-ai Models.streamSimple)`;
}

function wireDescription(chars: number): string {
  return `bytes a focused WS /api/pi/events client reads on the wire from a ${round(chars / 1000, 1)} KB reply's prompt until the session_delta with the persisted reply (the larger of a permessage-deflate client and a plain one) / the reply's bytes`;
}

async function benchUnwatched(options: StreamWireOptions, texts: ReplyTexts): Promise<Figure> {
  const pace = options.unwatchedPace ?? UNWATCHED_PACE;
  const chars = options.unwatchedChars ?? 100_000;
  const replies = Array.from({ length: options.warmup + options.rounds }, () => texts.next(chars));
  options.log?.(`stream_unwatched_vs_model: ${replies.length} rounds of a ${chars}-character reply (${charsPerSecond(pace)} characters/s)`);
  return withSession(
    pace,
    replies.map((text, index) => ({ match: `unwatched reply ${index}`, text })),
    async (session) => {
      const replyFile = path.join(session.dirs.root, "unwatched-reply.txt");
      // The baselines stream a reply of the same size and kind (the first one).
      fs.writeFileSync(replyFile, replies[0] as string);
      const baselineArgs = {
        file: replyFile,
        tokenSize: pace.tokenSize,
        tokensPerSecond: pace.tokensPerSecond,
        cwd: session.dirs.cwd,
        agentDir: session.dirs.agentDir,
      };
      const problems: string[] = [];
      const baselineChars: number[] = [];
      let next = 0;
      const samples = await alternateTimed(
        {
          subject: {
            run: async () => {
              const index = next++;
              const text = replies[index] as string;
              const start = monotonicMs();
              const ended = session.watch.nextRun(session.id, session.runTimeoutMs(text.length));
              await requestJson(session.promptUrl, { text: `unwatched reply ${index}` });
              const run = await ended;
              if (run.chars !== text.length) problems.push(`run ${index} streamed ${run.chars} of ${text.length} characters`);
              if (lastAssistantText(session.sessionFile) !== text)
                problems.push(`run ${index}: the session file's last reply is not the streamed one`);
              return run.endedAt - start;
            },
          },
          model: {
            run: async () => {
              const result = await runBaseline("model", baselineArgs);
              baselineChars.push(result.chars);
              return result.ms;
            },
          },
          sdk: {
            run: async () => {
              const result = await runBaseline("sdk", baselineArgs);
              baselineChars.push(result.chars);
              return result.ms;
            },
          },
        },
        options,
      );
      const expected = (replies[0] as string).length;
      if (baselineChars.some((count) => count !== expected))
        problems.push(`a baseline streamed ${Math.min(...baselineChars)} of ${expected} characters`);
      return measuredFigure(unwatchedDescription(chars), round(medianRatio(samples.subject, samples.model), 3), STREAM_UNWATCHED_TARGET, {
        subjectMs: round(median(samples.subject), 0),
        baselineMs: round(median(samples.model), 0),
        sdkMs: round(median(samples.sdk), 0),
        subjectVsSdk: round(medianRatio(samples.subject, samples.sdk), 3),
        replyChars: chars,
        charsPerSecond: charsPerSecond(pace),
        nominalModelMs: round((chars / charsPerSecond(pace)) * 1000, 0),
        rounds: options.rounds,
        check: problems.length === 0 ? "ok" : problems.join("; "),
      });
    },
  );
}

async function benchWire(options: StreamWireOptions, texts: ReplyTexts): Promise<Figure> {
  const pace = options.wirePace ?? WIRE_PACE;
  const chars = options.wireChars ?? 20_000;
  const replies = Array.from({ length: Math.max(1, options.rounds) }, () => texts.next(chars));
  options.log?.(`stream_wire_bytes: ${replies.length} rounds of a ${chars}-character reply (${charsPerSecond(pace)} characters/s)`);
  return withSession(
    pace,
    replies.map((text, index) => ({ match: `watched reply ${index}`, text })),
    async (session) => {
      const url = `${session.base.replace(/^http/, "ws")}/api/pi/events?sessionId=${encodeURIComponent(session.id)}`;
      const deflate = new WireClient(url, true);
      const plain = new WireClient(url, false);
      const clients = [deflate, plain];
      try {
        await Promise.all(clients.map((client) => opened(client.socket)));
        await within(Promise.all(clients.map((client) => client.settled)), 60_000, "the session's snapshot");
        const problems: string[] = [];
        if (!deflate.extensions.includes("permessage-deflate")) problems.push(`the deflate client negotiated "${deflate.extensions}"`);
        if (plain.extensions !== "") problems.push(`the plain client negotiated "${plain.extensions}"`);
        const runs: Array<{ bytes: number; deflate: WireCount; plain: WireCount }> = [];
        for (const [index, text] of replies.entries()) {
          const counts = Promise.all([deflate.count(text), plain.count(text)]);
          const ended = session.watch.nextRun(session.id, session.runTimeoutMs(text.length));
          await requestJson(session.promptUrl, { text: `watched reply ${index}` });
          await ended;
          const [deflateCount, plainCount] = await within(counts, 60_000, "the persisted reply on both sockets");
          runs.push({ bytes: Buffer.byteLength(text), deflate: deflateCount, plain: plainCount });
          for (const client of clients) {
            if (client.streamed.at(-1) !== text)
              problems.push(`run ${index}: the ${client.name} client rebuilt another reply from the deltas`);
          }
        }
        for (const client of clients) {
          if (!client.inOrder) problems.push(`the ${client.name} client's messages were not in seq order`);
          if (client.error !== null) problems.push(`${client.name} socket error: ${client.error.message}`);
        }
        const ratio = (run: (typeof runs)[number]): number => Math.max(run.deflate.wireBytes, run.plain.wireBytes) / run.bytes;
        const sorted = [...runs].sort((a, b) => ratio(a) - ratio(b));
        const middle = sorted[Math.floor((sorted.length - 1) / 2)] as (typeof runs)[number];
        const kb = (value: number): number => round(value / 1000, 1);
        const clientDetails = (count: WireCount, bytes: number): Record<string, unknown> => ({
          wireKb: kb(count.wireBytes),
          wireRatio: round(count.wireBytes / bytes, 3),
          messageKb: kb(count.messageBytes),
          messageRatio: round(count.messageBytes / bytes, 3),
          messages: count.messages,
          kbByType: Object.fromEntries(
            Object.entries(count.byType)
              .sort((a, b) => b[1] - a[1])
              .map(([type, value]) => [type, kb(value)]),
          ),
        });
        return measuredFigure(wireDescription(chars), round(median(runs.map(ratio)), 3), STREAM_WIRE_TARGET, {
          // The median run's figures.
          replyKb: kb(middle.bytes),
          charsPerSecond: charsPerSecond(pace),
          deflateRatio: round(middle.deflate.wireBytes / middle.bytes, 3),
          plainRatio: round(middle.plain.wireBytes / middle.bytes, 3),
          deflate: clientDetails(middle.deflate, middle.bytes),
          plain: clientDetails(middle.plain, middle.bytes),
          ratios: runs.map((run) => round(ratio(run), 3)),
          check: problems.length === 0 ? "ok" : problems.join("; "),
        });
      } finally {
        await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      }
    },
  );
}

/** The figures, unwatched first (each on its own app: no events socket ever connected to the unwatched one). */
export async function benchStreamWire(options: StreamWireOptions): Promise<Record<StreamFigureName, Figure>> {
  const texts = new ReplyTexts(options.seed, Math.max(options.wireChars ?? 20_000, options.unwatchedChars ?? 100_000));
  const unwatched = await benchUnwatched(options, texts);
  const wire = await benchWire(options, texts);
  return { stream_wire_bytes: wire, stream_unwatched_vs_model: unwatched };
}
