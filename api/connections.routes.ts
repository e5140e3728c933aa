/**
 * The connection registry of the native backend (spec "Connection registry"; contract in
 * domain/contract/http-native-app.ts): saved connections to other Leyline backends in leyline.sqlite, and the one
 * new windows start on. Thin: check the body (domain/native-app/native-records.ts), call the store
 * (adapters/native-app/connections-store.ts), answer the registry. Bad values → 400, unknown ids → 404, builtin
 * cannot be changed or removed → 400.
 */
import type { FastifyPluginAsync } from "fastify";
import {
  createConnection,
  deleteConnection,
  listConnections,
  setDefaultConnection,
  updateConnection,
} from "../domain/contract/http-native-app.ts";
import { checkConnectionName, checkConnectionUrl, checkPinnedId, type Checked } from "../domain/native-app/native-records.ts";
import * as store from "../adapters/native-app/connections-store.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import { typed } from "./contract.ts";
import { HttpError } from "./http-error.ts";

export interface NativeRoutesOptions {
  readonly readSide: ReadSide;
  /** Milliseconds since the epoch (tests pass a fixed clock). Default Date.now. */
  readonly now?: () => number;
}

/** The value of a check, or a 400 with its words. */
export function checked<T>(result: Checked<T>): T {
  if (!result.ok) throw new HttpError("invalid_request", result.error);
  return result.value;
}

export const connectionsRoutes: FastifyPluginAsync<NativeRoutesOptions> = async (app, options) => {
  const now = options.now ?? Date.now;
  const database = async () => (await options.readSide.database()).db;
  const api = typed(app);

  api.get(listConnections.url, { schema: listConnections.schema }, async () => store.readRegistry(await database()));

  api.post(createConnection.url, { schema: createConnection.schema }, async (request, reply) => {
    const name = checked(checkConnectionName(request.body.name));
    const url = checked(checkConnectionUrl(request.body.url));
    const registry = await store.createConnection(await database(), { name, url }, now());
    return reply.code(201).send(registry);
  });

  api.patch(updateConnection.url, { schema: updateConnection.schema }, async (request) => {
    const { name, url } = request.body;
    if (name === undefined && url === undefined) throw new HttpError("invalid_request", "name or url is required");
    const changes: { name?: string; url?: string } = {};
    if (name !== undefined) changes.name = checked(checkConnectionName(name));
    if (url !== undefined) changes.url = checked(checkConnectionUrl(url));
    return store.updateConnection(await database(), request.params.id, changes, now());
  });

  api.delete(deleteConnection.url, { schema: deleteConnection.schema }, async (request) =>
    store.deleteConnection(await database(), request.params.id),
  );

  api.put(setDefaultConnection.url, { schema: setDefaultConnection.schema }, async (request) => {
    const id = checked(checkPinnedId(request.body.id, "id"));
    return store.setDefaultConnection(await database(), id, now());
  });
};
