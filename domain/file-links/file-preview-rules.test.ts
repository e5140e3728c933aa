import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  countLines,
  decodeTextPreview,
  imageMimeTypeOf,
  languageOf,
  PREVIEW_BINARY,
  PREVIEW_NOT_UTF8,
  PREVIEW_TEXT_TOO_LARGE,
  PREVIEW_TOO_MANY_LINES,
  TEXT_PREVIEW_MAX_BYTES,
} from "./file-preview-rules.ts";

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const text = (value: string): Uint8Array => new TextEncoder().encode(value);

function bmpHead(infoSize: number): Uint8Array {
  const head = new Uint8Array(32);
  head.set(text("BM"));
  head[14] = infoSize & 0xff;
  head[15] = (infoSize >> 8) & 0xff;
  return head;
}

describe("imageMimeTypeOf", () => {
  it("recognises PNG, JPEG, GIF, WebP and BMP by their magic bytes", () => {
    expect(imageMimeTypeOf(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe("image/png");
    expect(imageMimeTypeOf(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe("image/jpeg");
    expect(imageMimeTypeOf(text("GIF89a..."))).toBe("image/gif");
    expect(imageMimeTypeOf(text("GIF87a..."))).toBe("image/gif");
    expect(imageMimeTypeOf(text("RIFF\u0000\u0000\u0000\u0000WEBPVP8 "))).toBe("image/webp");
    expect(imageMimeTypeOf(bmpHead(40))).toBe("image/bmp");
    expect(imageMimeTypeOf(bmpHead(124))).toBe("image/bmp");
  });

  it("does not take text for an image", () => {
    expect(imageMimeTypeOf(text("BMW service notes, 2024 edition ....."))).toBeNull();
    expect(imageMimeTypeOf(text("RIFF....WAVEfmt "))).toBeNull();
    expect(imageMimeTypeOf(text("\u0089PNG"))).toBeNull();
    expect(imageMimeTypeOf(bytes())).toBeNull();
  });
});

describe("decodeTextPreview", () => {
  it("answers UTF-8 text with its line count", () => {
    expect(decodeTextPreview(text("a\nb\n"), 4)).toEqual({ ok: true, content: "a\nb\n", lineCount: 2 });
    expect(decodeTextPreview(text("é ✓ 🙂"), 11)).toMatchObject({ ok: true, content: "é ✓ 🙂", lineCount: 1 });
    expect(decodeTextPreview(text(""), 0)).toEqual({ ok: true, content: "", lineCount: 0 });
  });

  it("refuses invalid UTF-8, NUL bytes, too many bytes and too many lines", () => {
    expect(decodeTextPreview(bytes(0x61, 0xc3, 0x28), 3)).toEqual({ ok: false, error: PREVIEW_NOT_UTF8 });
    expect(decodeTextPreview(bytes(0xe9, 0x74, 0xe9), 3)).toEqual({ ok: false, error: PREVIEW_NOT_UTF8 });
    expect(decodeTextPreview(bytes(0x61, 0x00, 0x62), 3)).toEqual({ ok: false, error: PREVIEW_BINARY });
    expect(decodeTextPreview(text("small"), TEXT_PREVIEW_MAX_BYTES + 1)).toEqual({ ok: false, error: PREVIEW_TEXT_TOO_LARGE });
    expect(decodeTextPreview(new Uint8Array(TEXT_PREVIEW_MAX_BYTES + 1).fill(0x61), 5)).toEqual({
      ok: false,
      error: PREVIEW_TEXT_TOO_LARGE,
    });
    expect(decodeTextPreview(text("x\n".repeat(20_000)), 40_000)).toMatchObject({ ok: true, lineCount: 20_000 });
    expect(decodeTextPreview(text(`${"x\n".repeat(20_000)}x`), 40_001)).toEqual({ ok: false, error: PREVIEW_TOO_MANY_LINES });
  });
});

describe("countLines", () => {
  it("counts a final line without newline, and agrees with splitting", () => {
    expect(countLines("a")).toBe(1);
    expect(countLines("a\n")).toBe(1);
    expect(countLines("\n\n")).toBe(2);
    fc.assert(
      fc.property(fc.string(), (value) => {
        const parts = value.split("\n");
        const expected = value === "" ? 0 : value.endsWith("\n") ? parts.length - 1 : parts.length;
        expect(countLines(value)).toBe(expected);
      }),
    );
  });
});

describe("languageOf", () => {
  it("names the highlight.js language by file name, extension, then #! line", () => {
    expect(languageOf("/p/src/app.ts")).toBe("typescript");
    expect(languageOf("/p/README.md")).toBe("markdown");
    expect(languageOf("/p/package.json")).toBe("json");
    expect(languageOf("/p/tool.py")).toBe("python");
    expect(languageOf("/p/run.sh")).toBe("bash");
    expect(languageOf("/p/Dockerfile")).toBe("dockerfile");
    expect(languageOf("/p/Makefile")).toBe("makefile");
    expect(languageOf("/p/App.vue")).toBe("xml");
    expect(languageOf("/p/bin/tool", "#!/usr/bin/env python3")).toBe("python");
    expect(languageOf("/p/bin/tool", "#!/bin/bash -e")).toBe("bash");
    expect(languageOf("/p/bin/tool", "#!/usr/bin/env node")).toBe("javascript");
    expect(languageOf("/p/notes")).toBe("plaintext");
    expect(languageOf("/p/.hidden")).toBe("plaintext");
    expect(languageOf("/p/data.unknownext")).toBe("plaintext");
  });
});
