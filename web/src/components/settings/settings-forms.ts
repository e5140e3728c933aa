/**
 * The Settings editors' forms as plain data, and the pure functions between them and the request bodies
 * (spec "Provider configuration", "Model definitions and overrides", "MCP configuration"): an edit sends only
 * the fields the person changed, so a change made elsewhere to another field is not written back; a saved
 * secret (API key, header or environment value) is never shown, only kept, replaced or removed.
 */
import type {
  CatalogModel,
  McpServerSettings,
  McpValues,
  ModelValues,
  OperationSnapshot,
  ProviderModel,
  ProviderSettings,
  ProviderValues,
} from "../../api/pi-settings.ts";
import { SUPPORTED_APIS } from "../../../../domain/pi-settings/models-config-validation.ts";
import { isRecord } from "../../../../domain/transcript/message-content.ts";

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const fail = <T>(error: string): Outcome<T> => ({ ok: false, error });

/** An <input type="number"> bound with v-model gives a number, or "" when empty. */
export type NumberInput = number | string;

function numberOf(input: NumberInput): number | null | "invalid" {
  if (typeof input === "number") return Number.isFinite(input) ? input : "invalid";
  const text = input.trim();
  if (text === "") return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : "invalid";
}

// ---- providers ---------------------------------------------------------------------------------------------

/** keep: the saved key stays; replace: a new key (text, an environment name or !command); remove: null; none: no key. */
export type KeyMode = "keep" | "replace" | "remove" | "none";

export interface ProviderForm {
  id: string;
  name: string;
  baseUrl: string;
  api: string;
  keyMode: KeyMode;
  apiKey: string;
}

export const DEFAULT_API = "openai-completions";

export function providerFormOf(provider: ProviderSettings | null): ProviderForm {
  if (provider === null) return { id: "", name: "", baseUrl: "http://localhost:8080/v1", api: DEFAULT_API, keyMode: "none", apiKey: "" };
  return {
    id: provider.id,
    name: provider.config.name || provider.name,
    baseUrl: provider.config.baseUrl,
    api: provider.config.api,
    keyMode: provider.config.apiKeyConfigured ? "keep" : "none",
    apiKey: "",
  };
}

/** The API select's options: the ten supported ones, plus the provider's own when it is another. */
export function apiOptions(current: string): string[] {
  const list: string[] = [...SUPPORTED_APIS];
  if (current !== "" && !list.includes(current)) list.unshift(current);
  return list;
}

const ID_PATTERN = /^[^\s/\p{Cc}]+$/u;

/**
 * The `values` of PUT /api/pi/settings/providers (and of a provider test draft). Creating sends every filled
 * field; editing sends only the changed ones (possibly none: an unchanged form tests as saved).
 */
export function providerValues(form: ProviderForm, initial: ProviderForm, create: boolean): Outcome<ProviderValues> {
  const values: ProviderValues = {};
  const name = form.name.trim();
  const baseUrl = form.baseUrl.trim();
  if (create) {
    const id = form.id.trim();
    if (id === "") return fail("Enter a provider ID.");
    if (!ID_PATTERN.test(id)) return fail("A provider ID has no spaces or slashes.");
    if (baseUrl === "") return fail("Enter the base URL of the server.");
    if (form.api === "") return fail("Choose an API.");
    if (name !== "") values.name = name;
    values.baseUrl = baseUrl;
    values.api = form.api;
  } else {
    if (name !== initial.name.trim() && name !== "") values.name = name;
    if (baseUrl !== initial.baseUrl.trim()) {
      if (baseUrl === "") return fail("Enter the base URL of the server.");
      values.baseUrl = baseUrl;
    }
    if (form.api !== initial.api && form.api !== "") values.api = form.api;
  }
  if (form.keyMode === "replace") {
    if (form.apiKey.trim() === "") return fail("Enter the API key, or choose to keep or remove it.");
    values.apiKey = form.apiKey;
  } else if (form.keyMode === "remove") {
    values.apiKey = null;
  }
  return ok(values);
}

/** "configured via <authLabel>" or "not configured" (configured is not proof that a request works). */
export function authStateLabel(provider: ProviderSettings): string {
  if (!provider.configured) return "not configured";
  if (provider.authLabel === "") return "configured";
  // A source with a label says where the credential comes from; without a source the label says why none is needed.
  return provider.authSource === null ? `configured (${provider.authLabel})` : `configured via ${provider.authLabel}`;
}

export function providerKindLabel(kind: ProviderSettings["kind"]): string {
  return kind === "builtin" ? "built-in" : kind;
}

/** Custom models can be added where the provider's models.json entry has (or may get) a base URL and an API. */
/**
 * Custom model definitions need the provider's own base URL and API in models.json (the server refuses them
 * otherwise): custom providers have both; catalog models of a built-in provider take overrides instead.
 */
export function canAddModels(provider: ProviderSettings): boolean {
  return provider.config.canEdit && provider.kind === "custom";
}

/** A sign-in button's text: pi's label when it already says "Sign in …", else "Sign in (label)" where methods differ. */
export function signInLabel(method: ProviderSettings["authMethods"][number], methods: number): string {
  if (/^sign in\b/i.test(method.label)) return method.label;
  return methods > 1 || method.id === "api_key" ? `Sign in (${method.label})` : "Sign in";
}

// ---- models ------------------------------------------------------------------------------------------------

export interface ModelForm {
  id: string;
  name: string;
  contextWindow: NumberInput;
  maxTokens: NumberInput;
  reasoning: boolean;
  imageInput: boolean;
}

type ModelLike = Pick<ProviderModel, "id" | "name" | "reasoning" | "input"> & {
  contextWindow: number | null;
  maxTokens: number | null;
};

export function modelFormOf(model: ModelLike | CatalogModel | null): ModelForm {
  if (model === null) return { id: "", name: "", contextWindow: 128_000, maxTokens: 8192, reasoning: false, imageInput: false };
  return {
    id: model.id,
    name: model.name === model.id ? "" : model.name,
    contextWindow: model.contextWindow ?? "",
    maxTokens: model.maxTokens ?? "",
    reasoning: model.reasoning,
    imageInput: model.input.includes("image"),
  };
}

function tokenLimit(input: NumberInput, label: string): Outcome<number | null> {
  const value = numberOf(input);
  if (value === "invalid" || (value !== null && value <= 0)) return fail(`${label} must be a positive number.`);
  return ok(value);
}

/**
 * The `values` of PUT /api/pi/settings/models without `id` (also a model test draft's values). A new custom
 * model sends every filled field; an edit or an override sends only what changed from the form's start (an
 * override of a catalog model holds just the differences). Empty number fields leave the value as it is.
 */
export function modelValues(
  form: ModelForm,
  initial: ModelForm,
  options: { create: boolean; kind: "custom" | "override" },
): Outcome<ModelValues> {
  const context = tokenLimit(form.contextWindow, "Context window");
  if (!context.ok) return context;
  const max = tokenLimit(form.maxTokens, "Max tokens");
  if (!max.ok) return max;
  const all = options.create && options.kind === "custom";
  if (all) {
    const id = form.id.trim();
    if (id === "") return fail("Enter the model ID the server expects.");
    if (/\s/.test(id)) return fail("A model ID has no spaces.");
  }
  const values: ModelValues = {};
  const name = form.name.trim();
  if (name !== "" && (all || name !== initial.name.trim())) values.name = name;
  const initialContext = numberOf(initial.contextWindow);
  const initialMax = numberOf(initial.maxTokens);
  if (context.value !== null && (all || context.value !== initialContext)) values.contextWindow = context.value;
  if (max.value !== null && (all || max.value !== initialMax)) values.maxTokens = max.value;
  if (all || form.reasoning !== initial.reasoning) values.reasoning = form.reasoning;
  if (all || form.imageInput !== initial.imageInput) values.input = form.imageInput ? ["text", "image"] : ["text"];
  if (options.create && options.kind === "override" && Object.keys(values).length === 0)
    return fail("Change at least one field: an override holds the differences from the catalog.");
  return ok(values);
}

export function modelKindLabel(kind: ProviderModel["kind"]): string {
  return kind === "override" ? "catalog + override" : kind;
}

export function formatTokens(value: number | null): string {
  if (value === null) return "—";
  if (value >= 1000 && value % 1000 === 0) return `${value / 1000}k`;
  return String(value);
}

// ---- operation results -------------------------------------------------------------------------------------

export interface TestOutcome {
  durationMs: number;
  httpStatus?: number;
}

/** A completed connection test's figures (spec "Connection test requests"). */
export function testOutcomeOf(result: OperationSnapshot["result"]): TestOutcome | null {
  if (!isRecord(result) || typeof result["durationMs"] !== "number") return null;
  const outcome: TestOutcome = { durationMs: result["durationMs"] };
  if (typeof result["httpStatus"] === "number") outcome.httpStatus = result["httpStatus"];
  return outcome;
}

export function describeTest(outcome: TestOutcome): string {
  const status = outcome.httpStatus === undefined ? "" : ` (HTTP ${outcome.httpStatus})`;
  return `Connected in ${Math.round(outcome.durationMs)} ms${status}.`;
}

export interface McpTool {
  name: string;
  description: string;
  exposure: string;
}

/** The tools of a completed MCP check (spec "MCP actions"). */
export function toolsOf(result: OperationSnapshot["result"]): McpTool[] | null {
  if (!isRecord(result) || !Array.isArray(result["tools"])) return null;
  return result["tools"].filter(isRecord).map((tool) => ({
    name: typeof tool["name"] === "string" ? tool["name"] : "",
    description: typeof tool["description"] === "string" ? tool["description"] : "",
    exposure: typeof tool["exposure"] === "string" ? tool["exposure"] : "",
  }));
}

export function reportOf(result: OperationSnapshot["result"]): string {
  return isRecord(result) && typeof result["report"] === "string" ? result["report"] : "";
}

export function warningOf(result: OperationSnapshot["result"]): string {
  return isRecord(result) && typeof result["warning"] === "string" ? result["warning"] : "";
}

/** What a provider login/logout/refresh result says, in words. */
export function describeProviderResult(result: OperationSnapshot["result"]): string {
  if (!isRecord(result)) return "Done.";
  switch (result["action"]) {
    case "login":
      return "Signed in.";
    case "logout":
      return "Signed out. Keys from the environment or models.json still apply.";
    case "refresh":
      return "The catalog was refreshed.";
    default:
      return "Done.";
  }
}

export const STATE_LABELS: Record<OperationSnapshot["state"], string> = {
  running: "Running…",
  cancelling: "Cancelling…",
  completed: "Completed",
  cancelled: "Cancelled",
  error: "Failed",
};

// ---- MCP servers -------------------------------------------------------------------------------------------

/** A header or environment entry: saved ones show their name only; a value replaces, `remove` deletes. */
export interface SecretEntry {
  name: string;
  saved: boolean;
  remove: boolean;
  value: string;
}

export type ArgsMode = "keep" | "replace" | "remove";

export const MCP_EXPOSURES = ["deferred", "direct", "hidden"] as const;
export type McpExposure = (typeof MCP_EXPOSURES)[number];

export interface McpForm {
  name: string;
  transport: "http" | "stdio";
  url: string;
  command: string;
  argsMode: ArgsMode;
  args: string;
  cwd: string;
  timeout: NumberInput;
  enabled: boolean;
  exposure: string;
  headers: SecretEntry[];
  env: SecretEntry[];
}

export function mcpFormOf(server: McpServerSettings | null): McpForm {
  if (server === null) {
    return {
      name: "",
      transport: "http",
      url: "",
      command: "",
      argsMode: "replace",
      args: "",
      cwd: "",
      timeout: "",
      enabled: true,
      exposure: "deferred",
      headers: [],
      env: [],
    };
  }
  const saved = (entries: Array<{ name: string }>): SecretEntry[] =>
    entries.map((e) => ({ name: e.name, saved: true, remove: false, value: "" }));
  return {
    name: server.name,
    transport: server.transport,
    url: server.url ?? "",
    command: server.command ?? "",
    argsMode: server.argsConfigured ? "keep" : "replace",
    args: "",
    cwd: server.cwd ?? "",
    timeout: server.timeout ?? "",
    enabled: server.enabled,
    exposure: server.exposure,
    headers: saved(server.headers),
    env: saved(server.env),
  };
}

export const MCP_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

function argsOf(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

function secretChanges(entries: SecretEntry[], label: string): Outcome<{ set: Record<string, string>; remove: string[] }> {
  const set: Record<string, string> = {};
  const remove: string[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const name = entry.name.trim();
    if (!entry.saved && name === "" && entry.value === "") continue;
    if (name === "") return fail(`Every ${label} needs a name.`);
    if (seen.has(name)) return fail(`The ${label} ${name} appears twice.`);
    seen.add(name);
    if (entry.saved && entry.remove) remove.push(name);
    else if (entry.value !== "") set[name] = entry.value;
    else if (!entry.saved) return fail(`Enter a value for the ${label} ${name}.`);
  }
  return ok({ set, remove });
}

/**
 * The `values` of PUT /api/pi/settings/mcp. url XOR command by transport; an edit sends only changes (the
 * shown URL can be redacted, so it is sent only when edited, and then must be complete). Saved header and
 * environment values are never sent back: they are kept unless replaced or removed.
 */
export function mcpValues(form: McpForm, initial: McpForm, create: boolean): Outcome<McpValues> {
  if (create && !MCP_NAME_PATTERN.test(form.name.trim())) return fail("A server name has letters, digits, underscores and hyphens only.");
  const values: McpValues = {};
  const transportChanged = !create && form.transport !== initial.transport;
  const fresh = create || transportChanged;
  if (form.transport === "http") {
    const url = form.url.trim();
    if (url === "") return fail("Enter the server URL.");
    if (fresh || url !== initial.url.trim()) values.url = url;
    const headers = secretChanges(form.headers, "header");
    if (!headers.ok) return headers;
    if (Object.keys(headers.value.set).length > 0) values.headers = headers.value.set;
    if (!fresh && headers.value.remove.length > 0) values.removeHeaders = headers.value.remove;
  } else {
    const command = form.command.trim();
    if (command === "") return fail("Enter the command that starts the server.");
    if (fresh || command !== initial.command.trim()) values.command = command;
    if (form.argsMode === "replace") {
      const args = argsOf(form.args);
      if (args.length > 0) values.args = args;
      else if (!fresh && initial.argsMode === "keep") values.args = null;
    } else if (form.argsMode === "remove" && !fresh) {
      values.args = null;
    }
    const cwd = form.cwd.trim();
    if (fresh ? cwd !== "" : cwd !== initial.cwd.trim()) values.cwd = cwd === "" ? null : cwd;
    const env = secretChanges(form.env, "environment variable");
    if (!env.ok) return env;
    if (Object.keys(env.value.set).length > 0) values.env = env.value.set;
    if (!fresh && env.value.remove.length > 0) values.removeEnv = env.value.remove;
  }
  const timeout = numberOf(form.timeout);
  if (timeout === "invalid" || (timeout !== null && timeout <= 0)) return fail("The timeout must be a positive number of seconds.");
  const initialTimeout = numberOf(initial.timeout);
  if (create ? timeout !== null : timeout !== initialTimeout) values.timeout = timeout;
  if (create || form.enabled !== initial.enabled) values.enabled = form.enabled;
  if ((create || form.exposure !== initial.exposure) && isNewExposure(form.exposure)) values.exposure = form.exposure;
  if (!create && Object.keys(values).length === 0) return fail("Nothing changed.");
  return ok(values);
}

export function isNewExposure(value: string): value is McpExposure {
  return (MCP_EXPOSURES as readonly string[]).includes(value);
}
