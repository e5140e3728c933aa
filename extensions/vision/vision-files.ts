/**
 * The extension side of vision attachments (domain/vision/vision-attachments.ts): the attachment file of an
 * image in LEYLINE_VISION_DIR (written when missing, as the control plane does at submission: the name depends
 * only on the image, so both write the same file), and reading an image file the vision_agent tool is given.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { attachmentFileName, sessionFolderName, sniffImageMimeType, type ImageBlock } from "../../domain/vision/vision-attachments.ts";

/** Largest image file the tool sends (the prompt routes accept images of this order). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** The attachment file of `image` (saved when missing); null for an unsupported type or when it cannot be written. */
export function ensureAttachment(visionDir: string, sessionId: string, image: ImageBlock): string | null {
  const name = attachmentFileName(createHash("sha256").update(image.data).digest("hex"), image.mimeType);
  if (name === null) return null;
  const file = path.join(visionDir, sessionFolderName(sessionId), name);
  if (fs.existsSync(file)) return file;
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temp, Buffer.from(image.data, "base64"), { mode: 0o600 });
    fs.renameSync(temp, file);
    return file;
  } catch {
    return null;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/** An image file as the vision route takes it; throws with a message the model can act on. */
export function readImageFile(file: string): ImageBlock {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new Error(`Image not found: ${file}`);
  }
  if (!stat.isFile()) throw new Error(`Not a file: ${file}`);
  if (stat.size > MAX_IMAGE_BYTES) throw new Error(`Image too large (${stat.size} bytes; at most ${MAX_IMAGE_BYTES})`);
  const bytes = fs.readFileSync(file);
  const mimeType = sniffImageMimeType(bytes);
  if (mimeType === null) throw new Error(`Not a PNG, JPEG, GIF or WebP image: ${file}`);
  return { type: "image", data: bytes.toString("base64"), mimeType };
}
