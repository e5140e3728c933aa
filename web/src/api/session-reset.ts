/**
 * Reset-to-entry's preview and undo (api/session-reset.routes.ts): what a reset would remove, read from the
 * file without starting pi, and putting the trash copy a reset answered back in place.
 */
import type { ResetPreview, ResetUndoResponse } from "../../../domain/reset-preview.ts";
import { http } from "./http.ts";

export type { ResetPreview, ResetUndoResponse };

/** GET /api/pi/sessions/:id/reset-preview?entryId */
export function resetPreview(sessionId: string, entryId: string, signal?: AbortSignal): Promise<ResetPreview> {
  return http.get<ResetPreview>(`/api/pi/sessions/${encodeURIComponent(sessionId)}/reset-preview`, {
    query: { entryId },
    ...(signal !== undefined ? { signal } : {}),
  });
}

/** POST /api/pi/sessions/:id/reset-undo `{ trashPath }` */
export function resetUndo(sessionId: string, trashPath: string): Promise<ResetUndoResponse> {
  return http.post<ResetUndoResponse>(`/api/pi/sessions/${encodeURIComponent(sessionId)}/reset-undo`, { trashPath });
}

/** The trash copy a reset-to-entry response names (`trashed.path`), or null. */
export function resetTrashPath(response: unknown): string | null {
  if (typeof response !== "object" || response === null || !("trashed" in response)) return null;
  const trashed: unknown = response.trashed;
  if (typeof trashed !== "object" || trashed === null || !("path" in trashed)) return null;
  return typeof trashed.path === "string" && trashed.path !== "" ? trashed.path : null;
}
