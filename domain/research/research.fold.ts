/**
 * The research fold: `leyline-research` events of one research session → ResearchState
 * (spec/deep-research.md "Persisted state"; design/architecture.md "Research event format").
 *
 * Rules, by kind:
 * - `session` starts the state (status running, phase plan) bound to its session id; once a state
 *   exists, further markers are ignored.
 * - every other event applies only to a state of the same session id; before a marker nothing applies.
 * - `objective` sets a non-empty objective.
 * - `plan` sets the strategy and the planned threads (deduplicated by id, at most 12, in plan order; a
 *   planned thread that already exists keeps its progress), phase plan, status running.
 * - `phase` sets the phase, status running (or error with `status: "error"`), the note, a non-empty report
 *   title, and the intended cited source ids when given.
 * - `thread` merges into the thread with the same id (each given field overrides, an empty title does
 *   not) or appends a new thread.
 * - `source` merges into the source with the same canonical key (non-empty fields override, thread ids
 *   are united, a given status excludes or un-excludes) or adds it; ids follow the ledger rules.
 * - `report` sets phase report, status complete, reportEntryId, a non-empty title, the cited source ids
 *   (when given) and completedAt.
 * - `error` sets status error and the message ("Research failed" when empty).
 *
 * Times: an event's time is `data.updatedAt` if present, else its entry's timestamp, else 0.
 * `updatedAt` is the latest event time seen (it never goes back); `createdAt` is the marker's time;
 * `completedAt` the time of the last report; `reportRequestedAt` the time of the current report
 * checkpoint: a `phase: report` event sets it, a report without a checkpoint sets it to its own time, and
 * a plan or a phase other than report clears it (so it is non-zero exactly while the phase is report).
 * `lastEventId` is the entry id of the last applied event. A source's status is derived after every event.
 *
 * The fold is pure: it never mutates its input, returns the same object for an ignored event, and never
 * throws (a bad event is ignored).
 */
import type { SessionEntry } from "../session-log.ts";
import { parseResearchEvent } from "./research-event.ts";
import { cleanText, MAX_PLAN_THREADS, normalizeChildSession, normalizeIds, TEXT_LIMITS, timeMs } from "./research-normalize.ts";
import {
  FINISHED_THREAD_STATUSES,
  RESEARCH_EVENT_VERSION,
  type ResearchEvent,
  type ResearchEventMeta,
  type ResearchPlanThread,
  type ResearchState,
  type ResearchSummary,
  type ResearchThread,
  type ResearchThreadUpdate,
} from "./research-types.ts";
import { deriveSourceStatuses, sourceCandidate, upsertSource } from "./source-ledger.ts";

/** The state a research marker starts. */
export function initialResearchState(
  sessionId: string,
  meta: ResearchEventMeta,
  objective = "",
  createdAt = timeMs(meta.timestampMs),
): ResearchState {
  return finalize({
    version: RESEARCH_EVENT_VERSION,
    sessionId,
    status: "running",
    phase: "plan",
    objective: cleanText(objective, TEXT_LIMITS.objective),
    reportTitle: "",
    reportEntryId: "",
    threadCount: 0,
    completedThreadCount: 0,
    sourceCount: 0,
    citedSourceCount: 0,
    excludedSourceCount: 0,
    updatedAt: createdAt,
    strategy: "",
    note: "",
    threads: [],
    sources: [],
    citedSourceIds: [],
    error: "",
    createdAt,
    completedAt: 0,
    reportRequestedAt: 0,
    lastEventId: meta.entryId,
  });
}

/** The time of an event: its `updatedAt`, else the entry time, else 0. */
export function researchEventTime(event: ResearchEvent, meta: ResearchEventMeta): number {
  const own = timeMs(event.updatedAt);
  return own > 0 ? own : timeMs(meta.timestampMs);
}

/** Applies one event. Returns the same object when the event does not apply. Never throws. */
export function applyResearchEvent(state: ResearchState | null, event: ResearchEvent, meta: ResearchEventMeta): ResearchState | null {
  try {
    return applyUnsafe(state, event, meta);
  } catch {
    // Only a malformed hand-built event can get here (the decoder never yields one): ignore it.
    return state;
  }
}

function applyUnsafe(state: ResearchState | null, event: ResearchEvent, meta: ResearchEventMeta): ResearchState | null {
  if (typeof event.sessionId !== "string" || event.sessionId === "") return state;
  const time = researchEventTime(event, meta);
  if (event.kind === "session") {
    if (state !== null) return state;
    return initialResearchState(event.sessionId, meta, event.objective ?? "", time);
  }
  if (state === null || event.sessionId !== state.sessionId) return state;

  const touched: ResearchState = {
    ...state,
    updatedAt: Math.max(state.updatedAt, time),
    lastEventId: meta.entryId,
  };

  switch (event.kind) {
    case "objective": {
      const objective = cleanText(event.objective, TEXT_LIMITS.objective);
      if (!objective) return state;
      return finalize({ ...touched, objective });
    }
    case "plan":
      return finalize({
        ...touched,
        phase: "plan",
        status: "running",
        reportRequestedAt: 0,
        strategy: cleanText(event.strategy, TEXT_LIMITS.strategy),
        threads: planThreads(state.threads, event.threads),
      });
    case "phase": {
      const title = cleanText(event.title, TEXT_LIMITS.reportTitle);
      return finalize({
        ...touched,
        phase: event.phase,
        status: event.status === "error" ? "error" : "running",
        note: cleanText(event.note, TEXT_LIMITS.note),
        reportTitle: title || state.reportTitle,
        citedSourceIds: event.citedSourceIds !== undefined ? normalizeIds(event.citedSourceIds) : state.citedSourceIds,
        reportRequestedAt: event.phase === "report" ? time : 0,
      });
    }
    case "thread": {
      const id = cleanText(event.thread.id, TEXT_LIMITS.threadId);
      if (!id) return state;
      const index = state.threads.findIndex((t) => t.id === id);
      const existing = index === -1 ? undefined : state.threads[index];
      const threads = state.threads.slice();
      if (existing) threads[index] = mergeThread(existing, event.thread);
      else threads.push(mergeThread(newThread(id, "", ""), event.thread));
      return finalize({ ...touched, threads });
    }
    case "source": {
      const checked = sourceCandidate(event.source);
      if (!checked.ok) return state;
      const { sources } = upsertSource(state.sources, checked.candidate, "override");
      return finalize({ ...touched, sources });
    }
    case "report":
      if (!event.reportEntryId) return state;
      return finalize({
        ...touched,
        phase: "report",
        status: "complete",
        reportEntryId: event.reportEntryId,
        reportTitle: cleanText(event.title, TEXT_LIMITS.reportTitle) || state.reportTitle,
        citedSourceIds: event.citedSourceIds !== undefined ? normalizeIds(event.citedSourceIds) : state.citedSourceIds,
        completedAt: time,
        reportRequestedAt: state.reportRequestedAt > 0 ? state.reportRequestedAt : time,
      });
    case "error":
      return finalize({
        ...touched,
        status: "error",
        error: cleanText(event.message, TEXT_LIMITS.error) || "Research failed",
      });
    default:
      return state;
  }
}

/**
 * The research state of one session from a branch (root-to-leaf entries): only `leyline-research`
 * events whose `sessionId` is `sessionId` count; the state starts at the first marker of that session
 * (null before it, or when `sessionId` is empty). Other entries are ignored.
 */
export function researchStateFromEntries(sessionId: string, branch: readonly SessionEntry[]): ResearchState | null {
  let state: ResearchState | null = null;
  if (!sessionId) return null;
  for (const entry of branch) {
    const event = parseResearchEvent(entry);
    if (event === null || event.sessionId !== sessionId) continue;
    state = applyResearchEvent(state, event, researchEntryMeta(entry));
  }
  return state;
}

/** The meta of an entry: its id and its ISO timestamp in ms (0 when unparsable). */
export function researchEntryMeta(entry: SessionEntry): ResearchEventMeta {
  const parsed = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : Number.NaN;
  return {
    entryId: typeof entry.id === "string" ? entry.id : "",
    timestampMs: Number.isFinite(parsed) && parsed >= 0 ? parsed : 0,
  };
}

/** The compact form for session lists. */
export function summarizeResearch(state: ResearchState): ResearchSummary {
  return {
    sessionId: state.sessionId,
    status: state.status,
    phase: state.phase,
    objective: state.objective,
    reportTitle: state.reportTitle,
    reportEntryId: state.reportEntryId,
    threadCount: state.threadCount,
    completedThreadCount: state.completedThreadCount,
    sourceCount: state.sourceCount,
    citedSourceCount: state.citedSourceCount,
    excludedSourceCount: state.excludedSourceCount,
    updatedAt: state.updatedAt,
  };
}

// ---------------------------------------------------------------------------------------------------------

/** Recomputes derived data: source statuses and the summary counts. */
function finalize(state: ResearchState): ResearchState {
  const sources = deriveSourceStatuses(state.sources, state.citedSourceIds);
  return {
    ...state,
    sources,
    threadCount: state.threads.length,
    completedThreadCount: state.threads.filter((t) => FINISHED_THREAD_STATUSES.includes(t.status)).length,
    sourceCount: sources.length,
    citedSourceCount: sources.filter((s) => s.status === "cited").length,
    excludedSourceCount: sources.filter((s) => s.status === "excluded").length,
  };
}

function newThread(id: string, title: string, task: string): ResearchThread {
  const cleanTask = cleanText(task, TEXT_LIMITS.threadTask);
  return {
    id,
    title: cleanText(title, TEXT_LIMITS.threadTitle) || cleanText(cleanTask, TEXT_LIMITS.threadTitle) || id,
    task: cleanTask,
    status: "queued",
    summary: "",
    sourceIds: [],
    childSession: null,
    error: "",
    startedAt: 0,
    completedAt: 0,
  };
}

function planThreads(existing: readonly ResearchThread[], planned: readonly ResearchPlanThread[]): ResearchThread[] {
  const threads: ResearchThread[] = [];
  planned.forEach((item, index) => {
    if (threads.length >= MAX_PLAN_THREADS) return;
    const id = cleanText(item.id, TEXT_LIMITS.threadId) || `T${index + 1}`;
    if (threads.some((t) => t.id === id)) return;
    const fresh = newThread(id, item.title, item.task);
    const known = existing.find((t) => t.id === id);
    threads.push(known ? { ...known, title: fresh.title, task: fresh.task } : fresh);
  });
  return threads;
}

function mergeThread(thread: ResearchThread, update: ResearchThreadUpdate): ResearchThread {
  const next: ResearchThread = { ...thread };
  const title = cleanText(update.title, TEXT_LIMITS.threadTitle);
  if (title) next.title = title;
  if (update.task !== undefined) next.task = cleanText(update.task, TEXT_LIMITS.threadTask);
  if (update.status !== undefined) next.status = update.status;
  if (update.summary !== undefined) next.summary = cleanText(update.summary, TEXT_LIMITS.threadSummary);
  if (update.sourceIds !== undefined) next.sourceIds = normalizeIds(update.sourceIds);
  if (update.childSession !== undefined) next.childSession = normalizeChildSession(update.childSession);
  if (update.error !== undefined) next.error = cleanText(update.error, TEXT_LIMITS.threadError);
  if (update.startedAt !== undefined) next.startedAt = timeMs(update.startedAt);
  if (update.completedAt !== undefined) next.completedAt = timeMs(update.completedAt);
  if (!next.title) next.title = next.task ? cleanText(next.task, TEXT_LIMITS.threadTitle) : next.id;
  return next;
}
