import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  IMAGE_PREVIEW_MAX_BYTES,
  PREVIEW_BINARY,
  PREVIEW_IMAGE_TOO_LARGE,
  PREVIEW_NOT_UTF8,
  PREVIEW_TEXT_TOO_LARGE,
  PREVIEW_TOO_MANY_LINES,
  TEXT_PREVIEW_MAX_BYTES,
} from "../../domain/file-links/file-preview-rules.ts";
import { readFilePreview } from "./file-preview.ts";
import { fileLinkDirs } from "./file-links.fixture.ts";

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

let folder: string;

beforeAll(() => {
  folder = fileLinkDirs("file-preview").project;
});

function write(name: string, content: string | Buffer): string {
  const file = path.join(folder, name);
  fs.writeFileSync(file, content);
  return file;
}

describe("readFilePreview", () => {
  it("answers UTF-8 text with its language, size, line count and mtime", async () => {
    const file = write("app.ts", "const é = 1;\nexport { é };\n");
    const mtime = new Date("2025-06-01T12:00:00.000Z");
    fs.utimesSync(file, mtime, mtime);
    expect(await readFilePreview(file)).toEqual({
      kind: "file",
      content: "const é = 1;\nexport { é };\n",
      language: "typescript",
      size: Buffer.byteLength("const é = 1;\nexport { é };\n"),
      modifiedAt: "2025-06-01T12:00:00.000Z",
      lineCount: 2,
    });
  });

  it("recognises an image by its bytes whatever its name says", async () => {
    const image = await readFilePreview(write("picture.txt", PNG));
    expect(image).toMatchObject({ kind: "image", mimeType: "image/png", size: PNG.length, data: PNG.toString("base64") });
    expect(await readFilePreview(write("fake.png", "not an image\n"))).toMatchObject({ kind: "file", language: "plaintext" });
  });

  it("answers text limits as errors", async () => {
    expect(await readFilePreview(write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])))).toEqual({
      kind: "error",
      error: PREVIEW_NOT_UTF8,
    });
    expect(await readFilePreview(write("binary.dat", Buffer.from([0x61, 0x00, 0x62])))).toEqual({ kind: "error", error: PREVIEW_BINARY });
    expect(await readFilePreview(write("big.txt", Buffer.alloc(TEXT_PREVIEW_MAX_BYTES + 1, 0x61)))).toEqual({
      kind: "error",
      error: PREVIEW_TEXT_TOO_LARGE,
    });
    expect(await readFilePreview(write("edge.txt", Buffer.alloc(TEXT_PREVIEW_MAX_BYTES, 0x61)))).toMatchObject({
      kind: "file",
      size: TEXT_PREVIEW_MAX_BYTES,
      lineCount: 1,
    });
    expect(await readFilePreview(write("long.txt", "x\n".repeat(20_001)))).toEqual({ kind: "error", error: PREVIEW_TOO_MANY_LINES });
  });

  it("answers an image over 10 MiB as an error", async () => {
    const file = write("huge.png", PNG);
    fs.truncateSync(file, IMAGE_PREVIEW_MAX_BYTES + 1);
    expect(await readFilePreview(file)).toEqual({ kind: "error", error: PREVIEW_IMAGE_TOO_LARGE });
  });

  it("answers a file that cannot be opened as an error", async () => {
    expect(await readFilePreview(path.join(folder, "missing.txt"))).toEqual({ kind: "error", error: "The file cannot be read (ENOENT)" });
  });
});
