// @vitest-environment node
// The connection store over real WebSockets: against the real backend app (heartbeat, focus, reconnect
// after a stop and a restart), and against a scripted WebSocket server for a seq gap (the real server never
// skips one). Timers of the reconnect backoff are a manual fake clock; everything else is real.
import fs from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { copyFixture, testApp, testDirs, type TestDirs } from "../../../api/app.fixture.ts";
import { reconnectDelay } from "../api/events-machine.ts";
import type { SocketLike, TimerApi } from "../api/events-socket.ts";
import { setApiBase } from "../api/http.ts";
import { useConnectionStore } from "./connection.store.ts";
import { useOpenSessionStore } from "./open-session.store.ts";
import { useSessionsStore } from "./sessions.store.ts";

/** A fake clock for the backoff: timers run only when the test fires them. */
class ManualTimers implements TimerApi {
  private next = 1;
  readonly pending = new Map<number, { callback: () => void; ms: number }>();
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { callback, ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  delays(): number[] {
    return [...this.pending.values()].map((t) => t.ms);
  }
  fireAll(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const timer of due) timer.callback();
  }
}

const apps: FastifyInstance[] = [];
const servers: WebSocketServer[] = [];
const stores: Array<ReturnType<typeof useConnectionStore>> = [];

afterEach(async () => {
  for (const store of stores.splice(0)) store.stop();
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
  return { connection, sessions: useSessionsStore(), openSession: useOpenSessionStore() };
}

const urls: string[] = [];
const createSocket = (url: string): SocketLike => {
  urls.push(url);
  return new WebSocket(url) as unknown as SocketLike;
};

const waitFor = <T>(check: () => T, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 10 });

describe("connection store ↔ WS /api/pi/events", { timeout: 30_000 }, () => {
  it("connects, answers every heartbeat so the server keeps the socket, and follows the open session", async () => {
    const dirs = testDirs("web-conn");
    const { port } = await serve(dirs, 0, 40);
    setApiBase(`http://127.0.0.1:${port}`);
    const { connection, openSession } = freshStores();
    urls.length = 0;
    connection.start({ wsBase: `ws://127.0.0.1:${port}`, createSocket });

    await waitFor(() => expect(connection.status).toBe("connected"));
    expect(urls).toEqual([`ws://127.0.0.1:${port}/api/pi/events?sessionId=`]);
    // The server terminates a socket whose ping went unanswered at the next tick (40 ms): several answered
    // heartbeats on one connection prove the pong text is exact.
    await waitFor(() => expect(connection.heartbeats).toBeGreaterThanOrEqual(4));
    expect(connection.status).toBe("connected");
    expect(connection.attempt).toBe(0);
    expect(urls).toHaveLength(1);
    expect(connection.epoch).toMatch(/^[0-9a-f-]{36}$/);

    // Opening a session reopens the socket focused on it (?sessionId=<id>), without a list resync.
    openSession.$patch({ id: "some-session" });
    await waitFor(() => expect(urls).toHaveLength(2));
    expect(urls[1]).toBe(`ws://127.0.0.1:${port}/api/pi/events?sessionId=some-session`);
    await waitFor(() => expect(connection.lastResync).toBe("focus"));
    expect(connection.status).toBe("connected");
  });

  it("reconnects with growing, jittered backoff while the server is down, then resyncs after the restart", async () => {
    const dirs = testDirs("web-conn");
    copyFixture("v1-before-compaction.jsonl", dirs);
    const first = await serve(dirs);
    setApiBase(`http://127.0.0.1:${first.port}`);
    const { connection, sessions } = freshStores();
    const timers = new ManualTimers();
    connection.start({ wsBase: `ws://127.0.0.1:${first.port}`, createSocket, timers, random: () => 0.5, silenceMs: 0 });
    await waitFor(() => expect(connection.status).toBe("connected"));
    const firstEpoch = connection.epoch;

    await first.app.close();
    apps.splice(apps.indexOf(first.app), 1);
    await waitFor(() => expect(connection.status).toBe("offline"));
    expect(timers.delays()).toEqual([reconnectDelay(1, 0.5)]);
    expect(connection.retryInMs).toBe(375);

    // Nothing happens until the timer fires; a failed attempt doubles the delay.
    timers.fireAll();
    expect(connection.status).toBe("connecting");
    await waitFor(() => expect(connection.status).toBe("offline"));
    expect(timers.delays()).toEqual([reconnectDelay(2, 0.5)]);
    expect(connection.retryInMs).toBe(750);

    const refreshesBefore = sessions.refreshCount;
    const second = await serve(dirs, first.port);
    expect(second.port).toBe(first.port);
    timers.fireAll();
    await waitFor(() => expect(connection.status).toBe("connected"));
    await waitFor(() => expect(connection.lastResync).toBe("restart"));
    expect(connection.epoch).not.toBe(firstEpoch);
    expect(connection.attempt).toBe(0);
    // The resync refetched the list from the restarted server.
    await waitFor(() => expect(sessions.refreshCount).toBeGreaterThan(refreshesBefore));
    expect(sessions.sessions.map((s) => s.path)).toEqual([path.join(dirs.projectSessions, "v1-before-compaction.jsonl")]);
    expect(fs.existsSync(dirs.projectSessions)).toBe(true);
  });

  it("a gap in seq reopens the socket and refetches the list and the open session", async () => {
    const dirs = testDirs("web-conn");
    copyFixture("v1-before-compaction.jsonl", dirs);
    const { port } = await serve(dirs);
    setApiBase(`http://127.0.0.1:${port}`);

    // Scripted events server: the first connection skips seq 3..4, the second one is in order.
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    servers.push(server);
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    let connections = 0;
    server.on("connection", (socket) => {
      connections += 1;
      const send = (seq: number, type = "runtime_roster", data: unknown = { sessionIds: [] }) =>
        socket.send(JSON.stringify({ type, data, seq, epoch: "scripted" }));
      if (connections === 1) {
        send(1);
        send(2, "runtime_removed", { id: "x" });
        send(5, "runtime_removed", { id: "y" });
      } else {
        send(1);
      }
    });
    const wsPort = (server.address() as AddressInfo).port;

    const { connection, sessions, openSession } = freshStores();
    await sessions.refresh();
    const list = sessions.sessions;
    expect(list).toHaveLength(1);
    const sessionId = list[0]?.id ?? "";
    // A session shown in the workbench (its detail is fetched from the real app on resync).
    openSession.$patch({ id: sessionId, status: "ready" });
    const refreshesBefore = sessions.refreshCount;
    const refetchesBefore = openSession.refetchCount;

    connection.start({ wsBase: `ws://127.0.0.1:${wsPort}`, createSocket });
    await waitFor(() => expect(connections).toBe(2));
    await waitFor(() => expect(connection.lastResync).toBe("gap"));
    await waitFor(() => expect(sessions.refreshCount).toBeGreaterThan(refreshesBefore));
    await waitFor(() => expect(openSession.refetchCount).toBeGreaterThan(refetchesBefore));
    expect(openSession.detail?.session.id).toBe(sessionId);
    expect(openSession.detail?.entries.length).toBeGreaterThan(0);
    expect(connection.status).toBe("connected");
  });
});
