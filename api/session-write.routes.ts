/**
 * Session write routes (spec "Session routes"), on the runtime host:
 * - POST /api/pi/sessions `{ cwd, kind? }` → `{ active, detail }`: creates the folder if needed, opens a new
 *   runtime (kind "research": the worker writes the research marker) and selects it;
 * - PATCH /api/pi/sessions/:id `{ name }` → `{ ok, detail, session }`: renames through the runtime (opened if
 *   needed); whitespace collapses, an empty or non-string name is 400;
 * - DELETE /api/pi/sessions/:id → `{ ok, trashed: { path } }`: closes its runtime, then moves the JSONL file
 *   into `<agentDir>/leyline-trash`, wherever the file lies (adapters/session-files/session-trash.ts; path null
 *   when the runtime never wrote a file); a streaming or compacting session → 500;
 * - POST /api/pi/active-session `{ id?, path?, cwd? }` → `{ active }`: selects a session (opening it): by id,
 *   else by file, else the newest session of the folder (open runtimes first); unresolved → 404. Sessions are
 *   resolved by adapters/session-resolution/session-resolution.ts;
 * - GET /api/pi/state?cwd&refresh → `{ active }`: the selected runtime's snapshot when its folder matches and
 *   no refresh is asked, else a temporary preview (runtime-preview.ts; id ""): it holds a slot of the host's
 *   capacity (503 when full), is shared per folder while being built and served again from a cache while the
 *   files it read are unchanged, unless `refresh` is asked.
 *
 * Deliberate departures from the spec's "currently" statuses: a missing cwd or a bad kind is 400 (not 500),
 * and an unknown id on PATCH/DELETE is 404 (not 500), as on every other route with an id.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyPluginAsync } from "fastify";
import { createSession, deleteSession, renameSession, runtimeState, selectSession } from "../domain/contract/http-sessions.ts";
import { typed } from "./contract.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { RuntimeHandle } from "../adapters/runtime-host/runtime-handle.ts";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { SESSION_NOT_FOUND } from "../adapters/runtime-host/runtime-host-error.ts";
import { moveToTrash } from "../adapters/session-files/session-trash.ts";
import { resolveClientPath } from "../adapters/session-files/session-paths.ts";
import { closeIdleRuntime, detailOf, newestIn, openSession, openSessionFile } from "../adapters/session-resolution/session-resolution.ts";
import { HttpError } from "./http-error.ts";
import type { RuntimePreviewer } from "./runtime-preview.ts";

export interface SessionWriteRoutesOptions {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
  readonly previewer: RuntimePreviewer;
}

export const sessionWriteRoutes: FastifyPluginAsync<SessionWriteRoutesOptions> = async (app, options) => {
  const { readSide, host, previewer } = options;
  const services = { readSide, host };

  const api = typed(app);

  api.post(createSession.url, { schema: createSession.schema }, async (request) => {
    const { kind } = request.body;
    const cwd = resolveClientPath(request.body.cwd);
    try {
      fs.mkdirSync(cwd, { recursive: true });
    } catch (error) {
      throw new HttpError("runtime_failed", `Cannot create ${cwd}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (!fs.statSync(cwd).isDirectory()) throw new HttpError("invalid_request", `Not a directory: ${cwd}`);
    const handle = await host.open({ new: { cwd, ...(kind !== undefined ? { kind } : {}) } }, { select: true });
    return { active: handle.active(), detail: await detailOf(readSide, handle) };
  });

  api.patch(renameSession.url, { schema: renameSession.schema }, async (request) => {
    const handle = await openSession(services, request.params.id);
    await handle.rename(request.body.name);
    const detail = await detailOf(readSide, handle);
    return { ok: true as const, detail, session: detail.session };
  });

  api.delete(deleteSession.url, { schema: deleteSession.schema }, async (request) => {
    const { id } = request.params;
    const handle = host.get(id);
    const { index } = await readSide.ready();
    const persisted = index.list().find((summary) => summary.id === id);
    if (handle === undefined && persisted === undefined) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
    const file = handle?.sessionFile ?? persisted?.path ?? null;
    await closeIdleRuntime(host, id, "delete a session");
    if (file === null || !fs.existsSync(file)) return { ok: true as const, trashed: { path: null } };
    const trashed = moveToTrash(file, host.trashDir);
    await index.touch([file]);
    return { ok: true as const, trashed: { path: trashed } };
  });

  api.post(selectSession.url, { schema: selectSession.schema }, async (request) => {
    const body = request.body;
    let handle: RuntimeHandle;
    if (typeof body.id === "string" && body.id !== "") {
      handle = await openSession(services, body.id);
    } else if (typeof body.path === "string" && body.path.trim() !== "") {
      const file = resolveClientPath(body.path);
      if (!fs.existsSync(file)) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
      handle = await openSessionFile(host, file);
    } else if (typeof body.cwd === "string" && body.cwd.trim() !== "") {
      const found = await newestIn(services, resolveClientPath(body.cwd));
      if (found === null) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
      handle = found.handle ?? (await openSessionFile(host, found.file ?? ""));
    } else {
      throw new HttpError("invalid_request", "One of id, path or cwd is required");
    }
    host.select(handle.sessionId);
    return { active: handle.active() };
  });

  api.get(runtimeState.url, { schema: runtimeState.schema }, async (request) => {
    const refresh = request.query.refresh === "1" || request.query.refresh === "true";
    const selectedId = host.activeSessionId;
    const selected = selectedId === null ? undefined : host.get(selectedId);
    const given = request.query.cwd;
    const cwd = given !== undefined && given.trim() !== "" ? resolveClientPath(given) : (selected?.cwd ?? process.cwd());
    if (!refresh && selected !== undefined && path.resolve(selected.cwd) === cwd) return { active: selected.active() };
    if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) throw new HttpError("invalid_request", `Not a directory: ${cwd}`);
    return { active: await previewer.preview(cwd, { refresh }) };
  });
};
