/**
 * The client side of the ws_fanout benchmark, run as a child process (forked by ws-fanout.ts through tsx) so
 * that the clients' CPU (frame decoding, JSON.parse) does not count as the server's.
 *
 * Driven over IPC, one run at a time:
 *   parent → { type: "connect", url, count }   open `count` sockets to WS /api/pi/events, each answering
 *                                              heartbeat pings with the literal {"type":"pong"}
 *   child  → { type: "connected" }             every socket got its initial runtime_roster
 *   parent → { type: "await", deltas, timeoutMs }
 *   child  → { type: "received", counts }      every socket has `deltas` text deltas (or the timeout passed)
 *   parent → { type: "report" }
 *   child  → { type: "report", receipts, messages, bytes, cpuUs }  and closes the sockets
 *   parent → { type: "exit" }
 *
 * A receipt is the `process.hrtime` time (ms, CLOCK_MONOTONIC: comparable with the parent's clock) at which a
 * socket's `message` handler got a runtime_event whose pi event is a message_update text_delta; the time is
 * taken before the JSON is parsed.
 */
import WebSocket, { type RawData } from "ws";

export type ClientCommand =
  | { type: "connect"; url: string; count: number }
  | { type: "await"; deltas: number; timeoutMs: number }
  | { type: "report" }
  | { type: "exit" };

export type ClientReply =
  | { type: "connected" }
  | { type: "received"; counts: number[] }
  | { type: "report"; receipts: number[][]; messages: number[]; bytes: number[]; cpuUs: number }
  | { type: "error"; message: string };

const PONG = '{"type":"pong"}';

/** Monotonic milliseconds shared by every process on the machine. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

interface Client {
  readonly socket: WebSocket;
  readonly receipts: number[];
  messages: number;
  bytes: number;
  rostered: boolean;
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

function isTextDelta(message: unknown): boolean {
  if (typeof message !== "object" || message === null) return false;
  const { type, data } = message as { type?: unknown; data?: unknown };
  if (type !== "runtime_event" || typeof data !== "object" || data === null) return false;
  const event = (data as { event?: unknown }).event;
  if (typeof event !== "object" || event === null) return false;
  const { type: eventType, assistantMessageEvent } = event as { type?: unknown; assistantMessageEvent?: unknown };
  if (eventType !== "message_update" || typeof assistantMessageEvent !== "object" || assistantMessageEvent === null) return false;
  return (assistantMessageEvent as { type?: unknown }).type === "text_delta";
}

function messageType(message: unknown): unknown {
  return typeof message === "object" && message !== null ? (message as { type?: unknown }).type : undefined;
}

let clients: Client[] = [];
let cpuStart: NodeJS.CpuUsage | null = null;
let progress: (() => void) | null = null;

function reply(message: ClientReply): void {
  process.send?.(message);
}

function connect(url: string, count: number): void {
  clients = [];
  cpuStart = null;
  let ready = 0;
  for (let i = 0; i < count; i++) {
    const client: Client = { socket: new WebSocket(url), receipts: [], messages: 0, bytes: 0, rostered: false };
    client.socket.on("message", (data: RawData) => {
      const at = monotonicMs();
      const text = textOf(data);
      client.messages++;
      client.bytes += text.length;
      const message: unknown = JSON.parse(text);
      if (isTextDelta(message)) {
        client.receipts.push(at);
        progress?.();
        return;
      }
      const type = messageType(message);
      if (type === "ping") client.socket.send(PONG);
      else if (type === "runtime_roster" && !client.rostered) {
        client.rostered = true;
        if (++ready === count) {
          cpuStart = process.cpuUsage();
          reply({ type: "connected" });
        }
      }
    });
    client.socket.on("error", (error: Error) => reply({ type: "error", message: `socket ${i}: ${error.message}` }));
    clients.push(client);
  }
}

function awaitDeltas(deltas: number, timeoutMs: number): void {
  const done = (): boolean => clients.every((client) => client.receipts.length >= deltas);
  const finish = (): void => {
    progress = null;
    clearTimeout(timer);
    reply({ type: "received", counts: clients.map((client) => client.receipts.length) });
  };
  const timer = setTimeout(finish, timeoutMs);
  if (done()) {
    finish();
    return;
  }
  progress = () => {
    if (done()) finish();
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
          awaitDeltas(command.deltas, command.timeoutMs);
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
