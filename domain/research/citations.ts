/**
 * Citation checks of a research report against the source ledger (spec/deep-research.md, "Source
 * registration and citation checks"). The check verifies ledger identity only, not that the evidence
 * supports a claim.
 *
 * What counts as a citation: a numeric inline Markdown link `[n](target)` and its bracketed variant
 * `[[n]](target)` (the link text "[n]"), where n is a run of digits. The target may be `<...>` and may be
 * followed by a link title; backslash escapes in it are resolved. Not citations: images `![n](...)`,
 * escaped `\[n](...)`, links inside code spans or fenced code blocks (``` or ~~~), reference-style links
 * (`[n]` + `[n]: url`), and links whose text is not a bare number.
 *
 * A citation is valid when n names a ledger source, the source is not excluded, and the target matches
 * the source's URL (both canonicalised: fragment and one trailing slash removed, query kept) or its
 * path (both without a leading "./"). When the ledger has a usable (non-excluded) source, the report
 * needs at least one valid citation. Any invalid citation is an error that names it.
 */
import type { ResearchSource } from "./research-types.ts";
import { canonicalUrl, normalizeSourcePath } from "./source-ledger.ts";

export interface ReportCitation {
  /** The cited number as written. */
  n: number;
  /** The link target after unescaping (angle brackets and title removed). */
  target: string;
  /** The citation as written in the report, e.g. `[3](https://x)`. */
  text: string;
  valid: boolean;
  reason?: string;
}

export interface CitationValidation {
  valid: boolean;
  /** Every numeric citation, in report order. */
  citations: ReportCitation[];
  /** Ids of sources with at least one valid citation, ascending. */
  citedSourceIds: number[];
  /** One message per invalid citation, plus one when a usable ledger has no valid citation. */
  errors: string[];
}

/** Checks every numeric citation of a report against the ledger. */
export function validateReportCitations(markdown: string, sources: readonly ResearchSource[]): CitationValidation {
  const citations = extractNumericCitations(markdown).map((link) => checkCitation(link, sources));
  const errors = citations.flatMap((c) => (c.valid ? [] : [`Citation ${c.text} ${c.reason ?? "is invalid"}`]));
  const citedSourceIds = [...new Set(citations.filter((c) => c.valid).map((c) => c.n))].sort((a, b) => a - b);
  const usable = sources.filter((s) => s.status !== "excluded").length;
  if (usable > 0 && citedSourceIds.length === 0) {
    errors.push(`The report has no valid numeric citation of the ${usable} usable ledger source${usable === 1 ? "" : "s"}`);
  }
  return { valid: errors.length === 0, citations, citedSourceIds, errors };
}

/** Whether a citation target names the given source (by URL or by path). */
export function citationTargetMatches(target: string, source: ResearchSource): boolean {
  const url = canonicalUrl(target);
  if (url !== null && source.url && canonicalUrl(source.url) === url) return true;
  const path = normalizeSourcePath(target);
  return path !== "" && source.path !== "" && normalizeSourcePath(source.path) === path;
}

function checkCitation(link: NumericLink, sources: readonly ResearchSource[]): ReportCitation {
  const base = { n: link.n, target: link.target, text: link.text };
  const source = sources.find((s) => s.id === link.n);
  if (!source) return { ...base, valid: false, reason: `names no ledger source ${link.n}` };
  if (source.status === "excluded") {
    return { ...base, valid: false, reason: `cites excluded source ${link.n}` };
  }
  if (!citationTargetMatches(link.target, source)) {
    return { ...base, valid: false, reason: `does not match source ${link.n}` };
  }
  return { ...base, valid: true };
}

// ---------------------------------------------------------------------------------------------------------
// Extraction
// ---------------------------------------------------------------------------------------------------------

export interface NumericLink {
  n: number;
  target: string;
  text: string;
}

/** The numeric inline links of a Markdown text, outside code, in order. */
export function extractNumericCitations(markdown: string): NumericLink[] {
  const text = blankCode(markdown);
  const links: NumericLink[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("[", i);
    if (open === -1) break;
    const link = open > 0 && (text[open - 1] === "!" || isEscaped(text, open)) ? null : linkAt(text, open);
    if (link) {
      links.push({ n: link.n, target: link.target, text: markdown.slice(open, link.end) });
      i = link.end;
    } else {
      i = open + 1;
    }
  }
  return links;
}

function isEscaped(text: string, index: number): boolean {
  let slashes = 0;
  for (let j = index - 1; j >= 0 && text[j] === "\\"; j--) slashes++;
  return slashes % 2 === 1;
}

const LABEL = /^\[(?:\[(\d+)\]|(\d+))\]\(/;

function linkAt(text: string, open: number): { n: number; target: string; end: number } | null {
  const head = LABEL.exec(text.slice(open, open + 40));
  if (!head) return null;
  const digits = head[1] ?? head[2] ?? "";
  const n = Number(digits);
  if (!Number.isSafeInteger(n)) return null;
  const dest = parseDestination(text, open + head[0].length);
  if (!dest) return null;
  return { n, target: dest.target, end: dest.end };
}

/** Parses `target [title])` starting after `(`; returns the target and the index after `)`. */
function parseDestination(text: string, start: number): { target: string; end: number } | null {
  let i = skipSpaces(text, start);
  let raw: string;
  if (text[i] === "<") {
    const close = findUnescaped(text, ">", i + 1);
    if (close === -1) return null;
    raw = text.slice(i + 1, close);
    if (raw.includes("\n")) return null;
    i = close + 1;
  } else {
    let depth = 0;
    const from = i;
    while (i < text.length) {
      const c = text[i] ?? "";
      if (c === "\\" && i + 1 < text.length) {
        i += 2;
        continue;
      }
      if (/\s/.test(c)) break;
      if (c === "(") depth++;
      else if (c === ")") {
        if (depth === 0) break;
        depth--;
      }
      i++;
    }
    raw = text.slice(from, i);
  }
  i = skipSpaces(text, i);
  if (text[i] === '"' || text[i] === "'" || text[i] === "(") {
    const closeChar = text[i] === "(" ? ")" : (text[i] ?? "");
    const close = findUnescaped(text, closeChar, i + 1);
    if (close === -1) return null;
    i = skipSpaces(text, close + 1);
  }
  if (text[i] !== ")") return null;
  return { target: unescapeMarkdown(raw).trim(), end: i + 1 };
}

function skipSpaces(text: string, i: number): number {
  let j = i;
  while (j < text.length && (text[j] === " " || text[j] === "\t" || text[j] === "\n")) j++;
  return j;
}

function findUnescaped(text: string, char: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text[i] === char) return i;
  }
  return -1;
}

function unescapeMarkdown(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, "$1");
}

/**
 * Replaces code (fenced blocks and inline code spans) by spaces, keeping every other character at its
 * index, so that links inside code are not seen.
 */
export function blankCode(markdown: string): string {
  const lines = markdown.split("\n");
  let fence: { char: string; length: number } | null = null;
  const kept = lines.map((line) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const closer = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      const run = closer?.[1] ?? "";
      if (closer && run[0] === fence.char && run.length >= fence.length) fence = null;
      return blank(line);
    }
    if (opener) {
      const run = opener[1] ?? "";
      // A backtick fence's info string may not contain backticks (CommonMark).
      if (!(run[0] === "`" && line.slice(line.indexOf(run) + run.length).includes("`"))) {
        fence = { char: run[0] ?? "`", length: run.length };
        return blank(line);
      }
    }
    return line;
  });
  return blankCodeSpans(kept.join("\n"));
}

function blank(text: string): string {
  return text.replace(/[^\n]/g, " ");
}

function blankCodeSpans(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] === "\\" && i + 1 < text.length) {
      out += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (text[i] !== "`") {
      out += text[i];
      i++;
      continue;
    }
    let runEnd = i;
    while (text[runEnd] === "`") runEnd++;
    const run = text.slice(i, runEnd);
    const close = findBacktickRun(text, runEnd, run.length);
    if (close === -1) {
      out += run;
      i = runEnd;
    } else {
      out += blank(text.slice(i, close + run.length));
      i = close + run.length;
    }
  }
  return out;
}

function findBacktickRun(text: string, from: number, length: number): number {
  let i = from;
  while (i < text.length) {
    if (text[i] !== "`") {
      i++;
      continue;
    }
    let end = i;
    while (text[end] === "`") end++;
    if (end - i === length) return i;
    i = end;
  }
  return -1;
}
