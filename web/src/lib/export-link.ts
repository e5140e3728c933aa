/**
 * The address of a session's HTML export (GET /api/pi/sessions/:id/export, spec "Export route"): the server
 * answers `Content-Disposition: attachment` with the file name, so a plain link (or `<a download>`) downloads it.
 */
import { apiUrl } from "../api/http.ts";

export function exportUrl(sessionId: string): string {
  return apiUrl(`/api/pi/sessions/${encodeURIComponent(sessionId)}/export`);
}
