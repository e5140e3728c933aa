/**
 * The review actions on real repositories in temp folders, each result checked with git itself (the index,
 * the status, the log) and with the files' bytes: stage, unstage (with and without a first commit, a staged
 * rename), one hunk each way, discard with its copy, commit (hooks, identity, shell characters), and the
 * refusals every action shares (not a repository, a conflicted repository, an agent mid-turn, index.lock).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONFLICTED_REPOSITORY,
  CONFIRM_DISCARD,
  HUNK_GONE,
  HUNK_SCOPE_MISMATCH,
  NO_WORKING_CHANGES,
  NOT_A_REPOSITORY,
  NOTHING_STAGED,
  UNTRACKED_HUNK,
} from "../../domain/git-review-actions/review-action-rules.ts";
import { ServiceError } from "../../domain/service-error.ts";
import {
  git,
  isolateGitConfig,
  makeRepo,
  read,
  removeTempRepos,
  stagedNames,
  statusLines,
  tempFolder,
  writeFiles,
} from "./git-repo.fixture.ts";
import { createReviewActions, HUNK_DIFF_ARGS, type ReviewActions } from "./review-actions.ts";

let agentDir: string;
let busy: string[] = [];
let actions: ReviewActions;
const NOW = Date.UTC(2025, 0, 2, 3, 4, 5, 6);

beforeAll(() => {
  isolateGitConfig();
  agentDir = tempFolder("leyline-review-agent-");
  actions = createReviewActions({ agentDir, busyAgents: () => busy, now: () => NOW });
});
afterAll(removeTempRepos);

/** The failure an action answers: its code and message. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("the action succeeded");
}

/** The hunks of git's diff of one file, as the review shows them (from each @@ line to the next). */
function hunksOf(root: string, file: string, cached = false): string[] {
  const diff = git(root, "diff", ...HUNK_DIFF_ARGS, ...(cached ? ["--cached"] : []), "--", file);
  const body = diff.slice(diff.indexOf("\n@@") + 1);
  return body.split(/(?=^@@ )/m);
}

const TWELVE = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n";

describe("stage and unstage", () => {
  it("stages changed, new and deleted files by their literal names, and unstages them", async () => {
    const root = makeRepo({ "a.md": "a\n", "gone.txt": "bye\n", "keep.txt": "k\n" });
    writeFiles(root, { "a.md": "a2\n", "*.md": "star\n", "dir/new.txt": "new\n" });
    fs.rmSync(path.join(root, "gone.txt"));

    expect(await actions.stage({ cwd: root, paths: ["*.md", "gone.txt"] })).toEqual({ ok: true });
    expect(stagedNames(root)).toEqual(["*.md", "gone.txt"]); // "*.md" is a name, not a glob: a.md stays unstaged
    await actions.stage({ cwd: path.join(root, "dir"), paths: ["a.md", "dir/new.txt"] }); // any folder of the repository
    expect(stagedNames(root)).toEqual(["*.md", "a.md", "dir/new.txt", "gone.txt"]);

    await actions.unstage({ cwd: root, paths: ["a.md", "gone.txt", "*.md"] });
    expect(stagedNames(root)).toEqual(["dir/new.txt"]);
    expect(statusLines(root)).toEqual([" D gone.txt", " M a.md", "?? *.md", "A  dir/new.txt"]);
    expect(read(root, "a.md")).toBe("a2\n"); // the working file is untouched
  });

  it("unstages before the first commit, even a file changed again after staging", async () => {
    const root = makeRepo();
    writeFiles(root, { "x.txt": "x\n", "y.txt": "y\n" });
    await actions.stage({ cwd: root, paths: ["x.txt", "y.txt"] });
    fs.appendFileSync(path.join(root, "x.txt"), "more\n");
    await actions.unstage({ cwd: root, paths: ["x.txt"] });
    expect(statusLines(root)).toEqual(["?? x.txt", "A  y.txt"]);
    expect(read(root, "x.txt")).toBe("x\nmore\n");
  });

  it("unstages a staged rename with its source", async () => {
    const root = makeRepo({ "old.txt": "content\n" });
    git(root, "mv", "old.txt", "new.txt");
    expect(git(root, "diff", "--cached", "--name-status", "-M")).toMatch(/^R100\told.txt\tnew.txt/);
    await actions.unstage({ cwd: root, paths: ["new.txt"] });
    expect(stagedNames(root)).toEqual([]);
    expect(statusLines(root)).toEqual([" D old.txt", "?? new.txt"]);
  });

  it("answers git's refusal for a path git cannot stage (409), and refuses bad paths before git (400)", async () => {
    const root = makeRepo({ ".gitignore": "*.log\n" });
    writeFiles(root, { "debug.log": "x\n" });
    expect(await failure(actions.stage({ cwd: root, paths: ["missing.txt"] }))).toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/did not match any files/),
    });
    expect(await failure(actions.stage({ cwd: root, paths: ["debug.log"] }))).toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/ignored/),
    });
    for (const bad of ["../outside", "/etc/passwd", "a\0b", ".git/config", "."]) {
      expect((await failure(actions.stage({ cwd: root, paths: [bad] }))).code).toBe("invalid_request");
    }
    expect(stagedNames(root)).toEqual([]);
  });

  it("serializes actions on one repository: concurrent stages never meet git's index lock", async () => {
    const root = makeRepo({ seed: "s\n" });
    const names = Array.from({ length: 12 }, (_, i) => `f${i}.txt`);
    writeFiles(root, Object.fromEntries(names.map((name) => [name, `${name}\n`])));
    const results = await Promise.allSettled(names.map((name) => actions.stage({ cwd: root, paths: [name] })));
    expect(results.filter((result) => result.status === "rejected")).toEqual([]);
    expect(stagedNames(root)).toEqual([...names].sort());
  });
});

describe("hunk", () => {
  it("stages one working hunk and unstages it again; the working file keeps its bytes", async () => {
    const root = makeRepo({ "f.txt": TWELVE });
    const changed = TWELVE.replace("one", "ONE").replace("twelve", "TWELVE");
    writeFiles(root, { "f.txt": changed });
    const [first, second] = hunksOf(root, "f.txt");
    expect(first).toMatch(/^@@ -1,4 \+1,4 @@\n-one\n\+ONE/);

    await actions.hunk({ cwd: root, path: "f.txt", scope: "working", action: "stage", hunk: second ?? "" });
    const cached = git(root, "diff", "--cached", "--", "f.txt");
    expect(cached).toContain("+TWELVE");
    expect(cached).not.toContain("+ONE");
    expect(git(root, "diff", "--", "f.txt")).toContain("+ONE");
    expect(read(root, "f.txt")).toBe(changed);

    const [staged] = hunksOf(root, "f.txt", true);
    await actions.hunk({ cwd: root, path: "f.txt", scope: "staged", action: "unstage", hunk: (staged ?? "").replace(/\n$/, "") });
    expect(stagedNames(root)).toEqual([]);
    expect(read(root, "f.txt")).toBe(changed);
  });

  it("stages hunks of CRLF text, a last line without newline and a quoted file name", async () => {
    const name = 'we "ird" näme.txt';
    const root = makeRepo({ [name]: "a\r\nb\r\nlast" });
    writeFiles(root, { [name]: "a\r\nB\r\nLAST" });
    const [hunk] = hunksOf(root, name);
    expect(hunk).toContain("\\ No newline at end of file");
    await actions.hunk({ cwd: root, path: name, scope: "working", action: "stage", hunk: hunk ?? "" });
    expect(git(root, "show", `:${name}`)).toBe("a\r\nB\r\nLAST");
    expect(git(root, "diff", "--", name)).toBe("");
  });

  it("refuses a hunk no longer in the file (409), and hunks of files staged whole (400)", async () => {
    const root = makeRepo({ "f.txt": TWELVE, "b.bin": "\0\x01\x02" });
    writeFiles(root, { "f.txt": TWELVE.replace("one", "ONE"), "new.txt": "n\n", "b.bin": "\0\x01\x03" });
    const [hunk] = hunksOf(root, "f.txt");
    writeFiles(root, { "f.txt": TWELVE.replace("one", "One") }); // the agent changed it again
    const stale = { cwd: root, path: "f.txt", scope: "working" as const, action: "stage" as const, hunk: hunk ?? "" };
    expect(await failure(actions.hunk(stale))).toEqual({ code: "conflict", message: HUNK_GONE });
    expect(await failure(actions.hunk({ ...stale, path: "new.txt", hunk: "@@ -0,0 +1 @@\n+n\n" }))).toEqual({
      code: "invalid_request",
      message: UNTRACKED_HUNK,
    });
    expect((await failure(actions.hunk({ ...stale, path: "b.bin", hunk: "@@ -1 +1 @@\n-a\n+b\n" }))).message).toMatch(/binary/);
    git(root, "add", "new.txt");
    expect(
      (await failure(actions.hunk({ ...stale, path: "new.txt", scope: "staged", action: "unstage", hunk: "@@ -0,0 +1 @@\n+n\n" }))).message,
    ).toMatch(/^A new file/);
    expect(await failure(actions.hunk({ ...stale, scope: "staged" }))).toEqual({ code: "invalid_request", message: HUNK_SCOPE_MISMATCH });
    expect((await failure(actions.hunk({ ...stale, hunk: "-one\n+ONE\n" }))).code).toBe("invalid_request");
    expect(stagedNames(root)).toEqual(["new.txt"]);
  });
});

describe("discard", () => {
  it("keeps a copy, then restores the working file from the index: staged changes stay", async () => {
    const root = makeRepo({ "f.txt": "v1\n" });
    writeFiles(root, { "f.txt": "v2\n" });
    git(root, "add", "f.txt");
    writeFiles(root, { "f.txt": "v3 unsaved work\n" });

    expect(await failure(actions.discard({ cwd: root, path: "f.txt" }))).toEqual({ code: "invalid_request", message: CONFIRM_DISCARD });
    expect(await failure(actions.discard({ cwd: root, path: "f.txt", confirm: false }))).toEqual({
      code: "invalid_request",
      message: CONFIRM_DISCARD,
    });
    expect(read(root, "f.txt")).toBe("v3 unsaved work\n");

    const result = await actions.discard({ cwd: root, path: "f.txt", confirm: true });
    expect(result.ok).toBe(true);
    const backup = result.backupPath ?? "";
    expect(backup).toBe(path.join(agentDir, "leyline-trash", "review", "2025-01-02T03-04-05-006Z-f.txt"));
    expect(fs.readFileSync(backup, "utf8")).toBe("v3 unsaved work\n");
    expect(fs.statSync(backup).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(backup)).mode & 0o777).toBe(0o700);
    expect(read(root, "f.txt")).toBe("v2\n");
    expect(statusLines(root)).toEqual(["M  f.txt"]);

    expect(await failure(actions.discard({ cwd: root, path: "f.txt", confirm: true }))).toEqual({
      code: "conflict",
      message: NO_WORKING_CHANGES,
    });
  });

  it("removes an untracked file after copying it, never the same copy name twice, and restores a deleted file", async () => {
    const root = makeRepo({ "tracked.txt": "t\n" });
    writeFiles(root, { "dir/scratch.txt": "notes\n", "other/scratch.txt": "more notes\n" });
    fs.rmSync(path.join(root, "tracked.txt"));

    const first = await actions.discard({ cwd: root, path: "dir/scratch.txt", confirm: true });
    const second = await actions.discard({ cwd: root, path: "other/scratch.txt", confirm: true });
    expect(fs.existsSync(path.join(root, "dir/scratch.txt"))).toBe(false);
    expect(fs.readFileSync(first.backupPath ?? "", "utf8")).toBe("notes\n");
    expect(second.backupPath).toMatch(/-2-scratch\.txt$/);
    expect(fs.readFileSync(second.backupPath ?? "", "utf8")).toBe("more notes\n");

    expect(await actions.discard({ cwd: root, path: "tracked.txt", confirm: true })).toEqual({ ok: true, backupPath: null });
    expect(read(root, "tracked.txt")).toBe("t\n");
    expect(statusLines(root)).toEqual([]);
  });

  it("never touches ignored files, and never follows a symbolic link out of the repository", async () => {
    const outside = tempFolder("leyline-outside-");
    fs.writeFileSync(path.join(outside, "secret.txt"), "outside\n");
    const root = makeRepo({ ".gitignore": "*.log\n", "link.txt": "x" });
    fs.rmSync(path.join(root, "link.txt"));
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "link.txt"));
    fs.symlinkSync(outside, path.join(root, "out"));
    writeFiles(root, { "debug.log": "log\n" });

    expect(await failure(actions.discard({ cwd: root, path: "debug.log", confirm: true }))).toEqual({
      code: "conflict",
      message: NO_WORKING_CHANGES,
    });
    expect(read(root, "debug.log")).toBe("log\n");
    expect((await failure(actions.discard({ cwd: root, path: "out/secret.txt", confirm: true }))).code).toBe("invalid_request");

    // a tracked file replaced by a link: the copy is the link's target, the link goes, the file comes back
    const result = await actions.discard({ cwd: root, path: "link.txt", confirm: true });
    expect(fs.readFileSync(result.backupPath ?? "", "utf8")).toBe(path.join(outside, "secret.txt"));
    expect(result.backupPath).toMatch(/link\.txt\.symlink$/);
    expect(fs.lstatSync(path.join(root, "link.txt")).isSymbolicLink()).toBe(false);
    expect(read(root, "link.txt")).toBe("x");
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("outside\n");
  });
});

describe("commit", () => {
  it("commits what is staged with the message as given, shell characters included", async () => {
    const root = makeRepo();
    writeFiles(root, { "a.txt": "a\n" });
    expect(await failure(actions.commit({ cwd: root, message: "x" }))).toEqual({ code: "conflict", message: NOTHING_STAGED });
    expect((await failure(actions.commit({ cwd: root, message: "  \n " }))).code).toBe("invalid_request");
    await actions.stage({ cwd: root, paths: ["a.txt"] });

    const message = "Add a $(touch pwned) `id`; rm -rf x\n\nBody with 'quotes' and \"more\"\n# not a comment\n";
    const result = await actions.commit({ cwd: root, message });
    expect(result).toEqual({ ok: true, commit: git(root, "rev-parse", "HEAD").trim(), summary: "Add a $(touch pwned) `id`; rm -rf x" });
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(root, "log", "-1", "--format=%B")).toBe(message + "\n");
    expect(fs.existsSync(path.join(root, "pwned"))).toBe(false);
    expect(stagedNames(root)).toEqual([]);
  });

  it("answers a hook's refusal (409) and keeps the index; reports what a commit-msg hook stored", async () => {
    const root = makeRepo({ "a.txt": "a\n" });
    writeFiles(root, { "a.txt": "b\n" });
    git(root, "add", "a.txt");
    const hook = path.join(root, ".git", "hooks", "pre-commit");
    fs.writeFileSync(hook, '#!/bin/sh\necho "lint failed: a.txt:1 bad style" >&2\nexit 1\n', { mode: 0o755 });
    expect(await failure(actions.commit({ cwd: root, message: "Change a" }))).toEqual({
      code: "conflict",
      message: "The commit was refused: lint failed: a.txt:1 bad style",
    });
    expect(stagedNames(root)).toEqual(["a.txt"]);
    fs.rmSync(hook);
    fs.writeFileSync(path.join(root, ".git", "hooks", "commit-msg"), '#!/bin/sh\nprintf "[team] %s" "$(cat "$1")" > "$1"\n', {
      mode: 0o755,
    });
    expect((await actions.commit({ cwd: root, message: "Change a" })).summary).toBe("[team] Change a");
  });

  it("says plainly when git does not know who commits", async () => {
    const root = makeRepo({ "a.txt": "a\n" });
    writeFiles(root, { "a.txt": "b\n" });
    git(root, "add", "a.txt");
    git(root, "config", "user.useConfigOnly", "true");
    const global = process.env["GIT_CONFIG_GLOBAL"];
    process.env["GIT_CONFIG_GLOBAL"] = path.join(tempFolder(), "empty-gitconfig");
    try {
      const refused = await failure(actions.commit({ cwd: root, message: "Change a" }));
      expect(refused.code).toBe("conflict");
      expect(refused.message).toMatch(/^Git does not know who you are: set user.name and user.email/);
    } finally {
      process.env["GIT_CONFIG_GLOBAL"] = global;
    }
    expect(git(root, "rev-list", "--count", "HEAD").trim()).toBe("1");
  });
});

describe("refusals every action shares", () => {
  /** Each action once, started one at a time by the caller. */
  const everyAction = (cwd: string): Array<() => Promise<unknown>> => [
    () => actions.stage({ cwd, paths: ["f.txt"] }),
    () => actions.unstage({ cwd, paths: ["f.txt"] }),
    () => actions.hunk({ cwd, path: "f.txt", scope: "working", action: "stage", hunk: "@@ -1 +1 @@\n-a\n+b\n" }),
    () => actions.discard({ cwd, path: "f.txt", confirm: true }),
    () => actions.commit({ cwd, message: "m" }),
  ];

  it("not a repository (409), not a folder (500)", async () => {
    const plain = tempFolder();
    for (const attempt of everyAction(plain)) expect(await failure(attempt())).toEqual({ code: "conflict", message: NOT_A_REPOSITORY });
    for (const attempt of everyAction(path.join(plain, "missing"))) expect((await failure(attempt())).code).toBe("review_failed");
  });

  it("a conflicted repository, until the merge is finished", async () => {
    const root = makeRepo({ "f.txt": "base\n" });
    git(root, "checkout", "-q", "-b", "other");
    writeFiles(root, { "f.txt": "other\n" });
    git(root, "commit", "-q", "-am", "other");
    git(root, "checkout", "-q", "main");
    writeFiles(root, { "f.txt": "main\n" });
    git(root, "commit", "-q", "-am", "main");
    expect(() => git(root, "merge", "-q", "other")).toThrow();
    expect(fs.existsSync(path.join(root, ".git", "MERGE_HEAD"))).toBe(true);
    for (const attempt of everyAction(root)) expect(await failure(attempt())).toEqual({ code: "conflict", message: CONFLICTED_REPOSITORY });

    // resolved but not concluded: no unmerged path, the merge is still in progress
    writeFiles(root, { "f.txt": "resolved\n" });
    git(root, "add", "f.txt");
    expect(await failure(actions.commit({ cwd: root, message: "merge" }))).toEqual({ code: "conflict", message: CONFLICTED_REPOSITORY });
    git(root, "commit", "-q", "--no-edit");
    writeFiles(root, { "f.txt": "after\n" });
    expect(await actions.stage({ cwd: root, paths: ["f.txt"] })).toEqual({ ok: true });
  });

  it("an agent mid-turn in the repository, unless the person confirmed", async () => {
    const root = makeRepo({ "f.txt": "a\n" });
    writeFiles(root, { "f.txt": "b\n" });
    busy = ["s-busy"];
    try {
      for (const attempt of everyAction(root)) {
        expect(await failure(attempt())).toEqual({
          code: "conflict",
          message: "The agent is working in this repository (session s-busy). Wait for its turn to end, or confirm to act anyway.",
        });
      }
      expect(statusLines(root)).toEqual([" M f.txt"]);
      expect(await actions.stage({ cwd: root, paths: ["f.txt"], whileAgentWorks: true })).toEqual({ ok: true });
      expect(stagedNames(root)).toEqual(["f.txt"]);
    } finally {
      busy = [];
    }
  });

  it("another git process holding the index lock", async () => {
    const root = makeRepo({ "f.txt": "a\n" });
    writeFiles(root, { "f.txt": "b\n" });
    const lock = path.join(root, ".git", "index.lock");
    fs.writeFileSync(lock, "");
    const refused = await failure(actions.stage({ cwd: root, paths: ["f.txt"] }));
    expect(refused.code).toBe("conflict");
    expect(refused.message).toBe(
      `Another git process is running in this repository (${lock} exists). Try again when it ends; if no git process is running, delete that file.`,
    );
    fs.rmSync(lock);
    expect(stagedNames(root)).toEqual([]);
  });
});
