import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { applyTextDelta, isTextDelta, textDelta } from "./text-delta.ts";

/** Text from a small alphabet with newlines, so that heads, tails and repeats are common. */
const textArb = fc.string({ unit: fc.constantFrom("a", "b", "c", "\n", "é", "✓"), maxLength: 200 });

/** pi's bash tool output over time: lines appended, the head cut to keep the last `keep` characters. */
const tailTruncatedArb = fc
  .record({
    lines: fc.array(fc.string({ unit: fc.constantFrom("x", "y", "z", "0", "1"), maxLength: 30 }), { maxLength: 60 }),
    keep: fc.integer({ min: 1, max: 400 }),
  })
  .map(({ lines, keep }) => {
    const outputs: string[] = [];
    let all = "";
    for (const line of lines) {
      all += `${line}\n`;
      outputs.push(all.length > keep ? all.slice(all.length - keep) : all);
    }
    return outputs;
  });

describe("textDelta laws", () => {
  test.prop([textArb, textArb])("applying the delta from a to b gives b", (a, b) => {
    const delta = textDelta(a, b);
    expect(delta === null ? a : applyTextDelta(a, delta)).toBe(b);
  });

  test.prop([textArb, textArb])("a delta is null exactly when nothing changed", (a, b) => {
    expect(textDelta(a, b) === null).toBe(a === b);
  });

  test.prop([textArb, textArb])("growth is an append of just the new part", (a, b) => {
    expect(textDelta(a, a + b)).toEqual(b === "" ? null : { append: b });
  });

  test.prop([textArb, textArb.filter((y) => y !== ""), textArb])(
    "a cut head costs no more than the new tail (never a replacement)",
    (x, y, z) => {
      const delta = textDelta(x + y, y + z);
      if (delta === null) return;
      expect(delta.replace).toBeUndefined();
      expect((delta.append ?? "").length).toBeLessThanOrEqual(z.length);
    },
  );

  test.prop([tailTruncatedArb])("a tail-truncated output followed update by update rebuilds every update", (outputs) => {
    let held = "";
    for (const output of outputs) {
      const delta = textDelta(held, output);
      held = delta === null ? held : applyTextDelta(held, delta);
      expect(held).toBe(output);
      expect(isTextDelta(delta ?? {})).toBe(true);
    }
  });
});

describe("textDelta", () => {
  it("drops the head that was cut and appends the new tail instead of resending it all", () => {
    expect(textDelta("line1\nline2\nline3\n", "line2\nline3\nline4\n")).toEqual({ drop: 6, append: "line4\n" });
    expect(textDelta("line1\nline2\n", "line2\n")).toEqual({ drop: 6 });
  });

  it("replaces a text that is neither grown nor cut", () => {
    expect(textDelta("abc", "xyz")).toEqual({ replace: "xyz" });
    expect(textDelta("abc", "")).toEqual({ replace: "" });
  });

  it("stays fast and exact on long repetitive output (linear time)", () => {
    const before = `${"a".repeat(60_000)}b`;
    const after = `${"a".repeat(60_000)}c`;
    const delta = textDelta(before, after);
    expect(delta === null ? before : applyTextDelta(before, delta)).toBe(after);
  });

  it("applies a drop larger than the text as dropping everything", () => {
    expect(applyTextDelta("abc", { drop: 10, append: "d" })).toBe("d");
  });
});

describe("isTextDelta", () => {
  it("takes deltas and rejects what is not one", () => {
    expect(isTextDelta({ append: "x" })).toBe(true);
    expect(isTextDelta({ drop: 3 })).toBe(true);
    expect(isTextDelta({ replace: "" })).toBe(true);
    expect(isTextDelta({})).toBe(true);
    expect(isTextDelta(null)).toBe(false);
    expect(isTextDelta("x")).toBe(false);
    expect(isTextDelta({ drop: -1 })).toBe(false);
    expect(isTextDelta({ drop: 1.5 })).toBe(false);
    expect(isTextDelta({ append: 3 })).toBe(false);
  });
});
