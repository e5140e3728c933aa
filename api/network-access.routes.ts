/**
 * Network access routes of the native backend (spec "Network access"), thin over
 * adapters/network-access/network-access-service.ts: GET and PUT /api/leyline/network-access answer NetworkAccess.
 * The PUT body is checked by its contract (domain/contract/http-network-access.ts) and limited to 1 KiB (413 past
 * it); the service refuses an update naming no field, and listener and persistence failures, with 400. Other
 * methods answer 405 (route-methods.ts). Answers carry Cache-Control: no-store (the state changes at any time).
 */
import type { FastifyPluginAsync } from "fastify";
import type { NetworkAccessService } from "../adapters/network-access/network-access-service.ts";
import { getNetworkAccess, updateNetworkAccess } from "../domain/contract/http-network-access.ts";
import { NETWORK_ACCESS_BODY_LIMIT_BYTES } from "../domain/native-app/network-access.ts";
import { typed } from "./contract.ts";

export interface NetworkAccessRoutesOptions {
  readonly networkAccess: NetworkAccessService;
}

export const networkAccessRoutes: FastifyPluginAsync<NetworkAccessRoutesOptions> = async (app, options) => {
  const { networkAccess } = options;
  const api = typed(app);

  api.get(getNetworkAccess.url, { schema: getNetworkAccess.schema }, async (_request, reply) => {
    reply.header("cache-control", "no-store");
    return networkAccess.get();
  });

  api.put(
    updateNetworkAccess.url,
    { schema: updateNetworkAccess.schema, bodyLimit: NETWORK_ACCESS_BODY_LIMIT_BYTES },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return networkAccess.update(request.body);
    },
  );
};
