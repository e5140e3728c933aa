/**
 * Checking a value against a contract schema, and the one rule for what a failing value is told.
 *
 * The message of a failure is the `x-error` of the nearest schema node above the first error (for a missing
 * property: that property's own node first), so `{}` against `{ text: failsWith(String, "text must be a
 * string") }` answers "text must be a string", as the hand-written checks did. `{index}` in a message is the
 * array index the error is under. A node without a message above the error gets `<part><path> <reason>`.
 * The code is the `x-error-code` found the same way, else invalid_request.
 *
 * Messages between processes use the "path" style instead (path-failure.ts): `<part><path> <reason>`, the
 * reason worded from the schema ("must be a string (got undefined)"), `x-error` only where a node says more.
 */
import { Compile } from "typebox/compile";
import type { TLocalizedValidationError } from "typebox/error";
import type { Static, TSchema } from "typebox";
import type { ErrorCode } from "./error-codes.ts";
import { pathFailureMessage } from "./path-failure.ts";
import { ERROR_CODE_KEY, ERROR_MESSAGE_KEY } from "./schema-kit.ts";

export interface ContractFailure {
  readonly message: string;
  readonly code: ErrorCode;
}

export interface ContractChecker<T extends TSchema> {
  readonly schema: T;
  is(value: unknown): value is Static<T>;
  /** Why `value` fails, or null when it passes. */
  failure(value: unknown): ContractFailure | null;
}

function pointerSegments(pointer: string): string[] {
  const body = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (body === "" || body === "/") return [];
  return body
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function nodeAt(root: unknown, segments: readonly string[]): Record<string, unknown> | null {
  let node: unknown = root;
  for (const segment of segments) {
    if (typeof node !== "object" || node === null) return null;
    node = (node as Record<string, unknown>)[segment];
  }
  return typeof node === "object" && node !== null ? (node as Record<string, unknown>) : null;
}

/** The annotated node for an error: the missing property's node, then each node up from the failing one. */
function annotatedNode(root: TSchema, error: TLocalizedValidationError): Record<string, unknown> | null {
  const segments = pointerSegments(error.schemaPath);
  const candidates: string[][] = [];
  if (error.keyword === "required") {
    const missing = (error.params as { requiredProperties?: unknown }).requiredProperties;
    if (Array.isArray(missing) && typeof missing[0] === "string") candidates.push([...segments, "properties", missing[0]]);
  }
  for (let length = segments.length; length >= 0; length--) candidates.push(segments.slice(0, length));
  for (const candidate of candidates) {
    const node = nodeAt(root, candidate);
    if (node !== null && messageOf(node, error.keyword) !== null) return node;
  }
  return null;
}

/** The node's message for a failing keyword (see FailureMessage), or null when it has none for it. */
function messageOf(node: Record<string, unknown>, keyword: string): string | null {
  const message = node[ERROR_MESSAGE_KEY];
  if (typeof message === "string") return message;
  if (typeof message !== "object" || message === null) return null;
  const byKeyword = message as Record<string, unknown>;
  const found = byKeyword[keyword] ?? (keyword === "required" ? byKeyword["type"] : undefined) ?? byKeyword["default"];
  return typeof found === "string" ? found : null;
}

function lastIndex(instancePath: string): string {
  const numeric = pointerSegments(instancePath).filter((segment) => /^\d+$/.test(segment));
  return numeric.at(-1) ?? "0";
}

/**
 * Where an error sits in the order the root object declares its properties (-1: the value itself), so
 * fields are checked in the order the schema lists them, as a hand-written check reads them.
 */
function declaredRank(root: TSchema, error: TLocalizedValidationError): number {
  const properties = (root as { properties?: unknown }).properties;
  const names = typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
  let name = pointerSegments(error.instancePath)[0];
  if (name === undefined && error.keyword === "required") {
    const missing = (error.params as { requiredProperties?: unknown }).requiredProperties;
    name = Array.isArray(missing) && typeof missing[0] === "string" ? missing[0] : undefined;
  }
  if (name === undefined) return -1;
  const index = names.indexOf(name);
  return index === -1 ? names.length : index;
}

/** What a value failing `root` with `errors` (TypeBox's) is told. `part` names the value. */
export function failureOf(root: TSchema, errors: readonly TLocalizedValidationError[], part: string): ContractFailure {
  let first: TLocalizedValidationError | undefined;
  let firstRank = Infinity;
  for (const error of errors) {
    const rank = declaredRank(root, error);
    if (rank < firstRank) [first, firstRank] = [error, rank];
  }
  if (first === undefined) return { message: `${part} is invalid`, code: "invalid_request" };
  const node = annotatedNode(root, first);
  if (node === null) {
    const where = first.instancePath === "" ? part : `${part}${first.instancePath}`;
    return { message: `${where} ${first.message}`, code: "invalid_request" };
  }
  const message = (messageOf(node, first.keyword) ?? "").replace(/\{index\}/g, lastIndex(first.instancePath));
  const code = node[ERROR_CODE_KEY];
  return { message, code: typeof code === "string" ? (code as ErrorCode) : "invalid_request" };
}

export interface ContractCheckerOptions {
  /** "spec" (default): the HTTP API's messages, as above. "path": messages between processes (path-failure.ts). */
  readonly style?: "spec" | "path";
}

/** A compiled checker for `schema` (compile once, at start-up: compiling is the costly step). */
export function contractChecker<T extends TSchema>(schema: T, part = "value", options: ContractCheckerOptions = {}): ContractChecker<T> {
  const validator = Compile(schema);
  const failing =
    options.style === "path"
      ? (value: unknown): ContractFailure => ({ message: pathFailureMessage(schema, value, part), code: "invalid_request" })
      : (value: unknown): ContractFailure => failureOf(schema, validator.Errors(value), part);
  return {
    schema,
    is: (value): value is Static<T> => validator.Check(value),
    failure: (value) => (validator.Check(value) ? null : failing(value)),
  };
}
