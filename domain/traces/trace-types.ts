/**
 * Traces (spec "Trace routes"): every agent run Leyline hosts, captured as it happens, whether or not a view is
 * open. A *trace* is one run of one session (pi's `agent_start` … `agent_end`: a prompt and every turn it caused);
 * its *observations* are the model calls (GENERATION), tool executions (TOOL) and errors (EVENT) inside it. A
 * subagent's run (a researcher, the vision agent) is a trace of its own child session whose `metadata.parent`
 * names the parent trace, session and tool call: the child's usage is counted in the child's trace only, never
 * again in the parent's totals (the detail's `metadata.usage` adds the descendants up, once each).
 *
 * Types and constants only: the worker folds pi's events into writes (trace-capture.ts), the server stores them
 * (adapters/traces), the routes read them (trace-read.ts clips and budgets), the client shows them.
 */

export const TRACE_STATUSES = ["running", "completed", "error", "aborted"] as const;
export type TraceStatus = (typeof TRACE_STATUSES)[number];

export const TRACE_LEVELS = ["DEFAULT", "WARNING", "ERROR"] as const;
export type TraceLevel = (typeof TRACE_LEVELS)[number];

/** GENERATION: one model call; TOOL: one tool execution; EVENT: a point in time (an error, a retry, a compaction). */
export const OBSERVATION_TYPES = ["GENERATION", "TOOL", "EVENT"] as const;
export type ObservationType = (typeof OBSERVATION_TYPES)[number];

/** Trace identifiers (spec: a decoded id must match this). */
export const TRACE_ID_PATTERN = /^[a-zA-Z0-9_.:-]{1,160}$/;

/** Token and cost counts (inputTokens include cache reads and writes, as pi's footer counts them). */
export interface TraceUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cost: number;
}

export interface TraceParent {
  traceId: string | null;
  sessionId: string | null;
  toolCallId: string | null;
}

/** The summary metadata every trace has (spec TraceSummary.metadata). */
export interface TraceSummaryMetadata {
  cwd: string | null;
  sessionName: string | null;
  sessionFile: string | null;
  branchId: string | null;
  startEntryId: string | null;
  endEntryId: string | null;
  userEntryId: string | null;
  parentSessionFile: string | null;
  parent: TraceParent;
}

/** Set on a record whose fields a read shortened (spec "Reads clip text fields to 32 KiB"). */
export interface ReadTruncation {
  /** The shortened fields. */
  fields?: string[];
  /** Each shortened field's full size in bytes (UTF-8). */
  fieldBytes?: Record<string, number>;
  /** Detail only: the observation collection is incomplete (more items, or the read budget ran out). */
  observations?: boolean;
  /** Detail only: the score collection is incomplete. */
  scores?: boolean;
}

export interface TraceSummary {
  id: string;
  source: "pi";
  status: TraceStatus;
  revision: number;
  name: string;
  /** ISO 8601 start time. */
  timestamp: string;
  environment: string;
  userId: string;
  sessionId: string;
  /** Seconds from the start to the end (to the latest capture while running). */
  latency: number;
  totalTokens: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  level: string;
  tags: string[];
  bookmarked: boolean;
  model: string;
  version: string;
  metadata: TraceSummaryMetadata;
  readTruncation?: ReadTruncation;
}

export interface TraceObservation {
  id: string;
  parentId: string | null;
  name: string;
  type: ObservationType;
  /** Seconds from the trace's start. */
  startTime: number;
  /** Seconds; null while it runs. */
  duration: number | null;
  level: TraceLevel;
  status: TraceStatus;
  model: string | null;
  input: string | null;
  output: string | null;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  metadata: Record<string, unknown>;
  readTruncation?: ReadTruncation;
}

export interface TraceScore {
  id: string;
  traceName: string;
  name: string;
  value: number | string | null;
  comment: string | null;
  source: string;
  /** ISO 8601. */
  timestamp: string;
  dataType: "NUMERIC" | "BOOLEAN" | "CATEGORICAL";
  readTruncation?: ReadTruncation;
}

export interface TraceCollectionPage {
  total: number;
  offset: number;
  limit: number;
  nextOffset: number | null;
  truncated: boolean;
}

/** A child run of a trace (detail metadata `children`): a subagent's trace started from one of its tool calls. */
export interface TraceChild {
  traceId: string;
  sessionId: string;
  toolCallId: string | null;
  name: string;
  status: TraceStatus;
  usage: TraceUsage;
}

/** Detail metadata: the summary's, plus capture and usage fields. */
export interface TraceDetailMetadata extends TraceSummaryMetadata {
  /** own: this run's model calls; descendants: every child run's (recursively, each once); total: both. */
  usage: { own: TraceUsage; descendants: TraceUsage; total: TraceUsage };
  children: TraceChild[];
  [key: string]: unknown;
}

export interface Trace extends Omit<TraceSummary, "metadata"> {
  input: string | null;
  output: string | null;
  metadata: TraceDetailMetadata;
  observations: TraceObservation[];
  scores: TraceScore[];
  pagination: { observations: TraceCollectionPage; scores: TraceCollectionPage };
}

export interface TraceList {
  traces: TraceSummary[];
  total: number;
  page: number;
  limit: number;
}

export interface TraceConfig {
  enabled: boolean;
  error?: string;
}

/** The events socket's notices (spec "trace_updated", "trace_config"). */
export interface TraceUpdatedNotice {
  traceId: string;
  sessionId: string;
  revision: number;
  activeSessionId: string;
}
