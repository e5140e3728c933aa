/**
 * The SessionDetail DTO (spec/api-reference.md, "Session detail"): what GET /api/pi/sessions/:id and several
 * write routes answer. Types (and the read-only message) only; api/session-detail.ts builds it, the client reads it.
 */
import type { ResearchState } from "./research/research-types.ts";
import type { SessionSummary } from "./session-summary.ts";
import type { SessionUsage } from "./session-usage.ts";
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
  /** The session's current model from its own active-branch entries (session-settings.ts); null when none says. */
  model: { provider: string; id: string } | null;
  /** The last thinking level change on the active branch; null when there is none. */
  thinkingLevel: string | null;
  /** The header's format version as written (1 when absent); files below 3 are upgraded when acted on. */
  fileVersion: number;
  /** Set when the session cannot be run here (its cwd is gone); it can still be read. */
  readOnly: SessionReadOnly | null;
  /** Model usage over the whole file, as pi's session stats count it (session-usage.ts). */
  usage: SessionUsage;
};

export interface SessionReadOnly {
  reason: "cwd-missing";
  message: string;
}

/** The words for a session whose folder is gone: the detail's `readOnly.message` and the 409 error text. */
export function cwdMissingMessage(cwd: string): string {
  return `This session's folder ${cwd} no longer exists, so it can be read but not run.`;
}

export interface SessionDetail {
  session: SessionDetailSession;
  entries: TranscriptEntry[];
}
