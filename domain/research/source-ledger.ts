/**
 * The source ledger: the research session's numbered sources (spec/deep-research.md, "Source registration
 * and citation checks").
 *
 * - A source needs an http(s) URL or a non-empty path.
 * - Identity is the canonical key: `url:<canonical URL>` (WHATWG parsing, fragment removed, one trailing
 *   slash of a non-root path removed, query kept), else `path:<path without one leading "./">`.
 *   When a source has a usable URL its key is the URL key, even if it also has a path.
 * - Ids are positive integers, stable and never reused: a source keeps its id through merges and
 *   exclusion; a new source keeps its incoming `id` when no other source holds it, otherwise it gets
 *   (highest id in the ledger) + 1. Sources are never removed, so the highest id in the ledger is the
 *   highest id ever assigned.
 * - Registration (`registerSources`, the automatic path for worker results and the lead's `sources`
 *   action) takes at most 20 sources of one result and keeps at most 60 unique sources per session;
 *   everything it does not take is reported by index with a reason.
 * - Registration merges into an existing source with the same key by filling its empty fields and
 *   adding thread ids; it never changes the existing source's id or exclusion. A `source` event in the
 *   fold instead overrides with every non-empty incoming field (the event carries the merged record).
 *
 * All functions are pure and return new objects.
 */
import { cleanText, isRecord, positiveId, TEXT_LIMITS, uniqueStrings } from "./research-normalize.ts";
import { RESEARCH_SOURCE_STATUSES, type ResearchSource, type ResearchSourceInput, type ResearchSourceStatus } from "./research-types.ts";

export const MAX_SOURCES_PER_RESULT = 20;
export const MAX_SOURCES_PER_SESSION = 60;

export interface SourceLimits {
  /** Sources taken from one worker result (by position); default 20. */
  perResult: number;
  /** Unique sources a research session retains; default 60. */
  perSession: number;
}

export const DEFAULT_SOURCE_LIMITS: SourceLimits = {
  perResult: MAX_SOURCES_PER_RESULT,
  perSession: MAX_SOURCES_PER_SESSION,
};

// ---------------------------------------------------------------------------------------------------------
// Canonical keys
// ---------------------------------------------------------------------------------------------------------

function parseHttpUrl(raw: unknown): URL | null {
  if (typeof raw !== "string") return null;
  const text = raw.trim();
  if (!text || text.length > TEXT_LIMITS.location) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url : null;
}

/** The parsed form of an http(s) URL as stored in the ledger (fragment kept), or "" when not usable. */
export function storedSourceUrl(raw: unknown): string {
  return parseHttpUrl(raw)?.href ?? "";
}

/**
 * The canonical form of an http(s) URL: standard parsing, fragment removed, one trailing slash of a
 * non-root path removed, query kept. Null when the text is not an http(s) URL.
 */
export function canonicalUrl(raw: unknown): string | null {
  const url = parseHttpUrl(raw);
  if (!url) return null;
  url.hash = "";
  if (url.pathname.length > 1 && url.pathname.endsWith("/")) {
    url.pathname = url.pathname.slice(0, -1);
  }
  return url.href;
}

/** A source path as compared: trimmed, without one leading "./". "" when empty. */
export function normalizeSourcePath(raw: unknown): string {
  const path = cleanText(raw, TEXT_LIMITS.location);
  return path.startsWith("./") ? path.slice(2).trim() : path;
}

/** The canonical ledger key of a source, or null when it has neither an http(s) URL nor a path. */
export function sourceKey(source: { url?: unknown; path?: unknown }): string | null {
  const url = canonicalUrl(source.url);
  if (url !== null) return `url:${url}`;
  const path = normalizeSourcePath(source.path);
  return path ? `path:${path}` : null;
}

// ---------------------------------------------------------------------------------------------------------
// Source input validation
// ---------------------------------------------------------------------------------------------------------

/** A validated, cleaned source input: the ledger's unit of registration and of `source` events. */
export interface SourceCandidate {
  key: string;
  requestedId: number | null;
  url: string;
  path: string;
  title: string;
  publisher: string;
  publishedAt: string;
  kind: string;
  /** `excluded` excludes, another valid status un-excludes (event override only), null leaves it. */
  status: ResearchSourceStatus | null;
  threadIds: string[];
  claim: string;
  evidence: string;
  exclusionReason: string;
}

export type SourceCandidateResult = { ok: true; candidate: SourceCandidate } | { ok: false; reason: string };

/** Validates one source input (any JSON value); `threadId` is added to its thread ids. */
export function sourceCandidate(raw: unknown, threadId = ""): SourceCandidateResult {
  if (!isRecord(raw)) return { ok: false, reason: "a source must be an object" };
  const key = sourceKey(raw);
  if (key === null) return { ok: false, reason: "a source needs an http(s) url or a non-empty path" };
  const status = RESEARCH_SOURCE_STATUSES.find((s) => s === raw["status"]) ?? null;
  const threadIds = uniqueStrings(
    [...(Array.isArray(raw["threadIds"]) ? raw["threadIds"] : []), raw["threadId"], threadId],
    TEXT_LIMITS.threadId,
  );
  return {
    ok: true,
    candidate: {
      key,
      requestedId: positiveId(raw["id"]),
      url: storedSourceUrl(raw["url"]),
      path: cleanText(raw["path"], TEXT_LIMITS.location),
      title: cleanText(raw["title"], TEXT_LIMITS.sourceTitle),
      publisher: cleanText(raw["publisher"], TEXT_LIMITS.publisher),
      publishedAt: cleanText(raw["publishedAt"], TEXT_LIMITS.publishedAt),
      kind: cleanText(raw["kind"], TEXT_LIMITS.sourceKind),
      status,
      threadIds,
      claim: cleanText(raw["claim"], TEXT_LIMITS.claim),
      evidence: cleanText(raw["evidence"], TEXT_LIMITS.evidence),
      exclusionReason: cleanText(raw["exclusionReason"], TEXT_LIMITS.exclusionReason),
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Ledger operations on plain source arrays
// ---------------------------------------------------------------------------------------------------------

/** The next id a new source without a free incoming id gets: highest id + 1 (1 for an empty ledger). */
export function nextSourceId(sources: readonly ResearchSource[]): number {
  let max = 0;
  for (const source of sources) if (source.id > max) max = source.id;
  return max + 1;
}

function newSource(candidate: SourceCandidate, sources: readonly ResearchSource[]): ResearchSource {
  const requested = candidate.requestedId;
  const id = requested !== null && !sources.some((s) => s.id === requested) ? requested : nextSourceId(sources);
  return {
    id,
    key: candidate.key,
    url: candidate.url,
    path: candidate.path,
    title: candidate.title || candidate.url || candidate.path || `Source ${id}`,
    publisher: candidate.publisher,
    publishedAt: candidate.publishedAt,
    kind: candidate.kind || (candidate.url ? "web" : "file"),
    status: candidate.status === "excluded" ? "excluded" : "candidate",
    threadIds: candidate.threadIds,
    claim: candidate.claim,
    evidence: candidate.evidence,
    exclusionReason: candidate.exclusionReason,
  };
}

function pick(mode: "fill" | "override", existing: string, incoming: string): string {
  if (mode === "fill") return existing || incoming;
  return incoming || existing;
}

function mergeSource(existing: ResearchSource, candidate: SourceCandidate, mode: "fill" | "override"): ResearchSource {
  let status = existing.status;
  if (mode === "override" && candidate.status !== null) {
    status = candidate.status === "excluded" ? "excluded" : "candidate";
  }
  return {
    ...existing,
    url: pick(mode, existing.url, candidate.url),
    path: pick(mode, existing.path, candidate.path),
    title: pick(mode, existing.title, candidate.title),
    publisher: pick(mode, existing.publisher, candidate.publisher),
    publishedAt: pick(mode, existing.publishedAt, candidate.publishedAt),
    kind: pick(mode, existing.kind, candidate.kind),
    status,
    threadIds: uniqueStrings([...existing.threadIds, ...candidate.threadIds], TEXT_LIMITS.threadId),
    claim: pick(mode, existing.claim, candidate.claim),
    evidence: pick(mode, existing.evidence, candidate.evidence),
    exclusionReason: pick(mode, existing.exclusionReason, candidate.exclusionReason),
  };
}

/**
 * Inserts or merges one candidate into a ledger (no limits). Returns the new ledger (sorted by id),
 * the source's id, and whether it merged into an existing source.
 */
export function upsertSource(
  sources: readonly ResearchSource[],
  candidate: SourceCandidate,
  mode: "fill" | "override",
): { sources: ResearchSource[]; id: number; merged: boolean } {
  const index = sources.findIndex((s) => s.key === candidate.key);
  const existing = index === -1 ? undefined : sources[index];
  if (existing) {
    const next = sources.slice();
    next[index] = mergeSource(existing, candidate, mode);
    return { sources: next, id: existing.id, merged: true };
  }
  const created = newSource(candidate, sources);
  return { sources: sortById([...sources, created]), id: created.id, merged: false };
}

function sortById(sources: ResearchSource[]): ResearchSource[] {
  return sources.sort((a, b) => a.id - b.id);
}

/** Sets each source's displayed status: excluded if excluded, else cited if its id is cited, else candidate. */
export function deriveSourceStatuses(sources: readonly ResearchSource[], citedSourceIds: readonly number[]): ResearchSource[] {
  const cited = new Set(citedSourceIds);
  return sources.map((source) => {
    const status: ResearchSourceStatus = source.status === "excluded" ? "excluded" : cited.has(source.id) ? "cited" : "candidate";
    return status === source.status ? source : { ...source, status };
  });
}

// ---------------------------------------------------------------------------------------------------------
// Registration and exclusion on a state that holds a ledger
// ---------------------------------------------------------------------------------------------------------

export interface LedgerHolder {
  readonly sources: readonly ResearchSource[];
  readonly citedSourceIds?: readonly number[];
}

export type SourceRejectionCode = "invalid" | "result-limit" | "session-limit";

export interface SourceRejection {
  /** Position of the source in the registered list. */
  index: number;
  code: SourceRejectionCode;
  reason: string;
}

export interface SourceRegistrationReport {
  /** Ids of new sources, in input order. */
  added: number[];
  /** Ids of existing sources that absorbed an input (each id once), in input order. */
  merged: number[];
  /** Every input not registered, with its position and reason (invalid, or over a limit). */
  rejected: SourceRejection[];
  /** How many valid-or-not inputs were left out because of the per-result or per-session limit. */
  overLimit: number;
}

/**
 * Registers a list of sources (a worker result or the lead's `sources` action) for `threadId`.
 * Inputs past `limits.perResult` are not taken; a new source that would take the ledger past
 * `limits.perSession` unique sources is rejected (merges into existing sources are always taken).
 */
export function registerSources<S extends LedgerHolder>(
  state: S,
  threadId: string,
  inputs: readonly unknown[],
  limits: SourceLimits = DEFAULT_SOURCE_LIMITS,
): { state: S; report: SourceRegistrationReport } {
  const report: SourceRegistrationReport = { added: [], merged: [], rejected: [], overLimit: 0 };
  let sources: ResearchSource[] = state.sources.slice();
  const perResult = Math.max(0, Math.floor(limits.perResult));
  const perSession = Math.max(0, Math.floor(limits.perSession));

  inputs.forEach((raw, index) => {
    if (index >= perResult) {
      report.rejected.push({
        index,
        code: "result-limit",
        reason: `only the first ${perResult} sources of one result are registered`,
      });
      report.overLimit += 1;
      return;
    }
    const checked = sourceCandidate(raw, threadId);
    if (!checked.ok) {
      report.rejected.push({ index, code: "invalid", reason: checked.reason });
      return;
    }
    const isNew = !sources.some((s) => s.key === checked.candidate.key);
    if (isNew && sources.length >= perSession) {
      report.rejected.push({
        index,
        code: "session-limit",
        reason: `the research session already holds ${perSession} sources`,
      });
      report.overLimit += 1;
      return;
    }
    const result = upsertSource(sources, checked.candidate, "fill");
    sources = result.sources;
    if (!result.merged) report.added.push(result.id);
    else if (!report.added.includes(result.id) && !report.merged.includes(result.id)) {
      report.merged.push(result.id);
    }
  });

  if (report.added.length === 0 && report.merged.length === 0) return { state, report };
  return {
    state: { ...state, sources: deriveSourceStatuses(sources, state.citedSourceIds ?? []) },
    report,
  };
}

/** Excludes a source with a reason; the id and every other field stay. */
export function excludeSource<S extends LedgerHolder>(
  state: S,
  sourceId: number,
  reason: string,
): { ok: true; state: S; source: ResearchSource } | { ok: false; state: S; error: string } {
  const text = cleanText(reason, TEXT_LIMITS.exclusionReason);
  if (!text) return { ok: false, state, error: "An exclusion needs a reason" };
  const index = state.sources.findIndex((s) => s.id === sourceId);
  const existing = index === -1 ? undefined : state.sources[index];
  if (!existing) return { ok: false, state, error: `Source ${sourceId} is not in the ledger` };
  const source: ResearchSource = { ...existing, status: "excluded", exclusionReason: text };
  const sources = state.sources.slice();
  sources[index] = source;
  return { ok: true, state: { ...state, sources }, source };
}

/** A ledger source as a `source` event payload (the form the extension writes after a change). */
export function sourceEventPayload(source: ResearchSource): ResearchSourceInput {
  return {
    id: source.id,
    ...(source.url ? { url: source.url } : {}),
    ...(source.path ? { path: source.path } : {}),
    title: source.title,
    publisher: source.publisher,
    publishedAt: source.publishedAt,
    kind: source.kind,
    status: source.status,
    threadIds: source.threadIds.slice(),
    claim: source.claim,
    evidence: source.evidence,
    exclusionReason: source.exclusionReason,
  };
}
