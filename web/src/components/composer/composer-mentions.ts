/**
 * `@file` mentions in the composer's draft, pure: finding the mention the caret is in, and writing a chosen file
 * into the draft the way pi's own editor does (pi-tui's autocomplete): `@path`, or `@"path"` when the path holds
 * white space or CJK punctuation (or the mention was begun with a quote), then a space.
 *
 * Rules kept here:
 * - A mention starts with `@` at the start of a line or after white space or CJK punctuation, optionally behind
 *   opening brackets or a backtick (`(@src/a.ts)`), as in pi. `bob@example.com` is no mention.
 * - An unquoted mention runs to the next white space or CJK punctuation (or to the closer of the bracket it
 *   opened behind); a quoted one (`@"…`) runs to its closing quote on the same line, or to the caret when it has
 *   none yet. The query is what lies between the `@` (or `@"`) and the caret.
 * - Inserting replaces the whole mention (so editing a mention in the middle of the text leaves no remainder of
 *   the old path) and adds a space unless a space or tab (or the bracket's closer) follows; the caret goes after
 *   that space. The text outside the mention is never changed. A path holding the bracket's closer is
 *   quoted too. Quote characters inside paths are written as they are (pi does the same).
 * - Offsets are UTF-16 indexes, as a textarea's selectionStart.
 * No Vue, no DOM.
 */

/** pi's separators (pi-tui utils.ts `autocompleteSeparatorRegex`): white space and CJK punctuation. */
const CJK_PUNCTUATION = new RegExp(
  "(?:(?=\\p{Punctuation})[\\p{Script_Extensions=Han}\\p{Script_Extensions=Hiragana}\\p{Script_Extensions=Katakana}" +
    "\\p{Script_Extensions=Hangul}\\p{Script_Extensions=Bopomofo}]|[，．：；！？（）［］｛｝“”‘’…—])",
  "u",
);
const SEPARATOR = new RegExp(`(?:\\s|${CJK_PUNCTUATION.source})`, "u");

/** Openers that may stand between a separator and the `@`, with their closers (as pi's PATH_WRAPPERS). */
const WRAPPERS: Readonly<Record<string, string>> = { "(": ")", "[": "]", "{": "}", "<": ">", "`": "`" };

function isSeparator(char: string): boolean {
  return SEPARATOR.test(char);
}

/** The first character (code point) of `text` at `index`, or "". */
function pointAt(text: string, index: number): string {
  const code = text.codePointAt(index);
  return code === undefined ? "" : String.fromCodePoint(code);
}

function firstChar(text: string): string {
  return pointAt(text, 0);
}

/** The mention the caret is in. */
export interface MentionToken {
  /** Index of the `@`. */
  start: number;
  /** Index just after the mention (after its closing quote when quoted). */
  end: number;
  /** What lies between the `@` (or `@"`) and the caret: what the files are matched against. */
  query: string;
  /** Begun as `@"…`. */
  quoted: boolean;
  /** The closer of the bracket the mention was opened behind ("" for none). */
  closer: string;
}

/** The character (code point) that ends just before `index`, or "". */
function charBefore(text: string, index: number): string {
  if (index <= 0) return "";
  const code = text.charCodeAt(index - 1);
  if (index >= 2 && code >= 0xdc00 && code <= 0xdfff) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(index - 2, index);
  }
  return text.charAt(index - 1);
}

/**
 * Whether an `@` at `at` begins a mention: at a line's start or after a separator, past any openers. Gives the
 * closer of the innermost opener ("" for none), or null when the `@` begins no mention.
 */
function mentionOpening(text: string, at: number): { closer: string } | null {
  let index = at;
  let closer = "";
  while (index > 0) {
    const opener = WRAPPERS[text.charAt(index - 1)];
    if (opener === undefined) break;
    if (closer === "") closer = opener;
    index -= 1;
  }
  const before = charBefore(text, index);
  return before === "" || isSeparator(before) ? { closer } : null;
}

/** The mention the caret (a position in `text`) is in, or null. */
export function mentionAt(text: string, caret: number): MentionToken | null {
  const at = Math.max(0, Math.min(caret, text.length));
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const lineEndFound = text.indexOf("\n", at);
  const lineEnd = lineEndFound === -1 ? text.length : lineEndFound;
  return quotedMentionAt(text, at, lineStart, lineEnd) ?? plainMentionAt(text, at, lineStart, lineEnd);
}

/** `@"…` with the caret inside the quotes: the line's quotes before the caret leave one open, right after an `@`. */
function quotedMentionAt(text: string, caret: number, lineStart: number, lineEnd: number): MentionToken | null {
  let open = -1;
  for (let index = lineStart; index < caret; index += 1) {
    if (text.charAt(index) === '"') open = open === -1 ? index : -1;
  }
  if (open <= lineStart || text.charAt(open - 1) !== "@") return null;
  const opening = mentionOpening(text, open - 1);
  if (opening === null) return null;
  const close = text.indexOf('"', caret);
  const end = close !== -1 && close < lineEnd ? close + 1 : caret;
  return { start: open - 1, end, query: text.slice(open + 1, caret), quoted: true, closer: opening.closer };
}

/** `@…` with the caret inside it (after the `@`). */
function plainMentionAt(text: string, caret: number, lineStart: number, lineEnd: number): MentionToken | null {
  // Back from the caret to the token's start: the first separator or the line's start.
  let start = caret;
  while (start > lineStart) {
    const char = charBefore(text, start);
    if (isSeparator(char)) break;
    start -= char.length;
  }
  // Past the openers to the `@`.
  let at = start;
  while (at < caret && WRAPPERS[text.charAt(at)] !== undefined) at += 1;
  if (at >= caret || text.charAt(at) !== "@") return null;
  if (text.charAt(at + 1) === '"') return null;
  const opening = mentionOpening(text, at);
  if (opening === null) return null;
  const query = text.slice(at + 1, caret);
  if (opening.closer !== "" && query.includes(opening.closer)) return null;
  let end = caret;
  while (end < lineEnd) {
    const piece = pointAt(text, end);
    if (piece === "" || isSeparator(piece) || (opening.closer !== "" && piece === opening.closer)) break;
    end += piece.length;
  }
  return { start: at, end, query, quoted: false, closer: opening.closer };
}

/** Whether a path must be written in quotes after the `@` (pi quotes paths with separators). */
export function needsQuotes(path: string): boolean {
  return SEPARATOR.test(path);
}

/** A file as a mention: `@path`, or `@"path"` when it must be quoted (or `quoted` asks for it). */
export function formatMention(path: string, quoted = false): string {
  return quoted || needsQuotes(path) ? `@"${path}"` : `@${path}`;
}

/** The draft with the mention `token` replaced by `path`, and the caret after it (see the module comment). */
export function insertMention(text: string, token: MentionToken, path: string): { text: string; caret: number } {
  const mention = formatMention(path, token.quoted || (token.closer !== "" && path.includes(token.closer)));
  const after = text.slice(token.end);
  const next = firstChar(after);
  const spaced = next === " " || next === "\t";
  const inserted = spaced || (next !== "" && next === token.closer) ? mention : `${mention} `;
  // The caret goes after the space that ends the mention, whether added or already there.
  const caret = token.start + inserted.length + (spaced ? 1 : 0);
  return { text: text.slice(0, token.start) + inserted + after, caret };
}

/**
 * The mention written at `start` (where insertMention puts one): its path and where it ends; null when there is
 * none. `@"…"` needs its closing quote on the same line; an unquoted one ends at a separator or at `closer` (the
 * closer of the bracket it stands in).
 */
export function readMention(text: string, start: number, closer = ""): { path: string; end: number } | null {
  if (text.charAt(start) !== "@") return null;
  if (text.charAt(start + 1) === '"') {
    const close = text.indexOf('"', start + 2);
    if (close === -1 || text.slice(start + 2, close).includes("\n")) return null;
    return { path: text.slice(start + 2, close), end: close + 1 };
  }
  let end = start + 1;
  while (end < text.length) {
    const piece = pointAt(text, end);
    if (isSeparator(piece) || (closer !== "" && piece === closer)) break;
    end += piece.length;
  }
  return end === start + 1 ? null : { path: text.slice(start + 1, end), end };
}

/** A file's name and its folder (with the trailing `/`; "" at the top), for the menu. */
export function splitPath(path: string): { name: string; folder: string } {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? { name: path, folder: "" } : { name: path.slice(slash + 1), folder: path.slice(0, slash + 1) };
}
