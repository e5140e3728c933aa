/**
 * The vision services the routes, the execution route and the prompt path share: the configuration view of
 * GET /api/pi/vision/config and `resolveVisionSettings` (POST /api/pi/vision/resolve: the model and thinking
 * the vision agent runs with). The context (project, session) is the subagent routes' (subagent-context.ts);
 * the precedence is domain/vision/vision-resolution.ts.
 */
import type { Kysely } from "kysely";
import { resolveVision, visionConfigValues } from "../../domain/vision/vision-resolution.ts";
import type { VisionConfig, VisionContext, VisionResolution } from "../../domain/vision/vision-types.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import { resolveSubagentContext, type SubagentContextInput } from "../subagents/subagent-context.ts";
import { listVisionOverrides } from "./vision-overrides.ts";

export type VisionContextInput = SubagentContextInput;

/** The context of a request: its canonical cwd, project and session (spec `context`). */
export function visionContext(input: VisionContextInput): VisionContext {
  return resolveSubagentContext(input);
}

/** GET /api/pi/vision/config: the overrides of the context's scopes and the resolved model and thinking. */
export async function visionConfig(db: Kysely<LeylineDatabase>, context: VisionContext): Promise<VisionConfig> {
  const overrides = await listVisionOverrides(db, { projectId: context.projectId, sessionFile: context.sessionFile });
  return { context, overrides, ...visionConfigValues(overrides) };
}

export interface VisionSettings extends VisionResolution {
  readonly context: VisionContext;
}

/** POST /api/pi/vision/resolve: stored values by precedence session, project, global; then `staticModel`. */
export async function resolveVisionSettings(
  db: Kysely<LeylineDatabase>,
  input: VisionContextInput & { readonly staticModel?: string | undefined },
): Promise<VisionSettings> {
  const context = visionContext(input);
  const overrides = await listVisionOverrides(db, { projectId: context.projectId, sessionFile: context.sessionFile });
  return { ...resolveVision({ overrides, staticModel: input.staticModel }), context };
}

/** The DTO of POST /api/pi/vision/resolve. */
export function visionResolutionDto(settings: VisionResolution): VisionResolution {
  return {
    ...(settings.model !== undefined ? { model: settings.model } : {}),
    modelSource: settings.modelSource,
    ...(settings.thinking !== undefined ? { thinking: settings.thinking } : {}),
    thinkingSource: settings.thinkingSource,
  };
}
