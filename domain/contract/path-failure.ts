/**
 * The "path" style of a failure, for messages between processes (domain/contract/worker-ipc.ts): one line naming
 * the field, `<part><path> <reason>` ("prompt.images[0].mimeType must be a string (got undefined)"), worded as
 * the hand-written IPC validators were, so a log or a test reads the same.
 *
 * The checks are TypeBox's; this file only decides which failure is told first and how. It walks the schema the
 * way a hand-written check reads a value: an object's unknown fields first, then which of its shapes it is (a
 * `oneOf` on the object: "needs exactly one of sessionFile or new"), then its fields in the order the schema
 * declares them (a missing required field where it is declared), then its other rules across fields (`not`,
 * `anyOf` on the object); an array's items in order. A union is told by the branch the value meant: the one
 * whose discriminant (a literal property every branch has) matches, else the first whose type fits, and never
 * `null` when the value is not null; when no branch has the value's discriminant, the fields declared before it
 * are read first, then the discriminant is told. TypeBox gathers at most 8 errors per check, so each level asks TypeBox
 * again for the part it descends into (compiled once per schema node, on the first failure that needs it).
 *
 * Reasons: `must be a string|a finite number|a boolean|an object|an array|an array of strings|one of a, b
 * (got <what>)`, `has unknown field(s): a, b`; `<what>` is "a string", "a number", "undefined", "null", "an
 * object", "an array"..., or the quoted string for "one of". A node's `x-error` (schema-kit.ts `failsWith`)
 * replaces the reason for a failure of that very value (not of something inside it); in it `{type}` is what
 * the value is ("a string") and `{json}` its JSON.
 */
import { Compile } from "typebox/compile";
import type { TLocalizedValidationError } from "typebox/error";
import type { TSchema } from "typebox";
import { ERROR_MESSAGE_KEY } from "./schema-kit.ts";

type SchemaNode = Readonly<Record<string, unknown>>;
type Segment = string | number;

interface Failure {
  readonly at: readonly Segment[];
  readonly reason: string;
}

const compiled = new WeakMap<SchemaNode, ReturnType<typeof Compile>>();

function validatorOf(node: SchemaNode): ReturnType<typeof Compile> {
  let validator = compiled.get(node);
  if (validator === undefined) {
    validator = Compile(node as TSchema);
    compiled.set(node, validator);
  }
  return validator;
}

const passes = (node: SchemaNode, value: unknown): boolean => validatorOf(node).Check(value);

/** TypeBox's errors of `node` itself (not of what is inside the value). */
function ownErrors(node: SchemaNode, value: unknown): TLocalizedValidationError[] {
  return validatorOf(node)
    .Errors(value)
    .filter((error) => error.schemaPath === "#" && error.instancePath === "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function recordOf(value: unknown): SchemaNode {
  return isRecord(value) ? value : {};
}

/** What a value is, in words: "a string", "an object", "null", "undefined". */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? "a string" : `${typeof value === "object" ? "an" : "a"} ${typeof value}`;
}

const isUnion = (node: SchemaNode): boolean => Array.isArray(node["anyOf"]) && node["type"] === undefined;
const branchesOf = (node: SchemaNode): SchemaNode[] => (node["anyOf"] as unknown[]).map(recordOf);
const isNull = (node: SchemaNode): boolean => node["type"] === "null";

interface Expectation {
  readonly text: string;
  /** A choice among constants: the value it got is quoted when it is a string. */
  readonly oneOf: boolean;
}

function constantsOf(node: SchemaNode): unknown[] | null {
  if ("const" in node) return [node["const"]];
  if (!isUnion(node)) return null;
  const values: unknown[] = [];
  for (const branch of branchesOf(node)) {
    const constants = constantsOf(branch);
    if (constants === null) return null;
    values.push(...constants);
  }
  return values;
}

/** What a node expects, in words. */
function expectationOf(node: SchemaNode): Expectation {
  const constants = constantsOf(node);
  if (constants !== null) return { text: `one of ${constants.map(String).join(", ")}`, oneOf: true };
  if (isUnion(node)) {
    const branches = branchesOf(node).filter((branch) => !isNull(branch));
    const [only] = branches;
    if (only !== undefined && branches.every((branch) => branch["type"] === only["type"])) return expectationOf(only);
  }
  switch (node["type"]) {
    case "string":
      return { text: "a string", oneOf: false };
    case "number":
    case "integer":
      return { text: "a finite number", oneOf: false };
    case "boolean":
      return { text: "a boolean", oneOf: false };
    case "object":
      return { text: "an object", oneOf: false };
    case "array":
      return { text: recordOf(node["items"])["type"] === "string" ? "an array of strings" : "an array", oneOf: false };
    case "null":
      return { text: "null", oneOf: false };
    default:
      return { text: "valid", oneOf: false };
  }
}

/** The `x-error` a failure of this value finds: on the node, else on a union around it (innermost first). */
function annotation(nodes: readonly SchemaNode[], keyword: string): string | null {
  for (let index = nodes.length - 1; index >= 0; index--) {
    const message = nodes[index]?.[ERROR_MESSAGE_KEY];
    if (typeof message === "string") return message;
    if (isRecord(message)) {
      const found = message[keyword] ?? (keyword === "required" ? message["type"] : undefined) ?? message["default"];
      if (typeof found === "string") return found;
    }
  }
  return null;
}

function filled(message: string, value: unknown): string {
  return message.replace(/\{type\}/g, describeValue(value)).replace(/\{json\}/g, () => String(JSON.stringify(value)));
}

/** The value is not what the node is (wrong type, not one of the constants, missing). */
function mismatch(nodes: readonly SchemaNode[], value: unknown, at: readonly Segment[], keyword: string): Failure {
  const message = annotation(nodes, keyword);
  if (message !== null) return { at, reason: filled(message, value) };
  const expected = expectationOf(nodes[nodes.length - 1] ?? {});
  const got = expected.oneOf && typeof value === "string" ? JSON.stringify(value) : describeValue(value);
  return { at, reason: `must be ${expected.text} (got ${got})` };
}

const MISMATCH_KEYWORDS = new Set(["type", "const", "enum"]);

/** A failure TypeBox reports on the node itself: a mismatch, or a rule (`minLength`, `pattern`, `not`, `anyOf`...). */
function ownFailure(nodes: readonly SchemaNode[], value: unknown, at: readonly Segment[]): Failure {
  const [error] = ownErrors(nodes[nodes.length - 1] ?? {}, value);
  if (error === undefined) return { at, reason: "is invalid" };
  if (MISMATCH_KEYWORDS.has(error.keyword)) return mismatch(nodes, value, at, error.keyword);
  return { at, reason: filled(annotation(nodes, error.keyword) ?? error.message, value) };
}

/** A property every branch has as a constant, with a different constant in each: what tells the branches apart. */
function discriminantOf(branches: readonly SchemaNode[]): string | null {
  const [first] = branches;
  if (first === undefined || branches.length < 2) return null;
  for (const key of Object.keys(recordOf(first["properties"]))) {
    const constants = branches.map((branch) => recordOf(recordOf(branch["properties"])[key])["const"]);
    if (constants.every((constant) => constant !== undefined) && new Set(constants).size === branches.length) return key;
  }
  return null;
}

function fitsType(node: SchemaNode, value: unknown): boolean {
  const type = node["type"];
  if (type === undefined) return true;
  if (type === "array") return Array.isArray(value);
  if (type === "object") return isRecord(value);
  if (type === "null") return value === null;
  if (type === "integer") return typeof value === "number";
  return typeof value === type;
}

function unionFailure(nodes: readonly SchemaNode[], value: unknown, at: readonly Segment[]): Failure {
  const node = nodes[nodes.length - 1] ?? {};
  if (constantsOf(node) !== null) return mismatch(nodes, value, at, "anyOf");
  let branches = branchesOf(node).filter((branch) => value === null || !isNull(branch));
  const key = discriminantOf(branches);
  if (key !== null && isRecord(value)) {
    const matching = branches.filter((branch) => recordOf(recordOf(branch["properties"])[key])["const"] === value[key]);
    if (matching.length === 0) {
      // Fields the branches declare before the discriminant are read first, as a hand-written check reads them.
      return objectFieldFailure(fieldsBefore(branches[0], key), value, at) ?? discriminantFailure(branches, key, value, at);
    }
    branches = matching;
  }
  const chosen = branches.find((branch) => fitsType(branch, value)) ?? branches[0];
  return chosen === undefined ? ownFailure(nodes, value, at) : failureAt([...nodes, chosen], value, at);
}

/** The branch with only the properties it declares before `key`. */
function fieldsBefore(branch: SchemaNode | undefined, key: string): SchemaNode {
  const properties = Object.entries(recordOf(branch?.["properties"]));
  const before = properties.slice(
    0,
    properties.findIndex(([name]) => name === key),
  );
  const required = Array.isArray(branch?.["required"]) ? (branch["required"] as unknown[]) : [];
  return { properties: Object.fromEntries(before), required: before.map(([name]) => name).filter((name) => required.includes(name)) };
}

/** No branch has the value's discriminant: told at the discriminant, with the first branch's words for it. */
function discriminantFailure(
  branches: readonly SchemaNode[],
  key: string,
  value: Record<string, unknown>,
  at: readonly Segment[],
): Failure {
  const discriminants = branches.map((branch) => recordOf(recordOf(branch["properties"])[key]));
  const union = { anyOf: discriminants, ...pickAnnotation(discriminants[0]) };
  return mismatch([union], value[key], [...at, key], Object.hasOwn(value, key) ? "const" : "required");
}

function pickAnnotation(node: SchemaNode | undefined): SchemaNode {
  return node !== undefined && ERROR_MESSAGE_KEY in node ? { [ERROR_MESSAGE_KEY]: node[ERROR_MESSAGE_KEY] } : {};
}

/** The first failing field of an object, in declared order (a missing required one where it is declared). */
function objectFieldFailure(node: SchemaNode, value: Record<string, unknown>, at: readonly Segment[]): Failure | null {
  const required = Array.isArray(node["required"]) ? (node["required"] as unknown[]) : [];
  for (const [key, property] of Object.entries(recordOf(node["properties"]))) {
    const child = recordOf(property);
    if (!Object.hasOwn(value, key)) {
      if (required.includes(key)) return failureAt([child], undefined, [...at, key]);
      continue;
    }
    if (!passes(child, value[key])) return failureAt([child], value[key], [...at, key]);
  }
  return null;
}

const shapes = new WeakMap<object, SchemaNode>();

/** The object's `oneOf` alone: which of its shapes the value is (the fields present), read before the fields. */
function shapeOf(node: SchemaNode): SchemaNode | null {
  const oneOf = node["oneOf"];
  if (!Array.isArray(oneOf)) return null;
  let shape = shapes.get(oneOf);
  if (shape === undefined) {
    shape = { oneOf };
    shapes.set(oneOf, shape);
  }
  return shape;
}

function objectFailure(nodes: readonly SchemaNode[], value: Record<string, unknown>, at: readonly Segment[]): Failure {
  const node = nodes[nodes.length - 1] ?? {};
  const properties = recordOf(node["properties"]);
  if (node["additionalProperties"] === false) {
    const unknown = Object.keys(value).filter((key) => !Object.hasOwn(properties, key));
    if (unknown.length > 0)
      return { at, reason: filled(annotation(nodes, "additionalProperties") ?? `has unknown field(s): ${unknown.join(", ")}`, value) };
  }
  const shape = shapeOf(node);
  if (shape !== null && !passes(shape, value))
    return { at, reason: filled(annotation(nodes, "oneOf") ?? "must match exactly one shape", value) };
  return objectFieldFailure(node, value, at) ?? ownFailure(nodes, value, at);
}

function arrayFailure(nodes: readonly SchemaNode[], value: readonly unknown[], at: readonly Segment[]): Failure {
  const items = recordOf((nodes[nodes.length - 1] ?? {})["items"]);
  for (let index = 0; index < value.length; index++) {
    if (!passes(items, value[index])) return failureAt([items], value[index], [...at, index]);
  }
  return ownFailure(nodes, value, at);
}

/** The first failure of `value` against the last of `nodes` (the others: unions around it, same value). */
function failureAt(nodes: readonly SchemaNode[], value: unknown, at: readonly Segment[]): Failure {
  const node = nodes[nodes.length - 1] ?? {};
  if (isUnion(node)) return unionFailure(nodes, value, at);
  if (!fitsType(node, value)) return mismatch(nodes, value, at, "type");
  if (node["type"] === "object" && isRecord(value)) return objectFailure(nodes, value, at);
  if (node["type"] === "array" && Array.isArray(value)) return arrayFailure(nodes, value, at);
  return ownFailure(nodes, value, at);
}

function pathText(at: readonly Segment[]): string {
  return at.map((segment) => (typeof segment === "number" ? `[${segment}]` : `.${segment}`)).join("");
}

/** `<part><path> <reason>` for a value that fails `schema`. */
export function pathFailureMessage(schema: TSchema, value: unknown, part: string): string {
  const failure = failureAt([schema as SchemaNode], value, []);
  return `${part}${pathText(failure.at)} ${failure.reason}`;
}
