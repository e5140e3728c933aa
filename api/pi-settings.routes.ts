/**
 * Pi Settings routes (spec "Pi Settings routes"), thin over adapters/pi-settings/pi-settings-service.ts:
 * parse (the contract's closed schemas), call the service, answer its DTO. Every answer of /api/pi/settings,
 * errors included, carries Cache-Control: no-store. Action paths accept only POST; another method there
 * answers 404 "Not found" (spec), the other settings paths 405.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import {
  answerOperation,
  cancelOperation,
  catalogModels,
  deleteMcpServer,
  deleteModel,
  deleteProvider,
  getOperation,
  mcpAction,
  mcpInventory,
  providerAction,
  providerInventory,
  saveMcpServer,
  saveModel,
  saveProvider,
} from "../domain/contract/http-pi-settings.ts";
import type { PiSettingsService } from "../adapters/pi-settings/pi-settings-service.ts";
import { typed } from "./contract.ts";
import type { RouteMethodsConfig } from "./route-methods.ts";

export interface PiSettingsRoutesOptions {
  readonly settings: PiSettingsService;
}

const SETTINGS_PREFIX = "/api/pi/settings";
const ACTION_CONFIG: RouteMethodsConfig = { unsupportedMethod: 404 };

/** The app-wide onRequest hook (unknown settings paths and refused methods answer no-store too). */
export async function settingsNoStore(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.url === SETTINGS_PREFIX || request.url.startsWith(`${SETTINGS_PREFIX}/`) || request.url.startsWith(`${SETTINGS_PREFIX}?`)) {
    reply.header("cache-control", "no-store");
  }
}

export const piSettingsRoutes: FastifyPluginAsync<PiSettingsRoutesOptions> = async (app, options) => {
  const { settings } = options;
  const api = typed(app);

  api.get(providerInventory.url, { schema: providerInventory.schema }, async (request) => {
    const { sessionId, cwd, refresh } = request.query;
    return settings.providers({ sessionId, cwd, refresh: refresh === "1" });
  });

  api.get(catalogModels.url, { schema: catalogModels.schema }, async (request) => {
    const { sessionId, cwd, refresh, q } = request.query;
    return settings.catalog({ sessionId, cwd, q, refresh: refresh === "1" });
  });

  api.put(saveProvider.url, { schema: saveProvider.schema }, async (request) => settings.saveProvider(request.body));
  api.delete(deleteProvider.url, { schema: deleteProvider.schema }, async (request) => settings.deleteProvider(request.body));
  api.put(saveModel.url, { schema: saveModel.schema }, async (request) => settings.saveModel(request.body));
  api.delete(deleteModel.url, { schema: deleteModel.schema }, async (request) => settings.deleteModel(request.body));

  api.post(providerAction.url, { schema: providerAction.schema, config: ACTION_CONFIG }, async (request) =>
    settings.providerAction(request.body),
  );

  api.get(mcpInventory.url, { schema: mcpInventory.schema }, async () => settings.mcp());
  api.put(saveMcpServer.url, { schema: saveMcpServer.schema }, async (request) => settings.saveMcp(request.body));
  api.delete(deleteMcpServer.url, { schema: deleteMcpServer.schema }, async (request) => settings.deleteMcp(request.body));
  api.post(mcpAction.url, { schema: mcpAction.schema, config: ACTION_CONFIG }, async (request) => settings.mcpAction(request.body));

  api.get(getOperation.url, { schema: getOperation.schema }, async (request) => settings.operation(request.params.id));
  api.post(answerOperation.url, { schema: answerOperation.schema }, async (request) => settings.answer(request.params.id, request.body));
  api.delete(cancelOperation.url, { schema: cancelOperation.schema }, async (request) => settings.cancel(request.params.id));
};
