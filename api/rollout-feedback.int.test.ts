/**
 * Rollout feedback through the real app (testApp over temp dirs, a real leyline.sqlite, real session files, the
 * real detail worker): every refusal (400, 405, 413), set, change and clear, records kept across a restart, the
 * entries of GET /api/pi/sessions/:id carrying the stored feedback (a version-1 fixture session too), and two
 * events sockets on the same session both getting the change as a delta, while a window opened later gets it in
 * its snapshot. LEYLINE_CHECK_RESPONSES checks every answer and socket message against its declared schema.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { SessionDeltaData, SessionSnapshotData } from "../domain/live/live-messages.ts";
import type { RolloutFeedbackRecord } from "../domain/rollout-feedback/rollout-feedback.ts";
import type { SessionDetail } from "../domain/session-detail.ts";
import { applyTranscriptDelta, mapTranscriptDelta } from "../domain/transcript/transcript-delta.ts";
import type { TranscriptEntry } from "../domain/transcript/transcript-types.ts";
import { unpackEntry } from "../domain/transcript/transcript-wire.ts";
import { TINY_USAGE } from "../test/support/tiny-usage.ts";
import { closeTestApps, copyFixture, MessageQueue, testApp, testDirs, type ReceivedMessage, type TestDirs } from "./app.fixture.ts";

afterEach(closeTestApps);

const SESSION_ID = "feedfeed-0000-4000-8000-000000000001";
const CWD = "/work/project";

/** A small version-3 session: a prompt, an answer, a second prompt and answer. Returns the file and entry ids. */
function writeSession(dirs: TestDirs, id = SESSION_ID) {
  const file = path.join(dirs.projectSessions, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
  const lines: unknown[] = [{ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: CWD }];
  const ids = ["u1", "a1", "u2", "a2"].map((name) => `${name}-${id.slice(-4)}`);
  ids.forEach((entryId, n) => {
    const user = n % 2 === 0;
    const message = user
      ? { role: "user", content: [{ type: "text", text: `question ${n}` }], timestamp: 1767225600000 + n }
      : {
          role: "assistant",
          content: [{ type: "text", text: `answer ${n}` }],
          api: "faux",
          provider: "faux",
          model: "faux-1",
          usage: TINY_USAGE,
          stopReason: "stop",
          timestamp: 1767225600000 + n,
        };
    lines.push({
      type: "message",
      id: entryId,
      parentId: n === 0 ? null : ids[n - 1],
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n + 1)).toISOString(),
      message,
    });
  });
  fs.writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  return { file, ids: ids as [string, string, string, string] };
}

async function post(app: FastifyInstance, sessionId: string, body: unknown) {
  const response = await app.inject({
    method: "POST",
    url: `/api/pi/sessions/${encodeURIComponent(sessionId)}/feedback`,
    payload: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  return { status: response.statusCode, body: response.json() as { ok: true; feedback: RolloutFeedbackRecord | null } | { error: string } };
}

async function detail(app: FastifyInstance, sessionId: string): Promise<SessionDetail> {
  const response = await app.inject({ method: "GET", url: `/api/pi/sessions/${encodeURIComponent(sessionId)}` });
  expect(response.statusCode).toBe(200);
  return response.json() as SessionDetail;
}

function feedbackOf(entries: readonly TranscriptEntry[]): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const entry of entries) if (entry.rolloutFeedback !== "") out[entry.id] = [entry.rolloutFeedback, entry.rolloutFeedbackText];
  return out;
}

describe("POST /api/pi/sessions/:id/feedback refusals", () => {
  it("answers 400 for a missing field, a wrong type, an unknown label or a note over 4,000 characters; 413 over 64 KiB; 405", async () => {
    const { app } = await testApp();
    const good = { cwd: CWD, entryId: "e1", sessionPath: "/s.jsonl" };
    const url = `/api/pi/sessions/${SESSION_ID}/feedback`;
    const cases: Array<[unknown, string]> = [
      [{}, "cwd is required"],
      [{ entryId: "e1", sessionPath: "/s.jsonl" }, "cwd is required"],
      [{ cwd: CWD, sessionPath: "/s.jsonl" }, "entryId is required"],
      [{ cwd: CWD, entryId: "e1" }, "sessionPath is required"],
      [{ ...good, cwd: 3 }, "cwd must be a string"],
      [{ ...good, entryId: "" }, "entryId must not be empty"],
      [{ ...good, entryId: "x".repeat(257) }, "entryId must be at most 256 characters"],
      [{ ...good, sessionPath: null }, "sessionPath must be a string"],
      [{ ...good, label: "great" }, 'label must be "helpful", "unhelpful" or ""'],
      [{ ...good, label: true }, 'label must be "helpful", "unhelpful" or ""'],
      [{ ...good, label: "helpful", feedbackText: 5 }, "feedbackText must be a string"],
      [{ ...good, label: "helpful", feedbackText: "x".repeat(4001) }, "feedbackText must be at most 4000 characters"],
    ];
    for (const [body, error] of cases) {
      expect(await post(app, SESSION_ID, body), JSON.stringify(body).slice(0, 80)).toEqual({ status: 400, body: { error } });
    }
    const plain = await app.inject({ method: "POST", url, payload: "{not json", headers: { "content-type": "application/json" } });
    expect(plain.statusCode).toBe(400);
    expect(plain.json()).toHaveProperty("error");
    const array = await app.inject({ method: "POST", url, payload: "[1]", headers: { "content-type": "application/json" } });
    expect({ status: array.statusCode, body: array.json() as unknown }).toEqual({
      status: 400,
      body: { error: "Request body must be a JSON object" },
    });
    const over = await app.inject({
      method: "POST",
      url,
      payload: JSON.stringify({ ...good, pad: "x".repeat(64 * 1024) }),
      headers: { "content-type": "application/json" },
    });
    expect(over.statusCode).toBe(413);
    expect(over.json()).toHaveProperty("error");
    const get = await app.inject({ method: "GET", url });
    expect(get.statusCode).toBe(405);
    expect(get.json()).toHaveProperty("error");

    // Nothing was stored by any refusal: a 4,000-character note is the longest accepted.
    const longest = await post(app, SESSION_ID, { ...good, label: "helpful", feedbackText: "y".repeat(4000) });
    expect(longest.status).toBe(200);
    expect((longest.body as { feedback: RolloutFeedbackRecord }).feedback.feedbackText).toHaveLength(4000);
  });
});

describe("setting, changing and clearing", () => {
  it("stores a verdict, replaces it, clears it with an empty or absent label, and shows it on the detail's entries", async () => {
    const dirs = testDirs("feedback");
    const { file, ids } = writeSession(dirs);
    const { app } = await testApp({}, dirs);
    const [, a1, , a2] = ids;
    const before = await detail(app, SESSION_ID);
    expect(before.entries.map((e) => [e.id, e.rolloutFeedback, e.rolloutFeedbackText])).toEqual(ids.map((id) => [id, "", ""]));

    const t0 = Date.now();
    const set = await post(app, SESSION_ID, {
      cwd: CWD,
      entryId: a1,
      sessionPath: file,
      label: "helpful",
      feedbackText: "  clear answer ",
    });
    expect(set.status).toBe(200);
    const record = (set.body as { feedback: RolloutFeedbackRecord }).feedback;
    expect(record).toEqual({
      cwd: CWD,
      sessionId: SESSION_ID,
      sessionPath: file,
      entryId: a1,
      label: "helpful",
      feedbackText: "clear answer",
      updatedAt: expect.any(Number) as number,
    });
    expect(record.updatedAt).toBeGreaterThanOrEqual(t0);
    expect(record.updatedAt).toBeLessThanOrEqual(Date.now());
    expect(feedbackOf((await detail(app, SESSION_ID)).entries)).toEqual({ [a1]: ["helpful", "clear answer"] });

    // A second entry, and a change of the first (the note goes when the new verdict has none).
    await post(app, SESSION_ID, { cwd: CWD, entryId: a2, sessionPath: file, label: "unhelpful", feedbackText: "wrong file" });
    const changed = await post(app, SESSION_ID, { cwd: CWD, entryId: a1, sessionPath: file, label: "unhelpful" });
    expect((changed.body as { feedback: RolloutFeedbackRecord }).feedback).toMatchObject({ label: "unhelpful", feedbackText: "" });
    expect(feedbackOf((await detail(app, SESSION_ID)).entries)).toEqual({ [a1]: ["unhelpful", ""], [a2]: ["unhelpful", "wrong file"] });

    // Clearing: label "" (its text is ignored), then no label at all; clearing what is not there is fine.
    expect(await post(app, SESSION_ID, { cwd: CWD, entryId: a1, sessionPath: file, label: "", feedbackText: "x" })).toEqual({
      status: 200,
      body: { ok: true, feedback: null },
    });
    expect(await post(app, SESSION_ID, { cwd: CWD, entryId: a2, sessionPath: file })).toEqual({
      status: 200,
      body: { ok: true, feedback: null },
    });
    expect(await post(app, SESSION_ID, { cwd: CWD, entryId: a2, sessionPath: file, label: "" })).toEqual({
      status: 200,
      body: { ok: true, feedback: null },
    });
    expect(feedbackOf((await detail(app, SESSION_ID)).entries)).toEqual({});

    // The session file is never written.
    const text = fs.readFileSync(file, "utf8");
    expect(text).not.toContain("helpful");
  });

  it("does not check the session or entry against a file (the spec's rule), and keeps sessions apart", async () => {
    const dirs = testDirs("feedback");
    const { file, ids } = writeSession(dirs);
    const otherId = "feedfeed-0000-4000-8000-000000000002";
    const other = writeSession(dirs, otherId);
    const { app } = await testApp({}, dirs);
    const unknown = await post(app, "no-such-session", { cwd: CWD, entryId: "nope", sessionPath: "/nowhere.jsonl", label: "helpful" });
    expect(unknown.status).toBe(200);
    await post(app, otherId, { cwd: CWD, entryId: other.ids[1], sessionPath: other.file, label: "helpful" });
    // Feedback stored under the other session for an entry id of the first one shows on neither.
    await post(app, otherId, { cwd: CWD, entryId: ids[1], sessionPath: other.file, label: "unhelpful" });
    // A detail asked for by path (its session id is known only once the file is read) carries it.
    const byPath = await app.inject({ method: "GET", url: `/api/pi/sessions/by-path?path=${encodeURIComponent(other.file)}` });
    expect(byPath.statusCode).toBe(200);
    expect(feedbackOf((byPath.json() as SessionDetail).entries)).toEqual({ [other.ids[1]]: ["helpful", ""] });
    expect(feedbackOf((await detail(app, otherId)).entries)).toEqual({ [other.ids[1]]: ["helpful", ""] });
    expect(feedbackOf((await detail(app, SESSION_ID)).entries)).toEqual({});
    expect(file).not.toBe(other.file);
  });

  it("keeps feedback across a restart on the same data dir", async () => {
    const dirs = testDirs("feedback-restart");
    const { file, ids } = writeSession(dirs);
    const first = await testApp({}, dirs);
    await post(first.app, SESSION_ID, { cwd: CWD, entryId: ids[3], sessionPath: file, label: "helpful", feedbackText: "kept" });
    await closeTestApps();

    const second = await testApp({}, dirs);
    expect(feedbackOf((await detail(second.app, SESSION_ID)).entries)).toEqual({ [ids[3]]: ["helpful", "kept"] });
  });

  it("works on a version-1 session (entries with derived ids)", async () => {
    const dirs = testDirs("feedback-v1");
    const file = copyFixture("v1-large-session.jsonl", dirs);
    const { app } = await testApp({}, dirs);
    const list = (await app.inject({ method: "GET", url: "/api/pi/sessions" })).json() as { sessions: Array<{ id: string; path: string }> };
    const session = list.sessions.find((s) => s.path === file);
    expect(session).toBeDefined();
    const id = session?.id ?? "";
    const entries = (await detail(app, id)).entries;
    const answer = entries.find((e) => e.type === "message" && e.role === "assistant");
    expect(answer).toBeDefined();
    const entryId = answer?.id ?? "";
    const set = await post(app, id, { cwd: "/somewhere", entryId, sessionPath: file, label: "unhelpful", feedbackText: "too long" });
    expect(set.status).toBe(200);
    const after = (await detail(app, id)).entries;
    expect(feedbackOf(after)).toEqual({ [entryId]: ["unhelpful", "too long"] });
    expect(after).toHaveLength(entries.length);
  });
});

// ---- the events socket ------------------------------------------------------------------------------------

async function listening(dirs?: TestDirs) {
  const { app, dirs: used } = await testApp({}, dirs);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return { app, dirs: used, base: `ws://127.0.0.1:${address.port}/api/pi/events` };
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

/** A window's view of the focused session, rebuilt from its messages the way the browser does. */
class DetailView {
  entries: TranscriptEntry[] = [];
  revision = 0;
  private pending: TranscriptEntry[] = [];

  apply(message: ReceivedMessage): boolean {
    if (message.type === "session_snapshot") {
      const data = message.data as SessionSnapshotData;
      if (data.offset === 0) this.pending = [];
      this.pending.push(...data.entries.map(unpackEntry));
      if (!data.done) return false;
      this.entries = this.pending;
      this.revision = data.revision;
      return true;
    }
    if (message.type === "session_delta") {
      const data = message.data as SessionDeltaData;
      expect(data.base).toBe(this.revision);
      this.revision = data.revision;
      if (data.transcript !== undefined)
        this.entries = applyTranscriptDelta(this.entries, mapTranscriptDelta(data.transcript, unpackEntry));
      return true;
    }
    return false;
  }
}

async function window(base: string): Promise<{ socket: WebSocket; queue: MessageQueue; view: DetailView }> {
  const client = connect(`${base}?sessionId=${SESSION_ID}`);
  await client.opened;
  const view = new DetailView();
  await client.queue.until((message) => view.apply(message));
  return { ...client, view };
}

describe("open windows of the session", () => {
  it("both get a change as a delta replacing the entry; a window opened later gets it in its snapshot", async () => {
    const dirs = testDirs("feedback-windows");
    const { file, ids } = writeSession(dirs);
    const { app, base } = await listening(dirs);
    const one = await window(base);
    const two = await window(base);
    expect(feedbackOf(one.view.entries)).toEqual({});

    const body = { cwd: CWD, entryId: ids[1], sessionPath: file, label: "helpful", feedbackText: "nice" };
    expect((await post(app, SESSION_ID, body)).status).toBe(200);
    for (const w of [one, two]) {
      const messages = await w.queue.until((message) => w.view.apply(message));
      const delta = messages.at(-1)?.data as SessionDeltaData;
      expect(delta.transcript?.replaced?.map(([index]) => index)).toEqual([1]);
      expect(delta.transcript?.appended).toBeUndefined();
      expect(feedbackOf(w.view.entries)).toEqual({ [ids[1]]: ["helpful", "nice"] });
    }
    expect(one.view.entries).toEqual(two.view.entries);
    expect(one.view.entries).toEqual((await detail(app, SESSION_ID)).entries);

    const three = await window(base);
    expect(feedbackOf(three.view.entries)).toEqual({ [ids[1]]: ["helpful", "nice"] });

    // Cleared: every window goes back to the file's entries.
    await post(app, SESSION_ID, { ...body, label: "" });
    for (const w of [one, two, three]) {
      await w.queue.until((message) => w.view.apply(message));
      expect(feedbackOf(w.view.entries)).toEqual({});
    }
    for (const w of [one, two, three]) {
      w.socket.close();
      await w.queue.closed;
    }
  });

  it("a window opened on a session with stored feedback gets it in its first snapshot", async () => {
    const dirs = testDirs("feedback-first");
    const { file, ids } = writeSession(dirs);
    const first = await testApp({}, dirs);
    await post(first.app, SESSION_ID, { cwd: CWD, entryId: ids[3], sessionPath: file, label: "unhelpful" });
    await closeTestApps();

    const { base } = await listening(dirs);
    const w = await window(base);
    expect(feedbackOf(w.view.entries)).toEqual({ [ids[3]]: ["unhelpful", ""] });
    w.socket.close();
    await w.queue.closed;
  });
});
