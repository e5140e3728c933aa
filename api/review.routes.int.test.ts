/**
 * The Git review routes over HTTP and the review events socket with a real ws client against a listening app, on
 * real repositories (adapters/git-review/git-repo.fixture.ts isolates git from the machine's configuration).
 */
import fastifyWebsocket from "@fastify/websocket";
import Fastify from "fastify";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket, { type RawData } from "ws";
import { binaryBytes, committedRepo, conflictedRepo, git, tempDir, write } from "../adapters/git-review/git-repo.fixture.ts";
import { reviewMessageFailure, type ReviewServerMessage } from "../domain/contract/http-review.ts";
import { unavailableReview } from "../domain/git-review/review-summary.ts";
import { PONG_TEXT } from "../domain/live/live-messages.ts";
import { closeTestApps, testApp } from "./app.fixture.ts";
import { registerContract } from "./contract.ts";
import { CLOSE_UNAVAILABLE, CLOSE_WATCH_ERROR, reviewRoutes, reviewWatchersOf } from "./review.routes.ts";
import { CLOSE_MESSAGE_TOO_BIG } from "./socket-frames.ts";

afterEach(closeTestApps);

/** How long a test waits to be sure that no message follows (several coalescing windows). */
const QUIET_MS = 1000;

const url = (base: string, query: Record<string, string>): string => `${base}?${new URLSearchParams(query).toString()}`;

/** A review socket's messages (checked against the contract) and its close. */
class ReviewSocket {
  readonly texts: string[] = [];
  private readonly waiters: ((text: string) => void)[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly socket: WebSocket) {
    socket.on("message", (data: RawData) => {
      const text = Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8");
      const waiter = this.waiters.shift();
      if (waiter) waiter(text);
      else this.texts.push(text);
    });
    this.opened = new Promise((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    this.closed = new Promise((resolve) =>
      socket.on("close", (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })),
    );
  }

  nextText(): Promise<string> {
    const queued = this.texts.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async next(): Promise<ReviewServerMessage> {
    const message: unknown = JSON.parse(await this.nextText());
    const failure = reviewMessageFailure(message);
    if (failure !== null) throw new Error(`review socket message breaks its schema: ${failure}`);
    return message as ReviewServerMessage;
  }

  /** The next message that is not a heartbeat. */
  async event(): Promise<ReviewServerMessage> {
    for (;;) {
      const message = await this.next();
      if (message.type !== "ping") return message;
    }
  }

  /** Messages (heartbeats aside) that arrive within `ms`. */
  async within(ms: number): Promise<ReviewServerMessage[]> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return this.texts
      .splice(0)
      .map((text) => JSON.parse(text) as ReviewServerMessage)
      .filter((message) => message.type !== "ping");
  }
}

async function listening(options: Parameters<typeof testApp>[0] = {}) {
  const { app } = await testApp(options);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  const ws = `ws://127.0.0.1:${address.port}/api/pi/review/events`;
  const connect = (cwd: string): ReviewSocket => new ReviewSocket(new WebSocket(url(ws, { cwd })));
  return { app, ws, connect };
}

function repoWithCommit(): string {
  return committedRepo({ "tracked.txt": "a\n", ".gitignore": "node_modules/\nbuild/\n*.log\n" });
}

describe("GET /api/pi/review", () => {
  it("answers 400 without cwd, 500 for an invalid folder, and unavailable outside a repository", async () => {
    const { app } = await testApp();
    for (const query of ["", "?cwd="]) {
      const res = await app.inject({ method: "GET", url: `/api/pi/review${query}` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: "cwd is required" });
    }
    const missing = await app.inject({ method: "GET", url: url("/api/pi/review", { cwd: path.join(tempDir(), "missing") }) });
    expect(missing.statusCode).toBe(500);
    expect(missing.json()).toEqual({ error: expect.stringContaining("Not a readable directory") });
    const dir = tempDir();
    const outside = await app.inject({ method: "GET", url: url("/api/pi/review", { cwd: dir }) });
    expect(outside.statusCode).toBe(200);
    expect(outside.json()).toEqual(unavailableReview(dir));
  });

  it("answers the status list (checked against the closed contract) without writing .git/index", async () => {
    const root = conflictedRepo("review-route-status", (base) => write(base, "r.txt", "r\n"));
    git(root, ["mv", "r.txt", "s.txt"]);
    write(root, "new.txt", "1\n2\n");
    write(root, "blob.bin", binaryBytes(9));
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(path.join(root, "s.txt"), later, later);
    const index = path.join(root, ".git", "index");
    const before = { bytes: fs.readFileSync(index), mtime: fs.statSync(index).mtimeMs };
    const { app } = await testApp();
    const res = await app.inject({ method: "GET", url: url("/api/pi/review", { cwd: root }) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ available: true, branch: "main", root, conflicts: 1, additions: 2, deletions: 0, totalFiles: 4 });
    expect(fs.statSync(index).mtimeMs).toBe(before.mtime);
    expect(fs.readFileSync(index).equals(before.bytes)).toBe(true);
  });

  it("answers 500 when git fails", async () => {
    const root = repoWithCommit();
    fs.appendFileSync(path.join(root, ".git", "config"), "[broken\n");
    const { app } = await testApp();
    const res = await app.inject({ method: "GET", url: url("/api/pi/review", { cwd: root }) });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: expect.stringContaining("Git failed") });
  });
});

describe("GET /api/pi/review/diff", () => {
  it("answers 400 without cwd or path, 500 for a stale path, and the sections of a changed file", async () => {
    const root = repoWithCommit();
    write(root, "tracked.txt", "b\n");
    const { app } = await testApp();
    const queries: Record<string, string>[] = [{ cwd: root }, { path: "tracked.txt" }, { cwd: root, path: "" }];
    for (const query of queries) {
      const res = await app.inject({ method: "GET", url: url("/api/pi/review/diff", query) });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.stringMatching(/^(cwd|path) is required$/) });
    }
    const stale = await app.inject({ method: "GET", url: url("/api/pi/review/diff", { cwd: root, path: ".gitignore" }) });
    expect(stale.statusCode).toBe(500);
    expect(stale.json()).toEqual({ error: "Not a changed file of the review: .gitignore" });
    const outside = await app.inject({ method: "GET", url: url("/api/pi/review/diff", { cwd: tempDir(), path: "a" }) });
    expect(outside.statusCode).toBe(500);
    const res = await app.inject({ method: "GET", url: url("/api/pi/review/diff", { cwd: root, path: "tracked.txt" }) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      path: "tracked.txt",
      diffs: [
        {
          binary: false,
          bytes: expect.any(Number),
          lines: 7,
          patch: expect.stringContaining("-a\n+b\n"),
          scope: "working",
          tooLarge: false,
        },
      ],
    });
  });
});

describe("WS /api/pi/review/events", () => {
  it("answers 400 without cwd before the upgrade, and 426 to a plain GET", async () => {
    const { app, ws } = await listening();
    for (const target of [ws, url(ws, { cwd: "" })]) {
      const status = await new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(target);
        socket.on("error", () => undefined);
        socket.on("unexpected-response", (_request, response) => {
          resolve(response.statusCode ?? 0);
          socket.terminate();
        });
        socket.on("open", () => reject(new Error("upgraded")));
      });
      expect(status).toBe(400);
    }
    const plain = await app.inject({ method: "GET", url: url("/api/pi/review/events", { cwd: tempDir() }) });
    expect(plain.statusCode).toBe(426);
    expect(plain.json()).toEqual({ error: "This endpoint requires a WebSocket upgrade" });
  });

  it("reports changes that matter, once per burst, and not .git churn or ignored paths", async () => {
    const root = repoWithCommit();
    fs.mkdirSync(path.join(root, "node_modules", "pkg"), { recursive: true });
    const { app, connect } = await listening();
    const client = connect(root);
    await client.opened;
    expect(await client.event()).toEqual({ type: "review_ready", data: {} });
    const change = { type: "review_change", data: { root } };

    // Ordinary .git activity: a status without optional locks, our own review reads, new objects, FETCH_HEAD,
    // lock files; ignored paths: an ignored folder (old and new) and an ignored file.
    git(root, ["status"], { GIT_OPTIONAL_LOCKS: "0" });
    expect((await app.inject({ method: "GET", url: url("/api/pi/review", { cwd: root }) })).statusCode).toBe(200);
    git(root, ["hash-object", "-w", "tracked.txt"]);
    write(root, ".git/objects/pack/tmp_pack_123", "x");
    write(root, ".git/FETCH_HEAD", "x\n");
    write(root, ".git/index.lock", "x");
    fs.rmSync(path.join(root, ".git/index.lock"));
    write(root, "node_modules/pkg/index.js", "x\n");
    write(root, "build/out/app.js", "x\n");
    write(root, "build/out/more.js", "x\n");
    write(root, "debug.log", "x\n");
    expect(await client.within(QUIET_MS)).toEqual([]);

    // Editing a tracked file, a new untracked file, `git add` (the index), `git commit` (refs and HEAD).
    write(root, "tracked.txt", "b\n");
    expect(await client.event()).toEqual(change);
    write(root, "untracked.txt", "u\n");
    expect(await client.event()).toEqual(change);
    git(root, ["add", "-A"]);
    expect(await client.event()).toEqual(change);
    git(root, ["commit", "-q", "-m", "second"]);
    expect(await client.event()).toEqual(change);
    // A new branch in a new refs folder.
    git(root, ["branch", "feature/x"]);
    expect(await client.event()).toEqual(change);

    // A burst is one event.
    for (let index = 0; index < 20; index++) write(root, `burst/${index}.txt`, `${index}\n`);
    expect(await client.event()).toEqual(change);
    expect(await client.within(QUIET_MS)).toEqual([]);
    client.socket.close();
    await client.closed;
  });

  it("shares one watcher among clients of a repository and closes it after the last one leaves", async () => {
    const root = repoWithCommit();
    fs.mkdirSync(path.join(root, "sub"));
    const { app, connect } = await listening();
    const registry = reviewWatchersOf(app);
    if (registry === undefined) throw new Error("no review watchers");
    const first = connect(root);
    const second = connect(path.join(root, "sub"));
    expect(await first.event()).toMatchObject({ type: "review_ready" });
    expect(await second.event()).toMatchObject({ type: "review_ready" });
    expect(registry.activeWatchers()).toBe(1);
    write(root, "tracked.txt", "c\n");
    expect(await first.event()).toEqual({ type: "review_change", data: { root } });
    expect(await second.event()).toEqual({ type: "review_change", data: { root } });
    first.socket.close();
    await first.closed;
    second.socket.close();
    await second.closed;
    await vi.waitFor(() => expect(registry.activeWatchers()).toBe(0));
  });

  it("sends review_unavailable and closes for a folder outside a repository and for a repository that disappears", async () => {
    const { app, connect } = await listening();
    const outside = connect(tempDir());
    expect(await outside.event()).toEqual({ type: "review_unavailable", data: {} });
    expect((await outside.closed).code).toBe(CLOSE_UNAVAILABLE);

    const root = repoWithCommit();
    const client = connect(root);
    expect(await client.event()).toMatchObject({ type: "review_ready" });
    fs.rmSync(path.join(root, ".git"), { recursive: true, force: true });
    let message = await client.event();
    while (message.type === "review_change") message = await client.event();
    expect(message).toEqual({ type: "review_unavailable", data: {} });
    expect((await client.closed).code).toBe(CLOSE_UNAVAILABLE);
    await vi.waitFor(() => expect(reviewWatchersOf(app)?.activeWatchers()).toBe(0));
  });

  it("sends review_watch_error and closes with 1011 when the watcher cannot be set up", async () => {
    const root = repoWithCommit();
    fs.appendFileSync(path.join(root, ".git", "config"), "[broken\n");
    const { connect } = await listening();
    const client = connect(root);
    expect(await client.event()).toEqual({ type: "review_watch_error", data: { message: expect.stringContaining("bad config") } });
    expect((await client.closed).code).toBe(CLOSE_WATCH_ERROR);
  });

  it("sends review_watch_error with retry: false and closes with 1011 when the repository passes the watch budget", async () => {
    const root = repoWithCommit();
    for (let index = 0; index < 4; index++) fs.mkdirSync(path.join(root, `d${index}`));
    // The app with a watch budget of 3 folders: the review routes alone, on the app's contract.
    const app = Fastify();
    try {
      await app.register(fastifyWebsocket);
      await registerContract(app, { version: "test", checkResponses: true });
      await app.register(reviewRoutes, { watchers: { watchBudget: 3 } });
      await app.listen({ port: 0, host: "127.0.0.1" });
      const address = app.server.address();
      if (typeof address !== "object" || address === null) throw new Error("no address");
      const client = new ReviewSocket(new WebSocket(url(`ws://127.0.0.1:${address.port}/api/pi/review/events`, { cwd: root })));
      expect(await client.event()).toEqual({
        type: "review_watch_error",
        data: { message: "This repository has more than 3 folders to watch; the review updates on Refresh only.", retry: false },
      });
      expect((await client.closed).code).toBe(CLOSE_WATCH_ERROR);
      expect(reviewWatchersOf(app)?.activeWatchers()).toBe(0);
    } finally {
      await app.close();
    }
  });

  it("pings with the exact heartbeat text, keeps a socket that answers, terminates one that does not", async () => {
    const root = repoWithCommit();
    const { connect } = await listening({ heartbeatMs: 150 });
    const client = connect(root);
    await client.opened;
    const seen: string[] = [];
    // Answer two pings: the socket stays open through several heartbeat checks.
    while (seen.filter((text) => text === '{"type":"ping"}').length < 2) {
      const text = await client.nextText();
      seen.push(text);
      if (text === '{"type":"ping"}') client.socket.send(PONG_TEXT);
    }
    expect(seen).toContain('{"type":"review_ready","data":{}}');
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    // Stop answering: the next check terminates the socket (no close frame: 1006).
    expect((await client.closed).code).toBe(1006);
  });

  it("closes with 1009 on a client message over 1 KiB and ignores other messages", async () => {
    const root = repoWithCommit();
    const { connect } = await listening();
    const client = connect(root);
    expect(await client.event()).toMatchObject({ type: "review_ready" });
    client.socket.send('{"type":"pong", "extra": true}');
    client.socket.send("not json");
    write(root, "tracked.txt", "d\n");
    expect(await client.event()).toEqual({ type: "review_change", data: { root } });
    client.socket.send("x".repeat(1025));
    expect((await client.closed).code).toBe(CLOSE_MESSAGE_TOO_BIG);
  });
});
