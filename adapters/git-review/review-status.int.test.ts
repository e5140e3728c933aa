import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { unavailableReview } from "../../domain/git-review/review-summary.ts";
import {
  binaryBytes,
  commitAll,
  conflictedRepo,
  git,
  numberedLines,
  serviceFailure,
  tempDir,
  tempRepo,
  write,
} from "./git-repo.fixture.ts";
import { readReviewStatus } from "./review-status.ts";

/** A repository with one change of each kind; its expected line counts are spelled out in the test. */
function mixedRepo(): string {
  const root = tempRepo();
  write(root, "a.txt", "1\n2\n3\n");
  write(root, "r.txt", numberedLines(20));
  write(root, "gone.txt", "x\ny\n");
  write(root, "bin.dat", binaryBytes(3));
  commitAll(root, "base");
  // a.txt: staged +2 -1, then a working +1.
  write(root, "a.txt", "1\nTWO\n3\n4\n");
  git(root, ["add", "a.txt"]);
  write(root, "a.txt", "1\nTWO\n3\n4\n5\n");
  // A pure rename (0/0), a staged deletion (-2), a binary modification (nothing).
  git(root, ["mv", "r.txt", "s.txt"]);
  git(root, ["rm", "-q", "gone.txt"]);
  write(root, "bin.dat", binaryBytes(5));
  // Untracked: a 3-line text file without a final newline (+3), a binary file (nothing), a file in new folders
  // (+1), a nested repository (one entry, nothing).
  write(root, "u.txt", "x\ny\nz");
  write(root, "u.bin", binaryBytes(7));
  write(root, "deep/d/e.txt", "e\n");
  write(root, "nested/n.txt", "n\n");
  git(path.join(root, "nested"), ["init", "-q"]);
  return root;
}

describe("readReviewStatus", () => {
  it("outside a repository: unavailable, no files, zero counts, line stats available, the resolved folder as root", async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, "sub"));
    fs.symlinkSync(path.join(dir, "sub"), path.join(dir, "link"));
    expect(await readReviewStatus(path.join(dir, "link"))).toEqual(unavailableReview(path.join(dir, "sub")));
  });

  it("refuses a folder that is missing, relative or a file (review_failed)", async () => {
    const dir = tempDir();
    write(dir, "file.txt", "x");
    for (const cwd of [path.join(dir, "missing"), "relative/folder", path.join(dir, "file.txt")]) {
      const error = await serviceFailure(readReviewStatus(cwd));
      expect(error.code).toBe("review_failed");
    }
  });

  it("lists every kind of change and sums staged, working and untracked text lines", async () => {
    const root = mixedRepo();
    const review = await readReviewStatus(path.join(root, "deep"));
    expect(review).toMatchObject({
      available: true,
      branch: "main",
      root,
      conflicts: 0,
      filesTruncated: false,
      lineStatsAvailable: true,
      totalFiles: 8,
      additions: 2 + 1 + 3 + 1,
      deletions: 1 + 2,
    });
    const byPath = new Map(review.files.map((file) => [file.path, file]));
    expect([...byPath.keys()].sort()).toEqual(["a.txt", "bin.dat", "deep/d/e.txt", "gone.txt", "nested/", "s.txt", "u.bin", "u.txt"]);
    expect(byPath.get("a.txt")).toMatchObject({ kind: "modified", staged: true, unstaged: true, indexStatus: "M", worktreeStatus: "M" });
    expect(byPath.get("s.txt")).toMatchObject({ kind: "renamed", oldPath: "r.txt", staged: true, unstaged: false });
    expect(byPath.get("gone.txt")).toMatchObject({ kind: "deleted", staged: true, indexStatus: "D" });
    expect(byPath.get("bin.dat")).toMatchObject({ kind: "modified", staged: false, unstaged: true });
    expect(byPath.get("nested/")).toMatchObject({ kind: "untracked", untracked: true });
    expect(byPath.get("u.txt")).toMatchObject({ kind: "untracked", indexStatus: "?", worktreeStatus: "?" });
  });

  it("counts conflicts and leaves the conflict's lines out of the sums", async () => {
    const root = conflictedRepo();
    write(root, "extra.txt", "one\ntwo\n");
    const review = await readReviewStatus(root);
    expect(review).toMatchObject({ conflicts: 1, additions: 2, deletions: 0, lineStatsAvailable: true, totalFiles: 2 });
    expect(review.files.find((file) => file.path === "f.txt")).toMatchObject({ kind: "conflicted", conflicted: true, staged: false });
  });

  it("reads a repository without commits", async () => {
    const root = tempRepo();
    write(root, "first.txt", "a\nb\n");
    git(root, ["add", "first.txt"]);
    expect(await readReviewStatus(root)).toMatchObject({
      branch: "main",
      additions: 2,
      files: [{ path: "first.txt", kind: "added", staged: true }],
    });
  });

  it("calls a detached HEAD `HEAD`", async () => {
    const root = tempRepo();
    write(root, "a", "a\n");
    commitAll(root);
    git(root, ["checkout", "-q", "--detach"]);
    expect((await readReviewStatus(root)).branch).toBe("HEAD");
  });

  it("keeps 500 of 600 changed paths: truncated, no total, no line stats, conflicts past the cap still counted", async () => {
    // 600 tracked files that sort before the conflicted f.txt, changed after the failed merge.
    const root = conflictedRepo("review-cap", (base) => {
      for (let index = 0; index < 600; index++) write(base, `a/${String(index).padStart(3, "0")}.txt`, "x\n");
    });
    for (let index = 0; index < 600; index++) write(root, `a/${String(index).padStart(3, "0")}.txt`, "y\n");
    const review = await readReviewStatus(root);
    expect(review.files).toHaveLength(500);
    expect(review.files.some((file) => file.path === "f.txt")).toBe(false);
    expect(review).toMatchObject({
      filesTruncated: true,
      totalFiles: null,
      lineStatsAvailable: false,
      additions: 0,
      deletions: 0,
      conflicts: 1,
    });
  });

  it("answers line stats unavailable (zero placeholders) when counting fails", async () => {
    const root = tempRepo();
    write(root, "t.txt", "a\n");
    commitAll(root);
    write(root, "t.txt", "b\n");
    write(root, "big.txt", numberedLines(100));
    const review = await readReviewStatus(root, { untrackedBytesLimit: 10 });
    expect(review).toMatchObject({ lineStatsAvailable: false, additions: 0, deletions: 0, totalFiles: 2, filesTruncated: false });
    expect(await readReviewStatus(root)).toMatchObject({ lineStatsAvailable: true, additions: 101, deletions: 1 });
  });

  it("answers promptly when an untracked file is swapped for a FIFO while its lines are counted", async () => {
    const root = tempRepo();
    const spare = tempDir("review-fifo");
    const fifo = path.join(spare, "fifo");
    execFileSync("mkfifo", [fifo]);
    const regular = path.join(spare, "regular");
    fs.writeFileSync(regular, "1\n2\n");
    const names = Array.from({ length: 8 }, (_, index) => path.join(root, `u${index}.txt`));
    for (const name of names) fs.copyFileSync(regular, name);
    // A child process swaps each untracked file for the FIFO and back (atomic renames of hard links), so some
    // file git listed is a FIFO by the time it is opened; opening a FIFO that blocks waits for a writer forever.
    const swapper = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("fs");
         const [fifo, regular, spare, ...names] = process.argv.slice(1);
         for (;;) for (const name of names) for (const source of [fifo, regular]) { fs.linkSync(source, spare); fs.renameSync(spare, name); }`,
        fifo,
        regular,
        path.join(spare, "next"),
        ...names,
      ],
      { stdio: "ignore" },
    );
    try {
      const started = Date.now();
      let reads = 0;
      while (Date.now() - started < 1_500 || reads < 10) {
        const outcome = await Promise.race([
          readReviewStatus(root).then(() => "answered"),
          new Promise((resolve) => setTimeout(() => resolve("blocked"), 5_000)),
        ]);
        expect(outcome).toBe("answered");
        reads++;
      }
    } finally {
      const exited = new Promise((resolve) => swapper.once("exit", resolve));
      swapper.kill();
      await exited;
      // A reader blocked in open (without the fix) is let go by a writer.
      try {
        fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
      } catch {
        // No reader: nothing was blocked.
      }
    }
  });

  it("never writes .git/index, even when the index's stat data is stale", async () => {
    const root = mixedRepo();
    // A tracked file touched without a content change: `git status` with optional locks would rewrite the index.
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(path.join(root, "s.txt"), later, later);
    const index = path.join(root, ".git", "index");
    const before = { bytes: fs.readFileSync(index), mtime: fs.statSync(index).mtimeMs };
    await readReviewStatus(root);
    expect(fs.statSync(index).mtimeMs).toBe(before.mtime);
    expect(fs.readFileSync(index).equals(before.bytes)).toBe(true);
    expect(fs.existsSync(`${index}.lock`)).toBe(false);
  });

  it("answers review_failed when git fails", async () => {
    const root = tempRepo();
    fs.appendFileSync(path.join(root, ".git", "config"), "[broken\n");
    expect((await serviceFailure(readReviewStatus(root))).code).toBe("review_failed");
  });
});
