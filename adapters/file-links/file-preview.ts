/**
 * Reading a resolved file for the preview action (domain/file-links/file-preview-rules.ts has the limits): one
 * open file descriptor, its size and mtime from fstat, the first bytes to sniff an image, then at most the limit
 * plus one byte (a file growing while it is read cannot make the server read more than that). Read-only.
 *
 * What is read is exactly the file resolution checked (link-resolution.ts), even when the file is swapped
 * between the check and the read: the canonical path is opened with O_NOFOLLOW (a symlink swapped in fails) and
 * O_NONBLOCK (a FIFO swapped in cannot block), the descriptor must be a regular file with the checked dev and
 * ino, and on Linux its real path (/proc/self/fd) must still be the canonical path (no folder on the way was
 * swapped for a symlink). Otherwise the answer is FILE_CHANGED; everything is read from that descriptor only.
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
import { FILE_CHANGED, type FileIdentity } from "./link-resolution.ts";

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

function cannotRead(error: unknown): FilePreview {
  return { kind: "error", error: `The file cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
}

/** Whether the open descriptor is still reached by `file` (Linux: its /proc/self/fd link; elsewhere not checked). */
async function opensAt(handle: fs.promises.FileHandle, file: string): Promise<boolean> {
  if (process.platform !== "linux") return true;
  return (await fs.promises.readlink(`/proc/self/fd/${handle.fd}`)) === file;
}

/**
 * The preview of the regular file resolution checked (its canonical path and identity), or why there is none
 * (FILE_CHANGED when what is there now is not that file).
 */
export async function readFilePreview(file: string, identity: FileIdentity): Promise<FilePreview> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    // A symlink at the last component: ELOOP (Linux, macOS), EMLINK (FreeBSD).
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ELOOP" || code === "EMLINK" ? { kind: "error", error: FILE_CHANGED } : cannotRead(error);
  }
  try {
    const stat = await handle.stat({ bigint: true });
    if (!stat.isFile() || stat.dev !== identity.dev || stat.ino !== identity.ino) return { kind: "error", error: FILE_CHANGED };
    if (!(await opensAt(handle, file))) return { kind: "error", error: FILE_CHANGED };
    const size = Number(stat.size);
    const modifiedAt = stat.mtime.toISOString();
    const head = await readUpTo(handle, IMAGE_SNIFF_BYTES);
    const mimeType = imageMimeTypeOf(head);
    if (mimeType !== null) {
      if (size > IMAGE_PREVIEW_MAX_BYTES) return { kind: "error", error: PREVIEW_IMAGE_TOO_LARGE };
      const bytes = await readUpTo(handle, IMAGE_PREVIEW_MAX_BYTES + 1);
      if (bytes.length > IMAGE_PREVIEW_MAX_BYTES) return { kind: "error", error: PREVIEW_IMAGE_TOO_LARGE };
      return { kind: "image", data: bytes.toString("base64"), mimeType, size: bytes.length, modifiedAt };
    }
    if (size > TEXT_PREVIEW_MAX_BYTES) return { kind: "error", error: PREVIEW_TEXT_TOO_LARGE };
    const bytes = await readUpTo(handle, TEXT_PREVIEW_MAX_BYTES + 1);
    const decoded = decodeTextPreview(bytes, Math.max(size, bytes.length));
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
    return cannotRead(error);
  } finally {
    await handle.close();
  }
}
