/**
 * An error a route throws on purpose: the app's error handler sends `{ "error": message }` with the status
 * of its code (domain/contract/error-codes.ts). Anything else that is thrown becomes a 500 whose details
 * stay in the log (never in the response).
 */
import type { FastifyReply } from "fastify";
import { ERROR_STATUS, type ErrorCode } from "../domain/contract/error-codes.ts";
import type { ErrorBody } from "../domain/contract/schema-kit.ts";

export type { ErrorBody };

export class HttpError extends Error {
  /** Fastify reads `code` and `statusCode` of errors; request validation errors are HttpErrors too. */
  readonly code: ErrorCode;
  /** Always `ERROR_STATUS[code]` (a plain field: Fastify assigns it on validation errors). */
  statusCode: number;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "HttpError";
    this.code = code;
    this.statusCode = ERROR_STATUS[code];
  }
}

/** Answers an error the route decides itself (not thrown): the envelope with the status of `code`. */
export function sendError(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  const body: ErrorBody = { error: message };
  return reply.code(ERROR_STATUS[code]).send(body);
}
