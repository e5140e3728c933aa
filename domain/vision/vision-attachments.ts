/**
 * The rules of vision attachments (spec "Prompt": image preparation): when a prompt carries images and the
 * session's model has no image input, Leyline saves each image as a file in its data dir and the parent model
 * gets, instead of each image, a note with the file's path and the instruction to call the `vision_agent`
 * tool. The session file keeps the original images; only the model's context is rewritten.
 *
 * Files: `<LEYLINE data dir>/vision-attachments/<session folder>/<first 32 hex digits of the sha256 of the
 * base64 data>.<png|jpg|gif|webp>`. The name depends only on the image, so the control plane (at submission)
 * and the bundled vision extension (when it builds the model's context) name the same file without talking to
 * each other, and writing it twice is harmless. Pure: hashing and writing are the callers' (adapters/vision,
 * extensions/vision).
 */
import { fnv1a32 } from "../deterministic-id.ts";
import { PROMPT_IMAGE_MIME_TYPES, type Model, type PromptImageMimeType } from "../runtime/runtime-types.ts";

/** The bundled tool the parent model calls to ask about an image. */
export const VISION_AGENT_TOOL = "vision_agent";

/** The folder of Leyline's data dir holding the attachments, one sub-folder per session. */
export const VISION_ATTACHMENTS_FOLDER = "vision-attachments";

/** The environment variable that tells the bundled extension where the attachments folder is. */
export const VISION_DIR_ENV = "LEYLINE_VISION_DIR";

const EXTENSIONS: Record<PromptImageMimeType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

export function isPromptImageMimeType(mimeType: string): mimeType is PromptImageMimeType {
  return (PROMPT_IMAGE_MIME_TYPES as readonly string[]).includes(mimeType);
}

/** The file extension of a supported image type, or null. */
export function imageExtension(mimeType: string): string | null {
  return isPromptImageMimeType(mimeType) ? EXTENSIONS[mimeType] : null;
}

/** The image type of a file's first bytes (PNG, JPEG, GIF, WebP signatures), or null. */
export function sniffImageMimeType(bytes: Uint8Array): PromptImageMimeType | null {
  const at = (index: number): number => bytes[index] ?? -1;
  const ascii = (from: number, text: string): boolean => [...text].every((char, i) => at(from + i) === char.charCodeAt(0));
  if (at(0) === 0x89 && ascii(1, "PNG") && at(4) === 0x0d && at(5) === 0x0a) return "image/png";
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return "image/jpeg";
  if (ascii(0, "GIF87a") || ascii(0, "GIF89a")) return "image/gif";
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "image/webp";
  return null;
}

/** The folder name of a session: its id when it is a plain id (pi's are UUIDs), else a stable hash of it. */
export function sessionFolderName(sessionId: string): string {
  return /^[A-Za-z0-9_-]{1,128}$/.test(sessionId) ? sessionId : `session-${fnv1a32(sessionId).toString(16).padStart(8, "0")}`;
}

/** The file name of an attachment from the sha256 (hex) of its base64 data; null for an unsupported type. */
export function attachmentFileName(sha256Hex: string, mimeType: string): string | null {
  const extension = imageExtension(mimeType);
  return extension === null ? null : `${sha256Hex.slice(0, 32)}.${extension}`;
}

/** The note the parent model reads in place of one image. */
export function attachmentNote(path: string, mimeType: string): string {
  return (
    `[Attached image saved at ${path} (${mimeType}). The current model cannot view images: to learn what it shows, ` +
    `call the ${VISION_AGENT_TOOL} tool with {"path": ${JSON.stringify(path)}, "question": "<what you need to know>"}.]`
  );
}

/** Why `model` ("provider/id") cannot serve as the vision model among the runtime's available models, or null. */
export function visionModelProblem(
  model: string,
  availableModels: readonly Pick<Model, "provider" | "id" | "supportsImages">[],
): string | null {
  if (model.trim() === "") return "No vision model is configured: choose one in Settings → Vision";
  const slash = model.indexOf("/");
  if (slash <= 0 || slash === model.length - 1) return `Invalid vision model "${model}": expected provider/id`;
  const provider = model.slice(0, slash);
  const id = model.slice(slash + 1);
  const found = availableModels.find((candidate) => candidate.provider === provider && candidate.id === id);
  if (found === undefined) return `Vision model ${model} is not available (unknown model, or no credentials for its provider)`;
  if (!found.supportsImages) return `Vision model ${model} does not support image input`;
  return null;
}

/** An image block of a message's content, as pi's messages carry it. */
export interface ImageBlock {
  type: "image";
  data: string;
  mimeType: string;
}

interface ContentMessage {
  role: string;
  content?: unknown;
}

function isImageBlock(value: unknown): value is ImageBlock {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return record["type"] === "image" && typeof record["data"] === "string" && typeof record["mimeType"] === "string";
}

/**
 * The messages with every image block of a user message replaced by the text note of `pathOf(image)` (null:
 * the block stays as it is). Other messages, and messages without images, are returned unchanged (same
 * objects); the input is never modified. `changed` says whether anything was replaced.
 */
export function replaceUserImages<M extends ContentMessage>(
  messages: readonly M[],
  pathOf: (image: ImageBlock) => string | null,
): { messages: M[]; changed: boolean } {
  let changed = false;
  const out = messages.map((message) => {
    if (message.role !== "user" || !Array.isArray(message.content)) return message;
    const blocks: unknown[] = message.content;
    if (!blocks.some(isImageBlock)) return message;
    const content = blocks.map((block) => {
      if (!isImageBlock(block)) return block;
      const path = pathOf(block);
      if (path === null) return block;
      changed = true;
      return { type: "text", text: attachmentNote(path, block.mimeType) };
    });
    return { ...message, content };
  });
  return { messages: out, changed };
}
