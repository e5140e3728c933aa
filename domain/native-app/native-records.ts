/**
 * The native backend's records (spec "Connection registry", "App settings", "Pinned sessions"): their shapes and
 * the rules a request must keep, as pure functions. Each check answers the normalised value or the words of the
 * refusal (`{ error }`), never throws; the routes turn a refusal into a 400.
 */

/** The reserved id of the native backend: never a saved connection. */
export const BUILTIN_CONNECTION_ID = "builtin";
export const CONNECTION_NAME_MAX = 80;
export const PINNED_ID_MAX = 128;
export const PINS_PER_CONNECTION = 200;
export const PRUNE_IDS_MAX = 500;
/** JSON bodies of the pinned-session routes (spec: "cannot exceed 64 KiB"). */
export const PINNED_BODY_LIMIT_BYTES = 64 * 1024;

export interface BackendConnection {
  id: string;
  name: string;
  url: string;
  createdAt: number;
  updatedAt: number;
}

export interface BackendRegistry {
  connections: BackendConnection[];
  defaultConnectionId: string;
}

export interface PinnedSessions {
  connectionId: string;
  pinnedIds: string[];
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const refused = <T>(error: string): Checked<T> => ({ ok: false, error });

/** A connection name: a string, trimmed, 1 to 80 characters. */
export function checkConnectionName(raw: unknown): Checked<string> {
  if (raw === undefined || raw === null) return refused("name is required");
  if (typeof raw !== "string") return refused("name must be a string");
  const name = raw.trim();
  if (name === "") return refused("name must not be empty");
  if ([...name].length > CONNECTION_NAME_MAX) return refused(`name must be at most ${CONNECTION_NAME_MAX} characters`);
  return ok(name);
}

/**
 * A backend URL: http or https, a host name or IP address, an optional port and base path; no credentials,
 * query or fragment. Normalised to `scheme://host[:port][/base/path]` (lower-case host, default port and trailing
 * slashes dropped), which the client puts in front of `/api/...`.
 */
export function checkConnectionUrl(raw: unknown): Checked<string> {
  if (raw === undefined || raw === null) return refused("url is required");
  if (typeof raw !== "string") return refused("url must be a string");
  const text = raw.trim();
  if (text === "") return refused("url must not be empty");
  if (/\s/.test(text)) return refused("url must not contain spaces");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refused("url is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return refused("url must start with http:// or https://");
  if (url.hostname === "") return refused("url must name a host");
  if (url.username !== "" || url.password !== "" || text.slice(0, text.indexOf(url.host) + 1).includes("@")) {
    return refused("url must not contain credentials");
  }
  if (text.includes("?")) return refused("url must not contain a query");
  if (text.includes("#")) return refused("url must not contain a fragment");
  const path = url.pathname.replace(/\/+$/, "");
  return ok(`${url.protocol}//${url.host}${path}`);
}

/** A pinned-session or connection id: a string, trimmed, 1 to 128 characters. */
export function checkPinnedId(raw: unknown, field: string): Checked<string> {
  if (raw === undefined || raw === null) return refused(`${field} is required`);
  if (typeof raw !== "string") return refused(`${field} must be a string`);
  const id = raw.trim();
  if (id === "") return refused(`${field} must not be empty`);
  if (id.length > PINNED_ID_MAX) return refused(`${field} must be at most ${PINNED_ID_MAX} characters`);
  return ok(id);
}

/** The session ids of a prune request: an array of at most 500 ids, each checked, duplicates dropped. */
export function checkPruneIds(raw: unknown): Checked<string[]> {
  if (raw === undefined || raw === null) return refused("sessionIds is required");
  if (!Array.isArray(raw)) return refused("sessionIds must be an array of strings");
  if (raw.length > PRUNE_IDS_MAX) return refused(`sessionIds can hold at most ${PRUNE_IDS_MAX} ids per request`);
  const ids: string[] = [];
  for (const item of raw) {
    const checked = checkPinnedId(item, "every session id");
    if (!checked.ok) return checked;
    if (!ids.includes(checked.value)) ids.push(checked.value);
  }
  return ok(ids);
}

/** App settings (spec "App settings"): the one key the settings routes accept, and its values. */
export const THINKING_DEFAULT_KEY = "ui.thinking_default";
export const THINKING_DEFAULTS = ["collapsed", "expanded"] as const;
export type ThinkingDefault = (typeof THINKING_DEFAULTS)[number];
export const APP_SETTING_KEYS: readonly string[] = [THINKING_DEFAULT_KEY];

export function isThinkingDefault(value: unknown): value is ThinkingDefault {
  return typeof value === "string" && (THINKING_DEFAULTS as readonly string[]).includes(value);
}

/** A stored value as the GET answers it: "" (unset) for a missing or unknown stored value. */
export function thinkingDefaultOf(stored: string | null): ThinkingDefault | "" {
  return isThinkingDefault(stored) ? stored : "";
}
