/**
 * The lead protocol the research extension appends to the system prompt before each research turn
 * (spec/deep-research.md, "Lead protocol"): the seven steps, the tool shapes to use for them, and the current
 * research state with the full source ledger (ids, URLs or paths, titles), so that the lead can cite by number.
 *
 * The protocol starts automatically; it asks for plan approval only when the user asked for a pause. It is a
 * model instruction: nothing here can guarantee plan quality, source quality or claim coverage.
 */
import { cleanText } from "../../domain/research/research-normalize.ts";
import type { ResearchSource, ResearchState, ResearchThread } from "../../domain/research/research-types.ts";
import { RESEARCH_UPDATE_TOOL } from "./research-session.ts";

/** The name of the reserved researcher agent (domain/subagent/researcher-agent.ts); repeated here as prompt text. */
const RESEARCHER = "researcher";

/** The system prompt section the protocol goes in; pi wraps it as `<name>…</name>`. */
export const LEAD_PROTOCOL_SECTION = "leyline_research_protocol";
export const LEAD_PROTOCOL_START = `<${LEAD_PROTOCOL_SECTION}>`;
export const LEAD_PROTOCOL_END = `</${LEAD_PROTOCOL_SECTION}>`;

/** The protocol text for the current state: the body of the LEAD_PROTOCOL_SECTION section of the turn's prompt. */
export function leadProtocolPrompt(state: ResearchState): string {
  return [
    "This is a Leyline deep research session and you are the research lead. Work through these steps on your own, without asking for approval; pause after step 2 for the user to approve the plan only if the user asked you to.",
    "",
    `1. Create two to five independent research threads that together cover the objective. Give each a short id (t1, t2, ...), a title and a self-contained task.`,
    `2. Persist the plan before delegating: call ${RESEARCH_UPDATE_TOOL} with {"action": "plan", "strategy": "...", "threads": [{"id": "t1", "title": "...", "task": "..."}]}.`,
    `3. Run the reserved ${RESEARCHER} agent in parallel mode, one task per thread, each task starting with its thread id and a colon: call subagent with {"tasks": [{"agent": "${RESEARCHER}", "task": "t1: <task>"}, ...]}. At most four run at once; further tasks wait for a later batch. Each worker's sources are registered in the source ledger automatically and the result tells you their ids.`,
    `4. Register structured source evidence you gathered yourself: ${RESEARCH_UPDATE_TOOL} {"action": "sources", "threadId": "t1", "sources": [{"url": "https://..." (or "path": "docs/file.md"), "title": "...", "publisher": "...", "publishedAt": "...", "kind": "...", "claim": "...", "evidence": "..."}]}. Exclude a source that turns out unreliable or irrelevant: {"action": "exclude", "sourceId": 3, "reason": "..."}.`,
    `5. Mark the phases: {"action": "phase", "phase": "synthesize"} when you start the synthesis, then the report checkpoint {"action": "phase", "phase": "report", "title": "<report title>", "citedSourceIds": [1, 2]}.`,
    "6. Cite with numeric Markdown links that match the source ledger exactly: [n](URL or path of source n), for example [1](https://example.org/page). Cite only ledger sources that are not excluded, and use no other numeric links.",
    "7. Write the report immediately after the report checkpoint, as your final answer: Markdown with the title as heading, the findings with citations, and open questions.",
    "",
    ...stateLines(state),
  ].join("\n");
}

function stateLines(state: ResearchState): string[] {
  const lines = [`Current research state: phase ${state.phase}, status ${state.status}.`];
  if (state.objective) lines.push(`Objective: ${oneLine(state.objective, 600)}`);
  if (state.error) lines.push(`Last error: ${oneLine(state.error, 600)}`);
  if (state.threads.length > 0) {
    lines.push("Threads:");
    for (const thread of state.threads) lines.push(threadLine(thread));
  }
  if (state.sources.length === 0) {
    lines.push("Source ledger: empty.");
  } else {
    lines.push(`Source ledger (${state.sources.length}; cite as [id](URL or path)):`);
    for (const source of state.sources) lines.push(sourceLine(source));
  }
  return lines;
}

function threadLine(thread: ResearchThread): string {
  const sources = thread.sourceIds.length > 0 ? `, sources ${thread.sourceIds.join(", ")}` : "";
  const error = thread.error ? `, error: ${oneLine(thread.error, 200)}` : "";
  return `- ${thread.id} (${thread.status}${sources}${error}): ${oneLine(thread.title, 200)}`;
}

function sourceLine(source: ResearchSource): string {
  const location = source.url || source.path;
  const excluded = source.status === "excluded" ? ` [excluded: ${oneLine(source.exclusionReason, 200)}; do not cite]` : "";
  return `[${source.id}] ${location} | ${oneLine(source.title, 200)}${excluded}`;
}

function oneLine(text: string, max: number): string {
  return cleanText(text.replace(/\s+/g, " "), max);
}
