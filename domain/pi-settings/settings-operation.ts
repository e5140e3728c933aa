/**
 * Pi Settings operations (spec "Settings operations", "Settings errors"): the private, polled state of the
 * provider and MCP actions, as a decider over every operation the backend holds. `decide(command, state)`
 * returns events or a typed error, `evolve(state, event)` applies one event, `snapshotOf(record)` is the public
 * `SettingsOperation`. Pure: the clock and ids arrive in commands, the limits in the state; timers, abort
 * signals, pending prompts and the work itself belong to adapters/pi-settings/settings-operations.ts; the types,
 * limits and messages are settings-operation-types.ts's.
 *
 * Rules kept here:
 * - at most `maxActive` (8) active operations (running or cancelling), and one active operation per key
 *   (`provider:openai`, `mcp-url:https://x/mcp`);
 * - an operation is cancelled at its deadline: its own `deadlineMs`, never later than the cap (ten minutes);
 * - events keep the last 20; public links (info links, authorization URLs, verification URIs) must be HTTP(S)
 *   without credentials, else the link (or the auth_url / device_code event) is dropped;
 * - an answer names the current prompt, is a string of at most 32,768 characters, and for a select prompt an
 *   offered option id; submitted non-select values are redacted from every text of the snapshot;
 * - cancel moves running → cancelling (prompt withdrawn, events cleared); the work ending then gives
 *   `cancelled` whatever its outcome; terminal states are absorbing;
 * - terminal cleanup drops the prompt, auth_url and device_code events and info links; the terminal snapshot
 *   expires `retentionMs` (one minute) after it.
 */
import type { ErrorCode } from "../contract/error-codes.ts";
import type { SettingsEvent, SettingsOperation, SettingsPrompt } from "../contract/http-pi-settings.ts";
import { isPublicLink, redactSecrets, redactStrings } from "./redaction.ts";
import {
  DEFAULT_SETTINGS_OPERATION_LIMITS,
  MAX_SETTINGS_ANSWER_LENGTH,
  MAX_SETTINGS_EVENTS,
  SETTINGS_OPERATION_MESSAGES,
  type SettingsNotice,
  type SettingsOperationCommand,
  type SettingsOperationDecision,
  type SettingsOperationEvent,
  type SettingsOperationLimits,
  type SettingsOperationRecord,
  type SettingsOperationsState,
  type SettingsOperationStatus,
  type SettingsPromptRequest,
} from "./settings-operation-types.ts";

// ---------------------------------------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------------------------------------

export function initialState(limits: SettingsOperationLimits = DEFAULT_SETTINGS_OPERATION_LIMITS): SettingsOperationsState {
  return { limits: { ...limits }, operations: {} };
}

export function isActiveStatus(status: SettingsOperationStatus): boolean {
  return status === "running" || status === "cancelling";
}

export function activeOperations(state: SettingsOperationsState): SettingsOperationRecord[] {
  return Object.values(state.operations).filter((record) => isActiveStatus(record.status));
}

function accept(events: SettingsOperationEvent[]): SettingsOperationDecision {
  return { ok: true, events };
}

function reject(code: ErrorCode, message: string): SettingsOperationDecision {
  return { ok: false, error: { code, message } };
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** The objects of a list the work passed (pi's types promise them; a fold must not throw when they lie). */
function objects<T extends object>(list: readonly T[] | undefined): T[] {
  return Array.isArray(list) ? list.filter((item): item is T => item !== null && typeof item === "object") : [];
}

function promptOf(request: SettingsPromptRequest, id: string): SettingsPrompt | null {
  switch (request.type) {
    case "select":
      return {
        id,
        type: "select",
        message: text(request.message),
        placeholder: "",
        options: objects(request.options).map((option) => ({
          id: text(option.id),
          label: text(option.label),
          description: text(option.description),
        })),
      };
    case "text":
    case "secret":
    case "manual_code":
      return { id, type: request.type, message: text(request.message), placeholder: text(request.placeholder) };
    default:
      return null;
  }
}

/** The public event of a notice, or null when it has nothing safe to show. */
export function settingsEventOf(notice: SettingsNotice): SettingsEvent | null {
  switch (notice.type) {
    case "auth_url":
      return typeof notice.url === "string" && isPublicLink(notice.url)
        ? { type: "auth_url", url: notice.url, instructions: text(notice.instructions) }
        : null;
    case "device_code": {
      if (typeof notice.verificationUri !== "string" || !isPublicLink(notice.verificationUri)) return null;
      const expires = notice.expiresInSeconds;
      return {
        type: "device_code",
        verificationUri: notice.verificationUri,
        userCode: text(notice.userCode),
        ...(typeof expires === "number" && Number.isFinite(expires) ? { expiresInSeconds: expires } : {}),
      };
    }
    case "info": {
      const links = objects(notice.links)
        .filter((link) => typeof link.url === "string" && isPublicLink(link.url))
        .map((link) => ({ url: link.url, label: text(link.label) || link.url }));
      const level = "level" in notice ? text(notice.level) : "";
      return { type: "info", message: text(notice.message), level: level || "info", ...(links.length > 0 ? { links } : {}) };
    }
    case "progress":
      return { type: "info", message: text(notice.message), level: "info" };
    default:
      return null;
  }
}

/** The values a non-select answer makes secret: itself and, when different, its trimmed form. */
/**
 * What of an answer is redacted from later text: the value and its trimmed form, from MIN_REDACTED_ANSWER
 * characters on. A shorter answer ("y", a space) would blank those characters out of every message without
 * protecting anything a key or a code would need.
 */
const MIN_REDACTED_ANSWER = 4;

function secretsOf(value: string): string[] {
  return [...new Set([value, value.trim()])].filter((secret) => secret.length >= MIN_REDACTED_ANSWER);
}

function decideStart(
  command: Extract<SettingsOperationCommand, { type: "start" }>,
  state: SettingsOperationsState,
): SettingsOperationDecision {
  if (state.operations[command.id]) return reject("internal", `Duplicate settings operation id ${command.id}`);
  const active = activeOperations(state);
  if (active.some((record) => record.key === command.key)) return reject("conflict", SETTINGS_OPERATION_MESSAGES.duplicate);
  if (active.length >= state.limits.maxActive) return reject("too_many_operations", SETTINGS_OPERATION_MESSAGES.tooMany);
  const ownDeadline = command.deadlineMs;
  const budget = ownDeadline !== undefined && ownDeadline > 0 ? Math.min(ownDeadline, state.limits.capMs) : state.limits.capMs;
  return accept([{ type: "operationStarted", id: command.id, key: command.key, startedAt: command.now, deadlineAt: command.now + budget }]);
}

function decideAnswer(
  command: Extract<SettingsOperationCommand, { type: "answer" }>,
  record: SettingsOperationRecord,
): SettingsOperationDecision {
  const { value } = command;
  // The body's shape first, as the route's schema does: a bad value is a 400 whatever the prompt id.
  if (typeof value !== "string" || value.length > MAX_SETTINGS_ANSWER_LENGTH) {
    return reject("invalid_request", SETTINGS_OPERATION_MESSAGES.invalidResponse);
  }
  const prompt = record.prompt;
  if (record.status !== "running" || prompt === null || prompt.id !== command.promptId) {
    return reject("conflict", SETTINGS_OPERATION_MESSAGES.stalePrompt);
  }
  if (prompt.type === "select") {
    if (!(prompt.options ?? []).some((option) => option.id === value)) {
      return reject("invalid_request", SETTINGS_OPERATION_MESSAGES.unavailableOption);
    }
    return accept([{ type: "promptAnswered", id: record.id, promptId: prompt.id, secrets: [] }]);
  }
  return accept([{ type: "promptAnswered", id: record.id, promptId: prompt.id, secrets: secretsOf(value) }]);
}

/** The work ended: its outcome while running, `workCancelled` while cancelling, nothing once terminal. */
function ending(record: SettingsOperationRecord, now: number, outcome: SettingsOperationEvent): SettingsOperationDecision {
  if (record.status === "running") return accept([outcome]);
  if (record.status === "cancelling") return accept([{ type: "workCancelled", id: record.id, now }]);
  return accept([]);
}

/** A rejected command changes nothing; an accepted one may emit no events (a repeated cancel, a late notice). */
export function decide(command: SettingsOperationCommand, state: SettingsOperationsState): SettingsOperationDecision {
  if (command.type === "start") return decideStart(command, state);
  const record = state.operations[command.id];
  if (!record) return reject("settings_not_found", SETTINGS_OPERATION_MESSAGES.expired);
  const id = record.id;
  switch (command.type) {
    case "showPrompt": {
      if (record.status !== "running") return reject("conflict", SETTINGS_OPERATION_MESSAGES.notRunning);
      const prompt = promptOf(command.prompt, `prompt-${record.promptCount + 1}`);
      if (prompt === null) return reject("invalid_request", "Unsupported prompt type.");
      return accept([{ type: "promptShown", id, prompt }]);
    }
    case "withdrawPrompt":
      return accept(record.prompt?.id === command.promptId ? [{ type: "promptWithdrawn", id, promptId: command.promptId }] : []);
    case "answer":
      return decideAnswer(command, record);
    case "notify": {
      const event = record.status === "running" ? settingsEventOf(command.notice) : null;
      return accept(event ? [{ type: "eventNotified", id, event }] : []);
    }
    case "cancel":
      return accept(record.status === "running" ? [{ type: "cancelRequested", id, reason: command.reason }] : []);
    case "reachDeadline":
      return accept(
        record.status === "running" && command.now >= record.deadlineAt ? [{ type: "cancelRequested", id, reason: "deadline" }] : [],
      );
    case "complete":
      return ending(record, command.now, { type: "workCompleted", id, now: command.now, result: command.result });
    case "fail": {
      const error = command.error.trim() === "" ? SETTINGS_OPERATION_MESSAGES.failed : command.error;
      return ending(record, command.now, { type: "workFailed", id, now: command.now, error });
    }
    case "expire": {
      const due = record.endedAt !== null && command.now >= record.endedAt + state.limits.retentionMs;
      return accept(due ? [{ type: "operationExpired", id }] : []);
    }
    default:
      return accept([]);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------------

/** Terminal cleanup: no prompt, no authorization URLs or device codes, info events without links. */
function ended(record: SettingsOperationRecord, status: SettingsOperationStatus, now: number): SettingsOperationRecord {
  const events = record.events.flatMap((event): SettingsEvent[] =>
    event.type === "info" ? [{ type: "info", message: event.message, level: event.level }] : [],
  );
  return { ...record, status, endedAt: now, prompt: null, events };
}

function evolveRecord(record: SettingsOperationRecord, event: SettingsOperationEvent): SettingsOperationRecord {
  if (!isActiveStatus(record.status)) return record;
  switch (event.type) {
    case "promptShown":
      return { ...record, prompt: event.prompt, promptCount: record.promptCount + 1 };
    case "promptWithdrawn":
      return record.prompt?.id === event.promptId ? { ...record, prompt: null } : record;
    case "promptAnswered":
      return { ...record, prompt: null, secrets: [...new Set([...record.secrets, ...event.secrets])] };
    case "eventNotified":
      return { ...record, events: [...record.events, event.event].slice(-MAX_SETTINGS_EVENTS) };
    case "cancelRequested":
      return { ...record, status: "cancelling", prompt: null, events: [] };
    case "workCompleted":
      return { ...ended(record, "completed", event.now), result: event.result };
    case "workFailed":
      return { ...ended(record, "error", event.now), error: event.error };
    case "workCancelled":
      return ended(record, "cancelled", event.now);
    default:
      return record;
  }
}

/** Applies one event; an event naming a missing operation, or an unknown event, changes nothing. */
export function evolve(state: SettingsOperationsState, event: SettingsOperationEvent): SettingsOperationsState {
  switch (event.type) {
    case "operationStarted": {
      if (state.operations[event.id]) return state;
      const record: SettingsOperationRecord = {
        id: event.id,
        key: event.key,
        status: "running",
        startedAt: event.startedAt,
        deadlineAt: event.deadlineAt,
        endedAt: null,
        prompt: null,
        promptCount: 0,
        events: [],
        result: null,
        error: "",
        secrets: [],
      };
      return { ...state, operations: { ...state.operations, [event.id]: record } };
    }
    case "operationExpired":
      if (!state.operations[event.id]) return state;
      return { ...state, operations: Object.fromEntries(Object.entries(state.operations).filter(([id]) => id !== event.id)) };
    default: {
      const record = state.operations[event.id];
      if (!record) return state;
      const next = evolveRecord(record, event);
      return next === record ? state : { ...state, operations: { ...state.operations, [event.id]: next } };
    }
  }
}

export function evolveAll(state: SettingsOperationsState, events: readonly SettingsOperationEvent[]): SettingsOperationsState {
  return events.reduce(evolve, state);
}

/** Decides and applies in one step (the same state when rejected or when nothing changed). */
export function handle(
  state: SettingsOperationsState,
  command: SettingsOperationCommand,
): { state: SettingsOperationsState; decision: SettingsOperationDecision } {
  const decision = decide(command, state);
  return { state: decision.ok ? evolveAll(state, decision.events) : state, decision };
}

// ---------------------------------------------------------------------------------------------------------
// The public snapshot
// ---------------------------------------------------------------------------------------------------------

/** Hides every submitted secret in `value` (redaction.ts's one pass, longest secret first). */
function redactor(secrets: readonly string[]): (value: string) => string {
  return secrets.length === 0 ? (value) => value : (value) => redactSecrets(value, secrets);
}

function redactEvent(event: SettingsEvent, redact: (value: string) => string): SettingsEvent {
  switch (event.type) {
    case "auth_url":
      return { type: "auth_url", url: redact(event.url), instructions: redact(event.instructions) };
    case "device_code":
      return { ...event, verificationUri: redact(event.verificationUri), userCode: redact(event.userCode) };
    case "info": {
      const links = event.links?.map((link) => ({ url: redact(link.url), label: redact(link.label) }));
      return { type: "info", message: redact(event.message), level: event.level, ...(links ? { links } : {}) };
    }
  }
}

function redactPrompt(prompt: SettingsPrompt, redact: (value: string) => string): SettingsPrompt {
  const options = prompt.options?.map((option) => ({
    id: option.id,
    label: redact(option.label),
    description: redact(option.description),
  }));
  return { ...prompt, message: redact(prompt.message), placeholder: redact(prompt.placeholder), ...(options ? { options } : {}) };
}

/** The spec's SettingsOperation: a fresh copy with every submitted non-select answer redacted from its text. */
export function snapshotOf(record: SettingsOperationRecord): SettingsOperation {
  const redact = redactor(record.secrets);
  return {
    id: record.id,
    state: record.status,
    prompt: record.prompt && redactPrompt(record.prompt, redact),
    events: record.events.map((event) => redactEvent(event, redact)),
    result: record.result && redactStrings(record.result, record.secrets),
    error: redact(record.error),
  };
}
