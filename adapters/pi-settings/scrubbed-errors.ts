/**
 * A service whose failures are scrubbed of known secrets before they become answers or log lines (a pi
 * validation or load error can quote a value of a settings file). The last line of defence for errors, as
 * the settings service's `scrub` is for answers: a ServiceError keeps its code with a scrubbed message; any
 * other error (answered as "Internal server error", logged in full) has its message and stack scrubbed.
 */
import { ServiceError } from "../../domain/service-error.ts";

export function withScrubbedErrors<S extends object>(
  service: S,
  scrubText: (text: string) => string,
  exempt: readonly (keyof S)[] = [],
): S {
  const scrubbed = (error: unknown): unknown => {
    if (error instanceof ServiceError) {
      const message = scrubText(error.message);
      return message === error.message ? error : new ServiceError(error.code, message);
    }
    if (error instanceof Error) {
      error.message = scrubText(error.message);
      if (error.stack !== undefined) error.stack = scrubText(error.stack);
    }
    return error;
  };
  const wrapped: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(service)) {
    if (typeof member !== "function" || exempt.includes(name as keyof S)) {
      wrapped[name] = member;
      continue;
    }
    wrapped[name] = (...args: unknown[]): unknown => {
      try {
        const result: unknown = (member as (...given: unknown[]) => unknown)(...args);
        return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(scrubbed(error))) : result;
      } catch (error) {
        throw scrubbed(error);
      }
    };
  }
  return wrapped as S;
}
