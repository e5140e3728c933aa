/**
 * Which strings in the transcript are links to local files (spec "Local file routes": a click previews the file
 * through POST /api/pi/sessions/:id/file). Pure: no Vue, no DOM, no I/O.
 *
 * Sources of links, each conservative (a false link costs a confusing preview error; a missed one costs a copy):
 * - tool-call arguments named path / file_path / filePath / paths: always for the file tools (read, edit, write
 *   and the like), for other tools only when the value looks like a file (ls and find name directories, and the
 *   preview shows regular files only); pi's `read` offset/limit become a `#Lx-Ly` range;
 * - diffs: the `--- a/x` / `+++ b/x` file headers and the new side of a hunk header (`+12,5`) of a unified diff,
 *   and the new-file line numbers of pi's edit-tool diffs (`+ 12 text`, `  13 text`) for the tool's file;
 * - Markdown link targets without a scheme (relative or absolute paths) or with `file:`, with `:line[:col]` or
 *   `#Lx-Ly` (the server parses those suffixes; the client passes the href through);
 * - inline code that looks like a path with an extension (`src/app.ts:42`): no spaces, not a URL, a `/` or a
 *   well-known extension.
 *
 * A detected link's `text` is always `input.slice(start, end)`: what the transcript shows is what was written.
 */

/** A file link inside a text. */
export interface FileLink {
  /** Offset of the link text in the input (UTF-16 units). */
  readonly start: number;
  readonly end: number;
  /** The characters shown as the link: exactly `input.slice(start, end)`. */
  readonly text: string;
  /** What the file action receives: a path or file: URL with an optional `:line[:col]` or `#Lx-Ly`. */
  readonly href: string;
}

/** A piece of a text to render: plain, or a file link. */
export interface TextSegment {
  readonly text: string;
  readonly link: FileLink | null;
}

/** A path named by a tool call's arguments. */
export interface ToolArgumentLink {
  /** The argument (path, file_path, filePath or paths). */
  readonly key: string;
  /** The position in `paths`; null for a single path. */
  readonly index: number | null;
  /** The path as the argument gives it. */
  readonly path: string;
  readonly href: string;
}

const MAX_PATH_LENGTH = 4096;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Extensions that make a bare file name (no `/`) in inline code a file link. */
const KNOWN_EXTENSIONS = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs vue svelte astro json jsonc json5 jsonl md mdx markdown rst txt adoc " +
    "py pyi ipynb rb go rs java kt kts scala swift m mm c h cc cpp cxx hpp hh hxx cs fs php pl lua r dart zig nim ex exs erl " +
    "hs ml elm clj cljs sh bash zsh fish ps1 bat cmd yml yaml toml ini cfg conf env properties gradle lock " +
    "css scss sass less html htm xml svg sql graphql gql proto tf hcl nix patch diff csv tsv " +
    "png jpg jpeg gif webp bmp ico pdf"
  ).split(" "),
);

/** Hosts people write without a scheme (`github.com/x/y.md`): such a first segment makes inline code a URL. */
const HOST_LIKE = /^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|dev|app|ai|co|edu|gov|sh|me|info|xyz)$/i;

/** A path's line suffix: `:12`, `:12:5`, `#L12` or `#L12-L20` (also `#L12-20`). */
const LINE_SUFFIX = /(?::\d+(?::\d+)?|#L\d+(?:-L?\d+)?)$/;

/** The scheme of a URL-like string (`http`, `file`, `c` of `C:/x`), or null. */
function schemeOf(text: string): string | null {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(text);
  return match?.[1]?.toLowerCase() ?? null;
}

function isPlausiblePath(path: string): boolean {
  return path !== "" && path.length <= MAX_PATH_LENGTH && !CONTROL.test(path);
}

function extensionOf(path: string): string | null {
  const name = path.split("/").at(-1) ?? "";
  const match = /^.*[^.]\.([A-Za-z0-9]{1,12})$/.exec(name);
  return match?.[1]?.toLowerCase() ?? null;
}

/**
 * Whether a Markdown link target names a local file: a relative or absolute path (optionally with a line suffix),
 * or a `file:` URL. Not: in-page fragments, queries, network paths (`//host`), other schemes (http, mailto, …).
 */
export function isLocalHref(href: string): boolean {
  const value = href.trim();
  if (!isPlausiblePath(value)) return false;
  if (value.startsWith("#") || value.startsWith("?")) return false;
  if (value.startsWith("//") || value.startsWith("\\\\")) return false;
  const scheme = schemeOf(value);
  if (scheme === null) return true;
  if (scheme === "file") return true;
  // A Windows drive (`C:/x`, `C:\x`).
  if (scheme.length === 1 && /^[a-z]:[\\/]/i.test(value)) return true;
  // `README.md:12`: a file name with a line suffix, not a scheme.
  return scheme.includes(".") && /^[^:]+:\d+(?::\d+)?$/.test(value);
}

/**
 * Inline code that names a file, or null. Conservative: one token of path characters, not a URL nor an option,
 * the last segment has an extension, and the code contains a `/` or the extension is a well-known one.
 */
export function inlineCodeFileLink(code: string): FileLink | null {
  const leading = code.length - code.trimStart().length;
  const text = code.trim();
  if (!isPlausiblePath(text) || text.length > 512 || /\s/.test(text)) return null;
  const scheme = schemeOf(text);
  if (scheme !== null && scheme !== "file" && !(scheme.includes(".") && /^[^:]+:\d+(?::\d+)?$/.test(text))) return null;
  if (scheme === "file" && !text.startsWith("file:/")) return null;
  const path = (scheme === "file" ? text.slice("file:".length).replace(/^\/\/(?:localhost)?(?=\/)/, "") : text).replace(LINE_SUFFIX, "");
  if (path === "" || path.startsWith("-") || path.startsWith("//") || path.endsWith("/")) return null;
  if (!/^[\p{L}\p{N}_.\-/~@+%=,[\]]+$/u.test(path)) return null;
  if (!/[\p{L}\p{N}_]/u.test(path)) return null;
  const extension = extensionOf(path);
  if (extension === null || !/[a-z]/.test(extension)) return null;
  const segments = path.split("/");
  if (segments.length > 1 && HOST_LIKE.test(segments[0] ?? "")) return null;
  if (!path.includes("/") && !KNOWN_EXTENSIONS.has(extension)) return null;
  return { start: leading, end: leading + text.length, text, href: text };
}

const PATH_KEYS = ["path", "file_path", "filePath"] as const;

/** Tools whose path argument is a file (pi's read/edit/write and tools named like them). */
function isFileTool(name: string): boolean {
  return /read|edit|write|patch/i.test(name);
}

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : null;
}

/** `path#Lx-Ly` for pi's read with offset (1-based) and limit; the path alone otherwise. */
function readHref(path: string, args: Readonly<Record<string, unknown>>): string {
  const offset = positiveInteger(args["offset"]);
  if (offset === null || path.includes("#")) return path;
  const limit = positiveInteger(args["limit"]);
  return limit === null || limit === 1 ? `${path}#L${offset}` : `${path}#L${offset}-L${offset + limit - 1}`;
}

/** The paths a tool call names (see the module comment for which), in argument order. */
export function toolArgumentLinks(toolName: string, args: Readonly<Record<string, unknown>>): ToolArgumentLink[] {
  const fileTool = isFileTool(toolName);
  const accept = (path: string) => isPlausiblePath(path) && !path.startsWith("//") && (fileTool || extensionOf(path) !== null);
  const links: ToolArgumentLink[] = [];
  for (const key of PATH_KEYS) {
    const value = args[key];
    if (typeof value !== "string" || !accept(value)) continue;
    const href = toolName.toLowerCase() === "read" ? readHref(value, args) : value;
    links.push({ key, index: null, path: value, href });
  }
  const paths = args["paths"];
  if (Array.isArray(paths)) {
    paths.forEach((value: unknown, index) => {
      if (typeof value === "string" && accept(value)) links.push({ key: "paths", index, path: value, href: value });
    });
  }
  return links;
}

/**
 * Where the paths of `toolArgumentLinks` stand in the arguments' pretty JSON (`JSON.stringify(args, null, 2)`):
 * the characters between the quotes of each value (the JSON-escaped path), linked to the path itself.
 */
export function argumentJsonLinks(json: string, links: readonly ToolArgumentLink[]): FileLink[] {
  const found: FileLink[] = [];
  for (const link of links) {
    const keyAt = json.indexOf(`\n  ${JSON.stringify(link.key)}: `);
    if (keyAt === -1) continue;
    let from = keyAt + link.key.length + 7;
    if (link.index !== null) {
      // Elements of a pretty-printed array: one per line, in order, until the array closes.
      const close = json.indexOf("\n  ]", from);
      const lines = json.slice(from, close === -1 ? json.length : close).split("\n");
      const line = lines[link.index + 1];
      if (line === undefined) continue;
      from += lines.slice(0, link.index + 1).reduce((sum, part) => sum + part.length + 1, 0);
    }
    const quoted = JSON.stringify(link.path);
    const at = json.indexOf(quoted, from);
    if (at === -1 || at > from + 8) continue;
    const start = at + 1;
    const end = at + quoted.length - 1;
    found.push({ start, end, text: json.slice(start, end), href: link.href });
  }
  return withoutOverlaps(found);
}

function withoutOverlaps(links: FileLink[]): FileLink[] {
  const sorted = [...links].sort((a, b) => a.start - b.start);
  const kept: FileLink[] = [];
  for (const link of sorted) {
    const last = kept.at(-1);
    if (link.end > link.start && (last === undefined || link.start >= last.end)) kept.push(link);
  }
  return kept;
}

/** Whether a diff is unified (headers or hunks) rather than pi's numbered edit-tool format. */
function isUnifiedDiff(lines: readonly string[]): boolean {
  return lines.some(
    (line) => line.startsWith("@@") || line.startsWith("--- ") || line.startsWith("+++ ") || line.startsWith("diff --git "),
  );
}

/** The path of a `--- a/x` / `+++ b/x` header line, as a link on the path's characters; null for /dev/null or quoted names. */
function headerLink(line: string): FileLink | null {
  const prefix = line.startsWith("--- a/") || line.startsWith("+++ b/") ? 6 : 4;
  const tab = line.indexOf("\t");
  const end = tab === -1 ? line.length : tab;
  const path = line.slice(prefix, end).replace(/\s+$/, "");
  if (path === "" || path === "/dev/null" || path.startsWith('"') || !isPlausiblePath(path)) return null;
  return { start: prefix, end: prefix + path.length, text: path, href: path };
}

/** The new side of a hunk header (`+12,5` of `@@ -10,4 +12,5 @@`) as a link to that range of `file`. */
function hunkLink(line: string, file: string): FileLink | null {
  const match = /^@@ -\d+(?:,\d+)? (\+(\d+)(?:,(\d+))?) @@/.exec(line);
  if (match === null || match[1] === undefined) return null;
  const first = Number(match[2]);
  const count = match[3] === undefined ? 1 : Number(match[3]);
  if (!(first >= 1) || count === 0 || !Number.isSafeInteger(first + count)) return null;
  const start = line.indexOf(match[1], 3);
  const range = count === 1 ? `#L${first}` : `#L${first}-L${first + count - 1}`;
  return { start, end: start + match[1].length, text: match[1], href: `${file}${range}` };
}

/**
 * The file link of each diff line (null: none), aligned with the lines. `file` is the file the tool changed: the
 * target of pi's numbered diffs, and of a unified diff's hunks before (or without) a `+++` header.
 */
export function diffLineLinks(lines: readonly string[], file?: string): Array<FileLink | null> {
  const fallback = file !== undefined && isPlausiblePath(file) && !file.includes("#") ? file : null;
  if (isUnifiedDiff(lines)) {
    let current = fallback;
    return lines.map((line) => {
      if (line.startsWith("--- ") || line.startsWith("+++ ")) {
        const link = headerLink(line);
        if (line.startsWith("+++ ")) current = link !== null && !link.href.includes("#") ? link.href : null;
        return link;
      }
      return line.startsWith("@@") && current !== null ? hunkLink(line, current) : null;
    });
  }
  if (fallback === null) return lines.map(() => null);
  // pi's edit diff: `+N text` (new line N), `-N text` (old line N), ` N text` (old line N, new N + shift).
  let shift = 0;
  return lines.map((line) => {
    const match = /^([+\- ])( *)(\d+) /.exec(line);
    if (match === null || match[1] === undefined || match[2] === undefined || match[3] === undefined) return null;
    const number = Number(match[3]);
    const start = 1 + match[2].length;
    const end = start + match[3].length;
    if (match[1] === "-") {
      shift -= 1;
      return null;
    }
    const newLine = match[1] === "+" ? number : number + shift;
    if (match[1] === "+") shift += 1;
    if (!(newLine >= 1) || !Number.isSafeInteger(newLine)) return null;
    return { start, end, text: match[3], href: `${fallback}:${newLine}` };
  });
}

/** A text cut at its links, for rendering (the segments' texts join back to `text`). */
export function splitByLinks(text: string, links: readonly FileLink[]): TextSegment[] {
  const segments: TextSegment[] = [];
  let at = 0;
  for (const link of withoutOverlaps(links.filter((l) => l.start >= 0 && l.end <= text.length && text.slice(l.start, l.end) === l.text))) {
    if (link.start > at) segments.push({ text: text.slice(at, link.start), link: null });
    segments.push({ text: link.text, link });
    at = link.end;
  }
  if (at < text.length || segments.length === 0) segments.push({ text: text.slice(at), link: null });
  return segments;
}

/** The tooltip of a file link. */
export function fileLinkTitle(path: string): string {
  return `Preview ${path}`;
}
