/**
 * The effective vision model and thinking setting (spec "Vision agent routes"): model and thinking inherit
 * independently, each from the first scope that sets it in the order session, project, global (the subagent
 * overrides' precedence, domain/subagent/subagent-model.ts). The resolve route adds the caller's static model
 * after the scopes; thinking has no static fallback. Empty or blank values count as absent; `inherit` is a
 * value like any other (the runner turns it into the parent's level).
 */
import { OVERRIDE_PRECEDENCE } from "../subagent/subagent-model.ts";
import type { VisionConfig, VisionConfigSource, VisionOverrides, VisionResolution } from "./vision-types.ts";

export type VisionField = "model" | "thinking";

function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim() ?? "";
  return trimmed === "" ? undefined : trimmed;
}

/** The first scope (session, project, global) that sets `field`, and its value; "none" and "" otherwise. */
export function resolveVisionField(
  overrides: Readonly<VisionOverrides>,
  field: VisionField,
): { value: string; source: VisionConfigSource } {
  for (const scope of OVERRIDE_PRECEDENCE) {
    const value = present(overrides[scope]?.[field]);
    if (value !== undefined) return { value, source: scope };
  }
  return { value: "", source: "none" };
}

/** The resolved part of the configuration view (GET /api/pi/vision/config). */
export function visionConfigValues(
  overrides: Readonly<VisionOverrides>,
): Pick<VisionConfig, "model" | "modelSource" | "thinking" | "thinkingSource"> {
  const model = resolveVisionField(overrides, "model");
  const thinking = resolveVisionField(overrides, "thinking");
  return { model: model.value, modelSource: model.source, thinking: thinking.value, thinkingSource: thinking.source };
}

/** POST /api/pi/vision/resolve: stored values, then (model only) the caller's static model. */
export function resolveVision(input: {
  readonly overrides: Readonly<VisionOverrides>;
  readonly staticModel?: string | undefined;
}): VisionResolution {
  const model = resolveVisionField(input.overrides, "model");
  const thinking = resolveVisionField(input.overrides, "thinking");
  const staticModel = present(input.staticModel);
  const resolvedModel = model.source !== "none" ? model.value : staticModel;
  return {
    ...(resolvedModel !== undefined ? { model: resolvedModel } : {}),
    modelSource: model.source === "none" ? "static" : model.source,
    ...(thinking.source !== "none" ? { thinking: thinking.value } : {}),
    thinkingSource: thinking.source,
  };
}

/** A scope's values as stored: trimmed; null when both are empty (the scope row is deleted then). */
export function normalizeVisionOverride(
  model: string | null | undefined,
  thinking: string | null | undefined,
): { model: string; thinking: string } | null {
  const m = model?.trim() ?? "";
  const t = thinking?.trim() ?? "";
  return m === "" && t === "" ? null : { model: m, thinking: t };
}
