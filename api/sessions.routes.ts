/**
 * Session read routes (spec "Session routes"):
 * - GET /api/pi/sessions → `{ sessions: SessionSummary[] }`: runtime-only sessions (open runtimes whose file
 *   is not in the persisted list) first, in roster order, then the persisted list by `modified`, newest first
 *   (domain/session-list-merge.ts);
 * - GET /api/pi/sessions/:id[?path=] → SessionDetail; with `path`, that file is opened and its session id must
 *   equal `:id` (missing file or unknown id → 404, a file that is not that session → 500);
 * - GET /api/pi/sessions/by-path?path= → SessionDetail (missing query → 400, unresolvable → 404).
 *
 * Details come from the kept read model in the detail worker (adapters/read-side/session-detail-feeds.ts, asked
 * through adapters/read-side/session-lookup.ts): folded once, then kept up to date from appended lines and
 * shared with the events socket's subscribers; a repeated request costs a stat and sends the JSON built for
 * that revision.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { listSessions, sessionByPath, sessionDetail } from "../domain/contract/http-sessions.ts";
import { sessionList } from "../domain/session-list-merge.ts";
import { typed } from "./contract.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { DetailBody } from "../adapters/read-side/session-detail-feeds.ts";
import { detailBodyOf } from "../adapters/read-side/session-lookup.ts";
import { SESSION_NOT_FOUND } from "../adapters/runtime-host/runtime-host-error.ts";
import { resolveClientPath } from "../adapters/session-files/session-paths.ts";
import { HttpError } from "./http-error.ts";
import type { RuntimeHostView } from "./runtime-host.ts";

export interface SessionsRoutesOptions {
  readonly readSide: ReadSide;
  readonly runtimeHost: RuntimeHostView;
}

/** Sends a detail's JSON as the detail worker built it for its revision. */
function sendDetail(reply: FastifyReply, body: DetailBody): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(body.json);
}

export const sessionsRoutes: FastifyPluginAsync<SessionsRoutesOptions> = async (app, options) => {
  const { readSide, runtimeHost } = options;

  const api = typed(app);

  api.get(listSessions.url, { schema: listSessions.schema }, async () => {
    const { index } = await readSide.ready();
    return { sessions: sessionList(index.list(), runtimeHost.openRuntimes(), (file) => path.resolve(file)) };
  });

  api.get(sessionByPath.url, { schema: sessionByPath.schema }, async (request, reply) => {
    const value = request.query.path;
    if (value === undefined || value.trim() === "") throw new HttpError("invalid_request", "Missing query parameter: path");
    const { details } = await readSide.ready();
    const body = await detailBodyOf(details, resolveClientPath(value));
    if (body === null) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
    return sendDetail(reply, body);
  });

  api.get(sessionDetail.url, { schema: sessionDetail.schema }, async (request, reply) => {
    const { id } = request.params;
    const { index, details } = await readSide.ready();
    const given = request.query.path;
    if (given !== undefined && given.trim() !== "") {
      const file = resolveClientPath(given);
      if (!fs.existsSync(file)) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
      const body = await detailBodyOf(details, file);
      // Spec: an id and path mismatch is a 500 (a file that is no session cannot match either).
      if (body === null || body.sessionId !== id) throw new HttpError("session_path_mismatch", "Session path does not match id");
      return sendDetail(reply, body);
    }
    const runtime = runtimeHost.openRuntimes().find((r) => r.sessionId === id && r.sessionFile !== null);
    const summary = index.list().find((s) => s.id === id);
    const file = summary?.path ?? runtime?.sessionFile ?? null;
    if (file === null) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
    const body = await detailBodyOf(details, file);
    if (body === null || body.sessionId !== id) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
    return sendDetail(reply, body);
  });
};
