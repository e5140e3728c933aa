/**
 * Validators for every runtime IPC message, used on BOTH sides: the worker validates what the control plane
 * sends (`parseControlMessage`), the control plane validates what a worker sends (`parseWorkerMessage`).
 * Unknown types, missing or mistyped fields and unknown fields are rejected with a message naming the field.
 */
import { checkSubagentMarkerData } from "../../domain/subagent/subagent-marker.ts";
import { checkFauxTurn } from "./faux-script.ts";
import {
  type Checked,
  type JsonRecord,
  checkBoolean,
  checkNoExtraKeys,
  checkNumber,
  checkOneOf,
  checkOptionalBoolean,
  checkOptionalNumber,
  checkOptionalString,
  checkString,
  checkStringArray,
  describe,
  fail,
  firstError,
  isRecord,
} from "./json-guards.ts";
import {
  type ControlMessage,
  DIALOG_METHODS,
  MODEL_AUTH_KINDS,
  type RuntimeRequestType,
  type RuntimeSnapshot,
  SESSION_KINDS,
  THINKING_LEVELS,
  type WorkerMessage,
} from "./runtime-protocol.ts";

type PayloadCheck = (record: JsonRecord, path: string) => string | null;

function checkImages(record: JsonRecord, path: string): string | null {
  const images = record["images"];
  if (images === undefined) return null;
  if (!Array.isArray(images)) return `${path}.images must be an array (got ${describe(images)})`;
  for (let index = 0; index < images.length; index++) {
    const image: unknown = images[index];
    const at = `${path}.images[${index}]`;
    if (!isRecord(image)) return `${at} must be an object`;
    const error = firstError(
      checkNoExtraKeys(image, at, ["type", "data", "mimeType"]),
      checkOneOf(image, "type", at, ["image"]),
      checkString(image, "data", at),
      checkString(image, "mimeType", at, { nonEmpty: true }),
    );
    if (error) return error;
  }
  return null;
}

function checkOpenOptions(record: JsonRecord, path: string): string | null {
  const options = record["options"];
  if (options === undefined) return null;
  const at = `${path}.options`;
  if (!isRecord(options)) return `${at} must be an object`;
  const error = firstError(
    checkNoExtraKeys(options, at, ["agentDir", "extensionPaths", "tools", "faux", "heartbeatMs", "apiUrl"]),
    checkOptionalString(options, "agentDir", at),
    checkOptionalString(options, "apiUrl", at),
    checkStringArray(options, "extensionPaths", at, true),
    checkStringArray(options, "tools", at, true),
    checkOptionalNumber(options, "heartbeatMs", at),
  );
  if (error) return error;
  const faux = options["faux"];
  if (faux === undefined) return null;
  if (!isRecord(faux)) return `${at}.faux must be an object`;
  return firstError(
    checkNoExtraKeys(faux, `${at}.faux`, ["tokensPerSecond", "tokenSize"]),
    checkOptionalNumber(faux, "tokensPerSecond", `${at}.faux`),
    checkOptionalNumber(faux, "tokenSize", `${at}.faux`),
  );
}

function checkChild(target: JsonRecord, path: string): string | null {
  const child = target["child"];
  if (child === undefined) return null;
  const at = `${path}.child`;
  if (!isRecord(child)) return `${at} must be an object`;
  const model = child["model"];
  const error = firstError(
    checkNoExtraKeys(child, at, ["parentSession", "marker", "systemPrompt", "model", "thinkingLevel", "tools", "excludeTools"]),
    child["parentSession"] === undefined ? null : checkString(child, "parentSession", at, { nonEmpty: true }),
    checkSubagentMarkerData(child["marker"], `${at}.marker`),
    checkOptionalString(child, "systemPrompt", at),
    model === undefined
      ? null
      : isRecord(model)
        ? firstError(
            checkNoExtraKeys(model, `${at}.model`, ["provider", "id"]),
            checkString(model, "provider", `${at}.model`, { nonEmpty: true }),
            checkString(model, "id", `${at}.model`, { nonEmpty: true }),
          )
        : `${at}.model must be an object`,
    checkOneOf(child, "thinkingLevel", at, THINKING_LEVELS, true),
    checkStringArray(child, "tools", at, true),
    checkStringArray(child, "excludeTools", at, true),
  );
  if (error) return error;
  if (child["tools"] !== undefined && child["excludeTools"] !== undefined) return `${at} cannot have both tools and excludeTools`;
  return null;
}

function checkOpen(record: JsonRecord, path: string): string | null {
  const hasFile = record["sessionFile"] !== undefined;
  const target = record["new"];
  if (hasFile === (target !== undefined)) return `${path} needs exactly one of sessionFile or new`;
  if (hasFile) return firstError(checkString(record, "sessionFile", path, { nonEmpty: true }), checkOpenOptions(record, path));
  if (!isRecord(target)) return `${path}.new must be an object`;
  return firstError(
    checkNoExtraKeys(target, `${path}.new`, ["cwd", "kind", "child", "sessionId"]),
    checkString(target, "cwd", `${path}.new`, { nonEmpty: true }),
    // It becomes part of the file name: letters, digits, - and _ only (pi's ids are UUIDs).
    target["sessionId"] === undefined || (typeof target["sessionId"] === "string" && /^[A-Za-z0-9_-]{1,128}$/.test(target["sessionId"]))
      ? null
      : `${path}.new.sessionId must be 1-128 letters, digits, - or _`,
    checkOneOf(target, "kind", `${path}.new`, SESSION_KINDS, true),
    checkChild(target, `${path}.new`),
    checkOpenOptions(record, path),
  );
}

const noPayload: PayloadCheck = () => null;
const textAndImages: PayloadCheck = (r, p) => firstError(checkString(r, "text", p), checkImages(r, p));

/** Payload checks and allowed keys (besides id and type) per request type. */
const REQUESTS: Record<RuntimeRequestType, { keys: readonly string[]; check: PayloadCheck }> = {
  open: { keys: ["sessionFile", "new", "options"], check: checkOpen },
  prompt: {
    keys: ["text", "images", "streamingBehavior", "awaitCompletion"],
    check: (r, p) =>
      firstError(
        textAndImages(r, p),
        checkOneOf(r, "streamingBehavior", p, ["steer", "followUp"], true),
        checkOptionalBoolean(r, "awaitCompletion", p),
      ),
  },
  steer: { keys: ["text", "images"], check: textAndImages },
  followUp: { keys: ["text", "images"], check: textAndImages },
  abort: { keys: [], check: noPayload },
  clearQueue: { keys: [], check: noPayload },
  compact: { keys: ["customInstructions"], check: (r, p) => checkOptionalString(r, "customInstructions", p) },
  setModel: {
    keys: ["provider", "modelId"],
    check: (r, p) => firstError(checkString(r, "provider", p, { nonEmpty: true }), checkString(r, "modelId", p, { nonEmpty: true })),
  },
  setThinkingLevel: { keys: ["level"], check: (r, p) => checkOneOf(r, "level", p, THINKING_LEVELS) },
  bash: {
    keys: ["command", "excludeFromContext"],
    check: (r, p) => firstError(checkString(r, "command", p, { nonEmpty: true }), checkOptionalBoolean(r, "excludeFromContext", p)),
  },
  reload: { keys: [], check: noPayload },
  navigateTree: {
    keys: ["targetId", "summarize", "customInstructions", "replaceInstructions", "label"],
    check: (r, p) =>
      firstError(
        checkString(r, "targetId", p, { nonEmpty: true }),
        checkOptionalBoolean(r, "summarize", p),
        checkOptionalString(r, "customInstructions", p),
        checkOptionalBoolean(r, "replaceInstructions", p),
        checkOptionalString(r, "label", p),
      ),
  },
  fork: {
    keys: ["entryId", "position"],
    check: (r, p) => firstError(checkString(r, "entryId", p, { nonEmpty: true }), checkOneOf(r, "position", p, ["before", "at"], true)),
  },
  newSession: { keys: [], check: noPayload },
  switchSession: { keys: ["sessionFile"], check: (r, p) => checkString(r, "sessionFile", p, { nonEmpty: true }) },
  setSessionName: { keys: ["name"], check: (r, p) => checkString(r, "name", p) },
  extensionUiReply: {
    keys: ["requestId", "confirmed", "value", "cancelled"],
    check: (r, p) =>
      firstError(
        checkString(r, "requestId", p, { nonEmpty: true }),
        checkOptionalBoolean(r, "confirmed", p),
        checkOptionalString(r, "value", p),
        checkOptionalBoolean(r, "cancelled", p),
      ),
  },
  snapshot: { keys: [], check: noPayload },
  preload: { keys: [], check: noPayload },
  dispose: { keys: [], check: noPayload },
};

export const RUNTIME_REQUEST_TYPES = Object.keys(REQUESTS) as RuntimeRequestType[];

/** The string `id` of a message, if it has one (so a rejected request can still get a reply). */
export function messageIdOf(value: unknown): string | null {
  return isRecord(value) && typeof value["id"] === "string" && value["id"] !== "" ? value["id"] : null;
}

export function parseControlMessage(value: unknown): Checked<ControlMessage> {
  const path = "message";
  if (!isRecord(value)) return fail(`${path} must be an object (got ${describe(value)})`);
  const type = value["type"];
  if (typeof type !== "string") return fail(`${path}.type must be a string (got ${describe(type)})`);
  const idError = checkString(value, "id", path, { nonEmpty: true });
  if (idError) return fail(idError);
  if (type === "faux_turn_reply") {
    const turn = value["turn"];
    const error = firstError(
      checkNoExtraKeys(value, path, ["type", "id", "turn"]),
      turn === null ? null : checkFauxTurn(turn, `${path}.turn`),
    );
    return error ? fail(error) : { ok: true, value: value as ControlMessage };
  }
  if (!Object.hasOwn(REQUESTS, type)) return fail(`unknown request type ${JSON.stringify(type)}`);
  const spec = REQUESTS[type as RuntimeRequestType];
  const error = firstError(checkNoExtraKeys(value, path, ["id", "type", ...spec.keys]), spec.check(value, `${type}`));
  return error ? fail(error) : { ok: true, value: value as ControlMessage };
}

function checkModelInfo(value: unknown, path: string): string | null {
  if (!isRecord(value)) return `${path} must be an object`;
  return firstError(
    checkString(value, "provider", path),
    checkString(value, "id", path),
    checkString(value, "name", path),
    checkBoolean(value, "reasoning", path),
    checkStringArray(value, "availableThinkingLevels", path),
    checkOneOf(value, "authKind", path, MODEL_AUTH_KINDS, true),
  );
}

function checkModelRef(value: unknown, path: string): string | null {
  if (!isRecord(value)) return `${path} must be an object`;
  return firstError(checkNoExtraKeys(value, path, ["provider", "id"]), checkString(value, "provider", path), checkString(value, "id", path));
}

/** `notices` of a snapshot (optional): RuntimeNotice records (domain/runtime/runtime-types.ts). */
function checkNotices(value: unknown, path: string): string | null {
  if (value === undefined) return null;
  if (!Array.isArray(value)) return `${path} must be an array (got ${describe(value)})`;
  for (let index = 0; index < value.length; index++) {
    const notice: unknown = value[index];
    const at = `${path}[${index}]`;
    if (!isRecord(notice)) return `${at} must be an object`;
    const kind = notice["kind"];
    const error =
      kind === "model-fallback"
        ? firstError(
            checkNoExtraKeys(notice, at, ["kind", "message", "requested", "used"]),
            checkString(notice, "message", at),
            checkModelRef(notice["requested"], `${at}.requested`),
            notice["used"] === null ? null : checkModelRef(notice["used"], `${at}.used`),
          )
        : kind === "file-upgraded"
          ? firstError(
              checkNoExtraKeys(notice, at, ["kind", "message", "fromVersion", "backupPath"]),
              checkString(notice, "message", at),
              checkNumber(notice, "fromVersion", at),
              checkString(notice, "backupPath", at),
            )
          : `${at}.kind must be "model-fallback" or "file-upgraded" (got ${describe(kind)})`;
    if (error) return error;
  }
  return null;
}

export function checkRuntimeSnapshot(value: unknown, path = "snapshot"): string | null {
  if (!isRecord(value)) return `${path} must be an object (got ${describe(value)})`;
  const queued = value["queuedMessages"];
  const models = value["availableModels"];
  return firstError(
    checkNumber(value, "revision", path),
    checkString(value, "sessionId", path),
    value["sessionFile"] === null ? null : checkString(value, "sessionFile", path),
    checkString(value, "cwd", path),
    value["model"] === null ? null : checkModelInfo(value["model"], `${path}.model`),
    Array.isArray(models)
      ? firstError(...models.map((model, index) => checkModelInfo(model, `${path}.availableModels[${index}]`)))
      : `${path}.availableModels must be an array`,
    checkString(value, "thinkingLevel", path),
    checkStringArray(value, "availableThinkingLevels", path),
    checkBoolean(value, "isStreaming", path),
    checkBoolean(value, "isCompacting", path),
    checkStringArray(value, "pendingToolCalls", path),
    isRecord(queued)
      ? firstError(checkStringArray(queued, "steering", `${path}.queuedMessages`), checkStringArray(queued, "followUp", `${path}.queuedMessages`))
      : `${path}.queuedMessages must be an object`,
    checkStringArray(value, "activeToolNames", path),
    Array.isArray(value["slashCommands"]) ? null : `${path}.slashCommands must be an array`,
    checkNotices(value["notices"], `${path}.notices`),
  );
}

export function isRuntimeSnapshot(value: unknown): value is RuntimeSnapshot {
  return checkRuntimeSnapshot(value) === null;
}

function checkExtensionUiRequest(value: unknown, path: string): string | null {
  if (!isRecord(value)) return `${path} must be an object`;
  const method = value["method"];
  const dialog = (DIALOG_METHODS as readonly unknown[]).includes(method);
  const timeout = value["timeoutMs"] === null ? null : checkNumber(value, "timeoutMs", path);
  const nullableString = (key: string): string | null => (value[key] === null ? null : checkString(value, key, path));
  switch (method) {
    case "confirm":
      return firstError(checkString(value, "requestId", path, { nonEmpty: true }), checkString(value, "title", path), checkString(value, "message", path), timeout);
    case "select":
      return firstError(checkString(value, "requestId", path, { nonEmpty: true }), checkString(value, "title", path), checkStringArray(value, "options", path), timeout);
    case "input":
      return firstError(checkString(value, "requestId", path, { nonEmpty: true }), checkString(value, "title", path), nullableString("placeholder"), timeout);
    case "editor":
      return firstError(checkString(value, "requestId", path, { nonEmpty: true }), checkString(value, "title", path), nullableString("prefill"), timeout);
    case "dismiss":
      return firstError(checkString(value, "requestId", path, { nonEmpty: true }), checkOneOf(value, "reason", path, ["timeout", "aborted", "replaced", "disposed"]));
    case "notify":
      return firstError(checkString(value, "message", path), checkOneOf(value, "level", path, ["info", "warning", "error"]));
    case "setStatus":
      return firstError(checkString(value, "key", path), nullableString("text"));
    case "setWidget":
      return firstError(
        checkString(value, "key", path),
        value["lines"] === null ? null : checkStringArray(value, "lines", path),
        value["placement"] === null ? null : checkOneOf(value, "placement", path, ["aboveEditor", "belowEditor"]),
      );
    case "setTitle":
      return checkString(value, "title", path);
    default:
      return dialog ? null : `${path}.method is not a known extension UI method (got ${JSON.stringify(method)})`;
  }
}

export function parseWorkerMessage(value: unknown): Checked<WorkerMessage> {
  const path = "message";
  if (!isRecord(value)) return fail(`${path} must be an object (got ${describe(value)})`);
  const type = value["type"];
  let error: string | null;
  switch (type) {
    case "ready":
      error = firstError(checkNumber(value, "protocolVersion", path), checkNumber(value, "pid", path));
      break;
    case "reply":
      error = firstError(
        checkString(value, "id", path, { nonEmpty: true }),
        checkBoolean(value, "ok", path),
        value["ok"] === false ? checkString(value, "error", path) : null,
      );
      break;
    case "event": {
      const event = value["event"];
      error = isRecord(event) ? checkString(event, "type", `${path}.event`) : `${path}.event must be an object`;
      break;
    }
    case "snapshot":
      error = checkRuntimeSnapshot(value["snapshot"], `${path}.snapshot`);
      break;
    case "extension_ui":
      error = checkExtensionUiRequest(value["request"], `${path}.request`);
      break;
    case "extension_error": {
      const inner = value["error"];
      error = isRecord(inner)
        ? firstError(checkString(inner, "extensionPath", `${path}.error`), checkString(inner, "event", `${path}.error`), checkString(inner, "error", `${path}.error`))
        : `${path}.error must be an object`;
      break;
    }
    case "heartbeat":
      error = firstError(checkNumber(value, "seq", path), checkNumber(value, "at", path), checkBoolean(value, "isStreaming", path));
      break;
    case "fault":
      error = firstError(
        checkOneOf(value, "kind", path, ["protocol", "uncaughtException", "unhandledRejection", "runtime"]),
        checkString(value, "message", path),
        checkBoolean(value, "fatal", path),
      );
      break;
    case "faux_turn_request":
      error = firstError(checkString(value, "id", path, { nonEmpty: true }), checkString(value, "latestUserText", path));
      break;
    default:
      error = `unknown worker message type ${typeof type === "string" ? JSON.stringify(type) : describe(type)}`;
  }
  return error ? fail(error) : { ok: true, value: value as WorkerMessage };
}
