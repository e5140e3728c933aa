/**
 * What the bundled research and subagent extensions share about the research session they run in: the
 * research state of the current branch (folded from its `leyline-research` entries for the current session id)
 * and the one way they write research events (`pi.appendEntry(RESEARCH_CUSTOM_TYPE, data)`).
 *
 * The state is folded again on every read: the branch changes under the extension (tool calls, workers, a
 * leaf move), and the fold is cheap next to a model turn. Reads and the appends that follow them are
 * synchronous, so two tool calls running at once never interleave between a read and its write.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { researchEventEntryData } from "../../domain/research/research-event.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchEvent, type ResearchState } from "../../domain/research/research-types.ts";
import type { SessionEntry } from "../../domain/session-log.ts";

/** The tool the lead uses to record research progress (design/architecture.md, "Research tools the models see"). */
export const RESEARCH_UPDATE_TOOL = "research_update";

/** What is read from pi's session manager (structurally: `ctx.sessionManager`). */
export interface ResearchSessionSource {
  getSessionId(): string;
  getBranch(): SessionEntry[];
}

/** The research state of the current branch for the current session id; null outside a research session. */
export function currentResearchState(source: ResearchSessionSource): ResearchState | null {
  return researchStateFromEntries(source.getSessionId(), source.getBranch());
}

/** Appends research events, in order, as `leyline-research` custom entries. */
export function appendResearchEvents(pi: Pick<ExtensionAPI, "appendEntry">, events: readonly ResearchEvent[]): void {
  for (const event of events) pi.appendEntry(RESEARCH_CUSTOM_TYPE, researchEventEntryData(event));
}
