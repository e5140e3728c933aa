/**
 * File links as the session file route reads them (spec "Local file routes"): a local path (relative, absolute or
 * `~/`), or a `file:` URL with an empty or `localhost` authority; a `:line[:column]` suffix; a `#Lline[-Lend]`
 * fragment (also `#L12-20`, `#L12C5`), any other fragment kept as `anchor`.
 *
 * Rules:
 * - control characters (C0, DEL, C1) anywhere, also after percent-decoding a `file:` URL, are refused;
 * - network paths (`//server/share`, `\\server`, a `file:` URL naming another host) are refused;
 * - Windows drive paths (`C:\...`, `C:/...`, `file:///C:/...`) need a Windows backend: refused here;
 * - other URL schemes (`https://...`, `mailto:`...) are not files: refused;
 * - `~` and `~/...` start at the home folder given by the caller (no `~user`).
 *
 * A link can be read several ways: `notes:12` is the file `notes` at line 12, or a file named `notes:12`;
 * `a%20b.md` (how Markdown renders a link with a space) is `a b.md` or a file with `%20` in its name. The parse
 * answers every reading, from the most literal to the most interpreted; the adapter keeps the first reading that
 * exists on disk and, when none does, reports the last one as missing. A `file:` URL is always percent-decoded
 * and its `#` is always a fragment (a literal `#` is written `%23` there).
 *
 * Pure: no file system, no `path` module; paths stay as the link writes them (relative ones are the adapter's to
 * resolve). An empty path with a fragment (`#L5`, `#heading`) means the link's own document (`basePath`).
 */
import { hasControlCharacter } from "./control-characters.ts";

export { hasControlCharacter };

export interface FileLinkTarget {
  /** The path as written (home expanded): absolute, relative, or "" for the link's own document. */
  readonly path: string;
  readonly line?: number;
  readonly endLine?: number;
  readonly column?: number;
  readonly anchor?: string;
}

export type FileHrefParse =
  { readonly ok: true; readonly readings: readonly FileLinkTarget[] } | { readonly ok: false; readonly error: string };

export const LINK_EMPTY = "The link is empty";
export const LINK_CONTROL_CHARACTER = "The link contains a control character";
export const LINK_NETWORK_PATH = "Network paths are not supported";
export const LINK_WINDOWS_PATH = "Windows paths require a Windows backend";
export const LINK_NOT_A_FILE = "Only local file paths and file: URLs can be opened";
export const LINK_FILE_URL_NOT_ABSOLUTE = "A file: URL must name an absolute path";
export const LINK_BAD_PERCENT_ENCODING = "The file: URL has an invalid percent-encoding";

const WINDOWS_DRIVE = /^[A-Za-z]:[\\/]/;
const HIERARCHICAL_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const OTHER_URL = /^(?:mailto|data|javascript|vbscript|tel|sms|about|blob|news|urn|magnet):/i;
const LINE_SUFFIX = /^(.+?):(\d+)(?::(\d+))?$/s;
const LINE_FRAGMENT = /^L(\d+)(?:C(\d+))?(?:-L?(\d+)(?:C\d+)?)?$/;

/** A positive integer written in decimal, or undefined (0, too large). */
function positive(digits: string | undefined): number | undefined {
  if (digits === undefined) return undefined;
  const value = Number(digits);
  return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

function percentDecoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return `${home.endsWith("/") ? home.slice(0, -1) : home}${path.slice(1)}`;
  return path;
}

type Position = Omit<FileLinkTarget, "path">;

/** What a fragment says: a line range (`L12`, `L12-L20`, `L12-20`, `L12C5`) or an anchor. */
export function fragmentPosition(fragment: string): Position {
  if (fragment === "") return {};
  const match = LINE_FRAGMENT.exec(fragment);
  const line = positive(match?.[1]);
  if (match === null || line === undefined) return { anchor: fragment };
  const column = positive(match[2]);
  const end = positive(match[3]);
  return {
    line,
    ...(column !== undefined ? { column } : {}),
    ...(end !== undefined && end >= line ? { endLine: end } : {}),
  };
}

/** `path:line[:column]` → the path and position, or null when the text has no such suffix. */
export function lineSuffix(text: string): { path: string; line: number; column?: number } | null {
  const match = LINE_SUFFIX.exec(text);
  if (match === null) return null;
  const line = positive(match[2]);
  if (line === undefined || match[1] === undefined) return null;
  if (match[3] !== undefined) {
    const column = positive(match[3]);
    return column === undefined ? null : { path: match[1], line, column };
  }
  return { path: match[1], line };
}

/** The readings of one spelling of a path link (see the module comment), most literal first. */
function pathReadings(text: string, home: string): FileLinkTarget[] {
  const readings: FileLinkTarget[] = [{ path: expandHome(text, home) }];
  const hashAt = text.indexOf("#");
  const pathPart = hashAt < 0 ? text : text.slice(0, hashAt);
  const fragment = hashAt < 0 ? {} : fragmentPosition(text.slice(hashAt + 1));
  if (hashAt >= 0) readings.push({ path: expandHome(pathPart, home), ...fragment });
  const suffix = lineSuffix(pathPart);
  if (suffix !== null) {
    const fromSuffix: Position = { line: suffix.line, ...(suffix.column !== undefined ? { column: suffix.column } : {}) };
    // A line in the fragment says more than the suffix (`a.ts:3#L10-L12` is the range).
    const position = fragment.line !== undefined ? fragment : { ...fromSuffix, ...fragment };
    readings.push({ path: expandHome(suffix.path, home), ...position });
  }
  return readings;
}

function sameReading(a: FileLinkTarget, b: FileLinkTarget): boolean {
  return a.path === b.path && a.line === b.line && a.endLine === b.endLine && a.column === b.column && a.anchor === b.anchor;
}

function distinct(readings: FileLinkTarget[]): FileLinkTarget[] {
  return readings.filter((reading, index) => readings.findIndex((other) => sameReading(other, reading)) === index);
}

function parseFileUrl(href: string): FileHrefParse {
  let rest = href.slice("file:".length);
  const hashAt = rest.indexOf("#");
  const rawFragment = hashAt < 0 ? "" : rest.slice(hashAt + 1);
  if (hashAt >= 0) rest = rest.slice(0, hashAt);
  const queryAt = rest.indexOf("?");
  if (queryAt >= 0) rest = rest.slice(0, queryAt);
  let encodedPath = rest;
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    encodedPath = slash < 0 ? "" : rest.slice(slash);
    if (/^[A-Za-z][:|]$/.test(authority)) return { ok: false, error: LINK_WINDOWS_PATH };
    if (authority !== "" && authority.toLowerCase() !== "localhost") return { ok: false, error: LINK_NETWORK_PATH };
  }
  if (!encodedPath.startsWith("/")) return { ok: false, error: LINK_FILE_URL_NOT_ABSOLUTE };
  const path = percentDecoded(encodedPath);
  if (path === null) return { ok: false, error: LINK_BAD_PERCENT_ENCODING };
  if (hasControlCharacter(path)) return { ok: false, error: LINK_CONTROL_CHARACTER };
  if (/^\/[A-Za-z][:|](?:[\\/]|$)/.test(path)) return { ok: false, error: LINK_WINDOWS_PATH };
  if (path.startsWith("//")) return { ok: false, error: LINK_NETWORK_PATH };
  const fragmentText = percentDecoded(rawFragment) ?? rawFragment;
  const fragment = hasControlCharacter(fragmentText) ? {} : fragmentPosition(fragmentText);
  const readings: FileLinkTarget[] = [{ path, ...fragment }];
  const suffix = lineSuffix(path);
  if (suffix !== null && fragment.line === undefined) {
    readings.push({ path: suffix.path, ...fragment, line: suffix.line, ...(suffix.column !== undefined ? { column: suffix.column } : {}) });
  }
  return { ok: true, readings: distinct(readings) };
}

/**
 * The readings of a link, most literal first, or why it cannot name a local file. `home` expands `~`.
 */
export function parseFileHref(href: string, home: string): FileHrefParse {
  if (href === "") return { ok: false, error: LINK_EMPTY };
  if (hasControlCharacter(href)) return { ok: false, error: LINK_CONTROL_CHARACTER };
  if (/^file:/i.test(href)) return parseFileUrl(href);
  if (href.startsWith("\\\\") || href.startsWith("//")) return { ok: false, error: LINK_NETWORK_PATH };
  if (WINDOWS_DRIVE.test(href)) return { ok: false, error: LINK_WINDOWS_PATH };
  if (HIERARCHICAL_URL.test(href) || OTHER_URL.test(href)) return { ok: false, error: LINK_NOT_A_FILE };
  const readings = pathReadings(href, home);
  const decoded = href.includes("%") ? percentDecoded(href) : null;
  if (decoded !== null && decoded !== href && !hasControlCharacter(decoded)) readings.push(...pathReadings(decoded, home));
  return { ok: true, readings: distinct(readings) };
}

/** The link text of a target: `path:line[:column]`, `path#Lline[Ccolumn]-Lend`, or `path#anchor`. */
export function formatFileHref(target: FileLinkTarget): string {
  const { path, line, endLine, column, anchor } = target;
  if (line !== undefined && endLine !== undefined) return `${path}#L${line}${column !== undefined ? `C${column}` : ""}-L${endLine}`;
  const suffix = line !== undefined ? `:${line}${column !== undefined ? `:${column}` : ""}` : "";
  return `${path}${suffix}${anchor !== undefined ? `#${anchor}` : ""}`;
}

/** The `file:` URL of an absolute path: every segment percent-encoded (`#`, `%`, `:`, spaces included). */
export function fileUrlOf(absolutePath: string): string {
  return `file://${absolutePath.split("/").map(encodeURIComponent).join("/")}`;
}
