import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OutputBatcher } from "./output-batcher.ts";

describe("OutputBatcher", () => {
  let now = 0;
  let flushed: string[] = [];
  const batcher = (maxChars = 100): OutputBatcher =>
    new OutputBatcher({ intervalMs: 8, maxChars, now: () => now, onFlush: (text) => flushed.push(text) });
  const advance = (ms: number): void => {
    now += ms;
    vi.advanceTimersByTime(ms);
  };

  beforeEach(() => {
    vi.useFakeTimers();
    now = 1000;
    flushed = [];
  });
  afterEach(() => vi.useRealTimers());

  it("flushes the first text after a quiet interval at once (an echo is not delayed)", () => {
    const b = batcher();
    b.push("a");
    expect(flushed).toEqual(["a"]);
    advance(20);
    b.push("b");
    expect(flushed).toEqual(["a", "b"]);
  });

  it("coalesces text within the interval into one flush, in order", () => {
    const b = batcher();
    b.push("a");
    b.push("b");
    advance(3);
    b.push("c");
    expect(flushed).toEqual(["a"]);
    expect(b.pending).toBe(2);
    advance(4);
    expect(flushed).toEqual(["a"]);
    advance(1);
    expect(flushed).toEqual(["a", "bc"]);
    expect(b.pending).toBe(0);
  });

  it("flushes at once when maxChars wait", () => {
    const b = batcher(10);
    b.push("a");
    b.push("12345");
    b.push("67890");
    expect(flushed).toEqual(["a", "1234567890"]);
  });

  it("flush() sends what waits; dispose() drops it and nothing follows", () => {
    const b = batcher();
    b.push("a");
    b.push("b");
    b.flush();
    expect(flushed).toEqual(["a", "b"]);
    b.push("c");
    b.dispose();
    advance(100);
    expect(flushed).toEqual(["a", "b"]);
    b.push("");
    expect(b.pending).toBe(0);
  });
});
