/**
 * The research step of a transcript (spec/deep-research.md "Browser projection and export"): given the
 * branch's research state, marks
 * - the report message (the assistant message whose entry id is the state's `reportEntryId`) with
 *   `researchReport`: title, cited source ids, every numeric citation checked against the ledger
 *   (citations.ts) and the support verdicts of its cited sentences (citation-support.ts);
 * - `subagent` tool entries that ran the reserved researcher with `researchThreads`: the threads named by
 *   their tasks ("<thread id>: <task>", as the lead protocol asks) or by the `<research_result>` blocks of
 *   their result, with status, summary, sources and child-session link from the state.
 *
 * Pure: entries are never mutated (they may be frozen projection state); annotated entries are new objects,
 * the others are reused. Without research state the input array is returned as is.
 */
import { assessCitationSupport } from "../research/citation-support.ts";
import { validateReportCitations } from "../research/citations.ts";
import type { ResearchState, ResearchThread } from "../research/research-types.ts";
import { RESEARCH_RESULT_TAG, RESEARCHER_AGENT_NAME } from "../subagent/researcher-agent.ts";
import { isRecord } from "./message-content.ts";
import type {
  AssistantMessageTranscriptEntry,
  ResearchReportDetails,
  ToolResearchThread,
  ToolTranscriptEntry,
  TranscriptEntry,
} from "./transcript-types.ts";

/** The name of the bundled subagent tool. */
export const SUBAGENT_TOOL_NAME = "subagent";

/** The transcript with research annotations (see the module comment). */
export function withResearchAnnotations(entries: TranscriptEntry[], research: ResearchState | null): TranscriptEntry[] {
  if (research === null) return entries;
  return entries.map((entry) => {
    if (entry.type === "message" && entry.role === "assistant" && research.reportEntryId !== "" && entry.id === research.reportEntryId) {
      const annotated: AssistantMessageTranscriptEntry = { ...entry, researchReport: researchReportDetails(entry.text, research) };
      return annotated;
    }
    if (entry.type === "tool" && entry.name === SUBAGENT_TOOL_NAME) {
      const threads = researcherThreads(entry, research);
      if (threads === null) return entry;
      const annotated: ToolTranscriptEntry = { ...entry, researchThreads: threads };
      return annotated;
    }
    return entry;
  });
}

/** `researchReport` for a report text: its citations against the ledger and the support of cited sentences. */
export function researchReportDetails(reportMarkdown: string, research: ResearchState): ResearchReportDetails {
  const validation = validateReportCitations(reportMarkdown, research.sources);
  const ids = new Set(research.sources.map((source) => source.id));
  return {
    title: research.reportTitle,
    citedSourceIds: [...research.citedSourceIds],
    citations: validation.citations.map((citation) => ({
      number: citation.n,
      target: citation.target,
      sourceId: ids.has(citation.n) ? citation.n : null,
      valid: citation.valid,
      reason: citation.valid ? "" : (citation.reason ?? "is invalid"),
    })),
    support: assessCitationSupport(reportMarkdown, research.sources),
  };
}

/**
 * The research threads of a `subagent` tool entry, or null when it ran no researcher. Thread ids come from
 * the researcher tasks (single `agent`/`task`, parallel `tasks`, or `chain`) and from the result's
 * `<research_result>` blocks; ids the state does not know are left out.
 */
export function researcherThreads(tool: ToolTranscriptEntry, research: ResearchState): ToolResearchThread[] | null {
  const tasks = researcherTasks(tool.arguments);
  if (tasks.length === 0) return null;
  const found: ResearchThread[] = [];
  const add = (thread: ResearchThread | undefined): void => {
    if (thread !== undefined && !found.includes(thread)) found.push(thread);
  };
  for (const task of tasks) add(threadOfTask(task, research.threads));
  for (const id of resultThreadIds(tool.resultText)) add(threadById(id, research.threads));
  return found.map((thread) => ({
    threadId: thread.id,
    title: thread.title,
    status: thread.status,
    summary: thread.summary,
    sourceIds: [...thread.sourceIds],
    childSession: thread.childSession === null ? null : { ...thread.childSession },
    error: thread.error,
  }));
}

/** The task texts of the researcher tasks in subagent arguments. */
export function researcherTasks(args: Record<string, unknown>): string[] {
  const tasks: string[] = [];
  const take = (item: unknown): void => {
    if (!isRecord(item) || item["agent"] !== RESEARCHER_AGENT_NAME) return;
    const task = item["task"];
    if (typeof task === "string") tasks.push(task);
  };
  take(args);
  for (const key of ["tasks", "chain"]) {
    const list = args[key];
    if (Array.isArray(list)) list.forEach(take);
  }
  return tasks;
}

/** The thread id a researcher task starts with ("t1: find x" → "t1"), or null. */
export function taskThreadId(task: string): string | null {
  const match = /^\s*([^\s:]{1,64})\s*:/.exec(task);
  return match?.[1] ?? null;
}

function threadById(id: string, threads: readonly ResearchThread[]): ResearchThread | undefined {
  const exact = threads.find((thread) => thread.id === id);
  if (exact !== undefined) return exact;
  const lower = id.toLowerCase();
  return threads.find((thread) => thread.id.toLowerCase() === lower);
}

function threadOfTask(task: string, threads: readonly ResearchThread[]): ResearchThread | undefined {
  const id = taskThreadId(task);
  const byId = id === null ? undefined : threadById(id, threads);
  if (byId !== undefined) return byId;
  const text = (id === null ? task : task.slice(task.indexOf(":") + 1)).trim();
  return text === "" ? undefined : threads.find((thread) => thread.task !== "" && thread.task === text);
}

const RESULT_BLOCK = new RegExp(`<${RESEARCH_RESULT_TAG}>([\\s\\S]*?)</${RESEARCH_RESULT_TAG}>`, "g");

/** The `threadId`s of the `<research_result>` blocks in a result text (blocks that are not JSON are skipped). */
export function resultThreadIds(text: string): string[] {
  const ids: string[] = [];
  for (const match of text.matchAll(RESULT_BLOCK)) {
    try {
      const parsed: unknown = JSON.parse(match[1] ?? "");
      if (isRecord(parsed) && typeof parsed["threadId"] === "string" && parsed["threadId"].trim() !== "") {
        ids.push(parsed["threadId"].trim());
      }
    } catch {
      // not JSON: the subagent extension reports such blocks itself
    }
  }
  return ids;
}
