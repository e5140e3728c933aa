/**
 * Ultrafast eligibility (spec "Model.supportsUltrafast"): the priority service tier is offered only for the
 * GPT-6 models served by the ChatGPT subscription backend (`openai-codex` / `openai-codex-responses`) or by the
 * OpenAI API with an API key (`openai` / `openai-responses`; subscription/OAuth credentials excluded).
 */

/** How pi authenticates the model's provider: an API key, OAuth (subscription), or not known. */
export const MODEL_AUTH_KINDS = ["apiKey", "oauth", "unknown"] as const;
export type ModelAuthKind = (typeof MODEL_AUTH_KINDS)[number];

/** The part of pi's ModelRegistry that tells how a model is authenticated. */
export interface ModelAuthSource<M> {
  isUsingOAuth(model: M): boolean;
  hasConfiguredAuth(model: M): boolean;
}

/** A model's auth kind as pi's registry reports it (stored OAuth credentials win over a configured key). */
export function modelAuthKind<M>(registry: ModelAuthSource<M>, model: M): ModelAuthKind {
  if (registry.isUsingOAuth(model)) return "oauth";
  return registry.hasConfiguredAuth(model) ? "apiKey" : "unknown";
}

export interface UltrafastModelRef {
  provider: string;
  api: string;
  modelId: string;
  authKind: ModelAuthKind;
}

export const ULTRAFAST_MODEL_IDS: readonly string[] = ["gpt-6-astra", "gpt-6.1-sol"];
export const ULTRAFAST_STATUS_KEY = "leyline-ultrafast";
export const ULTRAFAST_COMMAND = "ultrafast";
export const ULTRAFAST_UNAVAILABLE_MESSAGE = "Ultrafast is not available for this model";

export function supportsUltrafast(model: UltrafastModelRef): boolean {
  if (!ULTRAFAST_MODEL_IDS.includes(model.modelId)) return false;
  if (model.provider === "openai-codex") return model.api === "openai-codex-responses";
  if (model.provider === "openai") return model.api === "openai-responses" && model.authKind === "apiKey";
  return false;
}

/** The command's argument: "on" / "off" (case and surrounding space ignored); null for anything else. */
export function parseUltrafastArgs(args: string): boolean | null {
  const word = args.trim().toLowerCase();
  if (word === "on") return true;
  if (word === "off") return false;
  return null;
}
