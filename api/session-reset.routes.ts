/**
 * What a reset-to-entry removes, and its undo (README "Restoring after reset-to-entry"; the reset itself is
 * POST /api/pi/reset-to-entry in runtime-actions.routes.ts):
 * - GET /api/pi/sessions/:id/reset-preview?entryId → `{ entryId, removedEntryCount, removedMessageCount,
 *   removedOtherBranchEntryCount, keptEntryCount }`: read-only, from the file (writes nothing, starts no
 *   runtime). Every entry after the chosen one in file order counts, other branches included, exactly as
 *   the rewrite cuts. Unknown session or entry → 404, missing entryId → 400, an entry off the active
 *   branch → 400 (the reset refuses it too).
 * - POST /api/pi/sessions/:id/reset-undo `{ trashPath }` → `{ ok: true, detail, trashed: { path } }`: puts a
 *   reset copy from `<agentDir>/leyline-trash` back. The copy must be one Leyline made (`.reset-` or `.undo-`
 *   name, directly in the trash) of this session (header id) → else 400, missing → 404. The session's
 *   runtime is closed first (a streaming or compacting one → 500, as DELETE), the current file is copied to
 *   the trash too (`trashed.path`, so the undo loses nothing), and the copy replaces the file atomically.
 *   The runtime is not reopened: the next action opens it on the restored file.
 */
import fs from "node:fs";
import type { FastifyPluginAsync } from "fastify";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { readResetCopy, resetPreviewOfFile, restoreResetCopy } from "../adapters/runtime-host/session-reset.ts";
import type { ResetPreview, ResetUndoResponse } from "../domain/reset-preview.ts";
import { HttpError } from "./http-error.ts";
import type { ReadSide } from "./read-side.ts";
import { bodyObject, closeIdleRuntime, persistedFileOf, SESSION_NOT_FOUND } from "./runtime-sessions.ts";
import { loadSessionDetail } from "./sessions.routes.ts";

export interface SessionResetRoutesOptions {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
}

const idParams = { type: "object", required: ["id"], properties: { id: { type: "string", minLength: 1 } } } as const;
const previewQuery = { type: "object", properties: { entryId: { type: "string" } } } as const;

export const sessionResetRoutes: FastifyPluginAsync<SessionResetRoutesOptions> = async (app, options) => {
  const { readSide, host } = options;

  /** The session's file: its open runtime's, else the indexed one; 404 when neither exists on disk. */
  const fileOf = async (id: string): Promise<string> => {
    const file = host.get(id)?.sessionFile ?? (await persistedFileOf(readSide, id));
    if (file === null || !fs.existsSync(file)) throw new HttpError(404, SESSION_NOT_FOUND);
    return file;
  };

  app.get<{ Params: { id: string }; Querystring: { entryId?: string } }>(
    "/api/pi/sessions/:id/reset-preview",
    { schema: { params: idParams, querystring: previewQuery } },
    async (request): Promise<ResetPreview> => {
      const entryId = request.query.entryId;
      if (entryId === undefined || entryId === "") throw new HttpError(400, "entryId is required");
      return resetPreviewOfFile(await fileOf(request.params.id), entryId);
    },
  );

  app.post<{ Params: { id: string }; Body: unknown }>("/api/pi/sessions/:id/reset-undo", { schema: { params: idParams } }, async (request): Promise<ResetUndoResponse> => {
    const { id } = request.params;
    const trashPath = bodyObject(request.body)["trashPath"];
    if (typeof trashPath !== "string" || trashPath.trim() === "") throw new HttpError(400, "trashPath must be a non-empty string");
    const file = await fileOf(id);
    // Checked before the runtime is closed: a wrong copy changes nothing.
    const copy = readResetCopy(id, trashPath, host.trashDir);
    await closeIdleRuntime(host, id, "undo a reset");
    const { trashPath: trashed } = restoreResetCopy(file, copy, { trashDir: host.trashDir, now: Date.now() });
    const { index, details } = await readSide.ready();
    await index.touch([file]);
    const detail = await loadSessionDetail(details, file);
    if (detail === null) throw new HttpError(500, "The restored session file cannot be read");
    return { ok: true, detail, trashed: { path: trashed } };
  });
};
