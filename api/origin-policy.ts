/**
 * The one request policy for HTTP routes and WebSocket upgrades (spec: "HTTP routes and all WebSocket upgrades
 * use the same origin policy"; architecture trust rules: Host allow-list, origin policy, fetch metadata).
 * Three checks, in this order, each answering 403 `{ "error": ... }`:
 *
 * 1. Host allow-list (against DNS rebinding: a page on `evil.example` whose name re-resolves to 127.0.0.1
 *    sends `Host: evil.example:PORT` and, being "same-origin" in the browser's eyes, an Origin to match).
 *    Always allowed (any port, or none): loopback addresses (`127.0.0.0/8` dotted quads, `[::1]`, IPv4-mapped
 *    loopback), loopback names (`localhost`), `*.localhost` (browsers resolve these to loopback themselves, so DNS
 *    cannot rebind them) and the host names of LEYLINE_SERVER_ALLOWED_ORIGINS. Any other Host, a non-loopback IP
 *    literal or the machine's own name included, is allowed only while `extraHosts()` lists it (by name, or
 *    `name:port` for that port only): the network-access service lists the relay's addresses and names with the
 *    relay's port while sharing is on, and only then, and the interface addresses with the origin's own port
 *    when the origin itself listens outside loopback (spec "Network access"; buildApp adds its `extraHosts`).
 *    A request without a Host header is allowed only on HTTP/1.0, which has none (browsers always send one;
 *    Node itself answers 400 to an HTTP/1.1 request without it). Refusal: "Host not allowed".
 * 2. Origin: none is allowed (curl, the server's own tools, same-origin GETs); a same-origin request (Origin's
 *    host equals the allowed Host header) is allowed; loopback browser origins http(s)://127.0.0.1[:port],
 *    localhost[:port], [::1][:port] are allowed; origins listed in LEYLINE_SERVER_ALLOWED_ORIGINS (compared
 *    after normalisation to scheme://host[:port]) are allowed; anything else (including `Origin: null` and
 *    unparsable values) is refused: "Origin not allowed".
 * 3. Fetch metadata on /api: `Sec-Fetch-Site: cross-site` or `same-site` is refused ("Cross-site request
 *    refused"), so that an `<img src>`, a link, a navigation or a prefetch from another site (which sends no
 *    Origin on GET) cannot start a runtime or run project extensions. `same-origin`, `none` (typed URL,
 *    bookmark) and no header (non-browser clients) pass. Deliberate exception: a request whose Origin is an
 *    allowed cross-origin frontend (a loopback origin or one of LEYLINE_SERVER_ALLOWED_ORIGINS, check 2) is a
 *    CORS request the spec invites, and browsers label it cross-site or same-site; it passes. Paths outside
 *    /api (the client's pages and assets) keep accepting cross-site navigations.
 *
 * Allowed cross-origin requests get CORS headers (Access-Control-Allow-Origin echoing the origin, Vary: Origin).
 * Upgrade requests pass through Fastify's onRequest hooks (@fastify/websocket routes them through the
 * router), so the same hook rejects a WebSocket handshake with an HTTP 403 before any upgrade.
 */
import net from "node:net";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendError } from "./http-error.ts";

export const ALLOWED_ORIGINS_ENV = "LEYLINE_SERVER_ALLOWED_ORIGINS";

export const HOST_NOT_ALLOWED = "Host not allowed";
export const ORIGIN_NOT_ALLOWED = "Origin not allowed";
export const CROSS_SITE_REFUSED = "Cross-site request refused";

const LOOPBACK_HOSTNAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** `scheme://host[:port]` of an origin (lower-case, default ports dropped), or null when it is not http(s). */
export function normalizeOrigin(origin: string): string | null {
  let url: URL;
  try {
    url = new URL(origin.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username !== "" || url.password !== "") return null;
  return url.origin;
}

/** The extra origins of LEYLINE_SERVER_ALLOWED_ORIGINS; entries that are not http(s) origins are dropped. */
export function allowedOriginsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env[ALLOWED_ORIGINS_ENV] ?? "";
  const origins: string[] = [];
  for (const part of raw.split(",")) {
    const normalized = part.trim() === "" ? null : normalizeOrigin(part);
    if (normalized !== null && !origins.includes(normalized)) origins.push(normalized);
  }
  return origins;
}

/**
 * A Host header value split into its lower-case host name (IPv6 kept in brackets) and port, or null when
 * it is not `name[:port]`, `a.b.c.d[:port]` or `[v6][:port]` (no user info, paths, spaces or empty labels).
 */
export function parseHostHeader(value: string): { hostname: string; port: string | null } | null {
  const text = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/.exec(text);
  if (match === null) return null;
  const hostname = match[1] ?? "";
  const port = match[2] ?? null;
  if (port !== null && Number(port) > 65535) return null;
  if (hostname.startsWith("[")) return net.isIPv6(hostname.slice(1, -1)) ? { hostname, port } : null;
  if (hostname.split(".").some((label) => label === "")) return null;
  return { hostname, port };
}

/** A dotted quad in 127.0.0.0/8. */
function isLoopbackIPv4(text: string): boolean {
  return net.isIPv4(text) && text.startsWith("127.");
}

/**
 * Whether a host name (as parseHostHeader returns it) is loopback: `localhost`, `*.localhost`, an address in
 * 127.0.0.0/8, `[::1]` (any spelling) or an IPv4-mapped loopback address (`[::ffff:127.0.0.1]`).
 */
/** Whether a host name (as parseHostHeader returns it) is an IPv4 address or a bracketed IPv6 address. */
function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || net.isIPv4(hostname);
}

export function isLoopbackHost(hostname: string): boolean {
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return true;
  if (hostname.startsWith("[")) {
    const literal = hostname.slice(1, -1);
    if (!net.isIPv6(literal)) return false;
    const address = new net.SocketAddress({ address: literal, family: "ipv6" }).address;
    if (address === "::1") return true;
    const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
    return mapped?.[1] !== undefined && isLoopbackIPv4(mapped[1]);
  }
  return isLoopbackIPv4(hostname);
}

/** What a request brings to the policy (header values as received; undefined when absent). */
export interface PolicyRequest {
  readonly url: string;
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly secFetchSite: string | undefined;
  /** `request.raw.httpVersion` ("1.0", "1.1", ...). */
  readonly httpVersion: string;
}

export interface PolicyOptions {
  /**
   * Whether any IP-literal Host (any port) is allowed now: while the origin itself listens outside loopback
   * (network access's directAccess), people reach it by address through NAT, Docker port maps or proxies. A DNS
   * rebinding page always sends its own name, never an address, so this opens nothing to rebinding.
   */
  readonly anyAddress?: () => boolean;
  /** Host names (or `host:port`) allowed besides the built-in ones, read on every request. */
  readonly extraHosts?: () => Iterable<string>;
}

export interface OriginPolicy {
  /** Whether a Host header value (undefined: none) is on the allow-list; see the module comment. */
  allowsHost(host: string | undefined, httpVersion?: string): boolean;
  /** Whether a request with this Origin header value (undefined: none) and Host header may proceed. */
  allows(origin: string | undefined, host: string | undefined): boolean;
  /** The refusal message for a request, or null when it may proceed (checks 1 to 3 in order). */
  refusal(request: PolicyRequest): string | null;
}

/** Whether an origin (normalised) names the same host and port as a Host header (default ports filled in). */
function sameOrigin(normalized: string, host: string): boolean {
  const url = new URL(normalized);
  const parsed = parseHostHeader(host);
  if (parsed === null || parsed.hostname !== url.hostname) return false;
  const defaultPort = url.protocol === "https:" ? "443" : "80";
  return (url.port === "" ? defaultPort : url.port) === (parsed.port ?? defaultPort);
}

function isApiUrl(url: string): boolean {
  const pathname = url.split("?", 1)[0] ?? "";
  return pathname === "/api" || pathname.startsWith("/api/");
}

export function createOriginPolicy(extraOrigins: readonly string[] = [], options: PolicyOptions = {}): OriginPolicy {
  const extra = new Set<string>();
  const originHostnames = new Set<string>();
  for (const origin of extraOrigins) {
    const normalized = normalizeOrigin(origin);
    if (normalized === null) continue;
    extra.add(normalized);
    originHostnames.add(new URL(normalized).hostname);
  }

  const allowsHost = (host: string | undefined, httpVersion = "1.1"): boolean => {
    if (host === undefined) return httpVersion === "1.0" || httpVersion === "0.9";
    const parsed = parseHostHeader(host);
    if (parsed === null) return false;
    if (isLoopbackHost(parsed.hostname) || originHostnames.has(parsed.hostname)) return true;
    if (isIpLiteral(parsed.hostname) && options.anyAddress?.() === true) return true;
    // A browser leaves the default port out of Host: `addr` is `addr:80` (the relay and the origin speak http).
    const port = parsed.port ?? "80";
    for (const entry of options.extraHosts?.() ?? []) {
      const allowed = parseHostHeader(entry);
      if (allowed === null) continue;
      if (allowed.hostname === parsed.hostname && (allowed.port === null || allowed.port === port)) return true;
    }
    return false;
  };

  /** A cross-origin browser frontend the spec allows: loopback origins and LEYLINE_SERVER_ALLOWED_ORIGINS. */
  const isAllowedFrontend = (normalized: string): boolean => LOOPBACK_HOSTNAMES.has(new URL(normalized).hostname) || extra.has(normalized);

  const allows = (origin: string | undefined, host: string | undefined): boolean => {
    if (origin === undefined) return true;
    const normalized = normalizeOrigin(origin);
    if (normalized === null) return false;
    if (isAllowedFrontend(normalized)) return true;
    // Same-origin counts only for an allowed Host: a rebinding page is "same-origin" with its own name.
    return host !== undefined && allowsHost(host) && sameOrigin(normalized, host);
  };

  return {
    allowsHost,
    allows,
    refusal(request) {
      if (!allowsHost(request.host, request.httpVersion)) return HOST_NOT_ALLOWED;
      if (!allows(request.origin, request.host)) return ORIGIN_NOT_ALLOWED;
      const site = request.secFetchSite?.trim().toLowerCase();
      if ((site === "cross-site" || site === "same-site") && isApiUrl(request.url)) {
        const normalized = request.origin === undefined ? null : normalizeOrigin(request.origin);
        if (normalized === null || !isAllowedFrontend(normalized)) return CROSS_SITE_REFUSED;
      }
      return null;
    },
  };
}

export const CORS_ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Registers the policy as the app's first onRequest hook (call before any route plugin). */
export function registerOriginPolicy(app: FastifyInstance, policy: OriginPolicy): void {
  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = headerValue(request.headers.origin);
    const refusal = policy.refusal({
      url: request.url,
      host: headerValue(request.headers.host),
      origin,
      secFetchSite: headerValue(request.headers["sec-fetch-site"]),
      httpVersion: request.raw.httpVersion,
    });
    if (refusal !== null) {
      // A refused WebSocket handshake must not leave the raw socket open for another request.
      if (request.headers.upgrade !== undefined) reply.header("connection", "close");
      return sendError(reply, "forbidden", refusal);
    }
    if (origin !== undefined) {
      reply.header("access-control-allow-origin", origin).header("vary", "Origin");
    }
    return undefined;
  });
}
