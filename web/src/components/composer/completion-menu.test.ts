import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { menuKeyOf, moveHighlight } from "./completion-menu.ts";

describe("completion menu keys", () => {
  it("moves the highlight with wrapping, and maps keys (IME and modifiers left alone)", () => {
    expect(moveHighlight(0, 3, -1)).toBe(2);
    expect(moveHighlight(2, 3, 1)).toBe(0);
    expect(moveHighlight(5, 0, 1)).toBe(0);
    fc.assert(
      fc.property(fc.nat(100), fc.integer({ min: 1, max: 50 }), fc.integer({ min: -5, max: 5 }), (index, count, delta) => {
        const next = moveHighlight(index, count, delta);
        expect(next).toBeGreaterThanOrEqual(0);
        expect(next).toBeLessThan(count);
      }),
    );
    const key = (k: string, extra: Partial<Parameters<typeof menuKeyOf>[0]> = {}) =>
      menuKeyOf({ key: k, shiftKey: false, isComposing: false, keyCode: 0, ...extra });
    expect([key("ArrowDown"), key("ArrowUp"), key("Tab"), key("Enter"), key("Escape"), key("a")]).toEqual([
      "next",
      "previous",
      "complete",
      "choose",
      "close",
      "none",
    ]);
    expect(key("Enter", { shiftKey: true })).toBe("none");
    expect(key("Tab", { shiftKey: true })).toBe("none");
    expect(key("Enter", { isComposing: true })).toBe("none");
    expect(key("Enter", { keyCode: 229 })).toBe("none");
    expect(key("ArrowDown", { ctrlKey: true })).toBe("none");
  });
});
