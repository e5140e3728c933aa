/**
 * Grouping sessions by day for the sidebar: Today, Yesterday, Past 7 days, Older. Days are local calendar
 * days of `now` (the caller passes the clock), so "Yesterday" at 00:30 means the previous date, and DST
 * changes do not shift a boundary. A time in the future (clock skew) counts as today; a missing or
 * unreadable time as older. A session's time is its last activity (`modified`), else its creation
 * (`timestamp`); a session with neither is a runtime pi has not saved yet, which was just made: today.
 */
import { clockTime, shortDate, weekdayName } from "./time-format.ts";

export const DAY_GROUPS = ["today", "yesterday", "week", "older"] as const;
export type DayGroup = (typeof DAY_GROUPS)[number];

export const DAY_GROUP_LABELS: Record<DayGroup, string> = {
  today: "Today",
  yesterday: "Yesterday",
  week: "Past 7 days",
  older: "Older",
};

export interface DayGroupOf<T> {
  group: DayGroup;
  label: string;
  items: T[];
}

/** Local midnight `daysBack` calendar days before `now`'s date. */
function startOfDay(now: Date, daysBack: number): number {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - daysBack).getTime();
}

export function parseTime(value: string | undefined | null): number | null {
  if (value === undefined || value === null || value === "") return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** The day group of an ISO time relative to `now`. */
export function dayGroupOf(iso: string | undefined | null, now: Date): DayGroup {
  const ms = parseTime(iso);
  if (ms === null) return "older";
  if (ms >= startOfDay(now, 0)) return "today";
  if (ms >= startOfDay(now, 1)) return "yesterday";
  if (ms >= startOfDay(now, 7)) return "week";
  return "older";
}

/** The time a session row stands for: its last activity, else its creation; null for an unsaved runtime. */
export function sessionTime(session: { modified?: string | undefined; timestamp?: string | undefined }): string | null {
  if (parseTime(session.modified) !== null) return session.modified ?? null;
  if (parseTime(session.timestamp) !== null) return session.timestamp ?? null;
  return null;
}

/** The day group of a session: by `sessionTime`, and today for a session not saved yet (no time at all). */
export function sessionDayGroup(session: { modified?: string | undefined; timestamp?: string | undefined }, now: Date): DayGroup {
  const time = sessionTime(session);
  return time === null ? "today" : dayGroupOf(time, now);
}

/** The non-empty groups in display order; items keep their order inside a group. */
export function groupByDay<T>(items: readonly T[], groupOf: (item: T) => DayGroup): DayGroupOf<T>[] {
  const buckets: Record<DayGroup, T[]> = { today: [], yesterday: [], week: [], older: [] };
  for (const item of items) buckets[groupOf(item)].push(item);
  return DAY_GROUPS.filter((group) => buckets[group].length > 0).map((group) => ({
    group,
    label: DAY_GROUP_LABELS[group],
    items: buckets[group],
  }));
}

/**
 * A short relative label for a list row, in the browser's locale (lib/time-format.ts, the transcript's too):
 * the clock time today ("14:05" / "02:05 PM"), "Yesterday 14:05", "Mon 14:05" this week, "12 Mar" before,
 * with the year when it is not this year's. "" when there is no time.
 */
export function shortTimeLabel(iso: string | undefined | null, now: Date, locale?: string): string {
  const ms = parseTime(iso);
  if (ms === null) return "";
  const date = new Date(ms);
  const time = clockTime(date, locale);
  const group = dayGroupOf(iso, now);
  if (group === "today") return time;
  if (group === "yesterday") return `Yesterday ${time}`;
  if (group === "week") return `${weekdayName(date, locale)} ${time}`;
  return shortDate(date, date.getFullYear() !== now.getFullYear(), locale);
}
