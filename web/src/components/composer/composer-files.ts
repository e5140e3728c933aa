/**
 * Files given to the composer (the attach button, paste and drop all come here): what each becomes.
 *
 * - PNG, JPEG, GIF and WebP images become image attachments (composer-images.ts), up to IMAGE_FILE_LIMIT_BYTES.
 * - Any other file whose bytes are UTF-8 text without NUL characters (source, Markdown, JSON, CSV, SVG, logs…),
 *   up to TEXT_FILE_LIMIT_BYTES, becomes a fenced code block appended to the draft, headed by the file's name:
 *   the person sees and can edit exactly what is sent, and held or taken-back drafts need nothing new.
 * - Everything else (binary files, other image formats, files over the limits) is refused, in words.
 *
 * The pure parts (decoding, fencing, appending, the refusal text) are exported for tests.
 */
import { fileSize } from "../../lib/file-size.ts";
import { readAttachment, type Attachment } from "./composer-images.ts";
import { isPromptImageType } from "./composer-logic.ts";

/** A text file larger than this is refused (pi's own read tool stops at 50 KB; a prompt carries at most 1 MiB of text). */
export const TEXT_FILE_LIMIT_BYTES = 100 * 1024;
/** An image larger than this is refused (pi resizes large images, but the prompt body stays bounded). */
export const IMAGE_FILE_LIMIT_BYTES = 20 * 1024 * 1024;

export type FileReading =
  | { kind: "image"; attachment: Attachment }
  | { kind: "text"; name: string; block: string }
  | { kind: "refused"; name: string; reason: string };

/** The text of `bytes` when they are UTF-8 without NUL characters (a leading BOM dropped); null for binary data. */
export function decodeText(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
  return text.includes("\u0000") ? null : text;
}

const LANGUAGES: Readonly<Record<string, string>> = {
  ts: "ts",
  tsx: "tsx",
  mts: "ts",
  cts: "ts",
  js: "js",
  jsx: "jsx",
  mjs: "js",
  cjs: "js",
  vue: "vue",
  py: "python",
  rb: "ruby",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  swift: "swift",
  c: "c",
  h: "c",
  cpp: "cpp",
  cc: "cpp",
  hpp: "cpp",
  cs: "csharp",
  php: "php",
  sh: "sh",
  bash: "bash",
  zsh: "zsh",
  fish: "fish",
  ps1: "powershell",
  sql: "sql",
  json: "json",
  jsonl: "json",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  xml: "xml",
  svg: "xml",
  html: "html",
  css: "css",
  scss: "scss",
  md: "markdown",
  diff: "diff",
  patch: "diff",
  csv: "csv",
  ini: "ini",
  lua: "lua",
  dockerfile: "dockerfile",
};

/**
 * The attach button's `accept`: the prompt's image types, text types and the extensions above (phones offer
 * their photo library and files). A file chosen anyway (a drop, "all files") is still checked by its bytes.
 */
export const ATTACH_ACCEPT = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "text/*",
  "application/json",
  "application/xml",
  ...[...Object.keys(LANGUAGES), "txt", "log", "env", "conf", "cfg"].map((extension) => `.${extension}`),
].join(",");

/** The fence's language for a file name ("" when unknown). */
export function languageOf(name: string): string {
  const base = name.split(/[\\/]/).at(-1) ?? name;
  if (base.toLowerCase() === "dockerfile") return "dockerfile";
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : (LANGUAGES[base.slice(dot + 1).toLowerCase()] ?? "");
}

/** A fence longer than any run of backticks in `text` (at least three), so the block cannot end early. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}

/** A file's text as the prompt carries it: its name, then the text in a fenced block. */
export function fencedFile(name: string, text: string): string {
  const fence = fenceFor(text);
  const body = text.endsWith("\n") ? text : `${text}\n`;
  return `${name}:\n${fence}${languageOf(name)}\n${body}${fence}`;
}

/** The draft with file blocks appended after it, separated by blank lines. */
export function withFileBlocks(draft: string, blocks: readonly string[]): string {
  if (blocks.length === 0) return draft;
  const parts = draft.trim() === "" ? [...blocks] : [draft.replace(/\s+$/, ""), ...blocks];
  return parts.join("\n\n");
}

/** Refusals in one sentence per reason kind. */
export function refusalText(refused: ReadonlyArray<{ name: string; reason: string }>): string {
  return refused.map((r) => `${r.name}: ${r.reason}`).join(" ");
}

function displayName(file: File, fallback: string): string {
  return file.name === "" ? fallback : file.name;
}

/** What a file given to the composer becomes (see the module comment). */
export async function readComposerFile(file: File): Promise<FileReading> {
  const mimeType = file.type.toLowerCase();
  if (isPromptImageType(mimeType)) {
    const name = displayName(file, "pasted image");
    if (file.size > IMAGE_FILE_LIMIT_BYTES) {
      return { kind: "refused", name, reason: `the image is ${fileSize(file.size)}, over the ${fileSize(IMAGE_FILE_LIMIT_BYTES)} limit.` };
    }
    const attachment = await readAttachment(file);
    if (attachment !== null) return { kind: "image", attachment };
  }
  const name = displayName(file, "pasted file");
  const image = mimeType.startsWith("image/");
  if (file.size > TEXT_FILE_LIMIT_BYTES) {
    return {
      kind: "refused",
      name,
      reason: image
        ? "only PNG, JPEG, GIF and WebP images can be attached."
        : `the file is over the ${fileSize(TEXT_FILE_LIMIT_BYTES)} limit for text files (${file.size.toLocaleString("en-US")} bytes).`,
    };
  }
  const text = decodeText(new Uint8Array(await file.arrayBuffer()));
  if (text === null) {
    return {
      kind: "refused",
      name,
      reason: image
        ? "only PNG, JPEG, GIF and WebP images can be attached."
        : "not a text file (only images and UTF-8 text files can be attached).",
    };
  }
  return { kind: "text", name, block: fencedFile(name, text) };
}
