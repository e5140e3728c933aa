/**
 * Snippets of search hits: the best window of a hit's text, as segments a client renders as plain text,
 * `{ text, match }`, never as HTML. Pure.
 *
 * Finding the window (`snippetOf`): the text is cut into tokens as FTS5's unicode61 tokenizer cuts it (runs of
 * letters, digits and private-use characters) and compared without case and diacritics, as the index compares;
 * every search term (search-query.ts: a phrase of one or more tokens, the last one possibly a prefix) is looked
 * for, and the window of SNIPPET_TOKENS tokens holding the most different terms (then the most matches, then
 * the earliest) is taken, its matched tokens marked. FTS5's own snippet() would do the same inside SQLite, but it
 * evaluates the whole query again for every hit: for a prefix such as `par*` that is milliseconds per hit.
 *
 * Shaping (`shapeSnippet`): whitespace runs (newlines included) become one space; the snippet is at most
 * `SNIPPET_MAX_CHARS` characters (unmatched text is cut first: the start of the first segment, the end of the last
 * one, then the middle of long unmatched runs, each cut marked with `…`); adjacent segments of the same kind are
 * merged and empty ones dropped.
 */
import type { SearchTerms } from "./search-query.ts";

export const SNIPPET_ELLIPSIS = "…";
/** Tokens in a snippet window. */
export const SNIPPET_TOKENS = 24;
/** Tokens shown before the window's first match. */
const LEAD_TOKENS = 4;
/** Matches looked at when choosing the window (the rest of a long text is not scanned for more). */
const MAX_MATCHES = 400;
/** Characters of a shaped snippet (matched words included). */
export const SNIPPET_MAX_CHARS = 240;
/** Characters kept on each side of a cut in a long unmatched run between two matches. */
const KEEP_AROUND_CUT = 40;

export interface SnippetSegment {
  readonly text: string;
  readonly match: boolean;
}

/** A token as the index sees it (see the module comment). */
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;
const ASCII = /^[\x20-\x7e]*$/;

/** A token compared as the index compares it: lower case, without diacritics. */
export function foldToken(token: string): string {
  if (ASCII.test(token)) return token.toLowerCase();
  return token.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

interface Token {
  readonly start: number;
  readonly end: number;
  readonly folded: string;
}

function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const start = match.index;
    tokens.push({ start, end: start + match[0].length, folded: foldToken(match[0]) });
  }
  return tokens;
}

interface TermPattern {
  readonly tokens: readonly string[];
  /** The last token matches as a prefix. */
  readonly prefix: boolean;
}

function patternsOf(terms: SearchTerms): TermPattern[] {
  const patterns: TermPattern[] = [];
  terms.terms.forEach((term, index) => {
    const tokens = (term.match(TOKEN) ?? []).map(foldToken);
    if (tokens.length > 0) patterns.push({ tokens, prefix: terms.prefixLast && index === terms.terms.length - 1 });
  });
  return patterns;
}

function matchesAt(tokens: readonly Token[], at: number, pattern: TermPattern): boolean {
  if (at + pattern.tokens.length > tokens.length) return false;
  for (let k = 0; k < pattern.tokens.length; k++) {
    const token = (tokens[at + k] as Token).folded;
    const wanted = pattern.tokens[k] as string;
    const last = k === pattern.tokens.length - 1;
    if (last && pattern.prefix ? !token.startsWith(wanted) : token !== wanted) return false;
  }
  return true;
}

interface Found {
  /** First and last token index of the occurrence. */
  readonly first: number;
  readonly last: number;
  readonly term: number;
}

/** The best window of `text` for the search terms, matched tokens marked (then shaped: see `shapeSnippet`). */
export function snippetOf(text: string, terms: SearchTerms, maxChars: number = SNIPPET_MAX_CHARS): SnippetSegment[] {
  const tokens = tokensOf(text);
  const patterns = patternsOf(terms);
  const found: Found[] = [];
  for (let at = 0; at < tokens.length && found.length < MAX_MATCHES; at++) {
    for (let term = 0; term < patterns.length; term++) {
      const pattern = patterns[term] as TermPattern;
      if (matchesAt(tokens, at, pattern)) found.push({ first: at, last: at + pattern.tokens.length - 1, term });
    }
  }
  // The window: SNIPPET_TOKENS tokens from a little before some match; most different terms, then most matches.
  let start = 0;
  let best = { terms: -1, matches: -1 };
  for (const candidate of found) {
    const from = Math.max(0, candidate.first - LEAD_TOKENS);
    const to = from + SNIPPET_TOKENS;
    const inside = found.filter((f) => f.first >= from && f.last < to);
    const score = { terms: new Set(inside.map((f) => f.term)).size, matches: inside.length };
    if (score.terms > best.terms || (score.terms === best.terms && score.matches > best.matches)) {
      best = score;
      start = from;
    }
  }
  if (tokens.length === 0) return shapeSnippet([{ text, match: false }], maxChars);
  const end = Math.min(tokens.length, start + SNIPPET_TOKENS);
  const marked = new Set<number>();
  for (const f of found) {
    if (f.first >= start && f.last < end) for (let i = f.first; i <= f.last; i++) marked.add(i);
  }
  const segments: SnippetSegment[] = [];
  const from = start === 0 ? 0 : (tokens[start] as Token).start;
  const to = end === tokens.length ? text.length : (tokens[end - 1] as Token).end;
  if (start > 0) segments.push({ text: SNIPPET_ELLIPSIS, match: false });
  let at = from;
  for (let i = start; i < end; i++) {
    if (!marked.has(i)) continue;
    const token = tokens[i] as Token;
    segments.push({ text: text.slice(at, token.start), match: false }, { text: text.slice(token.start, token.end), match: true });
    at = token.end;
  }
  segments.push({ text: text.slice(at, to), match: false });
  if (to < text.length && text.slice(to).trim() !== "") segments.push({ text: SNIPPET_ELLIPSIS, match: false });
  return shapeSnippet(segments, maxChars);
}

function mergeSegments(segments: readonly SnippetSegment[]): SnippetSegment[] {
  const merged: SnippetSegment[] = [];
  for (const segment of segments) {
    if (segment.text === "") continue;
    const last = merged.at(-1);
    if (last !== undefined && last.match === segment.match)
      merged[merged.length - 1] = { text: last.text + segment.text, match: last.match };
    else merged.push(segment);
  }
  return merged;
}

/** Code points of a string (a cut never splits a surrogate pair). */
function codePoints(text: string): string[] {
  return [...text];
}

function totalLength(segments: readonly SnippetSegment[]): number {
  let total = 0;
  for (const segment of segments) total += codePoints(segment.text).length;
  return total;
}

/** Whitespace collapsed, then cut to SNIPPET_MAX_CHARS (see the module comment). */
export function shapeSnippet(segments: readonly SnippetSegment[], maxChars: number = SNIPPET_MAX_CHARS): SnippetSegment[] {
  const collapsed = mergeSegments(segments.map((s) => ({ text: s.text.replace(/\s+/gu, " "), match: s.match })));
  if (collapsed.length === 0) return [];
  // No leading or trailing space around the whole snippet.
  const first = collapsed[0] as SnippetSegment;
  collapsed[0] = { ...first, text: first.text.replace(/^ /, "") };
  const lastIndex = collapsed.length - 1;
  const last = collapsed[lastIndex] as SnippetSegment;
  collapsed[lastIndex] = { ...last, text: last.text.replace(/ $/, "") };
  let shaped = mergeSegments(collapsed);
  let excess = totalLength(shaped) - maxChars;
  if (excess <= 0) return shaped;

  // 1. The start of an unmatched first segment (keep its end, next to the first match).
  const head = shaped[0] as SnippetSegment;
  if (!head.match && shaped.length > 1) {
    const points = codePoints(head.text);
    const cut = Math.min(excess + 1, points.length);
    shaped[0] = { text: SNIPPET_ELLIPSIS + points.slice(cut).join(""), match: false };
    excess -= cut - 1;
  }
  // 2. The end of an unmatched last segment.
  const tailIndex = shaped.length - 1;
  const tail = shaped[tailIndex] as SnippetSegment;
  if (excess > 0 && !tail.match) {
    const points = codePoints(tail.text);
    const keep = Math.max(0, points.length - excess - 1);
    shaped[tailIndex] = { text: points.slice(0, keep).join("") + SNIPPET_ELLIPSIS, match: false };
    excess -= points.length - keep - 1;
  }
  // 3. The middle of long unmatched runs between matches.
  for (let i = 1; i < shaped.length - 1 && excess > 0; i++) {
    const segment = shaped[i] as SnippetSegment;
    if (segment.match) continue;
    const points = codePoints(segment.text);
    const removable = points.length - 2 * KEEP_AROUND_CUT - 1;
    if (removable <= 0) continue;
    const cut = Math.min(removable, excess + 1);
    const keepLeft = Math.ceil((points.length - cut) / 2);
    const keepRight = points.length - cut - keepLeft;
    shaped[i] = {
      text: points.slice(0, keepLeft).join("") + SNIPPET_ELLIPSIS + points.slice(points.length - keepRight).join(""),
      match: false,
    };
    excess -= cut - 1;
  }
  // 4. Still too long (long matched words): keep whole segments from the start, cut the one that overflows.
  if (excess > 0) {
    const kept: SnippetSegment[] = [];
    let room = maxChars - 1;
    for (const segment of shaped) {
      const points = codePoints(segment.text);
      if (points.length <= room) {
        kept.push(segment);
        room -= points.length;
        continue;
      }
      if (room > 0) kept.push({ text: points.slice(0, room).join(""), match: segment.match });
      break;
    }
    kept.push({ text: SNIPPET_ELLIPSIS, match: false });
    shaped = mergeSegments(kept);
  }
  return mergeSegments(shaped);
}
