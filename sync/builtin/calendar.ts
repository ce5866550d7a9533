import { MONTH_NAMES } from "../../core/index.ts";

/**
 * Day arithmetic on YYYY-MM-DD (UTC) and the periods dates.ts builds from what it matched:
 * rolling windows, calendar weeks, months, quarters and years, weekdays, open-ended bounds.
 */

export interface DateRange {
  /** First day, YYYY-MM-DD. */
  from: string;
  /** Last day, inclusive, YYYY-MM-DD. */
  to: string;
  /** In words, with the days: "last month (2026-02-01 to 2026-02-28)". */
  label: string;
}

export interface Period {
  range: DateRange;
  /** A rolling window of this many days ending now ("in the last 30 days") or starting today. */
  days?: number;
  /** The window lies after today ("next 7 days"). */
  ahead?: boolean;
}

export type Prefer = "past" | "future";

const DAY_MS = 86_400_000;
export const MONTHS = MONTH_NAMES;
const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  "couple of": 2,
  three: 3,
  few: 3,
  "a few": 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fourteen: 14,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  "forty-five": 45,
  fifty: 50,
  sixty: 60,
  ninety: 90,
  hundred: 100,
};
export function numberOf(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  return NUMBER_WORDS[trimmed];
}

// ---- day arithmetic on YYYY-MM-DD, UTC ----

export const parse = (day: string) => Date.parse(`${day}T00:00:00Z`);
const format = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const addDays = (day: string, days: number) => format(parse(day) + days * DAY_MS);
export const daysBetween = (from: string, to: string) => Math.round((parse(to) - parse(from)) / DAY_MS);
/** Monday 0 … Sunday 6. */
export const weekdayOf = (day: string) => (new Date(parse(day)).getUTCDay() + 6) % 7;
export const ymd = (day: string) => day.split("-").map(Number) as [number, number, number];
export const dayOf = (year: number, month: number, date: number) => format(Date.UTC(year, month - 1, date));
export const lastOfMonth = (year: number, month: number) => format(Date.UTC(year, month, 0));

/** A range and its label, an adverbial phrase a reply can put after a verb: "last month (…)". */
export function range(from: string, to: string, words: string): DateRange {
  if (!words) return { from, to, label: from === to ? `on ${from}` : `from ${from} to ${to}` };
  return { from, to, label: `${words} (${from === to ? from : `${from} to ${to}`})` };
}

export function monthIndex(name: string): number {
  return MONTHS.findIndex((month) => month.startsWith(name.slice(0, 3))) + 1;
}

/** A month named without a year: this year's, or the nearest one the question looks towards. */
export function yearFor(month: number, today: string, prefer: Prefer): number {
  const [year, current] = ymd(today);
  if (prefer === "past" && month > current) return year - 1;
  if (prefer === "future" && month < current) return year + 1;
  return year;
}

export function unitDays(unit: string): number {
  const days: Record<string, number> = { hour: 1, day: 1, week: 7, fortnight: 14, month: 30, quarter: 91 };
  return days[unit] ?? 365;
}

export function rolling(count: number, unit: string, today: string, ahead: boolean): Period {
  const days = unit === "hour" ? Math.max(1, Math.ceil(count / 24)) : count * unitDays(unit);
  const words = `${ahead ? "in the next" : "in the last"} ${count === 1 ? unit : `${count} ${unit}s`}`;
  return ahead
    ? { range: range(today, addDays(today, days), words), days, ahead: true }
    : { range: range(addDays(today, -days), today, words), days };
}

/** This, last or next week, month, quarter or year, as whole calendar periods. */
export function calendar(which: string, unit: string, today: string): Period {
  const shift = /last|previous/.test(which) ? -1 : /next|coming/.test(which) ? 1 : 0;
  const [year, month] = ymd(today);
  const words = `${shift === -1 ? "last" : shift === 1 ? "next" : "this"} ${unit}`;
  if (unit === "week") {
    const monday = addDays(today, -weekdayOf(today) + 7 * shift);
    return { range: range(monday, addDays(monday, 6), words) };
  }
  if (unit === "month") {
    const first = dayOf(year, month + shift, 1);
    const [y, m] = ymd(first);
    return { range: range(first, lastOfMonth(y, m), words) };
  }
  if (unit === "quarter") {
    const start = (Math.floor((month - 1) / 3) + shift) * 3 + 1;
    const first = dayOf(year, start, 1);
    const [y, m] = ymd(first);
    return { range: range(first, lastOfMonth(y, m + 2), words) };
  }
  return { range: range(`${year + shift}-01-01`, `${year + shift}-12-31`, words) };
}

export function weekday(which: string | undefined, name: string, today: string, prefer: Prefer): Period {
  const target = WEEKDAYS.indexOf(name);
  const current = weekdayOf(today);
  const label = (day: string, words: string) => ({ range: range(day, day, words) });
  const upcoming = addDays(today, (target - current + 7) % 7);
  const previous = addDays(today, -((current - target + 7) % 7));
  const title = name[0]!.toUpperCase() + name.slice(1);
  switch (which) {
    case "next":
      return label(addDays(today, ((target - current + 6) % 7) + 1), `next ${title}`);
    case "last":
      return label(addDays(today, -(((current - target + 6) % 7) + 1)), `last ${title}`);
    case "this":
      return label(addDays(today, target - current), `this ${title}`);
    case "by":
    case "until":
      return { range: range(today, upcoming, `by ${title}`) };
    case "before":
      return { range: range(today, addDays(upcoming, -1), `before ${title}`) };
    // "since monday": from the last one (today, when today is that day) to today.
    case "since":
      return { range: range(previous, today, `since ${title}`) };
    default:
      return prefer === "future" || which === "coming"
        ? label(upcoming, `on ${title}`)
        : label(previous, `on ${title}`);
  }
}

export function bounded(preposition: string | undefined, day: string, today: string): Period {
  switch (preposition) {
    case "since":
    case "from":
      return { range: range(day, today, `since ${day}`) };
    case "after":
      return { range: range(addDays(day, 1), "2999-12-31", `after ${day}`) };
    case "before":
      return { range: range("2000-01-01", addDays(day, -1), `before ${day}`) };
    case "until":
    case "till":
    case "through":
    case "by":
      return { range: range(day < today ? "2000-01-01" : today, day, `until ${day}`) };
    default:
      return { range: range(day, day, "") };
  }
}
