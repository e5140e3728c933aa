// @vitest-environment node
// The connection store over real WebSockets: against the real backend app (heartbeat, the list and focus
// changes on one socket, a drop resumed with what was missed, a restart that starts fresh), and against a
// scripted WebSocket server for a seq gap (the real server never skips one). Timers of the reconnect backoff are
// a manual fake clock; everything else is real. No HTTP request reads the list or a detail.
import fs from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { copyFixture, testApp, testDirs, type TestDirs } from "../../../api/app.fixture.ts";
import { reconnectDelay } from "../api/events-machine.ts";
import type { SocketLike } from "../api/events-socket.ts";
import { setApiBase } from "../api/http.ts";
import { useConnectionStore } from "./connection.store.ts";
import { useOpenSessionStore } from "./open-session.store.ts";
import { useRuntimesStore } from "./runtimes.store.ts";
import { useSessionsStore } from "./sessions.store.ts";
import { ManualTimers } from "../api/events-socket.fixture.ts";

const apps: FastifyInstance[] = [];
const servers: WebSocketServer[] = [];
const stores: Array<ReturnType<typeof useConnectionStore>> = [];

afterEach(async () => {
  for (const store of stores.splice(0)) store.stop();
  vi.restoreAllMocks();
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  setApiBase("");
});

async function serve(dirs: TestDirs, port = 0, heartbeatMs?: number): Promise<{ app: FastifyInstance; port: number }> {
  const { app } = await testApp(heartbeatMs !== undefined ? { heartbeatMs } : {}, dirs);
  apps.push(app);
  await app.listen({ port, host: "127.0.0.1" });
  return { app, port: (app.server.address() as AddressInfo).port };
}

function freshStores() {
  setActivePinia(createPinia());
  const connection = useConnectionStore();
  stores.push(connection);
  return { connection, sessions: useSessionsStore(), openSession: useOpenSessionStore(), runtimes: useRuntimesStore() };
}

const urls: string[] = [];
const createSocket = (url: string): SocketLike => {
  urls.push(url);
  return new WebSocket(url) as unknown as SocketLike;
};

const waitFor = <T>(check: () => T, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 10 });

/** A session file as the pi CLI writes it. */
function writeSession(dirs: TestDirs, id: string, text: string): string {
  const file = path.join(dirs.projectSessions, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
  const lines = [
    { type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work/project" },
    {
      type: "message",
      id: `${id.slice(0, 4)}0001`,
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: [{ type: "text", text }], timestamp: 1767225601000 },
    },
  ];
  fs.writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  return file;
}

describe("connection store ↔ WS /api/pi/events", { timeout: 30_000 }, () => {
  it("connects, answers every heartbeat, gets the list and the focused detail on one socket, with no HTTP read", async () => {
    const dirs = testDirs("web-conn");
    const id = "aaaaaaaa-0000-4000-8000-000000000001";
    writeSession(dirs, id, "hello from the CLI");
    const { port } = await serve(dirs, 0, 40);
    setApiBase(`http://127.0.0.1:${port}`);
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const { connection, sessions, openSession } = freshStores();
    urls.length = 0;
    connection.start({ wsBase: `ws://127.0.0.1:${port}`, createSocket });

    await waitFor(() => expect(connection.status).toBe("connected"));
    expect(urls).toEqual([`ws://127.0.0.1:${port}/api/pi/events?sessionId=`]);
    // The server terminates a socket whose ping went unanswered at the next tick (40 ms): several answered
    // heartbeats on one connection prove the pong text is exact.
    await waitFor(() => expect(connection.heartbeats).toBeGreaterThanOrEqual(4));
    expect(connection.attempt).toBe(0);
    expect(connection.epoch).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => expect(sessions.byId(id)?.firstMessage).toBe("hello from the CLI"));
    expect(sessions.indexStatus).toMatchObject({ filesOnDisk: 1, indexed: 1, invalid: 0, ready: true });

    // Opening a session focuses it on the same socket (a focus message), and its detail arrives there.
    await openSession.open(id);
    expect(openSession.status).toBe("ready");
    expect(openSession.entries.map((e) => (e.type === "message" ? e.text : e.type))).toEqual(["hello from the CLI"]);
    openSession.close();
    await openSession.open("no-such-session");
    expect(openSession.status).toBe("missing");
    expect(urls).toHaveLength(1);
    expect(connection.freshStreams).toBe(1);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("after a drop resumes the stream and receives what it missed; a server restart starts a fresh stream", async () => {
    const dirs = testDirs("web-conn");
    copyFixture("v1-before-compaction.jsonl", dirs);
    const first = await serve(dirs);
    setApiBase(`http://127.0.0.1:${first.port}`);
    const { connection, sessions } = freshStores();
    const timers = new ManualTimers();
    urls.length = 0;
    connection.start({ wsBase: `ws://127.0.0.1:${first.port}`, createSocket, timers, random: () => 0.5, silenceMs: 0 });
    await waitFor(() => expect(sessions.status).toBe("ready"));
    expect(sessions.sessions.map((s) => s.path)).toEqual([path.join(dirs.projectSessions, "v1-before-compaction.jsonl")]);
    const firstEpoch = connection.epoch;

    // The server drops the socket (a network blip): the stream waits to be resumed.
    for (const client of first.app.websocketServer.clients) client.terminate();
    await waitFor(() => expect(connection.status).toBe("offline"));
    expect(timers.delays()).toEqual([reconnectDelay(1, 0.5)]);
    // Meanwhile the pi CLI writes a session: the stream keeps the list's delta for the client.
    const id = "bbbbbbbb-0000-4000-8000-000000000002";
    writeSession(dirs, id, "written while away");
    await first.app.leyline.readSide.current()?.index.idle();
    timers.fireAll();
    await waitFor(() => expect(connection.resumes).toBe(1));
    expect(urls.at(-1)).toMatch(/[?&]stream=[0-9a-f-]+&after=\d+$/);
    expect(connection.freshStreams).toBe(1);
    await waitFor(() => expect(sessions.byId(id)?.firstMessage).toBe("written while away"));
    expect(sessions.stale).toBe(false);

    // A restart: the next connection cannot resume (a new epoch) and starts fresh with snapshots.
    await first.app.close();
    apps.splice(apps.indexOf(first.app), 1);
    await waitFor(() => expect(connection.status).toBe("offline"));
    timers.fireAll();
    await waitFor(() => expect(connection.status).toBe("offline"));
    expect(timers.delays()).toEqual([reconnectDelay(2, 0.5)]);
    const second = await serve(dirs, first.port);
    timers.fireAll();
    await waitFor(() => expect(connection.lastFresh).toBe("restart"));
    expect(connection.epoch).not.toBe(firstEpoch);
    expect(connection.attempt).toBe(0);
    await waitFor(() => expect(sessions.stale).toBe(false));
    expect(sessions.byId(id)).toBeDefined();
    expect(second.port).toBe(first.port);
  });

  it("a gap in seq reconnects asking to resume after the last applied seq, and applies the replay once", async () => {
    // Scripted events server: the first connection skips seq 3..4; the second resumes and replays them.
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    servers.push(server);
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    const requested: string[] = [];
    server.on("connection", (socket, request) => {
      requested.push(request.url ?? "");
      const send = (seq: number, type: string, data: unknown) => socket.send(JSON.stringify({ type, data, seq, epoch: "scripted" }));
      if (requested.length === 1) {
        send(0, "hello", { stream: "scripted-stream", resumed: false, latestSeq: 0 });
        send(1, "runtime_roster", { sessionIds: ["x", "y", "z"] });
        send(2, "runtime_removed", { id: "x" });
        send(5, "runtime_removed", { id: "z" });
      } else {
        send(0, "hello", { stream: "scripted-stream", resumed: true, latestSeq: 5 });
        send(3, "runtime_removed", { id: "y" });
        send(4, "runtime_roster", { sessionIds: ["z"] });
        send(5, "runtime_removed", { id: "z" });
      }
    });
    const wsPort = (server.address() as AddressInfo).port;

    const { connection, runtimes } = freshStores();
    const removed = vi.spyOn(runtimes, "remove");
    const timers = new ManualTimers();
    connection.start({ wsBase: `ws://127.0.0.1:${wsPort}`, createSocket, timers, random: () => 0, silenceMs: 0 });
    await waitFor(() => expect(timers.delays()).toEqual([reconnectDelay(1, 0)]));
    timers.fireAll();
    await waitFor(() => expect(connection.resumes).toBe(1));
    await waitFor(() => expect(removed.mock.calls.map(([id]) => id)).toEqual(["x", "y", "z"]));
    expect(requested).toEqual(["/api/pi/events?sessionId=", "/api/pi/events?sessionId=&stream=scripted-stream&after=2"]);
    expect(connection.freshStreams).toBe(1);
    expect(connection.behind).toBe(0);
    expect(connection.status).toBe("connected");
  });
});
