/**
 * The Pi Settings routes (spec "Pi Settings routes"): provider inventory, catalog lookup, provider and model
 * configuration (models.json), MCP inventory and configuration (mcp.json), provider and MCP actions, and the
 * private polled settings operations they return.
 *
 * Pi Settings rejects fields it does not support (spec "Conventions"): every body, `target` and `values`
 * object here is closed (`additionalProperties: false`), where the other routes ignore extra fields.
 * The rules a schema cannot state (IDs, URLs, model values, revisions) are the services' (domain/pi-settings/).
 */
import { Type, type Static, type TSchema } from "typebox";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals } from "./schema-kit.ts";

const tags = ["pi-settings"];

/** A closed object: an unknown field answers 400 naming the object. */
function closed<P extends Record<string, TSchema>>(name: string, properties: P) {
  return failsWith(Type.Object(properties, { additionalProperties: false }), {
    additionalProperties: `${name} has an unsupported field`,
    type: `${name} must be an object`,
  });
}

function text(name: string) {
  return failsWith(Type.String(), `${name} must be a string`);
}
function flag(name: string) {
  return failsWith(Type.Boolean(), `${name} must be a boolean`);
}
function numberField(name: string) {
  return failsWith(Type.Number(), `${name} must be a number`);
}

// ---- shared shapes ----------------------------------------------------------------------------------------

export const THINKING_LEVEL_KEYS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

export const ThinkingLevelMap = closed("thinkingLevelMap", {
  off: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  minimal: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  low: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  medium: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  high: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  xhigh: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  max: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type ThinkingLevelMap = Static<typeof ThinkingLevelMap>;

const CostRates = {
  input: Type.Optional(Type.Number()),
  output: Type.Optional(Type.Number()),
  cacheRead: Type.Optional(Type.Number()),
  cacheWrite: Type.Optional(Type.Number()),
};

export const ModelCost = Type.Object({
  ...CostRates,
  tiers: Type.Optional(Type.Array(Type.Object({ inputTokensAbove: Type.Number(), ...CostRates }))),
});
export type ModelCost = Static<typeof ModelCost>;

const InputKinds = Type.Array(literals(["text", "image"]));
const DeveloperRoleCompat = Type.Object({ supportsDeveloperRole: Type.Boolean() });

export const ModelMetadata = Type.Object({
  name: Type.Optional(Type.String()),
  contextWindow: Type.Optional(Type.Number()),
  maxTokens: Type.Optional(Type.Number()),
  reasoning: Type.Optional(Type.Boolean()),
  input: Type.Optional(InputKinds),
  cost: Type.Optional(ModelCost),
  thinkingLevelMap: Type.Optional(ThinkingLevelMap),
  compat: Type.Optional(DeveloperRoleCompat),
});
export type ModelMetadata = Static<typeof ModelMetadata>;

export const ProviderModel = Type.Object({
  id: Type.String(),
  name: Type.String(),
  contextWindow: Type.Union([Type.Number(), Type.Null()]),
  maxTokens: Type.Union([Type.Number(), Type.Null()]),
  reasoning: Type.Boolean(),
  input: InputKinds,
  cost: ModelCost,
  thinkingLevelMap: Type.Optional(ThinkingLevelMap),
  compat: Type.Optional(DeveloperRoleCompat),
  kind: literals(["custom", "override", "catalog"]),
  overrides: ModelMetadata,
});
export type ProviderModel = Static<typeof ProviderModel>;

export const AUTH_SOURCES = ["stored", "runtime", "environment", "fallback", "models_json_key", "models_json_command"] as const;

export const ProviderSettings = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: literals(["builtin", "extension", "custom"]),
  configured: Type.Boolean(),
  authSource: Type.Union([literals(AUTH_SOURCES), Type.Null()]),
  authLabel: Type.String(),
  authMethods: Type.Array(Type.Object({ id: literals(["oauth", "api_key"]), label: Type.String() })),
  config: Type.Object({
    name: Type.String(),
    baseUrl: Type.String(),
    api: Type.String(),
    authHeader: Type.Union([Type.Boolean(), Type.Null()]),
    apiKeyConfigured: Type.Boolean(),
    headersConfigured: Type.Boolean(),
    canEdit: Type.Boolean(),
    hasConfiguration: Type.Boolean(),
  }),
  models: Type.Array(ProviderModel),
  error: Type.Optional(Type.String()),
});
export type ProviderSettings = Static<typeof ProviderSettings>;

export const ProviderInventory = Type.Object({
  revision: Type.Union([Type.String(), Type.Null()]),
  providers: Type.Array(ProviderSettings),
  warning: Type.Optional(Type.String()),
});
export type ProviderInventory = Static<typeof ProviderInventory>;

export const CatalogModel = Type.Object({
  providerId: Type.String(),
  id: Type.String(),
  name: Type.String(),
  api: Type.String(),
  reasoning: Type.Boolean(),
  input: InputKinds,
  contextWindow: Type.Number(),
  maxTokens: Type.Number(),
  thinkingLevelMap: Type.Optional(ThinkingLevelMap),
  compat: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
export type CatalogModel = Static<typeof CatalogModel>;

export const CatalogResult = Type.Object({ models: Type.Array(CatalogModel), warning: Type.Optional(Type.String()) });
export type CatalogResult = Static<typeof CatalogResult>;

export const McpServerSettings = Type.Object({
  name: Type.String(),
  transport: literals(["http", "stdio"]),
  enabled: Type.Boolean(),
  exposure: Type.String(),
  url: Type.Optional(Type.String()),
  command: Type.Optional(Type.String()),
  cwd: Type.Optional(Type.String()),
  argsConfigured: Type.Optional(Type.Literal(true)),
  argsCount: Type.Optional(Type.Number()),
  timeout: Type.Optional(Type.Number()),
  headers: Type.Array(Type.Object({ name: Type.String(), configured: Type.Literal(true) })),
  env: Type.Array(Type.Object({ name: Type.String(), configured: Type.Literal(true) })),
  oauth: Type.Object({
    clientId: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    callbackUrl: Type.Optional(Type.String()),
    callbackPort: Type.Optional(Type.Number()),
    clientSecretConfigured: Type.Optional(Type.Boolean()),
  }),
  error: Type.Optional(Type.String()),
});
export type McpServerSettings = Static<typeof McpServerSettings>;

export const McpInventory = Type.Object({
  revision: Type.String(),
  servers: Type.Array(McpServerSettings),
  warning: Type.Optional(Type.String()),
});
export type McpInventory = Static<typeof McpInventory>;

export const SettingsPrompt = Type.Object({
  id: Type.String(),
  type: literals(["text", "secret", "select", "manual_code"]),
  message: Type.String(),
  placeholder: Type.String(),
  options: Type.Optional(Type.Array(Type.Object({ id: Type.String(), label: Type.String(), description: Type.String() }))),
});
export type SettingsPrompt = Static<typeof SettingsPrompt>;

export const SettingsEvent = Type.Union([
  Type.Object({ type: Type.Literal("auth_url"), url: Type.String(), instructions: Type.String() }),
  Type.Object({
    type: Type.Literal("device_code"),
    verificationUri: Type.String(),
    userCode: Type.String(),
    expiresInSeconds: Type.Optional(Type.Number()),
  }),
  Type.Object({
    type: Type.Literal("info"),
    message: Type.String(),
    level: Type.String(),
    links: Type.Optional(Type.Array(Type.Object({ url: Type.String(), label: Type.String() }))),
  }),
]);
export type SettingsEvent = Static<typeof SettingsEvent>;

export const SETTINGS_OPERATION_STATES = ["running", "cancelling", "completed", "cancelled", "error"] as const;

export const SettingsOperation = Type.Object({
  id: Type.String(),
  state: literals(SETTINGS_OPERATION_STATES),
  prompt: Type.Union([SettingsPrompt, Type.Null()]),
  events: Type.Array(SettingsEvent),
  result: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  error: Type.String(),
});
export type SettingsOperation = Static<typeof SettingsOperation>;

// ---- requests ---------------------------------------------------------------------------------------------

export const SettingsTarget = closed("target", {
  sessionId: Type.Optional(text("target.sessionId")),
  cwd: Type.Optional(text("target.cwd")),
});
export type SettingsTarget = Static<typeof SettingsTarget>;

const TargetQuery = {
  sessionId: Type.Optional(Type.String()),
  cwd: Type.Optional(Type.String()),
};
const RefreshFlag = Type.Optional(failsWith(Type.Literal("1"), 'refresh must be "1"'));

/**
 * The file revision a write was read at. Optional here: a missing one is the service's 409 "Refresh settings
 * before saving." (spec), not a 400. `null` (the revision of a read-only inventory) counts as missing.
 */
const revision = Type.Optional(failsWith(Type.Union([Type.String(), Type.Null()]), "revision must be a string"));

export const ProviderValues = closed("values", {
  name: Type.Optional(text("values.name")),
  baseUrl: Type.Optional(text("values.baseUrl")),
  api: Type.Optional(text("values.api")),
  authHeader: Type.Optional(flag("values.authHeader")),
  apiKey: Type.Optional(failsWith(Type.Union([Type.String(), Type.Null()]), "values.apiKey must be a string or null")),
});
export type ProviderValues = Static<typeof ProviderValues>;

const CostValues = closed("values.cost", {
  input: Type.Optional(numberField("values.cost.input")),
  output: Type.Optional(numberField("values.cost.output")),
  cacheRead: Type.Optional(numberField("values.cost.cacheRead")),
  cacheWrite: Type.Optional(numberField("values.cost.cacheWrite")),
});

const modelValueFields = {
  name: Type.Optional(text("values.name")),
  contextWindow: Type.Optional(numberField("values.contextWindow")),
  maxTokens: Type.Optional(numberField("values.maxTokens")),
  reasoning: Type.Optional(flag("values.reasoning")),
  input: Type.Optional(failsWith(InputKinds, 'values.input must be a list of "text" and "image"')),
  thinkingLevelMap: Type.Optional(ThinkingLevelMap),
  compat: Type.Optional(
    closed("values.compat", {
      supportsDeveloperRole: Type.Optional(
        failsWith(Type.Union([Type.Boolean(), Type.Null()]), "values.compat.supportsDeveloperRole must be a boolean or null"),
      ),
    }),
  ),
  cost: Type.Optional(CostValues),
};

export const ModelValues = closed("values", { id: Type.Optional(text("values.id")), ...modelValueFields });
export type ModelValues = Static<typeof ModelValues>;

const ModelKind = failsWith(literals(["custom", "override"]), 'kind must be "custom" or "override"');

export const ProviderTestDraft = closed("draft", {
  type: Type.Literal("provider"),
  create: flag("draft.create"),
  revision,
  values: ProviderValues,
});
export const ModelTestDraft = closed("draft", {
  type: Type.Literal("model"),
  create: flag("draft.create"),
  revision,
  kind: ModelKind,
  values: closed("values", modelValueFields),
});
export type ProviderTestDraft = Static<typeof ProviderTestDraft>;
export type ModelTestDraft = Static<typeof ModelTestDraft>;

const PROVIDER_ACTIONS = ["login", "logout", "refresh", "test"] as const;

// ---- routes -----------------------------------------------------------------------------------------------

export const providerInventory = defineRoute("GET", "/api/pi/settings/providers", {
  summary: "Every provider the settings runtime knows, with auth state, configuration and models (secrets omitted)",
  tags,
  querystring: Type.Object({ ...TargetQuery, refresh: RefreshFlag }),
  response: { 200: ProviderInventory },
});

export const catalogModels = defineRoute("GET", "/api/pi/settings/catalog/models", {
  summary: "Search the settings runtime's model catalog (at most 20 chat models)",
  tags,
  querystring: Type.Object({
    q: Type.Optional(failsWith(Type.String({ maxLength: 256 }), "q must be at most 256 characters")),
    refresh: RefreshFlag,
    ...TargetQuery,
  }),
  response: { 200: CatalogResult },
});

export const saveProvider = defineRoute("PUT", "/api/pi/settings/providers", {
  summary: "Create or edit a provider entry of models.json",
  tags,
  body: closed("body", {
    target: Type.Optional(SettingsTarget),
    id: failsWith(Type.String(), "id must be a string"),
    revision,
    create: Type.Optional(flag("create")),
    values: ProviderValues,
  }),
  response: { 200: ProviderInventory },
});

export const deleteProvider = defineRoute("DELETE", "/api/pi/settings/providers", {
  summary: "Remove a provider entry from models.json (registrations and stored credentials stay)",
  tags,
  body: closed("body", { target: Type.Optional(SettingsTarget), id: failsWith(Type.String(), "id must be a string"), revision }),
  response: { 200: ProviderInventory },
});

const modelKey = {
  target: Type.Optional(SettingsTarget),
  providerId: failsWith(Type.String(), "providerId must be a string"),
  modelId: failsWith(Type.String(), "modelId must be a string"),
  revision,
  kind: ModelKind,
};

export const saveModel = defineRoute("PUT", "/api/pi/settings/models", {
  summary: "Create or edit a custom model definition or a catalog model override in models.json",
  tags,
  body: closed("body", { ...modelKey, create: Type.Optional(flag("create")), values: ModelValues }),
  response: { 200: ProviderInventory },
});

export const deleteModel = defineRoute("DELETE", "/api/pi/settings/models", {
  summary: "Remove a custom model definition or a whole override from models.json",
  tags,
  body: closed("body", modelKey),
  response: { 200: ProviderInventory },
});

export const providerAction = defineRoute("POST", "/api/pi/settings/providers/action", {
  summary: "Start a provider sign-in, sign-out, catalog refresh or connection test (a polled settings operation)",
  tags,
  body: closed("body", {
    target: Type.Optional(SettingsTarget),
    providerId: failsWith(Type.String(), "providerId must be a string"),
    action: failsWith(literals(PROVIDER_ACTIONS), "action must be login, logout, refresh or test"),
    authType: Type.Optional(failsWith(literals(["api_key", "oauth"]), 'authType must be "api_key" or "oauth"')),
    modelId: Type.Optional(text("modelId")),
    draft: Type.Optional(failsWith(Type.Union([ProviderTestDraft, ModelTestDraft]), "draft must be a provider or model test draft")),
  }),
  response: { 200: SettingsOperation },
});

export const mcpInventory = defineRoute("GET", "/api/pi/settings/mcp", {
  summary: "The global mcp.json servers (no connection; secrets omitted)",
  tags,
  response: { 200: McpInventory },
});

export const McpValues = closed("values", {
  url: Type.Optional(text("values.url")),
  command: Type.Optional(text("values.command")),
  args: Type.Optional(failsWith(Type.Union([Type.Array(Type.String()), Type.Null()]), "values.args must be a list of strings or null")),
  cwd: Type.Optional(failsWith(Type.Union([Type.String(), Type.Null()]), "values.cwd must be a string or null")),
  enabled: Type.Optional(flag("values.enabled")),
  // A string: new selections are deferred, direct or hidden, but an existing (legacy) exposure may be sent back
  // unchanged (spec); domain/pi-settings/mcp-config.ts judges which.
  exposure: Type.Optional(text("values.exposure")),
  timeout: Type.Optional(failsWith(Type.Union([Type.Number(), Type.Null()]), "values.timeout must be a number or null")),
  headers: Type.Optional(failsWith(Type.Record(Type.String(), Type.String()), "values.headers must map names to strings")),
  env: Type.Optional(failsWith(Type.Record(Type.String(), Type.String()), "values.env must map names to strings")),
  removeHeaders: Type.Optional(failsWith(Type.Array(Type.String()), "values.removeHeaders must be a list of strings")),
  removeEnv: Type.Optional(failsWith(Type.Array(Type.String()), "values.removeEnv must be a list of strings")),
  oauth: Type.Optional(
    closed("values.oauth", {
      clientId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      clientSecret: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      scope: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      callbackPort: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      callbackUrl: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    }),
  ),
});
export type McpValues = Static<typeof McpValues>;

const serverName = failsWith(Type.String(), "name must be a string");

export const saveMcpServer = defineRoute("PUT", "/api/pi/settings/mcp", {
  summary: "Create or edit a server of the global mcp.json",
  tags,
  body: closed("body", { name: serverName, revision, create: Type.Optional(flag("create")), values: McpValues }),
  response: { 200: McpInventory },
});

export const deleteMcpServer = defineRoute("DELETE", "/api/pi/settings/mcp", {
  summary: "Remove a server from the global mcp.json (credentials and open connections stay)",
  tags,
  body: closed("body", { name: serverName, revision }),
  response: { 200: McpInventory },
});

export const mcpAction = defineRoute("POST", "/api/pi/settings/mcp/action", {
  summary: "Check, sign in to or sign out of an MCP server (a polled settings operation)",
  tags,
  body: closed("body", {
    name: serverName,
    action: failsWith(literals(["check", "login", "logout"]), "action must be check, login or logout"),
  }),
  response: { 200: SettingsOperation },
});

const OperationParams = Type.Object({ id: failsWith(Type.String({ minLength: 1 }), "id must be a non-empty string") });

export const getOperation = defineRoute("GET", "/api/pi/settings/operations/:id", {
  summary: "A settings operation's snapshot",
  tags,
  params: OperationParams,
  response: { 200: SettingsOperation },
});

export const answerOperation = defineRoute("POST", "/api/pi/settings/operations/:id", {
  summary: "Answer a settings operation's current prompt",
  tags,
  params: OperationParams,
  body: Type.Object({
    promptId: failsWith(Type.String(), "promptId must be a string"),
    value: failsWith(Type.String({ maxLength: 32_768 }), "Invalid response."),
  }),
  response: { 200: SettingsOperation },
});

export const cancelOperation = defineRoute("DELETE", "/api/pi/settings/operations/:id", {
  summary: "Cancel a settings operation (poll until it ends)",
  tags,
  params: OperationParams,
  response: { 200: SettingsOperation },
});

export const PI_SETTINGS_ROUTES = [
  providerInventory,
  catalogModels,
  saveProvider,
  deleteProvider,
  saveModel,
  deleteModel,
  providerAction,
  mcpInventory,
  saveMcpServer,
  deleteMcpServer,
  mcpAction,
  getOperation,
  answerOperation,
  cancelOperation,
] as const;
