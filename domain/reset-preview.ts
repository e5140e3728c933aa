/**
 * The DTOs of reset-to-entry's preview and undo (GET /api/pi/sessions/:id/reset-preview, POST
 * /api/pi/sessions/:id/reset-undo; api/session-reset.routes.ts builds them, the client reads them).
 */
import type { SessionDetail } from "./session-detail.ts";

/** What a reset to `entryId` removes: every entry after it in file order, other branches included. */
export interface ResetPreview {
  entryId: string;
  /** Entries after the chosen one in file order (the cut removes them all). */
  removedEntryCount: number;
  /** Of those, the `message` entries (user, assistant, tool results, …). */
  removedMessageCount: number;
  /** Of those, the entries that are not on the active branch (other branches the cut takes with it). */
  removedOtherBranchEntryCount: number;
  /** Entries up to and including the chosen one. */
  keptEntryCount: number;
}

/** POST /api/pi/sessions/:id/reset-undo: the restored detail and the trash copy of the file it replaced. */
export interface ResetUndoResponse {
  ok: true;
  detail: SessionDetail;
  trashed: { path: string | null };
}
