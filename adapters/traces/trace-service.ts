/**
 * Traces on this backend (spec "Trace routes"): capture, storage, reads and notices, embedded (nothing to start).
 *
 * Capture: every runtime's worker folds its pi events into writes (domain/traces/trace-capture.ts); the runtime
 * host hands them over (`traceWrites$`) whether or not a view is open. They are stored one after another (one
 * queue, so a run's writes land in order) in leyline.sqlite (trace-store.ts). A run is captured when capture was
 * on at its start (spec: the setting applies to new runs; turning it off does not interrupt a capture). Here the
 * run gets what only the server knows: its session's file, name and folder, and for a subagent run (a child
 * runtime opened with a `leyline-subagent` marker) its parent session, tool call and the parent trace that made
 * that call, so a research run is one tree and each child's usage is counted once, in its own trace.
 * Runs whose runtime goes away (closed, crashed) end as aborted; so do runs a previous server left running.
 *
 * Each commit publishes `trace_updated` (after the commit) and reaches the OTLP export when one is configured
 * (adapters/traces/otlp-export.ts). Saving the configuration publishes `trace_config`.
 *
 * Failures: a storage failure is logged and the write dropped (capture never stops a run); reads answer
 * ServiceError `tracing_unavailable` ("Tracing is unavailable…", or "Tracing is shutting down." once closed).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import type { Kysely } from "kysely";
import { type Observable, Subject, type Subscription } from "rxjs";
import { ServiceError } from "../../domain/service-error.ts";
import type { CaptureWrite, TraceOwner } from "../../domain/traces/trace-records.ts";
import {
  type DetailQuery,
  type ListQuery,
  observationOf,
  scoreOf,
  TRACE_MESSAGES,
  traceDetailOf,
  traceSummaryOf,
} from "../../domain/traces/trace-read.ts";
import type { Trace, TraceConfig, TraceList, TraceScore, TraceUpdatedNotice } from "../../domain/traces/trace-types.ts";
import { subagentMarkerOf, type SubagentMarkerData } from "../../domain/subagent/subagent-marker.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import type { OtlpExport } from "./otlp-export.ts";
import {
  abortRunning,
  applyCapture,
  bumpRevision,
  findParentTrace,
  listTraceRows,
  observationRecordOf,
  readChildren,
  readDescendantUsage,
  readObservationPage,
  readScorePage,
  readTraceRow,
  readTracingEnabled,
  setBookmark,
  setFeedbackScore,
  type TraceCommit,
  type TraceDefaults,
  traceRecordOf,
  writeTracingEnabled,
} from "./trace-store.ts";

/** What capture needs of a runtime (structurally a RuntimeHandle). */
export interface TraceRuntime {
  readonly sessionId: string;
  readonly sessionFile: string | null;
  readonly sessionName: string | null;
  readonly cwd: string;
  readonly kind: string | null;
  readonly child: { readonly parentSession?: string; readonly marker: SubagentMarkerData } | null;
}

/** A message for the events sockets (structurally the host's HostEvent). */
export interface TraceNotice {
  readonly type: "trace_updated" | "trace_config";
  readonly sessionId: null;
  data(full: boolean): unknown;
}

export interface TraceServiceOptions {
  readonly database: () => Promise<Kysely<LeylineDatabase>>;
  readonly traceWrites$: Observable<{ readonly handle: TraceRuntime; readonly writes: readonly CaptureWrite[] }>;
  /** A runtime's worker died or was killed: its running traces end (a recovered worker starts its own). */
  readonly workerLosses$: Observable<{ readonly handle: { readonly sessionId: string } }>;
  /** The host's events: `runtime_removed` ends the runs of that runtime. */
  readonly hostEvents$: Observable<{ readonly type: string; data(full: boolean): unknown }>;
  readonly version: string;
  readonly environment?: string;
  readonly otlp?: OtlpExport | null;
  readonly log: { warn(details: object, message: string): void; error(details: object, message: string): void };
  readonly now?: () => number;
}

export interface TraceService {
  readonly notices$: Observable<TraceNotice>;
  config(): Promise<TraceConfig>;
  setConfig(enabled: boolean): Promise<TraceConfig>;
  list(query: ListQuery): Promise<TraceList>;
  detail(id: string, query: DetailQuery): Promise<Trace>;
  setBookmark(id: string, bookmarked: boolean): Promise<Trace>;
  /**
   * A person's verdict on a session entry changed (rollout feedback): stored as a score of the run that wrote the
   * entry, or removed (null). Never fails the caller: a storage failure is logged.
   */
  feedbackChanged(sessionId: string, entryId: string, verdict: { helpful: boolean; comment: string } | null): Promise<void>;
  /**
   * The trace of `sessionId` whose run made tool call `toolCallId` (else its running trace), once every capture
   * received so far is stored; null when there is none or tracing cannot tell. A subagent's marker keeps it.
   */
  anchorOf(sessionId: string, toolCallId: string | null): Promise<string | null>;
  /** Every capture received so far is stored (tests; shutdown). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const FIRST_PAGES: DetailQuery = { observationOffset: 0, observationLimit: 200, scoreOffset: 0, scoreLimit: 200 };

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return "";
  }
}

/** How much of a session file's start is read for its subagent marker (the header, then the marker entry). */
const MARKER_READ_BYTES = 64 * 1024;

/** The subagent marker near the start of a session file (a regular file only), or null. */
function markerInFile(file: string | null): SubagentMarkerData | null {
  if (file === null) return null;
  try {
    if (!fs.statSync(file).isFile()) return null;
    const fd = fs.openSync(file, "r");
    try {
      const buffer = Buffer.alloc(MARKER_READ_BYTES);
      const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
      // The decoder holds an unfinished last line back.
      const { records } = decodeSessionText(buffer.subarray(0, read).toString("utf8"));
      return subagentMarkerOf(records.flatMap((record) => (record.kind === "entry" ? [record.entry] : [])));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

function notFound(): ServiceError {
  return new ServiceError("trace_not_found", TRACE_MESSAGES.notFound);
}

export function createTraceService(options: TraceServiceOptions): TraceService {
  const now = options.now ?? Date.now;
  const notices = new Subject<TraceNotice>();
  const defaults: TraceDefaults = { environment: options.environment ?? "default", userId: userName(), version: options.version };
  /** Runs being captured, with their owner (fixed at the run's start, names refreshed per write). */
  const owners = new Map<string, TraceOwner>();
  /** Runs that started while capture was off: their writes are dropped. */
  const skipped = new Set<string>();
  /** How many skipped run ids are remembered (a run's writes come within minutes; older ids are forgotten). */
  const SKIPPED_LIMIT = 1000;
  let enabled: boolean | null = null;
  let closed = false;
  let queue: Promise<void> = Promise.resolve();

  const log = options.log;
  const enqueue = (work: () => Promise<void>): void => {
    queue = queue.then(work).catch((error: unknown) => log.error({ err: error }, "trace capture: a write was not stored"));
  };

  const publishUpdated = (trace: { id: string; sessionId: string; revision: number }): void => {
    const data: TraceUpdatedNotice = {
      traceId: trace.id,
      sessionId: trace.sessionId,
      revision: trace.revision,
      activeSessionId: trace.sessionId,
    };
    notices.next({ type: "trace_updated", sessionId: null, data: () => data });
  };

  const committed = (commit: TraceCommit): void => {
    publishUpdated(commit.trace);
    try {
      options.otlp?.record(commit);
    } catch (error) {
      log.warn({ err: error }, "trace export failed");
    }
  };

  const captureEnabled = async (db: Kysely<LeylineDatabase>): Promise<boolean> => {
    if (enabled === null) enabled = (await readTracingEnabled(db)) ?? true;
    return enabled;
  };

  const ownerOf = async (db: Kysely<LeylineDatabase>, handle: TraceRuntime, known: TraceOwner | undefined): Promise<TraceOwner> => {
    const names = { sessionFile: handle.sessionFile, sessionName: handle.sessionName, cwd: handle.cwd === "" ? null : handle.cwd };
    if (known !== undefined) return { ...known, ...names, sessionId: handle.sessionId };
    // The child options the runtime was opened with, else the marker in the session file (a child reopened later).
    const marker = handle.child?.marker ?? markerInFile(handle.sessionFile);
    const parentSessionId = marker?.parentSessionId ?? null;
    const toolCallId = marker?.toolCallId ?? null;
    // The marker's anchor (set when the child was opened), else the parent's trace found now.
    const parentTraceId =
      marker?.parentTraceId ?? (parentSessionId !== null ? await findParentTrace(db, parentSessionId, toolCallId) : null);
    const agent = marker !== null ? (marker.agent ?? "subagent") : null;
    // Tags: the session's kind when it is not a plain session (research), subagent, and the child's agent.
    const kind = handle.kind !== null && handle.kind !== "" && handle.kind !== "session" ? [handle.kind] : [];
    const tags = [...kind, ...(marker !== null ? ["subagent"] : []), ...(agent !== null && agent !== "subagent" ? [agent] : [])];
    return {
      sessionId: handle.sessionId,
      ...names,
      parentSessionFile: marker?.parentSessionPath ?? handle.child?.parentSession ?? null,
      parent: { traceId: parentTraceId, sessionId: parentSessionId, toolCallId },
      agent,
      tags,
    };
  };

  const capture = async (handle: TraceRuntime, write: CaptureWrite): Promise<void> => {
    if (closed || skipped.has(write.traceId)) return;
    const db = await options.database();
    const starts = write.trace?.status === "running" && write.trace.startMs !== undefined && !owners.has(write.traceId);
    if (starts && !(await captureEnabled(db))) {
      skipped.add(write.traceId);
      if (skipped.size > SKIPPED_LIMIT) skipped.delete(skipped.values().next().value as string);
      return;
    }
    const known = owners.get(write.traceId);
    // A worker writes its own session's runs only: a write naming another session's trace is refused.
    const storedSession = known?.sessionId ?? (await readTraceRow(db, write.traceId))?.session_id;
    if (storedSession !== undefined && storedSession !== handle.sessionId) {
      log.warn({ traceId: write.traceId, sessionId: handle.sessionId }, "trace capture: a write for another session's trace was refused");
      return;
    }
    if (!starts && storedSession === undefined && !(await captureEnabled(db))) return;
    const owner = await ownerOf(db, handle, known);
    owners.set(write.traceId, owner);
    const commit = await applyCapture(db, owner, write, defaults, now());
    const finished = commit.trace.status !== "running";
    if (finished) owners.delete(write.traceId);
    committed(commit);
    // The parent's detail lists its children and adds their usage: it changed when a child started or ended.
    const parentId = owner.parent.traceId;
    if (parentId !== null && (known === undefined || finished)) {
      const parent = await bumpRevision(db, parentId);
      if (parent !== undefined) publishUpdated({ id: parent.id, sessionId: parent.session_id, revision: Number(parent.revision) });
    }
  };

  const ended = (records: readonly { id: string; sessionId: string; revision: number }[]): void => {
    for (const record of records) {
      owners.delete(record.id);
      publishUpdated(record);
    }
  };

  const abort = (sessionId: string | null, message: string): void => {
    enqueue(async () => {
      const db = await options.database();
      const records = await abortRunning(db, sessionId, message, now());
      ended(records);
      for (const trace of records) options.otlp?.record({ trace, observations: [] });
    });
  };

  const subscriptions: Subscription[] = [
    options.traceWrites$.subscribe(({ handle, writes }) => {
      // The handle's names are read now (a later read could see another session after a replacement).
      const runtime: TraceRuntime = {
        sessionId: handle.sessionId,
        sessionFile: handle.sessionFile,
        sessionName: handle.sessionName,
        cwd: handle.cwd,
        kind: handle.kind,
        child: handle.child,
      };
      for (const write of writes) enqueue(() => capture(runtime, write));
    }),
    options.workerLosses$.subscribe(({ handle }) => abort(handle.sessionId, "The runtime's worker stopped during the run")),
    options.hostEvents$.subscribe((event) => {
      if (event.type !== "runtime_removed") return;
      const data = event.data(true) as { id?: unknown };
      if (typeof data.id === "string") abort(data.id, "The runtime closed during the run");
    }),
  ];
  // Runs a previous server left running cannot go on.
  abort(null, "Leyline stopped during the run");

  const storage = async <T>(work: (db: Kysely<LeylineDatabase>) => Promise<T>): Promise<T> => {
    if (closed) throw new ServiceError("tracing_unavailable", TRACE_MESSAGES.shuttingDown);
    let db: Kysely<LeylineDatabase>;
    try {
      db = await options.database();
    } catch (error) {
      log.error({ err: error }, "tracing: the database is not available");
      throw new ServiceError("tracing_unavailable", TRACE_MESSAGES.unavailable, { cause: error });
    }
    try {
      return await work(db);
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      log.error({ err: error }, "tracing: storage failed");
      throw new ServiceError("tracing_unavailable", TRACE_MESSAGES.unavailable, { cause: error });
    }
  };

  const detail = async (db: Kysely<LeylineDatabase>, id: string, query: DetailQuery): Promise<Trace> => {
    const row = await readTraceRow(db, id);
    if (row === undefined) throw notFound();
    const record = traceRecordOf(row);
    const [observationPage, scorePage, children, descendants] = await Promise.all([
      readObservationPage(db, id, query.observationOffset, query.observationLimit),
      readScorePage(db, id, query.scoreOffset, query.scoreLimit),
      readChildren(db, id),
      readDescendantUsage(db, id),
    ]);
    const observations = observationPage.rows.map((pageRow) =>
      observationOf(observationRecordOf(pageRow), record.startMs, {
        input: Number(pageRow.input_bytes),
        output: Number(pageRow.output_bytes),
      }),
    );
    const scores = scorePage.rows.map((score) =>
      scoreOf({
        id: score.id,
        traceName: record.name,
        name: score.name,
        value: score.value_number ?? score.value_text,
        comment: score.comment,
        source: score.source,
        timestamp: new Date(Number(score.timestamp_ms)).toISOString(),
        dataType: score.data_type,
      } satisfies TraceScore),
    );
    return traceDetailOf({
      record,
      observations: { items: observations, total: observationPage.total, offset: query.observationOffset, limit: query.observationLimit },
      scores: { items: scores, total: scorePage.total, offset: query.scoreOffset, limit: query.scoreLimit },
      children,
      descendants,
    });
  };

  return {
    notices$: notices.asObservable(),
    async config() {
      if (closed) return { enabled: false, error: TRACE_MESSAGES.shuttingDown };
      try {
        const db = await options.database();
        enabled = (await readTracingEnabled(db)) ?? true;
        return { enabled };
      } catch (error) {
        log.error({ err: error }, "tracing: the settings could not be read");
        return { enabled: false, error: TRACE_MESSAGES.settings };
      }
    },
    async setConfig(value) {
      if (closed) throw new ServiceError("tracing_unavailable", TRACE_MESSAGES.shuttingDown);
      try {
        const db = await options.database();
        await writeTracingEnabled(db, value);
      } catch (error) {
        log.error({ err: error }, "tracing: the settings could not be saved");
        throw new ServiceError("tracing_unavailable", TRACE_MESSAGES.settings, { cause: error });
      }
      enabled = value;
      const config: TraceConfig = { enabled: value };
      notices.next({ type: "trace_config", sessionId: null, data: () => config });
      return config;
    },
    list: (query) =>
      storage(async (db) => {
        const { rows, total } = await listTraceRows(db, query);
        return { traces: rows.map((row) => traceSummaryOf(traceRecordOf(row))), total, page: query.page, limit: query.limit };
      }),
    detail: (id, query) => storage((db) => detail(db, id, query)),
    setBookmark: (id, bookmarked) =>
      storage(async (db) => {
        const row = await setBookmark(db, id, bookmarked);
        if (row === undefined) throw notFound();
        publishUpdated({ id: row.id, sessionId: row.session_id, revision: Number(row.revision) });
        return detail(db, id, FIRST_PAGES);
      }),
    async anchorOf(sessionId, toolCallId) {
      if (closed) return null;
      await this.settled();
      try {
        return await findParentTrace(await options.database(), sessionId, toolCallId);
      } catch {
        return null;
      }
    },
    async feedbackChanged(sessionId, entryId, verdict) {
      if (closed) return;
      try {
        const db = await options.database();
        const row = await setFeedbackScore(db, sessionId, entryId, verdict, now());
        if (row !== undefined) publishUpdated({ id: row.id, sessionId: row.session_id, revision: Number(row.revision) });
      } catch (error) {
        log.error({ err: error }, "tracing: the feedback score was not stored");
      }
    },
    async settled() {
      let seen: Promise<void> | null = null;
      while (seen !== queue) {
        seen = queue;
        await queue;
      }
    },
    async close() {
      if (closed) return;
      for (const subscription of subscriptions) subscription.unsubscribe();
      abort(null, "Leyline stopped during the run");
      await this.settled();
      closed = true;
      notices.complete();
      await options.otlp?.shutdown().catch((error: unknown) => log.warn({ err: error }, "trace export: shutdown failed"));
    },
  };
}
