/** Test helpers: SessionSummary rows with defaults. */
import type { ResearchSummary } from "../../../domain/research/research-types.ts";
import type { SessionSummary } from "../../../domain/session-summary.ts";

export function summary(id: string, extra: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    path: `/agent/sessions/--w--/${id}.jsonl`,
    cwd: "/w/project",
    isSubagentSession: false,
    research: null,
    firstMessage: `first message of ${id}`,
    messageCount: 2,
    modified: "2026-11-30T10:00:00.000Z",
    timestamp: "2026-11-30T09:00:00.000Z",
    ...extra,
  };
}

export function researchSummary(sessionId: string, extra: Partial<ResearchSummary> = {}): ResearchSummary {
  return {
    sessionId,
    status: "running",
    phase: "gather",
    objective: "Why is the sky blue?",
    reportTitle: "",
    reportEntryId: "",
    threadCount: 3,
    completedThreadCount: 1,
    sourceCount: 4,
    citedSourceCount: 0,
    excludedSourceCount: 0,
    updatedAt: 0,
    ...extra,
  };
}
