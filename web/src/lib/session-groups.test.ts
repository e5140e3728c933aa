import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DAY_GROUPS, dayGroupOf, groupByDay, sessionDayGroup, sessionTime, shortTimeLabel } from "./session-groups.ts";
import { clockTime } from "./time-format.ts";

/** Local time (the groups are local calendar days). */
const local = (y: number, m: number, d: number, h = 12, min = 0) => new Date(y, m - 1, d, h, min);
const iso = (date: Date) => date.toISOString();

describe("dayGroupOf", () => {
  const now = local(2026, 11, 30, 0, 30); // just after midnight

  it("uses local calendar days: today, yesterday, past 7 days, older", () => {
    expect(dayGroupOf(iso(local(2026, 11, 30, 0, 0)), now)).toBe("today");
    expect(dayGroupOf(iso(local(2026, 11, 29, 23, 59)), now)).toBe("yesterday");
    expect(dayGroupOf(iso(local(2026, 11, 29, 0, 0)), now)).toBe("yesterday");
    expect(dayGroupOf(iso(local(2026, 11, 28, 23, 59)), now)).toBe("week");
    expect(dayGroupOf(iso(local(2026, 11, 23, 0, 0)), now)).toBe("week");
    expect(dayGroupOf(iso(local(2026, 11, 22, 23, 59)), now)).toBe("older");
  });

  it("puts future times in today and missing or bad times in older", () => {
    expect(dayGroupOf(iso(local(2026, 12, 2)), now)).toBe("today");
    expect(dayGroupOf(undefined, now)).toBe("older");
    expect(dayGroupOf("", now)).toBe("older");
    expect(dayGroupOf("not a date", now)).toBe("older");
  });

  it("crosses month and year boundaries", () => {
    const newYear = local(2027, 1, 1, 9);
    expect(dayGroupOf(iso(local(2026, 12, 31, 22)), newYear)).toBe("yesterday");
    expect(dayGroupOf(iso(local(2026, 12, 26, 1)), newYear)).toBe("week");
    expect(dayGroupOf(iso(local(2026, 12, 24, 23)), newYear)).toBe("older");
  });

  it("is monotonic: a later time never lands in an older group", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 * 86_400_000 }), fc.integer({ min: 0, max: 30 * 86_400_000 }), (a, b) => {
        const now = local(2026, 6, 15, 13);
        const ta = new Date(now.getTime() - a);
        const tb = new Date(now.getTime() - b);
        const rank = (d: Date) => DAY_GROUPS.indexOf(dayGroupOf(iso(d), now));
        return a <= b ? rank(ta) <= rank(tb) : rank(ta) >= rank(tb);
      }),
    );
  });
});

describe("groupByDay", () => {
  it("returns only non-empty groups in display order and keeps item order inside each", () => {
    const now = local(2026, 11, 30, 15);
    const items = [
      { id: "a", t: iso(local(2026, 11, 30, 14)) },
      { id: "old", t: iso(local(2025, 1, 1)) },
      { id: "b", t: iso(local(2026, 11, 30, 9)) },
      { id: "y", t: iso(local(2026, 11, 29, 9)) },
      { id: "none", t: undefined },
    ];
    const groups = groupByDay(items, (i) => dayGroupOf(i.t, now));
    expect(groups.map((g) => [g.group, g.label, g.items.map((i) => i.id)])).toEqual([
      ["today", "Today", ["a", "b"]],
      ["yesterday", "Yesterday", ["y"]],
      ["older", "Older", ["old", "none"]],
    ]);
  });
});

describe("sessionTime and sessionDayGroup", () => {
  const now = local(2026, 11, 30, 15);

  it("uses the last activity, else the creation time", () => {
    expect(sessionTime({ modified: iso(local(2026, 11, 30, 14)), timestamp: iso(local(2026, 11, 1)) })).toBe(iso(local(2026, 11, 30, 14)));
    expect(sessionTime({ timestamp: iso(local(2026, 11, 30, 14)) })).toBe(iso(local(2026, 11, 30, 14)));
    // An empty or unreadable `modified` (an unsaved detail row) does not hide the creation time.
    expect(sessionTime({ modified: "", timestamp: iso(local(2026, 11, 29, 9)) })).toBe(iso(local(2026, 11, 29, 9)));
    expect(sessionTime({ modified: "soon" })).toBeNull();
  });

  it("groups an empty new session by its creation, and a runtime pi has not saved yet under today", () => {
    expect(sessionDayGroup({ timestamp: iso(local(2026, 11, 30, 14, 55)) }, now)).toBe("today");
    expect(sessionDayGroup({ modified: "", timestamp: iso(local(2026, 11, 29, 9)) }, now)).toBe("yesterday");
    expect(sessionDayGroup({}, now)).toBe("today");
    expect(sessionDayGroup({ modified: "" }, now)).toBe("today");
    expect(sessionDayGroup({ modified: iso(local(2025, 1, 1)), timestamp: iso(local(2026, 11, 30)) }, now)).toBe("older");
  });
});

describe("shortTimeLabel", () => {
  it("is a clock time today, says Yesterday, a weekday within the week, a date before", () => {
    const now = local(2026, 11, 30, 15);
    expect(shortTimeLabel(iso(local(2026, 11, 30, 9, 5)), now, "en-GB")).toBe("09:05");
    expect(shortTimeLabel(iso(local(2026, 11, 29, 18, 0)), now, "en-GB")).toBe("Yesterday 18:00");
    expect(shortTimeLabel(iso(local(2026, 11, 26, 8, 0)), now, "en-GB")).toMatch(/^Thu 08:00$/);
    expect(shortTimeLabel(iso(local(2026, 3, 12)), now, "en-GB")).toBe("12 Mar");
    expect(shortTimeLabel(iso(local(2024, 3, 12)), now, "en-GB")).toBe("12 Mar 2024");
    expect(shortTimeLabel(undefined, now)).toBe("");
  });

  it("follows the locale's clock, the same way the transcript writes times (no forced 24-hour clock)", () => {
    const now = local(2026, 11, 30, 16);
    const at = local(2026, 11, 30, 15, 29);
    expect(shortTimeLabel(iso(at), now, "en-US")).toBe(clockTime(at, "en-US"));
    expect(shortTimeLabel(iso(at), now, "en-US")).toMatch(/^0?3:29\sPM$/);
    expect(shortTimeLabel(iso(at), now, "de-DE")).toBe("15:29");
    expect(shortTimeLabel(iso(local(2026, 11, 29, 15, 29)), now, "en-US")).toBe(`Yesterday ${clockTime(at, "en-US")}`);
  });
});
