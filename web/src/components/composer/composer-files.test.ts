import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ATTACH_ACCEPT,
  decodeText,
  fencedFile,
  fenceFor,
  IMAGE_FILE_LIMIT_BYTES,
  languageOf,
  readComposerFile,
  refusalText,
  TEXT_FILE_LIMIT_BYTES,
  withFileBlocks,
} from "./composer-files.ts";

const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const encode = (text: string) => new TextEncoder().encode(text);

describe("decodeText", () => {
  it("reads UTF-8 text and refuses binary data (invalid UTF-8 or NUL bytes)", () => {
    expect(decodeText(encode("héllo\n"))).toBe("héllo\n");
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe("a");
    expect(decodeText(PNG_BYTES)).toBeNull();
    expect(decodeText(new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0x01]))).toBeNull();
    expect(decodeText(new Uint8Array([0xff, 0xfe, 0x61, 0x00]))).toBeNull();
  });

  it("gives back any text without NUL characters (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\u0000") && !s.startsWith("\uFEFF")),
        (text) => {
          expect(decodeText(encode(text))).toBe(text);
        },
      ),
    );
  });
});

describe("fenced files", () => {
  it("heads the block with the file name and its language", () => {
    expect(fencedFile("src/app.ts", "const a = 1;")).toBe("src/app.ts:\n```ts\nconst a = 1;\n```");
    expect(fencedFile("notes.txt", "one\n")).toBe("notes.txt:\n```\none\n```");
    expect(fencedFile("README.md", "```sh\nls\n```\n")).toBe("README.md:\n````markdown\n```sh\nls\n```\n````");
    expect(languageOf("Dockerfile")).toBe("dockerfile");
    expect(languageOf(".env")).toBe("");
    expect(languageOf("x.PY")).toBe("python");
  });

  it("uses a fence no backtick run of the text can close (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("`", "a", "\n", " ") }), (text) => {
        const fence = fenceFor(text);
        expect(fence.length).toBeGreaterThanOrEqual(3);
        expect(text.includes(fence)).toBe(false);
        const block = fencedFile("f.txt", text);
        // The block ends with its fence on its own line, and the text is inside, whole.
        expect(block.endsWith(`\n${fence}`)).toBe(true);
        expect(block).toContain(text);
      }),
    );
  });

  it("appends blocks after the draft, separated by blank lines", () => {
    expect(withFileBlocks("", ["A", "B"])).toBe("A\n\nB");
    expect(withFileBlocks("Look at this:  \n", ["A"])).toBe("Look at this:\n\nA");
    expect(withFileBlocks("draft", [])).toBe("draft");
  });

  it("accepts the prompt's images, text types and common source files", () => {
    const accepted = ATTACH_ACCEPT.split(",");
    for (const type of ["image/png", "image/webp", "text/*", "application/json", ".ts", ".md", ".txt", ".py"])
      expect(accepted).toContain(type);
    expect(refusalText([{ name: "a.pdf", reason: "not a text file." }])).toBe("a.pdf: not a text file.");
  });
});

describe("readComposerFile", () => {
  it("attaches supported images, turns text files into blocks, refuses the rest in words", async () => {
    const image = await readComposerFile(new File([PNG_BYTES], "shot.png", { type: "image/png" }));
    expect(image).toMatchObject({
      kind: "image",
      attachment: { name: "shot.png", image: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
    });

    const text = await readComposerFile(new File(["print('hi')\n"], "hello.py", { type: "" }));
    expect(text).toEqual({ kind: "text", name: "hello.py", block: "hello.py:\n```python\nprint('hi')\n```" });

    // SVG is text: the model can read it (it cannot see it as an image).
    const svg = await readComposerFile(new File(["<svg/>"], "logo.svg", { type: "image/svg+xml" }));
    expect(svg).toMatchObject({ kind: "text", block: "logo.svg:\n```xml\n<svg/>\n```" });

    const pdf = await readComposerFile(
      new File([new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff])], "report.pdf", { type: "application/pdf" }),
    );
    expect(pdf).toEqual({
      kind: "refused",
      name: "report.pdf",
      reason: "not a text file (only images and UTF-8 text files can be attached).",
    });

    const bmp = await readComposerFile(new File([new Uint8Array([0x42, 0x4d, 0x00, 0x00])], "old.bmp", { type: "image/bmp" }));
    expect(bmp).toEqual({ kind: "refused", name: "old.bmp", reason: "only PNG, JPEG, GIF and WebP images can be attached." });
  });

  it("refuses files over the limits before reading them", async () => {
    const big = await readComposerFile(new File(["x".repeat(TEXT_FILE_LIMIT_BYTES + 1)], "big.log", { type: "text/plain" }));
    expect(big).toEqual({ kind: "refused", name: "big.log", reason: "the file is over the 100 KB limit for text files (102,401 bytes)." });
    const exactly = await readComposerFile(new File(["x".repeat(TEXT_FILE_LIMIT_BYTES)], "edge.log", { type: "text/plain" }));
    expect(exactly.kind).toBe("text");
    const huge = { name: "huge.png", type: "image/png", size: IMAGE_FILE_LIMIT_BYTES + 1 } as File;
    expect(await readComposerFile(huge)).toEqual({
      kind: "refused",
      name: "huge.png",
      reason: "the image is 20 MB, over the 20 MB limit.",
    });
  });
});
