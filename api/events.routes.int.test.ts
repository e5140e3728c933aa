import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Subject } from "rxjs";
import WebSocket from "ws";
import { closeTestApps, MessageQueue, testApp } from "./app.fixture.ts";
import { CLOSE_SLOW_READER, PONG_TEXT, SLOW_READER_REASON } from "./events.routes.ts";
import { CLOSE_MESSAGE_TOO_BIG } from "./socket-frames.ts";
import { EMPTY_LIVE_STREAM } from "../domain/live/live-stream.ts";
import type { OpenRuntime, RuntimeHostEvent, RuntimeHostView } from "./runtime-host.ts";

afterEach(closeTestApps);

async function listening(options: Parameters<typeof testApp>[0] = {}): Promise<{ base: string; epoch: string }> {
  const { app } = await testApp(options);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return { base: `127.0.0.1:${address.port}`, epoch: app.leyline.epoch };
}

function connect(url: string, headers: Record<string, string> = {}): { socket: WebSocket; queue: MessageQueue; opened: Promise<void> } {
  const socket = new WebSocket(url, { headers });
  const queue = new MessageQueue(socket);
  const opened = new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, queue, opened };
}

function fakeRuntime(id: string): OpenRuntime {
  return {
    sessionId: id,
    sessionFile: null,
    summary: () => ({ id, path: "", cwd: "/w", isSubagentSession: false, research: null, firstMessage: "", messageCount: 0 }),
    // A snapshot's smallest contract shape (domain/contract ActiveSnapshot); `full` says which variant it is.
    snapshot: (full) => ({ id, state: { full } }),
    liveStream: () => EMPTY_LIVE_STREAM,
  };
}

/** Reads `hello` (seq 0, a fresh stream) and returns it. */
async function hello(queue: MessageQueue): Promise<{ stream: string }> {
  const message = await queue.next();
  expect(message).toMatchObject({ type: "hello", seq: 0, data: { resumed: false } });
  return message.data as { stream: string };
}

describe("WS /api/pi/events", () => {
  it("starts with hello (seq 0, with the server epoch), then runtime_roster when nothing runs and the session list, with seq from 1", async () => {
    const { base, epoch } = await listening();
    const { socket, queue, opened } = connect(`ws://${base}/api/pi/events`);
    await opened;
    const first = await queue.next();
    expect(first).toEqual({ type: "hello", data: { stream: expect.any(String), resumed: false, latestSeq: 2 }, seq: 0, epoch });
    expect(await queue.next()).toEqual({ type: "runtime_roster", data: { sessionIds: [] }, seq: 1 });
    expect(await queue.next()).toEqual({
      type: "session_list",
      data: {
        revision: expect.any(Number),
        sessions: [],
        status: expect.objectContaining({ filesOnDisk: 0, indexed: 0, invalid: 0, invalidPaths: [], ready: true }),
      },
      seq: 2,
    });
    socket.close();
    await queue.closed;
  });

  it("sends one active_session per open runtime (full per ?sessionId) then the roster, and forwards host events", async () => {
    const events = new Subject<RuntimeHostEvent>();
    const host: RuntimeHostView = {
      activeWorkers: () => 2,
      openRuntimes: () => [fakeRuntime("s1"), fakeRuntime("s2")],
      events$: events,
    };
    const { base } = await listening({ runtimeHost: host });
    const focused = connect(`ws://${base}/api/pi/events?sessionId=s2`);
    const all = connect(`ws://${base}/api/pi/events`);
    const none = connect(`ws://${base}/api/pi/events?sessionId=`);
    await Promise.all([focused.opened, all.opened, none.opened]);
    const queues = { focused: focused.queue, all: all.queue, none: none.queue };
    for (const queue of Object.values(queues)) await hello(queue);

    const take = async (queue: MessageQueue, n: number): Promise<unknown[]> => {
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) out.push(await queue.next());
      return out;
    };
    expect(await take(queues.focused, 3)).toEqual([
      { type: "active_session", data: { id: "s1", state: { full: false } }, seq: 1 },
      { type: "active_session", data: { id: "s2", state: { full: true } }, seq: 2 },
      { type: "runtime_roster", data: { sessionIds: ["s1", "s2"] }, seq: 3 },
    ]);
    expect((await take(queues.all, 3)).map((m) => (m as { data: unknown }).data)).toEqual([
      { id: "s1", state: { full: true } },
      { id: "s2", state: { full: true } },
      { sessionIds: ["s1", "s2"] },
    ]);
    expect((await take(queues.none, 2)).map((m) => (m as { data: unknown }).data)).toEqual([
      { id: "s1", state: { full: false } },
      { id: "s2", state: { full: false } },
    ]);
    await take(queues.none, 1);
    for (const queue of Object.values(queues)) expect((await queue.next()).type).toBe("session_list");
    // The focused runtime has no file yet: its detail says so.
    expect((await queues.focused.next()).data).toEqual({
      sessionId: "s2",
      reason: "unsaved",
      message: "The session has not been written yet",
    });

    // A compact socket gets what the host's filter leaves (null: nothing).
    events.next({
      type: "runtime_event",
      sessionId: "s2",
      data: (full) => (full ? { activeSessionId: "s2", event: { type: "message_update" } } : null),
    });
    events.next({ type: "runtime_removed", sessionId: "s1", data: () => ({ id: "s1" }) });
    expect(await take(queues.focused, 2)).toEqual([
      { type: "runtime_event", data: { activeSessionId: "s2", event: { type: "message_update" } }, seq: 6 },
      { type: "runtime_removed", data: { id: "s1" }, seq: 7 },
    ]);
    expect(await take(queues.none, 1)).toEqual([{ type: "runtime_removed", data: { id: "s1" }, seq: 5 }]);
    for (const c of [focused, all, none]) c.socket.close();
    await Promise.all([focused.queue.closed, all.queue.closed, none.queue.closed]);
  });

  it("serializes a live message once per variant for every socket; each socket gets the envelope's exact JSON text", async () => {
    const events = new Subject<RuntimeHostEvent>();
    const host: RuntimeHostView = { activeWorkers: () => 1, openRuntimes: () => [], events$: events };
    const { base } = await listening({ runtimeHost: host });
    const urls = ["", "", "?sessionId=s1", "?sessionId=", "?sessionId=other"].map((query) => `ws://${base}/api/pi/events${query}`);
    const clients = urls.map((url) => connect(url));
    await Promise.all(clients.map((c) => c.opened));
    for (const [i, c] of clients.entries()) {
      await hello(c.queue);
      expect((await c.queue.next()).type).toBe("runtime_roster");
      expect((await c.queue.next()).type).toBe("session_list");
      // Focused on a session that does not exist: the detail says so.
      if (urls[i]?.includes("sessionId=s") || urls[i]?.includes("sessionId=o"))
        expect((await c.queue.next()).type).toBe("session_unavailable");
    }

    // Non-ASCII text and a line separator: the bytes a socket gets must still be JSON.stringify's.
    const full = { activeSessionId: "s1", event: { type: "message_update", text: "é✓\u2028".repeat(2000) } };
    const compact = { activeSessionId: "s1", event: { type: "message_update" } };
    const variants: boolean[] = [];
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      events.next({ type: "runtime_event", sessionId: "s1", data: (isFull) => (variants.push(isFull), isFull ? full : compact) });
      const texts = await Promise.all(clients.map((c) => c.queue.nextText()));
      const encodings = stringify.mock.calls.filter(([value]) => {
        const data = typeof value === "object" && value !== null ? (value as { data?: unknown }).data : undefined;
        return data === full || data === compact;
      });
      expect(encodings).toHaveLength(2);
      expect(variants.sort()).toEqual([false, true]);
      stringify.mockRestore();
      const expected = (data: unknown, seq: number): string => JSON.stringify({ type: "runtime_event", data, seq });
      expect(texts).toEqual([expected(full, 3), expected(full, 3), expected(full, 4), expected(compact, 3), expected(compact, 4)]);
    } finally {
      stringify.mockRestore();
    }
    for (const c of clients) c.socket.close();
    await Promise.all(clients.map((c) => c.queue.closed));
  });

  it("closes a socket whose unsent live messages pass the limit with 1013, queues nothing more for it, and keeps serving others", async () => {
    const limit = 256 * 1024;
    const events = new Subject<RuntimeHostEvent>();
    const host: RuntimeHostView = { activeWorkers: () => 1, openRuntimes: () => [], events$: events };
    const { base } = await listening({ runtimeHost: host, eventsBufferLimitBytes: limit });
    const live = connect(`ws://${base}/api/pi/events`);
    // The stalled socket is the only compact one, so `data(false)` runs exactly while the server still
    // serves it: once it is cut, nothing is encoded for it any more.
    const stalled = connect(`ws://${base}/api/pi/events?sessionId=`);
    await Promise.all([live.opened, stalled.opened]);
    for (const queue of [live.queue, stalled.queue]) {
      await hello(queue);
      expect((await queue.next()).type).toBe("runtime_roster");
      expect((await queue.next()).type).toBe("session_list");
    }
    const stalledSeqs: number[] = [];
    stalled.socket.on("message", (data: Buffer) => stalledSeqs.push((JSON.parse(data.toString("utf8")) as { seq: number }).seq));
    stalled.socket.pause();

    // Incompressible (the socket may deflate what it sends): 64 KiB of random base64.
    const big = randomBytes(48 * 1024).toString("base64");
    let compactEncodings = 0;
    let sent = 0;
    let idleRounds = 0;
    // The live reader reads every message before the next is published (the kernel's socket buffers fill
    // first, so how many messages the cut takes depends on the machine; the loop waits for it).
    while (sent < 1000 && idleRounds < 3) {
      const before = compactEncodings;
      const n = ++sent;
      events.next({
        type: "runtime_event",
        sessionId: "s1",
        data: (full) => (full || compactEncodings++, { activeSessionId: "s1", event: { type: "message_update", n, big } }),
      });
      expect((await live.queue.next()).seq).toBe(n + 2);
      idleRounds = compactEncodings === before ? idleRounds + 1 : 0;
    }
    expect(idleRounds, `the stalled socket was still served after ${sent} messages of 64 KiB`).toBe(3);

    // Once it reads again it gets what was queued before the cut, in order, then the close frame.
    stalled.socket.resume();
    expect(await stalled.queue.closed).toEqual({ code: CLOSE_SLOW_READER, reason: SLOW_READER_REASON });
    expect(stalledSeqs).toEqual(stalledSeqs.map((_, i) => i + 3));
    expect(stalledSeqs.length).toBeLessThan(sent - 2);

    events.next({ type: "runtime_event", sessionId: "s1", data: () => ({ activeSessionId: "s1", event: { type: "after" } }) });
    expect(await live.queue.next()).toMatchObject({ seq: sent + 3, data: { event: { type: "after" } } });
    expect(live.socket.readyState).toBe(WebSocket.OPEN);
    live.socket.close();
    await live.queue.closed;
  });

  it("pings on the heartbeat, keeps a socket that answers the literal pong, terminates one that does not", async () => {
    const { base } = await listening({ heartbeatMs: 500 });
    const good = connect(`ws://${base}/api/pi/events`);
    const bad = connect(`ws://${base}/api/pi/events`);
    const silent = connect(`ws://${base}/api/pi/events`);
    await Promise.all([good.opened, bad.opened, silent.opened]);
    for (const q of [good.queue, bad.queue, silent.queue]) {
      await hello(q);
      expect((await q.next()).type).toBe("runtime_roster");
      expect((await q.next()).type).toBe("session_list");
    }

    for (let i = 0; i < 3; i++) {
      const ping = await good.queue.next();
      expect(ping).toEqual({ type: "ping", seq: i + 3 });
      good.socket.send(PONG_TEXT);
    }
    expect(good.socket.readyState).toBe(WebSocket.OPEN);

    expect((await bad.queue.next()).type).toBe("ping");
    bad.socket.send('{"type": "pong"}'); // not the literal text
    expect((await bad.queue.closed).code).toBe(1006);

    expect((await silent.queue.next()).type).toBe("ping");
    expect((await silent.queue.closed).code).toBe(1006);
    good.socket.close();
    await good.queue.closed;
  });

  it("closes with 1009 on a client message over 1 KiB and accepts one of exactly 1 KiB", async () => {
    const { base } = await listening();
    const ok = connect(`ws://${base}/api/pi/events`);
    const big = connect(`ws://${base}/api/pi/events`);
    await Promise.all([ok.opened, big.opened]);
    ok.socket.send("x".repeat(1024));
    big.socket.send("x".repeat(1025));
    expect((await big.queue.closed).code).toBe(CLOSE_MESSAGE_TOO_BIG);
    // The 1 KiB socket is still served: its roster arrived and it closes normally.
    await hello(ok.queue);
    expect((await ok.queue.next()).type).toBe("runtime_roster");
    ok.socket.close(1000);
    expect((await ok.queue.closed).code).toBe(1000);
  });

  it("answers a plain GET with 426 and the envelope", async () => {
    const { app } = await testApp();
    const res = await app.inject({ method: "GET", url: "/api/pi/events" });
    expect(res.statusCode).toBe(426);
    expect(res.json()).toEqual({ error: expect.any(String) });
  });

  it("applies the origin policy to upgrades: loopback and allowed origins connect, others get 403", async () => {
    const { base } = await listening({ allowedOrigins: ["https://app.example.com"] });
    for (const origin of ["http://localhost:5173", "http://[::1]:8080", "https://app.example.com", `http://${base}`]) {
      const c = connect(`ws://${base}/api/pi/events`, { origin });
      await c.opened;
      expect((await c.queue.next()).type, origin).toBe("hello");
      expect((await c.queue.next()).type, origin).toBe("runtime_roster");
      c.socket.close();
      await c.queue.closed;
    }
    const denied = new WebSocket(`ws://${base}/api/pi/events`, { headers: { origin: "https://evil.example" } });
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      denied.on("unexpected-response", (req, res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      denied.on("open", () => reject(new Error("upgrade should be refused")));
      denied.on("error", () => undefined);
    });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({ error: "Origin not allowed" });
    const after = connect(`ws://${base}/api/pi/events`);
    await after.opened;
    after.socket.close();
    await after.queue.closed;
  });
});
