/**
 * What a reset-to-entry removes, and its undo (README "Restoring after reset-to-entry"; the reset itself is
 * POST /api/pi/reset-to-entry in runtime-actions.routes.ts):
 * - GET /api/pi/sessions/:id/reset-preview?entryId → `{ entryId, removedEntryCount, removedMessageCount,
 *   removedOtherBranchEntryCount, keptEntryCount }`: read-only, from the file (writes nothing, starts no
 *   runtime). Every entry after the chosen one in file order counts, other branches included, exactly as
 *   the rewrite cuts. Unknown session or entry → 404, missing entryId → 400, an entry off the active
 *   branch → 400 (the reset refuses it too).
 * - POST /api/pi/sessions/:id/reset-undo `{ trashPath }` → `{ ok: true as const, detail, trashed: { path } }`: puts a
 *   reset copy from `<agentDir>/leyline-trash` back. The copy must be one Leyline made (`.reset-` or `.undo-`
 *   name, directly in the trash) of this session (header id) → else 400, missing → 404. The session's
 *   runtime is closed first (a streaming or compacting one → 500, as DELETE), the current file is copied to
 *   the trash too (`trashed.path`, so the undo loses nothing), and the copy replaces the file atomically.
 *   The runtime is not reopened: the next action opens it on the restored file.
 */
import fs from "node:fs";
import type { FastifyPluginAsync } from "fastify";
import { resetPreview, resetUndo } from "../domain/contract/http-sessions.ts";
import { typed } from "./contract.ts";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { readResetCopy, resetPreviewOfFile, restoreResetCopy } from "../adapters/runtime-host/session-reset.ts";
import type { ResetPreview, ResetUndoResponse } from "../domain/reset-preview.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import { loadSessionDetail, persistedFileOf } from "../adapters/read-side/session-lookup.ts";
import { SESSION_NOT_FOUND } from "../adapters/runtime-host/runtime-host-error.ts";
import { closeIdleRuntime } from "../adapters/session-resolution/session-resolution.ts";
import { HttpError } from "./http-error.ts";

export interface SessionResetRoutesOptions {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
}

export const sessionResetRoutes: FastifyPluginAsync<SessionResetRoutesOptions> = async (app, options) => {
  const { readSide, host } = options;

  /** The session's file: its open runtime's, else the indexed one; 404 when neither exists on disk. */
  const fileOf = async (id: string): Promise<string> => {
    const file = host.get(id)?.sessionFile ?? (await persistedFileOf(readSide, id));
    if (file === null || !fs.existsSync(file)) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
    return file;
  };

  const api = typed(app);

  api.get(resetPreview.url, { schema: resetPreview.schema }, async (request): Promise<ResetPreview> => {
    // The branch the session shows: an open runtime's leaf may have moved without writing (a /tree navigation).
    const moved = host.get(request.params.id)?.movedLeaf() ?? null;
    return resetPreviewOfFile(await fileOf(request.params.id), request.query.entryId, moved === null ? undefined : moved.leafId);
  });

  api.post(resetUndo.url, { schema: resetUndo.schema }, async (request): Promise<ResetUndoResponse> => {
    const { id } = request.params;
    const { trashPath } = request.body;
    const file = await fileOf(id);
    // Checked before the runtime is closed: a wrong copy changes nothing.
    const copy = readResetCopy(id, trashPath, host.trashDir);
    await closeIdleRuntime(host, id, "undo a reset");
    const { trashPath: trashed } = restoreResetCopy(file, copy, { trashDir: host.trashDir, now: Date.now() });
    const { index, details } = await readSide.ready();
    await index.touch([file]);
    const detail = await loadSessionDetail(details, file);
    if (detail === null) throw new HttpError("runtime_failed", "The restored session file cannot be read");
    return { ok: true as const, detail, trashed: { path: trashed } };
  });
};
