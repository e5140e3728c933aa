/**
 * UTF-8 sizing and clipping (utf8-text.ts): examples for the characters that take 1, 2, 3 and 4 bytes and for
 * lone surrogates, then the laws over arbitrary UTF-16 text (astral characters and lone surrogates included):
 * `utf8Length` is Node's `Buffer.byteLength`; a clip is a prefix of the text, fits `maxBytes`, never splits a
 * character, is the longest such prefix, and happens iff the text is longer than `maxBytes`.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { clipUtf8, utf8Length } from "./utf8-text.ts";

/** One UTF-16 unit of any kind (a lone high or low surrogate included) or one whole code point of any plane. */
const unitOrCodePoint = fc.oneof(
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
);

/** Arbitrary JavaScript strings: well-formed or not, mixing every UTF-8 length. */
const anyText = fc.array(unitOrCodePoint, { maxLength: 40 }).map((parts) => parts.join(""));

const isHighSurrogate = (code: number | undefined): boolean => code !== undefined && code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number | undefined): boolean => code !== undefined && code >= 0xdc00 && code <= 0xdfff;

/** The code point (or lone surrogate) that starts at `index`, as a string. */
function characterAt(text: string, index: number): string {
  const code = text.codePointAt(index);
  return code === undefined ? "" : String.fromCodePoint(code);
}

describe("utf8Length", () => {
  it("counts 1, 2, 3 and 4 bytes for ASCII, Latin, BMP and astral characters", () => {
    expect(utf8Length("")).toBe(0);
    expect(utf8Length("a")).toBe(1);
    expect(utf8Length("é")).toBe(2);
    expect(utf8Length("€")).toBe(3);
    expect(utf8Length("😀")).toBe(4);
    expect(utf8Length("a€😀é")).toBe(10);
  });

  it("counts a lone surrogate as the 3 bytes of the replacement character, as the encoder writes it", () => {
    expect(utf8Length("\ud800")).toBe(3);
    expect(utf8Length("\udc00")).toBe(3);
    expect(utf8Length("\ud83dx")).toBe(4);
    expect(utf8Length("\ude00\ud83d")).toBe(6);
  });

  test.prop([anyText], { numRuns: 500 })("equals Buffer.byteLength for any string", (text) => {
    expect(utf8Length(text)).toBe(Buffer.byteLength(text, "utf8"));
  });

  test.prop([fc.string({ unit: "binary", maxLength: 60 })], { numRuns: 300 })(
    "equals Buffer.byteLength for well-formed text of every plane",
    (text) => {
      expect(utf8Length(text)).toBe(Buffer.byteLength(text, "utf8"));
    },
  );
});

describe("clipUtf8", () => {
  it("keeps text that fits, and says so with its size", () => {
    expect(clipUtf8("héllo", 6)).toEqual({ text: "héllo", bytes: 6, clipped: false });
    expect(clipUtf8("", 0)).toEqual({ text: "", bytes: 0, clipped: false });
    // Ten 3-byte characters are exactly 30 bytes: the fast path must not clip them.
    expect(clipUtf8("€".repeat(10), 30)).toEqual({ text: "€".repeat(10), bytes: 30, clipped: false });
  });

  it("cuts before a character that would not fit whole", () => {
    expect(clipUtf8("héllo", 2)).toEqual({ text: "h", bytes: 6, clipped: true });
    expect(clipUtf8("a😀b", 4)).toEqual({ text: "a", bytes: 6, clipped: true });
    expect(clipUtf8("😀", 3)).toEqual({ text: "", bytes: 4, clipped: true });
    expect(clipUtf8("a😀b", 5)).toEqual({ text: "a😀", bytes: 6, clipped: true });
  });

  it("clips to nothing at zero bytes", () => {
    expect(clipUtf8("abc", 0)).toEqual({ text: "", bytes: 3, clipped: true });
  });

  it("keeps a lone surrogate as one 3-byte unit", () => {
    expect(clipUtf8("a\ud800b", 4)).toEqual({ text: "a\ud800", bytes: 5, clipped: true });
    expect(clipUtf8("a\ud800b", 3)).toEqual({ text: "a", bytes: 5, clipped: true });
  });

  test.prop([anyText, fc.nat({ max: 200 })], { numRuns: 500 })(
    "a clip is a prefix that fits maxBytes, splits no surrogate pair, and is the longest that fits",
    (text, n) => {
      const maxBytes = n % (utf8Length(text) + 2);
      const result = clipUtf8(text, maxBytes);
      expect(text.startsWith(result.text)).toBe(true);
      expect(Buffer.byteLength(result.text, "utf8")).toBeLessThanOrEqual(maxBytes);
      const cut = result.text.length;
      // A surrogate pair stays whole: the kept text does not end between its two halves.
      expect(isHighSurrogate(text.charCodeAt(cut - 1)) && isLowSurrogate(text.charCodeAt(cut))).toBe(false);
      if (result.clipped) expect(utf8Length(result.text + characterAt(text, cut))).toBeGreaterThan(maxBytes);
    },
  );

  test.prop([anyText, fc.nat({ max: 200 })], { numRuns: 500 })(
    "reports the original's size and clips iff it is over maxBytes (else returns the text unchanged)",
    (text, n) => {
      const maxBytes = n % (utf8Length(text) + 2);
      const result = clipUtf8(text, maxBytes);
      const bytes = Buffer.byteLength(text, "utf8");
      expect(result.bytes).toBe(bytes);
      expect(result.clipped).toBe(bytes > maxBytes);
      if (!result.clipped) expect(result.text).toBe(text);
    },
  );

  test.prop([anyText, fc.nat({ max: 200 })], { numRuns: 300 })("clipping a clip changes nothing", (text, n) => {
    const maxBytes = n % (utf8Length(text) + 2);
    const once = clipUtf8(text, maxBytes);
    const twice = clipUtf8(once.text, maxBytes);
    expect(twice.text).toBe(once.text);
    expect(twice.clipped).toBe(false);
  });
});
