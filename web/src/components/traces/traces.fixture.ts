/**
 * Test helpers of the trace views: records (a detail trace, observations, child runs) and a fake trace backend
 * for composer.fixture.ts `fakeBackend` that keeps its traces and answers the four routes as the spec says:
 * list filters (sessionId, status, q: every term must match a searched field; 400 over 2,048 characters or
 * 32 terms), newest first, page and limit (clamped to 200); detail pages by observation and score offset and
 * limit (`nextOffset` null at the end), 404 for a missing trace; the bookmark PATCH (revision + 1); the
 * capture configuration (an `error` it may carry with `enabled: true`). `slowTracesBackend` holds chosen answers
 * back (a slow backend) until the test lets them go.
 */
import type {
  Trace,
  TraceChild,
  TraceConfig,
  TraceList,
  TraceObservation,
  TraceSummary,
  TraceUsage,
} from "../../../../domain/traces/trace-types.ts";
import type { FakeAnswer, RecordedRequest } from "../composer/composer.fixture.ts";

/** The server's words for a search over 2,048 characters or 32 terms (domain/traces/trace-read.ts). */
export const Q_TOO_LONG = "Invalid trace request";

export function usage(overrides: Partial<TraceUsage> = {}): TraceUsage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0, ...overrides };
}

export function observation(overrides: Partial<TraceObservation> = {}): TraceObservation {
  return {
    id: "o1",
    parentId: null,
    name: "chat",
    type: "GENERATION",
    startTime: 0,
    duration: 1,
    level: "DEFAULT",
    status: "completed",
    model: null,
    input: null,
    output: null,
    inputTokens: 0,
    outputTokens: 0,
    cost: 0,
    metadata: {},
    ...overrides,
  };
}

export function child(overrides: Partial<TraceChild> = {}): TraceChild {
  return {
    traceId: "child-1",
    sessionId: "s-child",
    toolCallId: "call-1",
    name: "researcher",
    status: "completed",
    usage: usage(),
    ...overrides,
  };
}

const ZERO = usage();

/** A detail trace; its summary is what the list answers. */
export function trace(overrides: Partial<Omit<Trace, "metadata">> & { metadata?: Partial<Trace["metadata"]> } = {}): Trace {
  const { metadata, ...rest } = overrides;
  const base: Trace = {
    id: "t1",
    source: "pi",
    status: "completed",
    revision: 1,
    name: "Fix the build",
    timestamp: "2025-03-12T15:29:00.000Z",
    environment: "default",
    userId: "local",
    sessionId: "s1",
    latency: 10,
    totalTokens: 0,
    inputTokens: 0,
    outputTokens: 0,
    cost: 0,
    level: "DEFAULT",
    tags: [],
    bookmarked: false,
    model: "",
    version: "1",
    input: "Fix the build",
    output: "Done.",
    observations: [],
    scores: [],
    pagination: {
      observations: { total: 0, offset: 0, limit: 200, nextOffset: null, truncated: false },
      scores: { total: 0, offset: 0, limit: 200, nextOffset: null, truncated: false },
    },
    ...rest,
    metadata: {
      cwd: "/work/app",
      sessionName: null,
      sessionFile: null,
      branchId: null,
      startEntryId: null,
      endEntryId: null,
      userEntryId: null,
      parentSessionFile: null,
      parent: { traceId: null, sessionId: null, toolCallId: null },
      usage: { own: ZERO, descendants: ZERO, total: ZERO },
      children: [],
      ...metadata,
    },
  };
  return base;
}

/** The list's shape of a detail trace (spec: summaries omit input, output, full metadata, observations, scores). */
export function summaryOf(full: Trace): TraceSummary {
  const { input: _input, output: _output, observations: _o, scores: _s, pagination: _p, metadata, ...scalars } = full;
  const { usage: _usage, children: _children, ...rest } = metadata;
  return {
    ...scalars,
    metadata: {
      cwd: rest.cwd,
      sessionName: rest.sessionName,
      sessionFile: rest.sessionFile,
      branchId: rest.branchId,
      startEntryId: rest.startEntryId,
      endEntryId: rest.endEntryId,
      userEntryId: rest.userEntryId,
      parentSessionFile: rest.parentSessionFile,
      parent: rest.parent,
    },
  };
}

function searched(full: Trace): string {
  return [
    full.id,
    full.name,
    full.userId,
    full.sessionId,
    full.input,
    full.output,
    full.model,
    full.metadata.sessionName,
    full.metadata.cwd,
    ...full.tags,
  ]
    .filter((field): field is string => typeof field === "string")
    .join("\n")
    .toLowerCase();
}

function pageOf<T>(items: readonly T[], offsetText: string | null, limitText: string | null) {
  const offset = Number(offsetText ?? 0);
  const limit = Math.min(200, Number(limitText ?? 200));
  const slice = items.slice(offset, offset + limit);
  const next = offset + slice.length < items.length ? offset + slice.length : null;
  return { slice, page: { total: items.length, offset, limit, nextOffset: next, truncated: next !== null } };
}

export interface TraceServer {
  traces: Trace[];
  config: TraceConfig;
  /** Answer 503 to every trace read (the server's words). */
  failReads?: string;
}

/** A fake trace backend over `server` (mutated in place). */
export function tracesBackend(server: TraceServer) {
  return (request: RecordedRequest): FakeAnswer | undefined => {
    const url = new URL(request.path, "http://leyline.test");
    if (!url.pathname.startsWith("/api/pi/traces")) return undefined;
    const params = url.searchParams;
    if (url.pathname === "/api/pi/traces/config") {
      if (request.method === "PUT") {
        const enabled = (request.body as { enabled?: unknown } | undefined)?.enabled;
        if (typeof enabled !== "boolean") return { status: 400, body: { error: "enabled must be a boolean" } };
        server.config = { ...server.config, enabled };
      }
      return { body: server.config };
    }
    if (server.failReads) return { status: 503, body: { error: server.failReads } };
    if (url.pathname === "/api/pi/traces") {
      const q = params.get("q") ?? "";
      if (q.length > 2048 || q.split(/\s+/).filter((term) => term !== "").length > 32) return { status: 400, body: { error: Q_TOO_LONG } };
      return { body: listAnswer(server, params) };
    }
    const id = decodeURIComponent(url.pathname.slice("/api/pi/traces/".length));
    const index = server.traces.findIndex((t) => t.id === id);
    if (index < 0) return { status: 404, body: { error: "Trace not found" } };
    if (request.method === "PATCH") {
      const bookmarked = (request.body as { bookmarked?: unknown } | undefined)?.bookmarked;
      if (typeof bookmarked !== "boolean") return { status: 400, body: { error: "bookmarked must be a boolean" } };
      const changed = { ...server.traces[index]!, bookmarked, revision: server.traces[index]!.revision + 1 };
      server.traces[index] = changed;
      return { body: { trace: detailAnswer(changed, new URLSearchParams()) } };
    }
    return { body: { trace: detailAnswer(server.traces[index]!, params) } };
  };
}

/**
 * A slow trace backend over `server`: the server reads when a request comes (its answer is the server as it was
 * then), but the answers to the requests `hold` picks wait until `release()`. `held()` counts those waiting.
 */
export function slowTracesBackend(server: TraceServer, hold: (request: RecordedRequest) => boolean) {
  const answer = tracesBackend(server);
  const waiting: Array<() => void> = [];
  return {
    handler: async (request: RecordedRequest): Promise<FakeAnswer | undefined> => {
      const answered = answer(request);
      if (hold(request)) await new Promise<void>((resolve) => waiting.push(resolve));
      return answered;
    },
    held: (): number => waiting.length,
    release: (): void => {
      for (const go of waiting.splice(0)) go();
    },
  };
}

function listAnswer(server: TraceServer, params: URLSearchParams): TraceList {
  const q = params.get("q") ?? "";
  const terms = q
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => term !== "");
  const sessionId = params.get("sessionId") ?? "";
  const status = params.get("status") ?? "";
  const page = Number(params.get("page") ?? 1);
  const limit = Math.min(200, Number(params.get("limit") ?? 50));
  const matching = server.traces
    .filter((t) => sessionId === "" || t.sessionId === sessionId)
    .filter((t) => status === "" || t.status === status)
    .filter((t) => terms.every((term) => searched(t).includes(term)))
    .sort((a, b) => (a.timestamp === b.timestamp ? (a.id < b.id ? 1 : -1) : a.timestamp < b.timestamp ? 1 : -1));
  return { traces: matching.slice((page - 1) * limit, page * limit).map(summaryOf), total: matching.length, page, limit };
}

function detailAnswer(full: Trace, params: URLSearchParams): Trace {
  const observations = pageOf(full.observations, params.get("observationOffset"), params.get("observationLimit"));
  const scores = pageOf(full.scores, params.get("scoreOffset"), params.get("scoreLimit"));
  return {
    ...full,
    observations: observations.slice,
    scores: scores.slice,
    pagination: { observations: observations.page, scores: scores.page },
  };
}
