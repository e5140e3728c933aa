/**
 * Laws of hunk location over generated `git diff` output (several files, several hunks, lines that look like
 * headers, CR and tabs in lines, `\ No newline at end of file` markers, zero-length sides):
 * - parsing the rendered diff gives back every hunk's exact text and counts;
 * - the one-hunk patch built from any hunk parses to one file with that hunk and the file's own header lines;
 * - any hunk's text (with or without its final newline) is located, and located as itself;
 * - dropping any counted line of a hunk makes it unreadable, so a clipped hunk can never be staged.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { locateHunk, oneHunkPatch, parseGitDiff, parseHunkText } from "./hunk-patch.ts";

type Kind = " " | "-" | "+";
interface LineModel {
  kind: Kind;
  text: string;
}
interface HunkModel {
  gap: number;
  section: string;
  lines: LineModel[];
  noNewline: boolean;
}
interface FileModel {
  name: string;
  hunks: HunkModel[];
}

const lineText = fc.oneof(
  fc.constantFrom(
    "",
    "a",
    "@@ -1 +1 @@",
    "-- a/x",
    "++ b/x",
    "diff --git a/q b/q",
    "\\ fake marker",
    " indented",
    "tab\there",
    "crlf\r",
    "ünïcode",
  ),
  fc.string({ unit: fc.constantFrom("a", "b", " ", "-", "+", "@", "\\", "\t", "\r"), maxLength: 8 }),
);
const line = fc.record({ kind: fc.constantFrom<Kind>(" ", "-", "+"), text: lineText });
const hunk = fc.record({
  gap: fc.integer({ min: 1, max: 20 }),
  section: fc.constantFrom("", " function f() {", " @@ tricky"),
  lines: fc.array(line, { minLength: 1, maxLength: 8 }),
  noNewline: fc.boolean(),
});
const file = fc.record({
  name: fc.constantFrom("a.txt", "dir/b c.ts", "ünï/ködé.md", "x"),
  hunks: fc.array(hunk, { minLength: 1, maxLength: 4 }),
});
const diff = fc.array(file, { minLength: 1, maxLength: 3 });

const range = (start: number, count: number): string => (count === 1 ? `${start}` : `${start},${count}`);

/** Each hunk's rendered text, in file order. */
function renderHunks(model: FileModel): string[] {
  let oldEnd = 0;
  let newEnd = 0;
  return model.hunks.map((h) => {
    const oldCount = h.lines.filter((l) => l.kind !== "+").length;
    const newCount = h.lines.filter((l) => l.kind !== "-").length;
    const oldStart = oldCount === 0 ? oldEnd + h.gap - 1 : oldEnd + h.gap;
    const newStart = newCount === 0 ? newEnd + h.gap - 1 : newEnd + h.gap;
    oldEnd = oldEnd + h.gap + oldCount;
    newEnd = newEnd + h.gap + newCount;
    const body = h.lines.map((l) => `${l.kind}${l.text}\n`).join("");
    return `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@${h.section}\n${body}${h.noNewline ? "\\ No newline at end of file\n" : ""}`;
  });
}

function renderFile(model: FileModel): string {
  return `diff --git a/${model.name} b/${model.name}\nindex 1234567..89abcde 100644\n--- a/${model.name}\n+++ b/${model.name}\n${renderHunks(model).join("")}`;
}

describe("hunk location laws", () => {
  it("parses every rendered hunk back, and a one-hunk patch of it re-parses to that hunk", () => {
    fc.assert(
      fc.property(diff, (models) => {
        const parsed = parseGitDiff(models.map(renderFile).join(""));
        if (!parsed.ok) throw new Error(parsed.error);
        expect(parsed.value).toHaveLength(models.length);
        models.forEach((model, f) => {
          const parsedFile = parsed.value[f];
          if (parsedFile === undefined) throw new Error("missing file");
          expect(parsedFile.hunks.map((h) => h.text)).toEqual(renderHunks(model));
          for (const parsedHunk of parsedFile.hunks) {
            const patch = parseGitDiff(oneHunkPatch(parsedFile, parsedHunk));
            if (!patch.ok) throw new Error(patch.error);
            expect(patch.value).toHaveLength(1);
            expect(patch.value[0]?.gitLine).toBe(parsedFile.gitLine);
            expect(patch.value[0]?.oldFileLine).toBe(parsedFile.oldFileLine);
            expect(patch.value[0]?.newFileLine).toBe(parsedFile.newFileLine);
            expect(patch.value[0]?.hunks).toEqual([parsedHunk]);
          }
        });
      }),
    );
  });

  it("locates any hunk's text, with or without its final newline", () => {
    fc.assert(
      fc.property(diff, fc.nat(), fc.nat(), fc.boolean(), (models, fileIndex, hunkIndex, clipNewline) => {
        const parsed = parseGitDiff(models.map(renderFile).join(""));
        if (!parsed.ok) throw new Error(parsed.error);
        const model = models[fileIndex % models.length] as FileModel;
        const texts = renderHunks(model);
        const text = texts[hunkIndex % texts.length] as string;
        const sent = parseHunkText(clipNewline ? text.slice(0, -1) : text);
        if (!sent.ok) throw new Error(sent.error);
        expect(locateHunk(parsed.value, sent.value)?.hunk.text).toBe(text);
      }),
    );
  });

  it("refuses a hunk with any counted line dropped", () => {
    fc.assert(
      fc.property(hunk, fc.nat(), (h, drop) => {
        const [text] = renderHunks({ name: "x", hunks: [h] });
        const lines = (text as string).split("\n").slice(0, -1);
        const counted = lines.map((_, i) => i).filter((i) => i > 0 && !(lines[i] as string).startsWith("\\"));
        const index = counted[drop % counted.length] as number;
        const clipped = lines.filter((_, i) => i !== index).join("\n") + "\n";
        expect(parseHunkText(clipped).ok).toBe(false);
      }),
    );
  });
});
