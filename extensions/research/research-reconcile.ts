/**
 * What the research extension writes when a session starts (spec/deep-research.md, "Branches, forks, and
 * resets"), decided from the branch alone so that every way of arriving there works (pi's fork and clone,
 * Leyline's fork route opening the forked file, a reopened file after reset-to-entry, a reload):
 *
 * - The branch holds research events of ANOTHER session id and no marker of this one: this session is a fork
 *   of a research session. The retained state (of the session whose marker is the last one on the branch, so
 *   a fork of a fork replays its direct source) is replayed as new events bound to this id
 *   (`forkReplayEvents`), which revalidates a retained report against the retained ledger. A fork that kept a
 *   valid report message after its checkpoint but not the report event (forked at the message) is replayed
 *   as the complete state that message makes (`resetReconstruction` of the source, then the replay).
 * - The branch holds this session's marker: `resetReconstruction` restores the report event when a reset cut
 *   it but kept a valid report message after its checkpoint.
 * - Otherwise nothing (a normal session).
 *
 * Idempotent: after the returned events are appended, the same call returns [] (the fork now has its own
 * marker and its replayed report checkpoint, if any, is the last entry; a restored report completes the state).
 */
import { parseResearchEvent } from "../../domain/research/research-event.ts";
import { finalAssistantText, forkReplayEvents, resetReconstruction } from "../../domain/research/research-replay.ts";
import { applyResearchEvent, researchStateFromEntries } from "../../domain/research/research.fold.ts";
import type { ResearchEvent } from "../../domain/research/research-types.ts";
import type { SessionEntry } from "../../domain/session-log.ts";

export type ResearchReconciliation =
  | { kind: "none"; events: [] }
  | { kind: "fork"; sourceSessionId: string; events: ResearchEvent[] }
  | { kind: "reset"; events: ResearchEvent[] }
  | { kind: "current"; events: [] };

/** The session id of the last research marker on the branch, or null. */
export function lastMarkerSessionId(branch: readonly SessionEntry[]): string | null {
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i];
    const event = entry ? parseResearchEvent(entry) : null;
    if (event?.kind === "session") return event.sessionId;
  }
  return null;
}

/** The events to append at session start for `sessionId` on `branch` (see the module comment). */
export function reconcileResearch(sessionId: string, branch: readonly SessionEntry[]): ResearchReconciliation {
  if (!sessionId) return { kind: "none", events: [] };
  if (researchStateFromEntries(sessionId, branch) !== null) {
    const reset = resetReconstruction(sessionId, branch);
    return reset.restoreReport ? { kind: "reset", events: [reset.restoreReport] } : { kind: "current", events: [] };
  }
  const sourceSessionId = lastMarkerSessionId(branch);
  if (sourceSessionId === null || sourceSessionId === sessionId) return { kind: "none", events: [] };
  const retained = researchStateFromEntries(sourceSessionId, branch);
  if (retained === null) return { kind: "none", events: [] };
  // A fork taken at the report message (its report event not retained) keeps a valid report: restore it first.
  const restore = resetReconstruction(sourceSessionId, branch).restoreReport;
  const source = restore
    ? (applyResearchEvent(retained, restore, { entryId: retained.lastEventId, timestampMs: 0 }) ?? retained)
    : retained;
  const reportEntry = source.reportEntryId ? branch.find((entry) => entry.id === source.reportEntryId) : undefined;
  const reportMarkdown = reportEntry?.type === "message" ? finalAssistantText(reportEntry.message) : null;
  return { kind: "fork", sourceSessionId, events: forkReplayEvents(source, sessionId, reportMarkdown) };
}
