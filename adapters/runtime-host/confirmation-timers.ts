/**
 * The confirmation timers of one runtime: owns the expiry timer of every extension-UI confirmation that has
 * one. The confirmations themselves live in the runtime's projection (`pending`, `feed`); this part records
 * their requests, expiries, dismissals and answers there, and cancels in the worker what nobody answered.
 *
 * A confirmation expires after its own timeout, else after the host's default (none by default); an expired
 * or dropped one is answered "cancelled" in the worker, so pi goes on with its default.
 */
import type { ActiveRuntimeInput } from "../../domain/runtime/runtime-inputs.ts";
import type { ExtensionUiRequest } from "../runtime-protocol/runtime-protocol.ts";
import type { HostClock, HostTimer } from "./host-clock.ts";

/** When a confirmation requested at `now` expires, or null when it waits for good. */
export function confirmationExpiry(now: number, requestTimeoutMs: number | null, defaultTimeoutMs: number | null): number | null {
  const timeoutMs = requestTimeoutMs ?? defaultTimeoutMs;
  return timeoutMs !== null && timeoutMs > 0 ? now + timeoutMs : null;
}

export type ConfirmationRequest = Extract<ExtensionUiRequest, { method: "confirm" }>;
export type DismissReason = Extract<ExtensionUiRequest, { method: "dismiss" }>["reason"];

export interface ConfirmationTimersDeps {
  clock: HostClock;
  /** Expiry for confirmations whose extension set no timeout; null = none. */
  defaultTimeoutMs: number | null;
  /** Ids of the confirmations the projection holds as pending. */
  pending: () => readonly string[];
  feed: (inputs: ActiveRuntimeInput[]) => void;
  /** Answers a confirmation "cancelled" in the worker, if one is alive. */
  cancelInWorker: (requestId: string) => void;
}

export interface ConfirmationTimers {
  requested(request: ConfirmationRequest): void;
  /** The dialog ended in the worker without an answer (its own timeout, an abort, the runtime replaced). */
  dismissed(requestId: string, reason: DismissReason): void;
  isPending(requestId: string): boolean;
  /** The person answered. */
  resolved(requestId: string): void;
  /** Answers every pending confirmation "cancelled" and removes it (interrupt, reload, reset, a lost worker). */
  dropAll(): void;
  /** Stops every timer (the runtime closes). */
  cancelAll(): void;
}

export function createConfirmationTimers(deps: ConfirmationTimersDeps): ConfirmationTimers {
  const timers = new Map<string, HostTimer>();

  const stopTimer = (requestId: string): void => {
    timers.get(requestId)?.cancel();
    timers.delete(requestId);
  };

  const isPending = (requestId: string): boolean => deps.pending().includes(requestId);

  const expire = (requestId: string): void => {
    timers.delete(requestId);
    if (!isPending(requestId)) return;
    deps.feed([{ type: "confirmationExpired", id: requestId }]);
    deps.cancelInWorker(requestId);
  };

  return {
    requested(request) {
      const now = deps.clock.now();
      const expiresAt = confirmationExpiry(now, request.timeoutMs, deps.defaultTimeoutMs);
      deps.feed([
        {
          type: "confirmationRequested",
          confirmation: { id: request.requestId, title: request.title, message: request.message, createdAt: now, expiresAt },
        },
      ]);
      if (expiresAt !== null)
        timers.set(
          request.requestId,
          deps.clock.schedule(expiresAt - now, () => expire(request.requestId)),
        );
    },
    dismissed(requestId, reason) {
      stopTimer(requestId);
      deps.feed([{ type: reason === "timeout" ? "confirmationExpired" : "confirmationResolved", id: requestId }]);
    },
    isPending,
    resolved(requestId) {
      stopTimer(requestId);
      deps.feed([{ type: "confirmationResolved", id: requestId }]);
    },
    dropAll() {
      for (const requestId of deps.pending()) {
        stopTimer(requestId);
        deps.cancelInWorker(requestId);
        deps.feed([{ type: "confirmationResolved", id: requestId }]);
      }
    },
    cancelAll() {
      for (const timer of timers.values()) timer.cancel();
      timers.clear();
    },
  };
}
