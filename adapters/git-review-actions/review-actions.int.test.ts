/**
 * The review actions on real repositories in temp folders, each result checked with git itself (the index,
 * the status, the log) and with the files' bytes: stage, unstage (with and without a first commit, a staged
 * rename), one hunk each way, discard with its copy, commit (hooks, identity, shell characters), and the
 * refusals every action shares (not a repository, a conflicted repository, an agent mid-turn, index.lock).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  CONFLICTED_REPOSITORY,
  CONFIRM_DISCARD,
  CWD_NOT_ABSOLUTE,
  FILE_CHANGED_WHILE_DISCARDING,
  HUNK_GONE,
  HUNK_SCOPE_MISMATCH,
  NO_WORKING_CHANGES,
  NOT_A_REPOSITORY,
  NOTHING_STAGED,
  UNTRACKED_HUNK,
} from "../../domain/git-review-actions/review-action-rules.ts";
import {
  committedRepo,
  conflictedRepo,
  git,
  numberedLines,
  read,
  serviceFailure,
  stagedNames,
  statusLines,
  tempDir,
  tempRepo,
  writeFiles,
} from "../git-review/git-repo.fixture.ts";
import { readReviewDiff } from "../git-review/review-diff.ts";
import { discardTrashDir, openRegularFile } from "./discard-copy.ts";
import { createReviewActions } from "./review-actions.ts";

let busy: string[] = [];
const NOW = Date.UTC(2025, 0, 2, 3, 4, 5, 6);
const agentDir = tempDir("review-agent");
const actions = createReviewActions({ agentDir, busyAgents: () => busy, now: () => NOW });

/** The failure an action answers: its code and message. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const { code, message } = await serviceFailure(promise);
  return { code, message };
}

/** The hunks of one file's diff as the review shows them (its own read, from each @@ line to the next). */
async function hunksOf(root: string, file: string, cached = false): Promise<string[]> {
  const { diffs } = await readReviewDiff(root, file);
  const diff = diffs.find((section) => section.scope === (cached ? "staged" : "working"))?.patch ?? "";
  const body = diff.slice(diff.indexOf("\n@@") + 1);
  return body.split(/(?=^@@ )/m);
}

const TWELVE = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n";

describe("stage and unstage", () => {
  it("stages changed, new and deleted files by their literal names, and unstages them", async () => {
    const root = committedRepo({ "a.md": "a\n", "gone.txt": "bye\n", "keep.txt": "k\n" });
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
    const root = tempRepo();
    writeFiles(root, { "x.txt": "x\n", "y.txt": "y\n" });
    await actions.stage({ cwd: root, paths: ["x.txt", "y.txt"] });
    fs.appendFileSync(path.join(root, "x.txt"), "more\n");
    await actions.unstage({ cwd: root, paths: ["x.txt"] });
    expect(statusLines(root)).toEqual(["?? x.txt", "A  y.txt"]);
    expect(read(root, "x.txt")).toBe("x\nmore\n");
  });

  it("unstages a staged rename with its source", async () => {
    const root = committedRepo({ "old.txt": "content\n" });
    git(root, ["mv", "old.txt", "new.txt"]);
    expect(git(root, ["diff", "--cached", "--name-status", "-M"])).toMatch(/^R100\told.txt\tnew.txt/);
    await actions.unstage({ cwd: root, paths: ["new.txt"] });
    expect(stagedNames(root)).toEqual([]);
    expect(statusLines(root)).toEqual([" D old.txt", "?? new.txt"]);
  });

  it("answers git's refusal for a path git cannot stage (409), and refuses bad paths before git (400)", async () => {
    const root = committedRepo({ ".gitignore": "*.log\n" });
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
    const root = committedRepo({ seed: "s\n" });
    const names = Array.from({ length: 12 }, (_, i) => `f${i}.txt`);
    writeFiles(root, Object.fromEntries(names.map((name) => [name, `${name}\n`])));
    const results = await Promise.allSettled(names.map((name) => actions.stage({ cwd: root, paths: [name] })));
    expect(results.filter((result) => result.status === "rejected")).toEqual([]);
    expect(stagedNames(root)).toEqual([...names].sort());
  });
});

describe("hunk", () => {
  it("stages one working hunk and unstages it again; the working file keeps its bytes", async () => {
    const root = committedRepo({ "f.txt": TWELVE });
    const changed = TWELVE.replace("one", "ONE").replace("twelve", "TWELVE");
    writeFiles(root, { "f.txt": changed });
    const [first, second] = await hunksOf(root, "f.txt");
    expect(first).toMatch(/^@@ -1,4 \+1,4 @@\n-one\n\+ONE/);

    await actions.hunk({ cwd: root, path: "f.txt", scope: "working", action: "stage", hunk: second ?? "" });
    const cached = git(root, ["diff", "--cached", "--", "f.txt"]);
    expect(cached).toContain("+TWELVE");
    expect(cached).not.toContain("+ONE");
    expect(git(root, ["diff", "--", "f.txt"])).toContain("+ONE");
    expect(read(root, "f.txt")).toBe(changed);

    const [staged] = await hunksOf(root, "f.txt", true);
    await actions.hunk({ cwd: root, path: "f.txt", scope: "staged", action: "unstage", hunk: (staged ?? "").replace(/\n$/, "") });
    expect(stagedNames(root)).toEqual([]);
    expect(read(root, "f.txt")).toBe(changed);
  });

  it("stages hunks of CRLF text, a last line without newline and a quoted file name", async () => {
    const name = 'we "ird" näme.txt';
    const root = committedRepo({ [name]: "a\r\nb\r\nlast" });
    writeFiles(root, { [name]: "a\r\nB\r\nLAST" });
    const [hunk] = await hunksOf(root, name);
    expect(hunk).toContain("\\ No newline at end of file");
    await actions.hunk({ cwd: root, path: name, scope: "working", action: "stage", hunk: hunk ?? "" });
    expect(git(root, ["show", `:${name}`])).toBe("a\r\nB\r\nLAST");
    expect(git(root, ["diff", "--", name])).toBe("");
  });

  it("stages and unstages the review's own hunks whatever the person's porcelain diff settings", async () => {
    const thirty = numberedLines(30);
    const changed = thirty.replace("\n10\n", "\nTEN\n").replace("\n25\n", "\nTWENTY-FIVE\n").replace("\n26\n", "\n");
    for (const [key, value] of [
      ["diff.context", "1"],
      ["diff.context", "0"],
      ["diff.noprefix", "true"],
      ["diff.mnemonicPrefix", "true"],
      ["diff.algorithm", "histogram"],
    ] as const) {
      const where = `${key}=${value}`;
      const root = committedRepo({ "f.txt": thirty });
      git(root, ["config", key, value]);
      writeFiles(root, { "f.txt": changed });
      const [first, second] = await hunksOf(root, "f.txt");
      expect(second, where).toBeDefined();
      expect(await actions.hunk({ cwd: root, path: "f.txt", scope: "working", action: "stage", hunk: second ?? "" }), where).toEqual({
        ok: true,
      });
      const cached = git(root, ["diff", "--cached", "--src-prefix=a/", "--dst-prefix=b/", "--", "f.txt"]);
      expect(cached, where).toContain("+TWENTY-FIVE");
      expect(cached, where).not.toContain("+TEN");
      expect(await actions.hunk({ cwd: root, path: "f.txt", scope: "working", action: "stage", hunk: first ?? "" }), where).toEqual({
        ok: true,
      });
      expect(git(root, ["show", ":f.txt"]), where).toBe(changed);

      // the staged diff is porcelain on both sides (diff.context applies to it): its hunks unstage one by one
      const staged = await hunksOf(root, "f.txt", true);
      expect(staged.length, where).toBe(2);
      for (const hunk of staged.reverse()) {
        expect(await actions.hunk({ cwd: root, path: "f.txt", scope: "staged", action: "unstage", hunk }), where).toEqual({ ok: true });
      }
      expect(stagedNames(root), where).toEqual([]);
      expect(read(root, "f.txt"), where).toBe(changed);
    }
  });

  it("refuses a hunk no longer in the file (409), and hunks of files staged whole (400)", async () => {
    const root = committedRepo({ "f.txt": TWELVE, "b.bin": "\0\x01\x02" });
    writeFiles(root, { "f.txt": TWELVE.replace("one", "ONE"), "new.txt": "n\n", "b.bin": "\0\x01\x03" });
    const [hunk] = await hunksOf(root, "f.txt");
    writeFiles(root, { "f.txt": TWELVE.replace("one", "One") }); // the agent changed it again
    const stale = { cwd: root, path: "f.txt", scope: "working" as const, action: "stage" as const, hunk: hunk ?? "" };
    expect(await failure(actions.hunk(stale))).toEqual({ code: "conflict", message: HUNK_GONE });
    expect(await failure(actions.hunk({ ...stale, path: "new.txt", hunk: "@@ -0,0 +1 @@\n+n\n" }))).toEqual({
      code: "invalid_request",
      message: UNTRACKED_HUNK,
    });
    expect((await failure(actions.hunk({ ...stale, path: "b.bin", hunk: "@@ -1 +1 @@\n-a\n+b\n" }))).message).toMatch(/binary/);
    git(root, ["add", "new.txt"]);
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
    const root = committedRepo({ "f.txt": "v1\n" });
    writeFiles(root, { "f.txt": "v2\n" });
    git(root, ["add", "f.txt"]);
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
    const root = committedRepo({ "tracked.txt": "t\n" });
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
    const outside = tempDir("outside");
    fs.writeFileSync(path.join(outside, "secret.txt"), "outside\n");
    const root = committedRepo({ ".gitignore": "*.log\n", "link.txt": "x" });
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

describe("discard: nothing lost", () => {
  /** Actions whose discards run `change` between the copy and the discard (the test seam). */
  function racing(change: (file: string) => void) {
    const dir = tempDir("review-agent-race");
    return { dir, racy: createReviewActions({ agentDir: dir, busyAgents: () => [], now: () => NOW, afterDiscardCopy: change }) };
  }
  const copies = (dir: string): string[] => {
    const trash = discardTrashDir(dir);
    return fs.existsSync(trash) ? fs.readdirSync(trash) : [];
  };

  it("refuses (409) and discards nothing when the file changes after its copy was kept", async () => {
    const root = committedRepo({ "f.txt": "v1\n", "gone.txt": "g\n" });
    writeFiles(root, { "f.txt": "v2\n", "new.txt": "scratch\n" });
    fs.rmSync(path.join(root, "gone.txt"));
    const cases: Array<[string, (file: string) => void, string]> = [
      ["f.txt", (file) => fs.appendFileSync(file, "typed meanwhile\n"), "v2\ntyped meanwhile\n"],
      ["f.txt", (file) => fs.writeFileSync(file, "v3\n"), "v3\n"], // same size: the times tell
      ["new.txt", (file) => fs.writeFileSync(file, "SCRATCH\n"), "SCRATCH\n"],
      ["gone.txt", (file) => fs.writeFileSync(file, "back\n"), "back\n"], // a deleted file written again
    ];
    for (const [name, change, after] of cases) {
      const { dir, racy } = racing(change);
      expect(await failure(racy.discard({ cwd: root, path: name, confirm: true })), name).toEqual({
        code: "conflict",
        message: FILE_CHANGED_WHILE_DISCARDING,
      });
      expect(read(root, name), name).toBe(after);
      expect(copies(dir), name).toEqual([]); // no copy of a version that was never discarded
    }
    // a file renamed over the path (another inode, same bytes) counts as a change too
    const { racy } = racing((file) => {
      fs.writeFileSync(`${file}.tmp`, fs.readFileSync(file));
      fs.renameSync(`${file}.tmp`, file);
    });
    expect((await failure(racy.discard({ cwd: root, path: "f.txt", confirm: true }))).message).toBe(FILE_CHANGED_WHILE_DISCARDING);
    expect(statusLines(root)).toEqual([" M f.txt", " M gone.txt", "?? new.txt"]);

    const { dir, racy: calm } = racing(() => undefined);
    const done = await calm.discard({ cwd: root, path: "f.txt", confirm: true });
    expect(fs.readFileSync(done.backupPath ?? "", "utf8")).toBe("v3\n");
    expect(copies(dir)).toHaveLength(1);
    expect(read(root, "f.txt")).toBe("v1\n");
  });

  it("copies a file larger than one read chunk byte for byte", async () => {
    const root = committedRepo({ "big.bin": "small\n" });
    const big = Buffer.alloc(2.5 * 1024 * 1024 + 7);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919 + (i >> 13)) & 0xff;
    fs.writeFileSync(path.join(root, "big.bin"), big);
    const result = await actions.discard({ cwd: root, path: "big.bin", confirm: true });
    expect(fs.readFileSync(result.backupPath ?? "").equals(big)).toBe(true);
    expect(read(root, "big.bin")).toBe("small\n");
  });

  it("refuses a FIFO at once, also one swapped in after the look (no read waits for a writer)", async () => {
    const root = committedRepo({ pipe: "p\n" });
    const fifo = path.join(root, "pipe");
    fs.rmSync(fifo);
    execFileSync("mkfifo", [fifo]);
    expect(await failure(actions.discard({ cwd: root, path: "pipe", confirm: true }))).toEqual({
      code: "invalid_request",
      message: "Only files and symbolic links can be discarded.",
    });
    // the open itself: O_NONBLOCK answers at once for a FIFO without a writer, and fstat refuses it
    expect(await failure(openRegularFile(fifo))).toEqual({
      code: "invalid_request",
      message: "Only files and symbolic links can be discarded.",
    });
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
  }, 5_000);
});

describe("commit", () => {
  it("commits what is staged with the message as given, shell characters included", async () => {
    const root = tempRepo();
    writeFiles(root, { "a.txt": "a\n" });
    expect(await failure(actions.commit({ cwd: root, message: "x" }))).toEqual({ code: "conflict", message: NOTHING_STAGED });
    expect((await failure(actions.commit({ cwd: root, message: "  \n " }))).code).toBe("invalid_request");
    await actions.stage({ cwd: root, paths: ["a.txt"] });

    const message = "Add a $(touch pwned) `id`; rm -rf x\n\nBody with 'quotes' and \"more\"\n# not a comment\n";
    const result = await actions.commit({ cwd: root, message });
    expect(result).toEqual({ ok: true, commit: git(root, ["rev-parse", "HEAD"]).trim(), summary: "Add a $(touch pwned) `id`; rm -rf x" });
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(root, ["log", "-1", "--format=%B"])).toBe(message + "\n");
    expect(fs.existsSync(path.join(root, "pwned"))).toBe(false);
    expect(stagedNames(root)).toEqual([]);
  });

  it("answers a hook's refusal (409) and keeps the index; reports what a commit-msg hook stored", async () => {
    const root = committedRepo({ "a.txt": "a\n" });
    writeFiles(root, { "a.txt": "b\n" });
    git(root, ["add", "a.txt"]);
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
    const root = committedRepo({ "a.txt": "a\n" });
    writeFiles(root, { "a.txt": "b\n" });
    git(root, ["add", "a.txt"]);
    git(root, ["config", "user.useConfigOnly", "true"]);
    const global = process.env["GIT_CONFIG_GLOBAL"];
    process.env["GIT_CONFIG_GLOBAL"] = path.join(tempDir(), "empty-gitconfig");
    try {
      const refused = await failure(actions.commit({ cwd: root, message: "Change a" }));
      expect(refused.code).toBe("conflict");
      expect(refused.message).toMatch(/^Git does not know who you are: set user.name and user.email/);
    } finally {
      process.env["GIT_CONFIG_GLOBAL"] = global;
    }
    expect(git(root, ["rev-list", "--count", "HEAD"]).trim()).toBe("1");
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
    const plain = tempDir();
    for (const attempt of everyAction(plain)) expect(await failure(attempt())).toEqual({ code: "conflict", message: NOT_A_REPOSITORY });
    for (const attempt of everyAction(path.join(plain, "missing"))) expect((await failure(attempt())).code).toBe("review_failed");
  });

  it("a relative cwd (400), never resolved against the server's own folder; `~` is the home folder", async () => {
    // A missing folder first: without the rule it would answer 500 here, not act on the server's checkout.
    for (const cwd of ["leyline-no-such-folder", "./leyline-no-such-folder/x", ".", "..", " /tmp", "~user/x"]) {
      for (const attempt of everyAction(cwd)) {
        expect(await failure(attempt()), JSON.stringify(cwd)).toEqual({ code: "invalid_request", message: CWD_NOT_ABSOLUTE });
      }
    }
    expect(await failure(actions.stage({ cwd: "~/leyline-no-such-folder-for-tests", paths: ["f.txt"] }))).toMatchObject({
      code: "review_failed",
      message: `cwd is not a readable folder: ${path.join(os.homedir(), "leyline-no-such-folder-for-tests")}`,
    });
  });

  it("a conflicted repository, until the merge is finished", async () => {
    const root = conflictedRepo();
    expect(fs.existsSync(path.join(root, ".git", "MERGE_HEAD"))).toBe(true);
    for (const attempt of everyAction(root)) expect(await failure(attempt())).toEqual({ code: "conflict", message: CONFLICTED_REPOSITORY });

    // resolved but not concluded: no unmerged path, the merge is still in progress
    writeFiles(root, { "f.txt": "resolved\n" });
    git(root, ["add", "f.txt"]);
    expect(await failure(actions.commit({ cwd: root, message: "merge" }))).toEqual({ code: "conflict", message: CONFLICTED_REPOSITORY });
    git(root, ["commit", "-q", "--no-edit"]);
    writeFiles(root, { "f.txt": "after\n" });
    expect(await actions.stage({ cwd: root, paths: ["f.txt"] })).toEqual({ ok: true });
  });

  it("an agent mid-turn in the repository, unless the person confirmed", async () => {
    const root = committedRepo({ "f.txt": "a\n" });
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
    const root = committedRepo({ "f.txt": "a\n" });
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
