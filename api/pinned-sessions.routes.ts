/**
 * Pinned sessions of the native backend (spec "Pinned sessions"; contract in domain/contract/http-native-app.ts):
 * session ids per backend connection in leyline.sqlite. Ids are trimmed, 1 to 128 characters; at most 200 pins per
 * connection; a prune names at most 500 ids; JSON bodies up to 64 KiB (413 above). A connection id the registry
 * does not know (builtin or saved) → 404.
 */
import type { FastifyPluginAsync } from "fastify";
import { listPinnedSessions, pinSession, prunePinnedSessions, unpinSession } from "../domain/contract/http-native-app.ts";
import { checkPinnedId, checkPruneIds, PINNED_BODY_LIMIT_BYTES } from "../domain/native-app/native-records.ts";
import { addPin, readKnownPins, removePins } from "../adapters/native-app/pinned-sessions-store.ts";
import { typed } from "./contract.ts";
import { checked, type NativeRoutesOptions } from "./connections.routes.ts";

export const pinnedSessionsRoutes: FastifyPluginAsync<NativeRoutesOptions> = async (app, options) => {
  const now = options.now ?? Date.now;
  const api = typed(app);

  /** The database and the checked connection id (the store answers 404 when it names no connection). */
  const connection = async (raw: unknown) => {
    const connectionId = checked(checkPinnedId(raw, "connectionId"));
    const { db } = await options.readSide.database();
    return { db, connectionId };
  };

  api.get(listPinnedSessions.url, { schema: listPinnedSessions.schema }, async (request) => {
    const { db, connectionId } = await connection(request.query.connectionId);
    return readKnownPins(db, connectionId);
  });

  api.post(pinSession.url, { schema: pinSession.schema, bodyLimit: PINNED_BODY_LIMIT_BYTES }, async (request, reply) => {
    const sessionId = checked(checkPinnedId(request.body.sessionId, "sessionId"));
    const { db, connectionId } = await connection(request.body.connectionId);
    return reply.code(201).send(await addPin(db, connectionId, sessionId, now()));
  });

  api.delete(unpinSession.url, { schema: unpinSession.schema, bodyLimit: PINNED_BODY_LIMIT_BYTES }, async (request) => {
    const sessionId = checked(checkPinnedId(request.query.sessionId, "sessionId"));
    const { db, connectionId } = await connection(request.query.connectionId);
    return removePins(db, connectionId, [sessionId]);
  });

  api.post(prunePinnedSessions.url, { schema: prunePinnedSessions.schema, bodyLimit: PINNED_BODY_LIMIT_BYTES }, async (request) => {
    const sessionIds = checked(checkPruneIds(request.body.sessionIds));
    const { db, connectionId } = await connection(request.body.connectionId);
    return removePins(db, connectionId, sessionIds);
  });
};
