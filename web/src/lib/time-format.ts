/**
 * The one place the client turns times into text, so the sidebar, the start screen and the transcript agree.
 * Everything follows the browser's locale (`locale` undefined) unless a caller names one (tests): a 24-hour
 * locale shows "15:29", a 12-hour one "03:29 PM". No hour cycle is forced.
 */

type FormatName = "clock" | "weekday" | "dayMonth" | "dayMonthYear" | "full";

const OPTIONS: Record<FormatName, Intl.DateTimeFormatOptions> = {
  clock: { hour: "2-digit", minute: "2-digit" },
  weekday: { weekday: "short" },
  dayMonth: { day: "numeric", month: "short" },
  dayMonthYear: { day: "numeric", month: "short", year: "numeric" },
  full: { dateStyle: "medium", timeStyle: "medium" },
};

/** Formatters are costly to build; one per locale and format is kept. */
const cache: Record<string, Intl.DateTimeFormat> = {};

function formatter(name: FormatName, locale: string | undefined): Intl.DateTimeFormat {
  const key = `${locale ?? ""}|${name}`;
  let format = cache[key];
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, OPTIONS[name]);
    cache[key] = format;
  }
  return format;
}

/** A Date from an ISO string, epoch ms or a Date; null when it does not name a time. */
export function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const date = value instanceof Date ? new Date(value.getTime()) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The time of day: "15:29" or "03:29 PM", as the locale writes it. */
export function clockTime(date: Date, locale?: string): string {
  return formatter("clock", locale).format(date);
}

/** A short weekday: "Thu". */
export function weekdayName(date: Date, locale?: string): string {
  return formatter("weekday", locale).format(date);
}

/** A short date: "12 Mar" ("Mar 12" in en-US), with the year when asked. */
export function shortDate(date: Date, withYear: boolean, locale?: string): string {
  return formatter(withYear ? "dayMonthYear" : "dayMonth", locale).format(date);
}

/** Date and time for a tooltip. */
export function fullDateTime(date: Date, locale?: string): string {
  return formatter("full", locale).format(date);
}
