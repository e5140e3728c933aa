/**
 * Typed functions for the pinned-session routes (spec "Pinned sessions"): read, pin, unpin and prune the pinned
 * session ids of one backend connection. Pins live on the native backend even while this window talks to a remote
 * one, so every call goes through `nativeHttp` (the page's own origin) with the connection id as the scope.
 *
 * Every answer is `{ connectionId, pinnedIds }` (the list after the change, in pin order). A prune request holds at
 * most 500 ids (`PRUNE_IDS_MAX`); the pins store sends a larger confirmed deletion in batches.
 */
import type { listPinnedSessions } from "../../../domain/contract/http-native-app.ts";
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import { nativeHttp } from "./http.ts";

export { PINS_PER_CONNECTION, PRUNE_IDS_MAX } from "../../../domain/native-app/native-records.ts";

/** `{ connectionId, pinnedIds }`: every pinned-session route answers it (the contract checks it is one shape). */
export type PinnedSessions = RouteResponse<typeof listPinnedSessions>;

const BASE = "/api/leyline/pinned-sessions";

/** GET /api/leyline/pinned-sessions?connectionId= */
export function fetchPinnedSessions(connectionId: string): Promise<PinnedSessions> {
  return nativeHttp.get<PinnedSessions>(BASE, { query: { connectionId } });
}

/** POST /api/leyline/pinned-sessions { connectionId, sessionId } (201; 400 beyond 200 pins). */
export function pinSession(connectionId: string, sessionId: string): Promise<PinnedSessions> {
  return nativeHttp.post<PinnedSessions>(BASE, { connectionId, sessionId });
}

/** DELETE /api/leyline/pinned-sessions?connectionId=&sessionId= */
export function unpinSession(connectionId: string, sessionId: string): Promise<PinnedSessions> {
  return nativeHttp.delete<PinnedSessions>(BASE, { query: { connectionId, sessionId } });
}

/** POST /api/leyline/pinned-sessions/prune { connectionId, sessionIds } (at most 500 ids). */
export function prunePinnedSessions(connectionId: string, sessionIds: readonly string[]): Promise<PinnedSessions> {
  return nativeHttp.post<PinnedSessions>(`${BASE}/prune`, { connectionId, sessionIds });
}
