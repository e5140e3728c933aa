/**
 * The contract, applied to the Fastify app (call `registerContract` before any route plugin):
 *
 * - requests: every route's params, query and body are checked against its TypeBox schema
 *   (domain/contract/); a failure is an HttpError with the schema's message and code, answered by the app's
 *   one error handler. A missing body counts as `{}` (the spec's routes treat it so); a body that is not an
 *   object answers "Request body must be a JSON object".
 * - responses: sent with JSON.stringify, as before (Fastify's schema serializer would drop fields a loose
 *   schema does not list). With `checkResponses` (tests: LEYLINE_CHECK_RESPONSES=1), every JSON response is
 *   checked against the schema of its status and a mismatch fails the request with a 500 and a log line
 *   naming the route, so the whole test suite checks the declared answers.
 * - every route answers the error envelope for 4xx and 5xx (added to each route's response schemas).
 * - GET /api/openapi.json: the OpenAPI 3.1 document @fastify/swagger builds from the registered routes.
 */
import fastifySwagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from "fastify";
import type { TSchema } from "typebox";
import { contractChecker, type ContractChecker } from "../domain/contract/contract-check.ts";
import { ERROR_STATUS } from "../domain/contract/error-codes.ts";
import { openApiDocument } from "../domain/contract/http-service.ts";
import { ErrorBody } from "../domain/contract/schema-kit.ts";
import { HttpError } from "./http-error.ts";

export interface ContractOptions {
  readonly version: string;
  /** Check every JSON response against its declared schema (a mismatch becomes a 500). */
  readonly checkResponses: boolean;
}

const BODY_NOT_OBJECT = "Request body must be a JSON object";

/** Checkers per schema object (routes share schemas: the legacy and scoped action routes, the params). */
function checkerCache(): (schema: TSchema, part: string) => ContractChecker<TSchema> {
  const cache = new WeakMap<object, Map<string, ContractChecker<TSchema>>>();
  return (schema, part) => {
    let byPart = cache.get(schema);
    if (byPart === undefined) cache.set(schema, (byPart = new Map()));
    let checker = byPart.get(part);
    if (checker === undefined) byPart.set(part, (checker = contractChecker(schema, part)));
    return checker;
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The body check a route may run before its schema (in a preValidation hook, e.g. to find the session
 * first): absent is fine, anything but an object answers what the schema check would.
 */
export function requireObjectBody(body: unknown): void {
  if (body !== undefined && body !== null && !isPlainObject(body)) throw new HttpError("invalid_request", BODY_NOT_OBJECT);
}

function declaresObject(schema: TSchema): boolean {
  return (schema as { type?: unknown }).type === "object";
}

/** The response schema declared for a status: the exact status, then `4xx`/`5xx`, then `default`. */
function responseSchemaOf(schema: FastifySchema | undefined, status: number): TSchema | undefined {
  const response = schema?.response as Record<string, TSchema> | undefined;
  if (response === undefined) return undefined;
  return response[String(status)] ?? response[`${String(status)[0]}xx`] ?? response["default"];
}

export async function registerContract(app: FastifyInstance, options: ContractOptions): Promise<void> {
  const checkerOf = checkerCache();

  app.setValidatorCompiler(({ schema, httpPart }) => {
    const part = httpPart ?? "value";
    const checker = checkerOf(schema as TSchema, part);
    const objectBody = part === "body" && declaresObject(schema as TSchema);
    return (value: unknown) => {
      let input = value;
      if (objectBody) {
        if (input === undefined || input === null) input = {};
        else if (!isPlainObject(input)) return { error: new HttpError("invalid_request", BODY_NOT_OBJECT) };
      }
      const failure = checker.failure(input);
      return failure === null ? { value: input } : { error: new HttpError(failure.code, failure.message) };
    };
  });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // Every route answers the envelope when it fails; declared here once instead of on every route.
  app.addHook("onRoute", (route) => {
    if (route.schema === undefined || route.method === "HEAD") return;
    const response = { ...((route.schema.response as Record<string, unknown> | undefined) ?? {}) };
    response["4xx"] ??= ErrorBody;
    response["5xx"] ??= ErrorBody;
    route.schema = { ...route.schema, response };
  });

  if (options.checkResponses) {
    app.addHook("onSend", async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const type = String(reply.getHeader("content-type") ?? "");
      if (!type.startsWith("application/json") || typeof payload !== "string") return payload;
      const schema = responseSchemaOf(request.routeOptions.schema, reply.statusCode);
      if (schema === undefined) return payload;
      const failure = checkerOf(schema, "response").failure(JSON.parse(payload));
      if (failure === null) return payload;
      const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
      request.log.error({ route, status: reply.statusCode, failure: failure.message }, "response breaks its declared schema");
      reply.code(ERROR_STATUS.internal);
      return JSON.stringify({ error: `Response of ${route} (${reply.statusCode}) breaks its schema: ${failure.message}` });
    });
  }

  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Leyline API",
        version: options.version,
        description: "The HTTP and WebSocket API of Leyline, a local web workbench for the pi coding agent.",
      },
    },
  });
  app.get(openApiDocument.url, { schema: openApiDocument.schema }, async () => app.swagger());
}

/** The app typed by the TypeBox provider: handlers see `request.body` (query, params) as the schema's static type. */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}
