/**
 * The connection registry of the native backend (domain/contract/http-native-app.ts; spec "Connection registry"),
 * always asked of the page's own origin (`nativeHttp`), and the check of another backend before the window moves
 * to it (GET <url>/api/pi/info: name "Leyline" and the API version this client speaks).
 */
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type { listConnections } from "../../../domain/contract/http-native-app.ts";
import { checkBackendInfo, type BackendInfo } from "../backend-info.ts";
import { nativeHttp } from "./http.ts";

export type BackendRegistry = RouteResponse<typeof listConnections>;
export type BackendConnection = BackendRegistry["connections"][number];

const BASE = "/api/leyline/connections";

export const fetchRegistry = (signal?: AbortSignal): Promise<BackendRegistry> =>
  nativeHttp.get<BackendRegistry>(BASE, signal !== undefined ? { signal } : {});
export const addConnection = (name: string, url: string): Promise<BackendRegistry> => nativeHttp.post<BackendRegistry>(BASE, { name, url });
export const updateConnection = (id: string, changes: { name?: string; url?: string }): Promise<BackendRegistry> =>
  nativeHttp.patch<BackendRegistry>(`${BASE}/${encodeURIComponent(id)}`, changes);
export const removeConnection = (id: string): Promise<BackendRegistry> =>
  nativeHttp.delete<BackendRegistry>(`${BASE}/${encodeURIComponent(id)}`);
export const setDefaultConnection = (id: string): Promise<BackendRegistry> => nativeHttp.put<BackendRegistry>(`${BASE}/default`, { id });

export type BackendProbe = { ok: true; info: BackendInfo } | { ok: false; reason: string };

/** How long a backend has to answer GET /api/pi/info before it counts as unreachable. */
export const PROBE_TIMEOUT_MS = 5000;

/** Asks a backend who it is; `ok` only for a Leyline backend this client can talk to. */
export async function probeBackend(baseUrl: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<BackendProbe> {
  const url = `${baseUrl.replace(/\/+$/, "")}/api/pi/info`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url, { headers: { accept: "application/json" }, signal: controller.signal });
    if (!response.ok) return { ok: false, reason: `${url} answered ${response.status}.` };
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      return { ok: false, reason: `${url} did not answer JSON: this is not a Leyline backend.` };
    }
    const check = checkBackendInfo(body);
    return check.ok ? { ok: true, info: check.info } : { ok: false, reason: check.reason };
  } catch (error) {
    if (controller.signal.aborted) return { ok: false, reason: `${url} did not answer within ${Math.round(timeoutMs / 1000)} s.` };
    const detail = error instanceof Error && error.message ? ` (${error.message})` : "";
    return { ok: false, reason: `${url} cannot be reached${detail}. Is that Leyline running, and does it allow this page's origin?` };
  } finally {
    clearTimeout(timer);
  }
}
