/**
 * Pure view helpers of the research views (ResearchPanel and its parts): the phase bar's steps, source
 * grouping for the source rail, thread sources for the inspector, the report entry and its optional
 * `researchReport` (citation support verdicts the backend adds to the report message entry:
 * domain/transcript/research-transcript.ts), and the matching of a clicked citation to the support verdict of
 * its sentence. No DOM, no Vue. `researchReport` is read defensively (an older backend sends none).
 */
import {
  RESEARCH_PHASES,
  type ResearchPhase,
  type ResearchSource,
  type ResearchSourceStatus,
  type ResearchState,
  type ResearchStatus,
  type ResearchThread,
  type ResearchThreadStatus,
} from "../../../../domain/research/research-types.ts";
import type { CitationSupport, SupportVerdict } from "../../../../domain/research/citation-support.ts";
import type {
  MessageTranscriptEntry,
  ResearchReportCitation,
  ResearchReportDetails,
  TranscriptEntry,
} from "../../../../domain/transcript/transcript-types.ts";

// ---------------------------------------------------------------------------------------------------------
// Phase bar
// ---------------------------------------------------------------------------------------------------------

export const PHASE_LABELS: Readonly<Record<ResearchPhase, string>> = {
  plan: "Plan",
  gather: "Gather",
  synthesize: "Synthesize",
  report: "Report",
};

/** A phase's position in Plan → Gather → Synthesize → Report (0-based); -1 for an unknown phase. */
export function phaseIndex(phase: string): number {
  return (RESEARCH_PHASES as readonly string[]).indexOf(phase);
}

export type PhaseStepState = "done" | "current" | "upcoming" | "failed";

export interface PhaseStep {
  phase: ResearchPhase;
  label: string;
  state: PhaseStepState;
}

/**
 * The four steps of the phase bar. Steps before the current phase are done; the current one is current
 * while running, done when the research is complete, failed when it stopped with an error; later steps are
 * upcoming.
 */
export function phaseSteps(phase: ResearchPhase, status: ResearchStatus): PhaseStep[] {
  const current = Math.max(0, phaseIndex(phase));
  return RESEARCH_PHASES.map((step, index) => {
    let state: PhaseStepState;
    if (index < current) state = "done";
    else if (index > current) state = "upcoming";
    else if (status === "complete") state = "done";
    else if (status === "error") state = "failed";
    else state = "current";
    return { phase: step, label: PHASE_LABELS[step], state };
  });
}

export const RESEARCH_STATUS_LABELS: Readonly<Record<ResearchStatus, string>> = {
  running: "Running",
  complete: "Complete",
  error: "Failed",
};

// ---------------------------------------------------------------------------------------------------------
// Threads
// ---------------------------------------------------------------------------------------------------------

export const THREAD_STATUS_LABELS: Readonly<Record<ResearchThreadStatus, string>> = {
  queued: "Queued",
  running: "Running",
  done: "Done",
  error: "Failed",
};

/** The sources a thread found: its `sourceIds` plus every source that names the thread, by id. */
export function threadSources(thread: ResearchThread, sources: readonly ResearchSource[]): ResearchSource[] {
  const ids = new Set(thread.sourceIds);
  return sources.filter((source) => ids.has(source.id) || source.threadIds.includes(thread.id)).sort(byId);
}

/** A thread's display title: its title, else its id. */
export function threadTitle(thread: ResearchThread): string {
  return thread.title.trim() !== "" ? thread.title : thread.id;
}

/** The URL of a thread's child session page, or null when the thread has no child session yet. */
export function childSessionHref(thread: ResearchThread): string | null {
  return thread.childSession !== null && thread.childSession.id !== "" ? `/sessions/${encodeURIComponent(thread.childSession.id)}` : null;
}

// ---------------------------------------------------------------------------------------------------------
// Sources
// ---------------------------------------------------------------------------------------------------------

function byId(a: ResearchSource, b: ResearchSource): number {
  return a.id - b.id;
}

export interface SourceGroups {
  cited: ResearchSource[];
  candidate: ResearchSource[];
  excluded: ResearchSource[];
}

/** The ledger by displayed status, each group in id order. */
export function groupSources(sources: readonly ResearchSource[]): SourceGroups {
  const groups: SourceGroups = { cited: [], candidate: [], excluded: [] };
  for (const source of sources) groups[source.status].push(source);
  groups.cited.sort(byId);
  groups.candidate.sort(byId);
  groups.excluded.sort(byId);
  return groups;
}

export const SOURCE_STATUS_LABELS: Readonly<Record<ResearchSourceStatus, string>> = {
  cited: "Cited",
  candidate: "Candidate",
  excluded: "Excluded",
};

/**
 * The sources of the primary "Cited" view: status cited, in the order of the report's `citedSourceIds`
 * (then by id for any cited source the list does not name).
 */
export function citedSources(research: Pick<ResearchState, "sources" | "citedSourceIds">): ResearchSource[] {
  const order = new Map(research.citedSourceIds.map((id, index) => [id, index]));
  const rank = (source: ResearchSource): number => order.get(source.id) ?? Number.MAX_SAFE_INTEGER;
  return research.sources.filter((source) => source.status === "cited").sort((a, b) => rank(a) - rank(b) || a.id - b.id);
}

export function sourceById(sources: readonly ResearchSource[], id: number): ResearchSource | null {
  return sources.find((source) => source.id === id) ?? null;
}

export interface SourceLocation {
  /** What to show: the URL or the path ("" when the source has neither). */
  text: string;
  /** An http(s) link target, else null (paths and anything else are not links). */
  href: string | null;
}

/** Where a source lives: its http(s) URL (a link), else its path (plain text). */
export function sourceLocation(source: Pick<ResearchSource, "url" | "path">): SourceLocation {
  if (source.url !== "") return { text: source.url, href: isHttpUrl(source.url) ? source.url : null };
  return { text: source.path, href: null };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** A source's display title: its title, else its URL's host and path, else its path, else "Source n". */
export function sourceTitle(source: Pick<ResearchSource, "id" | "title" | "url" | "path">): string {
  if (source.title.trim() !== "") return source.title;
  if (source.url !== "" && isHttpUrl(source.url)) {
    const url = new URL(source.url);
    return `${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  }
  if (source.path !== "") return source.path;
  return `Source ${source.id}`;
}

/** The facts line under a source title: publisher, publication date and kind, those that are set. */
export function sourceFacts(source: Pick<ResearchSource, "publisher" | "publishedAt" | "kind">): string {
  return [source.publisher, source.publishedAt, source.kind].filter((part) => part.trim() !== "").join(" · ");
}

// ---------------------------------------------------------------------------------------------------------
// Report entry and citation support
// ---------------------------------------------------------------------------------------------------------

/** The transcript message that holds the report (research.reportEntryId), or null when it is not loaded. */
export function findReportEntry(entries: readonly TranscriptEntry[], reportEntryId: string): MessageTranscriptEntry | null {
  if (reportEntryId === "") return null;
  for (const entry of entries) {
    if (entry.id === reportEntryId && entry.type === "message") return entry;
  }
  return null;
}

export type { SupportVerdict };
export const SUPPORT_VERDICTS: readonly SupportVerdict[] = ["supported", "partial", "unsupported", "no-evidence"];

export const SUPPORT_VERDICT_LABELS: Readonly<Record<SupportVerdict, string>> = {
  supported: "Supported",
  partial: "Partly supported",
  unsupported: "Not supported",
  "no-evidence": "No evidence",
};

/** One cited sentence's check against the evidence of the source it cites (domain/research/citation-support.ts). */
export type SentenceSupport = CitationSupport;

/** What the views use of the `researchReport` a completed report message entry may carry. */
export type ResearchReportView = Pick<ResearchReportDetails, "title" | "citedSourceIds" | "citations" | "support">;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function readSupport(value: unknown): SentenceSupport | null {
  if (!isRecord(value)) return null;
  const { sentence, sourceId, verdict, score } = value;
  if (typeof sentence !== "string" || typeof sourceId !== "number" || !Number.isInteger(sourceId)) return null;
  if (typeof verdict !== "string" || !(SUPPORT_VERDICTS as readonly string[]).includes(verdict)) return null;
  return {
    sentence,
    sourceId,
    verdict: verdict as SupportVerdict,
    score: typeof score === "number" && Number.isFinite(score) ? score : 0,
    matchedTerms: stringList(value["matchedTerms"]),
    missingNumbers: stringList(value["missingNumbers"]),
  };
}

function readCitation(value: unknown): ResearchReportCitation | null {
  if (!isRecord(value)) return null;
  const { number, target, sourceId, valid, reason } = value;
  if (typeof number !== "number" || !Number.isInteger(number) || typeof valid !== "boolean") return null;
  return {
    number,
    target: typeof target === "string" ? target : "",
    sourceId: typeof sourceId === "number" && Number.isInteger(sourceId) ? sourceId : null,
    valid,
    reason: typeof reason === "string" ? reason : "",
  };
}

function readList<T>(value: unknown, read: (item: unknown) => T | null): T[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const read1 = read(item);
    return read1 === null ? [] : [read1];
  });
}

/**
 * The report details of a report message entry (`entry.researchReport`), or null when the entry carries
 * none. Malformed parts are dropped, never thrown on: an older backend simply has no support verdicts.
 */
export function readResearchReport(entry: unknown): ResearchReportView | null {
  if (!isRecord(entry)) return null;
  const report = entry["researchReport"];
  if (!isRecord(report)) return null;
  const ids = Array.isArray(report["citedSourceIds"])
    ? report["citedSourceIds"].filter((id): id is number => typeof id === "number" && Number.isInteger(id))
    : [];
  return {
    title: typeof report["title"] === "string" ? report["title"] : "",
    citedSourceIds: ids,
    citations: readList(report["citations"], readCitation),
    support: readList(report["support"], readSupport),
  };
}

/**
 * The backend's check of the citation link at `index` among the report's rendered citation links (both are
 * in report order), when it names `number`; else the first check of a citation of `number`; null when the
 * report carries no checks for it.
 */
export function citationCheck(citations: readonly ResearchReportCitation[], number: number, index: number): ResearchReportCitation | null {
  const atIndex = citations[index];
  if (atIndex !== undefined && atIndex.number === number) return atIndex;
  return citations.find((citation) => citation.number === number) ?? null;
}

/**
 * Text reduced for comparing a Markdown sentence with rendered text: Markdown links become their text,
 * citation markers (`[3]`, `[[3]]`, a bare citation number left by a rendered link) and punctuation go,
 * case and whitespace are folded.
 */
export function comparableText(text: string): string {
  return text
    .replace(/!?\[((?:\[[^\]]*\]|[^\]])*)\]\([^)]*\)/g, "$1")
    .replace(/\[\[?\d+\]?\]/g, " ")
    .replace(/[`*_~>#]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .toLowerCase();
}

/** Strips the trailing citation numbers a rendered block's text keeps ("... in 2023 1 2" has "1 2"). */
function withoutNumbers(text: string): string {
  return text
    .replace(/\b\d+\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The support verdicts of a clicked citation: those for `sourceId` whose sentence occurs in `context`
 * (the text of the block around the citation), else every verdict for `sourceId`.
 */
export function supportForCitation(support: readonly SentenceSupport[], sourceId: number, context = ""): SentenceSupport[] {
  const forSource = support.filter((item) => item.sourceId === sourceId);
  const around = withoutNumbers(comparableText(context));
  if (around === "" || forSource.length <= 1) return forSource;
  const inContext = forSource.filter((item) => {
    const sentence = withoutNumbers(comparableText(item.sentence));
    return sentence !== "" && around.includes(sentence);
  });
  return inContext.length > 0 ? inContext : forSource;
}

const VERDICT_RANK: Readonly<Record<SupportVerdict, number>> = {
  supported: 0,
  partial: 1,
  "no-evidence": 2,
  unsupported: 3,
};

/** The weakest verdict of a list (unsupported < no evidence < partial < supported), or null when empty. */
export function weakestVerdict(items: readonly Pick<SentenceSupport, "verdict">[]): SupportVerdict | null {
  let weakest: SupportVerdict | null = null;
  for (const item of items) {
    if (weakest === null || VERDICT_RANK[item.verdict] > VERDICT_RANK[weakest]) weakest = item.verdict;
  }
  return weakest;
}

/** How many cited sentences got each verdict. */
export function verdictCounts(support: readonly SentenceSupport[]): Record<SupportVerdict, number> {
  const counts: Record<SupportVerdict, number> = { supported: 0, partial: 0, unsupported: 0, "no-evidence": 0 };
  for (const item of support) counts[item.verdict]++;
  return counts;
}
