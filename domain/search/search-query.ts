/**
 * A person's search text as an FTS5 MATCH expression, built so that user input is never FTS5 syntax.
 *
 * Rules:
 * - The text is split at whitespace into terms (control characters count as whitespace). A term with no
 *   letter or digit (only punctuation, symbols) is dropped: a query of only such terms has no expression and
 *   answers no results.
 * - Every term is one FTS5 string (`"..."`, inner quotes doubled): FTS5 tokenizes it like the indexed text, so
 *   `foo_bar.ts` is the phrase `foo bar ts` and operators (`AND`, `NEAR`, `*`, `:`, `^`, parentheses) are words.
 * - Terms are joined by spaces: every term must occur in the same document (implicit AND), anywhere in it.
 * - As-you-type: the last term is a prefix (`"compil"*` finds "compilation") when the text does not end with
 *   whitespace and the term ends with at least `PREFIX_MIN_CHARS` letters or digits (shorter prefixes match too
 *   much to be useful, and cost the most).
 * - Terms compare without case; repeated terms count once; at most `MAX_QUERY_TERMS` terms are used.
 */

/** Longest search text the route accepts. */
export const MAX_QUERY_CHARS = 500;
/** Terms used from one query (the rest are ignored). */
export const MAX_QUERY_TERMS = 16;
/** Letters or digits the last term must end with to be searched as a prefix. */
export const PREFIX_MIN_CHARS = 3;

/** The characters FTS5's unicode61 tokenizer keeps in tokens: letters, numbers, private use. */
const TOKEN_CHARACTER = /[\p{L}\p{N}\p{Co}]/u;
const TRAILING_TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+$/u;
// eslint-disable-next-line no-control-regex
const SEPARATORS = /[\s\u0000-\u001f\u007f]+/u;

export interface SearchTerms {
  /** The terms as typed (deduplicated without case), in order. */
  readonly terms: readonly string[];
  /** The last term is searched as a prefix. */
  readonly prefixLast: boolean;
}

/** The terms of a search text (see the module comment); no terms = nothing to search. */
export function searchTerms(text: string): SearchTerms {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const part of text.split(SEPARATORS)) {
    if (part === "" || !TOKEN_CHARACTER.test(part)) continue;
    const key = part.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push(part);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  const last = terms.at(-1);
  const endsTyping = text.length > 0 && !SEPARATORS.test(text.slice(-1));
  const trailing = last === undefined ? null : TRAILING_TOKEN.exec(last);
  const prefixLast =
    endsTyping && last !== undefined && trailing !== null && [...trailing[0]].length >= PREFIX_MIN_CHARS && text.trimEnd().endsWith(last);
  return { terms, prefixLast };
}

/** One term as an FTS5 string. */
export function quoteTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** The MATCH expression of a search text, or null when it has no searchable term. */
export function matchExpression(text: string): string | null {
  const { terms, prefixLast } = searchTerms(text);
  if (terms.length === 0) return null;
  return terms.map((term, index) => (prefixLast && index === terms.length - 1 ? `${quoteTerm(term)}*` : quoteTerm(term))).join(" ");
}
