/**
 * The refresh scheduler on vitest's fake clock (through the app's `browserTimers`), with refreshes the test
 * settles by hand: requests coalesce behind the delay, one read per key at a time with one trailing run for
 * requests during it, a rejecting refresh frees its key, cancel clears timers and trailing runs, keys stay apart.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { browserTimers } from "../api/socket-lifecycle.ts";
import { createRefreshScheduler } from "./refresh-scheduler.ts";

const DELAY = 300;

/** A refresh whose reads wait until the test settles them; `calls` counts the reads started. */
function manualRefresh() {
  const pending: { resolve: () => void; reject: (failure: Error) => void }[] = [];
  const refresh = vi.fn(
    () =>
      new Promise<void>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
  );
  return {
    refresh,
    calls: () => refresh.mock.calls.length,
    /** Settles the oldest read on its way and lets the scheduler see it. */
    async resolve() {
      pending.shift()?.resolve();
      await vi.advanceTimersByTimeAsync(0);
    },
    async reject() {
      pending.shift()?.reject(new Error("read failed"));
      await vi.advanceTimersByTimeAsync(0);
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("refresh scheduler", () => {
  it("runs a request after its delay, once for every request made while its timer waits, and runs the newest refresh", async () => {
    const scheduler = createRefreshScheduler(browserTimers);
    const older = manualRefresh();
    const newer = manualRefresh();
    scheduler.schedule("list", older.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY - 100);
    scheduler.schedule("list", older.refresh, DELAY);
    scheduler.schedule("list", newer.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(99);
    expect(older.calls() + newer.calls()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(older.calls()).toBe(0);
    expect(newer.calls()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("runs one read per key at a time: requests during a read make it run once more, after the delay, when it settles", async () => {
    const scheduler = createRefreshScheduler(browserTimers);
    const detail = manualRefresh();
    scheduler.schedule("detail", detail.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY);
    expect(detail.calls()).toBe(1);

    scheduler.schedule("detail", detail.refresh, DELAY);
    scheduler.schedule("detail", detail.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY * 5);
    expect(detail.calls()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);

    await detail.resolve();
    await vi.advanceTimersByTimeAsync(DELAY - 1);
    expect(detail.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(detail.calls()).toBe(2);

    await detail.resolve();
    await vi.advanceTimersByTimeAsync(DELAY * 5);
    expect(detail.calls()).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a read that settles with no request during it frees its key: the next request waits the delay again", async () => {
    const scheduler = createRefreshScheduler(browserTimers);
    const session = manualRefresh();
    scheduler.schedule("session:s1", session.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY);
    await session.resolve();
    scheduler.schedule("session:s1", session.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY - 1);
    expect(session.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(session.calls()).toBe(2);
  });

  it("a refresh that rejects is swallowed and counts as settled: its trailing run follows, and the key is free after", async () => {
    const scheduler = createRefreshScheduler(browserTimers);
    const child = manualRefresh();
    scheduler.schedule("child:c1", child.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY);
    scheduler.schedule("child:c1", child.refresh, DELAY);
    await child.reject();
    await vi.advanceTimersByTimeAsync(DELAY);
    expect(child.calls()).toBe(2);

    await child.reject();
    scheduler.schedule("child:c1", child.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY);
    expect(child.calls()).toBe(3);
  });

  it("cancel clears the picked keys' timers and leaves the others", async () => {
    const scheduler = createRefreshScheduler(browserTimers);
    const list = manualRefresh();
    const child = manualRefresh();
    const detail = manualRefresh();
    scheduler.schedule("list", list.refresh, DELAY);
    scheduler.schedule("child:c1", child.refresh, DELAY);
    scheduler.schedule("detail", detail.refresh, DELAY);
    scheduler.cancel((key) => key === "list" || key.startsWith("child:"));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(DELAY * 5);
    expect(list.calls()).toBe(0);
    expect(child.calls()).toBe(0);
    expect(detail.calls()).toBe(1);
  });

  it("cancel during a read: it ends without its trailing run, and a later request starts afresh without waiting for it", async () => {
    const scheduler = createRefreshScheduler(browserTimers);
    const list = manualRefresh();
    scheduler.schedule("list", list.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY);
    scheduler.schedule("list", list.refresh, DELAY);
    scheduler.cancel(() => true);
    await list.resolve();
    await vi.advanceTimersByTimeAsync(DELAY * 5);
    expect(list.calls()).toBe(1);

    scheduler.schedule("list", list.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY);
    expect(list.calls()).toBe(2);
    scheduler.cancel(() => true);
    scheduler.schedule("list", list.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY);
    expect(list.calls()).toBe(3);
  });

  it("keys are independent: a key's read on its way holds back neither another key's timer nor its read", async () => {
    const scheduler = createRefreshScheduler(browserTimers);
    const slow = manualRefresh();
    const other = manualRefresh();
    scheduler.schedule("child:c1", slow.refresh, DELAY * 5);
    scheduler.schedule("list", other.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY);
    expect(other.calls()).toBe(1);
    expect(slow.calls()).toBe(0);
    await vi.advanceTimersByTimeAsync(DELAY * 4);
    expect(slow.calls()).toBe(1);
    await other.resolve();
    scheduler.schedule("list", other.refresh, DELAY);
    await vi.advanceTimersByTimeAsync(DELAY);
    expect(other.calls()).toBe(2);
  });
});
