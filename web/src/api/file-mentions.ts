/**
 * The typed function for `@file` completion (GET /api/pi/sessions/:id/file-mentions, contract `fileMentions` in
 * domain/contract/http-files.ts): the project files of a session's folder matching what was typed after `@`, best
 * match first, as paths relative to that folder. The type comes from the server's contract (a type-only import).
 * Errors are ApiError(status, message) from http.ts; an aborted request rejects with the abort error (isAbort).
 */
import type { fileMentions } from "../../../domain/contract/http-files.ts";
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import { http } from "./http.ts";

export type FileMentionsAnswer = RouteResponse<typeof fileMentions>;

/** The server's bounds: at most this many characters of query and this many files per answer. */
export const FILE_MENTION_QUERY_MAX = 200;
export const FILE_MENTION_LIMIT_MAX = 200;

export function findFileMentions(
  sessionId: string,
  query: string,
  options: { limit?: number; signal?: AbortSignal } = {},
): Promise<FileMentionsAnswer> {
  return http.get<FileMentionsAnswer>(`/api/pi/sessions/${encodeURIComponent(sessionId)}/file-mentions`, {
    query: { q: query, limit: options.limit },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}
