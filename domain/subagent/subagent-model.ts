/**
 * The effective model of a subagent (spec "Subagent routes"): stored overrides by precedence session, project,
 * global, then the static model (the agent definition's, or the one the caller passes). Thinking comes only
 * from the static thinking level. Empty or blank values count as absent.
 */
import type { SubagentModelOverrides, SubagentModelSource, SubagentResolution } from "./subagent-types.ts";

export interface SubagentModelInput {
  readonly overrides: Readonly<SubagentModelOverrides>;
  readonly staticModel?: string | undefined;
  readonly staticThinking?: string | undefined;
}

/** Override scopes in precedence order. */
export const OVERRIDE_PRECEDENCE = ["session", "project", "global"] as const;

function present(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

export function resolveSubagentModel(input: SubagentModelInput): SubagentResolution {
  let model: string | undefined;
  let modelSource: SubagentModelSource = "definition";
  for (const scope of OVERRIDE_PRECEDENCE) {
    const value = present(input.overrides[scope]);
    if (value !== undefined) {
      model = value;
      modelSource = scope;
      break;
    }
  }
  model ??= present(input.staticModel);
  const thinking = present(input.staticThinking);
  return {
    ...(model !== undefined ? { model } : {}),
    modelSource,
    ...(thinking !== undefined ? { thinking } : {}),
    thinkingSource: "definition",
  };
}
