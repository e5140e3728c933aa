/**
 * readFilePreview over real files in a temp folder: the limits, and that it reads only the file resolution
 * checked (its identity), refusing a file, symlink, FIFO or folder on the way swapped in after the check.
 */
import { execFileSync } from "node:child_process";
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
import { readFilePreview as readPreview } from "./file-preview.ts";
import { fileLinkDirs, type FileLinkDirs } from "./file-links.fixture.ts";
import { FILE_CHANGED, type FileIdentity } from "./link-resolution.ts";

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

let dirs: FileLinkDirs;
let folder: string;

beforeAll(() => {
  dirs = fileLinkDirs("file-preview");
  folder = dirs.project;
});

/** The identity resolution records for `file` (lstat of its canonical path). */
function identityOf(file: string): FileIdentity {
  const stat = fs.lstatSync(file, { bigint: true });
  return { dev: stat.dev, ino: stat.ino };
}

/** The preview of `file` as it is now (checked and read with nothing in between). */
function readFilePreview(file: string) {
  return readPreview(file, fs.existsSync(file) ? identityOf(file) : { dev: 0n, ino: 0n });
}

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

describe("readFilePreview after the file was checked", () => {
  /** A checked file `name` holding `content`: its path and identity. */
  function checked(name: string, content = "checked\n"): { file: string; identity: FileIdentity } {
    const file = path.join(folder, name);
    fs.writeFileSync(file, content);
    return { file, identity: identityOf(file) };
  }

  it("refuses a symlink swapped in for the checked file and never reads its target", async () => {
    const secret = path.join(dirs.outside, "secret-1.txt");
    fs.writeFileSync(secret, "TOPSECRET\n");
    const { file, identity } = checked("swap-link.txt");
    fs.rmSync(file);
    fs.symlinkSync(secret, file);
    expect(await readPreview(file, identity)).toEqual({ kind: "error", error: FILE_CHANGED });
  });

  it("refuses another regular file renamed over the checked one", async () => {
    const { file, identity } = checked("swap-file.txt");
    fs.writeFileSync(`${file}.new`, "another file\n");
    fs.renameSync(`${file}.new`, file);
    expect(await readPreview(file, identity)).toEqual({ kind: "error", error: FILE_CHANGED });
  });

  it("refuses a FIFO swapped in without blocking on it", async () => {
    const { file, identity } = checked("swap-fifo.txt");
    fs.rmSync(file);
    execFileSync("mkfifo", [file]);
    expect(await readPreview(file, identity)).toEqual({ kind: "error", error: FILE_CHANGED });
  });

  it.runIf(process.platform === "linux")("refuses the checked file reached through a folder swapped for a symlink", async () => {
    const inner = path.join(folder, "swap-folder");
    fs.mkdirSync(inner);
    const { file, identity } = checked(path.join("swap-folder", "same.txt"));
    // The same file (same dev and ino) now lives outside, and the folder on the way is a symlink to it.
    const moved = path.join(dirs.outside, "moved-folder");
    fs.renameSync(inner, moved);
    fs.symlinkSync(moved, inner);
    expect(await readPreview(file, identity)).toEqual({ kind: "error", error: FILE_CHANGED });
  });

  it("still reads the checked file when nothing changed", async () => {
    const { file, identity } = checked("unchanged.txt", "same\n");
    expect(await readPreview(file, identity)).toMatchObject({ kind: "file", content: "same\n" });
  });
});
