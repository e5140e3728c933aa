/**
 * The subagent services the routes and the execution route share: the list view of GET /api/pi/subagents,
 * finding an agent by key or name, and `resolveSubagentSettings` (the model and thinking level a subagent runs
 * with, per the spec's precedence).
 *
 * Static model and thinking: the caller's `staticModel` / `staticThinking` when non-blank, else the agent
 * definition's `model` / `thinking` (so a caller that passes nothing gets what GET /api/pi/subagents shows as
 * `effectiveModel`). The built-in researcher takes no stored overrides: its model is the caller's static model
 * (the task's explicit model, else the parent's), its thinking the caller's static thinking.
 */
import type { Kysely } from "kysely";
import {
  RESEARCHER_AGENT,
  RESEARCHER_AGENT_KEY,
  isReservedAgentName,
  type BuiltinAgentDefinition,
} from "../../domain/subagent/researcher-agent.ts";
import { resolveSubagentModel } from "../../domain/subagent/subagent-model.ts";
import type {
  AgentDefinition,
  SubagentContext,
  SubagentListItem,
  SubagentResolution,
  SubagentsView,
} from "../../domain/subagent/subagent-types.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import { discoverAgentDefinitions, type AgentDiscovery } from "./agent-definitions.ts";
import { resolveSubagentContext } from "./subagent-context.ts";
import { listSubagentOverrides, subagentOverridesOf } from "./subagent-overrides.ts";

export interface SubagentLookupInput {
  /** pi's agent dir (user agents in `<agentDir>/agents`). */
  readonly agentDir: string;
  readonly cwd: string;
  readonly sessionPath?: string | undefined;
  /** The id of a canonical session file when something in memory knows it (open runtimes, the index). */
  readonly sessionIdOf?: ((sessionFile: string) => string | null) | undefined;
}

export interface SubagentLookup {
  readonly context: SubagentContext;
  readonly discovery: AgentDiscovery;
}

/** The context of a request and the agents discovered from its cwd. */
export function lookupSubagents(input: SubagentLookupInput): SubagentLookup {
  const context = resolveSubagentContext(input);
  return { context, discovery: discoverAgentDefinitions({ agentDir: input.agentDir, cwd: context.cwd }) };
}

/** The agent of `agentKey` (exact), else of `agentName`; the researcher by its key or name; else null. */
export function findSubagent(
  discovery: AgentDiscovery,
  ref: { readonly agentKey?: string | undefined; readonly agentName?: string | undefined },
): AgentDefinition | BuiltinAgentDefinition | null {
  if (ref.agentKey !== undefined && ref.agentKey !== "") {
    if (ref.agentKey === RESEARCHER_AGENT_KEY) return RESEARCHER_AGENT;
    return discovery.agents.find((agent) => agent.key === ref.agentKey) ?? null;
  }
  const name = ref.agentName?.trim() ?? "";
  if (name === "") return null;
  if (isReservedAgentName(name)) return RESEARCHER_AGENT;
  return discovery.agents.find((agent) => agent.name === name) ?? null;
}

function nonBlank(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value : undefined;
}

/** GET /api/pi/subagents: the context and every discovered agent with its overrides and effective model. */
export async function subagentsView(db: Kysely<LeylineDatabase>, lookup: SubagentLookup): Promise<SubagentsView> {
  const { context, discovery } = lookup;
  const overridesByKey = await listSubagentOverrides(db, { projectId: context.projectId, sessionFile: context.sessionFile });
  const agents = discovery.agents.map((agent): SubagentListItem => {
    const overrides = overridesByKey[agent.key] ?? {};
    const resolution = resolveSubagentModel({ overrides, staticModel: agent.model });
    return {
      key: agent.key,
      name: agent.name,
      description: agent.description,
      source: agent.source,
      path: agent.path,
      model: agent.model,
      thinking: agent.thinking,
      tools: [...agent.tools],
      overrides,
      effectiveModel: resolution.model ?? "",
      modelSource: resolution.modelSource,
    };
  });
  return { context, agents };
}

export interface ResolveSubagentSettingsInput extends SubagentLookupInput {
  /** The agent's key (wins over `agentName`); `RESEARCHER_AGENT_KEY` names the researcher. */
  readonly agentKey?: string | undefined;
  /** The agent's name, as the subagent tool's `agent` field gives it. */
  readonly agentName?: string | undefined;
  readonly staticModel?: string | undefined;
  readonly staticThinking?: string | undefined;
}

export interface SubagentSettings extends SubagentResolution {
  /** The agent that runs: a file definition, or the built-in researcher. */
  readonly agent: AgentDefinition | BuiltinAgentDefinition;
  readonly context: SubagentContext;
}

/**
 * The model and thinking level a subagent runs with (POST /api/pi/subagents/resolve, and the execution
 * route): stored overrides by precedence session (when a session is given), project, global, then the static
 * model. Null when no agent has that key or name.
 */
export async function resolveSubagentSettings(
  db: Kysely<LeylineDatabase>,
  input: ResolveSubagentSettingsInput,
): Promise<SubagentSettings | null> {
  const lookup = lookupSubagents(input);
  const agent = findSubagent(lookup.discovery, input);
  if (agent === null) return null;
  const { context } = lookup;
  if (agent.source === "builtin") {
    const resolution = resolveSubagentModel({ overrides: {}, staticModel: input.staticModel, staticThinking: input.staticThinking });
    return { ...resolution, agent, context };
  }
  const overrides = await subagentOverridesOf(db, agent.key, { projectId: context.projectId, sessionFile: context.sessionFile });
  const resolution = resolveSubagentModel({
    overrides,
    staticModel: nonBlank(input.staticModel) ?? agent.model,
    staticThinking: nonBlank(input.staticThinking) ?? agent.thinking,
  });
  return { ...resolution, agent, context };
}

/** The DTO of POST /api/pi/subagents/resolve. */
export function resolutionDto(settings: SubagentResolution): SubagentResolution {
  return {
    ...(settings.model !== undefined ? { model: settings.model } : {}),
    modelSource: settings.modelSource,
    ...(settings.thinking !== undefined ? { thinking: settings.thinking } : {}),
    thinkingSource: settings.thinkingSource,
  };
}
