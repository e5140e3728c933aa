/**
 * Words and choices of Settings › Vision (VisionPanel.vue), pure: where a value comes from, the thinking
 * choices, and the model choices (the available models with image input, plus a stored model that is not among
 * them, marked, so that the form shows what is stored).
 */
import type { Model } from "../../../../domain/runtime/runtime-types.ts";
import type { VisionConfigSource, VisionScope } from "../../../../domain/vision/vision-types.ts";
import { VISION_THINKING_VALUES } from "../../../../domain/vision/vision-types.ts";

export const SCOPE_LABELS: Record<VisionScope, string> = { global: "Everywhere", project: "This project", session: "This session" };

export function sourceLabel(source: VisionConfigSource): string {
  switch (source) {
    case "session":
      return "set for this session";
    case "project":
      return "set for this project";
    case "global":
      return "set everywhere";
    case "none":
      return "not set";
  }
}

export interface Choice {
  value: string;
  label: string;
}

/** The thinking choices of a scope: not set (inherits), the session's level, then the levels. */
export const THINKING_CHOICES: readonly Choice[] = [
  { value: "", label: "Not set" },
  ...VISION_THINKING_VALUES.map((value) => ({ value, label: value === "inherit" ? "The session's level" : value })),
];

/** The model choices of a scope: not set, the image-capable models, and the stored one when it is not listed. */
export function modelChoices(models: readonly Pick<Model, "provider" | "id" | "name">[], stored: string): Choice[] {
  const choices: Choice[] = [{ value: "", label: "Not set" }];
  for (const model of models) {
    const value = `${model.provider}/${model.id}`;
    choices.push({ value, label: model.name && model.name !== model.id ? `${value} · ${model.name}` : value });
  }
  if (stored !== "" && !choices.some((choice) => choice.value === stored))
    choices.push({ value: stored, label: `${stored} (not available)` });
  return choices;
}

/** The resolved thinking in words. */
export function thinkingValueLabel(value: string): string {
  if (value === "") return "the session's level (not set)";
  return value === "inherit" ? "the session's level" : value;
}
