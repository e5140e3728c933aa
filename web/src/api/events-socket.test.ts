import { describe, expect, it } from "vitest";
import type { EventEnvelope, FreshReason } from "./events-machine.ts";
import { EventsSocket, eventsUrl, onTraceSignals } from "./events-socket.ts";
import { fakeSockets, ManualTimers } from "./events-socket.fixture.ts";
import type { TraceSignal } from "./traces.ts";

const EPOCH = "e1";
const hello = (stream: string, resumed: boolean, latestSeq = 0) => ({
  type: "hello",
  data: { stream, resumed, latestSeq },
  seq: 0,
  epoch: EPOCH,
});
const numbered = (seq: number, type = "runtime_roster", data: unknown = { sessionIds: [] }) => ({ type, data, seq, epoch: EPOCH });

function setUp(silenceMs = 0) {
  const { sockets, createSocket, last } = fakeSockets();
  const timers = new ManualTimers();
  const messages: EventEnvelope[] = [];
  const fresh: FreshReason[] = [];
  const resumed: Array<{ after: number; latestSeq: number }> = [];
  const behind: number[] = [];
  const client = new EventsSocket({
    wsBase: "ws://leyline.test",
    createSocket,
    timers,
    random: () => 0.5,
    silenceMs,
    onMessage: (message) => messages.push(message),
    onFreshStream: (info) => fresh.push(info.reason),
    onResumed: (info) => resumed.push({ after: info.after, latestSeq: info.latestSeq }),
    onStatus: (_status, state) => behind.push(Math.max(0, state.latestSeq - state.applied)),
  });
  return { client, sockets, timers, messages, fresh, resumed, behind, last };
}

describe("events socket URLs", () => {
  it("carries the focus, and the stream and last applied seq to resume", () => {
    expect(eventsUrl("ws://h:1/", "")).toBe("ws://h:1/api/pi/events?sessionId=");
    expect(eventsUrl("ws://h:1", "a b")).toBe("ws://h:1/api/pi/events?sessionId=a+b");
    expect(eventsUrl("ws://h:1", "s", { stream: "st-1", after: 42 })).toBe("ws://h:1/api/pi/events?sessionId=s&stream=st-1&after=42");
  });
});

describe("EventsSocket", () => {
  it("delivers numbered messages after the hello, and resumes a dropped stream after the last applied seq", () => {
    const { client, timers, messages, fresh, resumed, last, sockets } = setUp();
    client.start("a");
    expect(last().url).toBe("ws://leyline.test/api/pi/events?sessionId=a");
    last().open();
    last().receive(hello("st", false));
    last().receive(numbered(1));
    last().receive(numbered(2, "runtime_removed", { id: "x" }));
    expect(fresh).toEqual(["start"]);
    expect(messages.map((m) => m.seq)).toEqual([1, 2]);

    last().drop();
    expect(client.status).toBe("offline");
    timers.fire(375);
    expect(sockets).toHaveLength(2);
    expect(last().url).toBe("ws://leyline.test/api/pi/events?sessionId=a&stream=st&after=2");
    last().open();
    last().receive(hello("st", true, 4));
    expect(client.behind).toBe(2);
    last().receive(numbered(3));
    expect(client.behind).toBe(1);
    last().receive(numbered(4));
    expect(client.behind).toBe(0);
    expect(resumed).toEqual([{ after: 2, latestSeq: 4 }]);
    expect(fresh).toEqual(["start"]);
    expect(messages.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
  });

  it("moves the focus with a focus message on the open socket, not a new connection", () => {
    const { client, sockets, last } = setUp();
    client.start("");
    last().open();
    last().receive(hello("st", false));
    client.focus("b");
    client.focus("b", true);
    expect(sockets).toHaveLength(1);
    expect(last().sent).toEqual(['{"type":"focus","sessionId":"b"}', '{"type":"focus","sessionId":"b"}']);
  });

  it("answers pings with the exact pong text", () => {
    const { client, last } = setUp();
    client.start("");
    last().open();
    last().receive(hello("st", false));
    last().receive({ type: "ping", seq: 1, epoch: EPOCH });
    expect(last().sent).toEqual(['{"type":"pong"}']);
  });

  it("on a gap closes the socket and reconnects after the backoff asking to resume", () => {
    const { client, timers, sockets, last, messages } = setUp();
    client.start("");
    const first = last();
    first.open();
    first.receive(hello("st", false));
    first.receive(numbered(1));
    first.receive(numbered(3));
    expect(first.closed).toBe(true);
    expect(messages.map((m) => m.seq)).toEqual([1]);
    // Late callbacks of the dropped socket are ignored.
    first.receive(numbered(2));
    first.drop();
    expect(sockets).toHaveLength(1);
    timers.fire(375);
    expect(last().url).toContain("stream=st&after=1");
  });

  it("treats a silent connection as closed", () => {
    const { client, timers, last } = setUp(1000);
    client.start("");
    last().open();
    last().receive(hello("st", false));
    timers.fire(1000);
    expect(last().closed).toBe(true);
    expect(client.status).toBe("offline");
  });

  it("feeds a focus a message handler asks for after the message, in order", () => {
    const { createSocket, last } = fakeSockets();
    const client: EventsSocket = new EventsSocket({
      wsBase: "ws://leyline.test",
      createSocket,
      silenceMs: 0,
      onMessage: (message) => {
        if (message.seq === 1) client.focus("z");
      },
    });
    client.start("");
    const socket = last();
    socket.open();
    socket.receive(hello("st", false));
    socket.receive(numbered(1));
    socket.receive(numbered(2));
    expect(socket.sent).toEqual(['{"type":"focus","sessionId":"z"}']);
    expect(client.machine.applied).toBe(2);
  });

  it("routes trace notices to the trace listeners: its first stream is live, a resume or a later stream is a reconnect", () => {
    const { client, timers, messages, last } = setUp();
    const signals: TraceSignal[] = [];
    const stop = onTraceSignals((signal) => signals.push(signal));
    client.start("");
    last().open();
    last().receive(hello("st", false));
    expect(signals).toEqual([{ kind: "live" }]);
    last().receive(numbered(1, "trace_updated", { traceId: "t1", sessionId: "s1", revision: 2, activeSessionId: "s1" }));
    expect(signals.at(-1)).toEqual({
      kind: "updated",
      notice: { traceId: "t1", sessionId: "s1", revision: 2, activeSessionId: "s1" },
    });
    expect(messages).toEqual([]);

    last().drop();
    timers.fireAll();
    last().open();
    last().receive(hello("st", true, 1));
    expect(signals.slice(2)).toEqual([{ kind: "reconnected" }]);

    last().drop();
    timers.fireAll();
    last().open();
    last().receive(hello("st-2", false));
    expect(signals.slice(2)).toEqual([{ kind: "reconnected" }, { kind: "reconnected" }]);
    stop();
    client.stop();
  });
});
