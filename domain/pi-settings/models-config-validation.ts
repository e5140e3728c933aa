/**
 * The request-only rules of the models.json routes (spec "Provider configuration", "Model definitions and
 * overrides"): settings IDs, provider values and model values, checked without the file. models-config.ts adds
 * the rules that depend on the stored configuration and the catalog; connection-test drafts reuse these checks.
 *
 * Every check answers a user-facing message or null. The request schema (domain/contract/http-pi-settings.ts)
 * already rejects wrong types and unknown fields; the checks repeat the shape tests so a caller that skips the
 * schema (a draft, a test) still gets a message rather than a broken file.
 */
import type { ErrorCode } from "../contract/error-codes.ts";

/** The failures of a models.json edit: 400, 404 and 409 through the error table. */
export type EditFailureCode = Extract<ErrorCode, "invalid_request" | "settings_not_found" | "conflict">;

/** The api selections the editor offers (spec "Provider configuration"); an API already used on the provider is accepted too. */
export const SUPPORTED_APIS: readonly string[] = [
  "openai-completions",
  "mistral-conversations",
  "openai-responses",
  "azure-openai-responses",
  "openai-codex-responses",
  "anthropic-messages",
  "bedrock-converse-stream",
  "google-generative-ai",
  "google-vertex",
  "pi-messages",
];

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export const COST_RATES = ["input", "output", "cacheRead", "cacheWrite"] as const;
export type CostRate = (typeof COST_RATES)[number];

export const MAX_ID_LENGTH = 512;
export const MAX_THINKING_VALUE_LENGTH = 256;

export interface ModelCostInput {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export type ThinkingLevelMapInput = Partial<Record<ThinkingLevel, string | null>>;

export interface ProviderValues {
  name?: string;
  baseUrl?: string;
  api?: string;
  authHeader?: boolean;
  apiKey?: string | null;
}

export interface ModelValues {
  id?: string;
  name?: string;
  contextWindow?: number;
  maxTokens?: number;
  reasoning?: boolean;
  input?: Array<"text" | "image">;
  thinkingLevelMap?: ThinkingLevelMapInput;
  compat?: { supportsDeveloperRole?: boolean | null };
  cost?: ModelCostInput;
}

export type ModelKind = "custom" | "override";

const PROVIDER_FIELDS = ["name", "baseUrl", "api", "authHeader", "apiKey"] as const;
const MODEL_FIELDS = ["id", "name", "contextWindow", "maxTokens", "reasoning", "input", "thinkingLevelMap", "compat", "cost"] as const;
const RESERVED_IDS = new Set(["__proto__", "constructor", "prototype"]);
/** Whitespace (Unicode White_Space, as `\s`) or a control character. */
const WHITESPACE_OR_CONTROL = /[\s\p{Cc}]/u;
const CONTROL = /\p{Cc}/u;

type Fields = Readonly<Record<string, unknown>>;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function isNonBlankText(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** The fields a values object supplies (a field set to undefined is omitted, as JSON would drop it). */
export function suppliedFields(values: object): string[] {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => key);
}

/** Why an ID cannot name a provider or model, or null. Model IDs may contain "/", provider IDs may not. */
export function validateSettingsId(id: string, what: "provider" | "model"): string | null {
  if (typeof id !== "string" || id === "") return `The ${what} ID cannot be empty.`;
  if (id.length > MAX_ID_LENGTH) return `The ${what} ID cannot be longer than ${MAX_ID_LENGTH} characters.`;
  if (WHITESPACE_OR_CONTROL.test(id)) return `The ${what} ID cannot contain whitespace or control characters.`;
  if (RESERVED_IDS.has(id)) return `"${id}" is a reserved name and cannot be a ${what} ID.`;
  if (what === "provider" && id.includes("/")) return 'The provider ID cannot contain "/".';
  return null;
}

/** Why a base URL cannot be saved, or null: HTTP or HTTPS, without credentials, query, fragment or surrounding whitespace. */
export function validateBaseUrl(value: string): string | null {
  if (typeof value !== "string" || value === "") return "The base URL must be nonempty text.";
  if (value !== value.trim()) return "The base URL cannot have surrounding whitespace.";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "The base URL must be an absolute http:// or https:// URL.";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "The base URL must be an absolute http:// or https:// URL.";
  if (url.username !== "" || url.password !== "" || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value))
    return "The base URL cannot contain credentials.";
  if (url.search !== "" || value.includes("?")) return "The base URL cannot contain a query.";
  if (url.hash !== "" || value.includes("#")) return "The base URL cannot contain a fragment.";
  return null;
}

/** Why an API key value cannot be saved, or null: nonempty text, and a `!command` needs a command. */
export function validateApiKey(value: string): string | null {
  if (typeof value !== "string" || value.trim() === "") return "The API key cannot be empty.";
  if (value.startsWith("!") && value.slice(1).trim() === "") return 'The API key command after "!" cannot be empty.';
  return null;
}

/**
 * Why provider values cannot be saved, or null. `knownApis` are the APIs already used on the provider (its own
 * api and its models'), accepted besides SUPPORTED_APIS. A new provider needs baseUrl and api.
 */
export function validateProviderValues(values: ProviderValues, options: { create: boolean; knownApis?: readonly string[] }): string | null {
  if (!isPlainObject(values)) return "values must be an object.";
  const fields: Fields = values;
  const unknown = Object.keys(fields).find((key) => !(PROVIDER_FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) return `Unsupported provider field ${JSON.stringify(unknown)}.`;
  const supplied = suppliedFields(fields);
  if (supplied.length === 0) return "Provide at least one provider field to change.";
  const nulled = supplied.find((key) => fields[key] === null && key !== "apiKey");
  if (nulled !== undefined) return `${nulled} cannot be null; only apiKey can be removed.`;
  if (fields.name !== undefined && !isNonBlankText(fields.name)) return "The provider name must be nonempty text.";
  if (fields.baseUrl !== undefined) {
    const problem = typeof fields.baseUrl === "string" ? validateBaseUrl(fields.baseUrl) : "The base URL must be nonempty text.";
    if (problem) return problem;
  }
  if (fields.api !== undefined) {
    if (!isNonBlankText(fields.api)) return "The API must be nonempty text.";
    if (!SUPPORTED_APIS.includes(fields.api) && !(options.knownApis ?? []).includes(fields.api)) {
      return `API ${JSON.stringify(fields.api)} is not supported. Choose one of: ${SUPPORTED_APIS.join(", ")}.`;
    }
  }
  if (fields.authHeader !== undefined && typeof fields.authHeader !== "boolean") return "authHeader must be true or false.";
  if (fields.apiKey !== undefined && fields.apiKey !== null) {
    const problem = typeof fields.apiKey === "string" ? validateApiKey(fields.apiKey) : "The API key cannot be empty.";
    if (problem) return problem;
  }
  if (options.create && (fields.baseUrl === undefined || fields.api === undefined)) return "A new provider needs a base URL and an API.";
  return null;
}

const NULL_HINTS: Readonly<Record<string, string>> = {
  thinkingLevelMap: "thinkingLevelMap cannot be null; send {} to remove the map.",
  compat: 'compat cannot be null; send { "supportsDeveloperRole": null } to remove the flag.',
};

/**
 * Why model values cannot be saved, or null. `modelId` is the request's model ID (values.id must equal it).
 * An edit of existing configuration needs at least one field; a new custom definition with a cost needs all four
 * rates; a new override needs a change beyond resets (`thinkingLevelMap: {}`, `compat.supportsDeveloperRole: null`).
 */
export function validateModelValues(values: ModelValues, context: { kind: ModelKind; create: boolean; modelId: string }): string | null {
  if (!isPlainObject(values)) return "values must be an object.";
  const fields: Fields = values;
  const unknown = Object.keys(fields).find((key) => !(MODEL_FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) return `Unsupported model field ${JSON.stringify(unknown)}.`;
  const supplied = suppliedFields(fields);
  const nulled = supplied.find((key) => fields[key] === null);
  if (nulled !== undefined) return NULL_HINTS[nulled] ?? `${nulled} cannot be null.`;
  if (fields.id !== undefined && fields.id !== context.modelId) {
    return `values.id must equal the model ID ${JSON.stringify(context.modelId)}; models cannot be renamed.`;
  }
  if (fields.name !== undefined && !isNonBlankText(fields.name)) return "The model name must be nonempty text.";
  for (const limit of ["contextWindow", "maxTokens"] as const) {
    const value = fields[limit];
    if (value !== undefined && !(isFiniteNumber(value) && value > 0)) return `${limit} must be a finite positive number.`;
  }
  if (fields.reasoning !== undefined && typeof fields.reasoning !== "boolean") return "reasoning must be true or false.";
  const problem =
    checkInput(fields.input) ?? checkThinkingLevelMap(fields.thinkingLevelMap) ?? checkCompat(fields.compat) ?? checkCost(fields.cost);
  if (problem) return problem;
  if (!context.create && supplied.filter((key) => key !== "id").length === 0) return "Provide at least one model field to change.";
  const cost = fields.cost;
  if (context.create && context.kind === "custom" && isPlainObject(cost) && !COST_RATES.every((rate) => isFiniteNumber(cost[rate]))) {
    return "A new custom model with a cost needs all four rates: input, output, cacheRead and cacheWrite.";
  }
  if (context.create && context.kind === "override" && !hasChangeBeyondResets(values)) {
    return "A new override needs at least one change beyond resetting values.";
  }
  return null;
}

/** Whether values change something besides resets (an emptied thinkingLevelMap, a removed developer-role flag, `compat: {}`, `cost: {}`). */
export function hasChangeBeyondResets(values: ModelValues): boolean {
  if (["name", "contextWindow", "maxTokens", "reasoning", "input"].some((key) => (values as Fields)[key] !== undefined)) return true;
  if (values.thinkingLevelMap !== undefined && suppliedFields(values.thinkingLevelMap).length > 0) return true;
  if (typeof values.compat?.supportsDeveloperRole === "boolean") return true;
  return values.cost !== undefined && COST_RATES.some((rate) => values.cost?.[rate] !== undefined);
}

function checkInput(input: unknown): string | null {
  if (input === undefined) return null;
  if (!Array.isArray(input) || input.length === 0) return 'input must be a nonempty list of "text" and "image".';
  const seen = new Set<unknown>();
  for (const item of input) {
    if (item !== "text" && item !== "image") return 'input accepts only "text" and "image".';
    if (seen.has(item)) return `input lists "${item}" more than once.`;
    seen.add(item);
  }
  return null;
}

function checkThinkingLevelMap(map: unknown): string | null {
  if (map === undefined) return null;
  if (!isPlainObject(map)) return "thinkingLevelMap must be an object.";
  for (const [level, value] of Object.entries(map)) {
    if (!(THINKING_LEVELS as readonly string[]).includes(level)) return `thinkingLevelMap accepts only ${THINKING_LEVELS.join(", ")}.`;
    if (value === null || value === undefined) continue;
    if (typeof value !== "string") return `thinkingLevelMap.${level} must be text or null.`;
    if (value === "" || value.length > MAX_THINKING_VALUE_LENGTH || value !== value.trim() || CONTROL.test(value)) {
      return `thinkingLevelMap.${level} must be nonempty, at most ${MAX_THINKING_VALUE_LENGTH} characters, without surrounding spaces or control characters.`;
    }
  }
  return null;
}

function checkCompat(compat: unknown): string | null {
  if (compat === undefined) return null;
  if (!isPlainObject(compat)) return "compat must be an object.";
  if (Object.keys(compat).some((key) => key !== "supportsDeveloperRole")) return "compat accepts only supportsDeveloperRole.";
  const flag = compat.supportsDeveloperRole;
  if (flag !== undefined && flag !== null && typeof flag !== "boolean") return "compat.supportsDeveloperRole must be true, false or null.";
  return null;
}

function checkCost(cost: unknown): string | null {
  if (cost === undefined) return null;
  if (!isPlainObject(cost)) return "cost must be an object.";
  if (Object.keys(cost).some((key) => !(COST_RATES as readonly string[]).includes(key)))
    return "cost accepts only input, output, cacheRead and cacheWrite.";
  for (const rate of COST_RATES) {
    const value = cost[rate];
    if (value !== undefined && !(isFiniteNumber(value) && value >= 0)) return `cost.${rate} must be a finite nonnegative number.`;
  }
  return null;
}
