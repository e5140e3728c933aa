/**
 * The client side of the ws_fanout benchmark, run as a child process (forked by ws-fanout.ts through tsx) so
 * that the clients' CPU (frame decoding, JSON.parse) does not count as the server's.
 *
 * Driven over IPC, one run at a time:
 *   parent → { type: "connect", url, count }   open `count` sockets to WS /api/pi/events (focused on the
 *                                              session), each answering heartbeat pings with {"type":"pong"}
 *   child  → { type: "connected" }             every socket got its runtime_roster and its session's snapshot
 *                                              (or `session_unavailable` for a session not written yet)
 *   parent → { type: "await", events, reply, timeoutMs }
 *   child  → { type: "received", counts, chars, complete }
 *                                              every socket has `events` stream_delta events, the run's
 *                                              agent_end and the persisted `reply` (a session_delta or
 *                                              snapshot entry with exactly that text), or the timeout passed
 *   parent → { type: "report" }
 *   child  → { type: "report", receipts, messages, bytes, cpuUs }  and closes the sockets
 *   parent → { type: "exit" }
 *
 * A receipt is the `process.hrtime` time (ms, CLOCK_MONOTONIC: comparable with the parent's clock) at which a
 * socket's `message` handler got a `runtime_event` whose event is a `stream_delta`; the time is taken before
 * the JSON is parsed. `chars` counts the characters of streamed text those events carried.
 */
import WebSocket, { type RawData } from "ws";
import { unpackEntry, type WireTranscriptEntry } from "../../domain/transcript/transcript-wire.ts";

export type ClientCommand =
  | { type: "connect"; url: string; count: number }
  | { type: "await"; events: number; reply: string; timeoutMs: number }
  | { type: "report" }
  | { type: "exit" };

export type ClientReply =
  | { type: "connected" }
  | { type: "received"; counts: number[]; chars: number[]; complete: boolean[] }
  | { type: "report"; receipts: number[][]; messages: number[]; bytes: number[]; cpuUs: number }
  | { type: "error"; message: string };

const PONG = '{"type":"pong"}';

/** Monotonic milliseconds shared by every process on the machine. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

interface Client {
  readonly socket: WebSocket;
  /** Receipt times of stream_delta events. */
  readonly receipts: number[];
  /** Characters of streamed text received. */
  chars: number;
  messages: number;
  bytes: number;
  rostered: boolean;
  /** The focused session's snapshot (or its unavailability) arrived. */
  settled: boolean;
  agentEnded: boolean;
  /** Texts of the assistant messages the session's snapshots and deltas carried. */
  readonly persisted: Set<string>;
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Characters of text the deltas of a stream_delta event add. */
export function streamedChars(event: Record<string, unknown>): number {
  const deltas = event["deltas"];
  if (!Array.isArray(deltas)) return 0;
  let chars = 0;
  for (const delta of deltas)
    if (isRecord(delta) && delta["kind"] === "text" && typeof delta["text"] === "string") chars += delta["text"].length;
  return chars;
}

/** The texts of the assistant messages among wire transcript entries. */
export function assistantTexts(entries: unknown): string[] {
  if (!Array.isArray(entries)) return [];
  const texts: string[] = [];
  for (const wire of entries) {
    if (!isRecord(wire) || wire["type"] !== "message" || wire["role"] !== "assistant") continue;
    const entry = unpackEntry(wire as WireTranscriptEntry) as { text?: unknown };
    if (typeof entry.text === "string") texts.push(entry.text);
  }
  return texts;
}

let clients: Client[] = [];
let cpuStart: NodeJS.CpuUsage | null = null;
let progress: (() => void) | null = null;

function reply(message: ClientReply): void {
  process.send?.(message);
}

function onMessage(client: Client, message: Record<string, unknown>, at: number, onReady: () => void): void {
  const data = isRecord(message["data"]) ? message["data"] : {};
  switch (message["type"]) {
    case "runtime_event": {
      const event = data["event"];
      if (!isRecord(event)) return;
      if (event["type"] === "stream_delta") {
        client.receipts.push(at);
        client.chars += streamedChars(event);
      } else if (event["type"] === "agent_end") {
        client.agentEnded = true;
      }
      progress?.();
      return;
    }
    case "ping":
      client.socket.send(PONG);
      return;
    case "runtime_roster":
      client.rostered = true;
      break;
    case "session_snapshot":
      for (const text of assistantTexts(data["entries"])) client.persisted.add(text);
      if (data["done"] === true) client.settled = true;
      break;
    case "session_delta": {
      const transcript = isRecord(data["transcript"]) ? data["transcript"] : {};
      const replaced = Array.isArray(transcript["replaced"])
        ? (transcript["replaced"] as unknown[]).map((pair) => (Array.isArray(pair) ? pair[1] : null))
        : [];
      for (const text of assistantTexts([...replaced, ...(Array.isArray(transcript["appended"]) ? transcript["appended"] : [])]))
        client.persisted.add(text);
      break;
    }
    case "session_unavailable":
      client.settled = true;
      break;
    default:
      return;
  }
  onReady();
  progress?.();
}

function connect(url: string, count: number): void {
  clients = [];
  cpuStart = null;
  let connected = false;
  const onReady = (): void => {
    if (connected || clients.length < count || !clients.every((client) => client.rostered && client.settled)) return;
    connected = true;
    cpuStart = process.cpuUsage();
    reply({ type: "connected" });
  };
  for (let i = 0; i < count; i++) {
    const client: Client = {
      socket: new WebSocket(url),
      receipts: [],
      chars: 0,
      messages: 0,
      bytes: 0,
      rostered: false,
      settled: false,
      agentEnded: false,
      persisted: new Set(),
    };
    client.socket.on("message", (raw: RawData) => {
      const at = monotonicMs();
      const text = textOf(raw);
      client.messages++;
      client.bytes += Buffer.byteLength(text);
      const message: unknown = JSON.parse(text);
      if (isRecord(message)) onMessage(client, message, at, onReady);
    });
    client.socket.on("error", (error: Error) => reply({ type: "error", message: `socket ${i}: ${error.message}` }));
    clients.push(client);
  }
}

function awaitRun(events: number, text: string, timeoutMs: number): void {
  const complete = (client: Client): boolean => client.receipts.length >= events && client.agentEnded && client.persisted.has(text);
  const finish = (): void => {
    progress = null;
    clearTimeout(timer);
    reply({
      type: "received",
      counts: clients.map((client) => client.receipts.length),
      chars: clients.map((client) => client.chars),
      complete: clients.map(complete),
    });
  };
  const timer = setTimeout(finish, timeoutMs);
  if (clients.every(complete)) {
    finish();
    return;
  }
  progress = () => {
    if (clients.every(complete)) finish();
  };
}

async function report(): Promise<void> {
  const cpu = process.cpuUsage(cpuStart ?? undefined);
  const message: ClientReply = {
    type: "report",
    receipts: clients.map((client) => client.receipts),
    messages: clients.map((client) => client.messages),
    bytes: clients.map((client) => client.bytes),
    cpuUs: cpu.user + cpu.system,
  };
  await Promise.all(
    clients.map(
      (client) =>
        new Promise<void>((resolve) => {
          if (client.socket.readyState === WebSocket.CLOSED) return resolve();
          client.socket.once("close", () => resolve());
          client.socket.close();
        }),
    ),
  );
  clients = [];
  reply(message);
}

function isCommand(value: unknown): value is ClientCommand {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/** Set by ws-fanout.ts in the child's environment: only then does this module act as the clients' process. */
export const CLIENT_PROCESS_ENV = "LEYLINE_BENCH_WS_CLIENTS";

if (process.send !== undefined && process.env[CLIENT_PROCESS_ENV] === "1") {
  process.on("message", (command: unknown) => {
    if (!isCommand(command)) return;
    try {
      switch (command.type) {
        case "connect":
          connect(command.url, command.count);
          return;
        case "await":
          awaitRun(command.events, command.reply, command.timeoutMs);
          return;
        case "report":
          void report().catch((error: unknown) => reply({ type: "error", message: String(error) }));
          return;
        case "exit":
          process.disconnect();
          return;
      }
    } catch (error) {
      reply({ type: "error", message: error instanceof Error ? error.message : String(error) });
    }
  });
}
