/**
 * The read side on WS /api/pi/events, against a real app over a temp agent dir whose session files another
 * "process" (this test, writing JSONL as pi does) creates and appends to: the session list (snapshot, then
 * deltas), the focused session's detail (chunked snapshot, then transcript deltas: appends, in-place tool
 * completions, leaf moves), focus changes without reconnecting, unknown and late sessions, resuming a stream
 * after a reconnect, and a large session read in slices with progress.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { SessionDeltaData, SessionSnapshotData } from "../domain/live/live-messages.ts";
import type { SessionListDelta, SessionListSnapshot } from "../domain/live/session-list.ts";
import type { SessionDetail } from "../domain/session-detail.ts";
import { applyTranscriptDelta, mapTranscriptDelta } from "../domain/transcript/transcript-delta.ts";
import { unpackEntry } from "../domain/transcript/transcript-wire.ts";
import type { TranscriptEntry } from "../domain/transcript/transcript-types.ts";
import { closeTestApps, MessageQueue, testApp, type ReceivedMessage, type TestDirs } from "./app.fixture.ts";
import { TINY_USAGE } from "../test/support/tiny-usage.ts";

afterEach(closeTestApps);

/** A session file written line by line, as pi (or the pi CLI) appends to it. */
class SessionWriter {
  readonly file: string;
  private n = 0;
  leaf: string | null = null;

  constructor(
    folder: string,
    readonly id: string,
    cwd = "/work/project",
  ) {
    this.file = path.join(folder, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
    fs.writeFileSync(this.file, JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd }) + "\n");
  }

  /** Appends an entry under `parentId` (default: the leaf) and returns its id. */
  append(body: Record<string, unknown>, parentId: string | null = this.leaf): string {
    const id = `${this.id.slice(0, 3)}${(++this.n).toString(16).padStart(5, "0")}`;
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, this.n)).toISOString();
    fs.appendFileSync(this.file, JSON.stringify({ ...body, id, parentId, timestamp }) + "\n");
    this.leaf = id;
    return id;
  }

  user(text: string, parentId?: string | null): string {
    return this.append(
      { type: "message", message: { role: "user", content: [{ type: "text", text }], timestamp: 1767225600000 + this.n } },
      parentId,
    );
  }

  assistant(content: unknown[]): string {
    return this.append({
      type: "message",
      message: {
        role: "assistant",
        content,
        api: "faux",
        provider: "faux",
        model: "faux-1",
        usage: TINY_USAGE,
        stopReason: "stop",
        timestamp: 1767225600000 + this.n,
      },
    });
  }

  toolResult(toolCallId: string, text: string): string {
    return this.append({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId,
        toolName: "bash",
        content: [{ type: "text", text }],
        isError: false,
        timestamp: 1767225600000 + this.n,
      },
    });
  }
}

async function listening(dirs?: TestDirs, options: Parameters<typeof testApp>[0] = {}) {
  const { app, dirs: used } = await testApp(options, dirs);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return { app, dirs: used, base: `ws://127.0.0.1:${address.port}/api/pi/events`, http: `http://127.0.0.1:${address.port}` };
}

function connect(url: string): { socket: WebSocket; queue: MessageQueue; opened: Promise<void> } {
  const socket = new WebSocket(url);
  const queue = new MessageQueue(socket);
  const opened = new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, queue, opened };
}

/** A client's view of the focused session, rebuilt from its messages the way the browser does. */
class DetailView {
  entries: TranscriptEntry[] = [];
  session: SessionDetail["session"] | null = null;
  leafId: string | null = null;
  revision = 0;
  private pending: TranscriptEntry[] = [];

  /** Applies one message; returns true when it completed a snapshot or applied a delta. */
  apply(message: ReceivedMessage): boolean {
    if (message.type === "session_snapshot") {
      const data = message.data as SessionSnapshotData;
      if (data.offset === 0) {
        this.pending = [];
        if (data.session !== undefined) this.session = data.session;
        if (data.leafId !== undefined) this.leafId = data.leafId;
      }
      expect(data.offset).toBe(this.pending.length);
      this.pending.push(...data.entries.map(unpackEntry));
      if (!data.done) return false;
      expect(this.pending).toHaveLength(data.total);
      this.entries = this.pending;
      this.revision = data.revision;
      return true;
    }
    if (message.type === "session_delta") {
      const data = message.data as SessionDeltaData;
      expect(data.base).toBe(this.revision);
      this.revision = data.revision;
      if (data.session !== undefined) this.session = data.session;
      if (data.leafId !== undefined) this.leafId = data.leafId;
      if (data.transcript !== undefined)
        this.entries = applyTranscriptDelta(this.entries, mapTranscriptDelta(data.transcript, unpackEntry));
      return true;
    }
    return false;
  }
}

/** Reads messages into `view` until a snapshot completes or a delta is applied; returns the messages read. */
async function nextDetail(queue: MessageQueue, view: DetailView): Promise<ReceivedMessage[]> {
  return queue.until((message) => view.apply(message));
}

async function getDetail(http: string, id: string): Promise<SessionDetail> {
  const response = await fetch(`${http}/api/pi/sessions/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as SessionDetail;
}

describe("the session list on the events socket", () => {
  it("sends a snapshot, then a delta for a file another process creates, appends to, breaks and deletes, each within a second", async () => {
    const { base, dirs } = await listening();
    const existing = new SessionWriter(dirs.projectSessions, "aaaaaaaa-0000-4000-8000-000000000001");
    existing.user("already here");
    const client = connect(base);
    await client.opened;
    const list = (await client.queue.nextOf("session_list")).data as SessionListSnapshot;
    // The file may have been indexed before or after the socket opened: either way it is listed now.
    const present = list.sessions.some((s) => s.id === existing.id)
      ? true
      : ((await client.queue.nextOf("session_list_delta")).data as SessionListDelta).upserted.some((s) => s.id === existing.id);
    expect(present).toBe(true);

    const timed = async <T>(write: () => void, until: (delta: SessionListDelta) => T | undefined): Promise<{ value: T; ms: number }> => {
      const started = performance.now();
      write();
      for (;;) {
        const delta = (await client.queue.nextOf("session_list_delta")).data as SessionListDelta;
        const value = until(delta);
        if (value !== undefined) return { value, ms: performance.now() - started };
      }
    };

    // A new session in a new project folder (pi creates the folder).
    const folder = path.join(dirs.sessionsDir, "--work-other--");
    let created: SessionWriter | null = null;
    const added = await timed(
      () => {
        fs.mkdirSync(folder);
        created = new SessionWriter(folder, "bbbbbbbb-0000-4000-8000-000000000002", "/work/other");
        created.user("written by the pi CLI");
      },
      (delta) => delta.upserted.find((row) => row.id === "bbbbbbbb-0000-4000-8000-000000000002"),
    );
    expect(added.value).toMatchObject({ cwd: "/work/other", firstMessage: "written by the pi CLI", messageCount: 1 });
    expect(added.ms).toBeLessThan(1000);

    const changed = await timed(
      () => (created as unknown as SessionWriter).assistant([{ type: "text", text: "a reply" }]),
      (delta) => delta.upserted.find((row) => row.id === "bbbbbbbb-0000-4000-8000-000000000002"),
    );
    expect(changed.value.messageCount).toBe(2);
    expect(changed.ms).toBeLessThan(1000);

    const broken = await timed(
      () => fs.writeFileSync(path.join(folder, "not-a-session.jsonl"), "this is not json\n"),
      (delta) => (delta.status.invalid > 0 ? delta.status : undefined),
    );
    expect(broken.value.invalidPaths).toEqual([path.join(folder, "not-a-session.jsonl")]);
    expect(broken.value.filesOnDisk).toBe(3);

    const removed = await timed(
      () => fs.rmSync((created as unknown as SessionWriter).file),
      (delta) => (delta.removed.length > 0 ? delta.removed : undefined),
    );
    expect(removed.value).toEqual([(created as unknown as SessionWriter).file]);
    expect(removed.ms).toBeLessThan(1000);
    client.socket.close();
    await client.queue.closed;
  });
});

describe("compression", () => {
  it("deflates a large session list on the wire for a client that offers permessage-deflate, and not for one that does not", async () => {
    const { base, dirs, http } = await listening();
    for (let i = 0; i < 300; i++) {
      const s = new SessionWriter(
        dirs.projectSessions,
        `5e5510${String(i).padStart(2, "0").slice(-2)}-0000-4000-8000-${String(i).padStart(12, "0")}`,
      );
      s.user(`question number ${i} about the weather and the tides of the season`);
    }
    // Connect once the index lists them all (the list then comes whole in the snapshot).
    for (let listed = 0; listed < 300;) {
      listed = ((await (await fetch(`${http}/api/pi/sessions`)).json()) as { sessions: unknown[] }).sessions.length;
      if (listed < 300) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const measure = async (perMessageDeflate: boolean): Promise<{ json: number; wire: number }> => {
      const socket = new WebSocket(base, { perMessageDeflate });
      const queue = new MessageQueue(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once("open", () => resolve());
        socket.once("error", reject);
      });
      let json = 0;
      for (;;) {
        const text = await queue.nextText();
        json += Buffer.byteLength(text);
        if ((JSON.parse(text) as { type: string }).type === "session_list") break;
      }
      const wire = (socket as unknown as { _socket: { bytesRead: number } })._socket.bytesRead;
      socket.close();
      await queue.closed;
      return { json, wire };
    };
    const plain = await measure(false);
    const deflated = await measure(true);
    expect(plain.wire).toBeGreaterThan(plain.json);
    expect(deflated.wire).toBeLessThan(deflated.json / 3);
  });
});

describe("the focused session on the events socket", () => {
  it("sends its detail as a snapshot, then transcript deltas for appends, completed tool calls and leaf moves", async () => {
    const { base, dirs, http } = await listening();
    const s = new SessionWriter(dirs.projectSessions, "cccccccc-0000-4000-8000-000000000003");
    const first = s.user("first");
    s.assistant([{ type: "text", text: "one" }]);
    const client = connect(`${base}?sessionId=${s.id}`);
    await client.opened;
    const view = new DetailView();
    await nextDetail(client.queue, view);
    expect(view.entries).toEqual((await getDetail(http, s.id)).entries);
    expect(view.session?.id).toBe(s.id);
    expect(view.leafId).toBe(s.leaf);

    // An append by another process.
    s.user("second");
    const appended = await nextDetail(client.queue, view);
    const delta = appended.at(-1)?.data as SessionDeltaData;
    expect(delta.transcript).toEqual({ appended: [expect.objectContaining({ role: "user", blocks: [{ type: "text", text: "second" }] })] });
    expect(delta.transcript?.appended?.[0]).not.toHaveProperty("text"); // the wire form
    expect(view.entries.at(-1)).toMatchObject({ role: "user", text: "second", copyText: "second" });

    // A tool call, then its result: the pending tool entry is replaced in place.
    s.assistant([{ type: "toolCall", id: "call-1", name: "bash", arguments: { command: "ls" } }]);
    await nextDetail(client.queue, view);
    expect(view.entries.at(-1)).toMatchObject({ type: "tool", status: "pending" });
    s.toolResult("call-1", "file.txt");
    const completed = await nextDetail(client.queue, view);
    expect((completed.at(-1)?.data as SessionDeltaData).transcript?.replaced).toHaveLength(1);
    expect(view.entries.at(-1)).toMatchObject({ type: "tool", status: "done", resultText: "file.txt" });

    // A branch from the first user message's parent (pi's edit): the leaf moves, the transcript is cut there.
    const branched = s.user("first, edited", null);
    await nextDetail(client.queue, view);
    expect(view.leafId).toBe(branched);
    expect(view.entries.map((e) => e.id)).toEqual([branched]);
    expect(first).not.toBe(branched);
    expect(view.entries).toEqual((await getDetail(http, s.id)).entries);
    client.socket.close();
    await client.queue.closed;
  });

  it("moves the focus with a focus message, says when a session is unknown, and sends it once it is written", async () => {
    const { base, dirs } = await listening();
    const a = new SessionWriter(dirs.projectSessions, "dddddddd-0000-4000-8000-00000000000a");
    a.user("in a");
    const b = new SessionWriter(dirs.projectSessions, "dddddddd-0000-4000-8000-00000000000b");
    b.user("in b");
    const client = connect(`${base}?sessionId=${a.id}`);
    await client.opened;
    const view = new DetailView();
    await nextDetail(client.queue, view);
    expect(view.session?.id).toBe(a.id);

    client.socket.send(JSON.stringify({ type: "focus", sessionId: b.id }));
    const messages = await nextDetail(client.queue, view);
    expect(messages.some((m) => m.type === "hello" || m.type === "session_list")).toBe(false); // no reconnect
    expect(view.session?.id).toBe(b.id);
    a.user("not for this stream any more");
    b.user("more in b");
    await nextDetail(client.queue, view);
    expect(view.entries.at(-1)).toMatchObject({ text: "more in b" });

    const lateId = "eeeeeeee-0000-4000-8000-00000000000e";
    client.socket.send(JSON.stringify({ type: "focus", sessionId: lateId }));
    expect((await client.queue.nextOf("session_unavailable")).data).toEqual({
      sessionId: lateId,
      reason: "not-found",
      message: "Session not found",
    });
    const late = new SessionWriter(dirs.projectSessions, lateId);
    late.user("written later");
    const lateView = new DetailView();
    await nextDetail(client.queue, lateView);
    expect(lateView.session?.id).toBe(lateId);
    expect(lateView.entries.map((e) => (e as { text?: string }).text)).toEqual(["written later"]);

    fs.rmSync(late.file);
    expect((await client.queue.nextOf("session_unavailable")).data).toMatchObject({ sessionId: lateId, reason: "gone" });
    client.socket.close();
    await client.queue.closed;
  });
});

describe("asking again", () => {
  it("sends a fresh snapshot when the focused session is focused again (a client that lost step)", async () => {
    const { base, dirs } = await listening();
    const s = new SessionWriter(dirs.projectSessions, "12121212-0000-4000-8000-000000000012");
    s.user("one");
    const client = connect(`${base}?sessionId=${s.id}`);
    await client.opened;
    const view = new DetailView();
    await nextDetail(client.queue, view);
    client.socket.send(JSON.stringify({ type: "focus", sessionId: s.id }));
    const again = await nextDetail(client.queue, view);
    expect(again.at(-1)).toMatchObject({ type: "session_snapshot", data: { offset: 0, done: true, total: 1 } });
    expect(again.some((m) => m.type === "active_session" || m.type === "hello")).toBe(false);
    client.socket.close();
    await client.queue.closed;
  });
});

describe("resuming a stream", () => {
  it("lets a reconnecting client take its stream over from a socket the server still holds", async () => {
    const { base, dirs } = await listening();
    const s = new SessionWriter(dirs.projectSessions, "34343434-0000-4000-8000-000000000034");
    s.user("one");
    const first = connect(`${base}?sessionId=${s.id}`);
    await first.opened;
    const hello = (await first.queue.next()).data as { stream: string };
    const view = new DetailView();
    const seen = await nextDetail(first.queue, view);
    const lastSeq = seen.at(-1)?.seq as number;
    // The old socket is still open (the client's silence timer gave up on it): the new one resumes anyway.
    const second = connect(`${base}?sessionId=${s.id}&stream=${hello.stream}&after=${lastSeq}`);
    await second.opened;
    expect(await second.queue.next()).toMatchObject({ type: "hello", data: { stream: hello.stream, resumed: true } });
    expect(await first.queue.closed).toEqual({ code: 4001, reason: "resumed on another connection" });
    s.user("two");
    const delta = await nextDetail(second.queue, view);
    expect(delta.at(-1)?.seq).toBeGreaterThan(lastSeq);
    expect(view.entries.at(-1)).toMatchObject({ text: "two" });
    second.socket.close();
    await second.queue.closed;
  });

  it("gives a client that reconnects with its stream and last seq exactly what it missed, and a fresh stream otherwise", async () => {
    const { base, dirs, app } = await listening(undefined, {});
    const s = new SessionWriter(dirs.projectSessions, "ffffffff-0000-4000-8000-00000000000f");
    s.user("before");
    const first = connect(`${base}?sessionId=${s.id}`);
    await first.opened;
    const hello = (await first.queue.next()).data as { stream: string };
    const view = new DetailView();
    const seen = await nextDetail(first.queue, view);
    const lastSeq = seen.at(-1)?.seq as number;
    first.socket.close();
    await first.queue.closed;

    // While nobody is connected, another process appends: the stream keeps the change for the client.
    s.user("while away");
    await app.leyline.readSide.current()?.index.idle();
    await new Promise((resolve) => setTimeout(resolve, 200));

    const again = connect(`${base}?sessionId=${s.id}&stream=${hello.stream}&after=${lastSeq}`);
    await again.opened;
    const resumed = await again.queue.next();
    expect(resumed).toMatchObject({ type: "hello", seq: 0, data: { stream: hello.stream, resumed: true } });
    expect((resumed.data as { latestSeq: number }).latestSeq).toBeGreaterThan(lastSeq);
    // What it missed, numbered on from where it was: the list row and the transcript both changed.
    const latestSeq = (resumed.data as { latestSeq: number }).latestSeq;
    const missed = await again.queue.until((m) => m.seq === latestSeq);
    for (const message of missed) view.apply(message);
    expect(missed.map((m) => m.seq)).toEqual(missed.map((_, i) => lastSeq + 1 + i));
    expect(missed.map((m) => m.type).sort()).toEqual(["session_delta", "session_list_delta"]);
    expect(view.entries.at(-1)).toMatchObject({ text: "while away" });
    again.socket.close();
    await again.queue.closed;

    // An unknown stream (e.g. after a server restart) or a seq ahead of the stream: a fresh stream with snapshots.
    for (const query of [`stream=nope&after=3`, `stream=${hello.stream}&after=999999`]) {
      const fresh = connect(`${base}?sessionId=${s.id}&${query}`);
      await fresh.opened;
      const greeting = await fresh.queue.next();
      expect(greeting).toMatchObject({ type: "hello", data: { resumed: false } });
      expect((greeting.data as { stream: string }).stream).not.toBe(hello.stream);
      expect((await fresh.queue.next()).type).toBe("runtime_roster");
      expect((await fresh.queue.next()).type).toBe("session_list");
      fresh.socket.close();
      await fresh.queue.closed;
    }
  });

  it("ends a stream nobody resumes within the window", async () => {
    const { base, app } = await listening(undefined, { eventsResumeWindowMs: 150 });
    const client = connect(base);
    await client.opened;
    const hello = (await client.queue.next()).data as { stream: string };
    await client.queue.nextOf("session_list");
    client.socket.close();
    await client.queue.closed;
    await new Promise((resolve) => setTimeout(resolve, 400));
    const late = connect(`${base}?stream=${hello.stream}&after=2`);
    await late.opened;
    expect(await late.queue.next()).toMatchObject({ type: "hello", data: { resumed: false } });
    late.socket.close();
    await late.queue.closed;
    expect(app.leyline.epoch).toEqual(expect.any(String));
  });
});

describe("a large session", () => {
  it("is read in slices with progress, sent in chunks, and not cut for a reader that pauses during its snapshot", async () => {
    const { base, dirs, http } = await listening();
    const s = new SessionWriter(dirs.projectSessions, "abababab-0000-4000-8000-0000000000ab");
    const text = "lorem ipsum dolor sit amet ".repeat(300); // ~8 KB per reply
    for (let i = 0; i < 600; i++) {
      s.user(`question ${i}`);
      s.assistant([{ type: "text", text: `${i} ${text}` }]);
    }
    expect(fs.statSync(s.file).size).toBeGreaterThan(4 * 1024 * 1024);
    const client = connect(`${base}?sessionId=${s.id}`);
    await client.opened;
    await client.queue.nextOf("session_list");
    // Stop reading for a while: the snapshot (several MB) waits in the server's queue, made on demand.
    client.socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    client.socket.resume();
    const view = new DetailView();
    const messages = await nextDetail(client.queue, view);
    const loading = messages.filter((m) => m.type === "session_loading");
    const chunks = messages.filter((m) => m.type === "session_snapshot");
    expect(loading.length).toBeGreaterThan(2);
    expect(chunks.length).toBeGreaterThan(5);
    expect(view.entries).toHaveLength(1200);
    expect(view.entries).toEqual((await getDetail(http, s.id)).entries);
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    client.socket.close();
    await client.queue.closed;
  });
});
