/**
 * Test support for Pi Settings: inventories, providers, models and operation snapshots shaped like the
 * contract's (domain/contract/http-pi-settings.ts), for the fake backend of composer.fixture.ts.
 */
import type {
  McpInventory,
  McpServerSettings,
  OperationSnapshot,
  ProviderInventory,
  ProviderModel,
  ProviderSettings,
} from "../../api/pi-settings.ts";

export function model(id: string, overrides: Partial<ProviderModel> = {}): ProviderModel {
  return {
    id,
    name: id,
    contextWindow: 128_000,
    maxTokens: 8192,
    reasoning: false,
    input: ["text"],
    cost: {},
    kind: "custom",
    overrides: {},
    ...overrides,
  };
}

export function provider(
  id: string,
  overrides: Partial<ProviderSettings> = {},
  config: Partial<ProviderSettings["config"]> = {},
): ProviderSettings {
  return {
    id,
    name: id,
    kind: "custom",
    configured: false,
    authSource: null,
    authLabel: "",
    authMethods: [],
    config: {
      name: id,
      baseUrl: "http://localhost:8080/v1",
      api: "openai-completions",
      authHeader: null,
      apiKeyConfigured: false,
      headersConfigured: false,
      canEdit: true,
      hasConfiguration: true,
      ...config,
    },
    models: [],
    ...overrides,
  };
}

export function inventory(revision: string | null, providers: ProviderSettings[] = [], warning?: string): ProviderInventory {
  return { revision, providers, ...(warning === undefined ? {} : { warning }) };
}

export function mcpServer(name: string, overrides: Partial<McpServerSettings> = {}): McpServerSettings {
  return {
    name,
    transport: "http",
    enabled: true,
    exposure: "deferred",
    url: "http://localhost:3000/mcp",
    headers: [],
    env: [],
    oauth: {},
    ...overrides,
  };
}

export function mcpInventory(revision: string, servers: McpServerSettings[] = []): McpInventory {
  return { revision, servers };
}

export function operation(id: string, overrides: Partial<OperationSnapshot> = {}): OperationSnapshot {
  return { id, state: "running", prompt: null, events: [], result: null, error: "", ...overrides };
}
