/**
 * The session tree end to end over the real pi SDK (in-process workers, pi-ai's faux provider with scripted
 * replies) and real session files: GET tree and branch, navigate ("continue from here", with and without a branch
 * summary), labels, and fork from a user prompt. After a switch and a prompt, pi's own SessionManager reads the same
 * active branch; a switch without a write shows in the detail and the tree until the runtime writes or closes.
 */
import fs from "node:fs";
import path from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { contractChecker } from "../domain/contract/contract-check.ts";
import { SessionBranch, SessionTreeView as SessionTreeViewSchema } from "../domain/contract/http-session-tree.ts";
import type { SessionTreeView } from "../domain/session-tree-view.ts";
import type { TranscriptEntry } from "../domain/transcript/transcript-types.ts";
import { messageTexts } from "../adapters/runtime-host/runtime-host-test-support.ts";
import { call, handleOf, runtimeApiSuite, settled } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-tree-");
const { dirs, makeApp } = suite;

beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

interface Line {
  id: string;
  parentId: string | null;
  type: string;
  message?: { role: string; content: unknown };
}

const linesOf = (file: string): Line[] =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line.type !== "session");

const idOf = (file: string, text: string): string => {
  const line = linesOf(file).find((entry) => entry.type === "message" && JSON.stringify(entry.message?.content).includes(text));
  if (line === undefined) throw new Error(`no entry with ${text}`);
  return line.id;
};

// The routes send JSON the detail worker built (not serialized by Fastify): checked against the contract here.
const treeShape = contractChecker(SessionTreeViewSchema, "response");
const branchShape = contractChecker(SessionBranch, "response");

async function tree(app: FastifyInstance, id: string): Promise<SessionTreeView> {
  const res = await call(app, "GET", `/api/pi/sessions/${id}/tree`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(treeShape.failure(res.body)).toBeNull();
  return res.body as unknown as SessionTreeView;
}

/** The message texts ("role:text") of a transcript. */
function texts(entries: readonly TranscriptEntry[]): string[] {
  return entries.flatMap((entry) => (entry.type === "message" ? [`${entry.role}:${entry.text}`] : []));
}

async function detailTexts(app: FastifyInstance, id: string): Promise<string[]> {
  const res = await call(app, "GET", `/api/pi/sessions/${id}`);
  expect(res.status).toBe(200);
  return texts(res.body["entries"] as TranscriptEntry[]);
}

async function twoTurns(app: FastifyInstance): Promise<{ id: string; file: string }> {
  const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
  const { id } = created.body["active"] as Active;
  await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "first question" });
  await settled(app, id, 2);
  await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "second question" });
  await settled(app, id, 4);
  return { id, file: handleOf(app, id).sessionFile ?? "" };
}

describe("session tree", { timeout: 60_000 }, () => {
  it("shows every entry, continues from any entry without deleting, and pi reads the same branch after a prompt", async () => {
    const app = await makeApp({
      turns: [
        { match: "first question", text: "first answer" },
        { match: "second question", text: "second answer" },
        { match: "branch question", text: "branch answer" },
      ],
    });
    const { id, file } = await twoTurns(app);
    const firstAnswer = idOf(file, "first answer");
    const secondAnswer = idOf(file, "second answer");

    const before = await tree(app, id);
    expect(before.sessionId).toBe(id);
    expect(before.leafId).toBe(secondAnswer);
    expect(before.nodes.map((node) => node.id)).toEqual(linesOf(file).map((line) => line.id));
    expect(
      before.nodes.filter((node) => node.kind === "user" || node.kind === "assistant").map((node) => `${node.kind}:${node.text}`),
    ).toEqual(["user:first question", "assistant:first answer", "user:second question", "assistant:second answer"]);

    // Continue from the first answer: nothing is written, the detail and the tree show the branch ending there.
    const bytes = fs.readFileSync(file);
    const moved = await call(app, "POST", `/api/pi/sessions/${id}/navigate`, { entryId: firstAnswer });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body["editorText"]).toBeUndefined();
    expect(texts((moved.body["detail"] as { entries: TranscriptEntry[] }).entries)).toEqual([
      "user:first question",
      "assistant:first answer",
    ]);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect((await tree(app, id)).leafId).toBe(firstAnswer);
    expect(await detailTexts(app, id)).toEqual(["user:first question", "assistant:first answer"]);
    // Reset-to-entry judges "the active branch" as the screen shows it.
    expect((await call(app, "GET", `/api/pi/sessions/${id}/reset-preview?entryId=${firstAnswer}`)).status).toBe(200);
    expect((await call(app, "GET", `/api/pi/sessions/${id}/reset-preview?entryId=${secondAnswer}`)).status).toBe(400);

    // The next prompt continues from there: a new branch; the old one stays in the file.
    const prompted = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "branch question" });
    expect(prompted.status, JSON.stringify(prompted.body)).toBe(200);
    await settled(app, id, 6);
    const branchQuestion = linesOf(file).find((line) => JSON.stringify(line.message?.content ?? "").includes("branch question"));
    expect(branchQuestion?.parentId).toBe(firstAnswer);
    expect(linesOf(file).some((line) => line.id === secondAnswer)).toBe(true);
    const pi = SessionManager.open(file);
    const branchIds = pi.getBranch().map((entry) => entry.id);
    expect(branchIds).toContain(firstAnswer);
    expect(branchIds).not.toContain(secondAnswer);
    expect(pi.getLeafId()).toBe(idOf(file, "branch answer"));
    expect(await detailTexts(app, id)).toEqual([
      "user:first question",
      "assistant:first answer",
      "user:branch question",
      "assistant:branch answer",
    ]);
    const after = await tree(app, id);
    expect(after.leafId).toBe(idOf(file, "branch answer"));
    expect(after).toMatchObject({ from: 0, total: after.nodes.length });
    // A client holding the tree from before gets only what was appended since.
    const since = await call(app, "GET", `/api/pi/sessions/${id}/tree?from=${before.nodes.length}&after=${before.nodes.at(-1)?.id ?? ""}`);
    expect(since.status).toBe(200);
    expect(since.body).toMatchObject({ from: before.nodes.length, total: after.total, leafId: after.leafId });
    expect((since.body["nodes"] as SessionTreeView["nodes"]).map((node) => node.id)).toEqual(
      after.nodes.slice(before.nodes.length).map((node) => node.id),
    );
    expect((await call(app, "GET", `/api/pi/sessions/${id}/tree?from=${before.nodes.length}&after=stale`)).body["from"]).toBe(0);
    expect((await call(app, "GET", `/api/pi/sessions/${id}/tree?from=-1&after=x`)).status).toBe(400);
    expect(after.nodes.filter((node) => node.parentId === firstAnswer).map((node) => node.text)).toEqual([
      "second question",
      "branch question",
    ]);

    // Any branch's transcript, not only the active one.
    const old = await call(app, "GET", `/api/pi/sessions/${id}/branch?leafId=${encodeURIComponent(secondAnswer)}`);
    expect(old.status).toBe(200);
    expect(branchShape.failure(old.body)).toBeNull();
    expect(texts(old.body["entries"] as TranscriptEntry[])).toEqual([
      "user:first question",
      "assistant:first answer",
      "user:second question",
      "assistant:second answer",
    ]);
  });

  it("puts a user message back for the composer, labels entries, and summarizes the branch it leaves", async () => {
    const app = await makeApp({
      turns: [
        { match: "first question", text: "first answer" },
        { match: "second question", text: "second answer" },
        { text: "The abandoned branch asked a second question." },
      ],
    });
    const { id, file } = await twoTurns(app);
    const firstAnswer = idOf(file, "first answer");
    const secondQuestion = idOf(file, "second question");

    // A user message: the leaf goes to its parent, its text comes back.
    const moved = await call(app, "POST", `/api/pi/sessions/${id}/navigate`, { entryId: secondQuestion });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body["editorText"]).toBe("second question");
    expect((await tree(app, id)).leafId).toBe(firstAnswer);

    // Labels: set, seen by pi, cleared.
    const labelled = await call(app, "POST", `/api/pi/sessions/${id}/label`, { entryId: firstAnswer, label: "  checkpoint " });
    expect(labelled.status, JSON.stringify(labelled.body)).toBe(200);
    expect((await tree(app, id)).nodes.find((node) => node.id === firstAnswer)?.label).toBe("checkpoint");
    expect(SessionManager.open(file).getLabel(firstAnswer)).toBe("checkpoint");
    // The label entry hangs under the moved leaf: pi's file now ends on the branch the person chose.
    expect(
      SessionManager.open(file)
        .getBranch()
        .map((entry) => entry.id),
    ).not.toContain(secondQuestion);
    expect((await call(app, "POST", `/api/pi/sessions/${id}/label`, { entryId: firstAnswer, label: "" })).status).toBe(200);
    expect((await tree(app, id)).nodes.find((node) => node.id === firstAnswer)?.label).toBeUndefined();

    // Back to the first answer with a summary of the path left behind (a model call; the entry is written under
    // the entry navigated to, and becomes the leaf).
    await call(app, "POST", `/api/pi/sessions/${id}/navigate`, { entryId: idOf(file, "second answer") });
    const summarized = await call(app, "POST", `/api/pi/sessions/${id}/navigate`, { entryId: firstAnswer, summarize: true, label: "back" });
    expect(summarized.status, JSON.stringify(summarized.body)).toBe(200);
    const summaryId = String(summarized.body["summaryEntryId"]);
    const summary = linesOf(file).find((line) => line.id === summaryId);
    expect(summary).toMatchObject({ type: "branch_summary", parentId: firstAnswer });
    const view = await tree(app, id);
    expect(view.leafId).not.toBe(idOf(file, "second answer"));
    expect(view.nodes.find((node) => node.id === summaryId)).toMatchObject({ kind: "branch_summary", label: "back" });
    expect(view.nodes.find((node) => node.id === summaryId)?.text).toContain("abandoned branch");
  });

  it("forks before a user prompt and hands its text back; refuses bad input with the right status", async () => {
    const app = await makeApp({
      turns: [
        { match: "first question", text: "first answer" },
        { match: "second question", text: "second answer" },
        { match: "first question", text: "first answer, forked" },
      ],
    });
    const { id, file } = await twoTurns(app);
    const secondQuestion = idOf(file, "second question");

    const fork = await call(app, "POST", `/api/pi/sessions/${id}/fork`, { entryId: secondQuestion });
    expect(fork.status, JSON.stringify(fork.body)).toBe(200);
    expect(fork.body["editorText"]).toBe("second question");
    expect(texts((fork.body["detail"] as { entries: TranscriptEntry[] }).entries)).toEqual([
      "user:first question",
      "assistant:first answer",
    ]);

    // Before the first prompt: the fork has no message and no file yet, and works all the same.
    const first = await call(app, "POST", `/api/pi/sessions/${id}/fork`, { entryId: idOf(file, "first question") });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body["editorText"]).toBe("first question");
    const emptyFork = (first.body["active"] as Active).id;
    expect(texts((first.body["detail"] as { entries: TranscriptEntry[] }).entries)).toEqual([]);
    const again = await call(app, "POST", `/api/pi/sessions/${emptyFork}/prompt`, { text: "first question" });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await settled(app, emptyFork, 2);
    expect(messageTexts(handleOf(app, emptyFork).sessionFile ?? "")).toEqual(["user:first question", "assistant:first answer, forked"]);

    const url = `/api/pi/sessions/${id}`;
    expect(await call(app, "POST", `${url}/navigate`, { entryId: "nope" })).toEqual({
      status: 404,
      body: { error: "Entry nope not found" },
    });
    expect((await call(app, "POST", `${url}/navigate`, {})).status).toBe(400);
    expect((await call(app, "POST", `${url}/navigate`, { entryId: secondQuestion, summarize: "yes" })).status).toBe(400);
    expect((await call(app, "POST", `${url}/label`, { entryId: secondQuestion, label: "x".repeat(201) })).status).toBe(400);
    expect(await call(app, "POST", `${url}/label`, { entryId: "nope", label: "x" })).toEqual({
      status: 404,
      body: { error: "Entry nope not found" },
    });
    expect((await call(app, "GET", "/api/pi/sessions/no-such-session/tree")).status).toBe(404);
    expect((await call(app, "GET", `${url}/branch`)).status).toBe(400);
    expect(await call(app, "GET", `${url}/branch?leafId=nope`)).toEqual({ status: 404, body: { error: "Entry nope not found" } });
  });

  it("answers each branch's own research ledger (a research session whose branches found different sources)", async () => {
    const id = "5d2c3b1a-0000-4000-8000-00000000b0a1";
    const at = (n: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    const research = (kind: string, extra: Record<string, unknown>) => ({
      type: "custom",
      customType: "leyline-research",
      data: { version: 1, sessionId: id, kind, ...extra },
    });
    const source = (url: string, title: string) => research("source", { source: { url, title, kind: "web", status: "candidate" } });
    const lines = [
      { type: "session", version: 3, id, timestamp: at(0), cwd: dirs.cwd },
      { ...research("session", { objective: "Compare two reading lists" }), id: "r1", parentId: null, timestamp: at(1) },
      { ...source("https://shared.test/a", "Shared"), id: "s1", parentId: "r1", timestamp: at(2) },
      { ...source("https://left.test/b", "Left only"), id: "s2", parentId: "s1", timestamp: at(3) },
      { ...source("https://right.test/c", "Right only"), id: "s3", parentId: "s1", timestamp: at(4) },
    ];
    const folder = path.join(dirs.agentDir, "sessions", "--research-branches--");
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `${id}.jsonl`), lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    const app = await makeApp();
    // The suite's data dir is warm (earlier tests' apps): the index lists the new file once it re-checked the disk.
    await expect.poll(async () => (await call(app, "GET", `/api/pi/sessions/${id}/tree`)).status, { timeout: 15_000 }).toBe(200);
    const titles = async (leafId: string): Promise<string[]> => {
      const res = await call(app, "GET", `/api/pi/sessions/${id}/branch?leafId=${leafId}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(branchShape.failure(res.body)).toBeNull();
      return (res.body["research"] as { sources: Array<{ title: string }> }).sources.map((s) => s.title);
    };
    expect(await titles("s2")).toEqual(["Shared", "Left only"]);
    expect(await titles("s3")).toEqual(["Shared", "Right only"]);
  });

  it("a switch that was never written ends when the runtime closes: pi would reopen at the file's last entry", async () => {
    const app = await makeApp({
      turns: [
        { match: "first question", text: "first answer" },
        { match: "second question", text: "second answer" },
      ],
    });
    const { id, file } = await twoTurns(app);
    const firstAnswer = idOf(file, "first answer");
    expect((await call(app, "POST", `/api/pi/sessions/${id}/navigate`, { entryId: firstAnswer })).status).toBe(200);
    expect((await tree(app, id)).leafId).toBe(firstAnswer);
    await app.leyline.host.close(id);
    await expect.poll(async () => (await tree(app, id)).leafId).toBe(idOf(file, "second answer"));
    expect(await detailTexts(app, id)).toHaveLength(4);
  });
});
