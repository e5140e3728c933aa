/**
 * Row type of `subagent_model_overrides` (created by migrations/0002-subagent-overrides.ts): the single source
 * of this table's types.
 *
 * - `agent_key`: the agent's key (`source:canonical path#name`, domain/subagent/agent-definition.ts).
 * - `scope`: "global" | "project" | "session" (a CHECK constraint holds it to these).
 * - `scope_id`: "" for global, the project id (subagent-context.ts) for project, the canonical session file
 *   for session.
 * - `model`: the override, non-empty (the routes refuse an empty one; deleting the row clears it).
 * - `updated_at`: milliseconds since the epoch of the last write.
 */
import type { Insertable, Selectable } from "kysely";
import type { SubagentScope } from "../../domain/subagent/subagent-types.ts";

export interface SubagentModelOverrideTable {
  agent_key: string;
  scope: SubagentScope;
  scope_id: string;
  model: string;
  updated_at: number;
}

export type SubagentModelOverrideRow = Selectable<SubagentModelOverrideTable>;
export type NewSubagentModelOverride = Insertable<SubagentModelOverrideTable>;
