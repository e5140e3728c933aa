/**
 * Trace routes (spec "Trace routes", "Trace errors"; contract domain/contract/http-traces.ts) over the trace
 * service (adapters/traces/trace-service.ts). Thin: the query rules are domain/traces/trace-read.ts.
 *
 * Statuses: the spec's explicit validation messages (400); any other malformed request (bad JSON, a repeated
 * query parameter, a body of the wrong shape, a bad URI escape) 400 "Invalid trace request"; an unknown trace
 * 404 "Trace not found"; storage, settings and shutdown failures 503 with the spec's words. Unsupported methods
 * (405) and unknown subpaths (404) are the app's (one mechanism for every route).
 */
import type { FastifyError, FastifyPluginAsync } from "fastify";
import { getTrace, getTraceConfig, listTraces, patchTrace, putTraceConfig } from "../domain/contract/http-traces.ts";
import { ServiceError } from "../domain/service-error.ts";
import { checkDetailQuery, checkListQuery, checkTraceId, type Checked, TRACE_MESSAGES } from "../domain/traces/trace-read.ts";
import type { TraceService } from "../adapters/traces/trace-service.ts";
import { typed } from "./contract.ts";
import { HttpError, sendError } from "./http-error.ts";

export interface TracesRoutesOptions {
  readonly traces: TraceService;
}

/** Messages a trace request may answer as they are (the spec's explicit validation). */
const EXPLICIT =
  /^(enabled must be a boolean|bookmarked must be a boolean|Invalid trace status|Invalid trace identifier|\w+ must be a (positive|non-negative) integer)$/;

function valid<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new HttpError("invalid_request", checked.error);
  return checked.value;
}

export const tracesRoutes: FastifyPluginAsync<TracesRoutesOptions> = async (app, options) => {
  const { traces } = options;

  // Within this plugin only: malformed requests answer the spec's one message; everything else goes on to the
  // app's handler (statuses from the error code table).
  app.setErrorHandler<FastifyError>((error) => {
    if (error instanceof ServiceError && error.code !== "invalid_request" && error.code !== "malformed_json") throw error;
    const status = error.statusCode ?? 500;
    const malformed =
      error instanceof ServiceError || (status >= 400 && status < 500 && status !== 413 && status !== 415) || error instanceof URIError;
    if (malformed && !EXPLICIT.test(error.message)) throw new HttpError("invalid_request", TRACE_MESSAGES.invalidRequest);
    throw error;
  });

  const api = typed(app);

  api.get(getTraceConfig.url, { schema: getTraceConfig.schema }, async () => traces.config());

  api.put(putTraceConfig.url, { schema: putTraceConfig.schema }, async (request) => traces.setConfig(request.body.enabled));

  api.get(listTraces.url, { schema: listTraces.schema }, async (request) => traces.list(valid(checkListQuery(request.query))));

  api.get(getTrace.url, { schema: getTrace.schema }, async (request) => {
    const id = valid(checkTraceId(request.params.id));
    return { trace: await traces.detail(id, valid(checkDetailQuery(request.query))) };
  });

  api.patch(patchTrace.url, { schema: patchTrace.schema }, async (request, reply) => {
    // The configuration's path takes GET and PUT only (":id" would read it as a trace named "config").
    if (request.params.id === "config") return sendError(reply.header("allow", "GET, PUT"), "method_not_allowed", "Method not allowed");
    const id = valid(checkTraceId(request.params.id));
    return { trace: await traces.setBookmark(id, request.body.bookmarked) };
  });
};
