/**
 * An error a route throws on purpose: the app's error handler sends `{ "error": message }` with the status
 * of its code (domain/contract/error-codes.ts). It is the HTTP flavour of domain/service-error.ts's
 * ServiceError (what services throw), answered the same way. Anything else that is thrown becomes a 500 whose
 * details stay in the log (never in the response).
 */
import type { FastifyReply } from "fastify";
import { ERROR_STATUS, type ErrorCode } from "../domain/contract/error-codes.ts";
import type { ErrorBody } from "../domain/contract/schema-kit.ts";
import { ServiceError } from "../domain/service-error.ts";

export type { ErrorBody };

/** Fastify reads `code` and `statusCode` of errors; request validation errors are HttpErrors too. */
export class HttpError extends ServiceError {
  /** Always `ERROR_STATUS[code]` (a plain field: Fastify assigns it on validation errors). */
  statusCode: number;

  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = "HttpError";
    this.statusCode = ERROR_STATUS[code];
  }
}

/** Answers an error the route decides itself (not thrown): the envelope with the status of `code`. */
export function sendError(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  const body: ErrorBody = { error: message };
  return reply.code(ERROR_STATUS[code]).send(body);
}
