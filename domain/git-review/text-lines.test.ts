import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { BINARY_SNIFF_BYTES, countLines, initialTextScan, scanTextChunk, textScanLines } from "./text-lines.ts";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function scanAll(chunks: readonly Uint8Array[]): number | null {
  return textScanLines(chunks.reduce(scanTextChunk, initialTextScan()));
}

describe("text lines", () => {
  it("counts lines as git's numstat does", () => {
    expect(scanAll([])).toBe(0);
    expect(scanAll([bytes("")])).toBe(0);
    expect(scanAll([bytes("one")])).toBe(1);
    expect(scanAll([bytes("one\n")])).toBe(1);
    expect(scanAll([bytes("one\ntwo")])).toBe(2);
    expect(scanAll([bytes("\n\n\n")])).toBe(3);
    expect(countLines(bytes("a\nb\n"))).toBe(2);
  });

  it("calls a file binary when a NUL is in its first 8,000 bytes only", () => {
    expect(scanAll([bytes("a\0b\n")])).toBeNull();
    const late = new Uint8Array(BINARY_SNIFF_BYTES + 10).fill(0x61);
    late[BINARY_SNIFF_BYTES + 2] = 0;
    expect(scanAll([late])).toBe(1);
    const edge = new Uint8Array(BINARY_SNIFF_BYTES).fill(0x61);
    edge[BINARY_SNIFF_BYTES - 1] = 0;
    expect(scanAll([edge.subarray(0, 5000), edge.subarray(5000)])).toBeNull();
  });

  const contentArb = fc
    .uint8Array({ maxLength: 300 })
    .map((array) => array.map((byte) => (byte % 5 === 0 ? 0x0a : byte % 7 === 0 ? 0 : byte)));

  test.prop([contentArb, fc.array(fc.nat({ max: 300 }), { maxLength: 5 })])(
    "does not depend on how the bytes are chunked",
    (content, cuts) => {
      const points = [...new Set(cuts.map((cut) => cut % (content.length + 1)))].sort((a, b) => a - b);
      const chunks: Uint8Array[] = [];
      let from = 0;
      for (const point of [...points, content.length]) {
        chunks.push(content.subarray(from, point));
        from = point;
      }
      expect(scanAll(chunks)).toEqual(scanAll([content]));
    },
  );

  test.prop([fc.array(fc.string({ unit: fc.constantFrom("a", "b", "é") }), { minLength: 1, maxLength: 30 }), fc.boolean()])(
    "counts one line per line of text, terminated or not",
    (lines, terminated) => {
      const text = lines.join("\n") + (terminated ? "\n" : "");
      // The model: split on newlines; a trailing empty piece is the end of the last line, not a line.
      const pieces = text.split("\n");
      if (pieces.at(-1) === "") pieces.pop();
      const expected = pieces.length;
      expect(scanAll([bytes(text)])).toBe(expected);
    },
  );
});
