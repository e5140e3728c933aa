/**
 * The decisions of the `research_update` tool (design/architecture.md, "Research tools the models see"):
 * a call and the current research state in, the research events to append and the text the lead reads out.
 * Pure; an unusable call throws `ResearchUpdateError` (the tool reports it as a tool error, nothing is written).
 *
 * - `plan`: the strategy and the threads (at least one) → a `plan` event.
 * - `phase`: `phase` → a `phase` event with `note`, and at the report checkpoint `title` and `citedSourceIds`
 *   (ids that name no usable ledger source are left out and named in the answer).
 * - `sources`: registers `sources` for `threadId` through the ledger rules (`registerSources`: at most 20 per
 *   call, 60 per session, merged by canonical key) → one `source` event per new or merged source, plus a
 *   `thread` event adding the ids to a known thread; the answer lists assigned and rejected sources.
 * - `exclude`: `sourceId` with a `reason` (`excludeSource`) → a `source` event of the excluded record.
 */
import { isRecord, normalizeIds } from "../../domain/research/research-normalize.ts";
import { excludeSource, registerSources, sourceEventPayload, sourceKey } from "../../domain/research/source-ledger.ts";
import type {
  ResearchEvent,
  ResearchPhase,
  ResearchPlanThread,
  ResearchSource,
  ResearchState,
} from "../../domain/research/research-types.ts";

export const RESEARCH_UPDATE_ACTIONS = ["plan", "phase", "sources", "exclude"] as const;
export type ResearchUpdateAction = (typeof RESEARCH_UPDATE_ACTIONS)[number];

/** The tool's arguments (the schema in research-update.tool.ts). */
export interface ResearchUpdateParams {
  action: ResearchUpdateAction;
  phase?: ResearchPhase;
  strategy?: string;
  threads?: ResearchPlanThread[];
  threadId?: string;
  sources?: unknown[];
  sourceId?: number;
  reason?: string;
  note?: string;
  title?: string;
  citedSourceIds?: number[];
}

export class ResearchUpdateError extends Error {
  override readonly name = "ResearchUpdateError";
}

export interface ResearchUpdateOutcome {
  events: ResearchEvent[];
  /** What the lead reads as the tool result. */
  text: string;
  /** The source ids the call assigned or merged into, in input order (sources action). */
  sourceIds: number[];
}

/** The events and answer of one research_update call (see the module comment). */
export function researchUpdate(state: ResearchState, params: ResearchUpdateParams): ResearchUpdateOutcome {
  switch (params.action) {
    case "plan":
      return plan(state, params);
    case "phase":
      return phase(state, params);
    case "sources":
      return sources(state, params);
    case "exclude":
      return exclude(state, params);
    default:
      throw new ResearchUpdateError(`Unknown action ${JSON.stringify(params.action)}: use plan, phase, sources or exclude`);
  }
}

function plan(state: ResearchState, params: ResearchUpdateParams): ResearchUpdateOutcome {
  const threads = params.threads ?? [];
  if (threads.length === 0) throw new ResearchUpdateError("A plan needs threads: [{ id, title, task }, ...]");
  const event: ResearchEvent = {
    kind: "plan",
    sessionId: state.sessionId,
    strategy: params.strategy ?? "",
    threads: threads.map((t) => ({ id: t.id, title: t.title, task: t.task })),
  };
  const ids = threads.map((t) => t.id).join(", ");
  return {
    events: [event],
    text: `Plan recorded with ${threads.length} thread${threads.length === 1 ? "" : "s"} (${ids}). Now run the researchers: subagent {"tasks": [{"agent": "researcher", "task": "<thread id>: <task>"}, ...]}.`,
    sourceIds: [],
  };
}

function phase(state: ResearchState, params: ResearchUpdateParams): ResearchUpdateOutcome {
  if (params.phase === undefined) throw new ResearchUpdateError("The phase action needs phase: plan, gather, synthesize or report");
  const notes: string[] = [];
  let citedSourceIds: number[] | undefined;
  if (params.citedSourceIds !== undefined) {
    const requested = normalizeIds(params.citedSourceIds);
    citedSourceIds = requested.filter((id) => usable(state.sources, id));
    const dropped = requested.filter((id) => !citedSourceIds?.includes(id));
    if (dropped.length > 0) notes.push(`Left out of citedSourceIds (not a usable ledger source): ${dropped.join(", ")}.`);
  }
  const event: ResearchEvent = {
    kind: "phase",
    sessionId: state.sessionId,
    phase: params.phase,
    ...(params.note !== undefined ? { note: params.note } : {}),
    ...(params.title !== undefined ? { title: params.title } : {}),
    ...(citedSourceIds !== undefined ? { citedSourceIds } : {}),
  };
  const head =
    params.phase === "report"
      ? "Report checkpoint recorded. Write the report now, as your final answer, citing ledger sources as [id](URL or path)."
      : `Phase ${params.phase} recorded.`;
  return { events: [event], text: [head, ...notes].join(" "), sourceIds: [] };
}

function sources(state: ResearchState, params: ResearchUpdateParams): ResearchUpdateOutcome {
  const inputs = params.sources ?? [];
  if (inputs.length === 0) throw new ResearchUpdateError("The sources action needs sources: [{ url or path, title, ... }]");
  const threadId = params.threadId?.trim() ?? "";
  const registered = registerSourceEvents(state, threadId, inputs);
  return { events: registered.events, text: registered.text, sourceIds: registered.sourceIds };
}

/**
 * Registration shared by the lead's `sources` action and the automatic registration of a worker's result:
 * the `source` events of every new or merged source, a `thread` event with the thread's united source ids
 * when `threadId` names a known thread and `updateThread` is set, and a text naming what was assigned and
 * what was rejected.
 */
export function registerSourceEvents(
  state: ResearchState,
  threadId: string,
  inputs: readonly unknown[],
  options: { updateThread?: boolean } = {},
): { events: ResearchEvent[]; text: string; sourceIds: number[]; rejected: string[] } {
  const { state: next, report } = registerSources(state, threadId, inputs);
  // The registered sources in input order (each once).
  const rejectedAt = new Set(report.rejected.map((r) => r.index));
  const ordered: ResearchSource[] = [];
  inputs.forEach((raw, index) => {
    if (rejectedAt.has(index) || !isRecord(raw)) return;
    const key = sourceKey(raw);
    const source = next.sources.find((s) => s.key === key);
    if (source && !ordered.includes(source)) ordered.push(source);
  });
  const sourceIds = ordered.map((s) => s.id);
  const events: ResearchEvent[] = ordered.map((source) => ({
    kind: "source",
    sessionId: state.sessionId,
    source: sourceEventPayload(source),
  }));
  const thread = threadId ? state.threads.find((t) => t.id === threadId) : undefined;
  if (thread && (options.updateThread ?? true) && sourceIds.length > 0) {
    const united = normalizeIds([...thread.sourceIds, ...sourceIds]);
    events.push({ kind: "thread", sessionId: state.sessionId, thread: { id: thread.id, sourceIds: united } });
  }
  const lines: string[] = [];
  for (const source of ordered) {
    const merged = report.merged.includes(source.id) ? " (already in the ledger; merged)" : "";
    lines.push(`[${source.id}] ${source.url || source.path} | ${source.title}${merged}`);
  }
  const rejected = report.rejected.map((r) => `source #${r.index + 1}: ${r.reason}`);
  const parts: string[] = [];
  parts.push(
    lines.length > 0
      ? `Registered ${lines.length} source${lines.length === 1 ? "" : "s"}; cite them by these ids:\n${lines.join("\n")}`
      : "No source was registered.",
  );
  if (rejected.length > 0) parts.push(`Rejected ${rejected.length}:\n${rejected.join("\n")}`);
  return { events, text: parts.join("\n"), sourceIds, rejected };
}

function exclude(state: ResearchState, params: ResearchUpdateParams): ResearchUpdateOutcome {
  if (params.sourceId === undefined) throw new ResearchUpdateError("The exclude action needs sourceId");
  const result = excludeSource(state, params.sourceId, params.reason ?? "");
  if (!result.ok) throw new ResearchUpdateError(result.error);
  return {
    events: [{ kind: "source", sessionId: state.sessionId, source: sourceEventPayload(result.source) }],
    text: `Source ${result.source.id} excluded (${result.source.exclusionReason}). Do not cite it.`,
    sourceIds: [result.source.id],
  };
}

function usable(sources: readonly ResearchSource[], id: number): boolean {
  return sources.some((s) => s.id === id && s.status !== "excluded");
}
