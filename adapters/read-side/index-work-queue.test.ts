import { describe, expect, it } from "vitest";
import { createIndexWorkQueue } from "./index-work-queue.ts";

const batch = (paths: string[], folders: string[] = []) => ({ paths: new Set(paths), folders: new Set(folders) });

describe("the session index's work queue", () => {
  it("holds work until it is opened, then runs it merged, one batch at a time", async () => {
    const runs: string[][] = [];
    let running = 0;
    let overlapped = false;
    const queue = createIndexWorkQueue(
      async (paths, folders) => {
        running++;
        if (running > 1) overlapped = true;
        runs.push([...paths, ...folders].sort());
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
      },
      () => undefined,
    );
    const early = queue.enqueue(batch(["/a"]));
    const early2 = queue.enqueue(batch(["/b"], ["/f"]));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(runs).toEqual([]);
    queue.open();
    await Promise.all([early, early2]);
    expect(runs).toEqual([["/a", "/b", "/f"]]);
    const later = [queue.enqueue(batch(["/c"])), queue.enqueue(batch(["/d"]))];
    await Promise.all(later);
    expect(runs.slice(1).flat().sort()).toEqual(["/c", "/d"]);
    expect(overlapped).toBe(false);
    expect(queue.current()).toBeNull();
  });

  it("an empty batch starts nothing and does not stop later work (the search indexer lists no session at first)", async () => {
    const runs: string[][] = [];
    const queue = createIndexWorkQueue(
      async (paths) => {
        runs.push([...paths]);
      },
      () => undefined,
    );
    queue.open();
    await queue.enqueue(batch([]));
    expect(queue.current()).toBeNull();
    await queue.enqueue(batch(["/a"]));
    expect(runs).toEqual([["/a"]]);
    expect(queue.current()).toBeNull();
  });

  it("runs the first pass before queued work, reports a batch's error and goes on", async () => {
    const order: string[] = [];
    const errors: unknown[] = [];
    const queue = createIndexWorkQueue(
      async (paths) => {
        if (paths.has("/bad")) throw new Error("bad batch");
        order.push([...paths].join(","));
      },
      (error) => errors.push(error),
    );
    queue.open();
    const first = queue.runFirst(async () => {
      order.push("first");
      void queue.enqueue(batch(["/bad"]));
    });
    await first;
    await queue.enqueue(batch(["/ok"]));
    expect(order).toEqual(["first", "/ok"]);
    expect(errors).toEqual([new Error("bad batch")]);
  });

  it("refuses work that waits for a start that failed", async () => {
    const queue = createIndexWorkQueue(
      async () => undefined,
      () => undefined,
    );
    const waiting = queue.enqueue(batch(["/a"]));
    queue.refuse(new Error("no database"));
    await expect(waiting).rejects.toThrow("no database");
  });
});
