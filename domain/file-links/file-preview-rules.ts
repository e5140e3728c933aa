/**
 * What a file preview may show (spec "POST /api/pi/sessions/:id/file", action "preview"): UTF-8 text up to
 * 2 MiB and 20,000 lines; PNG, JPEG, GIF, WebP and BMP images up to 10 MiB, recognised by their magic bytes (not
 * by the extension: a `.png` holding text is text, a PNG named `.txt` is an image). Anything else gets a
 * message for the descriptor's `error`. Also the highlight.js language of a text file, from its name (and its
 * `#!` line when the name says nothing).
 *
 * Pure: the adapter reads at most the limit plus one byte and hands the bytes here.
 */

export const TEXT_PREVIEW_MAX_BYTES = 2 * 1024 * 1024;
export const TEXT_PREVIEW_MAX_LINES = 20_000;
export const IMAGE_PREVIEW_MAX_BYTES = 10 * 1024 * 1024;
/** Bytes the image sniffing needs from the start of a file. */
export const IMAGE_SNIFF_BYTES = 32;

export const PREVIEW_TEXT_TOO_LARGE = "This file is larger than 2 MiB";
export const PREVIEW_TOO_MANY_LINES = "This file has more than 20,000 lines";
export const PREVIEW_NOT_UTF8 = "This file is not UTF-8 text";
export const PREVIEW_BINARY = "This file is binary, not text";
export const PREVIEW_IMAGE_TOO_LARGE = "This image is larger than 10 MiB";

export const IMAGE_MIME_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"] as const;
export type ImageMimeType = (typeof IMAGE_MIME_TYPES)[number];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return bytes.length >= at + prefix.length && prefix.every((byte, index) => bytes[at + index] === byte);
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** BMP info header sizes (core, v1 to v5): "BM" alone is too weak (a text file may start with it). */
const BMP_HEADER_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

/** The image type the first bytes of a file announce, or null. */
export function imageMimeTypeOf(head: Uint8Array): ImageMimeType | null {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(head, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(head, ascii("GIF87a")) || startsWith(head, ascii("GIF89a"))) return "image/gif";
  if (startsWith(head, ascii("RIFF")) && startsWith(head, ascii("WEBP"), 8)) return "image/webp";
  if (startsWith(head, ascii("BM")) && head.length >= 18) {
    const infoSize = (head[14] as number) | ((head[15] as number) << 8) | ((head[16] as number) << 16) | ((head[17] as number) << 24);
    if (BMP_HEADER_SIZES.has(infoSize)) return "image/bmp";
  }
  return null;
}

/** Lines of a text: a final line without a newline counts, an empty text has none. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) lines += 1;
  return text.endsWith("\n") ? lines : lines + 1;
}

export type TextPreviewDecode =
  { readonly ok: true; readonly content: string; readonly lineCount: number } | { readonly ok: false; readonly error: string };

/**
 * The text of a file for a preview, or why it has none. `bytes` are the first bytes read (at most the limit plus
 * one), `size` the file's size.
 */
export function decodeTextPreview(bytes: Uint8Array, size: number): TextPreviewDecode {
  if (size > TEXT_PREVIEW_MAX_BYTES || bytes.length > TEXT_PREVIEW_MAX_BYTES) return { ok: false, error: PREVIEW_TEXT_TOO_LARGE };
  if (bytes.includes(0)) return { ok: false, error: PREVIEW_BINARY };
  let content: string;
  try {
    content = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: PREVIEW_NOT_UTF8 };
  }
  const lineCount = countLines(content);
  if (lineCount > TEXT_PREVIEW_MAX_LINES) return { ok: false, error: PREVIEW_TOO_MANY_LINES };
  return { ok: true, content, lineCount };
}

const LANGUAGE_BY_EXTENSION: Readonly<Record<string, string>> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  json: "json",
  jsonc: "json",
  json5: "json",
  jsonl: "json",
  ndjson: "json",
  md: "markdown",
  markdown: "markdown",
  mdx: "markdown",
  py: "python",
  pyi: "python",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  ksh: "bash",
  fish: "bash",
  css: "css",
  scss: "scss",
  less: "less",
  html: "xml",
  htm: "xml",
  xml: "xml",
  svg: "xml",
  vue: "xml",
  xhtml: "xml",
  plist: "xml",
  yaml: "yaml",
  yml: "yaml",
  toml: "ini",
  ini: "ini",
  cfg: "ini",
  conf: "ini",
  properties: "properties",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  kts: "kotlin",
  scala: "scala",
  groovy: "groovy",
  gradle: "gradle",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  cs: "csharp",
  fs: "fsharp",
  m: "objectivec",
  mm: "objectivec",
  swift: "swift",
  rb: "ruby",
  php: "php",
  pl: "perl",
  pm: "perl",
  lua: "lua",
  r: "r",
  jl: "julia",
  hs: "haskell",
  ex: "elixir",
  exs: "elixir",
  erl: "erlang",
  clj: "clojure",
  cljs: "clojure",
  dart: "dart",
  ml: "ocaml",
  nim: "nim",
  nix: "nix",
  zig: "plaintext",
  sql: "sql",
  graphql: "graphql",
  gql: "graphql",
  proto: "protobuf",
  diff: "diff",
  patch: "diff",
  tex: "latex",
  ps1: "powershell",
  bat: "dos",
  cmd: "dos",
  dockerfile: "dockerfile",
  mk: "makefile",
  cmake: "cmake",
  tf: "plaintext",
  vim: "vim",
  txt: "plaintext",
  log: "plaintext",
  csv: "plaintext",
};

const LANGUAGE_BY_NAME: Readonly<Record<string, string>> = {
  dockerfile: "dockerfile",
  containerfile: "dockerfile",
  makefile: "makefile",
  gnumakefile: "makefile",
  "cmakelists.txt": "cmake",
  ".bashrc": "bash",
  ".bash_profile": "bash",
  ".profile": "bash",
  ".zshrc": "bash",
  ".gitconfig": "ini",
  ".editorconfig": "ini",
  ".npmrc": "ini",
  gemfile: "ruby",
  rakefile: "ruby",
};

const LANGUAGE_BY_INTERPRETER: Readonly<Record<string, string>> = {
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  dash: "bash",
  node: "javascript",
  deno: "typescript",
  bun: "typescript",
  tsx: "typescript",
  python: "python",
  python3: "python",
  ruby: "ruby",
  perl: "perl",
  php: "php",
  lua: "lua",
};

/**
 * The highlight.js language of a file: by its name, then its extension, then the interpreter of its `#!` line;
 * "plaintext" otherwise.
 */
export function languageOf(fileName: string, firstLine = ""): string {
  const name = fileName.slice(fileName.lastIndexOf("/") + 1).toLowerCase();
  const byName = LANGUAGE_BY_NAME[name];
  if (byName !== undefined) return byName;
  const dot = name.lastIndexOf(".");
  if (dot > 0) {
    const byExtension = LANGUAGE_BY_EXTENSION[name.slice(dot + 1)];
    if (byExtension !== undefined) return byExtension;
  }
  if (name.startsWith("dockerfile.")) return "dockerfile";
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(firstLine);
  if (shebang !== null) {
    const program = shebang[1]?.slice((shebang[1]?.lastIndexOf("/") ?? -1) + 1) ?? "";
    const interpreter = program === "env" ? (shebang[2] ?? "") : program;
    const byInterpreter = LANGUAGE_BY_INTERPRETER[interpreter.replace(/[0-9.]+$/, "")] ?? LANGUAGE_BY_INTERPRETER[interpreter];
    if (byInterpreter !== undefined) return byInterpreter;
  }
  return "plaintext";
}
