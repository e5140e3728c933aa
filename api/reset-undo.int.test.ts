/**
 * Reset-to-entry end to end with a real RuntimeHost (in-process workers) and real session files: the
 * read-only preview counts exactly what the cut removes (file order, other branches included), the reset
 * answers its trash copy, reset-undo puts the original bytes back (and keeps the current file in the trash
 * too), bad undo requests change nothing, and files outside `<agentDir>/sessions` (pi's --session-dir) have
 * their reset and delete copies in `<agentDir>/leyline-trash`, never in the project.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { jsonlLines, messageTexts } from "../adapters/runtime-host/runtime-host-test-support.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { call, handleOf, runtimeApiSuite, settled } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-reset-undo-");
const { dirs, makeApp } = suite;

beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

const TURNS = [
  { match: "first question", text: "first answer" },
  { match: "second question", text: "second answer" },
  { match: "edited question", text: "edited answer" },
];

type Line = Record<string, unknown>;

function messageLine(file: string, text: string): Line {
  const found = jsonlLines(file).find((line) => line["type"] === "message" && JSON.stringify(line["message"]).includes(text));
  if (!found) throw new Error(`no message with ${text}`);
  return found;
}

/**
 * A session with two branches: u1 a1 u2 a2, then u2 edited (u2' a2' are siblings of u2 a2 under a1), then a
 * thinking change at the leaf (a non-message entry). The active branch ends … a1 u2' a2' thinking.
 */
async function branchedSession(app: FastifyInstance): Promise<{ id: string; file: string }> {
  const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
  const { id } = created.body["active"] as Active;
  await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "first question" });
  await settled(app, id, 2);
  await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "second question" });
  await settled(app, id, 4);
  const file = handleOf(app, id).sessionFile ?? "";
  const second = messageLine(file, "second question");
  const edited = await call(app, "POST", `/api/pi/sessions/${id}/edit-prompt`, { entryId: second["id"], text: "edited question" });
  expect(edited.status, JSON.stringify(edited.body)).toBe(200);
  await settled(app, id, 6);
  // (pi keeps the last level as its default: pick one this session is not at, so an entry is appended)
  const { state } = handleOf(app, id).active();
  const level = state.availableThinkingLevels.find((candidate) => candidate !== state.thinkingLevel && candidate !== "off");
  expect((await call(app, "POST", `/api/pi/sessions/${id}/thinking`, { level })).status).toBe(200);
  expect(jsonlLines(file).at(-1)?.["type"]).toBe("thinking_level_change");
  return { id, file };
}

function trashDir(): string {
  return path.join(dirs.agentDir, "leyline-trash");
}

describe("reset-to-entry: preview, trash copy, undo", () => {
  it("the preview counts every entry after the chosen one in file order (other branches too), read-only", async () => {
    const app = await makeApp({ turns: TURNS });
    const { id, file } = await branchedSession(app);
    const firstAnswer = messageLine(file, "first answer");
    const all = jsonlLines(file).slice(1); // entries (the header is line 0)
    const cut = all.findIndex((line) => line["id"] === firstAnswer["id"]);

    // Read-only: the runtime is closed, the preview starts none and changes no byte or mtime.
    await app.leyline.host.close(id);
    const before = { bytes: fs.readFileSync(file), mtimeMs: fs.statSync(file).mtimeMs };
    const preview = await call(app, "GET", `/api/pi/sessions/${id}/reset-preview?entryId=${String(firstAnswer["id"])}`);
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    // after a1 in file order: u2 a2 (the old branch), u2' a2' and the thinking change
    expect(preview.body).toEqual({
      entryId: firstAnswer["id"],
      removedEntryCount: 5,
      removedMessageCount: 4,
      removedOtherBranchEntryCount: 2,
      keptEntryCount: cut + 1,
    });
    expect(app.leyline.host.openRuntimes()).toHaveLength(0);
    expect(app.leyline.host.activeWorkers()).toBe(0);
    expect(fs.readFileSync(file).equals(before.bytes)).toBe(true);
    expect(fs.statSync(file).mtimeMs).toBe(before.mtimeMs);

    // the reset removes exactly what the preview said
    await call(app, "POST", "/api/pi/active-session", { id });
    const reset = await call(app, "POST", "/api/pi/reset-to-entry", { entryId: firstAnswer["id"] });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(jsonlLines(file).slice(1)).toHaveLength(cut + 1);
    expect(all.length - (cut + 1)).toBe(5);

    // bad previews
    const oldBranch = messageLine(
      path.join(trashDir(), fs.readdirSync(trashDir()).find((name) => name.includes(".reset-")) ?? ""),
      "second answer",
    );
    expect(await call(app, "GET", `/api/pi/sessions/${id}/reset-preview`)).toEqual({ status: 400, body: { error: "entryId is required" } });
    expect(await call(app, "GET", `/api/pi/sessions/${id}/reset-preview?entryId=nope`)).toEqual({
      status: 404,
      body: { error: "Entry nope not found" },
    });
    expect(await call(app, "GET", `/api/pi/sessions/unknown-session/reset-preview?entryId=x`)).toEqual({
      status: 404,
      body: { error: "Session not found" },
    });
    expect((await call(app, "GET", `/api/pi/sessions/${id}/reset-preview?entryId=${String(oldBranch["id"])}`)).status).toBe(404);
  });

  it("an entry on another branch: preview and reset both answer 400", async () => {
    const app = await makeApp({ turns: TURNS });
    const { id, file } = await branchedSession(app);
    const oldAnswer = messageLine(file, "second answer");
    const preview = await call(app, "GET", `/api/pi/sessions/${id}/reset-preview?entryId=${String(oldAnswer["id"])}`);
    expect(preview).toEqual({ status: 400, body: { error: `Entry ${String(oldAnswer["id"])} is not on the active branch` } });
    await call(app, "POST", "/api/pi/active-session", { id });
    expect((await call(app, "POST", "/api/pi/reset-to-entry", { entryId: oldAnswer["id"] })).status).toBe(400);
  });

  it("reset answers its trash copy; undo restores the original bytes exactly and keeps the cut file in the trash", async () => {
    const app = await makeApp({ turns: TURNS });
    const { id, file } = await branchedSession(app);
    const original = fs.readFileSync(file);
    const firstAnswer = messageLine(file, "first answer");
    await call(app, "POST", "/api/pi/active-session", { id });
    const reset = await call(app, "POST", "/api/pi/reset-to-entry", { entryId: firstAnswer["id"] });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    const copy = (reset.body["trashed"] as { path: string }).path;
    expect(path.dirname(copy)).toBe(trashDir());
    expect(fs.readFileSync(copy).equals(original)).toBe(true);
    const cutBytes = fs.readFileSync(file);
    expect(cutBytes.length).toBeLessThan(original.length);

    // bad undo requests change nothing and leave the runtime open
    const url = `/api/pi/sessions/${id}/reset-undo`;
    expect(await call(app, "POST", url, {})).toEqual({ status: 400, body: { error: "trashPath must be a non-empty string" } });
    expect((await call(app, "POST", url, { trashPath: file })).status).toBe(400);
    const outside = path.join(dirs.root, path.basename(copy));
    fs.copyFileSync(copy, outside);
    expect(await call(app, "POST", url, { trashPath: outside })).toEqual({
      status: 400,
      body: { error: "trashPath must be a reset copy in leyline-trash" },
    });
    expect(await call(app, "POST", url, { trashPath: path.join(trashDir(), "x.reset-2026-01-01T00-00-00-000Z.jsonl") })).toEqual({
      status: 404,
      body: { error: "Trash copy not found" },
    });
    const foreign = path.join(trashDir(), "other.reset-2026-01-01T00-00-00-000Z.jsonl");
    fs.writeFileSync(
      foreign,
      `${JSON.stringify({ type: "session", version: 3, id: "another-session", timestamp: "2026-01-01T00:00:00.000Z", cwd: dirs.cwd })}\n`,
    );
    expect(await call(app, "POST", url, { trashPath: foreign })).toEqual({
      status: 400,
      body: { error: "The trash copy belongs to another session" },
    });
    expect((await call(app, "POST", "/api/pi/sessions/unknown-session/reset-undo", { trashPath: copy })).status).toBe(404);
    expect(fs.readFileSync(file).equals(cutBytes)).toBe(true);
    expect(app.leyline.host.get(id)).toBeDefined();

    // undo: the runtime is closed, the original bytes are back, the cut file went to the trash
    const undo = await call(app, "POST", url, { trashPath: copy });
    expect(undo.status, JSON.stringify(undo.body)).toBe(200);
    expect(undo.body["ok"]).toBe(true);
    expect(app.leyline.host.get(id)).toBeUndefined();
    expect(fs.readFileSync(file).equals(original)).toBe(true);
    const kept = (undo.body["trashed"] as { path: string }).path;
    expect(path.dirname(kept)).toBe(trashDir());
    expect(path.basename(kept)).toMatch(/\.undo-/);
    expect(fs.readFileSync(kept).equals(cutBytes)).toBe(true);
    const detail = undo.body["detail"] as { session: { id: string; messageCount: number } };
    expect(detail.session).toMatchObject({ id, messageCount: 7 }); // six conversation messages and pi 1.x's system message

    // the undo can be undone in turn (its copy is a restorable one), and the session reopens on demand
    expect((await call(app, "POST", url, { trashPath: kept })).status).toBe(200);
    expect(fs.readFileSync(file).equals(cutBytes)).toBe(true);
    expect((await call(app, "POST", url, { trashPath: copy })).status).toBe(200);
    expect(fs.readFileSync(file).equals(original)).toBe(true);
    const state = await call(app, "POST", "/api/pi/active-session", { id });
    expect(state.status).toBe(200);
    expect(messageTexts(handleOf(app, id).sessionFile ?? "")).toHaveLength(6);
  });

  it("a session file outside <agentDir>/sessions: reset and delete copies go to <agentDir>/leyline-trash", async () => {
    const app = await makeApp({ turns: TURNS });
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
    const { id } = created.body["active"] as Active;
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "first question" });
    await settled(app, id, 2);
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "second question" });
    await settled(app, id, 4);
    const inSessions = handleOf(app, id).sessionFile ?? "";
    await app.leyline.host.close(id);
    // as pi --session-dir <project>/.pi/sessions writes it: inside the user's project
    const projectSessions = path.join(dirs.cwd, ".pi", "sessions");
    fs.mkdirSync(projectSessions, { recursive: true });
    const file = path.join(projectSessions, path.basename(inSessions));
    fs.renameSync(inSessions, file);

    const opened = await call(app, "POST", "/api/pi/active-session", { path: file });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const firstAnswer = messageLine(file, "first answer");
    const reset = await call(app, "POST", "/api/pi/reset-to-entry", { entryId: firstAnswer["id"] });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(path.dirname((reset.body["trashed"] as { path: string }).path)).toBe(trashDir());

    const deleted = await call(app, "DELETE", `/api/pi/sessions/${id}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(path.dirname((deleted.body["trashed"] as { path: string }).path)).toBe(trashDir());
    expect(fs.existsSync(file)).toBe(false);
    // nothing was left in the project
    const inProject = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((entry) => (entry.isDirectory() ? inProject(path.join(dir, entry.name)) : [entry.name]));
    expect(inProject(dirs.cwd).filter((name) => name.endsWith(".jsonl"))).toEqual([]);
    expect(fs.existsSync(path.join(dirs.cwd, ".pi", "leyline-trash"))).toBe(false);
  });
});
