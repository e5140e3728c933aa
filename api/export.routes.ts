/**
 * GET /api/pi/sessions/:id/export[?path=][&disposition=inline] (spec "Export route"): the session as one
 * self-contained HTML document (projections/session-export), `text/html; charset=utf-8`, with
 * `Content-Disposition: inline` for `disposition=inline` and `attachment` otherwise, both with a sanitized
 * file name (`leyline-<name or first message>-<id8>.html`, RFC 6266 `filename` + `filename*`).
 *
 * The session is resolved as GET /api/pi/sessions/:id resolves it: with `path`, that file (missing → 404;
 * not that session → 500); else the persisted file of the id, or an open runtime's file; an open runtime
 * that has not written its file yet is exported from its list row and research state (no transcript;
 * projections/session-export/unsaved-export.ts).
 * Deliberate departure: the spec says an unknown session "currently returns 500"; it answers 404
 * `{ error: "Session not found" }` (the spec's general rule for unknown sessions).
 */
import fs from "node:fs";
import type { FastifyPluginAsync } from "fastify";
import { exportSession } from "../domain/contract/http-sessions.ts";
import { typed } from "./contract.ts";
import { exportContentDisposition, exportDispositionType, exportFileNames } from "../projections/session-export/export-filename.ts";
import { EXPORT_CSP, renderSessionExport } from "../projections/session-export/session-export.ts";
import { unsavedExport, type SessionExportSource } from "../projections/session-export/unsaved-export.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import { loadSessionDetail } from "../adapters/read-side/session-lookup.ts";
import { SESSION_NOT_FOUND } from "../adapters/runtime-host/runtime-host-error.ts";
import { resolveClientPath } from "../adapters/session-files/session-paths.ts";
import { HttpError } from "./http-error.ts";
import type { RuntimeHostView } from "./runtime-host.ts";

export interface ExportRoutesOptions {
  readonly readSide: ReadSide;
  readonly runtimeHost: RuntimeHostView;
  /** Leyline's version (the document's generator). */
  readonly version: string;
  /** The export time. Default: the current time. */
  readonly now?: () => Date;
}

export const exportRoutes: FastifyPluginAsync<ExportRoutesOptions> = async (app, options) => {
  const { readSide, runtimeHost, version } = options;
  const now = options.now ?? (() => new Date());

  /** What to export for `id` (see the module comment). */
  async function exportSource(id: string, given: string | undefined): Promise<SessionExportSource> {
    const { index, details } = await readSide.ready();
    if (given !== undefined && given.trim() !== "") {
      const file = resolveClientPath(given);
      if (!fs.existsSync(file)) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
      const detail = await loadSessionDetail(details, file);
      if (detail === null || detail.session.id !== id) throw new HttpError("session_path_mismatch", "Session path does not match id");
      return { session: detail.session, research: detail.session.research, entries: detail.entries };
    }
    const runtime = runtimeHost.openRuntimes().find((r) => r.sessionId === id);
    const file = index.list().find((s) => s.id === id)?.path ?? runtime?.sessionFile ?? null;
    if (file !== null) {
      const detail = await loadSessionDetail(details, file);
      if (detail !== null && detail.session.id === id) {
        return { session: detail.session, research: detail.session.research, entries: detail.entries };
      }
    }
    if (runtime !== undefined) return unsavedExport(runtime);
    throw new HttpError("session_not_found", SESSION_NOT_FOUND);
  }

  typed(app).get(exportSession.url, { schema: exportSession.schema }, async (request, reply) => {
    const source = await exportSource(request.params.id, request.query.path);
    const html = renderSessionExport({ ...source, exportedAt: now().toISOString(), generator: `Leyline ${version}` });
    const disposition = exportContentDisposition(exportDispositionType(request.query.disposition), exportFileNames(source.session));
    return reply
      .type("text/html; charset=utf-8")
      .header("content-disposition", disposition)
      .header("content-security-policy", `${EXPORT_CSP}; sandbox`)
      .header("x-content-type-options", "nosniff")
      .header("cache-control", "no-store")
      .send(html);
  });
};
