/**
 * Typed functions for network access of the native backend (spec "Network access"): GET the state, PUT a change.
 * Always through `nativeHttp`: sharing belongs to this computer's Leyline, not to the remote backend the window
 * may have selected. Every successful answer is the whole state; a refused or failed change is an ApiError
 * (400 with the server's reason).
 *
 * The switch sends only `{ enabled }` and the port's Apply only `{ port }` (the server keeps the other field as
 * it is at that moment, so a port change does not undo another client's switch).
 */
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type { getNetworkAccess as getNetworkAccessRoute } from "../../../domain/contract/http-network-access.ts";
import { nativeHttp } from "./http.ts";

/**
 * The state of sharing (spec "NetworkAccess"): `available` (the origin listens, so it can be shared), `enabled`
 * (the sharing listener runs now), `port` (active port or null), `configuredPort` (saved; 0 = automatic), `urls`
 * (may be empty while enabled), `directAccess` (the origin itself listens outside loopback), `error` (last failure).
 */
export type NetworkAccess = RouteResponse<typeof getNetworkAccessRoute>;

/** One change: the switch sends `{ enabled }`, the port's Apply `{ port }`. */
export type NetworkAccessChange = { enabled: boolean; port?: never } | { port: number; enabled?: never };

const PATH = "/api/leyline/network-access";

export function getNetworkAccess(signal?: AbortSignal): Promise<NetworkAccess> {
  return nativeHttp.get<NetworkAccess>(PATH, signal ? { signal } : undefined);
}

export function putNetworkAccess(change: NetworkAccessChange): Promise<NetworkAccess> {
  return nativeHttp.put<NetworkAccess>(PATH, change);
}
