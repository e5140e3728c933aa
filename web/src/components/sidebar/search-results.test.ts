import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { searchHit } from "./search.fixture.ts";
import { buildingText, moveActive, resultKey, resultLocation, searchableQuery } from "./search-results.ts";

const hit = searchHit;

describe("searchableQuery", () => {
  it("sends text with a letter or digit, cut to 500 characters", () => {
    expect(searchableQuery("parser ")).toBe("parser ");
    expect(searchableQuery("  -- ?? ")).toBeNull();
    expect(searchableQuery("")).toBeNull();
    expect(searchableQuery("a".repeat(600))).toHaveLength(500);
  });
});

describe("resultLocation", () => {
  it("opens the session at the entry; a tool call at its tool row", () => {
    expect(resultLocation(hit({ sessionId: "a b" }))).toEqual({ path: "/sessions/a%20b", query: { entry: "e1" } });
    expect(resultLocation(hit({ role: "toolCall", entryId: "a1", toolCallId: "c1" })).query.entry).toBe("a1:c1");
    expect(resultLocation(hit({ role: "toolResult", entryId: "r1", toolCallId: "c1" })).query.entry).toBe("r1");
  });

  it("keys hits of one entry apart", () => {
    expect(resultKey(hit({ role: "assistant" }))).not.toBe(resultKey(hit({ role: "toolCall", toolCallId: "c1" })));
  });
});

describe("moveActive", () => {
  it("goes from the box to the first hit and back, without wrapping", () => {
    expect(moveActive(-1, "ArrowDown", 3)).toBe(0);
    expect(moveActive(0, "ArrowDown", 3)).toBe(1);
    expect(moveActive(2, "ArrowDown", 3)).toBe(2);
    expect(moveActive(0, "ArrowUp", 3)).toBe(-1);
    expect(moveActive(-1, "ArrowUp", 3)).toBe(-1);
    expect(moveActive(5, "ArrowUp", 3)).toBe(2);
    expect(moveActive(0, "ArrowDown", 0)).toBe(-1);
  });

  it("always lands on the box or a hit", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -3, max: 40 }),
        fc.constantFrom<"ArrowUp" | "ArrowDown">("ArrowUp", "ArrowDown"),
        fc.nat(30),
        (at, key, n) => {
          const next = moveActive(at, key, n);
          expect(next).toBeGreaterThanOrEqual(-1);
          expect(next).toBeLessThan(Math.max(n, 0));
        },
      ),
    );
  });
});

describe("buildingText", () => {
  it("says how far the index is while it builds", () => {
    expect(buildingText({ indexed: 1200, total: 2000, ready: false })).toBe(
      "Indexing messages: 1,200 of 2,000 sessions so far. Results may be incomplete.",
    );
    expect(buildingText({ indexed: 2000, total: 2000, ready: true })).toBeNull();
    expect(buildingText(null)).toBeNull();
  });
});
