/**
 * Response shapes of the HTTP routes the client calls, as types taken from the server's contract
 * (domain/contract/: the same schemas the routes are registered and checked with). Type-only imports: the
 * schemas themselves stay out of the bundle.
 */
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type { createSession, deleteSession, listSessions, renameSession, selectSession } from "../../../domain/contract/http-sessions.ts";

export type { Active, ActiveSnapshot, ExtensionUiState } from "../../../domain/runtime/runtime-types.ts";
export type { SessionSummary } from "../../../domain/session-summary.ts";

export type SessionKind = "session" | "research";

/** GET /api/pi/sessions/:id (and the `detail` of several write routes). */
export type { SessionDetail, SessionDetailSession } from "../../../domain/session-detail.ts";

/** GET /api/pi/sessions */
export type SessionsResponse = RouteResponse<typeof listSessions>;

/** POST /api/pi/sessions */
export type CreateSessionResponse = RouteResponse<typeof createSession>;

/** PATCH /api/pi/sessions/:id */
export type RenameSessionResponse = RouteResponse<typeof renameSession>;

/** DELETE /api/pi/sessions/:id */
export type DeleteSessionResponse = RouteResponse<typeof deleteSession>;

/** POST /api/pi/active-session, GET /api/pi/state, and most runtime actions. */
export type ActiveResponse = RouteResponse<typeof selectSession>;

/** GET /api/pi/fs */
export type { DirectoryEntry, DirectoryListing } from "../../../domain/directory-listing.ts";

/** What the session index knows about pi's sessions folder (on the events socket with the session list). */
export type { SessionIndexStatus } from "../../../domain/live/session-list.ts";
