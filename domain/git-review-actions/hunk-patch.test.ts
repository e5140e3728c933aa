/** Hunk location and one-hunk patches over `git diff` output as git 2.39 prints it. */
import { describe, expect, it } from "vitest";
import { hasNoContext, hunkStagingRefusal, locateHunk, oneHunkPatch, parseGitDiff, parseHunkText, type FileDiff } from "./hunk-patch.ts";

const TWO_FILES = [
  "diff --git a/f.txt b/f.txt",
  "index e031777..b4fecfe 100644",
  "--- a/f.txt",
  "+++ b/f.txt",
  "@@ -1,4 +1,4 @@",
  "-one",
  "+ONE",
  " two",
  " three",
  " four",
  "@@ -9,4 +9,4 @@ eight",
  " nine",
  " ten",
  " eleven",
  "-twelve",
  "+TWELVE",
  "diff --git a/nonl b/nonl",
  "old mode 100644",
  "new mode 100755",
  "index c1b0730..e25f181",
  "--- a/nonl",
  "+++ b/nonl",
  "@@ -1 +1 @@",
  "-x",
  "\\ No newline at end of file",
  "+y",
  "\\ No newline at end of file",
  "",
].join("\n");

function files(text: string): FileDiff[] {
  const parsed = parseGitDiff(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

describe("parseGitDiff", () => {
  it("splits sections and hunks by the hunk headers' counts", () => {
    const [f, nonl] = files(TWO_FILES);
    expect(f?.gitLine).toBe("diff --git a/f.txt b/f.txt");
    expect(f?.oldFileLine).toBe("--- a/f.txt");
    expect(f?.newFileLine).toBe("+++ b/f.txt");
    expect(f?.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [1, 4, 1, 4],
      [9, 4, 9, 4],
    ]);
    expect(f?.hunks[1]?.text).toBe("@@ -9,4 +9,4 @@ eight\n nine\n ten\n eleven\n-twelve\n+TWELVE\n");
    expect(nonl?.hunks).toHaveLength(1);
    expect(nonl?.hunks[0]?.text).toBe("@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n");
  });

  it("keeps lines that look like headers inside their hunk", () => {
    const text = [
      "diff --git a/x b/x",
      "--- a/x",
      "+++ b/x",
      "@@ -1,2 +1,2 @@",
      "--- a/evil",
      "+@@ -1 +1 @@",
      " diff --git a/y b/y",
      "",
    ].join("\n");
    const [x] = files(text);
    expect(x?.hunks).toHaveLength(1);
    expect(x?.hunks[0]?.text).toBe("@@ -1,2 +1,2 @@\n--- a/evil\n+@@ -1 +1 @@\n diff --git a/y b/y\n");
  });

  it("refuses output that breaks the counts", () => {
    expect(parseGitDiff("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n").ok).toBe(false);
    expect(parseGitDiff("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n").ok).toBe(false);
    expect(parseGitDiff("not a diff\n").ok).toBe(false);
    expect(parseGitDiff("")).toEqual({ ok: true, value: [] });
  });
});

describe("parseHunkText and locateHunk", () => {
  it("finds the exact hunk, with or without its final newline", () => {
    const all = files(TWO_FILES);
    for (const text of [
      "@@ -9,4 +9,4 @@ eight\n nine\n ten\n eleven\n-twelve\n+TWELVE\n",
      "@@ -9,4 +9,4 @@ eight\n nine\n ten\n eleven\n-twelve\n+TWELVE",
    ]) {
      const hunk = parseHunkText(text);
      expect(hunk.ok).toBe(true);
      if (!hunk.ok) continue;
      expect(locateHunk(all, hunk.value)?.hunk.oldStart).toBe(9);
    }
  });

  it("does not find a hunk whose lines or position changed", () => {
    const all = files(TWO_FILES);
    for (const text of [
      "@@ -9,4 +9,4 @@ eight\n nine\n ten\n eleven\n-twelve\n+Twelve\n",
      "@@ -8,4 +8,4 @@ eight\n nine\n ten\n eleven\n-twelve\n+TWELVE\n",
    ]) {
      const hunk = parseHunkText(text);
      if (!hunk.ok) throw new Error(hunk.error);
      expect(locateHunk(all, hunk.value)).toBeNull();
    }
  });

  it("refuses text that is not exactly one hunk", () => {
    expect(parseHunkText("-one\n+ONE\n").ok).toBe(false);
    expect(parseHunkText("@@ -1 +1 @@\n-a\n+b\n@@ -5 +5 @@\n-c\n+d\n").ok).toBe(false);
    expect(parseHunkText("@@ -1,3 +1,3 @@\n-a\n+b\n").ok).toBe(false);
    expect(parseHunkText("").ok).toBe(false);
  });
});

describe("oneHunkPatch", () => {
  it("keeps the file lines and drops the index and mode lines", () => {
    const [, nonl] = files(TWO_FILES);
    if (nonl === undefined || nonl.hunks[0] === undefined) throw new Error("missing");
    expect(hunkStagingRefusal(nonl)).toBeNull();
    expect(oneHunkPatch(nonl, nonl.hunks[0])).toBe(
      "diff --git a/nonl b/nonl\n--- a/nonl\n+++ b/nonl\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n",
    );
  });
});

describe("hunkStagingRefusal", () => {
  const refusal = (text: string): string | null => hunkStagingRefusal(files(text)[0] as FileDiff);

  it("sends binary, new, deleted and renamed files to whole-file staging", () => {
    expect(refusal("diff --git a/b.png b/b.png\nindex 1..2 100644\nBinary files a/b.png and b/b.png differ\n")).toMatch(/^A binary file/);
    expect(refusal("diff --git a/n b/n\nnew file mode 100644\nindex 0..1\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+n\n")).toMatch(
      /^A new file/,
    );
    expect(refusal("diff --git a/d b/d\ndeleted file mode 100644\nindex 1..0\n--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n")).toMatch(
      /^A deleted file/,
    );
    expect(refusal("diff --git a/o b/r\nsimilarity index 90%\nrename from o\nrename to r\n")).toMatch(/^A renamed/);
    expect(refusal("diff --git a/m b/m\nold mode 100644\nnew mode 100755\n")).toMatch(/no text hunk/);
  });
});

describe("hasNoContext", () => {
  const hunk = (text: string) => {
    const parsed = parseHunkText(text);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value;
  };

  it("is true only for a hunk made of changed lines (and no-newline markers)", () => {
    expect(hasNoContext(hunk("@@ -5,0 +6,2 @@\n+a\n+b\n"))).toBe(true);
    expect(hasNoContext(hunk("@@ -3 +3 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"))).toBe(true);
    expect(hasNoContext(hunk("@@ -1,2 +1,2 @@\n-a\n+A\n b\n"))).toBe(false);
    expect(hasNoContext(hunk("@@ -1,2 +1,2 @@\n-a\n+A\n\n"))).toBe(false); // an empty line is context
  });
});
