/**
 * What the client reads from a session before its runtime exists, and from a runtime's notices:
 *
 * - `viewFacts(session)`: the model and thinking level of the session's own entries, its file version and
 *   whether it can be acted on at all (`readOnly`: its folder is gone), as GET /api/pi/sessions/:id reports
 *   them in SessionDetail.session.
 * - `runtimeNotices(state)`: `Active.state.notices` (a file upgraded with a backup kept, a model fallback);
 *   a kind this client does not know, or one without words, is left out.
 * - `fallbackEntry(...)`: a model fallback as a system line of the transcript.
 *
 * Pure functions over server data.
 */
import type { RuntimeNotice } from "../../../domain/runtime/runtime-types.ts";
import type { SessionDetailSession, SessionReadOnly } from "../../../domain/session-detail.ts";
import type { SystemTranscriptEntry, TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";

export interface ModelRef {
  provider: string;
  id: string;
}

export interface ViewFacts {
  model: ModelRef | null;
  thinkingLevel: string | null;
  /** The session file's version as it is on disk (1, 2 or 3); null when unknown (no detail yet). */
  fileVersion: number | null;
  readOnly: SessionReadOnly | null;
}

/** The view facts of a session detail. */
export function viewFacts(session: SessionDetailSession | null | undefined): ViewFacts {
  if (session === null || session === undefined) return { model: null, thinkingLevel: null, fileVersion: null, readOnly: null };
  return {
    model: session.model ?? null,
    thinkingLevel: session.thinkingLevel ?? null,
    fileVersion: typeof session.fileVersion === "number" ? session.fileVersion : null,
    readOnly: session.readOnly ?? null,
  };
}

export type FileUpgradedNotice = Extract<RuntimeNotice, { kind: "file-upgraded" }>;
export type ModelFallbackNotice = Extract<RuntimeNotice, { kind: "model-fallback" }>;

const KNOWN_KINDS = new Set<string>(["file-upgraded", "model-fallback"]);

/** The notices of a runtime state (`state.notices`): the known kinds with words to show. */
export function runtimeNotices(state: { notices?: RuntimeNotice[] } | null | undefined): RuntimeNotice[] {
  const list = state?.notices;
  if (!Array.isArray(list)) return [];
  return list.filter((notice) => KNOWN_KINDS.has(notice.kind) && typeof notice.message === "string" && notice.message !== "");
}

/** A stable key of a notice within one session (to show each once). */
export function noticeKey(sessionId: string, notice: RuntimeNotice): string {
  return notice.kind === "file-upgraded"
    ? `${sessionId}|file-upgraded|${notice.backupPath}|${notice.fromVersion}`
    : `${sessionId}|model-fallback|${notice.message}`;
}
/** A short label of a model fallback for the composer's toolbar (the full message is its tooltip). */
export function fallbackLabel(notice: ModelFallbackNotice): string {
  const requested = notice.requested.id;
  return notice.used === null ? `${requested} is not available here` : `${notice.used.id} instead of ${requested} (not available here)`;
}

export const FALLBACK_ENTRY_PREFIX = "notice:model-fallback:";

/** A model fallback as a transcript system line (the header reads "System · <message>"). */
export function fallbackEntry(key: string, notice: ModelFallbackNotice, timestamp: string): SystemTranscriptEntry {
  return {
    id: `${FALLBACK_ENTRY_PREFIX}${key}`,
    type: "system",
    label: "System",
    code: notice.message,
    sections: [],
    toolsAdded: [],
    toolsRemoved: [],
    text: notice.message,
    timestamp,
    rolloutFeedback: "",
    rolloutFeedbackText: "",
  };
}

/**
 * The transcript with system lines placed after the entry that was last when each first appeared
 * (`afterId` null: before everything; an id no longer in the list: at the end).
 */
export function withPlacedEntries(
  entries: readonly TranscriptEntry[],
  placed: ReadonlyArray<{ afterId: string | null; entry: TranscriptEntry }>,
): TranscriptEntry[] {
  if (placed.length === 0) return entries as TranscriptEntry[];
  const result = [...entries];
  for (const { afterId, entry } of placed) {
    const index = afterId === null ? -1 : result.findIndex((candidate) => candidate.id === afterId);
    if (afterId !== null && index === -1) result.push(entry);
    else result.splice(index + 1, 0, entry);
  }
  return result;
}
