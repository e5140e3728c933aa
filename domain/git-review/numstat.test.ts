import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { parseNumstat, sumNumstat, type NumstatEntry } from "./numstat.ts";

function format(entry: NumstatEntry): string {
  const counts = `${entry.additions ?? "-"}\t${entry.deletions ?? "-"}\t`;
  return entry.oldPath === "" ? `${counts}${entry.path}\0` : `${counts}\0${entry.oldPath}\0${entry.path}\0`;
}

describe("parseNumstat", () => {
  it("reads plain, renamed and binary records", () => {
    const text = "3\t1\tsrc/a.ts\0" + "0\t0\t\0old name.txt\0new name.txt\0" + "-\t-\timage.png\0";
    expect(parseNumstat(text)).toEqual([
      { path: "src/a.ts", oldPath: "", additions: 3, deletions: 1 },
      { path: "new name.txt", oldPath: "old name.txt", additions: 0, deletions: 0 },
      { path: "image.png", oldPath: "", additions: null, deletions: null },
    ]);
    expect(parseNumstat("")).toEqual([]);
    expect(parseNumstat("x\ty\tz\0no tabs\0")).toEqual([]);
  });

  it("sums text changes, binary files as nothing, without the excluded (conflicted) paths", () => {
    // An unmerged path appears twice in `git diff --numstat`.
    const entries = parseNumstat("0\t0\tf.txt\0" + "4\t0\tf.txt\0" + "2\t5\tg.txt\0" + "-\t-\tb.bin\0");
    expect(sumNumstat(entries)).toEqual({ additions: 6, deletions: 5 });
    expect(sumNumstat(entries, new Set(["f.txt"]))).toEqual({ additions: 2, deletions: 5 });
  });

  const pathArb = fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom("a", " ", "\t", "\n", "/", "é", ".") });
  const countArb = fc.option(fc.nat({ max: 100_000 }), { nil: null });
  const entryArb = fc
    .record({ path: pathArb, oldPath: fc.option(pathArb, { nil: "" }), additions: countArb })
    .map(({ path, oldPath, additions }): NumstatEntry => ({
      path,
      oldPath,
      additions,
      deletions: additions === null ? null : additions % 7,
    }));

  test.prop([fc.array(entryArb, { maxLength: 20 })])("reads back what git would print", (entries) => {
    expect(parseNumstat(entries.map(format).join(""))).toEqual(entries);
  });

  test.prop([fc.array(entryArb, { maxLength: 20 }), fc.nat({ max: 20 })])("sums are additive over any split", (entries, cut) => {
    const at = cut % (entries.length + 1);
    const whole = sumNumstat(entries);
    const left = sumNumstat(entries.slice(0, at));
    const right = sumNumstat(entries.slice(at));
    expect(whole).toEqual({ additions: left.additions + right.additions, deletions: left.deletions + right.deletions });
  });
});
