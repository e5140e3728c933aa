import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { concurrencyLimit } from "./concurrency-limit.ts";

interface Deferred {
  promise: Promise<string>;
  resolve: (value: string) => void;
  reject: (error: Error) => void;
}

function deferred(): Deferred {
  let resolve: (value: string) => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run (microtasks only: no timers). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe("concurrencyLimit", () => {
  it("runs at most four at once; the fifth starts when one settles, in call order", async () => {
    const limit = concurrencyLimit(4);
    const gates = Array.from({ length: 6 }, deferred);
    const started: number[] = [];
    const results = gates.map((gate, i) =>
      limit.run(() => {
        started.push(i);
        return gate.promise;
      }),
    );
    expect(started).toEqual([0, 1, 2, 3]);
    expect([limit.active, limit.waiting]).toEqual([4, 2]);

    gates[2]?.resolve("c");
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(await results[2]).toBe("c");

    gates[0]?.reject(new Error("boom")); // a failure frees its slot too
    await expect(results[0]).rejects.toThrow("boom");
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect([limit.active, limit.waiting]).toEqual([4, 0]);

    for (const gate of gates) gate.resolve("x");
    await Promise.allSettled(results);
    await settle();
    expect([limit.active, limit.waiting]).toEqual([0, 0]);
  });

  it("a task that throws synchronously rejects and releases its slot", async () => {
    const limit = concurrencyLimit(1);
    await expect(
      limit.run(() => {
        throw new Error("sync");
      }),
    ).rejects.toThrow("sync");
    expect(await limit.run(async () => "next")).toBe("next");
  });

  it("rejects a limit that is not a positive integer", () => {
    expect(() => concurrencyLimit(0)).toThrow(RangeError);
    expect(() => concurrencyLimit(1.5)).toThrow(RangeError);
  });

  it("property: whatever the completion order, never more than `max` run and every task runs once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 14 }).chain((n) => fc.tuple(fc.constant(n), fc.array(fc.nat(), { minLength: n, maxLength: n }))),
        async (max, [n, order]) => {
          const limit = concurrencyLimit(max);
          const gates = Array.from({ length: n }, deferred);
          let running = 0;
          let peak = 0;
          const runs = new Array<number>(n).fill(0);
          const all = gates.map((gate, i) =>
            limit.run(async () => {
              runs[i] = (runs[i] ?? 0) + 1;
              running += 1;
              peak = Math.max(peak, running);
              try {
                return await gate.promise;
              } finally {
                running -= 1;
              }
            }),
          );
          // Finish tasks in an arbitrary order (each pick among those still open).
          const open = gates.map((_, i) => i);
          for (const pick of order) {
            const [index] = open.splice(pick % open.length, 1);
            if (index !== undefined) gates[index]?.resolve(String(index));
            await settle();
            expect(running).toBeLessThanOrEqual(max);
          }
          await Promise.all(all);
          expect(peak).toBeLessThanOrEqual(max);
          expect(peak).toBe(Math.min(max, n));
          expect(runs.every((count) => count === 1)).toBe(true);
        },
      ),
    );
  });
});
