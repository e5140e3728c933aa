/**
 * Response compression (@fastify/compress): a JSON API response of at least 1 KiB goes out with br or gzip when
 * the request's Accept-Encoding allows it (br first, as every browser offers both); without Accept-Encoding, or
 * below the threshold, the body is sent as before. The 2,000-session list (1.1 MB of JSON) is ~190 KB in br.
 *
 * What is left alone, on purpose:
 * - Non-JSON responses and routes outside /api: the built client is served by @fastify/static with its own
 *   validators (ETag, Last-Modified) and cache-control; compressing its bundles on every request would cost
 *   more CPU than it saves on loopback, the default. (If it is wanted one day, precompressed files built once,
 *   `@fastify/static`'s `preCompressed`, are the way.) The SPA fallback and the 404 envelope are not routes.
 * - WebSocket routes (upgrades and their 101, the 426 answer to a plain GET).
 * - HEAD requests: they answer the same headers as before (no Content-Encoding, the identity length), as
 *   Fastify's HEAD handler drops the body before the compression hook sees it.
 * - Requests: compressed request bodies are not decoded (the plugin's request decompression is off), so a body
 *   with a Content-Encoding is treated as it was before.
 * Errors keep the `{ "error": ... }` envelope (an encoded one decodes to it); 304 and other bodiless answers
 * are never encoded; the origin policy runs before any of this.
 *
 * Only br and gzip: the plugin would prefer zstd on Node ≥ 22.15 whenever a browser offers it; leaving it out
 * keeps the encodings (and sizes) the same on every Node version. Brotli quality: the plugin's 4 for every
 * response (on session JSON it was faster than gzip at its default level here, and 1.5-4 times faster than
 * quality 6: a large session detail is compressed as it streams, off the event loop, but on loopback every
 * millisecond of it is added latency), 6 for the session list, the one response with a size promise: 1.1 MB of
 * JSON for 2,000 sessions is ~191 KB at 6 and ~206 KB at 4 (gzip: ~245 KB), for ~10-20 ms more per request.
 */
import zlib from "node:zlib";
import fastifyCompress from "@fastify/compress";
import type { FastifyInstance, RouteOptions } from "fastify";

/** Smallest body that is compressed (bytes). */
export const COMPRESSION_THRESHOLD = 1024;

/** Brotli quality of every compressed response but the session list. */
export const BROTLI_QUALITY = 4;
/** Brotli quality of GET /api/pi/sessions. */
export const SESSION_LIST_BROTLI_QUALITY = 6;

/** JSON media types (application/json and the +json suffix), with or without parameters. */
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The settings of every compressed route (a route's own settings replace all of the plugin's, so they repeat them). */
function settings(brotliQuality: number): RouteCompressOptions {
  return {
    encodings: ["br", "gzip"],
    threshold: COMPRESSION_THRESHOLD,
    customTypes: JSON_TYPE,
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: brotliQuality } },
  };
}

type RouteCompressOptions = Exclude<RouteOptions["compress"], false | undefined>;

function isApiUrl(url: string): boolean {
  return url === "/api" || url.startsWith("/api/");
}

/** The compression of a route: off outside /api and for WebSocket routes; the list's own quality. */
function routeCompression(route: RouteOptions): RouteOptions["compress"] {
  if ((route as RouteOptions & { websocket?: boolean }).websocket === true || !isApiUrl(route.url)) return false;
  if (route.url === "/api/pi/sessions" && route.method === "GET") return settings(SESSION_LIST_BROTLI_QUALITY);
  return undefined;
}

/**
 * Registers response compression for the routes added after it (register it before the route plugins). The
 * route policy is an `onRoute` hook added first, so it sets each route's `compress` before the plugin's own
 * hook reads it.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  app.addHook("onRoute", (route) => {
    if (route.compress !== undefined) return;
    const compress = routeCompression(route);
    if (compress !== undefined) route.compress = compress;
  });
  await app.register(fastifyCompress, { global: true, globalDecompression: false, ...settings(BROTLI_QUALITY) });
}
