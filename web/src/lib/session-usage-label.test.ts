import { describe, expect, it } from "vitest";
import { sessionUsageLabel } from "./session-usage-label.ts";

const usage = (input: number, output: number, cacheRead: number, cacheWrite: number, cost: number) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  totalTokens: input + output + cacheRead + cacheWrite,
  cost,
});

describe("sessionUsageLabel", () => {
  it("says nothing for a session without usage", () => {
    expect(sessionUsageLabel(usage(0, 0, 0, 0, 0)).text).toBeNull();
    expect(sessionUsageLabel(undefined).text).toBeNull();
  });

  it("shows tokens compactly with the cost, and the breakdown as a title", () => {
    expect(sessionUsageLabel(usage(900, 50, 0, 0, 0)).text).toBe("950 tokens");
    expect(sessionUsageLabel(usage(10_000, 2_345, 0, 0, 0.4213)).text).toBe("12k tokens · $0.42");
    expect(sessionUsageLabel(usage(1_200, 100, 0, 0, 0.0031)).text).toBe("1.3k tokens · $0.0031");
    expect(sessionUsageLabel(usage(2_000_000, 0, 500_000, 0, 3)).text).toBe("2.5M tokens · $3.00");
    expect(sessionUsageLabel(usage(1, 2, 3, 4, 0)).title).toBe("Input 1, output 2, cache read 3, cache write 4 tokens");
  });
});
