/** One action at a time per repository, in arrival order; other repositories do not wait. */
import { describe, expect, it } from "vitest";
import { RepositoryQueue } from "./repository-queue.ts";

/** A promise the test settles by hand. */
function gate(): { promise: Promise<void>; open: () => void; fail: () => void } {
  let open = (): void => undefined;
  let fail = (): void => undefined;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = () => reject(new Error("task failed"));
  });
  return { promise, open, fail };
}

describe("RepositoryQueue", () => {
  it("runs tasks of one root in order, each after the previous settled, failures included", async () => {
    const queue = new RepositoryQueue();
    const log: string[] = [];
    const first = gate();
    const second = gate();
    const a = queue.run("/r", async () => {
      log.push("a start");
      await first.promise;
      log.push("a end");
    });
    const b = queue.run("/r", async () => {
      log.push("b start");
      await second.promise;
      return "b";
    });
    const c = queue.run("/r", async () => {
      log.push("c start");
      return "c";
    });
    const other = queue.run("/other", async () => {
      log.push("other");
      return "other";
    });
    expect(await other).toBe("other");
    expect(log).toEqual(["a start", "other"]);
    first.fail();
    await expect(a).rejects.toThrow("task failed");
    await Promise.resolve();
    expect(log).toEqual(["a start", "other", "b start"]);
    second.open();
    expect(await b).toBe("b");
    expect(await c).toBe("c");
    expect(log).toEqual(["a start", "other", "b start", "c start"]);
    await Promise.resolve();
    expect(queue.busyRoots).toBe(0);
  });
});
