import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { splitCompleteLines } from "./jsonl-lines.ts";

describe("splitCompleteLines", () => {
  it("returns complete lines and holds back the torn tail", () => {
    expect(splitCompleteLines('{"a":1}\n{"b":2}\n{"c"')).toEqual({ lines: ['{"a":1}', '{"b":2}'], rest: '{"c"' });
  });

  it("has an empty rest when the text ends with a newline", () => {
    expect(splitCompleteLines("x\ny\n")).toEqual({ lines: ["x", "y"], rest: "" });
  });

  it("returns no lines for text without a newline", () => {
    expect(splitCompleteLines("")).toEqual({ lines: [], rest: "" });
    expect(splitCompleteLines("torn")).toEqual({ lines: [], rest: "torn" });
  });

  it("keeps blank lines and drops one trailing carriage return", () => {
    expect(splitCompleteLines("a\r\n\n\r\nb\r\r\nc\r")).toEqual({ lines: ["a", "", "", "b\r"], rest: "c\r" });
  });

  it("re-joins to the original text (lines + rest) when there are no carriage returns", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme" }).map((s) => s.replace(/\r/g, ""))), fc.string(), (parts, tail) => {
        const tornTail = tail.replace(/[\r\n]/g, "");
        const text = parts.map((p) => `${p}\n`).join("") + tornTail;
        const { lines, rest } = splitCompleteLines(text);
        expect(lines.map((l) => `${l}\n`).join("") + rest).toBe(text);
        expect(rest).toBe(tornTail);
      }),
    );
  });
});
