/**
 * Test-only helpers of the runtime API tests: an app over temp pi and Leyline dirs with a real runtime host
 * (in-process workers by default, forked on request), JSON request helpers, and a WebSocket collector of
 * WS /api/pi/events messages with `until` (re-checked on every message; no sleeps).
 */
import fs from "node:fs";
import { serverMessageFailure } from "../domain/contract/events-socket.ts";
import path from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import type { FastifyInstance, InjectOptions } from "fastify";
import WebSocket, { type RawData } from "ws";
import { FauxScript, type FauxTurn } from "../adapters/runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../adapters/runtime-client/in-process-worker-client.ts";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../adapters/runtime-client/runtime-test-support.ts";
import type { RuntimeHostOptions } from "../adapters/runtime-host/runtime-host.ts";
import type { RuntimeHandle } from "../adapters/runtime-host/runtime-handle.ts";
import { agentDirEnv, messageTexts, recordHost, type AgentDirEnv } from "../adapters/runtime-host/runtime-host-test-support.ts";
import { buildApp, type BuildAppOptions } from "./app.ts";

export interface RuntimeApiDirs extends RuntimeTestDirs {
  readonly dataDir: string;
  readonly home: string;
}

export function runtimeApiDirs(prefix = "leyline-rt-api-"): RuntimeApiDirs {
  const dirs = createRuntimeTestDirs(prefix);
  const home = path.join(dirs.root, "home");
  fs.mkdirSync(home, { recursive: true });
  return { ...dirs, dataDir: path.join(dirs.root, "data"), home };
}

/** Extension that asks for a confirmation on `/ask` (reached in tests with in-process workers). */
export const askExtension: ExtensionFactory = (pi) => {
  pi.registerCommand("ask", {
    description: "asks the user",
    handler: async (_args, ctx) => {
      const confirmed = await ctx.ui.confirm("Proceed?", "Really proceed?");
      ctx.ui.setStatus("leyline-test", `confirmed:${confirmed}`);
    },
  });
};

export interface RuntimeAppOptions {
  turns?: FauxTurn[];
  /** Real worker processes (default in-process workers). */
  forked?: boolean;
  host?: Partial<RuntimeHostOptions>;
  app?: BuildAppOptions;
}

/** An app with a real runtime host over `dirs`; the caller closes it. Waits until the read side is ready. */
export async function runtimeApp(dirs: RuntimeApiDirs, options: RuntimeAppOptions = {}): Promise<FastifyInstance> {
  const hostOptions: RuntimeHostOptions = {
    idleMs: 0,
    watchdogMs: 0,
    ...(options.turns !== undefined ? { fauxScript: new FauxScript(options.turns) } : {}),
    ...(options.forked
      ? {}
      : { createClient: ({ fauxScript }) => InProcessWorkerClient.start({ fauxScript, extensionFactories: [askExtension] }) }),
    ...options.host,
  };
  const app = await buildApp({
    dataDir: dirs.dataDir,
    agentDir: dirs.agentDir,
    home: dirs.home,
    env: { PI_OFFLINE: "1" },
    runtimeHostOptions: hostOptions,
    ...options.app,
  });
  await app.leyline.readSide.ready();
  return app;
}

/** A listening app (127.0.0.1, a free port) that is its own workers' API, over new dirs; `close` undoes it all. */
export interface ListeningRuntimeApp {
  readonly dirs: RuntimeApiDirs;
  readonly app: FastifyInstance;
  /** http://127.0.0.1:<port>: LEYLINE_API_URL of every worker (the extensions that call Leyline's routes). */
  readonly baseUrl: string;
  close(): Promise<void>;
}

/**
 * `runtimeApp` over new dirs that listens on 127.0.0.1 and gives its workers its own URL (the bundled subagent,
 * research and vision extensions post to it). PI_CODING_AGENT_DIR points at the dirs until `close` (pi reads it
 * where the extensions are loaded).
 */
export async function listeningRuntimeApp(prefix: string, options: RuntimeAppOptions = {}): Promise<ListeningRuntimeApp> {
  const dirs = runtimeApiDirs(prefix);
  const previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
  process.env["PI_CODING_AGENT_DIR"] = dirs.agentDir;
  let baseUrl = "";
  const app = await runtimeApp(dirs, { ...options, host: { ...options.host, apiUrl: () => baseUrl } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("not listening");
  baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    dirs,
    app,
    baseUrl,
    async close() {
      await app.close();
      if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
      else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
      dirs.cleanup();
    },
  };
}

export interface RuntimeApiSuite extends AgentDirEnv<RuntimeApiDirs> {
  /** Apps made by `makeApp` and not yet closed. */
  readonly apps: FastifyInstance[];
  /** `runtimeApp` over the suite's dirs; the app is closed by `closeApps`. */
  readonly makeApp: (options?: RuntimeAppOptions) => Promise<FastifyInstance>;
  /** Closes every app made so far (call in `afterEach`). */
  readonly closeApps: () => Promise<void>;
}

/**
 * Temp API dirs shared with in-process workers through PI_CODING_AGENT_DIR, and the suite's apps: call `setUp`
 * in `beforeAll`, `closeApps` in `afterEach` and `tearDown` in `afterAll`.
 */
export function runtimeApiSuite(prefix?: string): RuntimeApiSuite {
  const env = agentDirEnv(() => runtimeApiDirs(prefix));
  const apps: FastifyInstance[] = [];
  return {
    ...env,
    apps,
    makeApp: async (options = {}) => {
      const app = await runtimeApp(env.dirs, options);
      apps.push(app);
      return app;
    },
    closeApps: async () => {
      await Promise.all(apps.splice(0).map((app) => app.close()));
    },
  };
}

export async function call(app: FastifyInstance, method: InjectOptions["method"], url: string, payload?: unknown) {
  const res = await app.inject({ method, url, ...(payload !== undefined ? { payload: payload as InjectOptions["payload"] } : {}) });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

export interface EventMessageRecord {
  type: string;
  data?: unknown;
  seq: number;
  /** On `hello` only. */
  epoch?: string;
}

export class EventCollector {
  readonly messages: EventMessageRecord[] = [];
  readonly opened: Promise<void>;
  private readonly waiters: Array<{ check: () => boolean; resolve: () => void }> = [];

  constructor(readonly socket: WebSocket) {
    socket.on("message", (data: RawData) => {
      const text = Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8");
      const message: unknown = JSON.parse(text);
      // A message off the contract is an uncaught error here, so the test run fails loudly.
      const failure = serverMessageFailure(message);
      if (failure !== null) throw new Error(`events socket message breaks its schema: ${failure}`);
      this.messages.push(message as EventMessageRecord);
      for (const waiter of [...this.waiters]) {
        if (waiter.check()) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
    this.opened = new Promise((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
  }

  static connect(url: string): EventCollector {
    return new EventCollector(new WebSocket(url));
  }

  until(check: () => boolean, label: string, timeoutMs = 30_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = { check, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`timed out waiting for: ${label}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** pi event types of `runtime_event`s for a session, in order. */
  runtimeEvents(sessionId: string): Array<{ type: string } & Record<string, unknown>> {
    return this.messages.flatMap((message) => {
      if (message.type !== "runtime_event") return [];
      const data = message.data as { activeSessionId: string; event: { type: string } & Record<string, unknown> };
      return data.activeSessionId === sessionId ? [data.event] : [];
    });
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => this.socket.once("close", () => resolve()));
    this.socket.close();
    await closed;
  }
}

/** Listens on a free loopback port; returns the ws:// base of the events socket. */
export async function listenForEvents(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return `ws://127.0.0.1:${address.port}/api/pi/events`;
}

/** The open runtime of session `id` (throws when there is none). */
export function handleOf(app: FastifyInstance, id: string): RuntimeHandle {
  const handle = app.leyline.host.get(id);
  if (!handle) throw new Error(`no runtime ${id}`);
  return handle;
}

/** Resolves once the runtime is idle with `messages` message entries in its file. */
export async function settled(app: FastifyInstance, id: string, messages: number): Promise<void> {
  const rec = recordHost(app.leyline.host);
  const handle = handleOf(app, id);
  const done = (): boolean =>
    !handle.busy() &&
    handle.promptQueue.items.length === 0 &&
    handle.sessionFile !== null &&
    fs.existsSync(handle.sessionFile) &&
    messageTexts(handle.sessionFile).length === messages;
  try {
    await rec.until(done, `${id} settled with ${messages} messages`);
  } finally {
    rec.stop();
  }
}
