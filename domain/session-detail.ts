/**
 * The SessionDetail DTO (spec/api-reference.md, "Session detail"): what GET /api/pi/sessions/:id and several
 * write routes answer. Types only; api/session-detail.ts builds it, the client reads it.
 */
import type { ResearchState } from "./research/research-types.ts";
import type { SessionSummary } from "./session-summary.ts";
import type { TranscriptEntry } from "./transcript/transcript-types.ts";

export type SessionDetailSession = Omit<SessionSummary, "research" | "modified"> & {
  sessionFile: string;
  messageCount: number;
  /** Context size from the last valid assistant usage on the branch; null when unknown (none, or compacted since). */
  contextTokens: number | null;
  modified: string;
  created: string;
  contextUsage?: object;
  research: ResearchState | null;
};

export interface SessionDetail {
  session: SessionDetailSession;
  entries: TranscriptEntry[];
}
