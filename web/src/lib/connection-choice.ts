/**
 * Which backend a window talks to (spec "Connection registry"), pure: the tab's own choice (sessionStorage, kept
 * across reloads of this tab only) when it still names a saved connection or the native backend, else the
 * registry's default. A choice whose connection another window removed falls back the same way.
 */
export const BUILTIN_CONNECTION_ID = "builtin";

/** sessionStorage key of the tab's chosen connection id. */
export const TAB_CONNECTION_KEY = "leyline.connection";

export interface ConnectionLike {
  readonly id: string;
  readonly name: string;
  readonly url: string;
}

export interface RegistryLike {
  readonly connections: readonly ConnectionLike[];
  readonly defaultConnectionId: string;
}

/** What the window talks to: the native backend (`url` "", the page's own origin) or a saved connection. */
export interface ActiveConnection {
  readonly id: string;
  readonly name: string;
  /** The API base ("" = the page's own origin). */
  readonly url: string;
}

export const NATIVE_CONNECTION: ActiveConnection = { id: BUILTIN_CONNECTION_ID, name: "This computer", url: "" };

function find(registry: RegistryLike, id: string | null): ActiveConnection | null {
  if (id === null) return null;
  if (id === BUILTIN_CONNECTION_ID) return NATIVE_CONNECTION;
  const saved = registry.connections.find((c) => c.id === id);
  return saved === undefined ? null : { id: saved.id, name: saved.name, url: saved.url };
}

/** The connection a window starts on: its tab's choice, else the default, else the native backend. */
export function chooseConnection(registry: RegistryLike | null, tabChoice: string | null): ActiveConnection {
  if (registry === null) return NATIVE_CONNECTION;
  return find(registry, tabChoice) ?? find(registry, registry.defaultConnectionId) ?? NATIVE_CONNECTION;
}
