/**
 * Leyline's bundled research extension (spec/deep-research.md; design/architecture.md "Research mode").
 *
 * - session_start: reconciles the branch (research-reconcile.ts: a fork replays the retained research state
 *   bound to its own id; a reset that cut a valid report's event restores it), then, when the branch holds
 *   the marker of THIS session id (a `leyline-research` `session` event), registers `research_update`. A
 *   normal session never registers it, so its model never sees the tool. pi builds a fresh extension
 *   instance per runtime load (startup, reload, new, resume, fork), so the registration never leaks from one
 *   session into another; should a host reuse an instance, the tool is deactivated outside research sessions.
 * - before_agent_start (each research turn): records the `objective` from the first prompt and appends the
 *   lead protocol, with the current state and source ledger, to the system prompt.
 * - agent_end: at the report checkpoint, checks the final response's citations (report-check.ts) and
 *   records a `report` or an `error` event.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import { LEAD_PROTOCOL_SECTION, leadProtocolPrompt } from "./lead-protocol.ts";
import { reconcileResearch } from "./research-reconcile.ts";
import { appendResearchEvents, currentResearchState, RESEARCH_UPDATE_TOOL } from "./research-session.ts";
import { researchUpdateTool } from "./research-update.tool.ts";
import { finalReportEvent } from "./report-check.ts";

export default function researchExtension(pi: ExtensionAPI): void {
  let registered = false;

  const isResearchSession = (ctx: ExtensionContext): boolean => currentResearchState(ctx.sessionManager) !== null;

  pi.on("session_start", (_event, ctx) => {
    const sessionManager = ctx.sessionManager;
    const reconciliation = reconcileResearch(sessionManager.getSessionId(), sessionManager.getBranch());
    appendResearchEvents(pi, reconciliation.events);

    if (isResearchSession(ctx)) {
      if (!registered) {
        pi.registerTool(researchUpdateTool(pi));
        registered = true;
      }
      const active = pi.getActiveTools();
      if (!active.includes(RESEARCH_UPDATE_TOOL)) pi.setActiveTools([...active, RESEARCH_UPDATE_TOOL]);
    } else {
      const active = pi.getActiveTools();
      if (active.includes(RESEARCH_UPDATE_TOOL)) pi.setActiveTools(active.filter((name) => name !== RESEARCH_UPDATE_TOOL));
    }
  });

  pi.on("before_agent_start", (event, ctx) => {
    let state = currentResearchState(ctx.sessionManager);
    if (state === null) return undefined;
    const prompt = event.messageType === "user" ? event.prompt.trim() : "";
    if (state.objective === "" && prompt !== "") {
      appendResearchEvents(pi, [{ kind: "objective", sessionId: state.sessionId, objective: prompt }]);
      state = currentResearchState(ctx.sessionManager) ?? state;
    }
    // A prompt section, as pi 1.x asks: pi records it in the session as a system message (a patch when the
    // ledger or phase changed since the last run), so the transcript shows what the lead model was told.
    event.systemPromptOptions.sections[LEAD_PROTOCOL_SECTION] = leadProtocolPrompt(state);
    return undefined;
  });

  // agent_settled, not agent_end: pi 1.x may follow an agent_end with a retry or queued work.
  pi.on("agent_settled", (_event, ctx) => {
    const branch = ctx.sessionManager.getBranch();
    const event = finalReportEvent(researchStateFromEntries(ctx.sessionManager.getSessionId(), branch), branch);
    if (event !== null) appendResearchEvents(pi, [event]);
  });
}
