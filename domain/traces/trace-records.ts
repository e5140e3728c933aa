/**
 * What capture writes and the store keeps (times in milliseconds since the epoch): the worker's fold
 * (trace-capture.ts) emits `CaptureWrite`s; the server adds what only it knows (the session's identity, the
 * parent trace) and stores `TraceRecord`s and `ObservationRecord`s (adapters/traces/trace-store.ts); reads turn
 * them into the spec's shapes (trace-read.ts).
 */
import type { ObservationType, TraceLevel, TraceStatus, TraceUsage } from "./trace-types.ts";

export const ZERO_USAGE: TraceUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 };

export function addUsage(a: TraceUsage, b: TraceUsage): TraceUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    cost: a.cost + b.cost,
  };
}

/** Fields capture shortened before storing (separate from the read signals: spec "Capture-time omission"). */
export interface CaptureClipping {
  fields: string[];
  fieldBytes: Record<string, number>;
}

/** One observation as captured (a model call, a tool execution, an event). */
export interface ObservationRecord {
  /** Unique within its trace. */
  id: string;
  parentId: string | null;
  type: ObservationType;
  name: string;
  startMs: number;
  /** null while it runs. */
  endMs: number | null;
  level: TraceLevel;
  status: TraceStatus;
  statusMessage: string | null;
  /** "provider/model" of a model call. */
  model: string | null;
  input: string | null;
  output: string | null;
  usage: TraceUsage;
  /** The tool call a TOOL observation executes (a child run names it as its parent's anchor). */
  toolCallId: string | null;
  /** The session entry the observation wrote (an assistant message), when known. */
  entryId: string | null;
  metadata: Record<string, unknown>;
}

/** A new observation: running, no texts, no usage, no links, unless `fields` says otherwise. */
export function observationRecord(
  fields: Partial<ObservationRecord> & Pick<ObservationRecord, "id" | "type" | "name" | "startMs">,
): ObservationRecord {
  return {
    parentId: null,
    endMs: null,
    level: "DEFAULT",
    status: "running",
    statusMessage: null,
    model: null,
    input: null,
    output: null,
    usage: { ...ZERO_USAGE },
    toolCallId: null,
    entryId: null,
    metadata: {},
    ...fields,
  };
}

/** What the worker knows of a run; every field optional in a patch (absent: unchanged). */
export interface TraceCapturePatch {
  startMs?: number;
  endMs?: number | null;
  status?: TraceStatus;
  level?: TraceLevel;
  statusMessage?: string | null;
  name?: string;
  input?: string | null;
  output?: string | null;
  model?: string;
  userEntryId?: string | null;
  startEntryId?: string | null;
  endEntryId?: string | null;
  /** Merged into the stored metadata (capture fields: thinking level, clipping, retries). */
  metadata?: Record<string, unknown>;
}

/** One step of capture for one trace: a patch of the run and the observations that changed (whole records). */
export interface CaptureWrite {
  traceId: string;
  trace?: TraceCapturePatch;
  observations?: ObservationRecord[];
}

/** Who the run belongs to (the server's knowledge of the session, not the worker's). */
export interface TraceOwner {
  sessionId: string;
  sessionFile: string | null;
  sessionName: string | null;
  cwd: string | null;
  parentSessionFile: string | null;
  parent: { traceId: string | null; sessionId: string | null; toolCallId: string | null };
  /** The agent a child run runs as ("researcher", "vision"), else null. */
  agent: string | null;
  tags: string[];
}

/** A stored trace (the run's own usage: its model calls, never its children's). */
export interface TraceRecord extends TraceOwner {
  id: string;
  name: string;
  status: TraceStatus;
  level: TraceLevel;
  statusMessage: string | null;
  startMs: number;
  endMs: number | null;
  /** The latest capture (a running trace's latency counts to it). */
  updatedMs: number;
  input: string | null;
  output: string | null;
  model: string;
  userEntryId: string | null;
  startEntryId: string | null;
  endEntryId: string | null;
  usage: TraceUsage;
  bookmarked: boolean;
  revision: number;
  environment: string;
  userId: string;
  version: string;
  metadata: Record<string, unknown>;
}
