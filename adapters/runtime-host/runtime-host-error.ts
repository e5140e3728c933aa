/**
 * The runtime host's typed error: every failure a route can surface carries its error code
 * (domain/contract/error-codes.ts), and the app's one error handler answers the code's status.
 */
import { ERROR_STATUS, type ErrorCode } from "../../domain/contract/error-codes.ts";
import { ServiceError } from "../../domain/service-error.ts";

/** The one message for an unknown (or deleted) session, wherever it is answered: it names no path. */
export const SESSION_NOT_FOUND = "Session not found";

/** The runtime host's flavour of ServiceError (the app's error handler answers both alike). */
export class RuntimeHostError extends ServiceError {
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "RuntimeHostError";
  }

  /** The HTTP status of the code (the table's, never decided here). */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isRuntimeHostError(value: unknown): value is RuntimeHostError {
  return value instanceof RuntimeHostError;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Wraps any failure of a worker request as runtime_failed (keeps RuntimeHostErrors as they are). */
export function asHostError(error: unknown, context: string): RuntimeHostError {
  if (error instanceof RuntimeHostError) return error;
  return new RuntimeHostError("runtime_failed", `${context}: ${errorText(error)}`, { cause: error });
}
