/**
 * The runtime host's typed error: every failure a route can surface carries its error code
 * (domain/contract/error-codes.ts), and the app's one error handler answers the code's status (adapters may
 * not import api/, so the code is the whole contract between them).
 */
import { ERROR_STATUS, type ErrorCode } from "../../domain/contract/error-codes.ts";

/** The one message for an unknown (or deleted) session, wherever it is answered: it names no path. */
export const SESSION_NOT_FOUND = "Session not found";

export class RuntimeHostError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
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
