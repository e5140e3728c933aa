/**
 * The session tree read routes (domain/contract/http-session-tree.ts; Leyline's addition, issue 15):
 * - GET /api/pi/sessions/:id/tree[?from=&after=] → SessionTreeView: every entry of the file (pi's /tree), the leaf it
 *   shows; with `from`/`after`, only the entries appended since (snapshot, then deltas, for the live tree panel);
 * - GET /api/pi/sessions/:id/branch?leafId= → `{ sessionId, leafId, entries }`: the transcript of any one branch.
 * Both are answered by the detail worker from the session's kept read model (adapters/read-side/detail-feed-host.ts
 * `read`): viewing writes nothing and starts no runtime. An unknown session or entry answers 404.
 */
import fs from "node:fs";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { SessionTreeView } from "../domain/session-tree-view.ts";
import { sessionBranch, sessionTree } from "../domain/contract/http-session-tree.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { DetailQuery } from "../adapters/read-side/detail-feed-host.ts";
import { SESSION_NOT_FOUND } from "../adapters/runtime-host/runtime-host-error.ts";
import { typed } from "./contract.ts";
import { HttpError } from "./http-error.ts";
import type { RuntimeHostView } from "./runtime-host.ts";

export interface SessionTreeRoutesOptions {
  readonly readSide: ReadSide;
  readonly runtimeHost: RuntimeHostView;
}

function emptyTreeView(sessionId: string): SessionTreeView {
  return { sessionId, leafId: null, nodes: [], from: 0, total: 0, labels: {} };
}

/** The nodes a client holds already (`?from=&after=`), when it says both. */
function sinceOf(query: { from?: string; after?: string }): { since?: { from: number; after: string } } {
  return query.from !== undefined && query.after !== undefined ? { since: { from: Number(query.from), after: query.after } } : {};
}

/** Sends JSON the detail worker built (the contract's shape; the tests check it). */
function sendJson(reply: FastifyReply, json: Buffer): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}

export const sessionTreeRoutes: FastifyPluginAsync<SessionTreeRoutesOptions> = async (app, options) => {
  const { readSide, runtimeHost } = options;
  const api = typed(app);

  /** The JSON the detail worker built for session `id`'s file (its list row's, else its open runtime's). */
  const read = async (id: string, query: DetailQuery): Promise<Buffer> => {
    const { index, details } = await readSide.ready();
    const runtime = runtimeHost.openRuntimes().find((open) => open.sessionId === id);
    const file = index.list().find((summary) => summary.id === id)?.path ?? runtime?.sessionFile ?? null;
    // An open runtime pi has not saved yet (no message answered): an empty tree.
    const unsaved = runtime !== undefined && (file === null || !fs.existsSync(file));
    if (unsaved && query.kind === "tree") return Buffer.from(JSON.stringify(emptyTreeView(id)), "utf8");
    if (unsaved && query.kind === "branch") throw new HttpError("entry_not_found", `Entry ${query.leafId} not found`);
    if (file === null) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
    const result = await details.read(file, query);
    if ("missing" in result) {
      if (result.missing === "entry" && query.kind === "branch") throw new HttpError("entry_not_found", `Entry ${query.leafId} not found`);
      throw new HttpError("session_not_found", SESSION_NOT_FOUND);
    }
    // The file must still be this session (a file replaced under the same name answers 404, as the detail does).
    if (result.sessionId !== id) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
    return result.json;
  };

  api.get(sessionTree.url, { schema: sessionTree.schema }, async (request, reply) =>
    sendJson(reply, await read(request.params.id, { kind: "tree", ...sinceOf(request.query) })),
  );

  api.get(sessionBranch.url, { schema: sessionBranch.schema }, async (request, reply) =>
    sendJson(reply, await read(request.params.id, { kind: "branch", leafId: request.query.leafId })),
  );
};
