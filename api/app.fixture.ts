/**
 * Test-only helpers of the API integration tests: an app over temp data and agent dirs, session files, and a
 * WebSocket message queue. Not imported by production code.
 */
import fs from "node:fs";
import { serverMessageFailure } from "../domain/contract/events-socket.ts";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { RawData, WebSocket } from "ws";
import { buildApp, type BuildAppOptions } from "./app.ts";
import { PI_SESSION_FIXTURES_DIR } from "../test/support/fixtures.ts";

export const FIXTURES_DIR = PI_SESSION_FIXTURES_DIR;

export interface TestDirs {
  readonly root: string;
  readonly dataDir: string;
  readonly agentDir: string;
  readonly sessionsDir: string;
  /** A project folder of pi's sessions dir (`--work-project--`). */
  readonly projectSessions: string;
  readonly home: string;
}

export function testDirs(prefix = "api"): TestDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `leyline-${prefix}-`));
  const agentDir = path.join(root, "agent");
  const sessionsDir = path.join(agentDir, "sessions");
  const projectSessions = path.join(sessionsDir, "--work-project--");
  fs.mkdirSync(projectSessions, { recursive: true });
  const home = path.join(root, "home");
  fs.mkdirSync(home);
  return { root, dataDir: path.join(root, "data"), agentDir, sessionsDir, projectSessions, home };
}

const apps: FastifyInstance[] = [];

/** An app over temp dirs (or `dirs`); closed by `closeTestApps()`. Waits until the read side is ready. */
export async function testApp(
  options: BuildAppOptions = {},
  dirs: TestDirs = testDirs(),
): Promise<{ app: FastifyInstance; dirs: TestDirs }> {
  const app = await buildApp({
    dataDir: dirs.dataDir,
    agentDir: dirs.agentDir,
    home: dirs.home,
    env: {},
    ...options,
  });
  apps.push(app);
  await app.leyline.readSide.ready();
  return { app, dirs };
}

export async function closeTestApps(): Promise<void> {
  await Promise.all(apps.splice(0).map((a) => a.close()));
}

/** Copies a fixture session file into the project folder; returns its path. */
export function copyFixture(name: string, dirs: TestDirs): string {
  const target = path.join(dirs.projectSessions, name);
  fs.copyFileSync(path.join(FIXTURES_DIR, name), target);
  return target;
}

export interface ReceivedMessage {
  type: string;
  data?: unknown;
  seq: number;
  /** On `hello` only. */
  epoch?: string;
}

/** Queues a socket's messages from the moment it is attached (attach before the socket opens). */
export class MessageQueue {
  private readonly messages: string[] = [];
  private readonly waiters: ((text: string) => void)[] = [];
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(socket: WebSocket) {
    socket.on("message", (data: RawData) => {
      const text = Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8");
      const waiter = this.waiters.shift();
      if (waiter) waiter(text);
      else this.messages.push(text);
    });
    this.closed = new Promise((resolve) => {
      socket.on("close", (code: number, reason: Buffer) => resolve({ code, reason: reason.toString("utf8") }));
    });
  }

  nextText(): Promise<string> {
    const queued = this.messages.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The next message, checked against the events socket's contract (domain/contract/events-socket.ts). */
  async next(): Promise<ReceivedMessage> {
    const message: unknown = JSON.parse(await this.nextText());
    const failure = serverMessageFailure(message);
    if (failure !== null) throw new Error(`events socket message breaks its schema: ${failure}`);
    return message as ReceivedMessage;
  }

  /** The next message of type `type` (earlier ones of other types are dropped). */
  async nextOf(type: string): Promise<ReceivedMessage> {
    for (;;) {
      const message = await this.next();
      if (message.type === type) return message;
    }
  }

  /** Messages until (and with) the first one `done` accepts. */
  async until(done: (message: ReceivedMessage) => boolean): Promise<ReceivedMessage[]> {
    const out: ReceivedMessage[] = [];
    for (;;) {
      const message = await this.next();
      out.push(message);
      if (done(message)) return out;
    }
  }
}
