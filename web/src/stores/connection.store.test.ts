// The connection store with a scripted socket: every message routed to its store, focus changes as messages,
// fresh streams versus resumed ones, and no HTTP request for the list or the detail.
import { flushPromises } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { activeOf, fakeBackend } from "../components/composer/composer.fixture.ts";
import { syntheticTranscript, userEntry } from "../components/transcript/transcript.fixture.ts";
import { detailSession, indexStatus, listDelta, listSnapshot, sessionDelta, snapshotChunks } from "../lib/live-messages.fixture.ts";
import { summary } from "../lib/session-fixtures.fixture.ts";
import { useConnectionStore } from "./connection.store.ts";
import { useOpenSessionStore } from "./open-session.store.ts";
import { useRuntimesStore } from "./runtimes.store.ts";
import { useSessionsStore } from "./sessions.store.ts";
import { FakeSocket, ManualTimers } from "../api/events-socket.fixture.ts";

/** The server side of one test: sockets the store opened, and a numbered stream to send on the latest. */
function scriptedServer() {
  const sockets: FakeSocket[] = [];
  let seq = 0;
  let stream = "st-1";
  const epoch = "ep-1";
  const socket = () => sockets.at(-1) as FakeSocket;
  return {
    sockets,
    socket,
    createSocket: (url: string) => {
      const created = new FakeSocket(url);
      sockets.push(created);
      return created;
    },
    open(resumed = false, latestSeq = seq) {
      if (!resumed) {
        stream = `st-${sockets.length}`;
        seq = 0;
      }
      socket().onopen?.({});
      socket().onmessage?.({ data: JSON.stringify({ type: "hello", data: { stream, resumed, latestSeq }, seq: 0, epoch }) });
    },
    /** Writes a message to the stream; `deliver: false` keeps it from the socket (sent while disconnected). */
    send(type: string, data: unknown, deliver = true) {
      seq += 1;
      if (deliver) socket().onmessage?.({ data: JSON.stringify({ type, data, seq, epoch }) });
      return seq;
    },
    drop() {
      socket().onclose?.({});
    },
  };
}

describe("connection store", () => {
  let backend: ReturnType<typeof fakeBackend>;
  let server: ReturnType<typeof scriptedServer>;
  let timers: ManualTimers;
  beforeEach(() => {
    setActivePinia(createPinia());
    backend = fakeBackend();
    server = scriptedServer();
    timers = new ManualTimers();
  });
  afterEach(() => {
    useConnectionStore().stop();
    backend.restore();
  });

  function start() {
    const connection = useConnectionStore();
    connection.start({ wsBase: "ws://leyline.test", createSocket: server.createSocket, timers, random: () => 0.5, silenceMs: 0 });
    return { connection, sessions: useSessionsStore(), openSession: useOpenSessionStore(), runtimes: useRuntimesStore() };
  }

  it("routes the list to the sessions store and the focused detail to the open session, with no HTTP request", async () => {
    // A deep link: the session view opens the session before the socket starts.
    void useOpenSessionStore().open("s1");
    const { connection, sessions, openSession, runtimes } = start();
    await flushPromises();
    expect(server.socket().url).toBe("ws://leyline.test/api/pi/events?sessionId=s1");
    server.open();
    expect(connection.status).toBe("connected");
    expect(connection.lastFresh).toBe("start");
    server.send("active_session", activeOf({}, 1, "s1"));
    server.send("runtime_roster", { sessionIds: ["s1"] });
    server.send("session_list", listSnapshot([summary("s1"), summary("s2")]));
    const v1 = syntheticTranscript(3);
    server.send("session_loading", { sessionId: "s1", loadedBytes: 10, totalBytes: 20 });
    expect(openSession.progress).toEqual({ loadedBytes: 10, totalBytes: 20 });
    for (const chunk of snapshotChunks(detailSession("s1"), v1, 1, 2)) server.send("session_snapshot", chunk);
    const v2 = [...v1, userEntry("u9", "more", 9)];
    server.send("session_delta", sessionDelta("s1", v1, v2, 1));
    server.send("session_list_delta", listDelta([summary("s3")], [], 2, indexStatus({ filesOnDisk: 3 })));

    expect(runtimes.isOpen("s1")).toBe(true);
    expect(sessions.sessions.map((s) => s.id).sort()).toEqual(["s1", "s2", "s3"]);
    expect(sessions.indexStatus?.filesOnDisk).toBe(3);
    expect(openSession.status).toBe("ready");
    expect(openSession.entries.map((e) => e.id)).toEqual(["n0", "n1", "n2", "u9"]);
    expect(openSession.revision).toBe(2);

    server.send("session_unavailable", { sessionId: "s1", reason: "gone", message: "The session file no longer exists" });
    expect(openSession.status).toBe("missing");
    expect(backend.requests).toEqual([]);
  });

  it("moves the focus with a focus message on the same socket, and asks again when a session is reopened at once", async () => {
    const { openSession } = start();
    server.open();
    void openSession.open("a");
    expect(server.socket().sent).toEqual(['{"type":"focus","sessionId":"a"}']);
    openSession.close();
    void openSession.open("a");
    expect(server.socket().sent.slice(1)).toEqual(['{"type":"focus","sessionId":""}', '{"type":"focus","sessionId":"a"}']);
    expect(server.sockets).toHaveLength(1);
  });

  it("a fresh stream keeps the list and the detail shown, stale, resets the runtimes' generation, then takes the new snapshots", async () => {
    const { connection, sessions, openSession, runtimes } = start();
    void openSession.open("s1");
    server.open();
    server.send("session_list", listSnapshot([summary("s1")]));
    const v1 = syntheticTranscript(2);
    for (const chunk of snapshotChunks(detailSession("s1"), v1, 4)) server.send("session_snapshot", chunk);
    const generation = runtimes.generation;

    server.drop();
    timers.fireAll();
    expect(server.socket().url).toBe("ws://leyline.test/api/pi/events?sessionId=s1&stream=st-1&after=2");
    server.open(false); // the stream expired: a fresh one
    expect(connection.lastFresh).toBe("not-resumed");
    expect(runtimes.generation).toBe(generation + 1);
    expect(sessions.stale).toBe(true);
    expect(openSession.stale).toBe(true);
    expect(sessions.sessions.map((s) => s.id)).toEqual(["s1"]);
    expect(openSession.entries).toEqual(v1);

    server.send("session_list", listSnapshot([summary("s1"), summary("s2")]));
    for (const chunk of snapshotChunks(detailSession("s1"), syntheticTranscript(3), 1)) server.send("session_snapshot", chunk);
    expect(sessions.stale).toBe(false);
    expect(openSession.stale).toBe(false);
    expect(openSession.entries).toHaveLength(3);
    expect(backend.requests).toEqual([]);
  });

  it("a resumed stream replays what was missed, counting down how far behind it is, without stale marks", async () => {
    const { connection, sessions, openSession, runtimes } = start();
    void openSession.open("s1");
    server.open();
    server.send("session_list", listSnapshot([summary("s1")]));
    const v1 = syntheticTranscript(2);
    for (const chunk of snapshotChunks(detailSession("s1"), v1, 1)) server.send("session_snapshot", chunk);
    const generation = runtimes.generation;

    server.drop();
    expect(connection.status).toBe("offline");
    // Written while the client was away.
    const missed = [
      ["session_list_delta", listDelta([summary("s2")], [], 2)],
      ["session_delta", sessionDelta("s1", v1, syntheticTranscript(3), 1)],
      ["session_delta", sessionDelta("s1", syntheticTranscript(3), syntheticTranscript(4), 2)],
    ] as const;
    const seqs = missed.map(([type, data]) => server.send(type, data, false));
    timers.fireAll();
    server.open(true, seqs.at(-1));
    expect(connection.behind).toBe(3);
    const counts: number[] = [];
    for (const [index, [type, data]] of missed.entries()) {
      server.socket().onmessage?.({ data: JSON.stringify({ type, data, seq: seqs[index], epoch: "ep-1" }) });
      counts.push(connection.behind);
    }
    expect(counts).toEqual([2, 1, 0]);
    expect(connection.resumes).toBe(1);
    expect(runtimes.generation).toBe(generation);
    expect(sessions.stale).toBe(false);
    expect(openSession.stale).toBe(false);
    expect(sessions.sessions.map((s) => s.id).sort()).toEqual(["s1", "s2"]);
    expect(openSession.entries).toHaveLength(4);
  });

  it("a finished run settles the shown session's prompts and drops the passed-over ones of others", () => {
    const { openSession, runtimes } = start();
    void openSession.open("s1");
    server.open();
    const ended = vi.spyOn(openSession, "noteRunEnded");
    const dropped = vi.spyOn(runtimes, "dropProvisionals");
    const prompt = { role: "user", content: "hi", timestamp: 1 };
    server.send("runtime_event", { activeSessionId: "s1", event: { type: "message_start", message: prompt } });
    server.send("runtime_event", { activeSessionId: "s2", event: { type: "message_start", message: prompt } });
    server.send("runtime_event", { activeSessionId: "s1", event: { type: "agent_end" } });
    server.send("runtime_event", { activeSessionId: "s2", event: { type: "agent_end" } });
    expect(ended).toHaveBeenCalledWith("s1", 1);
    expect(dropped).toHaveBeenCalledWith("s2", 1);
    expect(runtimes.provisionalOf("s2")).toEqual([]);
  });
});
