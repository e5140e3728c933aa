import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitCompleteLines } from "../../domain/jsonl-lines.ts";
import { splitUtf8Lines } from "./file-tail.ts";

/** What decoding the complete lines as one text gives (the reference `splitUtf8Lines` must equal). */
function reference(bytes: Buffer): string[] {
  const end = bytes.lastIndexOf(0x0a) + 1;
  return splitCompleteLines(bytes.toString("utf8", 0, end)).lines;
}

const chunk = fc.oneof(
  fc.constantFrom("\n", "\r\n", "\r", "", "{}", "é", "Μ", "😀", "\u00ff", "\ufeff"),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.string({ maxLength: 8 }),
);

describe("splitUtf8Lines", () => {
  it("equals decoding the whole text and splitting it, for any text", () => {
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 30 }), (parts) => {
        const bytes = Buffer.from(parts.join(""), "utf8");
        expect(splitUtf8Lines(bytes, 0, bytes.lastIndexOf(0x0a) + 1)).toEqual(reference(bytes));
      }),
    );
  });

  it("equals it for any bytes too (invalid UTF-8 becomes the same replacement characters)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.array(fc.nat({ max: 64 }), { maxLength: 6 }), (raw, cuts) => {
        const bytes = Buffer.from(raw);
        for (const at of cuts) if (bytes.length > 0) bytes[at % bytes.length] = 0x0a;
        expect(splitUtf8Lines(bytes, 0, bytes.lastIndexOf(0x0a) + 1)).toEqual(reference(bytes));
      }),
    );
  });

  it("starts at `from` and stops at the last newline before `end`", () => {
    const bytes = Buffer.from("skip\na\r\nb\n\ntorn", "utf8");
    expect(splitUtf8Lines(bytes, 5, bytes.length)).toEqual(["a", "b", ""]);
    expect(splitUtf8Lines(bytes, 5, 5)).toEqual([]);
  });

  it("keeps lines whose characters fit in Latin-1 as one-byte strings even when another line does not", () => {
    // Not observable through the API except by cost: assert the decoded characters instead.
    const bytes = Buffer.from('{"a":"é"}\n{"b":"Μ😀"}\n', "utf8");
    expect(splitUtf8Lines(bytes, 0, bytes.length).map((line) => JSON.parse(line) as unknown)).toEqual([{ a: "é" }, { b: "Μ😀" }]);
  });
});
