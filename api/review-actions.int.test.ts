/**
 * POST /api/pi/review/{stage,unstage,hunk,discard,commit} over real Fastify (testApp + inject) on real
 * repositories: each route's answer and its effect checked with git, every refusal's status and message, 400 for
 * bodies off the contract, 403 for a foreign Origin (nothing changes). The agent gate runs against a real
 * runtime host: a faux reply streamed slowly keeps the session's agent mid-turn in the repository.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  committedRepo,
  conflictedRepo,
  git,
  read,
  stagedNames,
  statusLines,
  tempDir,
  writeFiles,
} from "../adapters/git-review/git-repo.fixture.ts";
import { recordHost } from "../adapters/runtime-host/runtime-host-test-support.ts";
import {
  CONFLICTED_REPOSITORY,
  CONFIRM_DISCARD,
  HUNK_GONE,
  NOT_A_REPOSITORY,
  NOTHING_STAGED,
} from "../domain/git-review-actions/review-action-rules.ts";
import { closeTestApps, testApp } from "./app.fixture.ts";
import { call, handleOf, runtimeApiSuite, settled } from "./runtime-api.fixture.ts";

afterAll(closeTestApps);

async function post(app: FastifyInstance, action: string, payload: unknown, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: "POST", url: `/api/pi/review/${action}`, payload: payload as object, headers });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

/** The working section's patch of one file, as GET /api/pi/review/diff shows it to the person. */
/** A new session in `cwd` whose agent is mid-turn (a slow scripted "long run" reply is streaming); its id. */
async function agentMidTurn(app: FastifyInstance, cwd: string): Promise<string> {
  const created = await call(app, "POST", "/api/pi/sessions", { cwd });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = (created.body["active"] as { id: string }).id;
  expect((await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "long run please" })).status).toBe(200);
  const rec = recordHost(app.leyline.host);
  try {
    await rec.until(() => handleOf(app, id).active().state.isStreaming, "streaming");
  } finally {
    rec.stop();
  }
  return id;
}

async function workingPatch(app: FastifyInstance, cwd: string, file: string): Promise<string> {
  const res = await app.inject({ method: "GET", url: `/api/pi/review/diff?${new URLSearchParams({ cwd, path: file }).toString()}` });
  expect(res.statusCode, res.body).toBe(200);
  const { diffs } = res.json<{ diffs: Array<{ scope: string; patch: string }> }>();
  return diffs.find((section) => section.scope === "working")?.patch ?? "";
}

describe("review action routes", () => {
  it("stage, unstage, hunk, discard and commit, each checked with git", async () => {
    const { app, dirs } = await testApp();
    const twelve = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const root = committedRepo({ "f.txt": twelve, "keep.txt": "k\n" });
    writeFiles(root, {
      "f.txt": twelve.replace("line 1\n", "LINE 1\n").replace("line 12", "LINE 12"),
      "new.txt": "new\n",
      "keep.txt": "k2\n",
    });

    expect(await post(app, "stage", { cwd: root, paths: ["new.txt", "keep.txt"] })).toEqual({ status: 200, body: { ok: true } });
    expect(stagedNames(root)).toEqual(["keep.txt", "new.txt"]);
    expect(await post(app, "unstage", { cwd: root, paths: ["keep.txt"] })).toEqual({ status: 200, body: { ok: true } });
    expect(stagedNames(root)).toEqual(["new.txt"]);

    const diff = await workingPatch(app, root, "f.txt");
    const second = diff.slice(diff.lastIndexOf("\n@@") + 1);
    expect(second).toMatch(/^@@ -9,4 \+9,4 @@/);
    const hunk = { cwd: root, path: "f.txt", scope: "working", action: "stage", hunk: second };
    expect(await post(app, "hunk", hunk)).toEqual({ status: 200, body: { ok: true } });
    expect(git(root, ["diff", "--cached", "--", "f.txt"])).toMatch(/\+LINE 12/);
    expect(git(root, ["diff", "--cached", "--", "f.txt"])).not.toMatch(/\+LINE 1\n/);
    expect(await post(app, "hunk", hunk)).toEqual({ status: 409, body: { error: HUNK_GONE } }); // already staged

    const discarded = await post(app, "discard", { cwd: root, path: "keep.txt", confirm: true });
    expect(discarded.status).toBe(200);
    const backupPath = discarded.body["backupPath"] as string;
    expect(path.dirname(backupPath)).toBe(path.join(dirs.agentDir, "leyline-trash", "review"));
    expect(fs.readFileSync(backupPath, "utf8")).toBe("k2\n");
    expect(read(root, "keep.txt")).toBe("k\n");

    const committed = await post(app, "commit", { cwd: root, message: "Add new.txt\n\nand the last line" });
    expect(committed).toEqual({ status: 200, body: { ok: true, commit: git(root, ["rev-parse", "HEAD"]).trim(), summary: "Add new.txt" } });
    expect(git(root, ["log", "-1", "--format=%B"])).toBe("Add new.txt\n\nand the last line\n\n");
    expect(statusLines(root)).toEqual([" M f.txt"]);
    expect(await post(app, "commit", { cwd: root, message: "again" })).toEqual({ status: 409, body: { error: NOTHING_STAGED } });
  });

  it("stages the first hunk GET /review/diff shows, with diff.context and diff.noprefix set in the repository", async () => {
    const { app } = await testApp();
    const thirty = Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join("\n") + "\n";
    const root = committedRepo({ "a.txt": thirty });
    git(root, ["config", "diff.context", "1"]);
    git(root, ["config", "diff.noprefix", "true"]);
    writeFiles(root, { "a.txt": thirty.replace("l10\n", "TEN\n").replace("l25\n", "TWENTYFIVE\n") });
    const patch = await workingPatch(app, root, "a.txt");
    const first = patch.slice(patch.indexOf("@@"), patch.indexOf("\n@@", patch.indexOf("@@")) + 1);
    expect(first).toMatch(/^@@ -7,7 \+7,7 @@/);
    expect(await post(app, "hunk", { cwd: root, path: "a.txt", scope: "working", action: "stage", hunk: first })).toEqual({
      status: 200,
      body: { ok: true },
    });
    const cached = git(root, ["diff", "--cached", "--", "a.txt"]);
    expect(cached).toMatch(/^\+TEN$/m);
    expect(cached).not.toMatch(/TWENTYFIVE/);
  });

  it("refuses a relative cwd (400) instead of resolving it against the server's folder", async () => {
    const { app } = await testApp();
    for (const cwd of ["leyline-no-such-folder", ".", "./x"]) {
      expect(await post(app, "stage", { cwd, paths: ["leyline-no-such-file"] }), cwd).toEqual({
        status: 400,
        body: { error: "cwd must be an absolute path" },
      });
    }
  });

  it("refuses outside a repository (409), for a folder that is not one (500), in a conflicted repository (409)", async () => {
    const { app } = await testApp();
    const plain = tempDir();
    expect(await post(app, "stage", { cwd: plain, paths: ["x"] })).toEqual({ status: 409, body: { error: NOT_A_REPOSITORY } });
    const missing = await post(app, "commit", { cwd: path.join(plain, "missing"), message: "m" });
    expect(missing.status).toBe(500);
    expect(missing.body["error"]).toMatch(/^cwd is not a readable folder/);

    const root = conflictedRepo();
    for (const [action, body] of [
      ["stage", { cwd: root, paths: ["f.txt"] }],
      ["unstage", { cwd: root, paths: ["f.txt"] }],
      ["hunk", { cwd: root, path: "f.txt", scope: "working", action: "stage", hunk: "@@ -1 +1 @@\n-a\n+b\n" }],
      ["discard", { cwd: root, path: "f.txt", confirm: true }],
      ["commit", { cwd: root, message: "m" }],
    ] as const) {
      expect(await post(app, action, body), action).toEqual({ status: 409, body: { error: CONFLICTED_REPOSITORY } });
    }
  });

  it("answers 400 for bodies off the contract, before touching the repository", async () => {
    const { app } = await testApp();
    const root = committedRepo({ "f.txt": "a\n" });
    writeFiles(root, { "f.txt": "b\n" });
    const cases: Array<[string, unknown, string | RegExp]> = [
      ["stage", {}, "cwd must be a non-empty string"],
      ["stage", { cwd: "", paths: ["f.txt"] }, "cwd must be a non-empty string"],
      ["stage", { cwd: root }, "paths must be a list of paths"],
      ["stage", { cwd: root, paths: "f.txt" }, "paths must be a list of paths"],
      ["stage", { cwd: root, paths: [] }, "paths must name at least one file"],
      ["stage", { cwd: root, paths: Array.from({ length: 501 }, (_, i) => `f${i}`) }, "paths may name at most 500 files"],
      ["stage", { cwd: root, paths: [7] }, "paths[0] must be a string"],
      ["stage", { cwd: root, paths: ["../f.txt"] }, /must name a file inside the repository/],
      ["stage", { cwd: root, paths: ["/etc/passwd"] }, /must be relative to the repository root/],
      ["unstage", { cwd: root, paths: ["a\u0000b"] }, /control character/],
      ["stage", { cwd: root, paths: ["f.txt"], force: true }, "body has an unsupported field"],
      ["stage", { cwd: root, paths: ["f.txt"], whileAgentWorks: "yes" }, "whileAgentWorks must be a boolean"],
      ["stage", [root], "Request body must be a JSON object"],
      [
        "hunk",
        { cwd: root, path: "f.txt", scope: "index", action: "stage", hunk: "@@ -1 +1 @@\n-a\n+b\n" },
        'scope must be "working" or "staged"',
      ],
      [
        "hunk",
        { cwd: root, path: "f.txt", scope: "working", action: "discard", hunk: "@@ -1 +1 @@\n-a\n+b\n" },
        'action must be "stage" or "unstage"',
      ],
      ["hunk", { cwd: root, path: "f.txt", scope: "working", action: "stage" }, "hunk must be the text of one hunk, from its @@ line"],
      ["hunk", { cwd: root, path: "f.txt", scope: "working", action: "stage", hunk: "-a\n+b\n" }, /^hunk must be one hunk of the diff/],
      [
        "hunk",
        { cwd: root, path: "f.txt", scope: "working", action: "unstage", hunk: "@@ -1 +1 @@\n-a\n+b\n" },
        /A working hunk can only be staged/,
      ],
      ["discard", { cwd: root, path: "f.txt" }, CONFIRM_DISCARD],
      ["discard", { cwd: root, path: "f.txt", confirm: false }, CONFIRM_DISCARD],
      ["discard", { cwd: root, path: "f.txt", confirm: "yes" }, "confirm must be true"],
      ["discard", { cwd: root, confirm: true }, "path must be a non-empty string"],
      ["commit", { cwd: root }, "message must be a string"],
      ["commit", { cwd: root, message: "   " }, "Write a commit message."],
      ["commit", { cwd: root, message: "x".repeat(64 * 1024 + 1) }, "The commit message is too long (at most 64 KiB)."],
    ];
    for (const [action, body, message] of cases) {
      const res = await post(app, action, body);
      const where = `${action} ${JSON.stringify(body).slice(0, 120)}`;
      expect(res.status, where).toBe(400);
      expect(Object.keys(res.body), where).toEqual(["error"]);
      if (typeof message === "string") expect(res.body["error"], where).toBe(message);
      else expect(res.body["error"], where).toMatch(message);
    }
    expect(statusLines(root)).toEqual([" M f.txt"]);
    expect(read(root, "f.txt")).toBe("b\n");
  });

  it("refuses a foreign Origin (403) and changes nothing", async () => {
    const { app } = await testApp();
    const root = committedRepo({ "f.txt": "a\n" });
    writeFiles(root, { "f.txt": "b\n", "new.txt": "n\n" });
    const evil = { origin: "https://evil.example" };
    for (const [action, body] of [
      ["stage", { cwd: root, paths: ["f.txt"] }],
      ["discard", { cwd: root, path: "new.txt", confirm: true }],
      ["commit", { cwd: root, message: "m" }],
    ] as const) {
      const res = await post(app, action, body, evil);
      expect(res.status, action).toBe(403);
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
    expect(statusLines(root)).toEqual([" M f.txt", "?? new.txt"]);
  });
});

describe("review actions while a session's agent is mid-turn in the repository", () => {
  const suite = runtimeApiSuite("leyline-review-rt-");
  beforeAll(suite.setUp);
  afterEach(suite.closeApps);
  afterAll(suite.tearDown);

  it("answers 409 naming the session until the person confirms or the turn ends", async () => {
    const app = await suite.makeApp({
      turns: [{ match: "long run", text: "word ".repeat(100) }], // ~2.5 s of streaming
      host: { faux: { tokensPerSecond: 40 } },
    });
    const root = committedRepo({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    writeFiles(root, { "a.txt": "a2\n", "b.txt": "b2\n", "c.txt": "c2\n" });
    // the session works in a subfolder reached through a symbolic link: still this repository
    fs.mkdirSync(path.join(root, "src"));
    const link = path.join(tempDir(), "linked-project");
    fs.symlinkSync(root, link);
    const id = await agentMidTurn(app, path.join(link, "src"));

    expect(await post(app, "stage", { cwd: root, paths: ["a.txt"] })).toEqual({
      status: 409,
      body: { error: `The agent is working in this repository (session ${id}). Wait for its turn to end, or confirm to act anyway.` },
    });
    expect(stagedNames(root)).toEqual([]);
    expect(await post(app, "stage", { cwd: root, paths: ["a.txt"], whileAgentWorks: true })).toEqual({ status: 200, body: { ok: true } });
    expect(stagedNames(root)).toEqual(["a.txt"]);
    // another repository is not this agent's
    const elsewhere = committedRepo({ "x.txt": "x\n" });
    writeFiles(elsewhere, { "x.txt": "y\n" });
    expect((await post(app, "stage", { cwd: elsewhere, paths: ["x.txt"] })).status).toBe(200);

    await settled(app, id, 2);
    expect(await post(app, "stage", { cwd: root, paths: ["b.txt"] })).toEqual({ status: 200, body: { ok: true } });
    expect(stagedNames(root)).toEqual(["a.txt", "b.txt"]);
  });

  it("counts an agent working in a parent folder of the repository (reached through a symbolic link too)", async () => {
    const app = await suite.makeApp({
      turns: [{ match: "long run", text: "word ".repeat(100) }],
      host: { faux: { tokensPerSecond: 40 } },
    });
    const parent = tempDir("review-parent");
    const root = path.join(parent, "proj");
    fs.mkdirSync(root);
    git(root, ["init", "-q"]);
    writeFiles(root, { "a.txt": "a\n" });
    const link = path.join(tempDir(), "linked-parent");
    fs.symlinkSync(parent, link);
    const id = await agentMidTurn(app, link);
    expect(await post(app, "stage", { cwd: root, paths: ["a.txt"] })).toEqual({
      status: 409,
      body: { error: `The agent is working in this repository (session ${id}). Wait for its turn to end, or confirm to act anyway.` },
    });
    expect(stagedNames(root)).toEqual([]);
    // a repository beside the parent folder is not this agent's
    const elsewhere = committedRepo({ "x.txt": "x\n" });
    writeFiles(elsewhere, { "x.txt": "y\n" });
    expect((await post(app, "stage", { cwd: elsewhere, paths: ["x.txt"] })).status).toBe(200);
    await settled(app, id, 2);
    expect(await post(app, "stage", { cwd: root, paths: ["a.txt"] })).toEqual({ status: 200, body: { ok: true } });
  });
});
