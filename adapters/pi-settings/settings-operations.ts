/**
 * The registry of Pi Settings operations (spec "Settings operations"): starts the work of a provider or MCP
 * action, hands it an `OperationContext` (pi's `ProviderAuthInteraction`: an abort signal, `prompt`, `notify`),
 * and owns what the pure decider (domain/pi-settings/settings-operation.ts) cannot: ids, the deadline and
 * retention timers, abort controllers and the pending prompt of each operation.
 *
 * Every change goes through the decider; a rejected API command throws a ServiceError with the spec's
 * status and text (settings_not_found 404, conflict 409, too_many_operations 429, invalid_request 400,
 * settings_unavailable 503 after `close`). The work never sees those errors: its prompt rejects with an
 * AbortError once the operation is cancelled (or the prompt's own signal aborts), its notices are dropped
 * once the operation stopped running, and whatever it throws becomes the operation's error text.
 */
import { randomUUID } from "node:crypto";
import type { AuthPrompt } from "@earendil-works/pi-ai";
import type { SettingsOperation } from "../../domain/contract/http-pi-settings.ts";
import { decide, evolveAll, initialState, isActiveStatus, snapshotOf } from "../../domain/pi-settings/settings-operation.ts";
import {
  type CancelReason,
  DEFAULT_SETTINGS_OPERATION_LIMITS,
  type JsonObject,
  SETTINGS_OPERATION_MESSAGES,
  type SettingsNotice,
  type SettingsOperationCommand,
  type SettingsOperationDecision,
  type SettingsOperationEvent,
  type SettingsPromptRequest,
} from "../../domain/pi-settings/settings-operation-types.ts";
import { ServiceError } from "../../domain/service-error.ts";
import type { HostClock, HostTimer } from "../runtime-host/host-clock.ts";

/** What the work gets; it satisfies pi's `ProviderAuthInteraction`, so a login flow can take it as is. */
export interface OperationContext {
  /** Aborts on cancellation, at the deadline, and at shutdown. */
  signal: AbortSignal;
  /** Shows a prompt and resolves with the answer (a select answer is the option id); rejects when withdrawn. */
  prompt(prompt: AuthPrompt): Promise<string>;
  notify(event: SettingsNotice): void;
}

export type OperationWork = (ctx: OperationContext) => Promise<object>;

export interface StartOptions {
  /** A deadline shorter than the cap (ms), e.g. two minutes for MCP work other than login. */
  deadlineMs?: number;
}

export interface SettingsOperationsOptions {
  clock: HostClock;
  maxActive?: number;
  capMs?: number;
  retentionMs?: number;
  newId?: () => string;
  /** The operation's error text for what the work threw (redaction applies after); default: its message. */
  describeError?: (error: unknown) => string;
  /** Hides secrets the registry does not know of (API keys in the environment) in that error text. */
  scrub?: (text: string) => string;
}

export interface SettingsOperations {
  /** Starts `work` under the lock `key` (one active operation per key). */
  start(key: string, work: OperationWork, options?: StartOptions): SettingsOperation;
  get(id: string): SettingsOperation;
  /** The body of POST /api/pi/settings/operations/:id, unchecked. */
  answer(id: string, body: { promptId: unknown; value: unknown }): SettingsOperation;
  cancel(id: string): SettingsOperation;
  /** Resolves once the operation's work has ended and its outcome is recorded (at once for an unknown id). */
  whenEnded(id: string): Promise<void>;
  /** Shutdown: refuses new operations, cancels the active ones and waits for their work. */
  close(): Promise<void>;
}

export const SHUTTING_DOWN_MESSAGE = "Settings are unavailable while the backend shuts down.";

const CANCEL_MESSAGES: Record<CancelReason, string> = {
  request: "The settings operation was cancelled.",
  deadline: "The settings operation ran out of time.",
  shutdown: "The backend is shutting down.",
};

function abortError(message: string): DOMException {
  return new DOMException(message, "AbortError");
}

function describeByMessage(error: unknown): string {
  return error instanceof Error ? error.message : "";
}

/** The work's result as plain JSON (what the HTTP response would carry). */
function jsonResult(value: unknown): JsonObject {
  const copy: unknown = value !== null && typeof value === "object" && !Array.isArray(value) ? JSON.parse(JSON.stringify(value)) : null;
  if (copy === null || typeof copy !== "object" || Array.isArray(copy)) throw new Error("The settings operation returned no result.");
  return copy as JsonObject;
}

function promptRequestOf(prompt: AuthPrompt): SettingsPromptRequest {
  switch (prompt.type) {
    case "select":
      return { type: "select", message: prompt.message, options: prompt.options };
    case "text":
    case "secret":
    case "manual_code":
      return {
        type: prompt.type,
        message: prompt.message,
        ...(prompt.placeholder !== undefined ? { placeholder: prompt.placeholder } : {}),
      };
    default:
      // A prompt type pi adds later: the decider refuses it and the prompt rejects.
      return prompt;
  }
}

interface PendingPrompt {
  promptId: string;
  resolve(value: string): void;
  reject(reason: unknown): void;
  /** Detaches the prompt's own abort listener. */
  detach(): void;
}

interface LiveOperation {
  controller: AbortController;
  timer: HostTimer | null;
  pending: PendingPrompt | null;
  ended: Promise<void>;
}

export function createSettingsOperations(options: SettingsOperationsOptions): SettingsOperations {
  const { clock } = options;
  const newId = options.newId ?? (() => randomUUID());
  const describeError = options.describeError ?? describeByMessage;
  const scrub = options.scrub ?? ((text: string) => text);
  let state = initialState({
    maxActive: options.maxActive ?? DEFAULT_SETTINGS_OPERATION_LIMITS.maxActive,
    capMs: options.capMs ?? DEFAULT_SETTINGS_OPERATION_LIMITS.capMs,
    retentionMs: options.retentionMs ?? DEFAULT_SETTINGS_OPERATION_LIMITS.retentionMs,
  });
  const live = new Map<string, LiveOperation>();
  let closed = false;

  /** Decides, applies and reacts; returns the decision (the caller throws or ignores a rejection). */
  function dispatch(command: SettingsOperationCommand): SettingsOperationDecision {
    const decision = decide(command, state);
    if (!decision.ok) return decision;
    state = evolveAll(state, decision.events);
    for (const event of decision.events) react(event);
    return decision;
  }

  /** For API commands: a rejection is the caller's error. */
  function apply(command: SettingsOperationCommand): void {
    const decision = dispatch(command);
    if (!decision.ok) throw new ServiceError(decision.error.code, decision.error.message);
  }

  function settlePending(entry: LiveOperation, reason: unknown): void {
    const pending = entry.pending;
    if (!pending) return;
    entry.pending = null;
    pending.detach();
    pending.reject(reason);
  }

  /** Runs `fn` at `at`, or later: a timer that fires early (the system clock) waits for the rest. */
  function scheduleAt(entry: LiveOperation, at: number, fn: () => void): void {
    entry.timer?.cancel();
    entry.timer = clock.schedule(at - clock.now(), () => {
      entry.timer = null;
      if (clock.now() < at) scheduleAt(entry, at, fn);
      else fn();
    });
  }

  function react(event: SettingsOperationEvent): void {
    const entry = live.get(event.id);
    if (!entry) return;
    switch (event.type) {
      case "promptShown":
        // A new prompt replaces one still pending.
        settlePending(entry, abortError(SETTINGS_OPERATION_MESSAGES.stalePrompt));
        break;
      case "cancelRequested": {
        const reason = abortError(CANCEL_MESSAGES[event.reason]);
        settlePending(entry, reason);
        entry.controller.abort(reason);
        break;
      }
      case "workCompleted":
      case "workFailed":
      case "workCancelled": {
        settlePending(entry, abortError(SETTINGS_OPERATION_MESSAGES.notRunning));
        const record = state.operations[event.id];
        if (record?.endedAt != null && !closed) {
          scheduleAt(entry, record.endedAt + state.limits.retentionMs, () => dispatch({ type: "expire", id: event.id, now: clock.now() }));
        } else {
          entry.timer?.cancel();
          entry.timer = null;
        }
        break;
      }
      case "operationExpired":
        entry.timer?.cancel();
        live.delete(event.id);
        break;
      default:
        break;
    }
  }

  function contextFor(id: string, entry: LiveOperation): OperationContext {
    return {
      signal: entry.controller.signal,
      prompt(prompt) {
        const own = prompt.signal;
        if (own?.aborted) return Promise.reject(own.reason ?? abortError(SETTINGS_OPERATION_MESSAGES.stalePrompt));
        const decision = dispatch({ type: "showPrompt", id, now: clock.now(), prompt: promptRequestOf(prompt) });
        const promptId = state.operations[id]?.prompt?.id;
        if (!decision.ok || promptId === undefined) {
          const signal = entry.controller.signal;
          return Promise.reject(
            signal.aborted ? signal.reason : abortError(decision.ok ? SETTINGS_OPERATION_MESSAGES.notRunning : decision.error.message),
          );
        }
        return new Promise<string>((resolve, reject) => {
          const onAbort = (): void => {
            if (entry.pending?.promptId !== promptId) return;
            dispatch({ type: "withdrawPrompt", id, now: clock.now(), promptId });
            settlePending(entry, own?.reason ?? abortError(SETTINGS_OPERATION_MESSAGES.stalePrompt));
          };
          own?.addEventListener("abort", onAbort, { once: true });
          entry.pending = { promptId, resolve, reject, detach: () => own?.removeEventListener("abort", onAbort) };
        });
      },
      notify(event) {
        dispatch({ type: "notify", id, now: clock.now(), notice: event });
      },
    };
  }

  async function runWork(id: string, entry: LiveOperation, work: OperationWork): Promise<void> {
    let outcome: SettingsOperationCommand;
    try {
      const result = jsonResult(await work(contextFor(id, entry)));
      outcome = { type: "complete", id, now: clock.now(), result };
    } catch (error) {
      let message: string;
      try {
        message = scrub(describeError(error));
      } catch {
        message = "";
      }
      outcome = { type: "fail", id, now: clock.now(), error: message };
    }
    dispatch(outcome);
  }

  function expireIfDue(id: string): void {
    dispatch({ type: "expire", id, now: clock.now() });
  }

  function snapshot(id: string): SettingsOperation {
    const record = state.operations[id];
    if (!record) throw new ServiceError("settings_not_found", SETTINGS_OPERATION_MESSAGES.expired);
    return snapshotOf(record);
  }

  return {
    start(key, work, startOptions) {
      if (closed) throw new ServiceError("settings_unavailable", SHUTTING_DOWN_MESSAGE);
      const id = newId();
      apply({
        type: "start",
        id,
        key,
        now: clock.now(),
        ...(startOptions?.deadlineMs !== undefined ? { deadlineMs: startOptions.deadlineMs } : {}),
      });
      const entry: LiveOperation = { controller: new AbortController(), timer: null, pending: null, ended: Promise.resolve() };
      live.set(id, entry);
      const deadlineAt = state.operations[id]?.deadlineAt ?? clock.now();
      scheduleAt(entry, deadlineAt, () => dispatch({ type: "reachDeadline", id, now: clock.now() }));
      entry.ended = runWork(id, entry, work);
      return snapshot(id);
    },

    get(id) {
      expireIfDue(id);
      return snapshot(id);
    },

    answer(id, body) {
      expireIfDue(id);
      apply({ type: "answer", id, now: clock.now(), promptId: body.promptId, value: body.value });
      const entry = live.get(id);
      const pending = entry?.pending;
      if (entry && pending && pending.promptId === body.promptId && typeof body.value === "string") {
        entry.pending = null;
        pending.detach();
        pending.resolve(body.value);
      }
      return snapshot(id);
    },

    cancel(id) {
      expireIfDue(id);
      apply({ type: "cancel", id, now: clock.now(), reason: "request" });
      return snapshot(id);
    },

    whenEnded(id) {
      return live.get(id)?.ended ?? Promise.resolve();
    },

    async close() {
      closed = true;
      const entries = [...live.entries()];
      for (const [id, record] of Object.entries(state.operations)) {
        if (isActiveStatus(record.status)) dispatch({ type: "cancel", id, now: clock.now(), reason: "shutdown" });
      }
      await Promise.allSettled(entries.map(([, entry]) => entry.ended));
      for (const [, entry] of live) {
        entry.timer?.cancel();
        entry.timer = null;
      }
    },
  };
}
