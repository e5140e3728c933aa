/**
 * Reading a resolved file for the preview action (domain/file-links/file-preview-rules.ts has the limits): one
 * open file descriptor, its size and mtime from fstat, the first bytes to sniff an image, then at most the limit
 * plus one byte (a file growing while it is read cannot make the server read more than that). Read-only.
 */
import fs from "node:fs";
import {
  decodeTextPreview,
  IMAGE_PREVIEW_MAX_BYTES,
  IMAGE_SNIFF_BYTES,
  imageMimeTypeOf,
  type ImageMimeType,
  languageOf,
  PREVIEW_IMAGE_TOO_LARGE,
  PREVIEW_TEXT_TOO_LARGE,
  TEXT_PREVIEW_MAX_BYTES,
} from "../../domain/file-links/file-preview-rules.ts";
import { NOT_A_REGULAR_FILE } from "./link-resolution.ts";

export type FilePreview =
  | {
      readonly kind: "file";
      readonly content: string;
      readonly language: string;
      readonly size: number;
      readonly modifiedAt: string;
      readonly lineCount: number;
    }
  | { readonly kind: "image"; readonly data: string; readonly mimeType: ImageMimeType; readonly size: number; readonly modifiedAt: string }
  | { readonly kind: "error"; readonly error: string };

/** Reads up to `limit` bytes from the start of an open file (fewer at its end). */
async function readUpTo(handle: fs.promises.FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** The preview of a regular file (canonical path), or why there is none. */
export async function readFilePreview(file: string): Promise<FilePreview> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    return { kind: "error", error: `The file cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { kind: "error", error: NOT_A_REGULAR_FILE };
    const modifiedAt = stat.mtime.toISOString();
    const head = await readUpTo(handle, IMAGE_SNIFF_BYTES);
    const mimeType = imageMimeTypeOf(head);
    if (mimeType !== null) {
      if (stat.size > IMAGE_PREVIEW_MAX_BYTES) return { kind: "error", error: PREVIEW_IMAGE_TOO_LARGE };
      const bytes = await readUpTo(handle, IMAGE_PREVIEW_MAX_BYTES + 1);
      if (bytes.length > IMAGE_PREVIEW_MAX_BYTES) return { kind: "error", error: PREVIEW_IMAGE_TOO_LARGE };
      return { kind: "image", data: bytes.toString("base64"), mimeType, size: bytes.length, modifiedAt };
    }
    if (stat.size > TEXT_PREVIEW_MAX_BYTES) return { kind: "error", error: PREVIEW_TEXT_TOO_LARGE };
    const bytes = await readUpTo(handle, TEXT_PREVIEW_MAX_BYTES + 1);
    const decoded = decodeTextPreview(bytes, Math.max(stat.size, bytes.length));
    if (!decoded.ok) return { kind: "error", error: decoded.error };
    const newline = decoded.content.indexOf("\n");
    const firstLine = decoded.content.slice(0, Math.min(newline < 0 ? decoded.content.length : newline, 200));
    return {
      kind: "file",
      content: decoded.content,
      language: languageOf(file, firstLine),
      size: bytes.length,
      modifiedAt,
      lineCount: decoded.lineCount,
    };
  } catch (error) {
    return { kind: "error", error: `The file cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  } finally {
    await handle.close();
  }
}
