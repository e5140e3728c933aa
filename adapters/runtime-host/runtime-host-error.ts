/**
 * The runtime host's typed error: every failure a route can surface carries the HTTP status the API should
 * answer with (adapters may not import api/, so the API maps `RuntimeHostError.status` to its own envelope).
 *
 * 400 bad input · 404 unknown session or entry · 409 state conflict (stale queue revision, confirmation no
 * longer pending, runtime paused) · 500 runtime failure or a blocked action the spec answers with 500 ·
 * 503 capacity reached.
 */
/** The one message for an unknown (or deleted) session, wherever it is answered: it names no path. */
export const SESSION_NOT_FOUND = "Session not found";

export type RuntimeHostErrorStatus = 400 | 404 | 409 | 500 | 503;

export class RuntimeHostError extends Error {
  constructor(
    readonly status: RuntimeHostErrorStatus,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "RuntimeHostError";
  }
}

export function isRuntimeHostError(value: unknown): value is RuntimeHostError {
  return value instanceof RuntimeHostError;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Wraps any failure of a worker request as a 500 (keeps RuntimeHostErrors as they are). */
export function asHostError(error: unknown, context: string): RuntimeHostError {
  if (error instanceof RuntimeHostError) return error;
  return new RuntimeHostError(500, `${context}: ${errorText(error)}`, { cause: error });
}
