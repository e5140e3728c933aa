/**
 * A failure a service reports with an error code (domain/contract/error-codes.ts), for the caller to answer:
 * the app's error handler (api/app.ts) sends it like an HttpError, with the status of its code and its
 * message as is. Services in adapters/ and domain/ throw it (an unknown session, a conflict with the session's
 * state, a bad value a schema cannot judge) instead of the API's HttpError, which they may not import.
 * HttpError (api/http-error.ts) is its HTTP flavour.
 */
import type { ErrorCode } from "./contract/error-codes.ts";

export class ServiceError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ServiceError";
    this.code = code;
  }
}
