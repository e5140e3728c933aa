/**
 * Response shapes of the HTTP routes the client calls (spec/api-reference.md), as types. The backend's
 * own DTO types come from domain/ with `import type`; SessionDetail is declared in api/session-detail.ts,
 * which web/ may not import, so its shape is repeated here (keep in step with that file).
 */
import type { Active } from "../../../domain/runtime/runtime-types.ts";
import type { ResearchState } from "../../../domain/research/research-types.ts";
import type { SessionSummary } from "../../../domain/session-summary.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";

export type { Active, ActiveSnapshot, ExtensionUiState } from "../../../domain/runtime/runtime-types.ts";
export type { SessionSummary } from "../../../domain/session-summary.ts";

export type SessionKind = "session" | "research";

export type SessionDetailSession = Omit<SessionSummary, "research" | "modified"> & {
  sessionFile: string;
  messageCount: number;
  contextTokens: number | null;
  modified: string;
  created: string;
  contextUsage?: object;
  research: ResearchState | null;
};

/** GET /api/pi/sessions/:id (and the `detail` of several write routes). */
export interface SessionDetail {
  session: SessionDetailSession;
  entries: TranscriptEntry[];
}

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

export interface DirectoryEntry {
  name: string;
  fullPath: string;
  path: string;
  hidden: boolean;
}

/** GET /api/pi/fs */
export interface DirectoryListing {
  parentPath: string;
  path: string;
  parent: string;
  home: string;
  entries: DirectoryEntry[];
  directories: DirectoryEntry[];
  root: string;
}

/** The session index counts of GET /internal/diagnostics (the only route that reports files on disk). */
export interface SessionIndexStatus {
  ready: boolean;
  filesOnDisk: number;
  indexed: number;
  invalid: number;
}

/** GET /internal/diagnostics (the parts the client reads). */
export interface DiagnosticsResponse {
  sessionIndex: (SessionIndexStatus & { watchedFolders?: number }) | null;
}
