/**
 * Typed functions for the vision agent's settings on the selected backend (spec "Vision agent routes"):
 * GET /api/pi/vision/config, PUT and DELETE /api/pi/vision/override (each answers the whole configuration),
 * the models the browser offers (the available models with image input, from GET /api/pi/state), and whether
 * the backend serves these routes at all (an older or other backend: the Settings section is not offered).
 */
import type { Model } from "../../../domain/runtime/runtime-types.ts";
import type { VisionConfig, VisionScope } from "../../../domain/vision/vision-types.ts";
import { http, request } from "./http.ts";
import { runtimeState } from "./runtime-actions.ts";

export type { VisionConfig, VisionScope } from "../../../domain/vision/vision-types.ts";
export { VISION_THINKING_VALUES } from "../../../domain/vision/vision-types.ts";

const CONFIG = "/api/pi/vision/config";
const OVERRIDE = "/api/pi/vision/override";

/** The folder and session the settings are read for; without a session only global and project apply. */
export interface VisionTarget {
  cwd: string;
  sessionPath?: string;
}

export function getVisionConfig(target: VisionTarget, signal?: AbortSignal): Promise<VisionConfig> {
  return http.get<VisionConfig>(CONFIG, { query: { cwd: target.cwd, sessionPath: target.sessionPath }, ...(signal ? { signal } : {}) });
}

/** Replaces a scope's values: "" clears that field at the scope (both "" delete the scope). */
export function putVisionOverride(
  target: VisionTarget,
  scope: VisionScope,
  values: { model: string; thinking: string },
): Promise<VisionConfig> {
  return request<VisionConfig>("PUT", OVERRIDE, { body: { ...target, scope, model: values.model, thinking: values.thinking } });
}

export function deleteVisionOverride(target: VisionTarget, scope: VisionScope): Promise<VisionConfig> {
  return request<VisionConfig>("DELETE", OVERRIDE, { body: { ...target, scope } });
}

/** The models the browser offers for the vision agent: available ones with image input. */
export async function visionModels(cwd: string): Promise<Model[]> {
  const { active } = await runtimeState(cwd);
  return active.state.availableModels.filter((model) => model.supportsImages);
}

function isVisionConfig(body: unknown): body is VisionConfig {
  return typeof body === "object" && body !== null && "context" in body && "modelSource" in body && "thinkingSource" in body;
}

/** Whether the selected backend serves the vision routes (answers a configuration for the home folder). */
export async function servesVisionRoutes(signal?: AbortSignal): Promise<boolean> {
  try {
    return isVisionConfig(await http.get<unknown>(CONFIG, { query: { cwd: "~" }, ...(signal ? { signal } : {}) }));
  } catch {
    return false;
  }
}
