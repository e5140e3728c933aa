/**
 * The research bookkeeping of reserved researcher runs in a research session (spec/deep-research.md,
 * "Research workers"; design/architecture.md "Research tools the models see"). Pure: state and outcome in,
 * research events and the lead's text out.
 *
 * - Thread id: the task's leading "<thread id>:" (the same reading as the transcript's `taskThreadId`), else a
 *   planned thread whose task is the task text, else the next free `t<n>` (the thread is then created with the
 *   task as its task, so the transcript finds it by task text as well).
 * - Queued: a thread the state does not know yet is added as queued when the tool call starts.
 * - Start: the thread becomes running (startedAt, error cleared); a state still at phase plan moves to gather.
 * - Completion: the worker's final text is parsed (`parseResearchResult`); its sources (at most 20) are
 *   registered with the ledger rules (merged by canonical key, at most 60 per session) and written as
 *   `source` events; the thread becomes done with the summary, its united source ids, the child-session link
 *   and completedAt. Sources the ledger rejected are named in the text and, while the research is running
 *   outside the report phase, in the state's note. A failed worker, or an answer without a valid result
 *   block, makes the thread `error` with the error text.
 */
import { parseResearchResult } from "../../domain/research/research-result.ts";
import { normalizeIds, TEXT_LIMITS } from "../../domain/research/research-normalize.ts";
import type { ResearchChildSession, ResearchEvent, ResearchState, ResearchThread } from "../../domain/research/research-types.ts";
import { taskThreadId } from "../../domain/transcript/research-transcript.ts";
import { registerSourceEvents } from "../research/research-update.ts";

export interface ResearcherTask {
  threadId: string;
  /** The task as the worker receives it: always "<thread id>: <task>". */
  task: string;
  /** The task without its thread id prefix. */
  body: string;
}

/** The thread a researcher task works on (see the module comment); `explicit` is a thread id given as a field. */
export function researcherTask(
  state: ResearchState | null,
  task: string,
  taken: readonly string[] = [],
  explicit?: string,
): ResearcherTask {
  const prefixed = taskThreadId(task);
  const prefixBody = prefixed === null ? task.trim() : task.slice(task.indexOf(":") + 1).trim();
  const wanted = explicit?.trim() || prefixed;
  if (wanted) {
    const threadId = wanted.slice(0, TEXT_LIMITS.threadId);
    const body = prefixed !== null && prefixed === wanted ? prefixBody : task.trim();
    return { threadId, task: `${threadId}: ${body}`, body };
  }
  const body = task.trim();
  const planned = state?.threads.find((t) => t.task !== "" && t.task === body && !taken.includes(t.id));
  if (planned) return { threadId: planned.id, task: `${planned.id}: ${body}`, body };
  const used = new Set([...(state?.threads.map((t) => t.id) ?? []), ...taken]);
  let n = (state?.threads.length ?? 0) + 1;
  while (used.has(`t${n}`)) n++;
  return { threadId: `t${n}`, task: `t${n}: ${body}`, body };
}

/** A `thread` event adding a thread the state does not know yet, as queued; [] when it exists. */
export function threadQueuedEvents(state: ResearchState, task: ResearcherTask): ResearchEvent[] {
  if (state.threads.some((t) => t.id === task.threadId)) return [];
  return [{ kind: "thread", sessionId: state.sessionId, thread: { id: task.threadId, task: task.body, status: "queued" } }];
}

/** The events when a researcher starts on a thread (at `now`, ms). */
export function threadStartEvents(state: ResearchState, task: ResearcherTask, now: number): ResearchEvent[] {
  const events: ResearchEvent[] = [];
  if (state.phase === "plan" && state.status === "running") events.push({ kind: "phase", sessionId: state.sessionId, phase: "gather" });
  const known = state.threads.some((t) => t.id === task.threadId);
  events.push({
    kind: "thread",
    sessionId: state.sessionId,
    thread: {
      id: task.threadId,
      ...(known ? {} : { task: task.body }),
      status: "running",
      error: "",
      startedAt: now,
      completedAt: 0,
    },
  });
  return events;
}

/** What a researcher run produced: its final text and child session, or the failure. */
export type ResearcherOutcome =
  | { ok: true; output: string; childSession: ResearchChildSession }
  | { ok: false; error: string; childSession: ResearchChildSession | null };

export interface ResearcherCompletion {
  events: ResearchEvent[];
  /** The thread's line(s) for the lead. */
  text: string;
  status: "done" | "error";
  sourceIds: number[];
  /** Human-readable reasons of sources not registered. */
  rejected: string[];
  summary: string;
  error: string;
}

/** The events and the lead's text when a researcher run on `task` ended (at `now`, ms). */
export function threadCompletion(
  state: ResearchState,
  task: ResearcherTask,
  outcome: ResearcherOutcome,
  now: number,
): ResearcherCompletion {
  const { threadId } = task;
  const child = outcome.childSession ? { childSession: { ...outcome.childSession } } : {};
  const failed = (error: string): ResearcherCompletion => ({
    events: [{ kind: "thread", sessionId: state.sessionId, thread: { id: threadId, status: "error", error, completedAt: now, ...child } }],
    text: `${threadId}: failed: ${error}`,
    status: "error",
    sourceIds: [],
    rejected: [],
    summary: "",
    error,
  });
  if (!outcome.ok) return failed(outcome.error);
  const parsed = parseResearchResult(outcome.output);
  if (!parsed.ok) return failed(`The researcher's answer has no valid research_result block: ${parsed.error}`);

  const { result } = parsed;
  const registered = registerSourceEvents(state, threadId, result.sources, { updateThread: false });
  const thread: ResearchThread | undefined = state.threads.find((t) => t.id === threadId);
  const sourceIds = normalizeIds([...(thread?.sourceIds ?? []), ...registered.sourceIds]);
  const events: ResearchEvent[] = [
    ...registered.events,
    {
      kind: "thread",
      sessionId: state.sessionId,
      thread: {
        id: threadId,
        ...(thread === undefined || thread.title === thread.id || thread.title === thread.task ? { title: result.title } : {}),
        status: "done",
        summary: result.summary,
        sourceIds,
        error: "",
        completedAt: now,
        ...child,
      },
    },
  ];
  if (registered.rejected.length > 0 && state.status === "running" && state.phase !== "report") {
    events.push({
      kind: "phase",
      sessionId: state.sessionId,
      phase: state.phase,
      note: `Thread ${threadId}: ${registered.rejected.length} source${registered.rejected.length === 1 ? "" : "s"} not registered (${registered.rejected.join("; ")})`,
    });
  }
  return {
    events,
    text: [`${threadId}: done. ${result.summary}`, registered.text].join("\n"),
    status: "done",
    sourceIds: registered.sourceIds,
    rejected: registered.rejected,
    summary: result.summary,
    error: "",
  };
}
