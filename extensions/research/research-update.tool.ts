/**
 * The `research_update` tool as pi sees it: the parameter schema of design/architecture.md ("Research tools
 * the models see"; prompts and existing transcripts depend on it) and an `execute` that folds the branch,
 * decides with `researchUpdate` and appends the events. Registered only in a research session (index.ts).
 */
import { Type } from "typebox";
import type { ExtensionAPI, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { RESEARCH_PHASES, RESEARCH_SOURCE_STATUSES } from "../../domain/research/research-types.ts";
import { appendResearchEvents, currentResearchState, RESEARCH_UPDATE_TOOL } from "./research-session.ts";
import { RESEARCH_UPDATE_ACTIONS, researchUpdate, type ResearchUpdateAction } from "./research-update.ts";

/**
 * A string enum as a plain `{type: "string", enum}` schema (no anyOf/const, which some providers refuse), typed
 * as the union of its values: the schema pi 0.x's StringEnum made, which the prompts and transcripts know.
 */
function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({
    type: "string",
    enum: [...values],
    ...(options.description !== undefined ? { description: options.description } : {}),
  });
}

const ThreadSchema = Type.Object({
  id: Type.String({ description: "Short thread id, e.g. t1" }),
  title: Type.String(),
  task: Type.String({ description: "Self-contained task for the researcher" }),
});

const SourceSchema = Type.Object({
  id: Type.Optional(Type.Number()),
  url: Type.Optional(Type.String({ description: "http(s) URL (or give path)" })),
  path: Type.Optional(Type.String({ description: "Local file path (or give url)" })),
  title: Type.String(),
  publisher: Type.Optional(Type.String()),
  publishedAt: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  status: Type.Optional(StringEnum(RESEARCH_SOURCE_STATUSES)),
  threadId: Type.Optional(Type.String()),
  claim: Type.Optional(Type.String()),
  evidence: Type.Optional(Type.String()),
  exclusionReason: Type.Optional(Type.String()),
});

export const ResearchUpdateSchema = Type.Object({
  action: StringEnum(RESEARCH_UPDATE_ACTIONS, { description: "plan | phase | sources | exclude" }),
  phase: Type.Optional(StringEnum(RESEARCH_PHASES)),
  strategy: Type.Optional(Type.String()),
  threads: Type.Optional(Type.Array(ThreadSchema)),
  threadId: Type.Optional(Type.String()),
  sources: Type.Optional(Type.Array(SourceSchema)),
  sourceId: Type.Optional(Type.Number()),
  reason: Type.Optional(Type.String()),
  note: Type.Optional(Type.String()),
  title: Type.Optional(Type.String({ description: "Report title (at the report checkpoint)" })),
  citedSourceIds: Type.Optional(Type.Array(Type.Number())),
});

export interface ResearchUpdateDetails {
  action: ResearchUpdateAction;
  /** The source ids assigned, merged into or excluded by the call. */
  sourceIds: number[];
  /** Number of research events written. */
  events: number;
}

export function researchUpdateTool(
  pi: Pick<ExtensionAPI, "appendEntry">,
): ToolDefinition<typeof ResearchUpdateSchema, ResearchUpdateDetails> {
  return {
    name: RESEARCH_UPDATE_TOOL,
    label: "Research update",
    description: [
      "Record deep research progress in the research state of this session.",
      'action "plan": strategy and threads [{id, title, task}] (before delegating to researchers).',
      'action "phase": phase plan | gather | synthesize | report, optional note; at the report checkpoint also title and citedSourceIds.',
      'action "sources": register sources [{url or path, title, publisher, publishedAt, kind, claim, evidence}] for threadId; the result gives the ledger ids to cite.',
      'action "exclude": exclude sourceId with a reason.',
    ].join(" "),
    promptSnippet: "Record the research plan, phases, sources and exclusions of this deep research session",
    parameters: ResearchUpdateSchema,
    // Each call reads the state its predecessor wrote.
    executionMode: "sequential",
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const state = currentResearchState(ctx.sessionManager);
      if (state === null) throw new Error("This session is not a research session");
      const outcome = researchUpdate(state, params);
      appendResearchEvents(pi, outcome.events);
      return {
        content: [{ type: "text", text: outcome.text }],
        details: { action: params.action, sourceIds: outcome.sourceIds, events: outcome.events.length },
      };
    },
  };
}
