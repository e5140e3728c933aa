/**
 * Grouping sessions by day for the sidebar: Today, Yesterday, Past 7 days, Older. Days are local calendar
 * days of `now` (the caller passes the clock), so "Yesterday" at 00:30 means the previous date, and DST
 * changes do not shift a boundary. A time in the future (clock skew) counts as today; a missing or
 * unreadable time as older.
 */

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

/** The non-empty groups in display order; items keep their order inside a group. */
export function groupByDay<T>(items: readonly T[], timeOf: (item: T) => string | undefined | null, now: Date): DayGroupOf<T>[] {
  const buckets: Record<DayGroup, T[]> = { today: [], yesterday: [], week: [], older: [] };
  for (const item of items) buckets[dayGroupOf(timeOf(item), now)].push(item);
  return DAY_GROUPS.filter((group) => buckets[group].length > 0).map((group) => ({
    group,
    label: DAY_GROUP_LABELS[group],
    items: buckets[group],
  }));
}

/** A short relative label for a list row: "14:05" today, "Mon 14:05" this week, "12 Mar" / "12 Mar 2024" before. */
export function shortTimeLabel(iso: string | undefined | null, now: Date): string {
  const ms = parseTime(iso);
  if (ms === null) return "";
  const date = new Date(ms);
  const time = `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
  const group = dayGroupOf(iso, now);
  if (group === "today") return time;
  if (group === "yesterday") return `Yesterday ${time}`;
  if (group === "week") return `${date.toLocaleDateString("en-GB", { weekday: "short" })} ${time}`;
  const sameYear = date.getFullYear() === now.getFullYear();
  return date.toLocaleDateString("en-GB", { day: "numeric", month: "short", ...(sameYear ? {} : { year: "numeric" }) });
}
