/**
 * Reading traces (spec "Trace routes", "Trace errors"), pure: the list and detail queries checked with the spec's
 * messages, and stored records turned into the spec's shapes with the read limits:
 * - text fields (input, output, a score's comment) are clipped to READ_FIELD_BYTES; a clipped record carries
 *   `readTruncation.fields` and `.fieldBytes` (the full sizes);
 * - a detail's collections share READ_BUDGET_BYTES (their items' JSON sizes): scores take up to SCORE_BUDGET_BYTES
 *   first, observations the rest; a page stops early when the next item does not fit. A collection with more
 *   items left (or a clipped item) is `truncated`; an incomplete one also sets the trace's
 *   `readTruncation.observations` / `.scores`.
 */
import { clipUtf8, utf8Length } from "../utf8-text.ts";
import type { ObservationRecord, TraceRecord } from "./trace-records.ts";
import {
  type ReadTruncation,
  type Trace,
  type TraceChild,
  type TraceCollectionPage,
  type TraceObservation,
  type TraceScore,
  type TraceStatus,
  type TraceSummary,
  type TraceUsage,
  TRACE_ID_PATTERN,
  TRACE_STATUSES,
} from "./trace-types.ts";
import { addUsage } from "./trace-records.ts";

export const READ_FIELD_BYTES = 32 * 1024;
export const READ_BUDGET_BYTES = 8 * 1024 * 1024;
export const SCORE_BUDGET_BYTES = 2 * 1024 * 1024;
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;
export const MAX_QUERY_CHARS = 2048;
export const MAX_QUERY_TERMS = 32;
export const MAX_FILTER_CHARS = 4096;

export const TRACE_MESSAGES = {
  invalidRequest: "Invalid trace request",
  invalidStatus: "Invalid trace status",
  invalidId: "Invalid trace identifier",
  notFound: "Trace not found",
  enabled: "enabled must be a boolean",
  bookmarked: "bookmarked must be a boolean",
  unavailable: "Tracing is unavailable. Check the backend log.",
  settings: "Could not read or save trace settings. Check the backend log.",
  shuttingDown: "Tracing is shutting down.",
} as const;

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const POSITIVE = /^[1-9][0-9]*$/;
const NON_NEGATIVE = /^(0|[1-9][0-9]*)$/;

function positiveInteger(raw: string | undefined, fallback: number, name: string): Checked<number> {
  if (raw === undefined) return { ok: true, value: fallback };
  const value = POSITIVE.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(value) ? { ok: true, value } : { ok: false, error: `${name} must be a positive integer` };
}

function nonNegativeInteger(raw: string | undefined, name: string): Checked<number> {
  if (raw === undefined) return { ok: true, value: 0 };
  const value = NON_NEGATIVE.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(value) ? { ok: true, value } : { ok: false, error: `${name} must be a non-negative integer` };
}

export interface ListQueryInput {
  sessionId?: string;
  cwd?: string;
  q?: string;
  status?: string;
  page?: string;
  limit?: string;
}

export interface ListQuery {
  sessionId?: string;
  cwd?: string;
  status?: TraceStatus;
  terms: string[];
  page: number;
  limit: number;
  offset: number;
}

/** The search's terms: whitespace-separated, lower-cased. */
export function searchTerms(q: string): string[] {
  return q
    .trim()
    .split(/\s+/u)
    .filter((term) => term !== "")
    .map((term) => term.toLowerCase());
}

export function checkListQuery(input: ListQueryInput): Checked<ListQuery> {
  for (const value of [input.sessionId, input.cwd, input.status]) {
    if (value !== undefined && value.length > MAX_FILTER_CHARS) return { ok: false, error: TRACE_MESSAGES.invalidRequest };
  }
  const q = input.q ?? "";
  const terms = searchTerms(q);
  if (q.length > MAX_QUERY_CHARS || terms.length > MAX_QUERY_TERMS) return { ok: false, error: TRACE_MESSAGES.invalidRequest };
  const status = input.status ?? "";
  if (status !== "" && !(TRACE_STATUSES as readonly string[]).includes(status)) return { ok: false, error: TRACE_MESSAGES.invalidStatus };
  const page = positiveInteger(input.page, 1, "page");
  if (!page.ok) return page;
  const limit = positiveInteger(input.limit, DEFAULT_LIST_LIMIT, "limit");
  if (!limit.ok) return limit;
  const clamped = Math.min(limit.value, MAX_PAGE_LIMIT);
  const offset = (page.value - 1) * clamped;
  if (!Number.isSafeInteger(offset)) return { ok: false, error: "page must be a positive integer" };
  return {
    ok: true,
    value: {
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      ...(input.cwd ? { cwd: input.cwd } : {}),
      ...(status !== "" ? { status: status as TraceStatus } : {}),
      terms,
      page: page.value,
      limit: clamped,
      offset,
    },
  };
}

export interface DetailQueryInput {
  observationOffset?: string;
  observationLimit?: string;
  scoreOffset?: string;
  scoreLimit?: string;
}

export interface DetailQuery {
  observationOffset: number;
  observationLimit: number;
  scoreOffset: number;
  scoreLimit: number;
}

export function checkTraceId(id: string): Checked<string> {
  return TRACE_ID_PATTERN.test(id) ? { ok: true, value: id } : { ok: false, error: TRACE_MESSAGES.invalidId };
}

export function checkDetailQuery(input: DetailQueryInput): Checked<DetailQuery> {
  const observationOffset = nonNegativeInteger(input.observationOffset, "observationOffset");
  if (!observationOffset.ok) return observationOffset;
  const observationLimit = positiveInteger(input.observationLimit, MAX_PAGE_LIMIT, "observationLimit");
  if (!observationLimit.ok) return observationLimit;
  const scoreOffset = nonNegativeInteger(input.scoreOffset, "scoreOffset");
  if (!scoreOffset.ok) return scoreOffset;
  const scoreLimit = positiveInteger(input.scoreLimit, MAX_PAGE_LIMIT, "scoreLimit");
  if (!scoreLimit.ok) return scoreLimit;
  return {
    ok: true,
    value: {
      observationOffset: observationOffset.value,
      observationLimit: Math.min(observationLimit.value, MAX_PAGE_LIMIT),
      scoreOffset: scoreOffset.value,
      scoreLimit: Math.min(scoreLimit.value, MAX_PAGE_LIMIT),
    },
  };
}

/** Clips the named text fields; `sizes` gives a field's full size when the text at hand is already cut. */
function clipRecordFields<T extends object>(
  record: T,
  fields: readonly (keyof T & string)[],
  sizes: Partial<Record<string, number>> = {},
): { record: T; truncation: ReadTruncation | undefined } {
  const out = { ...record } as Record<string, unknown>;
  const clipped: string[] = [];
  const fieldBytes: Record<string, number> = {};
  for (const field of fields) {
    const value = out[field];
    if (typeof value !== "string") continue;
    const result = clipUtf8(value, READ_FIELD_BYTES);
    const full = Math.max(sizes[field] ?? 0, result.bytes);
    if (result.clipped || full > READ_FIELD_BYTES) {
      out[field] = result.text;
      clipped.push(field);
      fieldBytes[field] = full;
    }
  }
  return { record: out as T, truncation: clipped.length > 0 ? { fields: clipped, fieldBytes } : undefined };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}

/** The trace's latency: to its end, or to the latest capture while it runs. */
function latencyOf(record: TraceRecord): number {
  return seconds((record.endMs ?? record.updatedMs) - record.startMs);
}

export function traceSummaryOf(record: TraceRecord): TraceSummary {
  return {
    id: record.id,
    source: "pi",
    status: record.status,
    revision: record.revision,
    name: record.name,
    timestamp: iso(record.startMs),
    environment: record.environment,
    userId: record.userId,
    sessionId: record.sessionId,
    latency: latencyOf(record),
    totalTokens: record.usage.totalTokens,
    inputTokens: record.usage.inputTokens,
    outputTokens: record.usage.outputTokens,
    cost: record.usage.cost,
    level: record.level,
    tags: record.tags,
    bookmarked: record.bookmarked,
    model: record.model,
    version: record.version,
    metadata: {
      cwd: record.cwd,
      sessionName: record.sessionName,
      sessionFile: record.sessionFile,
      branchId: null,
      startEntryId: record.startEntryId,
      endEntryId: record.endEntryId,
      userEntryId: record.userEntryId,
      parentSessionFile: record.parentSessionFile,
      parent: record.parent,
    },
  };
}

/** A stored observation as read (times relative to the trace start); `sizes`: full sizes of pre-cut texts. */
export function observationOf(
  record: ObservationRecord,
  traceStartMs: number,
  sizes: Partial<Record<"input" | "output", number>> = {},
): TraceObservation {
  const base: TraceObservation = {
    id: record.id,
    parentId: record.parentId,
    name: record.name,
    type: record.type,
    startTime: seconds(record.startMs - traceStartMs),
    duration: record.endMs === null ? null : seconds(record.endMs - record.startMs),
    level: record.level,
    status: record.status,
    model: record.model,
    input: record.input,
    output: record.output,
    inputTokens: record.usage.inputTokens,
    outputTokens: record.usage.outputTokens,
    cost: record.usage.cost,
    metadata: {
      ...record.metadata,
      ...(record.statusMessage !== null ? { statusMessage: record.statusMessage } : {}),
      ...(record.toolCallId !== null ? { toolCallId: record.toolCallId } : {}),
      ...(record.entryId !== null ? { entryId: record.entryId } : {}),
      totalTokens: record.usage.totalTokens,
    },
  };
  const { record: clipped, truncation } = clipRecordFields(base, ["input", "output"], sizes);
  return truncation !== undefined ? { ...clipped, readTruncation: truncation } : clipped;
}

export function scoreOf(score: TraceScore): TraceScore {
  const { record, truncation } = clipRecordFields(score, ["comment"]);
  return truncation !== undefined ? { ...record, readTruncation: truncation } : record;
}

function itemBytes(item: unknown): number {
  return utf8Length(JSON.stringify(item));
}

/** Takes items while they fit the budget; answers them, the bytes used, and whether one was clipped. */
function takeWithin<T extends { readTruncation?: ReadTruncation }>(
  items: readonly T[],
  budget: number,
): { taken: T[]; used: number; clipped: boolean } {
  const taken: T[] = [];
  let used = 0;
  let clipped = false;
  for (const item of items) {
    const size = itemBytes(item);
    if (used + size > budget) break;
    taken.push(item);
    used += size;
    clipped ||= item.readTruncation?.fields !== undefined;
  }
  return { taken, used, clipped };
}

function page(total: number, offset: number, limit: number, count: number, clipped: boolean): TraceCollectionPage {
  const end = offset + count;
  const nextOffset = end < total ? end : null;
  return { total, offset, limit, nextOffset, truncated: nextOffset !== null || clipped };
}

export interface DetailParts {
  record: TraceRecord;
  observations: { items: TraceObservation[]; total: number; offset: number; limit: number };
  scores: { items: TraceScore[]; total: number; offset: number; limit: number };
  children: TraceChild[];
  descendants: TraceUsage;
}

export function traceDetailOf(parts: DetailParts): Trace {
  const { record } = parts;
  const summary = traceSummaryOf(record);
  const scores = takeWithin(parts.scores.items, SCORE_BUDGET_BYTES);
  const observations = takeWithin(parts.observations.items, READ_BUDGET_BYTES - scores.used);
  const observationPage = page(
    parts.observations.total,
    parts.observations.offset,
    parts.observations.limit,
    observations.taken.length,
    observations.clipped,
  );
  const scorePage = page(parts.scores.total, parts.scores.offset, parts.scores.limit, scores.taken.length, scores.clipped);
  const { record: texts, truncation } = clipRecordFields({ input: record.input, output: record.output }, ["input", "output"]);
  const readTruncation: ReadTruncation = {
    ...(truncation ?? {}),
    ...(observationPage.nextOffset !== null ? { observations: true } : {}),
    ...(scorePage.nextOffset !== null ? { scores: true } : {}),
  };
  return {
    ...summary,
    input: texts.input,
    output: texts.output,
    metadata: {
      ...record.metadata,
      ...summary.metadata,
      ...(record.agent !== null ? { agent: record.agent } : {}),
      ...(record.statusMessage !== null ? { statusMessage: record.statusMessage } : {}),
      usage: { own: record.usage, descendants: parts.descendants, total: addUsage(record.usage, parts.descendants) },
      children: parts.children,
    },
    observations: observations.taken,
    scores: scores.taken,
    pagination: { observations: observationPage, scores: scorePage },
    ...(Object.keys(readTruncation).length > 0 ? { readTruncation } : {}),
  };
}
