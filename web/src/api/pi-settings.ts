/**
 * Typed functions for the Pi Settings routes (spec "Pi Settings routes", domain/contract/http-pi-settings.ts):
 * provider inventory and catalog lookup, provider/model configuration (models.json), MCP inventory and
 * configuration (mcp.json), provider and MCP actions, and the private polled settings operations.
 *
 * Types come from the server's contract (type-only imports: the schemas stay out of the bundle). Errors are
 * `ApiError(status, message)` from http.ts; a stale revision is a 409 whose message the store recognises.
 */
import type { RouteBody, RouteResponse } from "../../../domain/contract/http-route.ts";
import type {
  answerOperation as answerOperationRoute,
  catalogModels,
  deleteMcpServer as deleteMcpRoute,
  deleteModel as deleteModelRoute,
  deleteProvider as deleteProviderRoute,
  mcpAction as mcpActionRoute,
  mcpInventory,
  providerAction as providerActionRoute,
  providerInventory,
  saveMcpServer as saveMcpRoute,
  saveModel as saveModelRoute,
  saveProvider as saveProviderRoute,
  SettingsTarget,
} from "../../../domain/contract/http-pi-settings.ts";
import type { ActiveResponse } from "./dto.ts";
import { http, request } from "./http.ts";

export type {
  CatalogModel,
  McpServerSettings,
  McpValues,
  ModelTestDraft,
  ModelValues,
  ProviderModel,
  ProviderSettings,
  ProviderTestDraft,
  ProviderValues,
  SettingsEvent,
  SettingsOperation,
  SettingsPrompt,
  SettingsTarget,
} from "../../../domain/contract/http-pi-settings.ts";

export type ProviderInventory = RouteResponse<typeof providerInventory>;
export type CatalogResult = RouteResponse<typeof catalogModels>;
export type McpInventory = RouteResponse<typeof mcpInventory>;

/** The bodies, from the contract; `target` is added from the store's target when there is one. */
export type SaveProviderBody = RouteBody<typeof saveProviderRoute>;
export type DeleteProviderBody = RouteBody<typeof deleteProviderRoute>;
export type SaveModelBody = RouteBody<typeof saveModelRoute>;
export type DeleteModelBody = RouteBody<typeof deleteModelRoute>;
export type ProviderActionBody = RouteBody<typeof providerActionRoute>;
export type SaveMcpBody = RouteBody<typeof saveMcpRoute>;
export type DeleteMcpBody = RouteBody<typeof deleteMcpRoute>;
export type McpActionBody = RouteBody<typeof mcpActionRoute>;
export type AnswerBody = RouteBody<typeof answerOperationRoute>;
export type OperationSnapshot = RouteResponse<typeof answerOperationRoute>;

const BASE = "/api/pi/settings";

/** Query parameters of a target (cwd wins on the server; both are passed through as given). */
function targetQuery(target: SettingsTarget | undefined): Record<string, string | undefined> {
  return { sessionId: target?.sessionId, cwd: target?.cwd };
}

/** A body with the target when there is one (the routes reject unknown fields, and `target: undefined` is dropped). */
function withTarget<T extends object>(body: T, target: SettingsTarget | undefined): T & { target?: SettingsTarget } {
  return target === undefined ? body : { ...body, target };
}

export function getProviders(target?: SettingsTarget, refresh = false): Promise<ProviderInventory> {
  return http.get<ProviderInventory>(`${BASE}/providers`, { query: { ...targetQuery(target), refresh: refresh ? "1" : undefined } });
}

export function searchCatalog(
  q: string,
  target?: SettingsTarget,
  options: { refresh?: boolean; signal?: AbortSignal } = {},
): Promise<CatalogResult> {
  return http.get<CatalogResult>(`${BASE}/catalog/models`, {
    query: { q, ...targetQuery(target), refresh: options.refresh ? "1" : undefined },
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

export function saveProvider(body: Omit<SaveProviderBody, "target">, target?: SettingsTarget): Promise<ProviderInventory> {
  return request<ProviderInventory>("PUT", `${BASE}/providers`, { body: withTarget(body, target) });
}

export function deleteProvider(body: Omit<DeleteProviderBody, "target">, target?: SettingsTarget): Promise<ProviderInventory> {
  return request<ProviderInventory>("DELETE", `${BASE}/providers`, { body: withTarget(body, target) });
}

export function saveModel(body: Omit<SaveModelBody, "target">, target?: SettingsTarget): Promise<ProviderInventory> {
  return request<ProviderInventory>("PUT", `${BASE}/models`, { body: withTarget(body, target) });
}

export function deleteModel(body: Omit<DeleteModelBody, "target">, target?: SettingsTarget): Promise<ProviderInventory> {
  return request<ProviderInventory>("DELETE", `${BASE}/models`, { body: withTarget(body, target) });
}

export function startProviderAction(body: Omit<ProviderActionBody, "target">, target?: SettingsTarget): Promise<OperationSnapshot> {
  return http.post<OperationSnapshot>(`${BASE}/providers/action`, withTarget(body, target));
}

export function getMcpServers(): Promise<McpInventory> {
  return http.get<McpInventory>(`${BASE}/mcp`);
}

export function saveMcpServer(body: SaveMcpBody): Promise<McpInventory> {
  return request<McpInventory>("PUT", `${BASE}/mcp`, { body });
}

export function deleteMcpServer(body: DeleteMcpBody): Promise<McpInventory> {
  return request<McpInventory>("DELETE", `${BASE}/mcp`, { body });
}

export function startMcpAction(body: McpActionBody): Promise<OperationSnapshot> {
  return http.post<OperationSnapshot>(`${BASE}/mcp/action`, body);
}

function operationPath(id: string): string {
  return `${BASE}/operations/${encodeURIComponent(id)}`;
}

export function getOperation(id: string, signal?: AbortSignal): Promise<OperationSnapshot> {
  return http.get<OperationSnapshot>(operationPath(id), signal ? { signal } : {});
}

export function answerOperation(id: string, body: AnswerBody): Promise<OperationSnapshot> {
  return http.post<OperationSnapshot>(operationPath(id), body);
}

export function cancelOperation(id: string): Promise<OperationSnapshot> {
  return http.delete<OperationSnapshot>(operationPath(id));
}

/**
 * GET /api/pi/state with refresh=1: a fresh start-screen preview, so models added in Settings show up in the
 * start screen's picker (spec "Saving or authenticating does not refresh live conversation catalogs …
 * Home can request a fresh /state preview with cwd and refresh=1").
 */
export function refreshedRuntimeState(cwd?: string): Promise<ActiveResponse> {
  return http.get<ActiveResponse>("/api/pi/state", { query: { cwd, refresh: "1" } });
}
