/**
 * The one origin policy for HTTP routes and WebSocket upgrades (spec: "HTTP routes and all WebSocket upgrades
 * use the same origin policy"):
 * - a request without an Origin header is allowed (curl, the server's own tools, same-origin GETs);
 * - a same-origin request (Origin's host equals the Host header) is allowed;
 * - loopback browser origins are allowed: http(s)://127.0.0.1[:port], http(s)://localhost[:port],
 *   http(s)://[::1][:port];
 * - origins listed in LEYLINE_SERVER_ALLOWED_ORIGINS (comma-separated, compared after normalisation to
 *   scheme://host[:port]) are allowed;
 * - anything else (including `Origin: null` and unparsable values) answers 403 `{ "error": ... }`.
 *
 * Allowed cross-origin requests get CORS headers (Access-Control-Allow-Origin echoing the origin, Vary: Origin).
 * Upgrade requests pass through Fastify's onRequest hooks (@fastify/websocket routes them through the
 * router), so the same hook rejects a WebSocket handshake with an HTTP 403 before any upgrade.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ErrorBody } from "./http-error.ts";

export const ALLOWED_ORIGINS_ENV = "LEYLINE_SERVER_ALLOWED_ORIGINS";

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

export interface OriginPolicy {
  /** The extra allowed origins (normalised). */
  readonly extraOrigins: readonly string[];
  /** Whether a request with this Origin header value (undefined: none) and Host header may proceed. */
  allows(origin: string | undefined, host: string | undefined): boolean;
}

export function createOriginPolicy(extraOrigins: readonly string[] = []): OriginPolicy {
  const extra = new Set<string>();
  for (const origin of extraOrigins) {
    const normalized = normalizeOrigin(origin);
    if (normalized !== null) extra.add(normalized);
  }
  return {
    extraOrigins: [...extra],
    allows(origin, host) {
      if (origin === undefined) return true;
      const normalized = normalizeOrigin(origin);
      if (normalized === null) return false;
      const url = new URL(normalized);
      if (LOOPBACK_HOSTNAMES.has(url.hostname)) return true;
      if (host !== undefined && url.host === host.toLowerCase()) return true;
      return extra.has(normalized);
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
    const host = headerValue(request.headers.host);
    if (!policy.allows(origin, host)) {
      const body: ErrorBody = { error: "Origin not allowed" };
      // A refused WebSocket handshake must not leave the raw socket open for another request.
      if (request.headers.upgrade !== undefined) reply.header("connection", "close");
      return reply.code(403).send(body);
    }
    if (origin !== undefined) {
      reply.header("access-control-allow-origin", origin).header("vary", "Origin");
    }
    return undefined;
  });
}
