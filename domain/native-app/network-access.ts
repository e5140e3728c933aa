/**
 * Network access of the native backend (spec "Network access"), the pure parts: the NetworkAccess answer, the
 * saved preference (`server.network_access`, `server.network_access_port` in app_settings) and how it is read
 * back, the plan of one update, the sharing URLs, and the Host names the origin accepts while sharing is on.
 *
 * Rules kept here:
 * - An update resolves omitted fields against the state at the moment it runs: `enabled` defaults to whether the
 *   relay listens now, `port` to the saved port. A port-only update while sharing is off saves only the port
 *   (the saved switch stays as it is, even when a restore at start-up failed).
 * - Enabling with the relay already listening keeps that listener when the port does not change, when the
 *   requested port is the listener's own (the active automatic port chosen as a fixed one) or when automatic
 *   selection (0) is requested (the listener's port is an automatic choice as good as any); any other port binds
 *   a replacement first.
 * - Stored values that are not what this module writes read as the defaults (off, automatic port).
 */

export const NETWORK_ACCESS_KEY = "server.network_access";
export const NETWORK_ACCESS_PORT_KEY = "server.network_access_port";
export const NETWORK_ACCESS_KEYS = [NETWORK_ACCESS_KEY, NETWORK_ACCESS_PORT_KEY] as const;

/** JSON bodies of PUT /api/leyline/network-access (spec: "cannot exceed 1 KiB"). */
export const NETWORK_ACCESS_BODY_LIMIT_BYTES = 1024;
export const MAX_PORT = 65535;

export const UPDATE_REQUIRED = "At least one of enabled or port is required";

/** The answer of GET and PUT /api/leyline/network-access. */
export interface NetworkAccess {
  /** The origin listens (its address is known), so a relay can forward to it. */
  available: boolean;
  /** The sharing listener runs now (not the saved startup preference). */
  enabled: boolean;
  /** The active sharing port, or null when sharing is off. */
  port: number | null;
  /** The saved port; 0 selects a free port automatically. */
  configuredPort: number;
  /** `http://<address>:<port>` for every non-internal IPv4 interface while sharing is on. */
  urls: string[];
  /** The origin itself listens outside loopback. */
  directAccess: boolean;
  /** The last listener or setting-change failure, or "". */
  error: string;
}

export interface NetworkAccessUpdate {
  enabled?: boolean;
  port?: number;
}

/** The saved startup preference. */
export interface SavedNetworkAccess {
  enabled: boolean;
  port: number;
}

export const DEFAULT_SAVED_NETWORK_ACCESS: SavedNetworkAccess = { enabled: false, port: 0 };

/** An address of a network interface (os.networkInterfaces(), flattened). */
export interface InterfaceAddress {
  address: string;
  family: "IPv4" | "IPv6";
  internal: boolean;
}

/** Where the origin listens. */
export interface OriginAddress {
  address: string;
  port: number;
}

export function isValidPort(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_PORT;
}

/** Whether an update names at least one field. */
export function hasUpdateField(update: NetworkAccessUpdate): boolean {
  return update.enabled !== undefined || update.port !== undefined;
}

/** The saved preference from the stored app settings (missing or unreadable values are the defaults). */
export function parseSavedNetworkAccess(values: Readonly<Record<string, string>>): SavedNetworkAccess {
  const enabledText = values[NETWORK_ACCESS_KEY];
  const portText = values[NETWORK_ACCESS_PORT_KEY];
  const port = portText !== undefined && /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  return {
    enabled: enabledText === "true",
    port: isValidPort(port) ? port : DEFAULT_SAVED_NETWORK_ACCESS.port,
  };
}

/** The app settings rows for a preference (only the fields given). */
export function savedNetworkAccessValues(saved: Partial<SavedNetworkAccess>): Record<string, string> {
  const values: Record<string, string> = {};
  if (saved.enabled !== undefined) values[NETWORK_ACCESS_KEY] = saved.enabled ? "true" : "false";
  if (saved.port !== undefined) values[NETWORK_ACCESS_PORT_KEY] = String(saved.port);
  return values;
}

/** What one update does, decided from the state it runs on. */
export type NetworkAccessPlan =
  /** Sharing stays off: save the port only. */
  | { type: "save-port"; port: number }
  /** Save the switch off (and the port); then close the relay if one listens. */
  | { type: "disable"; port: number }
  /** Enabling needs the origin's address, which is not known (the server does not listen). */
  | { type: "unavailable" }
  /** Keep the listening relay; save the preference when it differs from the saved one. */
  | { type: "keep"; port: number; save: boolean }
  /** Bind a relay at `port` (0: automatic), save, then close the previous relay if there is one. */
  | { type: "bind"; port: number };

export interface NetworkAccessState {
  readonly saved: SavedNetworkAccess;
  /** The listening relay's port, or null. */
  readonly relayPort: number | null;
  /** The origin's address is known. */
  readonly available: boolean;
}

export function planNetworkAccessUpdate(state: NetworkAccessState, update: NetworkAccessUpdate): NetworkAccessPlan {
  const listening = state.relayPort !== null;
  const enabled = update.enabled ?? listening;
  const port = update.port ?? state.saved.port;
  if (!enabled) return update.enabled === undefined ? { type: "save-port", port } : { type: "disable", port };
  if (!state.available) return { type: "unavailable" };
  // Fixed → automatic (port 0 while a fixed port listens) is a port change: it binds a new relay.
  if (state.relayPort !== null && (port === state.saved.port || port === state.relayPort)) {
    return { type: "keep", port, save: !state.saved.enabled || state.saved.port !== port };
  }
  return { type: "bind", port };
}

/** Whether an IP address is a loopback address (127.0.0.0/8, ::1, IPv4-mapped 127/8). */
export function isLoopbackAddress(address: string): boolean {
  const text = address.toLowerCase();
  const v4 = text.startsWith("::ffff:") ? text.slice("::ffff:".length) : text;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4)) return true;
  return text === "::1" || text === "0:0:0:0:0:0:0:1";
}

function isWildcard(address: string): boolean {
  return address === "0.0.0.0" || address === "::" || address === "0:0:0:0:0:0:0:0";
}

/** Whether an origin bound at `address` is reachable from other machines (wildcard or non-loopback). */
export function isDirectAccess(address: string): boolean {
  return !isLoopbackAddress(address);
}

/** The address the relay connects to for an origin bound at `address` (a wildcard bind → loopback). */
export function relayTargetHost(address: string): string {
  if (address === "0.0.0.0") return "127.0.0.1";
  if (isWildcard(address)) return "::1";
  return address;
}

function nonInternal(addresses: readonly InterfaceAddress[], family: InterfaceAddress["family"]): string[] {
  const out: string[] = [];
  for (const entry of addresses) {
    if (entry.internal || entry.family !== family || out.includes(entry.address)) continue;
    out.push(entry.address);
  }
  return out;
}

/** `http://<address>:<port>` for every non-internal IPv4 interface address. */
export function sharingUrls(addresses: readonly InterfaceAddress[], port: number): string[] {
  return nonInternal(addresses, "IPv4").map((address) => `http://${address}:${port}`);
}

export interface AllowedHostsInput {
  readonly addresses: readonly InterfaceAddress[];
  /** The machine's host name (os.hostname()). */
  readonly hostname: string;
  /** The listening relay's port, or null when sharing is off. */
  readonly relayPort: number | null;
  /** Where the origin listens, or null when it does not. */
  readonly origin: OriginAddress | null;
}

/**
 * The Host values (`host:port`) the origin accepts besides its built-in ones: while sharing is on, the interface
 * IPv4 addresses, the host name and `<hostname>.local` with the relay's port; when the origin itself listens
 * outside loopback, the interface addresses (IPv4, bracketed IPv6) with the origin's port.
 */
export function networkAccessHosts(input: AllowedHostsInput): string[] {
  const hosts: string[] = [];
  if (input.relayPort !== null) {
    for (const address of nonInternal(input.addresses, "IPv4")) hosts.push(`${address}:${input.relayPort}`);
    const name = input.hostname.trim().toLowerCase();
    if (name !== "") {
      hosts.push(`${name}:${input.relayPort}`);
      if (!name.endsWith(".local")) hosts.push(`${name}.local:${input.relayPort}`);
    }
  }
  if (input.origin !== null && isDirectAccess(input.origin.address)) {
    for (const address of nonInternal(input.addresses, "IPv4")) hosts.push(`${address}:${input.origin.port}`);
    for (const address of nonInternal(input.addresses, "IPv6")) hosts.push(`[${address}]:${input.origin.port}`);
    if (!isWildcard(input.origin.address)) {
      const own = input.origin.address.includes(":") ? `[${input.origin.address}]` : input.origin.address;
      hosts.push(`${own}:${input.origin.port}`);
    }
  }
  return [...new Set(hosts)];
}

/** The message of a failed relay bind (`code` is the Node error code, e.g. EADDRINUSE). */
export function listenFailureMessage(code: string | undefined, host: string, port: number, detail: string): string {
  switch (code) {
    case "EADDRINUSE":
      return `Port ${port} is already in use`;
    case "EACCES":
    case "EPERM":
      return `Permission denied to listen on port ${port}`;
    case "EADDRNOTAVAIL":
      return `Address ${host} is not available on this machine`;
    default:
      return `Could not listen on port ${port}: ${detail}`;
  }
}

export const UNAVAILABLE_MESSAGE = "Network access is unavailable: the server is not listening on a network address";
