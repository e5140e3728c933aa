/**
 * The composition root: `buildApp()` returns a Fastify instance with every route plugin registered, the one
 * error handler, the 404 envelope, CORS preflight answers and (optionally) the built client. Tests call
 * `app.inject()` on it without a port; `main.ts` listens.
 *
 * Statuses come from one table, code → status (domain/contract/error-codes.ts; spec "Conventions and status
 * behavior"; the spec's odd statuses are commented rows there):
 * - a `ServiceError` (domain/service-error.ts: what services throw; its flavours HttpError, thrown by routes
 *   and the request schemas (contract.ts), and the runtime host's RuntimeHostError) answers its code;
 * - Fastify's own client errors get the code of their status; malformed or empty JSON is `malformed_json`
 *   (400: a deliberate departure, the spec says 500 on most runtime routes);
 * - anything else → `internal`, 500 `{ "error": "Internal server error" }`; the details go to the log only;
 * - a known route path with another method → 405 with an Allow header (see route-methods.ts); an unknown path
 *   → 404 `{ "error": "Not found" }`; a Host off the allow-list, a disallowed browser Origin or cross-site fetch
 *   metadata on /api → 403 (origin-policy.ts, HTTP and WebSocket upgrades alike); a plain GET on a WebSocket
 *   endpoint → 426.
 *
 * App-scoped services (`app.leyline`): the read side (leyline.sqlite + the session index, opened in the
 * background; /internal/ready says when), the runtime host (one worker process per open session; created
 * here from `runtimeHostOptions`, shut down by the app's onClose hook), the view of it the read routes and
 * the events socket use, a factory of throwaway runtime previews (GET /api/pi/state), the server run's epoch,
 * and network access (the sharing relay: an onListen hook tells it the origin's address, and it restores the saved
 * switch then; it closes first on shutdown; its addresses join the Host allow-list while sharing is on).
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import fastifyWebsocket from "@fastify/websocket";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { FauxScript } from "../adapters/runtime-protocol/faux-script.ts";
import { RuntimeHost, type RuntimeHostOptions } from "../adapters/runtime-host/runtime-host.ts";
import { resolveAgentDir } from "../adapters/session-files/agent-dir.ts";
import { resolveDataDir } from "../adapters/sqlite/data-dir.ts";
import { createVisionPreparer } from "../adapters/vision/vision-preparation.ts";
import { VISION_ATTACHMENTS_FOLDER } from "../domain/vision/vision-attachments.ts";
import { registerCompression } from "./compression.ts";
import { eventsRoutes } from "./events.routes.ts";
import { exportRoutes } from "./export.routes.ts";
import { fsRoutes } from "./fs.routes.ts";
import { healthRoutes } from "./health.routes.ts";
import { errorCodeOfStatus, type ErrorCode } from "../domain/contract/error-codes.ts";
import { registerContract } from "./contract.ts";
import { sendError } from "./http-error.ts";
import { ServiceError } from "../domain/service-error.ts";
import { infoRoutes } from "./info.routes.ts";
import { allowedOriginsFromEnv, CORS_ALLOWED_METHODS, createOriginPolicy, registerOriginPolicy } from "./origin-policy.ts";
import { openReadSide, type ReadSide } from "../adapters/read-side/read-side.ts";
import { trackRouteMethods } from "./route-methods.ts";
import { runtimeActionsRoutes } from "./runtime-actions.routes.ts";
import type { RuntimeHostView } from "./runtime-host.ts";
import { sessionTreeRoutes } from "./session-tree.routes.ts";
import { createRuntimePreviewer, type RuntimePreviewer } from "./runtime-preview.ts";
import { sessionResetRoutes } from "./session-reset.routes.ts";
import { sessionWriteRoutes } from "./session-write.routes.ts";
import { sessionsRoutes } from "./sessions.routes.ts";
import { subagentRoutes } from "./subagent.routes.ts";
import { subagentsRoutes } from "./subagents.routes.ts";
import { visionRoutes } from "./vision.routes.ts";
import { memoriesRoutes } from "./memories.routes.ts";
import { resolveMemoryDir } from "../adapters/memories/memory-database.ts";
import { piSettingsRoutes, settingsNoStore } from "./pi-settings.routes.ts";
import { filesRoutes } from "./files.routes.ts";
import { reviewRoutes } from "./review.routes.ts";
import { reviewActionsRoutes } from "./review-actions.routes.ts";
import { searchRoutes } from "./search.routes.ts";
import { networkAccessRoutes } from "./network-access.routes.ts";
import {
  createNetworkAccessService,
  type NetworkAccessOptions,
  type NetworkAccessService,
  RELAY_HOST_ENV,
} from "../adapters/network-access/network-access-service.ts";
import { appSettingsRoutes } from "./app-settings.routes.ts";
import { connectionsRoutes } from "./connections.routes.ts";
import { pinnedSessionsRoutes } from "./pinned-sessions.routes.ts";
import { rolloutFeedbackRoutes } from "./rollout-feedback.routes.ts";
import { tracesRoutes } from "./traces.routes.ts";
import { TRACE_MESSAGES } from "../domain/traces/trace-read.ts";
import { createTraceService, type TraceService } from "../adapters/traces/trace-service.ts";
import type { OtlpExport } from "../adapters/traces/otlp-export.ts";
import { terminalRoutes } from "./terminal.routes.ts";
import { prepareEditorTerminal } from "../adapters/file-links/editor-terminal.ts";
import { createPiSettingsService, type OpenRuntimesView, type PiSettingsService } from "../adapters/pi-settings/pi-settings-service.ts";
import { type HostClock, systemClock } from "../adapters/runtime-host/host-clock.ts";

export interface BuildAppOptions {
  /** Fastify's logger option. Default: off (tests). */
  logger?: FastifyServerOptions["logger"];
  /** The built client folder (web/dist) to serve with SPA fallback; omitted or null: API only. */
  webDistDir?: string | null;
  /** The version /api/pi/info reports. Default: package.json's version. */
  version?: string;
  /** Environment read for defaults (LEYLINE_DATA_DIR, PI_CODING_AGENT_DIR, LEYLINE_SERVER_ALLOWED_ORIGINS). */
  env?: NodeJS.ProcessEnv;
  /** Leyline's data dir (leyline.sqlite). Default: LEYLINE_DATA_DIR, else ~/.local/share/leyline. */
  dataDir?: string;
  /** pi's agent dir. Default: PI_CODING_AGENT_DIR, else ~/.pi/agent. */
  agentDir?: string;
  /** Extra allowed browser origins. Default: LEYLINE_SERVER_ALLOWED_ORIGINS. */
  allowedOrigins?: readonly string[];
  /** Extra allowed Host names (or `name:port`), read on every request (besides the network-access service's own). */
  extraHosts?: () => Iterable<string>;
  /**
   * The network-access relay (spec "Network access"): its bind address (default LEYLINE_NETWORK_ACCESS_HOST from
   * `env`, else "0.0.0.0"; tests bind 127.0.0.1), the interface table and host name it reads, its close grace.
   */
  networkAccess?: NetworkAccessOptions;
  /**
   * Options of the runtime host the app creates (tests inject `createClient` for in-process workers, a
   * `fauxScript`, timings). Defaults: forked workers with this app's agent dir, the faux script of
   * LEYLINE_FAUX_RESPONSES (from `env`), workers' environment = process.env + `env` + PI_CODING_AGENT_DIR.
   */
  runtimeHostOptions?: RuntimeHostOptions;
  /**
   * Replaces the VIEW of the runtime host that the read routes, health and the events socket use (tests of
   * those routes inject a scripted view). Runtime actions always use the real host. Default: the host.
   */
  runtimeHost?: RuntimeHostView;
  /** Events WebSocket heartbeat period. Default 30 s. */
  heartbeatMs?: number;
  /** Live bytes an events stream may hold unsent before its reader counts as slow (closed, 1013). Default 8 MiB. */
  eventsBufferLimitBytes?: number;
  /** How long an events stream whose socket closed can be resumed. Default 60 s. */
  eventsResumeWindowMs?: number;
  /**
   * Check every JSON response against its route's declared schema (a mismatch answers 500 and is logged).
   * Default: LEYLINE_CHECK_RESPONSES=1 (the test suite sets it).
   */
  checkResponses?: boolean;
  /** Watch pi's sessions folder. Default true. */
  watchSessions?: boolean;
  /** Home directory of GET /api/pi/fs (`~`). Default: os.homedir(). */
  home?: string;
  /** The clock of Pi Settings operations (their 10-minute cap and one-minute retention). Default: the system's. */
  settingsClock?: HostClock;
}

/** The services route plugins share, created once per app. */
export interface AppServices {
  readonly epoch: string;
  readonly dataDir: string;
  readonly agentDir: string;
  readonly readSide: ReadSide;
  readonly runtimeHost: RuntimeHostView;
  /** The real runtime host (actions, selection, opening and closing runtimes). */
  readonly host: RuntimeHost;
  /** Throwaway runtimes for GET /api/pi/state previews (never registered, never persisted). */
  readonly previewer: RuntimePreviewer;
  /** Pi Settings (providers, models, MCP servers, their operations) over the agent dir's files. */
  readonly settings: PiSettingsService;
  /** Network access: the sharing switch, port and relay of the native backend. */
  readonly networkAccess: NetworkAccessService;
  /** Traces: capture of every run on this backend, its reads and notices. */
  readonly traces: TraceService;
}

declare module "fastify" {
  interface FastifyInstance {
    leyline: AppServices;
  }
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Where `npm run build` writes the client. */
export const DEFAULT_WEB_DIST_DIR = path.join(repoRoot, "web", "dist");

/** Largest WebSocket frame any socket accepts (routes set lower limits of their own). */
const MAX_WS_PAYLOAD_BYTES = 1024 * 1024;
/** WebSocket messages from this size on are compressed when the client accepts permessage-deflate. */
const WS_COMPRESSION_THRESHOLD_BYTES = 1024;

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

/**
 * The code and message to send for an error, or undefined when it is an internal error (→ 500). Statuses
 * come only from the code table (domain/contract/error-codes.ts).
 */
function clientFacing(error: FastifyError): { code: ErrorCode; message: string } | undefined {
  if (error instanceof ServiceError) return { code: error.code, message: error.message };
  if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error.code === "FST_ERR_CTP_EMPTY_JSON_BODY") {
    return { code: "malformed_json", message: error.message };
  }
  const status = error.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) return { code: errorCodeOfStatus(status), message: error.message };
  return undefined;
}

/**
 * The OTLP export of traces when the standard exporter variables ask for it (adapters/traces/otlp-export.ts); the
 * OpenTelemetry SDK is loaded only then.
 */
async function traceExport(env: NodeJS.ProcessEnv, version: string, warn: (message: string) => void): Promise<OtlpExport | null> {
  const wanted = [env["OTEL_EXPORTER_OTLP_ENDPOINT"], env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]].some(
    (value) => (value ?? "").trim() !== "",
  );
  if (!wanted) return null;
  const { createOtlpExport } = await import("../adapters/traces/otlp-export.ts");
  return createOtlpExport(env, { warn, version });
}

/** What Pi Settings sees of the open runtimes: a session's folder, and the model routes they know (sign-in guard). */
function openRuntimesView(host: RuntimeHost): OpenRuntimesView {
  return {
    cwdOfSession: (sessionId) => host.openRuntimes().find((handle) => handle.sessionId === sessionId)?.cwd ?? null,
    routes: () =>
      host
        .openRuntimes()
        .flatMap((handle) =>
          handle.modelRoutes().map((model) => ({ sessionId: handle.sessionId, provider: model.provider, id: model.id, api: model.api })),
        ),
  };
}

/** The host's options with the app's defaults filled in (agent dir, faux script, worker environment). */
function runtimeHostSettings(given: RuntimeHostOptions, env: NodeJS.ProcessEnv, agentDir: string): RuntimeHostOptions {
  return {
    ...given,
    agentDir: given.agentDir ?? agentDir,
    fauxScript: given.fauxScript === undefined ? FauxScript.fromEnv(env) : given.fauxScript,
    env: given.env ?? { ...process.env, ...env, PI_CODING_AGENT_DIR: given.agentDir ?? agentDir },
  };
}

export async function buildApp(options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const env = options.env ?? process.env;
  // maxParamLength: agent keys (a canonical file path) are one URL-encoded path segment; the default 100 is short.
  const app = Fastify({
    logger: options.logger ?? false,
    routerOptions: { maxParamLength: 4096 },
    // A URL whose escapes do not decode (…/%E0%A4%A) is answered in the error envelope like any bad request.
    frameworkErrors: (error, request, reply) => {
      if (error.code !== "FST_ERR_BAD_URL") {
        request.log.error({ err: error }, "request failed before routing");
        return sendError(reply, "internal", "Internal server error");
      }
      const traces = (request.url.split("?", 1)[0] ?? "").startsWith("/api/pi/traces");
      return sendError(reply, "invalid_request", traces ? TRACE_MESSAGES.invalidRequest : "Invalid URL");
    },
  });
  const version = options.version ?? packageVersion();
  const webDistDir = options.webDistDir ?? null;
  const serveClient = webDistDir !== null && fs.existsSync(path.join(webDistDir, "index.html"));
  const dataDir = options.dataDir ?? resolveDataDir(env);
  const agentDir = options.agentDir ?? resolveAgentDir(env);
  const hostOptions = runtimeHostSettings(options.runtimeHostOptions ?? {}, env, agentDir);
  // Prompts with images for a model without image input go through the vision agent (spec "Prompt").
  const visionDir = path.join(dataDir, VISION_ATTACHMENTS_FOLDER);
  const host = new RuntimeHost({
    visionDir,
    prepareImages: createVisionPreparer({ database: async () => (await readSide.database()).db, visionDir }),
    ...hostOptions,
  });
  const previewer = createRuntimePreviewer(hostOptions, host.fauxScript, { capacity: host });
  const runtimeHost: RuntimeHostView = options.runtimeHost ?? host;
  const epoch = randomUUID();
  const startedAtMs = performance.now();

  const readSide = openReadSide({
    dataDir,
    agentDir,
    watch: options.watchSessions ?? true,
    onError: (error) => app.log.error({ err: error }, "session index error"),
  });
  const settings = createPiSettingsService({
    agentDir,
    clock: options.settingsClock ?? systemClock,
    openRuntimes: openRuntimesView(host),
    env,
  });
  const networkAccess = createNetworkAccessService({
    ...options.networkAccess,
    bindHost: options.networkAccess?.bindHost ?? (env[RELAY_HOST_ENV] || undefined),
    database: async () => (await readSide.database()).db,
    onError: (error, message) => app.log.warn({ err: error }, message),
  });
  const traces = createTraceService({
    database: async () => (await readSide.database()).db,
    traceWrites$: host.traceWrites$,
    workerLosses$: host.workerLosses$,
    hostEvents$: host.events$,
    version,
    otlp: await traceExport(env, version, (message) => app.log.warn(message)),
    log: app.log,
  });
  const services: AppServices = { epoch, dataDir, agentDir, readSide, runtimeHost, host, previewer, settings, networkAccess, traces };
  app.decorate("leyline", services);
  // A runtime's leaf moved by a /tree navigation lives in the runtime until its next write: the session's detail
  // and tree show that branch meanwhile (in order: each move waits for the same ready promise).
  const leafMoves = host.leafMoves$.subscribe(({ file, leaf }) => {
    readSide
      .ready()
      .then((ready) => ready.details.moveLeaf(file, leaf))
      .catch(() => undefined);
  });
  // Workers first (they may still append to session files), then the index records what they wrote (a
  // warm start serves the stored list before it re-checks the disk), then the index and the database. The
  // workers go in preClose, before the HTTP server waits for its open requests: a subagent run is one long
  // request (POST /api/pi/subagent) that ends only when its child runtime does.
  // (preClose does not run for an app closed before it was ready: onClose stops them then.)
  let written: string[] = [];
  const stopWorkers = async (): Promise<void> => {
    if (host.stopping) return;
    written = host.openRuntimes().flatMap((handle) => (handle.sessionFile !== null ? [handle.sessionFile] : []));
    await Promise.all([
      host.shutdown().catch((error: unknown) => app.log.error({ err: error }, "runtime host shutdown failed")),
      previewer.close(),
      settings.close(),
    ]);
  };
  // Network access: once the origin listens, the service learns its address and restores the saved sharing; the
  // relay stops first on close (remote clients go before the workers do).
  app.addHook("onListen", async () => {
    const address = app.server.address();
    const origin = typeof address === "object" && address !== null ? { address: address.address, port: address.port } : null;
    void networkAccess.originListening(origin, app.server);
  });
  app.addHook("preClose", () => networkAccess.close());
  app.addHook("preClose", stopWorkers);
  app.addHook("onClose", async () => {
    await networkAccess.close();
    await stopWorkers();
    leafMoves.unsubscribe();
    // After the workers: their last captures (runs they abandoned) are stored first.
    await traces.close().catch((error: unknown) => app.log.error({ err: error }, "tracing: close failed"));
    const index = readSide.current()?.index;
    if (index !== undefined && written.length > 0) {
      await index
        .touch(written)
        .then(() => index.idle())
        .catch((error: unknown) => app.log.error({ err: error }, "session index update on close failed"));
    }
    await readSide.close();
  });
  try {
    await registerAll(app, services, options, { version, webDistDir: serveClient ? webDistDir : null, startedAtMs });
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

async function registerAll(
  app: FastifyInstance,
  services: AppServices,
  options: BuildAppOptions,
  settings: { version: string; webDistDir: string | null; startedAtMs: number },
): Promise<void> {
  const { readSide, runtimeHost, dataDir, agentDir, epoch, host, previewer, settings: piSettings } = services;
  const { version, webDistDir, startedAtMs } = settings;
  const serveClient = webDistDir !== null;
  const env = options.env ?? process.env;

  const routeMethods = trackRouteMethods(app);
  // First: its onRequest hook marks upgrade requests (and its onResponse hook then destroys the socket of a
  // refused upgrade), so it must run before the origin policy can answer 403.
  // permessage-deflate for messages of 1 KiB and more (snapshots, the session list: a 2,000-session list is
  // ~1.1 MB of JSON and ~250 KB deflated). Without context takeover each message is compressed on its own, and
  // only then does ws apply the threshold: small messages (streamed deltas, heartbeats, the client's focus) stay
  // plain. With takeover ws compresses every message, and zlib's queue delayed even a client's 80-byte focus
  // message behind the outgoing ones.
  await app.register(fastifyWebsocket, {
    options: {
      maxPayload: MAX_WS_PAYLOAD_BYTES,
      perMessageDeflate: { threshold: WS_COMPRESSION_THRESHOLD_BYTES, serverNoContextTakeover: true, clientNoContextTakeover: true },
    },
  });
  registerOriginPolicy(
    app,
    createOriginPolicy(options.allowedOrigins ?? allowedOriginsFromEnv(env), {
      extraHosts: () => [...services.networkAccess.extraHosts(), ...(options.extraHosts?.() ?? [])],
      anyAddress: () => services.networkAccess.directAccess(),
    }),
  );
  app.addHook("onRequest", settingsNoStore);
  // Before any route: it applies to the routes added after it (JSON API responses; see compression.ts).
  await registerCompression(app);
  // Before any route: request checking, the error envelope on every route, the OpenAPI document.
  await registerContract(app, { version, checkResponses: options.checkResponses ?? process.env["LEYLINE_CHECK_RESPONSES"] === "1" });

  /** The answer for a request no route matched: 405 for a known path, the SPA shell, or 404. */
  const unmatched = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const method = request.method;
    const pathname = request.url.split("?", 1)[0] ?? "";
    const known = routeMethods.lookup(pathname);
    if (known !== null && known.unsupported === 405) {
      return sendError(reply.header("allow", known.allow.join(", ")), "method_not_allowed", "Method not allowed");
    }
    if (serveClient && (method === "GET" || method === "HEAD") && !isApiPath(request.url)) {
      // SPA fallback: client-side routes load the app shell.
      return reply.header("cache-control", "no-cache").sendFile("index.html");
    }
    return sendError(reply, "not_found", "Not found");
  };
  app.setNotFoundHandler(unmatched);

  app.setErrorHandler<FastifyError>((error, request, reply) => {
    // The not-found route parses bodies too: a bad body sent with the wrong method or to an unknown path is
    // answered as that (405/404), not as the body's error.
    if (request.is404) return unmatched(request, reply);
    const facing = clientFacing(error);
    if (facing === undefined) {
      request.log.error({ err: error }, "request failed");
      return sendError(reply, "internal", "Internal server error");
    }
    return sendError(reply, facing.code, facing.message);
  });

  // CORS preflight: 204 (spec). A disallowed origin was already answered 403 by the origin policy.
  app.options("/*", { schema: { hide: true } }, (request, reply) => {
    const requested = request.headers["access-control-request-headers"];
    return reply
      .code(204)
      .header("allow", CORS_ALLOWED_METHODS)
      .header("access-control-allow-methods", CORS_ALLOWED_METHODS)
      .header("access-control-allow-headers", typeof requested === "string" ? requested : "content-type")
      .header("access-control-max-age", "600")
      .send();
  });

  await app.register(infoRoutes, { version });
  // The native backend's own records (connections, app settings, pins): leyline.sqlite, not the session index.
  await app.register(connectionsRoutes, { readSide });
  await app.register(appSettingsRoutes, { readSide });
  await app.register(pinnedSessionsRoutes, { readSide });
  await app.register(healthRoutes, {
    readSide,
    runtimeHost,
    dataDir,
    agentDir,
    epoch,
    version,
    startedAtMs,
    now: () => performance.now(),
  });
  await app.register(sessionsRoutes, { readSide, runtimeHost });
  await app.register(searchRoutes, { readSide });
  await app.register(sessionTreeRoutes, { readSide, runtimeHost });
  await app.register(rolloutFeedbackRoutes, { readSide, traces: services.traces });
  await app.register(exportRoutes, { readSide, runtimeHost, version });
  await app.register(sessionWriteRoutes, { readSide, host, previewer });
  await app.register(sessionResetRoutes, { readSide, host });
  await app.register(runtimeActionsRoutes, { readSide, host });
  await app.register(subagentRoutes, { readSide, host, agentDir });
  await app.register(fsRoutes, options.home !== undefined ? { home: options.home } : {});
  await app.register(subagentsRoutes, { readSide, runtimeHost, agentDir });
  await app.register(visionRoutes, { readSide, host });
  await app.register(memoriesRoutes, { memoryDir: resolveMemoryDir(env, dataDir), runtimeHost });
  await app.register(tracesRoutes, { traces: services.traces });
  await app.register(piSettingsRoutes, { settings: piSettings });
  await app.register(networkAccessRoutes, { networkAccess: services.networkAccess });
  await app.register(filesRoutes, { readSide, host, dataDir, env });
  await app.register(reviewRoutes, options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {});
  await app.register(reviewActionsRoutes, { readSide, host, agentDir });
  await app.register(terminalRoutes, {
    readSide,
    host,
    env,
    editorTerminal: (request) => prepareEditorTerminal({ readSide, host, dataDir, env }, request),
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
  });
  await app.register(eventsRoutes, {
    runtimeHost,
    readSide,
    epoch,
    notices$: services.traces.notices$,
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.eventsBufferLimitBytes !== undefined ? { bufferLimitBytes: options.eventsBufferLimitBytes } : {}),
    ...(options.eventsResumeWindowMs !== undefined ? { resumeWindowMs: options.eventsResumeWindowMs } : {}),
  });

  if (webDistDir !== null) {
    // The built client is not part of the API document.
    await app.register(fastifyStatic, { root: webDistDir, prefix: "/", wildcard: true, schemaHide: true });
  }
}
