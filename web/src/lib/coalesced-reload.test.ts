import { describe, expect, it } from "vitest";
import { coalescedReload } from "./coalesced-reload.ts";

describe("coalescedReload", () => {
  it("runs once more after the running load however many calls came in, and shares the promise", async () => {
    let runs = 0;
    const gates: Array<() => void> = [];
    const reload = coalescedReload(async () => {
      runs += 1;
      await new Promise<void>((resolve) => gates.push(resolve));
    });
    const first = reload.reload();
    const second = reload.reload();
    const third = reload.reload();
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(reload.inFlight()).toBe(first);
    gates.shift()?.();
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runs).toBe(2);
    gates.shift()?.();
    await first;
    expect(runs).toBe(2);
    expect(reload.inFlight()).toBeNull();
  });

  it("stops when the load reports nothing to load", async () => {
    let runs = 0;
    const reload = coalescedReload(async () => {
      runs += 1;
      return false;
    });
    const pending = reload.reload();
    void reload.reload();
    await pending;
    expect(runs).toBe(1);
  });
});
