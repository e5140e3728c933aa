/**
 * Research mode vocabulary: the DTO shapes of spec/api-reference.md (ResearchSummary, ResearchThread,
 * ResearchSource, ResearchState) and the `leyline-research` events that the fold turns into them.
 *
 * Events are pi `custom` entries `{ type: "custom", customType: "leyline-research", data }` with
 * `data = { version: 1, sessionId, kind, updatedAt?, ...fields of the kind }` (design/architecture.md,
 * "Research event format"). `ResearchEvent` is the decoded, type-checked form of `data`; text is
 * trimmed and bounded by the fold, not by the decoder.
 */

export const RESEARCH_CUSTOM_TYPE = "leyline-research";
export const RESEARCH_EVENT_VERSION = 1;

export const RESEARCH_PHASES = ["plan", "gather", "synthesize", "report"] as const;
export type ResearchPhase = (typeof RESEARCH_PHASES)[number];

export const RESEARCH_STATUSES = ["running", "complete", "error"] as const;
export type ResearchStatus = (typeof RESEARCH_STATUSES)[number];

export const RESEARCH_THREAD_STATUSES = ["queued", "running", "done", "error"] as const;
export type ResearchThreadStatus = (typeof RESEARCH_THREAD_STATUSES)[number];

/** A thread in one of these statuses has finished (successfully or not): `completedThreadCount` counts them. */
export const FINISHED_THREAD_STATUSES: readonly ResearchThreadStatus[] = ["done", "error"];

export const RESEARCH_SOURCE_STATUSES = ["candidate", "cited", "excluded"] as const;
export type ResearchSourceStatus = (typeof RESEARCH_SOURCE_STATUSES)[number];

export const RESEARCH_EVENT_KINDS = ["session", "objective", "plan", "phase", "thread", "source", "report", "error"] as const;
export type ResearchEventKind = (typeof RESEARCH_EVENT_KINDS)[number];

// ---------------------------------------------------------------------------------------------------------
// DTOs (spec/api-reference.md). Field names, types and enums are the contract: do not add or rename fields.
// ---------------------------------------------------------------------------------------------------------

export interface ResearchSummary {
  sessionId: string;
  status: ResearchStatus;
  phase: ResearchPhase;
  objective: string;
  reportTitle: string;
  reportEntryId: string;
  threadCount: number;
  /** Threads that finished, done or error (as existing readers of the `leyline-research` format count them). */
  completedThreadCount: number;
  sourceCount: number;
  citedSourceCount: number;
  excludedSourceCount: number;
  updatedAt: number;
}

export interface ResearchChildSession {
  id: string;
  path: string;
  cwd: string;
}

export interface ResearchThread {
  id: string;
  title: string;
  task: string;
  status: ResearchThreadStatus;
  summary: string;
  sourceIds: number[];
  childSession: ResearchChildSession | null;
  error: string;
  startedAt: number;
  completedAt: number;
}

export interface ResearchSource {
  id: number;
  key: string;
  url: string;
  path: string;
  title: string;
  publisher: string;
  publishedAt: string;
  kind: string;
  status: ResearchSourceStatus;
  threadIds: string[];
  claim: string;
  evidence: string;
  exclusionReason: string;
}

export type ResearchState = ResearchSummary & {
  version: 1;
  strategy: string;
  note: string;
  threads: ResearchThread[];
  sources: ResearchSource[];
  citedSourceIds: number[];
  error: string;
  createdAt: number;
  completedAt: number;
  reportRequestedAt: number;
  lastEventId: string;
};

// ---------------------------------------------------------------------------------------------------------
// Events (decoded `data` of a leyline-research custom entry).
// ---------------------------------------------------------------------------------------------------------

/** A planned thread as the `plan` event (and the research_update tool) carries it. */
export interface ResearchPlanThread {
  id: string;
  title: string;
  task: string;
}

/** A `thread` event's payload: merged field by field into the thread with the same id. */
export interface ResearchThreadUpdate {
  id: string;
  title?: string;
  task?: string;
  status?: ResearchThreadStatus;
  summary?: string;
  sourceIds?: number[];
  childSession?: ResearchChildSession | null;
  error?: string;
  startedAt?: number;
  completedAt?: number;
}

/**
 * A source as a `source` event, the research_update tool or a worker's research_result carries it.
 * It needs an http(s) `url` or a non-empty `path` (see source-ledger.ts).
 */
export interface ResearchSourceInput {
  id?: number;
  url?: string;
  path?: string;
  title?: string;
  publisher?: string;
  publishedAt?: string;
  kind?: string;
  status?: ResearchSourceStatus;
  threadId?: string;
  threadIds?: string[];
  claim?: string;
  evidence?: string;
  exclusionReason?: string;
}

interface ResearchEventBase {
  /** The research session the event belongs to; events of other sessions are ignored. */
  sessionId: string;
  /** Event time in ms since the epoch; when absent the entry timestamp is used. */
  updatedAt?: number;
}

export interface ResearchSessionEvent extends ResearchEventBase {
  kind: "session";
  objective?: string;
}
export interface ResearchObjectiveEvent extends ResearchEventBase {
  kind: "objective";
  objective: string;
}
export interface ResearchPlanEvent extends ResearchEventBase {
  kind: "plan";
  strategy: string;
  threads: ResearchPlanThread[];
}
export interface ResearchPhaseEvent extends ResearchEventBase {
  kind: "phase";
  phase: ResearchPhase;
  status?: "error";
  note?: string;
  /** The report title (set at the report checkpoint). */
  title?: string;
  /** The sources the report intends to cite. */
  citedSourceIds?: number[];
}
export interface ResearchThreadEvent extends ResearchEventBase {
  kind: "thread";
  thread: ResearchThreadUpdate;
}
export interface ResearchSourceEvent extends ResearchEventBase {
  kind: "source";
  source: ResearchSourceInput;
}
export interface ResearchReportEvent extends ResearchEventBase {
  kind: "report";
  /** Entry id of the assistant message holding the report. */
  reportEntryId: string;
  title?: string;
  citedSourceIds?: number[];
}
export interface ResearchErrorEvent extends ResearchEventBase {
  kind: "error";
  message: string;
}

export type ResearchEvent =
  | ResearchSessionEvent
  | ResearchObjectiveEvent
  | ResearchPlanEvent
  | ResearchPhaseEvent
  | ResearchThreadEvent
  | ResearchSourceEvent
  | ResearchReportEvent
  | ResearchErrorEvent;

/** Where an event came from: the id and the time (ms; 0 when unknown) of its entry. */
export interface ResearchEventMeta {
  entryId: string;
  timestampMs: number;
}

/** The `data` object of a leyline-research custom entry, as written. */
export type ResearchEventData = { version: 1 } & ResearchEvent;
