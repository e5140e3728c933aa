import { describe, expect, it } from "vitest";
import { indexShowing } from "./entry-focus.ts";

const entries = [
  { id: "u1", type: "message" },
  { id: "a1", type: "message" },
  { id: "a1:c1", type: "tool", callEntryId: "a1", resultEntryId: "r1" },
  { id: "a2:c2", type: "tool", callEntryId: "a2", resultEntryId: null },
  { id: "r9", type: "tool", callEntryId: null, resultEntryId: "r9" },
];

describe("indexShowing", () => {
  it("finds a row by its own id first", () => {
    expect(indexShowing(entries, "u1")).toBe(0);
    expect(indexShowing(entries, "a1")).toBe(1);
    expect(indexShowing(entries, "a1:c1")).toBe(2);
    expect(indexShowing(entries, "r9")).toBe(4);
  });

  it("shows a tool result or a call-only assistant entry by its tool row", () => {
    expect(indexShowing(entries, "r1")).toBe(2);
    expect(indexShowing(entries, "a2")).toBe(3);
  });

  it("answers -1 for an entry the transcript does not show", () => {
    expect(indexShowing(entries, "elsewhere")).toBe(-1);
    expect(indexShowing(entries, "")).toBe(-1);
    expect(indexShowing([], "u1")).toBe(-1);
  });
});
