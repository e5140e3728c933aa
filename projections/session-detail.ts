/**
 * SessionDetail (spec "Session detail") of a persisted session file, from the projections an opened session
 * holds (`index.session$`: session summary + transcript). Pure given the projection states, the file's mtime
 * and header version, and one probe the caller supplies: whether the session's cwd exists (`readOnly` when it
 * does not).
 * The transcript carries the research annotations of the branch's research state (the report message's
 * `researchReport`, researcher `subagent` calls' `researchThreads`: domain/transcript/research-transcript.ts).
 * `model` and `thinkingLevel` come from the branch's own entries (domain/session-settings.ts), so the page can
 * show them before any runtime exists.
 */
import { cwdMissingMessage, type SessionDetail, type SessionDetailSession, type SessionReadOnly } from "../domain/session-detail.ts";
import { sessionSettingsOf } from "../domain/session-settings.ts";
import { FIRST_MESSAGE_LIMIT, truncateText } from "../domain/session-summary.ts";
import { researchStateFromEntries } from "../domain/research/research.fold.ts";
import { branchEntries, effectiveLeaf, type MovedLeaf } from "../domain/session-tree-view.ts";
import { withResearchAnnotations } from "../domain/transcript/research-transcript.ts";
import { transcriptOfPath } from "../domain/transcript/transcript-builder.ts";
import type { TranscriptEntry } from "../domain/transcript/transcript-types.ts";
import {
  selectResearchState,
  selectSessionSummary,
  sessionSummaryProjection,
  type SessionSummaryState,
} from "./session-summary.projection.ts";
import { selectTranscript, transcriptProjection, type TranscriptState } from "./transcript.projection.ts";

export type { SessionDetail, SessionDetailSession } from "../domain/session-detail.ts";

/** pi's `calculateContextTokens`: totalTokens, else the sum of the parts. */
function usageTokens(usage: {
  totalTokens?: unknown;
  input?: unknown;
  output?: unknown;
  cacheRead?: unknown;
  cacheWrite?: unknown;
}): number {
  if (typeof usage.totalTokens === "number" && usage.totalTokens > 0) return usage.totalTokens;
  let sum = 0;
  for (const part of [usage.input, usage.output, usage.cacheRead, usage.cacheWrite]) {
    if (typeof part === "number" && Number.isFinite(part)) sum += part;
  }
  return sum;
}

/**
 * The context size as pi's getContextUsage knows it from the file alone: the usage of the last assistant
 * message that was not aborted or failed; unknown (null) when there is none, when a compaction came after it
 * (its usage is the pre-compaction size), or when it reports no tokens. Unlike pi, trailing messages after
 * that usage are not estimated.
 */
export function contextTokensOf(entries: readonly TranscriptEntry[]): number | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as TranscriptEntry;
    if (entry.type === "compaction") return null;
    if (entry.type === "message" && entry.role === "assistant") {
      if (entry.stopReason === "aborted" || entry.stopReason === "error") continue;
      const tokens = usageTokens(entry.usage);
      return tokens > 0 ? tokens : null;
    }
  }
  return null;
}

/**
 * The transcript a session shows: the folded active branch, or, while a runtime's leaf moved without writing
 * (`moved`, domain/session-tree-view.ts `effectiveLeaf`), the branch ending at that leaf (built from its path).
 */
export function selectBranchTranscript(state: TranscriptState, moved: MovedLeaf | null | undefined): TranscriptEntry[] {
  const leaf = effectiveLeaf(state.tree, moved);
  if (leaf === state.tree.leafId) return selectTranscript(state);
  return transcriptOfPath(branchEntries(state.tree, leaf));
}

/** `readOnly` of a session whose cwd is `cwd`: null while the folder exists. */
export function readOnlyOf(cwd: string, cwdExists: (cwd: string) => boolean): SessionReadOnly | null {
  return cwd !== "" && !cwdExists(cwd) ? { reason: "cwd-missing", message: cwdMissingMessage(cwd) } : null;
}

function hasUserMessage(entries: readonly TranscriptEntry[]): boolean {
  return entries.some((entry) => entry.type === "message" && entry.role === "user");
}

/**
 * The detail of a folded session file, or null when the file is not a session (no header).
 * `file.mtimeMs` stands in for times the file does not record (as in the list); `file.version` is the header's
 * version as written (the decoder's; the records say 3 after the in-memory migration), 1 when unknown.
 */
export function selectSessionDetail(
  states: Readonly<Record<string, unknown>>,
  file: { path: string; mtimeMs: number; version?: number | null },
  cwdExists: (cwd: string) => boolean,
  moved?: MovedLeaf | null,
): SessionDetail | null {
  const summaryState = states[sessionSummaryProjection.name] as SessionSummaryState | undefined;
  const transcriptState = states[transcriptProjection.name] as TranscriptState | undefined;
  if (summaryState === undefined || transcriptState === undefined) return null;
  const summary = selectSessionSummary(summaryState, file);
  if (summary === null) return null;
  // A leaf a runtime moved without writing: that branch's own research state (its ledger and report).
  const leaf = effectiveLeaf(transcriptState.tree, moved);
  const research =
    leaf === transcriptState.tree.leafId
      ? selectResearchState(summaryState)
      : researchStateFromEntries(summary.id, branchEntries(transcriptState.tree, leaf));
  const entries = withResearchAnnotations(selectBranchTranscript(transcriptState, moved), research);
  const fallbackTime = new Date(Number.isFinite(file.mtimeMs) ? file.mtimeMs : 0).toISOString();
  const settings = sessionSettingsOf(entries);
  const session: SessionDetailSession = {
    ...summary,
    sessionFile: file.path,
    messageCount: summary.messageCount,
    contextTokens: contextTokensOf(entries),
    modified: summary.modified ?? fallbackTime,
    created: summary.timestamp ?? fallbackTime,
    research,
    model: settings.model,
    thinkingLevel: settings.thinkingLevel,
    fileVersion: file.version ?? 1,
    readOnly: readOnlyOf(summary.cwd, cwdExists),
    usage: { ...summaryState.usage },
  };
  // Spec: detail uses the research objective for firstMessage when the branch has no user message.
  if (research !== null && research.objective !== "" && !hasUserMessage(entries)) {
    session.firstMessage = truncateText(research.objective, FIRST_MESSAGE_LIMIT);
  }
  return { session, entries };
}
