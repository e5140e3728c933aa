/**
 * The check of a research report after the lead's final response (spec/deep-research.md, "Source registration
 * and citation checks").
 *
 * It applies when the research state is at its report checkpoint (phase "report") and not yet complete, and
 * the run ended with a final assistant message (stop reason "stop", with text) as the last message of the
 * branch, after the last report checkpoint. That message is the report: valid citations against the ledger → a `report` event naming its entry,
 * the checkpoint's title and the validly cited source ids; any invalid numeric citation, a citation of an
 * excluded source, or no valid citation although usable sources exist → an `error` event naming the
 * citations and the reasons. A run that ended otherwise (aborted, failed, tool call) records nothing.
 */
import { validateReportCitations } from "../../domain/research/citations.ts";
import { parseResearchEvent } from "../../domain/research/research-event.ts";
import { finalAssistantText, reportErrorEvent } from "../../domain/research/research-replay.ts";
import type { ResearchEvent, ResearchState } from "../../domain/research/research-types.ts";
import type { SessionEntry } from "../../domain/session-log.ts";

/** The report or error event for the final response that ends `branch`, or null when none applies. */
export function finalReportEvent(state: ResearchState | null, branch: readonly SessionEntry[]): ResearchEvent | null {
  if (state === null || state.phase !== "report" || state.status === "complete") return null;
  let last: SessionEntry | undefined;
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i];
    if (entry === undefined) continue;
    if (entry.type === "message") {
      last = entry;
      break;
    }
    const event = parseResearchEvent(entry);
    // The report follows its checkpoint: a checkpoint after the last message (a fork replay) has no report yet.
    if (event?.kind === "phase" && event.phase === "report" && event.sessionId === state.sessionId) break;
  }
  if (last === undefined || last.type !== "message") return null;
  const text = finalAssistantText(last.message);
  if (text === null) return null;
  const check = validateReportCitations(text, state.sources);
  if (!check.valid) return reportErrorEvent(state.sessionId, check.errors);
  return {
    kind: "report",
    sessionId: state.sessionId,
    reportEntryId: last.id,
    ...(state.reportTitle ? { title: state.reportTitle } : {}),
    citedSourceIds: check.citedSourceIds,
  };
}
