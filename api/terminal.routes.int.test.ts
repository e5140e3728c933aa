/**
 * WS /api/pi/terminal over a real socket (the app listening on 127.0.0.1) with a real PTY and real bash: the
 * session's folder, input and output, resize (and its defaults), malformed messages, exit, closing kills every
 * process (by pid), the error cases (no active session, unknown session, a missing or non-folder cwd, editor
 * setup), 426 on a plain GET, a foreign Origin refused, 1009 on a large message, backpressure under `yes`, the
 * protocol-level heartbeat, the active runtime (without changing the selection), and editor terminals through an
 * injected setup that returns a real program.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fastifyWebsocket from "@fastify/websocket";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { type RawData } from "ws";
import { headerLine, userLine } from "../adapters/session-files/session-lines.fixture.ts";
import { findSessionCwd } from "../adapters/session-resolution/session-cwd.ts";
import { isGone, printedPid, waitUntil } from "../adapters/terminal/terminal.fixture.ts";
import type { EditorTerminalPlan, EditorTerminalRequest } from "../adapters/terminal/terminal-types.ts";
import { terminalServerMessageFailure, type TerminalServerMessage } from "../domain/contract/terminal-socket.ts";
import { closeTestApps, testApp, testDirs, type TestDirs } from "./app.fixture.ts";
import { registerContract } from "./contract.ts";
import { call, runtimeApiSuite } from "./runtime-api.fixture.ts";
import { OUTPUT_HIGH_WATER_BYTES, terminalRoutes, type TerminalRoutesOptions } from "./terminal.routes.ts";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** A real folder for a session's cwd (realpath: what `pwd` prints). */
function projectDir(name = "project"): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "leyline-term-")));
  roots.push(root);
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  return dir;
}

/** A persisted pi session in `dirs` whose header cwd is `cwd`. */
function writeSession(dirs: TestDirs, id: string, cwd: string): void {
  fs.writeFileSync(path.join(dirs.projectSessions, `${id}.jsonl`), headerLine(id, cwd) + userLine("hello", null));
}

/** The environment terminals get in these tests: no rc files, a plain prompt. */
function shellEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home, SHELL: "/bin/bash", PS1: "$ " };
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `127.0.0.1:${address.port}`;
}

/** A terminal client: every server message checked against the contract, waits on conditions (no sleeps). */
class TerminalClient {
  /** Every message but `data` (output is kept in `text`: `yes` sends many megabytes). */
  readonly messages: TerminalServerMessage[] = [];
  private text = "";
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  dataMessages = 0;

  constructor(
    readonly socket: WebSocket,
    private readonly failures: string[],
  ) {
    this.opened = new Promise((resolve) => socket.once("open", () => resolve()));
    socket.on("error", () => undefined); // a refused or aborted handshake: the tests look at the close
    socket.on("message", (data: RawData) => {
      const message: unknown = JSON.parse(data.toString());
      const failure = terminalServerMessageFailure(message);
      if (failure !== null) failures.push(`${failure}: ${JSON.stringify(message).slice(0, 200)}`);
      const typed = message as TerminalServerMessage;
      if (typed.type === "data") {
        this.text += typed.data.replace(/\r/g, "");
        this.dataMessages++;
      } else this.messages.push(typed);
    });
    this.closed = new Promise((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static connect(url: string, failures: string[], options: WebSocket.ClientOptions = {}): TerminalClient {
    return new TerminalClient(new WebSocket(url, options), failures);
  }

  /** All output so far, carriage returns removed. */
  output(): string {
    return this.text;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  input(data: string): void {
    this.send({ type: "input", data });
  }

  async until(check: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
    const state = (): string => `${what}; messages: ${JSON.stringify(this.messages)}; output ends ${JSON.stringify(this.text.slice(-300))}`;
    await waitUntil(check, state, timeoutMs, 10);
  }

  async outputUntil(text: string, timeoutMs?: number): Promise<string> {
    let from = 0;
    const seen = (): boolean => {
      const found = this.text.includes(text, from);
      from = Math.max(0, this.text.length - text.length);
      return found;
    };
    await waitUntil(
      seen,
      () => `output ${JSON.stringify(text)}; output so far ends ${JSON.stringify(this.text.slice(-300))}`,
      timeoutMs,
      10,
    );
    return this.text;
  }

  /** The first message (a data message can never come first: `ready` precedes output). */
  async first(): Promise<TerminalServerMessage> {
    await this.until(() => this.messages.length > 0 || this.dataMessages > 0, "a first message");
    expect(this.messages.length, "a message before any data").toBeGreaterThan(0);
    return this.messages[0] as TerminalServerMessage;
  }

  close(): void {
    this.socket.close();
  }
}

describe("WS /api/pi/terminal (the app)", () => {
  let dirs: TestDirs;
  let host: string;
  let app: FastifyInstance;
  let cwd: string;
  const failures: string[] = [];
  const clients: TerminalClient[] = [];
  const SESSION = "0f0e0d0c-aaaa-4bbb-8ccc-000000000001";
  const GONE_CWD = "0f0e0d0c-aaaa-4bbb-8ccc-000000000002";
  const FILE_CWD = "0f0e0d0c-aaaa-4bbb-8ccc-000000000003";

  const connect = (query: string, options: WebSocket.ClientOptions = {}): TerminalClient => {
    const client = TerminalClient.connect(`ws://${host}/api/pi/terminal${query}`, failures, options);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    dirs = testDirs("terminal");
    roots.push(dirs.root);
    cwd = projectDir();
    writeSession(dirs, SESSION, cwd);
    const gone = projectDir("gone");
    writeSession(dirs, GONE_CWD, gone);
    fs.rmSync(gone, { recursive: true });
    const file = path.join(projectDir("parent"), "a-file");
    fs.writeFileSync(file, "x");
    writeSession(dirs, FILE_CWD, file);
    ({ app } = await testApp({ env: shellEnv(dirs.home) }, dirs));
    host = await listen(app);
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    expect(failures.splice(0)).toEqual([]);
  });
  afterAll(closeTestApps);

  it("starts a shell in the session's folder: ready first, then output of the commands typed", async () => {
    const client = connect(`?sessionId=${SESSION}`);
    expect(await client.first()).toEqual({ type: "ready", cwd, shell: "/bin/bash", pty: true });
    client.input("pwd; echo sum-$((6*7))\r");
    const text = await client.outputUntil("sum-42\n");
    expect(text).toContain(`${cwd}\n`);
    // The session list was not touched: no runtime opened, nothing selected.
    expect(app.leyline.host.openRuntimes()).toHaveLength(0);
    expect(app.leyline.host.activeSessionId).toBeNull();
  });

  it("starts at 100 x 24; resize applies, and its missing values are 100 x 24", async () => {
    const client = connect(`?sessionId=${SESSION}`);
    await client.first();
    client.input("stty size\r");
    await client.outputUntil("24 100\n");
    client.send({ type: "resize", cols: 120, rows: 32 });
    client.input("stty size\r");
    await client.outputUntil("32 120\n");
    client.send({ type: "resize" });
    client.input("stty size\r");
    await client.until(() => client.output().split("24 100\n").length === 3, "the default size again");
  });

  it("ignores malformed JSON, unknown types, bad shapes and binary frames", async () => {
    const client = connect(`?sessionId=${SESSION}`);
    await client.first();
    client.send("not json");
    client.send('{"type":"gossip"}');
    client.send('{"type":"input","data":5}');
    client.send("[]");
    client.socket.send(Buffer.from('{"type":"input","data":"echo binary\\r"}'), { binary: true });
    client.input("echo still-$((1+1))\r");
    const text = await client.outputUntil("still-2\n");
    expect(text).not.toContain("binary\n");
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
  });

  it("applies input and resize sent before the terminal started", async () => {
    const client = connect(`?sessionId=${SESSION}`);
    await client.opened;
    client.send({ type: "resize", cols: 77, rows: 19 });
    client.input("stty size; echo early-$((2*2))\r");
    await client.outputUntil("early-4\n");
    expect(client.output()).toContain("19 77\n");
  });

  it("sends exit with the code, then closes", async () => {
    const client = connect(`?sessionId=${SESSION}`);
    await client.first();
    client.input("exit 7\r");
    expect(await client.closed).toMatchObject({ code: 1000 });
    expect(client.messages).toEqual([expect.objectContaining({ type: "ready" }), { type: "exit", exitCode: 7 }]);
  });

  it("closing the socket kills the shell and everything it started (checked by pid)", async () => {
    const client = connect(`?sessionId=${SESSION}`);
    await client.first();
    client.input("echo SH=$$; sleep 1000 & echo BG=$!\r");
    client.input("sh -c 'echo FG=$$; exec sleep 1001'\r");
    await client.until(() => printedPid(client.output(), "FG") !== null, "the pids");
    const text = client.output();
    const pids = ["SH", "BG", "FG"].map((name) => printedPid(text, name) ?? 0);
    expect(pids.every((pid) => pid > 0 && !isGone(pid))).toBe(true);
    client.close();
    await waitUntil(() => pids.every(isGone), `${pids.join(", ")} gone`, 8000);
  });

  it("an unscoped request with no active runtime: No active session, then close", async () => {
    const client = connect("");
    expect(await client.first()).toEqual({ type: "error", message: "No active session" });
    expect((await client.closed).code).toBe(1000);
    expect(client.messages).toHaveLength(1);
  });

  it("an unknown session: Session not found, then close", async () => {
    const client = connect("?sessionId=no-such-session");
    expect(await client.first()).toEqual({ type: "error", message: "Session not found" });
    await client.closed;
    expect(client.messages).toHaveLength(1);
  });

  it("a session whose folder is gone, or is a file: an error, then close", async () => {
    const gone = connect(`?sessionId=${GONE_CWD}`);
    expect(await gone.first()).toMatchObject({ type: "error", message: expect.stringMatching(/^Working directory not found: \//) });
    await gone.closed;
    const file = connect(`?sessionId=${FILE_CWD}`);
    expect(await file.first()).toMatchObject({ type: "error", message: expect.stringMatching(/^Working directory is not a folder: \//) });
    await file.closed;
  });

  it("an editor request without a configured editor setup fails with a message", async () => {
    const client = connect(`?sessionId=${SESSION}&editorPath=${encodeURIComponent(path.join(cwd, "a.txt"))}`);
    const first = await client.first();
    expect(first.type).toBe("error");
    await client.closed;
  });

  it("a plain GET answers 426 with the error envelope", async () => {
    const res = await app.inject({ method: "GET", url: "/api/pi/terminal" });
    expect(res.statusCode).toBe(426);
    expect(res.json()).toEqual({ error: "This endpoint requires a WebSocket upgrade" });
  });

  it("refuses an upgrade from a foreign Origin (403, no socket)", async () => {
    const client = connect(`?sessionId=${SESSION}`, { origin: "https://evil.example" });
    const status = await new Promise<number>((resolve) => {
      client.socket.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
      client.socket.on("error", () => undefined);
    });
    expect(status).toBe(403);
    expect(client.messages).toEqual([]);
  });

  it("closes with 1009 on a message over 64 KiB; a large paste under it is typed", async () => {
    const client = connect(`?sessionId=${SESSION}`);
    await client.first();
    const paste = "z".repeat(3000);
    client.input(`echo ${paste} | wc -c\r`);
    await client.outputUntil("3001\n");
    client.input("x".repeat(65 * 1024));
    expect((await client.closed).code).toBe(1009);
  });

  it("bounds what waits for a client that does not read: the PTY pauses under `yes`, the server stays responsive", async () => {
    // No permessage-deflate: `yes` compresses a thousandfold, raw bytes fill the socket's buffers quickly.
    const client = connect(`?sessionId=${SESSION}`, { perMessageDeflate: false });
    await client.first();
    client.input("yes\r");
    await client.outputUntil("y\ny\ny\n");
    // Stop reading: the client's TCP socket (ws keeps it private) no longer reads, the kernel's buffers fill.
    const raw = (client.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    const serverSocket = [...app.websocketServer.clients].find((socket) => socket.readyState === WebSocket.OPEN);
    expect(serverSocket).toBeDefined();
    const buffered = (): number => serverSocket?.bufferedAmount ?? 0;
    // Unsent output grows to the high water mark (the kernel's socket buffers are full) ...
    await waitUntil(
      () => buffered() > OUTPUT_HIGH_WATER_BYTES,
      () => `the high water mark (at ${buffered()})`,
      20_000,
      5,
    );
    // ... and no further: the PTY is paused, `yes` blocks.
    const rssBefore = process.memoryUsage().rss;
    let maxBuffered = 0;
    for (const deadline = Date.now() + 1500; Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      maxBuffered = Math.max(maxBuffered, buffered());
    }
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    const started = Date.now();
    const health = await fetch(`http://${host}/api/health`);
    const healthMs = Date.now() - started;
    expect(health.status).toBe(200);
    expect(healthMs).toBeLessThan(1000);
    // One batch (<= 64 Ki characters, JSON-encoded) may land past the high water mark.
    expect(maxBuffered).toBeLessThan(OUTPUT_HIGH_WATER_BYTES + 256 * 1024);
    expect(rssGrowth).toBeLessThan(32 * 1024 * 1024);
    raw.resume();
    client.input("\x03");
    client.input("echo after-$((5*5))\r");
    await client.outputUntil("after-25\n", 30_000);
  });
});

describe("WS /api/pi/terminal: editor terminals, heartbeat", () => {
  let dirs: TestDirs;
  let host: string;
  let cwd: string;
  let file: string;
  const failures: string[] = [];
  const clients: TerminalClient[] = [];
  const requests: EditorTerminalRequest[] = [];
  const SESSION = "0f0e0d0c-aaaa-4bbb-8ccc-000000000011";
  let withoutEditor: string;

  const connect = (where: string, query: string, options: WebSocket.ClientOptions = {}): TerminalClient => {
    const client = TerminalClient.connect(`ws://${where}/api/pi/terminal${query}`, failures, options);
    clients.push(client);
    return client;
  };

  /** A route app over the services of `app`, with its own options. */
  async function routeApp(app: FastifyInstance, options: Partial<TerminalRoutesOptions>): Promise<string> {
    const routes = Fastify();
    await routes.register(fastifyWebsocket);
    await registerContract(routes, { version: "test", checkResponses: true });
    await routes.register(terminalRoutes, {
      readSide: app.leyline.readSide,
      host: app.leyline.host,
      env: shellEnv(dirs.home),
      killGraceMs: 300,
      ...options,
    });
    app.addHook("onClose", async () => routes.close());
    return listen(routes);
  }

  beforeAll(async () => {
    dirs = testDirs("terminal-editor");
    roots.push(dirs.root);
    cwd = projectDir();
    file = path.join(cwd, "notes.txt");
    fs.writeFileSync(file, "first line\nsecond line\n");
    writeSession(dirs, SESSION, cwd);
    const { app } = await testApp({ env: shellEnv(dirs.home) }, dirs);
    // A small real setup: the file must still resolve to editorPath; `cat` (found on PATH) is the "editor".
    const editorTerminal = async (request: EditorTerminalRequest): Promise<EditorTerminalPlan> => {
      requests.push(request);
      const sessionCwd = await findSessionCwd(app.leyline, request.sessionId);
      if (sessionCwd === null) return { ok: false, error: "Session not found" };
      if (!fs.existsSync(request.editorPath) || fs.realpathSync(request.editorPath) !== request.editorPath) {
        return { ok: false, error: "File not found" };
      }
      if (request.editorPath.endsWith(".missing-editor")) {
        return {
          ok: true,
          file: "no-such-editor-xyz",
          args: [],
          cwd: sessionCwd,
          shell: "no-such-editor-xyz",
          editorPath: request.editorPath,
        };
      }
      return { ok: true, file: "cat", args: [request.editorPath], cwd: sessionCwd, shell: "cat", editorPath: request.editorPath };
    };
    host = await routeApp(app, { editorTerminal, heartbeatMs: 150 });
    withoutEditor = await routeApp(app, {});
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    expect(failures.splice(0)).toEqual([]);
  });
  afterAll(closeTestApps);

  it("runs the plan's program on a PTY in the plan's folder: ready names the editor and the file", async () => {
    const client = connect(host, `?sessionId=${SESSION}&editorPath=${encodeURIComponent(file)}&editorLine=2&allowOutsideProject=true`);
    expect(await client.first()).toEqual({ type: "ready", cwd, shell: "cat", editorPath: file, pty: true });
    expect(requests.at(-1)).toEqual({ sessionId: SESSION, editorPath: file, editorLine: 2, allowOutsideProject: true });
    await client.closed;
    expect(client.output()).toBe("first line\nsecond line\n");
    expect(client.messages.at(-1)).toEqual({ type: "exit", exitCode: 0 });
  });

  it("sends the plan's refusal, a bad query, or a missing editor as an error, then closes", async () => {
    const cases: [string, string][] = [
      [`?sessionId=${SESSION}&editorPath=${encodeURIComponent(path.join(cwd, "nope.txt"))}`, "File not found"],
      [`?editorPath=${encodeURIComponent(file)}`, "An editor terminal needs a session"],
      [`?sessionId=${SESSION}&editorPath=${encodeURIComponent(file)}&editorLine=0`, "editorLine must be a positive integer"],
      [`?sessionId=${SESSION}&editorPath=notes.txt`, "editorPath must be an absolute path"],
    ];
    const missing = path.join(cwd, "a.missing-editor");
    fs.writeFileSync(missing, "");
    cases.push([`?sessionId=${SESSION}&editorPath=${encodeURIComponent(missing)}`, "Editor not found: no-such-editor-xyz"]);
    for (const [query, message] of cases) {
      const client = connect(host, query);
      expect(await client.first(), query).toEqual({ type: "error", message });
      expect((await client.closed).code).toBe(1000);
    }
    expect(requests.map((request) => request.allowOutsideProject)).not.toContain(undefined);
  });

  it("without an editor setup, an editor request is an error", async () => {
    const client = connect(withoutEditor, `?sessionId=${SESSION}&editorPath=${encodeURIComponent(file)}`);
    expect(await client.first()).toEqual({ type: "error", message: "Editor terminals are not available" });
  });

  it("pings with protocol frames (no ping message): a client that answers stays, one that does not is cut and its shell ends", async () => {
    const answering = connect(host, `?sessionId=${SESSION}`);
    const silent = connect(host, `?sessionId=${SESSION}`, { autoPong: false });
    let pings = 0;
    silent.socket.on("ping", () => pings++);
    await answering.first();
    await silent.first();
    silent.input("echo SH=$$\r");
    await silent.until(() => printedPid(silent.output(), "SH") !== null, "the shell's pid");
    const shell = printedPid(silent.output(), "SH") ?? 0;
    await silent.closed;
    expect(pings).toBeGreaterThanOrEqual(1);
    await waitUntil(() => isGone(shell), `shell ${shell} gone`);
    answering.input("echo alive-$((3*3))\r");
    await answering.outputUntil("alive-9\n");
    expect(answering.socket.readyState).toBe(WebSocket.OPEN);
    expect(answering.messages.some((m) => (m as { type: string }).type === "ping")).toBe(false);
  });
});

describe("WS /api/pi/terminal: the active runtime", () => {
  const suite = runtimeApiSuite("leyline-term-rt-");
  const failures: string[] = [];
  beforeAll(suite.setUp);
  afterEach(suite.closeApps);
  afterAll(suite.tearDown);

  it("without sessionId uses the active runtime's folder; with one, that runtime's, leaving the selection as it is", async () => {
    const app = await suite.makeApp({ app: { env: { ...shellEnv(suite.dirs.home), PI_OFFLINE: "1" } } });
    const first = path.join(suite.dirs.root, "first");
    const second = path.join(suite.dirs.root, "second");
    const a = await call(app, "POST", "/api/pi/sessions", { cwd: first });
    const b = await call(app, "POST", "/api/pi/sessions", { cwd: second });
    expect([a.status, b.status]).toEqual([200, 200]);
    const firstId = (a.body["active"] as { id: string }).id;
    const secondId = (b.body["active"] as { id: string }).id;
    expect(app.leyline.host.activeSessionId).toBe(secondId);
    const host = await listen(app);

    const unscoped = TerminalClient.connect(`ws://${host}/api/pi/terminal`, failures);
    expect(await unscoped.first()).toEqual({ type: "ready", cwd: second, shell: "/bin/bash", pty: true });
    const scoped = TerminalClient.connect(`ws://${host}/api/pi/terminal?sessionId=${firstId}`, failures);
    expect(await scoped.first()).toEqual({ type: "ready", cwd: first, shell: "/bin/bash", pty: true });
    scoped.input("pwd\r");
    await scoped.outputUntil(`${first}\n`);
    expect(app.leyline.host.activeSessionId).toBe(secondId);
    unscoped.close();
    scoped.close();
    expect(failures).toEqual([]);
  });
});
