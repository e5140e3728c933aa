/**
 * The vision agent DTOs of the spec's "Vision agent routes" (GET /api/pi/vision/config, PUT/DELETE
 * /api/pi/vision/override, POST /api/pi/vision/resolve). Types only: the server builds them (adapters/vision),
 * the client reads them. Scopes and the route context are the subagent overrides' (domain/subagent).
 */
import type { SubagentContext, SubagentScope } from "../subagent/subagent-types.ts";

/** Where a vision override is stored: the same fixed surfaces as subagent overrides. */
export type VisionScope = SubagentScope;

/** The route context (spec `context`): the project a cwd belongs to and the session, if any. */
export type VisionContext = SubagentContext;

/** The thinking values a scope may store: pi's levels, `max`, and `inherit` (the parent session's level). */
export const VISION_THINKING_VALUES = ["inherit", "off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type VisionThinking = (typeof VISION_THINKING_VALUES)[number];

/** The values of one scope; "" where the scope does not set that field. Never both "" (no row then). */
export interface VisionOverride {
  model: string;
  thinking: string;
}

/** The overrides that apply in one context, by scope. */
export interface VisionOverrides {
  global?: VisionOverride;
  project?: VisionOverride;
  session?: VisionOverride;
}

/** Where a field of the configuration view comes from ("none": no scope sets it). */
export type VisionConfigSource = VisionScope | "none";

/** The answer of GET /api/pi/vision/config and of PUT/DELETE /api/pi/vision/override. */
export interface VisionConfig {
  context: VisionContext;
  overrides: VisionOverrides;
  /** "" when no scope sets a model. */
  model: string;
  modelSource: VisionConfigSource;
  /** "" when no scope sets thinking; `inherit` is returned as stored. */
  thinking: string;
  thinkingSource: VisionConfigSource;
}

/** Where a resolved model comes from: a scope, else the caller's static model. */
export type VisionModelSource = VisionScope | "static";

/** The answer of POST /api/pi/vision/resolve. */
export interface VisionResolution {
  model?: string;
  modelSource: VisionModelSource;
  thinking?: string;
  thinkingSource: VisionConfigSource;
}
