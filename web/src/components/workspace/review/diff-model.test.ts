import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { locateHunk, parseGitDiff, parseHunkText } from "../../../../../domain/git-review-actions/hunk-patch.ts";
import { hunkCounts, parsePatch, splitRows, type DiffLine } from "./diff-model.ts";

const PATCH = [
  "diff --git a/src/app.ts b/src/app.ts",
  "index 1111111..2222222 100644",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,4 +1,5 @@ export function main() {",
  " const a = 1;",
  "-const b = 2;",
  "+const b = 3;",
  "+const c = 4;",
  " const d = 5;",
  " const e = 6;",
  "@@ -10,3 +11,2 @@",
  " x",
  "-y",
  " z",
  "",
].join("\n");

const line = (kind: DiffLine["kind"], text: string, oldNo: number | null, newNo: number | null): DiffLine => ({ kind, text, oldNo, newNo });

describe("parsePatch", () => {
  it("reads the header lines and each hunk with its range, section and numbered lines", () => {
    const parsed = parsePatch(PATCH);
    expect(parsed.header).toEqual([
      "diff --git a/src/app.ts b/src/app.ts",
      "index 1111111..2222222 100644",
      "--- a/src/app.ts",
      "+++ b/src/app.ts",
    ]);
    expect(parsed.hunks).toHaveLength(2);
    const [first, second] = parsed.hunks;
    expect(first).toMatchObject({
      oldStart: 1,
      oldCount: 4,
      newStart: 1,
      newCount: 5,
      section: "export function main() {",
      combined: false,
    });
    expect(first?.lines).toEqual([
      line("context", "const a = 1;", 1, 1),
      line("del", "const b = 2;", 2, null),
      line("add", "const b = 3;", null, 2),
      line("add", "const c = 4;", null, 3),
      line("context", "const d = 5;", 3, 4),
      line("context", "const e = 6;", 4, 5),
    ]);
    expect(second?.lines).toEqual([line("context", "x", 10, 11), line("del", "y", 11, null), line("context", "z", 12, 12)]);
    expect(hunkCounts(first!)).toEqual({ additions: 2, deletions: 1 });
  });

  it("keeps each hunk's exact text, from its @@ line to its end, newlines included", () => {
    const { hunks } = parsePatch(PATCH);
    expect(hunks[0]?.text).toBe(
      "@@ -1,4 +1,5 @@ export function main() {\n const a = 1;\n-const b = 2;\n+const b = 3;\n+const c = 4;\n const d = 5;\n const e = 6;\n",
    );
    expect(hunks[1]?.text).toBe("@@ -10,3 +11,2 @@\n x\n-y\n z\n");
    // Concatenated, header and hunks give the patch back.
    expect(hunks.map((hunk) => hunk.text).join("")).toBe(PATCH.slice(PATCH.indexOf("@@")));
  });

  it("counts by the header: a removed line that looks like a file header or a hunk header stays in its hunk", () => {
    const patch = "@@ -1,2 +1,2 @@\n--- a/x\n+@@ -1 +1 @@\n-y\n+z\n";
    const [hunk] = parsePatch(patch).hunks;
    expect(hunk?.lines.map((l) => [l.kind, l.text])).toEqual([
      ["del", "-- a/x"],
      ["add", "@@ -1 +1 @@"],
      ["del", "y"],
      ["add", "z"],
    ]);
    expect(hunk?.text).toBe(patch);
  });

  it("keeps '\\ No newline at end of file' as a note of the hunk and its text", () => {
    const patch = "@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n\\ No newline at end of file\n";
    const [hunk] = parsePatch(patch).hunks;
    expect(hunk?.lines.map((l) => l.kind)).toEqual(["del", "note", "add", "note"]);
    expect(hunk?.lines[1]?.text).toBe("No newline at end of file");
    expect(hunk?.text).toBe(patch);
  });

  it("reads a new file (-0,0), a hunk without counts, a patch without a final newline and CRLF lines", () => {
    const created = parsePatch("new file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b");
    expect(created.header[0]).toBe("new file mode 100644");
    expect(created.hunks[0]?.lines).toEqual([line("add", "a", null, 1), line("add", "b", null, 2)]);
    expect(created.hunks[0]?.text).toBe("@@ -0,0 +1,2 @@\n+a\n+b");
    const single = parsePatch("@@ -3 +3 @@\n-a\r\n+b\r\n").hunks[0];
    expect(single?.lines).toEqual([line("del", "a", 3, null), line("add", "b", null, 3)]);
    expect(single?.text).toBe("@@ -3 +3 @@\n-a\r\n+b\r\n");
  });

  it("ends a hunk at a line that cannot belong to it, and keeps what follows as header", () => {
    const parsed = parsePatch("@@ -1,3 +1,3 @@\n a\ndiff --git a/b b/b\n");
    expect(parsed.hunks[0]?.lines).toEqual([line("context", "a", 1, 1)]);
    expect(parsed.header).toEqual(["diff --git a/b b/b"]);
    expect(parsePatch("")).toEqual({ header: [], hunks: [] });
  });

  it("reads a combined (conflict) diff with one prefix column per parent, new-side numbers only", () => {
    const patch = [
      "diff --cc f.txt",
      "@@@ -1,3 -1,3 +1,7 @@@",
      "  same",
      "++<<<<<<< HEAD",
      " +ours",
      "++=======",
      "+ theirs",
      "++>>>>>>> other",
      "- gone",
      "",
    ].join("\n");
    const [hunk] = parsePatch(patch).hunks;
    expect(hunk?.combined).toBe(true);
    expect(hunk?.newStart).toBe(1);
    expect(hunk?.lines.map((l) => [l.kind, l.text, l.newNo])).toEqual([
      ["context", "same", 1],
      ["add", "<<<<<<< HEAD", 2],
      ["add", "ours", 3],
      ["add", "=======", 4],
      ["add", "theirs", 5],
      ["add", ">>>>>>> other", 6],
      ["del", "gone", null],
    ]);
  });
});

describe("splitRows", () => {
  it("pairs a removed run with the added run after it, and puts context on both sides", () => {
    const [hunk] = parsePatch(PATCH).hunks;
    const rows = splitRows(hunk!.lines);
    expect(rows.map((row) => [row.left?.text ?? null, row.right?.text ?? null])).toEqual([
      ["const a = 1;", "const a = 1;"],
      ["const b = 2;", "const b = 3;"],
      [null, "const c = 4;"],
      ["const d = 5;", "const d = 5;"],
      ["const e = 6;", "const e = 6;"],
    ]);
  });

  it("keeps a note on the side of the line it follows", () => {
    const [hunk] = parsePatch("@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n").hunks;
    const rows = splitRows(hunk!.lines);
    expect(rows.map((row) => [row.left?.kind ?? null, row.right?.kind ?? null])).toEqual([
      ["del", "add"],
      ["note", null],
    ]);
  });

  const lineArb: fc.Arbitrary<DiffLine> = fc
    .record({ kind: fc.constantFrom<DiffLine["kind"]>("context", "add", "del", "note"), text: fc.string({ maxLength: 4 }) })
    .map(({ kind, text }) => ({ kind, text, oldNo: null, newNo: null }));

  it("law: every line appears on its side(s), once each and in order; rows never pair a line with itself unless context", () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 60 }), (lines) => {
        const rows = splitRows(lines);
        const left = rows.flatMap((row) => (row.left ? [row.left] : []));
        const right = rows.flatMap((row) => (row.right ? [row.right] : []));
        // Each side is a subsequence of the lines, in order; every line is on at least one side.
        const position = (side: DiffLine[]) => side.map((l) => lines.indexOf(l));
        for (const side of [left, right]) {
          const positions = position(side);
          for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThan(positions[i - 1] as number);
        }
        for (const l of lines) expect(left.includes(l) || right.includes(l)).toBe(true);
        // Removed lines only left, added only right, context on both.
        for (const l of lines) {
          if (l.kind === "del") expect([left.includes(l), right.includes(l)]).toEqual([true, false]);
          if (l.kind === "add") expect([left.includes(l), right.includes(l)]).toEqual([false, true]);
          if (l.kind === "context") expect([left.includes(l), right.includes(l)]).toEqual([true, true]);
        }
        for (const row of rows) {
          expect(row.left !== null || row.right !== null).toBe(true);
          if (row.left !== null && row.left === row.right) expect(["context", "note"]).toContain(row.left.kind);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("law: parsing a generated hunk numbers both sides consecutively and its text is the hunk as written", () => {
    const body = fc.array(
      fc.record({ kind: fc.constantFrom(" ", "-", "+"), text: fc.string({ maxLength: 6 }).map((s) => s.replace(/[\r\n]/g, "")) }),
      {
        minLength: 1,
        maxLength: 30,
      },
    );
    fc.assert(
      fc.property(body, fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 500 }), (entries, oldStart, newStart) => {
        const oldCount = entries.filter((e) => e.kind !== "+").length;
        const newCount = entries.filter((e) => e.kind !== "-").length;
        const text = `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n${entries.map((e) => `${e.kind}${e.text}\n`).join("")}`;
        const parsed = parsePatch(`--- a/f\n+++ b/f\n${text}`);
        expect(parsed.hunks).toHaveLength(1);
        const [hunk] = parsed.hunks;
        expect(hunk?.text).toBe(text);
        expect(hunk?.lines.map((l) => l.text)).toEqual(entries.map((e) => e.text));
        const olds = hunk!.lines.flatMap((l) => (l.oldNo === null ? [] : [l.oldNo]));
        const news = hunk!.lines.flatMap((l) => (l.newNo === null ? [] : [l.newNo]));
        expect(olds).toEqual(Array.from({ length: oldCount }, (_, i) => oldStart + i));
        expect(news).toEqual(Array.from({ length: newCount }, (_, i) => newStart + i));
      }),
      { numRuns: 300 },
    );
  });
});

describe("hunk text and the server", () => {
  it("law: each hunk's text is one the server's hunk parser reads and finds in the same patch (what stage-hunk sends)", () => {
    const entry = fc.record({
      kind: fc.constantFrom(" ", "-", "+", "\\"),
      text: fc.string({ maxLength: 6 }).map((s) => s.replace(/[\r\n]/g, "")),
    });
    const hunkArb = fc.array(entry, { minLength: 1, maxLength: 12 }).map((entries) => {
      // A note may only follow a line; keep the counts the header states.
      const lines = entries.filter((e, i) => e.kind !== "\\" || (i > 0 && entries[i - 1]?.kind !== "\\"));
      const body = lines.filter((e) => e.kind !== "\\");
      if (body.length === 0) return null;
      if (lines[0]?.kind === "\\") lines.shift();
      const oldCount = body.filter((e) => e.kind !== "+").length;
      const newCount = body.filter((e) => e.kind !== "-").length;
      return {
        oldCount,
        newCount,
        text: lines.map((e) => (e.kind === "\\" ? "\\ No newline at end of file\n" : `${e.kind}${e.text}\n`)).join(""),
      };
    });
    fc.assert(
      fc.property(fc.array(hunkArb, { minLength: 1, maxLength: 4 }), (generated) => {
        const hunks = generated.filter((h) => h !== null);
        let start = 1;
        const texts = hunks.map((h) => {
          const text = `@@ -${start},${h.oldCount} +${start},${h.newCount} @@\n${h.text}`;
          start += Math.max(h.oldCount, h.newCount) + 10;
          return text;
        });
        const patch = `diff --git a/f.ts b/f.ts\nindex 1..2 100644\n--- a/f.ts\n+++ b/f.ts\n${texts.join("")}`;
        const server = parseGitDiff(patch);
        expect(server.ok).toBe(true);
        if (!server.ok) return;
        const ours = parsePatch(patch).hunks;
        expect(ours.map((h) => h.text)).toEqual(server.value[0]?.hunks.map((h) => h.text));
        for (const hunk of ours) {
          const sent = parseHunkText(hunk.text);
          expect(sent.ok).toBe(true);
          if (sent.ok) expect(locateHunk(server.value, sent.value)).not.toBeNull();
        }
      }),
      { numRuns: 300 },
    );
  });
});
