/**
 * A deterministic check (no model call) of whether each cited sentence of a report is backed by what the
 * source ledger recorded for the cited source: its claim and evidence text (and its title, for terms).
 * citations.ts checks that a citation names a ledger source; this checks, roughly, that the source says
 * what the sentence says. It is a lexical heuristic meant to point a reader at citations worth a look.
 *
 * Citations are the numeric Markdown links of citations.ts (`[3](https://...)`), outside code. Each is
 * assessed against the sentence it belongs to:
 * - Sentences: the report without code (blankCode) is cut into blocks at blank lines and at lines that
 *   start a heading, list item, quote or table row, and blocks into sentences after ".", "!" or "?" (with
 *   closing quotes or brackets) followed by whitespace, except after common abbreviations ("e.g.", "et al.",
 *   "Fig.") and single-letter initials. Citation links are opaque (a "." in a link title ends nothing).
 * - A citation placed right after a sentence's end ("... stripes. [1](u)") belongs to that sentence: a
 *   citation with nothing but whitespace and other citations before it in its sentence is moved to the
 *   previous sentence of the same block. Several citations in one sentence are each assessed against it.
 * - Terms: lower-case words (accents removed, split at anything but letters and digits), without English
 *   stopwords and one-letter words, reduced by a light suffix stemmer (plural -s/-es/-ies, -ing, -ed, -ly,
 *   a final -e, then a doubled final consonant left by a suffix: "running" → "run"), plus numbers.
 * - Numbers: digit runs with "." or "," groups ("1,200" is 1200), not part of a word ("ES2022", "v2").
 * - score = |sentence terms found in the source's claim + evidence + title terms| / |sentence terms|,
 *   rounded to 3 decimals (0 for a sentence without terms).
 * - missingNumbers: the sentence's numbers that the claim and evidence do not contain.
 * - Verdict: "no-evidence" when the id is not in the ledger or the source has neither claim nor evidence;
 *   else "supported" when score >= SUPPORTED_MIN_SCORE (0.5) and no number is missing; "partial" when
 *   score >= PARTIAL_MIN_SCORE (0.25) (a supported score with a missing number is partial too);
 *   "unsupported" below.
 * The result lists one entry per citation, in report order, and does not depend on the order of `sources`
 * (sources sharing an id, which a valid ledger never has, are combined).
 */
import { blankCode, extractNumericCitations } from "./citations.ts";
import type { ResearchSource } from "./research-types.ts";

export type SupportVerdict = "supported" | "partial" | "unsupported" | "no-evidence";

export interface CitationSupport {
  /** The sentence as a reader sees it: Markdown markup and citation links removed, whitespace collapsed. */
  sentence: string;
  sourceId: number;
  verdict: SupportVerdict;
  /** Share of the sentence's terms found in the source (0..1, 3 decimals). */
  score: number;
  /** Sentence terms (stemmed) found in the source, in sentence order. */
  matchedTerms: string[];
  /** Numbers of the sentence that the source's claim and evidence do not contain, in sentence order. */
  missingNumbers: string[];
}

export const SUPPORTED_MIN_SCORE = 0.5;
export const PARTIAL_MIN_SCORE = 0.25;

/** Assesses every numeric citation of a report against the cited source's recorded claim and evidence. */
export function assessCitationSupport(reportMarkdown: string, sources: readonly ResearchSource[]): CitationSupport[] {
  const blanked = blankCode(reportMarkdown);
  const citations = locateCitations(reportMarkdown, blanked);
  const sentences = splitSentences(blanked, citations);
  const evidenceById = new Map<number, SourceEvidence | null>();
  return citations.map((citation) => {
    const sentence = sentences[sentenceOf(blanked, citation, sentences, citations)];
    const display = sentence ? cleanSentence(reportMarkdown, sentence, citations) : "";
    const analysed = sentence ? analyse(cleanSentence(blanked, sentence, citations)) : analyse("");
    if (!evidenceById.has(citation.n)) evidenceById.set(citation.n, sourceEvidence(citation.n, sources));
    const evidence = evidenceById.get(citation.n) ?? null;
    return assess(display, citation.n, analysed, evidence);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------------------------------------

interface Analysed {
  /** Unique terms (stemmed words and numbers) in order of appearance. */
  terms: string[];
  /** Unique numbers in order of appearance. */
  numbers: string[];
}

interface SourceEvidence {
  terms: Set<string>;
  numbers: Set<string>;
}

function sourceEvidence(id: number, sources: readonly ResearchSource[]): SourceEvidence | null {
  const cited = sources.filter((source) => source.id === id);
  const claims = cited
    .map((s) => `${s.claim}\n${s.evidence}`)
    .filter((text) => text.trim() !== "")
    .sort();
  if (claims.length === 0) return null;
  const titles = cited.map((s) => s.title).sort();
  const body = analyse(claims.join("\n"));
  return {
    terms: new Set([...body.terms, ...analyse(titles.join("\n")).terms]),
    numbers: new Set(body.numbers),
  };
}

function assess(sentence: string, sourceId: number, analysed: Analysed, evidence: SourceEvidence | null): CitationSupport {
  if (evidence === null) {
    return { sentence, sourceId, verdict: "no-evidence", score: 0, matchedTerms: [], missingNumbers: analysed.numbers };
  }
  const matchedTerms = analysed.terms.filter((term) => evidence.terms.has(term) || evidence.numbers.has(term));
  const missingNumbers = analysed.numbers.filter((number) => !evidence.numbers.has(number));
  const score = analysed.terms.length === 0 ? 0 : Math.round((matchedTerms.length / analysed.terms.length) * 1000) / 1000;
  let verdict: SupportVerdict = "unsupported";
  if (score >= SUPPORTED_MIN_SCORE && missingNumbers.length === 0) verdict = "supported";
  else if (score >= PARTIAL_MIN_SCORE) verdict = "partial";
  return { sentence, sourceId, verdict, score, matchedTerms, missingNumbers };
}

const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are aren as at be because been before being below " +
    "between both but by can cannot could did do does doing don down during each either else etc even ever few for " +
    "from further had has have having he her here hers herself him himself his how however i if in into is isn it " +
    "its itself just least less let like many may me might more most much must my myself neither no nor not now of " +
    "off often on once one only or other others otherwise our ours ourselves out over own per rather same shall she " +
    "should since so some such than that the their theirs them themselves then there therefore these they this " +
    "those though through thus to too toward towards under until up upon us very via was wasn we were weren what " +
    "when where whether which while who whom whose why will with within without would yet you your yours yourself " +
    "yourselves according based see"
  ).split(" "),
);

const NUMBER = /(?<![\p{L}\p{N}.,])\d+(?:[.,]\d+)*(?![\p{L}\p{N}])/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** Terms and numbers of a text (see the file header). */
export function analyse(text: string): Analysed {
  const plain = text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/['’]s\b/g, "");
  const numbers = [...plain.matchAll(NUMBER)].map((m) => ({ at: m.index, term: normalizeNumber(m[0]) }));
  const words: { at: number; term: string }[] = [];
  // Numbers are masked (same length) so that "3.5" is not read as the words "3" and "5".
  const masked = plain.replace(NUMBER, (m) => " ".repeat(m.length));
  for (const match of masked.matchAll(WORD)) {
    const word = match[0];
    if (word.length < 2 || STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
    words.push({ at: match.index, term: stem(word) });
  }
  // Numbers count as terms too, at their place in the text.
  const terms = [...numbers, ...words].sort((a, b) => a.at - b.at).map((item) => item.term);
  return { terms: unique(terms), numbers: unique(numbers.map((n) => n.term)) };
}

function normalizeNumber(text: string): string {
  return /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(text) ? text.replace(/,/g, "") : text;
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** A light suffix stemmer: enough to match "supports", "supported" and "supporting". */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  let w = word;
  let stripped = false;
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (!(w.endsWith("ss") || w.endsWith("us") || w.endsWith("is"))) {
    if (/(s|x|z|ch|sh)es$/.test(w) && w.length > 4) {
      w = w.slice(0, -2);
      stripped = true;
    } else {
      for (const suffix of ["ingly", "edly", "ing", "ed", "ly", "s"]) {
        if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
          w = w.slice(0, -suffix.length);
          stripped = true;
          break;
        }
      }
    }
  }
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  if (stripped && w.length > 3 && /([b-df-hj-km-np-rtv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  return w;
}

// ---------------------------------------------------------------------------------------------------------
// Citations and sentences
// ---------------------------------------------------------------------------------------------------------

interface LocatedCitation {
  n: number;
  start: number;
  end: number;
}

interface SentenceSpan {
  start: number;
  end: number;
  block: number;
}

/** Positions of the numeric citations (extractNumericCitations gives them in order, without positions). */
function locateCitations(markdown: string, blanked: string): LocatedCitation[] {
  const located: LocatedCitation[] = [];
  let from = 0;
  for (const link of extractNumericCitations(markdown)) {
    let at = blanked.indexOf(link.text, from);
    while (at !== -1 && (blanked[at - 1] === "!" || isEscaped(blanked, at))) at = blanked.indexOf(link.text, at + 1);
    if (at === -1) continue;
    located.push({ n: link.n, start: at, end: at + link.text.length });
    from = at + link.text.length;
  }
  return located;
}

function isEscaped(text: string, index: number): boolean {
  let slashes = 0;
  for (let j = index - 1; j >= 0 && text[j] === "\\"; j--) slashes++;
  return slashes % 2 === 1;
}

const ABBREVIATIONS = new Set([
  "e.g",
  "i.e",
  "eg",
  "ie",
  "etc",
  "vs",
  "al",
  "fig",
  "figs",
  "no",
  "nos",
  "dr",
  "mr",
  "mrs",
  "ms",
  "prof",
  "st",
  "approx",
  "cf",
  "inc",
  "ltd",
  "jr",
  "sr",
  "vol",
  "pp",
  "ed",
  "eds",
  "ca",
  "resp",
]);

const BLOCK_START = /^ {0,3}(#{1,6}\s|>|[-*+]\s|\d{1,9}[.)]\s|\|)/;

function splitSentences(text: string, citations: readonly LocatedCitation[]): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let block = 0;
  let start = 0;
  const close = (end: number, next: number): void => {
    const body = text.slice(start, end);
    const lead = body.length - body.trimStart().length;
    if (body.trim() !== "") spans.push({ start: start + lead, end: end - (body.length - body.trimEnd().length), block });
    start = next;
  };
  let c = 0;
  for (let i = 0; i < text.length; i++) {
    while (c < citations.length && (citations[c]?.end ?? 0) <= i) c += 1;
    const citation = citations[c];
    if (citation && citation.start <= i) {
      i = citation.end - 1;
      continue;
    }
    const ch = text[i];
    if (ch === "\n") {
      const lineEnd = text.indexOf("\n", i + 1);
      const line = text.slice(i + 1, lineEnd === -1 ? text.length : lineEnd);
      if (line.trim() === "" || BLOCK_START.test(line)) {
        close(i, i + 1);
        block += 1;
      }
      continue;
    }
    if (ch !== "." && ch !== "!" && ch !== "?") continue;
    let j = i + 1;
    while (j < text.length && /["'”’)\]*_]/.test(text[j] ?? "")) j += 1;
    // Citations glued to the end ("stripes.[1](u)") still belong to this sentence.
    for (let glued = citations.find((x) => x.start === j); glued; glued = citations.find((x) => x.start === j)) {
      j = glued.end;
    }
    if (j < text.length && !/\s/.test(text[j] ?? "")) continue;
    if (ch === "." && isAbbreviation(text.slice(start, i))) continue;
    close(j, j);
    i = j - 1;
  }
  close(text.length, text.length);
  return spans;
}

function isAbbreviation(before: string): boolean {
  const word = /([A-Za-z.]+)$/.exec(before)?.[1] ?? "";
  if (word === "") return false;
  if (/^[A-Z]$/.test(word)) return true;
  return ABBREVIATIONS.has(word.toLowerCase().replace(/^\.+/, ""));
}

/**
 * The index of the sentence a citation belongs to: the sentence holding it, or the previous sentence of the
 * same block when only whitespace and other citations stand before it in its own.
 */
function sentenceOf(
  text: string,
  citation: LocatedCitation,
  sentences: readonly SentenceSpan[],
  citations: readonly LocatedCitation[],
): number {
  const index = sentences.findIndex((s) => citation.start >= s.start && citation.start < s.end);
  const sentence = sentences[index];
  const previous = sentences[index - 1];
  if (!sentence || !previous || previous.block !== sentence.block) return index;
  let at = sentence.start;
  for (const other of citations) {
    if (other.start >= citation.start) break;
    if (other.end <= at) continue;
    if (text.slice(at, other.start).trim() !== "") return index;
    at = other.end;
  }
  return text.slice(at, citation.start).trim() === "" ? index - 1 : index;
}

/** The sentence's text without citation links and Markdown markup. */
function cleanSentence(text: string, span: SentenceSpan, citations: readonly LocatedCitation[]): string {
  let out = "";
  let at = span.start;
  for (const citation of citations) {
    if (citation.end <= span.start || citation.start >= span.end) continue;
    out += `${text.slice(at, Math.max(at, citation.start))} `;
    at = Math.max(at, citation.end);
  }
  out += text.slice(at, span.end);
  return out
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^ {0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d{1,9}[.)]\s+)/gm, "")
    .replace(/\*\*|__|~~/g, "")
    .replace(/(^|\s)[*_]+|[*_]+(?=\s|$|[.,;:!?])/g, "$1")
    .replace(/\|/g, " ")
    .replace(/\s+/g, " ")
    .replace(/\s+([.,;:!?])/g, "$1")
    .trim();
}
