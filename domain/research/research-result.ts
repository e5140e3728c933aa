/**
 * A researcher's final answer ends with one `<research_result>` block (design/architecture.md, "Research
 * tools the models see"):
 *
 *   <research_result>{"threadId", "title", "summary", "sources": [{ url | path, title, publisher,
 *   publishedAt, kind, claim, evidence }]}</research_result>
 *
 * Parsing takes the LAST block of the text (a worker may quote the format earlier; an unclosed block at the
 * very end is accepted when no closed block exists), tolerates a ```json fence inside the block, and needs
 * valid JSON with a non-empty `threadId`. Text is trimmed and bounded with the ledger's TEXT_LIMITS (thread
 * title and summary, and each source field). Every source is kept, in order (an entry that is not an object
 * becomes `{}`, so positions stay those the worker wrote): the ledger (`registerSources`) applies the
 * 20-per-result and 60-per-session limits and reports what it does not take, by position. Only the fields of
 * the format are read: a worker cannot set a source's id, status, thread or exclusion.
 */
import { cleanText, isRecord, TEXT_LIMITS } from "./research-normalize.ts";
import type { ResearchSourceInput } from "./research-types.ts";

export const RESEARCH_RESULT_OPEN = "<research_result>";
export const RESEARCH_RESULT_CLOSE = "</research_result>";

/** The most characters a bounded researcher answer (prose and block) keeps; see `boundedResearchResultText`. */
export const RESEARCH_RESULT_MAX_CHARS = 24_000;

export interface ResearchResult {
  threadId: string;
  title: string;
  summary: string;
  sources: ResearchSourceInput[];
}

export type ResearchResultParse = { ok: true; result: ResearchResult } | { ok: false; error: string };

/** Parses the last `<research_result>` block of a researcher's answer. */
export function parseResearchResult(text: string): ResearchResultParse {
  const block = lastBlock(text);
  if (block === null) return { ok: false, error: "no <research_result> block" };
  let value: unknown;
  try {
    value = JSON.parse(unfence(block.content));
  } catch (error) {
    return { ok: false, error: `research_result is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  return researchResultFromJson(value);
}

/** A result from the block's parsed JSON value. */
export function researchResultFromJson(value: unknown): ResearchResultParse {
  if (!isRecord(value)) return { ok: false, error: "research_result is not a JSON object" };
  const rawId = value["threadId"];
  const threadId = cleanText(typeof rawId === "number" && Number.isFinite(rawId) ? String(rawId) : rawId, TEXT_LIMITS.threadId);
  if (!threadId) return { ok: false, error: "threadId missing" };
  const sources = value["sources"];
  if (sources !== undefined && sources !== null && !Array.isArray(sources)) {
    return { ok: false, error: "sources is not an array" };
  }
  return {
    ok: true,
    result: {
      threadId,
      title: cleanText(value["title"], TEXT_LIMITS.threadTitle),
      summary: cleanText(value["summary"], TEXT_LIMITS.threadSummary),
      sources: (Array.isArray(sources) ? sources : []).map(sourceInput),
    },
  };
}

function sourceInput(raw: unknown): ResearchSourceInput {
  if (!isRecord(raw)) return {};
  const source: ResearchSourceInput = {};
  const fields: [keyof ResearchSourceInput & string, number][] = [
    ["url", TEXT_LIMITS.location],
    ["path", TEXT_LIMITS.location],
    ["title", TEXT_LIMITS.sourceTitle],
    ["publisher", TEXT_LIMITS.publisher],
    ["publishedAt", TEXT_LIMITS.publishedAt],
    ["kind", TEXT_LIMITS.sourceKind],
    ["claim", TEXT_LIMITS.claim],
    ["evidence", TEXT_LIMITS.evidence],
  ];
  for (const [field, max] of fields) {
    const value = raw[field];
    // A year or date written as a number is still a publication date.
    const text = cleanText(field === "publishedAt" && typeof value === "number" && Number.isFinite(value) ? String(value) : value, max);
    if (text) Object.assign(source, { [field]: text });
  }
  return source;
}

interface Block {
  /** Index of the opening tag. */
  start: number;
  /** Index after the closing tag (text length for an unclosed block). */
  end: number;
  content: string;
}

/** The last closed block, else an unclosed block at the end of the text, else null. */
function lastBlock(text: string): Block | null {
  const close = text.lastIndexOf(RESEARCH_RESULT_CLOSE);
  if (close !== -1) {
    const open = text.lastIndexOf(RESEARCH_RESULT_OPEN, close);
    if (open !== -1) {
      return {
        start: open,
        end: close + RESEARCH_RESULT_CLOSE.length,
        content: text.slice(open + RESEARCH_RESULT_OPEN.length, close),
      };
    }
  }
  const open = text.lastIndexOf(RESEARCH_RESULT_OPEN);
  if (open === -1 || (close !== -1 && open < close)) return null;
  return { start: open, end: text.length, content: text.slice(open + RESEARCH_RESULT_OPEN.length) };
}

/** The block's content without a surrounding ``` or ```json fence. */
function unfence(content: string): string {
  const text = content.trim();
  const fenced = /^```[A-Za-z]*[ \t]*\n?([\s\S]*?)\n?```$/.exec(text);
  return fenced ? (fenced[1] ?? "").trim() : text;
}

/**
 * A researcher's answer bounded to RESEARCH_RESULT_MAX_CHARS, keeping its result usable. How a result is
 * bounded:
 * 1. The last block, when it parses, is written again from the parsed result: every text field is already
 *    bounded by TEXT_LIMITS (thread id 32, title 240, summary 2000; per source location 2000, title 500,
 *    claim 1000, evidence 2000, ...), whitespace around values is gone and unknown fields are dropped.
 * 2. If that block alone is still over the limit, sources are dropped from the end until it fits (the ledger
 *    takes only the first 20 of a result anyway) and a line before the block says how many were left out.
 *    A block that does not parse is cut like prose (it stays invalid, and parsing reports why).
 * 3. The prose before the block gets the remaining room: its head is kept and the cut is marked with
 *    "[… N more characters]". Text after the block is dropped (the format puts nothing there).
 * An answer without a block is cut the same way as prose. A text within the limit is returned unchanged.
 */
export function boundedResearchResultText(text: string, maxChars: number = RESEARCH_RESULT_MAX_CHARS): string {
  if (text.length <= maxChars) return text;
  const block = lastBlock(text);
  if (block === null) return cutProse(text, maxChars);
  const parsed = parseResearchResult(text.slice(block.start, block.end));
  if (!parsed.ok) return cutProse(text, maxChars);
  const { serialized, dropped } = boundedBlock(parsed.result, maxChars);
  const note = dropped > 0 ? `[${dropped} source${dropped === 1 ? "" : "s"} left out to bound the research result]\n` : "";
  const tail = `${note}${serialized}`;
  const room = maxChars - tail.length - 2;
  const prose = text.slice(0, block.start).trimEnd();
  const head = room > 0 && prose ? cutProse(prose, room) : "";
  return head ? `${head}\n\n${tail}` : tail;
}

function boundedBlock(result: ResearchResult, maxChars: number): { serialized: string; dropped: number } {
  const write = (sources: ResearchSourceInput[]): string =>
    `${RESEARCH_RESULT_OPEN}${JSON.stringify({ ...result, sources })}${RESEARCH_RESULT_CLOSE}`;
  let kept = result.sources.length;
  let serialized = write(result.sources);
  const noteRoom = 80;
  while (serialized.length > maxChars - noteRoom && kept > 0) {
    kept -= 1;
    serialized = write(result.sources.slice(0, kept));
  }
  return { serialized, dropped: result.sources.length - kept };
}

const MARKER_ROOM = 40;

function cutProse(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const keep = Math.max(0, maxChars - MARKER_ROOM);
  return `${text.slice(0, keep)}\n[… ${text.length - keep} more characters]`;
}
