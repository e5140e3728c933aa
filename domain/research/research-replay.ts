/**
 * Research state across forks and resets (spec/deep-research.md, "Branches, forks, and resets").
 *
 * Fork: the fork has a new session id, so the retained state is re-expressed as new events bound to it
 * (`forkReplayEvents`). Law (tested): folding those events as entries of the fork gives the source state
 * with `sessionId` = the fork id, equal in every field except `lastEventId` (the fork's own entry ids),
 * provided that a retained report (if any) is still valid and that the source state's times are positive
 * (a time of 0 means "unknown" and is replaced by the entry time). Times are preserved by giving each
 * replayed event an `updatedAt`: the marker carries `createdAt`, the report checkpoint `reportRequestedAt`,
 * a report `completedAt`, every other event `updatedAt`.
 *
 * Reset: the retained branch is folded as it is (`resetReconstruction`); when the reset cut the report
 * event but kept the report message after its checkpoint, the report event to write again is returned.
 */
import type { SessionEntry } from "../session-log.ts";
import { validateReportCitations } from "./citations.ts";
import { parseResearchEvent } from "./research-event.ts";
import { researchStateFromEntries } from "./research.fold.ts";
import type { ResearchErrorEvent, ResearchEvent, ResearchReportEvent, ResearchState } from "./research-types.ts";
import { sourceEventPayload } from "./source-ledger.ts";

/**
 * The events that rebuild `source` in a fork whose session id is `newSessionId`. `reportMarkdown` is the
 * text of the report message (`source.reportEntryId`) in the fork, or null when the fork does not hold it.
 *
 * Order: marker, objective (when set), plan, threads, sources; then, for a report of an earlier round
 * (reportEntryId set but status not complete), that report when it is still valid; the error message
 * (when set); the current phase (with `status: "error"` when the state failed); and, for a complete
 * state, a `report` event when `reportMarkdown` is still valid against the retained ledger, otherwise an
 * `error` event naming the invalid citations.
 */
export function forkReplayEvents(source: ResearchState, newSessionId: string, reportMarkdown: string | null): ResearchEvent[] {
  const sessionId = newSessionId;
  const at = (time: number): { updatedAt?: number } => (time > 0 ? { updatedAt: time } : {});
  const now = at(source.updatedAt);
  const events: ResearchEvent[] = [{ kind: "session", sessionId, ...at(source.createdAt) }];

  if (source.objective) events.push({ kind: "objective", sessionId, ...now, objective: source.objective });
  events.push({
    kind: "plan",
    sessionId,
    ...now,
    strategy: source.strategy,
    threads: source.threads.map((t) => ({ id: t.id, title: t.title, task: t.task })),
  });
  for (const thread of source.threads) {
    events.push({
      kind: "thread",
      sessionId,
      ...now,
      thread: {
        id: thread.id,
        title: thread.title,
        task: thread.task,
        status: thread.status,
        summary: thread.summary,
        sourceIds: thread.sourceIds.slice(),
        childSession: thread.childSession ? { ...thread.childSession } : null,
        error: thread.error,
        startedAt: thread.startedAt,
        completedAt: thread.completedAt,
      },
    });
  }
  for (const item of source.sources) {
    events.push({ kind: "source", sessionId, ...now, source: sourceEventPayload(item) });
  }

  const reportCheck = source.reportEntryId !== "" ? checkRetainedReport(source, reportMarkdown) : null;
  const reportEvent = (): ResearchReportEvent => ({
    kind: "report",
    sessionId,
    ...at(source.completedAt),
    reportEntryId: source.reportEntryId,
    ...(source.reportTitle ? { title: source.reportTitle } : {}),
    citedSourceIds: source.citedSourceIds.slice(),
  });

  if (source.status !== "complete" && reportCheck?.valid) events.push(reportEvent());
  if (source.error) events.push({ kind: "error", sessionId, ...now, message: source.error });
  events.push({
    kind: "phase",
    sessionId,
    ...(source.phase === "report" ? at(source.reportRequestedAt || source.updatedAt) : now),
    phase: source.phase,
    ...(source.status === "error" ? { status: "error" as const } : {}),
    note: source.note,
    ...(source.reportTitle ? { title: source.reportTitle } : {}),
    citedSourceIds: source.citedSourceIds.slice(),
  });
  if (source.status === "complete") {
    if (reportCheck?.valid) events.push(reportEvent());
    else events.push({ kind: "error", sessionId, ...now, message: reportCheck?.message ?? "" });
  }
  return events;
}

function checkRetainedReport(state: ResearchState, markdown: string | null): { valid: true } | { valid: false; message: string } {
  if (markdown === null) {
    return {
      valid: false,
      message: `The research report (entry ${state.reportEntryId}) is not in the retained branch`,
    };
  }
  const check = validateReportCitations(markdown, state.sources);
  if (check.valid) return { valid: true };
  return { valid: false, message: `The retained research report is invalid: ${check.errors.join("; ")}` };
}

export interface ResetReconstruction {
  /** The research state of the retained branch (before any restored report). */
  state: ResearchState | null;
  /** A report event to write after the reset, or null. */
  restoreReport: ResearchReportEvent | null;
  /** Why no report is restored although the branch holds a report checkpoint (for logs), else "". */
  reason: string;
}

/**
 * The research state after "reset to here", from the retained branch (root to the reset target).
 *
 * A report is restored when the state is not complete, the branch holds this session's report
 * checkpoint (a `phase: report` event), and after the last checkpoint a final assistant message
 * (stop reason "stop", no user message between the checkpoint and it; the last such message counts)
 * whose text is a valid report against the ledger. The restored event names that message, takes its
 * title from the checkpoint (else the state's report title) and its cited ids from the validation.
 */
export function resetReconstruction(sessionId: string, retainedBranch: readonly SessionEntry[]): ResetReconstruction {
  const state = researchStateFromEntries(sessionId, retainedBranch);
  const none = (reason: string): ResetReconstruction => ({ state, restoreReport: null, reason });
  if (state === null || state.status === "complete") return none("");

  let checkpointIndex = -1;
  let checkpointTitle = "";
  retainedBranch.forEach((entry, index) => {
    const event = parseResearchEvent(entry);
    if (event?.kind === "phase" && event.phase === "report" && event.sessionId === sessionId) {
      checkpointIndex = index;
      checkpointTitle = event.title?.trim() ?? "";
    }
  });
  if (checkpointIndex === -1) return none("");

  let report: { entryId: string; text: string } | null = null;
  for (const entry of retainedBranch.slice(checkpointIndex + 1)) {
    if (entry.type !== "message") continue;
    const role = messageRole(entry.message);
    if (role === "user") break;
    const final = finalAssistantText(entry.message);
    if (final !== null) report = { entryId: entry.id, text: final };
  }
  if (report === null) return none("No final assistant message follows the report checkpoint");

  const check = validateReportCitations(report.text, state.sources);
  if (!check.valid) return none(`The retained report is invalid: ${check.errors.join("; ")}`);
  const title = checkpointTitle || state.reportTitle;
  return {
    state,
    restoreReport: {
      kind: "report",
      sessionId,
      reportEntryId: report.entryId,
      ...(title ? { title } : {}),
      citedSourceIds: check.citedSourceIds,
    },
    reason: "",
  };
}

/** The error event a failed report check records (used by the extension after a final response). */
export function reportErrorEvent(sessionId: string, errors: readonly string[]): ResearchErrorEvent {
  return { kind: "error", sessionId, message: `Invalid research report: ${errors.join("; ")}` };
}

// ---------------------------------------------------------------------------------------------------------

function messageRole(message: unknown): string {
  if (typeof message !== "object" || message === null) return "";
  const role = (message as { role?: unknown }).role;
  return typeof role === "string" ? role : "";
}

/** The text of an assistant message that ended its turn (stop reason "stop"), else null. */
export function finalAssistantText(message: unknown): string | null {
  if (messageRole(message) !== "assistant") return null;
  const { stopReason, content } = message as { stopReason?: unknown; content?: unknown };
  if (stopReason !== "stop" || !Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block !== "object" || block === null) continue;
    const { type, text } = block as { type?: unknown; text?: unknown };
    if (type === "text" && typeof text === "string") parts.push(text);
  }
  const text = parts.join("\n").trim();
  return text ? text : null;
}
