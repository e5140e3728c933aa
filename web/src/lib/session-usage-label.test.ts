import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { costText, sessionUsageLabel, turnUsageLabel, type Usage } from "./session-usage-label.ts";

const usage = (input: number, output: number, cacheRead: number, cacheWrite: number, cost: number) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  totalTokens: input + output + cacheRead + cacheWrite,
  cost,
});

const turn = (input: number, output: number, cacheRead: number, cacheWrite: number, total: number, extra: Partial<Usage> = {}): Usage => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  totalTokens: input + output + cacheRead + cacheWrite,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
  ...extra,
});

describe("sessionUsageLabel", () => {
  it("says nothing for a session without usage", () => {
    expect(sessionUsageLabel(usage(0, 0, 0, 0, 0)).text).toBeNull();
    expect(sessionUsageLabel(undefined).text).toBeNull();
  });

  it("shows tokens compactly with the cost, and the breakdown with the cost as a title", () => {
    expect(sessionUsageLabel(usage(900, 50, 0, 0, 0)).text).toBe("950 tokens");
    expect(sessionUsageLabel(usage(10_000, 2_345, 0, 0, 0.4213)).text).toBe("12k tokens · $0.42");
    expect(sessionUsageLabel(usage(1_200, 100, 0, 0, 0.0031)).text).toBe("1.3k tokens · $0.0031");
    expect(sessionUsageLabel(usage(2_000_000, 0, 500_000, 0, 3)).text).toBe("2.5M tokens · $3.00");
    expect(sessionUsageLabel(usage(1, 2, 3, 4, 0)).title).toBe(
      "Input 1, output 2, cache read 3, cache write 4 tokens (the whole session, every branch)",
    );
    expect(sessionUsageLabel(usage(1_000, 2, 3, 4, 0.5)).title).toBe(
      "Input 1,000, output 2, cache read 3, cache write 4 tokens; cost $0.50 (the whole session, every branch)",
    );
  });
});

describe("turnUsageLabel", () => {
  it("shows one model call's tokens and cost, and says whether the cost was billed or estimated", () => {
    const estimated = turnUsageLabel(turn(1_200, 350, 10_000, 0, 0.01234, { reasoning: 120 }));
    expect(estimated.text).toBe("12k tokens · $0.01");
    expect(estimated.title).toBe(
      "Input 1,200, output 350 (120 reasoning), cache read 10,000, cache write 0 tokens; cost $0.01 (estimated from the model's prices)",
    );
    const billed = turnUsageLabel(
      turn(10, 20, 0, 0, 0.0004, { cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.0004, totalFromProvider: true } }),
    );
    expect(billed.text).toBe("30 tokens · $0.0004");
    expect(billed.title).toContain("billed by the provider");
    expect(turnUsageLabel(turn(10, 20, 0, 0, 0)).text).toBe("30 tokens");
  });

  it("says nothing when the model reported nothing (an aborted or local call)", () => {
    expect(turnUsageLabel(turn(0, 0, 0, 0, 0))).toEqual({ text: null, title: "" });
    expect(turnUsageLabel(undefined)).toEqual({ text: null, title: "" });
  });

  it("formats costs with two decimals, or four below a cent, and nothing for none (property)", () => {
    expect(costText(0)).toBe("");
    expect(costText(Number.NaN)).toBe("");
    fc.assert(
      fc.property(fc.double({ min: 0.0001, max: 1e6, noNaN: true }), (cost) => {
        const text = costText(cost);
        expect(text).toMatch(cost < 0.01 ? /^\$0\.\d{4}$/ : /^\$\d+\.\d{2}$/);
      }),
    );
  });
});
