/**
 * What every contract file builds on: TypeBox (the `typebox` 1.x package pi uses), the two annotations the
 * request validator reads, and the pieces many routes share (the error envelope, `:id` params, open objects).
 *
 * A schema node may carry `x-error` (the message a request that fails at this node gets; the spec's words)
 * and `x-error-code` (its ErrorCode when it is not invalid_request). Both are OpenAPI vendor extensions, so
 * the generated document keeps them. See contract-check.ts for how a failing request finds its message.
 */
import { Type, type Static, type TSchema } from "typebox";
import type { ErrorCode } from "./error-codes.ts";

export { Type, type Static, type TSchema };

export const ERROR_MESSAGE_KEY = "x-error";
export const ERROR_CODE_KEY = "x-error-code";

/**
 * What a request failing at a node is told: one message, or one per failing keyword (`type`, `pattern`,
 * `minLength`, ...; `required` falls back to `type`, anything else to `default`).
 */
export type FailureMessage = string | { readonly [keyword: string]: string };

/** `schema` with the message (and code) a request failing at it answers. */
export function failsWith<T extends TSchema>(schema: T, message: FailureMessage, code?: ErrorCode): T {
  return { ...schema, [ERROR_MESSAGE_KEY]: message, ...(code !== undefined ? { [ERROR_CODE_KEY]: code } : {}) };
}

/** A string that must not be empty. */
export function nonEmptyString(message: string): ReturnType<typeof Type.String> {
  return failsWith(Type.String({ minLength: 1 }), message);
}

/** An optional string field where null means absent too; another type answers "<name> must be a string". */
export function optionalString(name: string) {
  return Type.Optional(failsWith(Type.Union([Type.String(), Type.Null()]), `${name} must be a string`));
}

/** A required non-blank string whose wrong type is told apart ("<name> must be a string"). */
export function requiredString(name: string) {
  return failsWith(Type.String({ pattern: "\\S" }), {
    type: `${name} must be a string`,
    default: `${name} must be a non-empty string`,
    required: `${name} must be a non-empty string`,
  });
}

/** One of a list of string constants (an enum of the domain: `RESEARCH_PHASES`, the queue actions). */
export function literals<const V extends readonly string[]>(values: V) {
  return Type.Unsafe<V[number]>(Type.Union(values.map((value) => Type.Literal(value))));
}

/** The spec's error envelope: `{ "error": message }`. */
export const ErrorBody = Type.Object(
  { error: Type.String() },
  { title: "ErrorBody", description: "The error envelope of every failing request." },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** `:id` of the session routes. */
export const SessionIdParams = Type.Object({ id: nonEmptyString("id must be a non-empty string") });

/**
 * An object the contract names but does not spell out field by field (yet): the required keys are checked,
 * the rest is the domain type `T` (the TypeScript declaration stays the source for the inner shape).
 */
export function domainObject<T>(name: string, required: Record<string, TSchema>, description: string) {
  return Type.Unsafe<T>(Type.Object(required, { title: name, description, additionalProperties: true }));
}

/**
 * Compile-time proof that a schema's static type and a domain interface are the same type: a
 * `const _x: SameType<A, B> = true` line fails to type-check when they drift apart.
 */
export type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
