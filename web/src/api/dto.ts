/**
 * Response shapes of the HTTP routes the client calls (spec/api-reference.md), as types. The backend's
 * own DTO types come from domain/ with `import type`; the envelopes around them are declared here.
 */
import type { Active } from "../../../domain/runtime/runtime-types.ts";
import type { SessionDetail, SessionDetailSession } from "../../../domain/session-detail.ts";
import type { SessionSummary } from "../../../domain/session-summary.ts";

export type { Active, ActiveSnapshot, ExtensionUiState } from "../../../domain/runtime/runtime-types.ts";
export type { SessionSummary } from "../../../domain/session-summary.ts";

export type SessionKind = "session" | "research";

/** GET /api/pi/sessions/:id (and the `detail` of several write routes). */
export type { SessionDetail, SessionDetailSession } from "../../../domain/session-detail.ts";

/** GET /api/pi/sessions */
export interface SessionsResponse {
  sessions: SessionSummary[];
}

/** POST /api/pi/sessions */
export interface CreateSessionResponse {
  active: Active;
  detail: SessionDetail;
}

/** PATCH /api/pi/sessions/:id */
export interface RenameSessionResponse {
  ok: true;
  detail: SessionDetail;
  session: SessionDetailSession;
}

/** DELETE /api/pi/sessions/:id */
export interface DeleteSessionResponse {
  ok: true;
  trashed: { path: string | null };
}

/** POST /api/pi/active-session, GET /api/pi/state, and most runtime actions. */
export interface ActiveResponse {
  active: Active;
}

/** GET /api/pi/fs */
export type { DirectoryEntry, DirectoryListing } from "../../../domain/directory-listing.ts";

/** What the session index knows about pi's sessions folder (on the events socket with the session list). */
export type { SessionIndexStatus } from "../../../domain/live/session-list.ts";
