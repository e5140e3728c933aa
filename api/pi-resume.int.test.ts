/**
 * Sessions Leyline writes open in pi 1.x as pi's CLI resumes them (`pi --resume` loads the file with its
 * SessionManager): a session with turns, a tool call, an edited prompt (a second branch) and a model change,
 * written through Leyline's API (in-process workers, faux model), reads in pi with the same active branch, the
 * same entries and the same model context as Leyline's detail shows.
 */
import fs from "node:fs";
import path from "node:path";
import * as pi from "@earendil-works/pi-coding-agent";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SessionDetail } from "../domain/session-detail.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { call, runtimeApiSuite, settled } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-pi-resume-");
const { dirs, makeApp } = suite;

beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

describe("a session Leyline wrote, resumed by pi 1.x", () => {
  it("has the branch, entries and model context Leyline shows", async () => {
    fs.writeFileSync(path.join(dirs.cwd, "notes.txt"), "resume me\n");
    const app = await makeApp({
      turns: [
        { match: "first question", toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
        { match: "first question", text: "The notes say: resume me." },
        { match: "second question", text: "second answer" },
        { match: "edited question", text: "edited answer" },
      ],
    });
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
    const { id } = created.body["active"] as Active;
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "first question" });
    await settled(app, id, 4);
    await call(app, "POST", `/api/pi/sessions/${id}/thinking`, { level: "low" });
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "second question" });
    await settled(app, id, 6);
    const detailBefore = (await call(app, "GET", `/api/pi/sessions/${id}`)).body as unknown as SessionDetail;
    const second = detailBefore.entries.find(
      (entry) => entry.type === "message" && entry.role === "user" && entry.text === "second question",
    );
    const edit = await call(app, "POST", `/api/pi/sessions/${id}/edit-prompt`, { entryId: second?.id, text: "edited question" });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    await settled(app, id, 8);
    await app.close();

    const detail = (await call(await makeApp(), "GET", `/api/pi/sessions/${id}`)).body as unknown as SessionDetail;
    const file = detail.session.sessionFile;
    // pi's CLI resumes by loading the file with its SessionManager (a copy: pi may write to what it opens)
    const copy = path.join(dirs.root, "resume-copy.jsonl");
    fs.copyFileSync(file, copy);
    const manager = pi.SessionManager.open(copy, path.dirname(copy));
    expect(manager.getSessionId()).toBe(id);
    expect(manager.getEntries().length).toBeGreaterThan(8);

    // the same active branch: Leyline's transcript entries are pi's branch entries, in order
    const branchIds = manager.getBranch().map((entry) => entry.id);
    const shownIds = detail.entries
      .map((entry) => (entry.type === "tool" ? entry.resultEntryId : entry.id))
      .filter((entryId) => entryId !== null);
    expect(branchIds.filter((entryId) => shownIds.includes(entryId))).toEqual(shownIds);
    expect(branchIds.at(-1)).toBe(shownIds.at(-1));

    // the same context: what pi sends the model on resume is the transcript's conversation
    const context = manager.buildSessionContext();
    const conversation = context.messages.filter((message) => message.role !== "system");
    const shownConversation = detail.entries.filter((entry) => entry.type === "message" || entry.type === "tool");
    expect(conversation.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant", "user", "assistant"]);
    expect(conversation.filter((message) => message.role === "user").map((message) => JSON.stringify(message.content))).toEqual([
      expect.stringContaining("first question"),
      expect.stringContaining("edited question"),
    ]);
    expect(
      shownConversation
        .filter((entry) => entry.type === "message" && entry.role === "user")
        .map((entry) => (entry.type === "message" ? entry.text : "")),
    ).toEqual(["first question", "edited question"]);
    expect(context.thinkingLevel).toBe(detail.session.thinkingLevel);
    expect(context.model).toEqual(
      detail.session.model === null ? null : { provider: detail.session.model.provider, modelId: detail.session.model.id },
    );
    // pi 1.x's stored system prompt is on the branch too, and Leyline shows it
    expect(detail.entries.some((entry) => entry.type === "system" && entry.code.startsWith("system prompt:"))).toBe(true);
  });
});
