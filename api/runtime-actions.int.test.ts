/**
 * The runtime API over HTTP and WS /api/pi/events with a real RuntimeHost (in-process workers for speed; see
 * runtime-api.forked.int.test.ts for real worker processes): create, prompt and watch events, the editable
 * queue, interrupt, compact, model and thinking, confirmations, edit-prompt and fork (scoped and legacy), reset-to-entry
 * with its trash copy, rename, delete, state previews, and a restart on the same dirs.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { messageTexts, recordHost } from "../adapters/runtime-host/runtime-host-test-support.ts";
import { streamedReplies } from "../adapters/runtime-client/runtime-test-support.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { ULTRAFAST_UNAVAILABLE } from "./runtime-actions.routes.ts";
import { call, EventCollector, handleOf, listenForEvents, runtimeApiSuite, settled } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite();
const { dirs, apps, makeApp } = suite;
const sockets: EventCollector[] = [];

beforeAll(suite.setUp);
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  await suite.closeApps();
});
afterAll(suite.tearDown);

async function create(app: FastifyInstance, cwd = dirs.cwd): Promise<Active> {
  const res = await call(app, "POST", "/api/pi/sessions", { cwd });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body["active"] as Active;
}

/** A new session that answered "first question" and "second question" (the app's script must match both). */
async function sessionWithTwoTurns(app: FastifyInstance): Promise<{ id: string; file: string }> {
  const { id } = await create(app);
  await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "first question" });
  await settled(app, id, 2);
  await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "second question" });
  await settled(app, id, 4);
  return { id, file: handleOf(app, id).sessionFile ?? "" };
}

/** Every line of a session file, parsed. */
function sessionLines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("runtime API (in-process workers)", () => {
  it("creates a session, prompts, streams events over WS; lists it, renames it, selects it, deletes it to the trash", async () => {
    const app = await makeApp({ turns: [{ match: "say hello", text: "Hello from the faux model." }] });
    const info = await call(app, "GET", "/api/pi/info");
    expect((info.body["capabilities"] as Record<string, boolean>)["events"]).toBe(true);
    const eventsUrl = await listenForEvents(app);
    const events = EventCollector.connect(eventsUrl);
    sockets.push(events);
    await events.opened;
    await events.until(() => events.messages.some((m) => m.type === "runtime_roster"), "initial roster");

    const cwd = path.join(dirs.root, "new-project", "nested");
    const created = await call(app, "POST", "/api/pi/sessions", { cwd });
    expect(created.status).toBe(200);
    expect(fs.statSync(cwd).isDirectory()).toBe(true);
    const active = created.body["active"] as Active;
    const detail = created.body["detail"] as { session: { id: string; cwd: string; messageCount: number }; entries: unknown[] };
    expect(active.cwd).toBe(cwd);
    expect(detail.session).toMatchObject({ id: active.id, cwd, messageCount: 0 });
    expect(app.leyline.host.activeSessionId).toBe(active.id);

    // runtime-only sessions (no file yet) come first in the list
    const listed = await call(app, "GET", "/api/pi/sessions");
    expect((listed.body["sessions"] as Array<{ id: string }>)[0]?.id).toBe(active.id);

    const prompted = await call(app, "POST", `/api/pi/sessions/${active.id}/prompt`, { text: "say hello" });
    expect(prompted.status).toBe(200);
    expect(prompted.body).toMatchObject({ ok: true, queued: false });
    expect((prompted.body["active"] as Active).id).toBe(active.id);

    await events.until(() => events.runtimeEvents(active.id).some((e) => e.type === "agent_end"), "agent_end on the socket");
    const piEvents = events.runtimeEvents(active.id);
    expect(piEvents.filter((e) => e.type === "stream_delta").length).toBeGreaterThan(0);
    expect(streamedReplies(piEvents)).toEqual(["Hello from the faux model."]);
    const actives = events.messages.filter((m) => m.type === "active_session" && (m.data as Active).id === active.id);
    expect(actives.length).toBeGreaterThan(1);
    // hello (seq 0), then the stream numbered from 1
    const seqs = events.messages.map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    expect(events.messages[0]?.type).toBe("hello");
    await settled(app, active.id, 2);

    // a second socket gets hello, one active_session per open runtime, then the roster
    const late = EventCollector.connect(eventsUrl);
    sockets.push(late);
    await late.until(() => late.messages.length >= 3, "late connect");
    expect(late.messages.slice(0, 3).map((m) => m.type)).toEqual(["hello", "active_session", "runtime_roster"]);

    const renamed = await call(app, "PATCH", `/api/pi/sessions/${active.id}`, { name: "  My   session " });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ ok: true, session: { id: active.id, name: "My session" } });
    expect((renamed.body["detail"] as { session: { name: string } }).session.name).toBe("My session");
    expect((await call(app, "PATCH", `/api/pi/sessions/${active.id}`, { name: "   " })).status).toBe(400);

    const sessionFile = handleOf(app, active.id).sessionFile ?? "";
    const state = await call(app, "GET", `/api/pi/state?cwd=${encodeURIComponent(cwd)}`);
    expect((state.body["active"] as Active).id).toBe(active.id);

    // select by path, then delete: the runtime closes and the file moves to <agentDir>/leyline-trash
    expect((await call(app, "POST", "/api/pi/active-session", { path: sessionFile })).body).toMatchObject({ active: { id: active.id } });
    const deleted = await call(app, "DELETE", `/api/pi/sessions/${active.id}`);
    expect(deleted.status).toBe(200);
    const trashed = (deleted.body["trashed"] as { path: string }).path;
    expect(path.dirname(trashed)).toBe(path.join(dirs.agentDir, "leyline-trash"));
    expect(fs.existsSync(trashed)).toBe(true);
    expect(fs.existsSync(sessionFile)).toBe(false);
    expect(app.leyline.host.get(active.id)).toBeUndefined();
    const after = await call(app, "GET", "/api/pi/sessions");
    expect((after.body["sessions"] as Array<{ id: string }>).map((s) => s.id)).not.toContain(active.id);
    expect((await call(app, "DELETE", `/api/pi/sessions/${active.id}`)).status).toBe(404);
    expect((await call(app, "POST", "/api/pi/prompt", { text: "x" })).body).toEqual({ error: "No active session" });
  });

  it("queues two prompts while busy, reorders them (409 on a stale revision), dispatches them; interrupt holds the rest", async () => {
    const app = await makeApp({
      turns: [
        { match: "long run", text: "word ".repeat(100) }, // ~2.5 s: still streaming while the queue is edited
        { match: "task A", text: "A done" },
        { match: "task B", text: "B done" },
        { match: "second long", text: "more ".repeat(200) },
      ],
      host: { faux: { tokensPerSecond: 40 } },
    });
    const { id } = await create(app);
    expect((await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "long run please" })).body).toMatchObject({ queued: false });
    const a = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "task A" });
    const b = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "task B" });
    expect(a.body["queued"]).toBe(true);
    expect(b.body["queued"]).toBe(true);
    const queue = (b.body["active"] as Active).state.promptQueue;
    expect(queue?.items.map((item) => item.text)).toEqual(["task A", "task B"]);
    const [idA, idB] = (queue?.items ?? []).map((item) => item.id);
    const revision = queue?.revision ?? -1;

    const moved = await call(app, "POST", `/api/pi/sessions/${id}/queue`, { action: "move", revision, id: idB, direction: "up" });
    expect(moved.status).toBe(200);
    expect((moved.body["active"] as Active).state.promptQueue?.items.map((item) => item.id)).toEqual([idB, idA]);
    const stale = await call(app, "POST", `/api/pi/sessions/${id}/queue`, { action: "move", revision, id: idA, direction: "up" });
    expect(stale.status).toBe(409);
    expect(Object.keys(stale.body)).toEqual(["error"]);
    expect((await call(app, "POST", `/api/pi/sessions/${id}/queue`, { action: "launch", revision })).status).toBe(400);

    await settled(app, id, 6);
    const users = messageTexts(handleOf(app, id).sessionFile ?? "").filter((text) => text.startsWith("user:"));
    expect(users).toEqual(["user:long run please", "user:task B", "user:task A"]);

    // interrupt a long run with a queued task: the run stops, the task stays held
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "second long run" });
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "never sent" });
    const interrupted = await call(app, "POST", `/api/pi/sessions/${id}/interrupt`);
    expect(interrupted.status).toBe(200);
    const after = interrupted.body["active"] as Active;
    expect(after.state.promptQueue).toMatchObject({ held: true });
    expect(after.state.promptQueue?.items.map((item) => item.text)).toEqual(["never sent"]);
    const rec = recordHost(app.leyline.host);
    await rec.until(() => !handleOf(app, id).busy(), "stopped");
    rec.stop();
    expect(handleOf(app, id).active().state.isStreaming).toBe(false);
  });

  it("compacts, changes model and thinking level, answers confirmations; unsupported actions say so", async () => {
    const app = await makeApp({
      turns: [
        { match: "first", text: "first answer" },
        { match: "second", text: "second answer" },
        { text: "SUMMARY-TEXT of the conversation" },
        { text: "PREFIX-SUMMARY of the split turn" },
      ],
    });
    const { id } = await create(app);
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "first" });
    await settled(app, id, 2);
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "second" });
    await settled(app, id, 4);

    const compacted = await call(app, "POST", `/api/pi/sessions/${id}/compact`, { customInstructions: "be brief" });
    expect(compacted.status, JSON.stringify(compacted.body)).toBe(200);
    expect(compacted.body["ok"]).toBe(true);
    const entries = (compacted.body["detail"] as { entries: Array<{ type: string }> }).entries;
    expect(entries.some((entry) => entry.type === "compaction")).toBe(true);
    expect((await call(app, "POST", `/api/pi/sessions/${id}/compact`, { customInstructions: 5 })).status).toBe(400);

    const thinking = await call(app, "POST", `/api/pi/sessions/${id}/thinking`, { level: "high" });
    expect(thinking.status).toBe(200);
    expect((thinking.body["active"] as Active).state.thinkingLevel).toBe("high");
    const badLevel = await call(app, "POST", `/api/pi/sessions/${id}/thinking`, { level: "ludicrous" });
    expect(badLevel.status).toBe(400);
    expect(badLevel.body["error"]).toMatch(/not available/);

    const model = await call(app, "POST", `/api/pi/sessions/${id}/model`, { provider: "faux", id: "faux-2" });
    expect(model.status).toBe(200);
    expect((model.body["active"] as Active).state.model).toMatchObject({ provider: "faux", id: "faux-2" });
    expect((await call(app, "POST", `/api/pi/sessions/${id}/model`, { provider: "faux", id: "nope" })).status).toBe(500);
    // a bad body is the client's error (400), an unknown model stays the spec's 500
    expect(await call(app, "POST", `/api/pi/sessions/${id}/model`, { provider: 1 })).toEqual({
      status: 400,
      body: { error: "provider must be a non-empty string" },
    });
    expect(await call(app, "POST", `/api/pi/sessions/${id}/model`, { provider: "faux" })).toEqual({
      status: 400,
      body: { error: "id must be a non-empty string" },
    });
    expect((await call(app, "POST", "/api/pi/model", { provider: "faux", id: "" })).status).toBe(400);

    // the legacy twins act on the selected session
    const legacy = await call(app, "POST", "/api/pi/thinking", { level: "off" });
    expect(legacy.status).toBe(200);
    expect((legacy.body["active"] as Active).id).toBe(id);
    expect((await call(app, "POST", "/api/pi/mode")).body).toMatchObject({ ok: true, active: { id } });
    expect((await call(app, "POST", `/api/pi/sessions/${id}/reload`)).body).toMatchObject({ ok: true, active: { id } });
    const bash = await call(app, "POST", `/api/pi/sessions/${id}/bash`, { command: "echo leyline-bash-output" });
    expect(bash.status, JSON.stringify(bash.body)).toBe(200);
    expect(JSON.stringify(bash.body["detail"])).toContain("leyline-bash-output");
    expect((await call(app, "POST", `/api/pi/sessions/${id}/bash`, { command: "  " })).status).toBe(500);

    // confirmations: unknown request → 409; a real one from an extension command → ok, then 409
    expect((await call(app, "POST", `/api/pi/sessions/${id}/extension-confirmations/nope`, { confirmed: true })).body).toEqual({
      error: "Confirmation is no longer pending",
    });
    expect((await call(app, "POST", `/api/pi/sessions/${id}/extension-confirmations/nope`, { confirmed: "yes" })).status).toBe(400);
    const handle = handleOf(app, id);
    const rec = recordHost(app.leyline.host);
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "/ask" });
    await rec.until(() => handle.active().state.extensionUi.confirmations.length === 1, "confirmation pending");
    const requestId = handle.active().state.extensionUi.confirmations[0]?.id ?? "";
    expect((await call(app, "POST", `/api/pi/sessions/${id}/extension-confirmations/${requestId}`, { confirmed: true })).body).toEqual({
      ok: true,
    });
    await rec.until(() => handle.active().state.extensionUi.statuses["leyline-test"] === "confirmed:true", "confirmed");
    rec.stop();
    expect((await call(app, "POST", `/api/pi/sessions/${id}/extension-confirmations/${requestId}`, { confirmed: true })).status).toBe(409);

    const ultrafast = await call(app, "POST", `/api/pi/sessions/${id}/ultrafast`, { enabled: true });
    expect(ultrafast).toEqual({ status: 500, body: { error: ULTRAFAST_UNAVAILABLE } });
    expect(await call(app, "POST", `/api/pi/sessions/${id}/ultrafast`, { enabled: "yes" })).toEqual({
      status: 400,
      body: { error: "enabled must be a boolean" },
    });
    expect((await call(app, "POST", `/api/pi/sessions/${id}/ultrafast`, {})).status).toBe(400);
  });

  it("edit-prompt (scoped and legacy) branches from the edited prompt's parent; bad input answers 400/404", async () => {
    const app = await makeApp({
      turns: [
        { match: "first question", text: "first answer" },
        { match: "second question", text: "second answer" },
        { match: "scoped edit", text: "scoped answer" },
        { match: "legacy edit", text: "legacy answer" },
      ],
    });
    const { id, file } = await sessionWithTwoTurns(app);
    const lines = () => sessionLines(file);
    const userLine = (text: string) =>
      lines().find(
        (line) =>
          line["type"] === "message" &&
          (line["message"] as { role: string }).role === "user" &&
          JSON.stringify(line["message"]).includes(text),
      );
    const first = userLine("first question");
    const second = userLine("second question");
    const firstAnswer = lines().find((line) => line["type"] === "message" && JSON.stringify(line["message"]).includes("first answer"));

    // bad input: nothing moves
    const url = `/api/pi/sessions/${id}/edit-prompt`;
    expect(await call(app, "POST", url, { entryId: "no-such-entry", text: "x" })).toEqual({
      status: 404,
      body: { error: "Entry no-such-entry not found" },
    });
    expect((await call(app, "POST", url, { entryId: String(firstAnswer?.["id"]), text: "x" })).status).toBe(400);
    expect((await call(app, "POST", url, { entryId: String(first?.["id"]), text: "  " })).status).toBe(400);
    expect((await call(app, "POST", url, { entryId: String(first?.["id"]) })).status).toBe(400);
    expect((await call(app, "POST", url, { text: "x" })).status).toBe(400);
    expect(
      (
        await call(app, "POST", url, {
          entryId: String(first?.["id"]),
          text: "x",
          images: [{ type: "image", data: "AA==", mimeType: "text/plain" }],
        })
      ).status,
    ).toBe(400);
    expect((await call(app, "POST", "/api/pi/sessions/unknown-id/edit-prompt", { entryId: "x", text: "y" })).status).toBe(404);
    expect(messageTexts(file)).toHaveLength(4);

    // scoped: edit the first prompt → a sibling of it
    const scoped = await call(app, "POST", url, { entryId: String(first?.["id"]), text: "scoped edit" });
    expect(scoped.status, JSON.stringify(scoped.body)).toBe(200);
    expect(scoped.body).toMatchObject({ ok: true, active: { id } });
    await settled(app, id, 6);
    expect(userLine("scoped edit")?.["parentId"]).toBe(first?.["parentId"]);
    expect(messageTexts(file).slice(-2)).toEqual(["user:scoped edit", "assistant:scoped answer"]);

    // legacy twin on the selected session: edit the second prompt (on the old branch) → a sibling of it
    await call(app, "POST", "/api/pi/active-session", { id });
    expect((await call(app, "POST", "/api/pi/edit-prompt", { entryId: "no-such-entry", text: "x" })).status).toBe(404);
    const legacy = await call(app, "POST", "/api/pi/edit-prompt", { entryId: String(second?.["id"]), text: "legacy edit" });
    expect(legacy.status, JSON.stringify(legacy.body)).toBe(200);
    expect(legacy.body).toMatchObject({ ok: true, active: { id } });
    await settled(app, id, 8);
    expect(userLine("legacy edit")?.["parentId"]).toBe(second?.["parentId"]);
    expect(messageTexts(file)).toEqual([
      "user:first question",
      "assistant:first answer",
      "user:second question",
      "assistant:second answer",
      "user:scoped edit",
      "assistant:scoped answer",
      "user:legacy edit",
      "assistant:legacy answer",
    ]);
  });

  it("forks (scoped and legacy) into selected sessions; reset-to-entry leaves a trash copy of the original", async () => {
    const app = await makeApp({
      turns: [
        { match: "first question", text: "first answer" },
        { match: "second question", text: "second answer" },
      ],
    });
    const { id, file } = await sessionWithTwoTurns(app);
    const lines = sessionLines(file);
    const firstAnswer = lines.find((line) => line["type"] === "message" && (line["message"] as { role: string }).role === "assistant");
    const entryId = String(firstAnswer?.["id"]);

    const scoped = await call(app, "POST", `/api/pi/sessions/${id}/fork`, { entryId });
    expect(scoped.status, JSON.stringify(scoped.body)).toBe(200);
    const forkId = (scoped.body["active"] as Active).id;
    expect(forkId).not.toBe(id);
    expect(app.leyline.host.activeSessionId).toBe(forkId);
    expect((scoped.body["detail"] as { session: { id: string } }).session.id).toBe(forkId);
    expect(await call(app, "POST", `/api/pi/sessions/${id}/fork`, { entryId: "no-such-entry" })).toEqual({
      status: 404,
      body: { error: "Entry no-such-entry not found" },
    });
    expect(app.leyline.host.activeSessionId).toBe(forkId);
    expect((await call(app, "POST", `/api/pi/sessions/${id}/fork`, {})).status).toBe(400);

    // legacy fork from the selected session (select the source first)
    await call(app, "POST", "/api/pi/active-session", { id });
    const legacy = await call(app, "POST", "/api/pi/fork", { entryId });
    expect(legacy.status).toBe(200);
    const legacyId = (legacy.body["active"] as Active).id;
    expect([id, forkId]).not.toContain(legacyId);

    // reset-to-entry on the selected (source) session
    await call(app, "POST", "/api/pi/active-session", { id });
    const original = fs.readFileSync(file);
    const reset = await call(app, "POST", "/api/pi/reset-to-entry", { entryId });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(messageTexts(file)).toEqual(["user:first question", "assistant:first answer"]);
    expect((reset.body["detail"] as { session: { messageCount: number } }).session.messageCount).toBe(3); // with pi 1.x's system message
    const trashDir = path.join(dirs.agentDir, "leyline-trash");
    const copies = fs.readdirSync(trashDir).filter((name) => name.startsWith(path.basename(file, ".jsonl")) && name.includes(".reset-"));
    expect(copies).toHaveLength(1);
    expect(fs.readFileSync(path.join(trashDir, copies[0] ?? "")).equals(original)).toBe(true);
    expect((await call(app, "POST", "/api/pi/reset-to-entry", { entryId: "no-such-entry" })).status).toBe(404);
  });

  it('GET /api/pi/state previews another folder with a throwaway runtime (id "", no file, nothing opened)', async () => {
    const app = await makeApp({ turns: [] });
    const folder = path.join(dirs.root, "preview-only");
    fs.mkdirSync(folder, { recursive: true });
    const before = dirs.sessionFiles();
    const state = await call(app, "GET", `/api/pi/state?cwd=${encodeURIComponent(folder)}&refresh=1`);
    expect(state.status, JSON.stringify(state.body)).toBe(200);
    const active = state.body["active"] as Active;
    expect(active.id).toBe("");
    expect(active.cwd).toBe(folder);
    expect(active.state.availableModels.some((model) => model.provider === "faux")).toBe(true);
    expect(dirs.sessionFiles()).toEqual(before);
    expect(app.leyline.host.openRuntimes()).toHaveLength(0);
    expect(app.leyline.host.activeWorkers()).toBe(0);
    expect((await call(app, "GET", `/api/pi/state?cwd=${encodeURIComponent(path.join(folder, "missing"))}`)).status).toBe(400);
  });

  it("after a restart on the same dirs the session is listed with its state rebuilt, and reopens on demand", async () => {
    const turns = [
      { match: "remember me", text: "remembered" },
      { match: "again", text: "again answered" },
    ];
    const first = await makeApp({ turns });
    const { id } = await create(first);
    await call(first, "POST", `/api/pi/sessions/${id}/prompt`, { text: "remember me" });
    await settled(first, id, 2);
    await first.close();
    apps.splice(apps.indexOf(first), 1);

    const second = await makeApp({ turns });
    const listed = await call(second, "GET", "/api/pi/sessions");
    const row = (listed.body["sessions"] as Array<{ id: string; messageCount: number; firstMessage: string }>).find((s) => s.id === id);
    expect(row).toMatchObject({ id, messageCount: 3, firstMessage: "remember me" }); // with pi 1.x's system message
    expect(second.leyline.host.get(id)).toBeUndefined();
    // a scoped action opens the runtime again
    const prompted = await call(second, "POST", `/api/pi/sessions/${id}/prompt`, { text: "again" });
    expect(prompted.status).toBe(200);
    await settled(second, id, 4);
  });

  it("refuses bodies of the wrong type at the route (the schema), before any action reaches the runtime", async () => {
    // These checks lived in the runtime handle before the contract; the handle now takes typed bodies.
    const app = await makeApp({ turns: [] });
    const { id } = await create(app);
    const cases: [string, Record<string, unknown>, number, string | RegExp][] = [
      ["edit-prompt", { entryId: "e1", text: 5 }, 400, "text must be a string"],
      ["edit-prompt", { entryId: "", text: "x" }, 400, "entryId must be a non-empty string"],
      ["edit-prompt", { entryId: "e1", text: "x", images: "not an array" }, 400, "images must be an array"],
      ["thinking", { level: 3 }, 400, "level must be a string"],
      ["queue", { action: "edit", id: "a", text: "x" }, 409, "Missing prompt queue revision"],
      ["queue", { action: "move", revision: "1", id: "a", direction: "up" }, 409, "Missing prompt queue revision"],
      ["compact", { customInstructions: 7 }, 400, "customInstructions must be a string"],
      ["bash", { command: ["ls"] }, 400, "command must be a string"],
      ["bash", { command: "ls", excludeFromContext: "yes" }, 400, "excludeFromContext must be a boolean"],
      ["fork", { entryId: 4 }, 400, "entryId must be a non-empty string"],
      ["ultrafast", { enabled: "on" }, 400, "enabled must be a boolean"],
      ["model", { provider: "faux" }, 400, "id must be a non-empty string"],
      [
        "prompt",
        { text: "x", images: [{ type: "image", data: "x" }] },
        400,
        'images[0] must be { type: "image", data: string, mimeType: string }',
      ],
    ];
    for (const [action, body, status, message] of cases) {
      const res = await call(app, "POST", `/api/pi/sessions/${id}/${action}`, body);
      expect({ action, status: res.status }).toEqual({ action, status });
      expect(String(res.body["error"])).toMatch(message);
    }
    const confirm = await call(app, "POST", `/api/pi/sessions/${id}/extension-confirmations/r1`, { confirmed: "yes" });
    expect(confirm).toMatchObject({ status: 400, body: { error: "confirmed must be a boolean" } });
    const rename = await call(app, "PATCH", `/api/pi/sessions/${id}`, { name: 5 });
    expect(rename).toMatchObject({ status: 400, body: { error: "name must be a string" } });
    const reset = await call(app, "POST", "/api/pi/reset-to-entry", { entryId: "" });
    expect(reset).toMatchObject({ status: 400, body: { error: "entryId must be a non-empty string" } });
  });
});
