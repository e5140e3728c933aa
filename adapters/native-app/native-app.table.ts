/**
 * Row types of the native backend's tables (created by migrations/0004-native-app.ts): the single source of
 * these tables' types.
 *
 * - `backend_connections`: saved remote backends (spec BackendConnection); `id` is never "builtin" (a CHECK).
 *   Times are milliseconds since the epoch.
 * - `app_settings`: key → value text. Keys: `ui.thinking_default` ("collapsed" | "expanded"; no row = unset),
 *   `server.network_access` ("true" | "false"), `server.network_access_port` ("0".."65535"), and
 *   `connections.default` (the default connection id; no row = builtin).
 * - `pinned_sessions`: (connection id, session id) with the pin's time and a sequence number for order.
 */
import type { Selectable } from "kysely";

export interface BackendConnectionTable {
  id: string;
  name: string;
  url: string;
  created_at: number;
  updated_at: number;
}

export interface AppSettingTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface PinnedSessionTable {
  connection_id: string;
  session_id: string;
  pinned_at: number;
  seq: number;
}

export type BackendConnectionRow = Selectable<BackendConnectionTable>;
