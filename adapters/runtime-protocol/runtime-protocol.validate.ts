/**
 * Validators for every runtime IPC message, used on BOTH sides: the worker validates what the control plane
 * sends (`parseControlMessage`), the control plane validates what a worker sends (`parseWorkerMessage`).
 * The checks are the schemas of domain/contract/worker-ipc.ts, compiled once; a rejected message is told the
 * field and why ("prompt.images[0].mimeType must be a string (got undefined)", path-failure.ts).
 *
 * Every message is first checked by the one compiled checker of its type; only a message that fails is checked
 * again, step by step, for its reason. A request is told in two names: the message for its envelope (its id,
 * type, and which fields it may carry: "message has unknown field(s): force") and the request for its payload
 * ("prompt.text must be a string (got undefined)").
 */
import { type ContractChecker, contractChecker } from "../../domain/contract/contract-check.ts";
import { describeValue } from "../../domain/contract/path-failure.ts";
import { Type, type TSchema } from "../../domain/contract/schema-kit.ts";
import { ControlEnvelope, FauxTurnReply, RuntimeRequests, RuntimeSnapshot, WorkerMessages } from "../../domain/contract/worker-ipc.ts";
import type { Checked, ControlMessage, RuntimeRequestType, WorkerMessage } from "./runtime-protocol.ts";

function fail<T>(error: string): Checked<T> {
  return { ok: false, error };
}

const path = { style: "path" } as const;

/** The fields a request may carry, whatever their values: its `properties`, nothing else. */
function fieldsOf(schema: TSchema): TSchema {
  const properties = Object.keys((schema as { properties?: object }).properties ?? {});
  return Type.Object(Object.fromEntries(properties.map((key) => [key, Type.Optional(Type.Unknown())])), { additionalProperties: false });
}

interface RequestCheckers {
  readonly request: ContractChecker<TSchema>;
  readonly fields: ContractChecker<TSchema>;
}

const envelope = contractChecker(ControlEnvelope, "message", path);

const requests = new Map<unknown, RequestCheckers>(
  Object.entries(RuntimeRequests).map(([type, schema]) => [
    type,
    { request: contractChecker(schema, type, path), fields: contractChecker(fieldsOf(schema), "message", path) },
  ]),
);

const fauxTurnReply = contractChecker(FauxTurnReply, "message", path);

export const RUNTIME_REQUEST_TYPES = Object.keys(RuntimeRequests) as RuntimeRequestType[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The checker for the message's `type` (none for a value without a known one). */
function checkerOf<C>(checkers: ReadonlyMap<unknown, C>, value: unknown): C | undefined {
  return typeof value === "object" && value !== null ? checkers.get((value as { type?: unknown }).type) : undefined;
}

/** The string `id` of a message, if it has one (so a rejected request can still get a reply). */
export function messageIdOf(value: unknown): string | null {
  return isRecord(value) && typeof value["id"] === "string" && value["id"] !== "" ? value["id"] : null;
}

export function parseControlMessage(value: unknown): Checked<ControlMessage> {
  const checkers = checkerOf(requests, value);
  if (checkers?.request.is(value) ?? fauxTurnReply.is(value)) return { ok: true, value: value as ControlMessage };
  if (!isRecord(value)) return fail(`message must be an object (got ${describeValue(value)})`);
  const type = value["type"];
  const error =
    envelope.failure(value)?.message ??
    (type === "faux_turn_reply"
      ? fauxTurnReply.failure(value)?.message
      : checkers === undefined
        ? `unknown request type ${JSON.stringify(type)}`
        : (checkers.fields.failure(value) ?? checkers.request.failure(value))?.message);
  return fail(error ?? "message is invalid");
}

const workerMessages = new Map<unknown, ContractChecker<TSchema>>(
  Object.entries(WorkerMessages).map(([type, schema]) => [type, contractChecker(schema, "message", path)]),
);
const snapshot = contractChecker(RuntimeSnapshot, "snapshot", path);

/** Why `value` is not a runtime snapshot, or null when it is one. */
export function checkRuntimeSnapshot(value: unknown): string | null {
  return snapshot.failure(value)?.message ?? null;
}

export function parseWorkerMessage(value: unknown): Checked<WorkerMessage> {
  const checker = checkerOf(workerMessages, value);
  if (checker?.is(value)) return { ok: true, value: value as WorkerMessage };
  if (!isRecord(value)) return fail(`message must be an object (got ${describeValue(value)})`);
  const type = value["type"];
  if (checker === undefined)
    return fail(`unknown worker message type ${typeof type === "string" ? JSON.stringify(type) : describeValue(type)}`);
  return fail(checker.failure(value)?.message ?? "message is invalid");
}
