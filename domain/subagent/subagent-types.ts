/**
 * The subagent DTOs of the spec's "Subagent routes" (GET/PUT/DELETE /api/pi/subagents..., POST
 * /api/pi/subagents/resolve) and the agent definitions they describe. Types only: the server builds them
 * (adapters/subagents), the client reads them.
 */

/** Where an override is stored. The UI surface fixes it: Agent defaults → global, Project settings → project,
 * Session details → session. */
export type SubagentScope = "global" | "project" | "session";

export const SUBAGENT_SCOPES: readonly SubagentScope[] = ["global", "project", "session"];

/** Where an effective model comes from: an override scope, else the agent definition (its static model). */
export type SubagentModelSource = "session" | "project" | "global" | "definition";

/** Stored model overrides of one agent that apply in one context, by scope. */
export interface SubagentModelOverrides {
  global?: string;
  project?: string;
  session?: string;
}

/** Where an agent definition file was found: `<agentDir>/agents` (user) or the nearest `.pi/agents` (project). */
export type AgentDefinitionSource = "user" | "project";

/**
 * An agent defined by a Markdown file with frontmatter (`name`, `description`, `tools`, `model`, `thinking`),
 * as in pi's subagent example. `model`, `thinking` are "" when the file sets none; `tools` is [] when it sets
 * none (the child runtime's default tools).
 */
export interface AgentDefinition {
  /** `agentKeyOf(source, path, name)`: see agent-definition.ts. */
  key: string;
  name: string;
  description: string;
  source: AgentDefinitionSource;
  /** The file's canonical path (symlinks resolved). */
  path: string;
  model: string;
  thinking: string;
  tools: string[];
  /** The Markdown body (trimmed). */
  systemPrompt: string;
}

/** The context of the subagent routes (spec `context`). */
export interface SubagentContext {
  cwd: string;
  projectId: string;
  projectName: string;
  projectRoot: string;
  /** Whether a session was given (`sessionPath`): only then can the session scope be read or written. */
  sessionAvailable: boolean;
  sessionFile: string | null;
  sessionId: string | null;
}

/** One agent of GET /api/pi/subagents. */
export interface SubagentListItem {
  key: string;
  name: string;
  description: string;
  source: AgentDefinitionSource;
  path: string;
  model: string;
  thinking: string;
  tools: string[];
  overrides: SubagentModelOverrides;
  effectiveModel: string;
  modelSource: SubagentModelSource;
}

/** The answer of GET /api/pi/subagents and of PUT/DELETE /api/pi/subagents/:agentKey/model. */
export interface SubagentsView {
  context: SubagentContext;
  agents: SubagentListItem[];
}

/** The answer of POST /api/pi/subagents/resolve. */
export interface SubagentResolution {
  model?: string;
  modelSource: SubagentModelSource;
  thinking?: string;
  thinkingSource: "definition";
}
