/**
 * Typed functions for the trace routes (spec "Trace routes") on the selected backend: the capture setting, the
 * paged list, one trace's detail (observations and scores paged by offset) and its bookmark; and the decoding of
 * the events socket's trace notices (`trace_updated`, `trace_config`), which carry no trace payload: they only
 * say what to read again; and the merge of a further detail page into the pages already loaded. Failures are ApiErrors with the server's words (400 for a refused query, such as a
 * search over 2,048 characters or 32 terms; 404 "Trace not found"; 503 when tracing is unavailable).
 */
import type { Trace, TraceConfig, TraceList, TraceStatus, TraceUpdatedNotice } from "../../../domain/traces/trace-types.ts";
import { request } from "./http.ts";

export type {
  ReadTruncation,
  Trace,
  TraceChild,
  TraceConfig,
  TraceList,
  TraceObservation,
  TraceScore,
  TraceStatus,
  TraceSummary,
  TraceUpdatedNotice,
  TraceUsage,
} from "../../../domain/traces/trace-types.ts";
export { TRACE_STATUSES } from "../../../domain/traces/trace-types.ts";

const BASE = "/api/pi/traces";

/** The list's filters and page; empty strings apply no filter and are not sent. */
export interface TraceQuery {
  sessionId?: string;
  cwd?: string;
  q?: string;
  status?: TraceStatus | "";
  page?: number;
  limit?: number;
}

/** Where a detail read starts and how much it asks for, per collection (defaults: offset 0, limit 200). */
export interface TracePageRequest {
  observationOffset?: number;
  observationLimit?: number;
  scoreOffset?: number;
  scoreLimit?: number;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function tracePath(id: string): string {
  return `${BASE}/${encodeURIComponent(id)}`;
}

/** GET /api/pi/traces/config: `error` may be set even when `enabled` is true (capture is then not healthy). */
export function fetchTraceConfig(signal?: AbortSignal): Promise<TraceConfig> {
  return request<TraceConfig>("GET", `${BASE}/config`, signal ? { signal } : {});
}

/** PUT /api/pi/traces/config: applies to new runs; answers the saved configuration. */
export function saveTraceConfig(enabled: boolean): Promise<TraceConfig> {
  return request<TraceConfig>("PUT", `${BASE}/config`, { body: { enabled } });
}

/** GET /api/pi/traces?sessionId&cwd&q&status&page&limit (newest first). */
export function fetchTraces(query: TraceQuery, signal?: AbortSignal): Promise<TraceList> {
  return request<TraceList>("GET", BASE, {
    query: {
      sessionId: nonEmpty(query.sessionId),
      cwd: nonEmpty(query.cwd),
      q: nonEmpty(query.q),
      status: nonEmpty(query.status),
      page: query.page,
      limit: query.limit,
    },
    ...(signal ? { signal } : {}),
  });
}

/** GET /api/pi/traces/:id with the observation and score pages asked for. */
export async function fetchTrace(id: string, pages: TracePageRequest = {}, signal?: AbortSignal): Promise<Trace> {
  const answer = await request<{ trace: Trace }>("GET", tracePath(id), {
    query: { ...pages },
    ...(signal ? { signal } : {}),
  });
  return answer.trace;
}

/** PATCH /api/pi/traces/:id: answers the trace with its first observation and score pages. */
export async function setTraceBookmark(id: string, bookmarked: boolean): Promise<Trace> {
  const answer = await request<{ trace: Trace }>("PATCH", tracePath(id), { body: { bookmarked } });
  return answer.trace;
}

/** The detail with a further page of observations and scores appended (records already held are not repeated). */
export function mergeTracePages(current: Trace, page: Trace): Trace {
  const seen = new Set(current.observations.map((o) => o.id));
  const seenScores = new Set(current.scores.map((s) => s.id));
  const observationsAdvanced = current.pagination.observations.nextOffset !== null;
  const scoresAdvanced = current.pagination.scores.nextOffset !== null;
  return {
    ...page,
    observations: observationsAdvanced
      ? [...current.observations, ...page.observations.filter((o) => !seen.has(o.id))]
      : current.observations,
    scores: scoresAdvanced ? [...current.scores, ...page.scores.filter((s) => !seenScores.has(s.id))] : current.scores,
    pagination: {
      observations: observationsAdvanced ? page.pagination.observations : current.pagination.observations,
      scores: scoresAdvanced ? page.pagination.scores : current.pagination.scores,
    },
  };
}

/** What the events socket tells trace views: a committed change, a new capture setting, its first stream, or a reconnect. */
export type TraceSignal =
  | { kind: "updated"; notice: TraceUpdatedNotice }
  | { kind: "config"; config: TraceConfig }
  /** The socket's first stream began: reads answered before it may have missed a notice (a run that ended meanwhile). */
  | { kind: "live" }
  /** The socket reconnected: notices may have been missed, so everything shown is read again. */
  | { kind: "reconnected" };

/** The server message types that are trace notices (they never reach the runtime stores). */
export const TRACE_MESSAGE_TYPES: ReadonlySet<string> = new Set(["trace_updated", "trace_config"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A trace notice from a server message `{ type, data }`, or null when it is none (or malformed). */
export function traceSignalOf(message: { type: string; data?: unknown }): TraceSignal | null {
  const data = message.data;
  if (!isRecord(data)) return null;
  if (message.type === "trace_updated") {
    const { traceId, sessionId, revision, activeSessionId } = data;
    if (typeof traceId !== "string" || typeof sessionId !== "string" || typeof revision !== "number") return null;
    return {
      kind: "updated",
      notice: { traceId, sessionId, revision, activeSessionId: typeof activeSessionId === "string" ? activeSessionId : sessionId },
    };
  }
  if (message.type === "trace_config") {
    if (typeof data["enabled"] !== "boolean") return null;
    const error = data["error"];
    return {
      kind: "config",
      config: typeof error === "string" && error !== "" ? { enabled: data["enabled"], error } : { enabled: data["enabled"] },
    };
  }
  return null;
}
