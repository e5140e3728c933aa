import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DIFF_MAX_BYTES, DIFF_MAX_LINES } from "../../domain/git-review/diff-bounds.ts";
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
import { readReviewDiff } from "./review-diff.ts";

describe("readReviewDiff", () => {
  it("gives separate staged and working sections (standard prefixes, whatever the repository's diff settings)", async () => {
    const root = tempRepo();
    git(root, ["config", "diff.noprefix", "true"]);
    git(root, ["config", "diff.mnemonicPrefix", "true"]);
    write(root, "a.txt", "1\n2\n3\n");
    commitAll(root);
    write(root, "a.txt", "1\nTWO\n3\n");
    git(root, ["add", "a.txt"]);
    write(root, "a.txt", "1\nTWO\n3\nfour\n");
    const diff = await readReviewDiff(root, "a.txt");
    expect(diff.path).toBe("a.txt");
    expect(diff.diffs.map((section) => section.scope)).toEqual(["staged", "working"]);
    const [staged, working] = diff.diffs;
    expect(staged?.patch).toContain("-2\n+TWO\n");
    expect(staged?.patch).not.toContain("four");
    expect(working?.patch).toContain("+four\n");
    expect(working?.patch).not.toContain("-2\n");
    expect(staged?.patch).toContain("--- a/a.txt\n+++ b/a.txt\n");
    expect(working?.patch).toContain("--- a/a.txt\n+++ b/a.txt\n");
    for (const section of diff.diffs) {
      expect(section).toMatchObject({ binary: false, tooLarge: false });
      expect(section.bytes).toBe(Buffer.byteLength(section.patch));
      expect(section.lines).toBe(section.patch.split("\n").length - 1);
      expect(section.directory).toBeUndefined();
    }
  });

  it("shows a staged rename as a rename", async () => {
    const root = tempRepo();
    write(root, "r.txt", numberedLines(20));
    commitAll(root);
    git(root, ["mv", "r.txt", "s.txt"]);
    const diff = await readReviewDiff(root, "s.txt");
    expect(diff.diffs).toHaveLength(1);
    expect(diff.diffs[0]?.scope).toBe("staged");
    expect(diff.diffs[0]?.patch).toContain("rename from r.txt\nrename to s.txt\n");
  });

  it("gives one conflict section for a conflicted file", async () => {
    const root = conflictedRepo();
    const diff = await readReviewDiff(root, "f.txt");
    expect(diff.diffs).toHaveLength(1);
    expect(diff.diffs[0]?.scope).toBe("conflict");
    expect(diff.diffs[0]?.patch).toContain("diff --cc f.txt");
    expect(diff.diffs[0]?.patch).toContain("<<<<<<<");
  });

  it("gives untracked files a working section, a nested repository a directory section", async () => {
    const root = tempRepo();
    write(root, "base", "b\n");
    commitAll(root);
    write(root, "dir/new file.txt", "x\ny\n");
    write(root, "nested/n.txt", "n\n");
    git(path.join(root, "nested"), ["init", "-q"]);
    const untracked = await readReviewDiff(root, "dir/new file.txt");
    expect(untracked.diffs).toHaveLength(1);
    expect(untracked.diffs[0]).toMatchObject({ scope: "working", binary: false, tooLarge: false });
    expect(untracked.diffs[0]?.lines).toBe((untracked.diffs[0]?.patch.match(/\n/g) ?? []).length);
    expect(untracked.diffs[0]?.patch).toContain("new file mode");
    expect(untracked.diffs[0]?.patch).toContain("+x\n+y\n");
    expect((await readReviewDiff(root, "nested/")).diffs).toEqual([
      { binary: false, bytes: 0, directory: true, lines: 0, patch: "", scope: "working", tooLarge: false },
    ]);
  });

  it("shows an untracked symbolic link as git does, also one to a folder", async () => {
    const root = tempRepo();
    write(root, "base", "b\n");
    commitAll(root);
    fs.mkdirSync(path.join(root, "folder"));
    write(root, "folder/inside.txt", "i\n");
    git(root, ["add", "folder"]);
    git(root, ["commit", "-q", "-m", "folder"]);
    fs.symlinkSync("folder", path.join(root, "to-folder"));
    fs.symlinkSync("base", path.join(root, "to-file"));
    const [toFolder] = (await readReviewDiff(root, "to-folder")).diffs;
    expect(toFolder).toMatchObject({ scope: "working", binary: false, tooLarge: false });
    expect(toFolder?.patch).toContain("new file mode 120000\n");
    expect(toFolder?.patch).toContain("\n+folder\n\\ No newline at end of file\n");
    // The same text git prints for a link to a file, but for git's `index` line.
    const [toFile] = (await readReviewDiff(root, "to-file")).diffs;
    const gits = git(root, ["diff", "--no-index", "--", "/dev/null", "to-file"], {}, [1]);
    expect(toFile?.patch).toBe(gits.replace(/^index .*\n/m, ""));
  });

  it("marks binary changes, tracked and untracked", async () => {
    const root = tempRepo();
    write(root, "bin.dat", binaryBytes(3));
    commitAll(root);
    write(root, "bin.dat", binaryBytes(5));
    write(root, "new.bin", binaryBytes(7));
    const tracked = await readReviewDiff(root, "bin.dat");
    expect(tracked.diffs).toMatchObject([{ scope: "working", binary: true, tooLarge: false }]);
    expect(tracked.diffs[0]?.patch).toContain("Binary files");
    expect((await readReviewDiff(root, "new.bin")).diffs).toMatchObject([{ scope: "working", binary: true }]);
  });

  it("sends a diff over 5,000 lines or over 1 MiB as tooLarge with an empty patch and its size (a lower bound past 1 MiB)", async () => {
    const root = tempRepo();
    write(root, "long.txt", "start\n");
    write(root, "wide.txt", "start\n");
    commitAll(root);
    write(root, "long.txt", numberedLines(DIFF_MAX_LINES + 10));
    write(root, "wide.txt", `${"w".repeat(DIFF_MAX_BYTES + 100)}\n`);
    write(root, "untracked-long.txt", numberedLines(DIFF_MAX_LINES + 1));
    const long = (await readReviewDiff(root, "long.txt")).diffs[0];
    expect(long).toMatchObject({ scope: "working", tooLarge: true, patch: "", binary: false });
    expect(long?.lines).toBeGreaterThan(DIFF_MAX_LINES + 10);
    const wide = (await readReviewDiff(root, "wide.txt")).diffs[0];
    expect(wide).toMatchObject({ tooLarge: true, patch: "", bytes: DIFF_MAX_BYTES + 1 });
    expect(wide?.lines).toBeLessThan(20);
    const untracked = (await readReviewDiff(root, "untracked-long.txt")).diffs[0];
    expect(untracked).toMatchObject({ tooLarge: true, patch: "" });
    expect(untracked?.lines).toBeGreaterThan(DIFF_MAX_LINES);
  });

  it("stops reading a patch one byte past 1 MiB: bytes and lines are lower bounds", async () => {
    const root = tempRepo();
    write(root, "huge.txt", "start\n");
    commitAll(root);
    // About 4.5 MiB of patch in 600,000 lines.
    write(root, "huge.txt", "changed\n".repeat(600_000));
    const section = (await readReviewDiff(root, "huge.txt")).diffs[0];
    expect(section).toMatchObject({ scope: "working", tooLarge: true, patch: "", binary: false, bytes: DIFF_MAX_BYTES + 1 });
    expect(section?.lines).toBeGreaterThan(DIFF_MAX_LINES);
    expect(section?.lines).toBeLessThan(600_000);
  });

  it("is too large when git's output passes the measure limit", async () => {
    const root = tempRepo();
    write(root, "a.txt", "a\n");
    commitAll(root);
    write(root, "a.txt", numberedLines(50));
    const section = (await readReviewDiff(root, "a.txt", { measureLimitBytes: 100 })).diffs[0];
    expect(section).toMatchObject({ tooLarge: true, patch: "", bytes: 100 });
  });

  it("takes the path literally (no pathspec magic)", async () => {
    const root = tempRepo();
    write(root, "star*.txt", "a\n");
    write(root, "starX.txt", "a\n");
    commitAll(root);
    write(root, "star*.txt", "b\n");
    write(root, "starX.txt", "b\n");
    const diff = await readReviewDiff(root, "star*.txt");
    expect(diff.diffs).toHaveLength(1);
    expect(diff.diffs[0]?.patch).toContain("a/star*.txt");
    expect(diff.diffs[0]?.patch).not.toContain("starX");
  });

  it("refuses a path that is not a changed file of the bounded list, and a folder outside a repository", async () => {
    const root = tempRepo();
    write(root, "clean.txt", "a\n");
    commitAll(root);
    // 501 changed paths: the last one is past the cap.
    for (let index = 0; index <= 500; index++) write(root, `u/${String(index).padStart(3, "0")}.txt`, "x\n");
    for (const stale of ["clean.txt", "missing.txt", "../etc/passwd", "/etc/passwd", "u/500.txt", "u"]) {
      const error = await serviceFailure(readReviewDiff(root, stale));
      expect(error.code, stale).toBe("review_failed");
    }
    expect((await readReviewDiff(root, "u/499.txt")).diffs).toHaveLength(1);
    expect((await serviceFailure(readReviewDiff(tempDir(), "a.txt"))).code).toBe("review_failed");
    expect((await serviceFailure(readReviewDiff(path.join(root, "nope"), "a.txt"))).code).toBe("review_failed");
  });

  it("never writes .git/index", async () => {
    const root = tempRepo();
    write(root, "a.txt", "a\n");
    write(root, "b.txt", "b\n");
    commitAll(root);
    write(root, "a.txt", "changed\n");
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(path.join(root, "b.txt"), later, later);
    const index = path.join(root, ".git", "index");
    const before = { bytes: fs.readFileSync(index), mtime: fs.statSync(index).mtimeMs };
    await readReviewDiff(root, "a.txt");
    expect(fs.statSync(index).mtimeMs).toBe(before.mtime);
    expect(fs.readFileSync(index).equals(before.bytes)).toBe(true);
  });
});
