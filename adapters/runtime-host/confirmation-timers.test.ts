/**
 * The confirmation timers driven by a manual clock, with the real active-runtime projection holding the
 * confirmations and a record of the "cancelled" answers sent to the worker.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionConfirmation } from "../../domain/runtime/runtime-types.ts";
import { activeRuntimeProjection, type ActiveRuntimeState } from "../../projections/active-runtime.projection.ts";
import { fold } from "../../projections/projection.ts";
import { type ConfirmationRequest, confirmationExpiry, type ConfirmationTimers, createConfirmationTimers } from "./confirmation-timers.ts";
import { ManualClock } from "./host-clock.ts";

interface Harness {
  clock: ManualClock;
  timers: ConfirmationTimers;
  confirmations(): ExtensionConfirmation[];
  cancelledInWorker: string[];
}

function harness(defaultTimeoutMs: number | null = null): Harness {
  const clock = new ManualClock();
  let state: ActiveRuntimeState = activeRuntimeProjection.initial();
  const cancelledInWorker: string[] = [];
  const timers = createConfirmationTimers({
    clock,
    defaultTimeoutMs,
    pending: () => state.extensionUi.confirmations.map((confirmation) => confirmation.id),
    feed: (inputs) => (state = fold(activeRuntimeProjection, state, inputs)),
    cancelInWorker: (requestId) => cancelledInWorker.push(requestId),
  });
  return { clock, timers, confirmations: () => state.extensionUi.confirmations, cancelledInWorker };
}

function confirm(requestId: string, timeoutMs: number | null = null): ConfirmationRequest {
  return { method: "confirm", requestId, title: "Deploy?", message: "Really deploy?", timeoutMs };
}

describe("confirmationExpiry", () => {
  it("the request's own timeout wins over the default", () => {
    expect(confirmationExpiry(1_000, 500, 60_000)).toBe(1_500);
  });

  it("without its own timeout the default applies", () => {
    expect(confirmationExpiry(1_000, null, 60_000)).toBe(61_000);
  });

  it("no timeout, or a non-positive one, never expires", () => {
    expect(confirmationExpiry(1_000, null, null)).toBeNull();
    expect(confirmationExpiry(1_000, 0, 60_000)).toBeNull();
  });
});

describe("confirmation timers", () => {
  it("a request becomes a pending confirmation stamped with the clock's time", () => {
    const h = harness();
    h.timers.requested(confirm("c1", 30_000));
    expect(h.confirmations()).toEqual([
      { id: "c1", title: "Deploy?", message: "Really deploy?", createdAt: h.clock.now(), expiresAt: h.clock.now() + 30_000 },
    ]);
    expect(h.timers.isPending("c1")).toBe(true);
  });

  it("at its expiry an unanswered confirmation leaves the list and is answered cancelled in the worker", () => {
    const h = harness();
    h.timers.requested(confirm("c1", 30_000));
    h.clock.advance(29_999);
    expect(h.timers.isPending("c1")).toBe(true);
    h.clock.advance(1);
    expect(h.confirmations()).toEqual([]);
    expect(h.cancelledInWorker).toEqual(["c1"]);
  });

  it("the host's default expiry applies when the extension set none; without one it waits for good", () => {
    const withDefault = harness(60_000);
    withDefault.timers.requested(confirm("c1"));
    withDefault.clock.advance(60_000);
    expect(withDefault.confirmations()).toEqual([]);

    const without = harness();
    without.timers.requested(confirm("c1"));
    expect(without.clock.pending()).toBe(0);
    without.clock.advance(10 * 60_000);
    expect(without.timers.isPending("c1")).toBe(true);
  });

  it("an answer stops the timer: nothing is cancelled later", () => {
    const h = harness();
    h.timers.requested(confirm("c1", 30_000));
    h.timers.resolved("c1");
    expect(h.timers.isPending("c1")).toBe(false);
    expect(h.clock.pending()).toBe(0);
    h.clock.advance(30_000);
    expect(h.cancelledInWorker).toEqual([]);
  });

  it("a dismissal from the worker stops the timer; its own timeout counts as expired", () => {
    const h = harness();
    h.timers.requested(confirm("c1", 30_000));
    h.timers.requested(confirm("c2", 30_000));
    h.timers.dismissed("c1", "timeout");
    h.timers.dismissed("c2", "aborted");
    expect(h.confirmations()).toEqual([]);
    expect(h.clock.pending()).toBe(0);
    expect(h.cancelledInWorker).toEqual([]);
  });

  it("dropping answers every pending confirmation cancelled and stops their timers", () => {
    const h = harness();
    h.timers.requested(confirm("c1", 30_000));
    h.timers.requested(confirm("c2"));
    h.timers.dropAll();
    expect(h.confirmations()).toEqual([]);
    expect(h.cancelledInWorker).toEqual(["c1", "c2"]);
    expect(h.clock.pending()).toBe(0);
  });

  it("cancelling all stops every timer and leaves the confirmations to the closing runtime", () => {
    const h = harness();
    h.timers.requested(confirm("c1", 30_000));
    h.timers.cancelAll();
    expect(h.clock.pending()).toBe(0);
    h.clock.advance(30_000);
    expect(h.cancelledInWorker).toEqual([]);
  });
});
