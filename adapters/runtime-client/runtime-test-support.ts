/**
 * Test support for the runtime adapters: temp agent dir + project dir, a faux script file, a recorder of a
 * client's notifications with `waitFor` (no sleeps), and a JSONL integrity check.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { applyLiveEvent, EMPTY_LIVE_STREAM, streamedText } from "../../domain/live/live-stream.ts";
import type { FauxTurn } from "../runtime-protocol/faux-script.ts";
import type { RuntimeWorkerClient, WorkerNotification } from "./worker-client.ts";

export interface RuntimeTestDirs {
  root: string;
  agentDir: string;
  cwd: string;
  /** Writes a faux script file and returns its path. */
  writeScript(turns: FauxTurn[]): string;
  /** Every `.jsonl` below `<agentDir>/sessions`. */
  sessionFiles(): string[];
  cleanup(): void;
}

export function createRuntimeTestDirs(prefix = "leyline-runtime-"): RuntimeTestDirs {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const agentDir = path.join(root, "agent");
  const cwd = path.join(root, "project");
  fs.mkdirSync(agentDir, { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });
  // Manual compaction must find something to summarise in a tiny test conversation; no auto-retry.
  fs.writeFileSync(
    path.join(agentDir, "settings.json"),
    JSON.stringify({ compaction: { enabled: false, keepRecentTokens: 1 }, retry: { enabled: false } }),
  );
  const list = (dir: string): string[] => {
    if (!fs.existsSync(dir)) return [];
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return list(full);
      return entry.name.endsWith(".jsonl") ? [full] : [];
    });
  };
  return {
    root,
    agentDir,
    cwd,
    writeScript(turns) {
      const file = path.join(root, `script-${Math.abs(turns.length)}-${fs.readdirSync(root).length}.json`);
      fs.writeFileSync(file, JSON.stringify(turns));
      return file;
    },
    sessionFiles: () => list(path.join(agentDir, "sessions")).sort(),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

export interface Recorder {
  readonly all: WorkerNotification[];
  /** Resolves with the first recorded (past or future) notification matching `predicate`. */
  waitFor<T extends WorkerNotification>(predicate: (message: WorkerNotification) => message is T, timeoutMs?: number): Promise<T>;
  waitFor(predicate: (message: WorkerNotification) => boolean, timeoutMs?: number): Promise<WorkerNotification>;
  /** Events of a given pi type, in order. */
  events(type?: string): Array<{ type: string } & Record<string, unknown>>;
  /** Forgets what was recorded so far (waitFor then only sees later messages). */
  clear(): void;
}

export function record(client: RuntimeWorkerClient): Recorder {
  const all: WorkerNotification[] = [];
  const waiters: Array<{ predicate: (message: WorkerNotification) => boolean; resolve: (message: WorkerNotification) => void }> = [];
  client.messages$.subscribe((message) => {
    all.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  const waitFor = (predicate: (message: WorkerNotification) => boolean, timeoutMs = 20_000): Promise<WorkerNotification> => {
    const found = all.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for a worker message (${predicate.toString().slice(0, 120)})`)),
        timeoutMs,
      );
      waiters.push({
        predicate,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
    });
  };
  return {
    all,
    waitFor: waitFor as Recorder["waitFor"],
    events: (type) =>
      all.flatMap((message) => (message.type === "event" && (type === undefined || message.event.type === type) ? [message.event] : [])),
    clear: () => {
      all.length = 0;
    },
  };
}

/**
 * The texts of the assistant replies as the live events streamed them: the events folded with `applyLiveEvent`,
 * read just before each assistant `message_end` (which no longer carries the content).
 */
export function streamedReplies(events: ReadonlyArray<{ type: string } & Record<string, unknown>>): string[] {
  const replies: string[] = [];
  let state = EMPTY_LIVE_STREAM;
  for (const event of events) {
    const message = event["message"] as { role?: unknown } | undefined;
    if (event.type === "message_end" && message?.role === "assistant" && state.message !== null) replies.push(streamedText(state.message));
    state = applyLiveEvent(state, event);
  }
  return replies;
}

/** Whether a notification is a `stream_delta` event that streams text of the assistant message. */
export function isTextDelta(message: WorkerNotification): boolean {
  if (message.type !== "event" || message.event.type !== "stream_delta") return false;
  const deltas = message.event["deltas"];
  return Array.isArray(deltas) && deltas.some((delta: { kind?: unknown; text?: unknown }) => delta.kind === "text" && delta.text !== "");
}

export function isEvent(type: string, extra?: (event: Record<string, unknown>) => boolean) {
  return (message: WorkerNotification): boolean =>
    message.type === "event" && message.event.type === type && (extra ? extra(message.event) : true);
}

/** Parses every complete line of a JSONL file (throws on a corrupt complete line); a torn last line is allowed. */
export function readCompleteJsonl(file: string): Array<Record<string, unknown>> {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  const complete = text.endsWith("\n") ? lines.slice(0, -1) : lines.slice(0, -1);
  return complete.filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as Record<string, unknown>);
}
