/**
 * The full-text search route (domain/contract/http-search.ts): GET /api/pi/search. Types come from the server's
 * contract (type-only imports); errors are `ApiError(status, message)` from http.ts, an abort is the fetch's
 * AbortError (see `isAbort`).
 */
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type { searchSessions } from "../../../domain/contract/http-search.ts";
import { http } from "./http.ts";

export type SearchAnswer = RouteResponse<typeof searchSessions>;
export type SearchResult = SearchAnswer["results"][number];
export type SearchIndexStatus = SearchAnswer["status"];
export type SearchRole = SearchResult["role"];

export interface SearchOptions {
  /** Results at most (1 to 100; the server's default is 30). */
  readonly limit?: number;
  /** Only sessions of this folder. */
  readonly cwd?: string;
  readonly signal?: AbortSignal;
}

/** Every message of every session whose text has the words of `q` (ranked, at most three hits per session). */
export function searchMessages(q: string, options: SearchOptions = {}): Promise<SearchAnswer> {
  return http.get<SearchAnswer>("/api/pi/search", {
    query: { q, limit: options.limit, cwd: options.cwd },
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
}
