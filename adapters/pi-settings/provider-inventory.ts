/**
 * The provider inventory and catalog lookup (spec "Provider inventory", "Catalog lookup"), read from the
 * settings runtime (adapters/pi-settings/settings-runtime.ts) and the models.json text it was built from.
 *
 * What never appears: stored keys and tokens, header values, API-key commands, the raw models.json apiKey, and
 * base URLs that are not plain http(s) (credentials, query or fragment: shown as ""). Model records carry only
 * the spec's metadata, never their full SDK configuration.
 */
import type { AnyModel, Api, Model, Provider } from "@earendil-works/pi-ai";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import type {
  CatalogModel,
  CatalogResult,
  ModelCost,
  ModelMetadata,
  ProviderInventory,
  ProviderModel,
  ProviderSettings,
  ThinkingLevelMap,
} from "../../domain/contract/http-pi-settings.ts";
import { safeBaseUrl } from "../../domain/pi-settings/redaction.ts";
import { isRecord } from "../../domain/transcript/message-content.ts";
import { customModelIds, modelsJsonProviders } from "../../domain/pi-settings/models-json.ts";
import { isKeyless } from "./keyless-providers.ts";

type Json = Record<string, unknown>;

function customDefinition(entry: Json | undefined, id: string): Json | undefined {
  const models = entry?.["models"];
  if (!Array.isArray(models)) return undefined;
  return models.filter(isRecord).find((model) => model["id"] === id);
}

function overrideOf(entry: Json | undefined, id: string): Json | undefined {
  const overrides = entry?.["modelOverrides"];
  if (!isRecord(overrides)) return undefined;
  const found = overrides[id];
  return isRecord(found) ? found : undefined;
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function costOf(value: unknown): ModelCost | undefined {
  if (!isRecord(value)) return undefined;
  const cost: ModelCost = {};
  for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) {
    const rate = finiteNumber(value[key]);
    if (rate !== undefined) cost[key] = rate;
  }
  const tiers = value["tiers"];
  if (Array.isArray(tiers)) {
    cost.tiers = tiers.filter(isRecord).flatMap((tier) => {
      const above = finiteNumber(tier["inputTokensAbove"]);
      if (above === undefined) return [];
      const rates = costOf(tier) ?? {};
      delete rates.tiers;
      return [{ inputTokensAbove: above, ...rates }];
    });
  }
  return cost;
}

const LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

function thinkingMapOf(value: unknown): ThinkingLevelMap | undefined {
  if (!isRecord(value)) return undefined;
  const map: ThinkingLevelMap = {};
  for (const level of LEVELS) {
    const entry = value[level];
    if (typeof entry === "string" || entry === null) map[level] = entry;
  }
  return map;
}

function inputOf(value: unknown): Array<"text" | "image"> | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((kind): kind is "text" | "image" => kind === "text" || kind === "image");
}

function developerRoleOf(value: unknown): { supportsDeveloperRole: boolean } | undefined {
  if (!isRecord(value) || typeof value["supportsDeveloperRole"] !== "boolean") return undefined;
  return { supportsDeveloperRole: value["supportsDeveloperRole"] };
}

/** The spec's ModelMetadata fields of a models.json definition or override (everything else left out). */
export function metadataOf(source: Json | undefined): ModelMetadata {
  if (source === undefined) return {};
  const metadata: ModelMetadata = {};
  if (typeof source["name"] === "string") metadata.name = source["name"];
  const contextWindow = finiteNumber(source["contextWindow"]);
  if (contextWindow !== undefined) metadata.contextWindow = contextWindow;
  const maxTokens = finiteNumber(source["maxTokens"]);
  if (maxTokens !== undefined) metadata.maxTokens = maxTokens;
  if (typeof source["reasoning"] === "boolean") metadata.reasoning = source["reasoning"];
  const input = inputOf(source["input"]);
  if (input !== undefined) metadata.input = input;
  const cost = costOf(source["cost"]);
  if (cost !== undefined) metadata.cost = cost;
  const thinking = thinkingMapOf(source["thinkingLevelMap"]);
  if (thinking !== undefined) metadata.thinkingLevelMap = thinking;
  const compat = developerRoleOf(source["compat"]);
  if (compat !== undefined) metadata.compat = compat;
  return metadata;
}

function providerModel(model: Model<Api>, entry: Json | undefined): ProviderModel {
  const custom = customModelIds(entry).has(model.id);
  const override = overrideOf(entry, model.id);
  const kind = custom ? "custom" : override !== undefined ? "override" : "catalog";
  const record = model as Model<Api> & { thinkingLevelMap?: unknown; compat?: unknown };
  const thinkingLevelMap = thinkingMapOf(record.thinkingLevelMap);
  const compat = developerRoleOf(record.compat);
  return {
    id: model.id,
    name: model.name,
    contextWindow: finiteNumber(model.contextWindow) ?? null,
    maxTokens: finiteNumber(model.maxTokens) ?? null,
    reasoning: model.reasoning,
    input: inputOf(model.input) ?? ["text"],
    cost: costOf(model.cost) ?? {},
    ...(thinkingLevelMap !== undefined ? { thinkingLevelMap } : {}),
    ...(compat !== undefined ? { compat } : {}),
    kind,
    overrides: metadataOf(custom ? customDefinition(entry, model.id) : override),
  };
}

function authMethodsOf(provider: Provider | undefined): ProviderSettings["authMethods"] {
  const methods: ProviderSettings["authMethods"] = [];
  const apiKey = provider?.auth.apiKey;
  if (apiKey?.login !== undefined) methods.push({ id: "api_key", label: apiKey.name });
  const oauth = provider?.auth.oauth;
  if (oauth !== undefined) methods.push({ id: "oauth", label: oauth.loginLabel ?? oauth.name });
  return methods;
}

const SOURCE_LABELS: Record<string, string> = {
  stored: "Stored credential",
  runtime: "Runtime key",
  environment: "Environment variable",
  fallback: "Fallback",
  models_json_key: "models.json key",
  models_json_command: "models.json command",
};

export interface InventoryInput {
  readonly runtime: ModelRuntime;
  /** The built-in providers (the catalog runtime's ids). */
  readonly builtinIds: ReadonlySet<string>;
  /** models.json as parsed (undefined when it could not be parsed). */
  readonly config: unknown;
  readonly revision: string | null;
  /** Writes are refused (an invalid or blocked file). */
  readonly readOnly: boolean;
  readonly warning?: string;
}

export function providerInventory(input: InventoryInput): ProviderInventory {
  const entries = modelsJsonProviders(input.config);
  const runtimeError = input.runtime.getError();
  const ids = new Set<string>([...input.runtime.getProviders().map((provider) => provider.id), ...Object.keys(entries)]);
  const providers: ProviderSettings[] = [...ids].sort().map((id) => {
    const provider = input.runtime.getProvider(id);
    const entry = entries[id];
    const keyless = isKeyless(input.runtime, id);
    const status = keyless ? { configured: true } : input.runtime.getProviderAuthStatus(id);
    const models = input.runtime.getModels(id).map((model) => providerModel(model, entry));
    const api = typeof entry?.["api"] === "string" ? entry["api"] : models.length > 0 ? input.runtime.getModels(id)[0]?.api : undefined;
    const apiKey = entry?.["apiKey"];
    const headers = entry?.["headers"];
    const settings: ProviderSettings = {
      id,
      name: typeof entry?.["name"] === "string" ? entry["name"] : (provider?.name ?? id),
      kind: input.builtinIds.has(id) ? "builtin" : entry !== undefined ? "custom" : "extension",
      configured: status.configured || entry !== undefined,
      authSource: status.source ?? null,
      authLabel: keyless
        ? "no key needed"
        : (status.label ?? (status.source !== undefined ? (SOURCE_LABELS[status.source] ?? status.source) : "")),
      authMethods: authMethodsOf(provider),
      config: {
        name: typeof entry?.["name"] === "string" ? entry["name"] : (provider?.name ?? id),
        baseUrl: safeBaseUrl(typeof entry?.["baseUrl"] === "string" ? entry["baseUrl"] : (provider?.baseUrl ?? "")),
        api: api ?? "",
        authHeader: typeof entry?.["authHeader"] === "boolean" ? entry["authHeader"] : null,
        apiKeyConfigured: typeof apiKey === "string" && apiKey !== "",
        headersConfigured: isRecord(headers) && Object.keys(headers).length > 0,
        canEdit: !input.readOnly,
        hasConfiguration: entry !== undefined,
      },
      models,
    };
    if (entry !== undefined && provider === undefined) {
      settings.error = runtimeError ?? "pi could not load this provider's configuration.";
    }
    return settings;
  });
  const warning = input.warning ?? runtimeError;
  return { revision: input.revision, providers, ...(warning !== undefined ? { warning } : {}) };
}

/** Catalog models as the catalog lookup returns them: runtime metadata, no costs, URLs, auth or headers. */
function catalogModel(model: AnyModel): CatalogModel | null {
  const record = model as Model<Api> & { type?: string; thinkingLevelMap?: unknown; compat?: unknown };
  if (record.type !== undefined && record.type !== "chat") return null;
  const thinkingLevelMap = thinkingMapOf(record.thinkingLevelMap);
  return {
    providerId: record.provider,
    id: record.id,
    name: record.name,
    api: record.api,
    reasoning: record.reasoning === true,
    input: inputOf(record.input) ?? ["text"],
    contextWindow: finiteNumber(record.contextWindow) ?? 0,
    maxTokens: finiteNumber(record.maxTokens) ?? 0,
    ...(thinkingLevelMap !== undefined ? { thinkingLevelMap } : {}),
    ...(isRecord(record.compat) ? { compat: record.compat } : {}),
  };
}

export const CATALOG_LIMIT = 20;

/** The spec's search: every word a substring of id + name + provider (any case), chat models, by id then provider, ≤ 20. */
export function searchCatalog(models: readonly AnyModel[], q: string): CatalogResult["models"] {
  const words = q
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== "");
  if (words.length === 0) return [];
  const found: CatalogModel[] = [];
  for (const model of models) {
    const entry = catalogModel(model);
    if (entry === null) continue;
    const haystack = `${entry.id} ${entry.name} ${entry.providerId}`.toLowerCase();
    if (words.every((word) => haystack.includes(word))) found.push(entry);
  }
  found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.providerId < b.providerId ? -1 : a.providerId > b.providerId ? 1 : 0));
  return found.slice(0, CATALOG_LIMIT);
}
