import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { NEVER } from "rxjs";
import { createPiHarness, type PiHarness } from "../test/support/pi-harness.ts";
import type { SessionSummary } from "../domain/session-summary.ts";
import { closeTestApps, copyFixture, testApp, testDirs } from "./app.fixture.ts";
import type { SessionDetail } from "../domain/session-detail.ts";
import { EMPTY_LIVE_STREAM } from "../domain/live/live-stream.ts";
import type { OpenRuntime, RuntimeHostView } from "./runtime-host.ts";

afterEach(closeTestApps);

const LARGE = "v1-large-session.jsonl";
const LARGE_ID = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";
const COMPACTION = "v1-before-compaction.jsonl";
const COMPACTION_ID = "ffae836b-9420-4060-ac13-7745215f90ff";

function researchSessionText(id: string, objective: string): string {
  const header = { type: "session", version: 3, id, timestamp: "2025-03-01T10:00:00.000Z", cwd: "/work/research" };
  const marker = {
    type: "custom",
    id: "r0000001",
    parentId: null,
    timestamp: "2025-03-01T10:00:01.000Z",
    customType: "leyline-research",
    data: { version: 1, sessionId: id, kind: "session", objective, updatedAt: 1740823201000 },
  };
  return `${JSON.stringify(header)}\n${JSON.stringify(marker)}\n`;
}

describe("sessions from real pi files (pi SessionManager + faux provider)", () => {
  let harness: PiHarness;
  let sessionFile: string;
  let sessionId: string;

  beforeAll(async () => {
    harness = await createPiHarness({ tempPrefix: "leyline-api-sessions-" });
    const { ai, faux } = harness;
    const session = await harness.createSession();
    faux.setResponses([ai.fauxAssistantMessage("Hello from the faux model.")]);
    await session.prompt("Say hello, please.");
    faux.setResponses([ai.fauxAssistantMessage("Second answer.")]);
    await session.prompt("And once more.");
    sessionFile = session.sessionFile as string;
    sessionId = session.sessionId;
    session.dispose();
  });
  afterAll(async () => {
    await harness.dispose();
  });

  it("lists the session and answers its detail by id and by path", async () => {
    const dirs = { ...testDirs("sessions"), agentDir: harness.agentDir, sessionsDir: harness.sessionsDir };
    const { app } = await testApp({}, dirs);

    const list = await app.inject({ method: "GET", url: "/api/pi/sessions" });
    expect(list.statusCode).toBe(200);
    const { sessions } = list.json<{ sessions: SessionSummary[] }>();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      id: sessionId,
      path: sessionFile,
      cwd: harness.cwd,
      isSubagentSession: false,
      research: null,
      firstMessage: "Say hello, please.",
      messageCount: 5, // four conversation messages and pi 1.x's stored system message
    });

    const byId = await app.inject({ method: "GET", url: `/api/pi/sessions/${sessionId}` });
    expect(byId.statusCode).toBe(200);
    const detail = byId.json<SessionDetail>();
    expect(detail.session).toMatchObject({
      id: sessionId,
      path: sessionFile,
      sessionFile,
      messageCount: 5, // four conversation messages and pi 1.x's stored system message
      research: null,
      firstMessage: "Say hello, please.",
    });
    expect(typeof detail.session.created).toBe("string");
    expect(Date.parse(detail.session.modified)).toBeGreaterThanOrEqual(Date.parse(detail.session.created));
    const lines = fs
      .readFileSync(sessionFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { message?: { role?: string; usage?: { totalTokens: number } } });
    const lastUsage = lines.filter((l) => l.message?.role === "assistant").at(-1)?.message?.usage;
    expect(lastUsage?.totalTokens).toBeGreaterThan(0);
    expect(detail.session.contextTokens).toBe(lastUsage?.totalTokens);
    const messages = detail.entries.filter((e) => e.type === "message");
    expect(messages.map((m) => (m.type === "message" ? [m.role, m.text] : []))).toEqual([
      ["user", "Say hello, please."],
      ["assistant", "Hello from the faux model."],
      ["user", "And once more."],
      ["assistant", "Second answer."],
    ]);

    const withPath = await app.inject({
      method: "GET",
      url: `/api/pi/sessions/${sessionId}?path=${encodeURIComponent(sessionFile)}`,
    });
    expect(withPath.statusCode).toBe(200);
    expect(withPath.json()).toEqual(detail);

    const byPath = await app.inject({ method: "GET", url: `/api/pi/sessions/by-path?path=${encodeURIComponent(sessionFile)}` });
    expect(byPath.statusCode).toBe(200);
    expect(byPath.json()).toEqual(detail);
  });
});

describe("GET /api/pi/sessions", () => {
  it("lists persisted sessions newest first and skips files that are not sessions", async () => {
    const dirs = testDirs("list");
    copyFixture(LARGE, dirs);
    copyFixture(COMPACTION, dirs);
    fs.writeFileSync(path.join(dirs.projectSessions, "junk.jsonl"), "not json\n");
    const { app } = await testApp({}, dirs);
    const res = await app.inject({ method: "GET", url: "/api/pi/sessions" });
    expect(res.statusCode).toBe(200);
    const { sessions } = res.json<{ sessions: SessionSummary[] }>();
    expect(sessions.map((s) => s.id)).toEqual([COMPACTION_ID, LARGE_ID]);
    const modified = sessions.map((s) => s.modified ?? "");
    expect([...modified].sort().reverse()).toEqual(modified);
  });

  it("puts runtime-only sessions from the runtime host before the persisted list", async () => {
    const dirs = testDirs("runtime-list");
    const persistedFile = copyFixture(LARGE, dirs);
    const summary = (id: string, file: string): SessionSummary => ({
      id,
      path: file,
      cwd: "/work/new",
      isSubagentSession: false,
      research: null,
      firstMessage: "(no messages)",
      messageCount: 0,
    });
    const runtime = (id: string, file: string | null): OpenRuntime => ({
      sessionId: id,
      sessionFile: file,
      summary: () => summary(id, file ?? ""),
      snapshot: () => ({ id }),
      liveStream: () => EMPTY_LIVE_STREAM,
    });
    const host: RuntimeHostView = {
      activeWorkers: () => 2,
      openRuntimes: () => [runtime("fresh-1", null), runtime(LARGE_ID, persistedFile)],
      events$: NEVER,
    };
    const { app } = await testApp({ runtimeHost: host }, dirs);
    const { sessions } = (await app.inject({ method: "GET", url: "/api/pi/sessions" })).json<{ sessions: SessionSummary[] }>();
    expect(sessions.map((s) => s.id)).toEqual(["fresh-1", LARGE_ID]);
    expect((await app.inject({ method: "GET", url: "/api/health" })).json()).toEqual({ ok: true, activeWorkers: 2 });
  });
});

describe("GET /api/pi/sessions/:id and /by-path", () => {
  it("answers the detail of a v1 fixture with its active-branch transcript", async () => {
    const dirs = testDirs("detail");
    const file = copyFixture(COMPACTION, dirs);
    const { app } = await testApp({}, dirs);
    const res = await app.inject({ method: "GET", url: `/api/pi/sessions/${COMPACTION_ID}` });
    expect(res.statusCode).toBe(200);
    const detail = res.json<SessionDetail>();
    expect(detail.session).toMatchObject({ id: COMPACTION_ID, sessionFile: file, path: file, created: "2025-12-09T00:53:29.825Z" });
    expect(detail.session.parentSessionPath).toBeUndefined();
    expect(detail.entries.length).toBeGreaterThan(10);
    expect(detail.session.contextTokens).toBeGreaterThan(0);
    for (const entry of detail.entries) expect(typeof entry.id).toBe("string");
  });

  it("uses the research objective for firstMessage when the branch has no user message", async () => {
    const dirs = testDirs("research");
    const id = "0a0a0a0a-0000-4000-8000-000000000001";
    const file = path.join(dirs.projectSessions, `research_${id}.jsonl`);
    fs.writeFileSync(file, researchSessionText(id, "Why is the sky blue?"));
    const { app } = await testApp({}, dirs);
    const detail = (await app.inject({ method: "GET", url: `/api/pi/sessions/${id}` })).json<SessionDetail>();
    expect(detail.session.firstMessage).toBe("Why is the sky blue?");
    expect(detail.session.research).toMatchObject({ sessionId: id, objective: "Why is the sky blue?" });
    expect(detail.session.contextTokens).toBeNull();
    expect(detail.entries).toEqual([]);
  });

  it("answers 404 for unknown ids and unresolvable paths, 400 without path, 500 for an id/path mismatch", async () => {
    const dirs = testDirs("detail-errors");
    const large = copyFixture(LARGE, dirs);
    const { app } = await testApp({}, dirs);
    const cases: [string, number][] = [
      ["/api/pi/sessions/no-such-id", 404],
      [`/api/pi/sessions/${LARGE_ID}?path=${encodeURIComponent(path.join(dirs.root, "missing.jsonl"))}`, 404],
      [`/api/pi/sessions/${COMPACTION_ID}?path=${encodeURIComponent(large)}`, 500],
      [`/api/pi/sessions/${LARGE_ID}?path=${encodeURIComponent(dirs.root)}`, 500],
      ["/api/pi/sessions/by-path", 400],
      ["/api/pi/sessions/by-path?path=", 400],
      [`/api/pi/sessions/by-path?path=${encodeURIComponent(path.join(dirs.root, "missing.jsonl"))}`, 404],
      [`/api/pi/sessions/by-path?path=${encodeURIComponent(dirs.root)}`, 404],
    ];
    for (const [url, status] of cases) {
      const res = await app.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(status);
      expect(Object.keys(res.json<object>()), url).toEqual(["error"]);
    }
    const ok = await app.inject({ method: "GET", url: `/api/pi/sessions/${LARGE_ID}` });
    expect(ok.statusCode).toBe(200);
  });
});
