import {
  addDays,
  bounded,
  calendar,
  dayOf,
  lastOfMonth,
  MONTHS,
  monthIndex,
  NUMBER_WORDS,
  numberOf,
  parse,
  range,
  rolling,
  unitDays,
  weekday,
  weekdayOf,
  yearFor,
  type Period,
  type Prefer,
} from "./calendar.ts";

export { addDays, daysBetween, numberOf, type DateRange, type Period } from "./calendar.ts";

/**
 * Relative and absolute dates in a message ("last month", "in the past two weeks", "next
 * Friday", "March 2026", "2026-03-01") as concrete day ranges counted from today (UTC).
 * Weeks start on Monday (ISO 8601). A phrase that can point either way ("in March", "on
 * Friday", "within 30 days") is resolved both ways; the question decides which it means.
 */

export interface DateFinding {
  /** As a question about the past reads it. */
  past?: Period;
  /** As a question about what is coming reads it ("due in April"). */
  future?: Period;
  /** Where date words are in the text, so they are not taken for names. */
  spans: Array<[number, number]>;
}

type Build = (match: RegExpMatchArray, today: string, prefer: Prefer) => Period | undefined;

const NUM = `(\\d{1,4}|a few|couple of|forty-five|${Object.keys(NUMBER_WORDS)
  .filter((word) => !word.includes(" ") && word !== "forty-five")
  .join("|")})`;
const UNIT = "(hour|day|week|fortnight|month|quarter|year)s?";
const MONTH_NAME =
  "(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)";
const DAY_OF_MONTH = "(\\d{1,2})(?:st|nd|rd|th)?\\b";
/** A single day as written: 2026-03-01, "March 3(rd)(, 2026)", "3(rd) (of) March (2026)". */
const DAY = `(\\d{4}-\\d{2}-\\d{2}|${MONTH_NAME}\\s+${DAY_OF_MONTH}(?:,?\\s+(\\d{4}))?|${DAY_OF_MONTH}\\s+(?:of\\s+)?${MONTH_NAME}(?:,?\\s+(\\d{4}))?)`;

/** One written day (see DAY) as YYYY-MM-DD, or undefined when it is not a real date. */
export function parseDay(text: string, today: string, prefer: Prefer): string | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return Number.isNaN(parse(text)) ? undefined : text;
  const named = new RegExp(`^${MONTH_NAME}\\s+${DAY_OF_MONTH}(?:,?\\s+(\\d{4}))?$`).exec(text);
  const numbered = new RegExp(`^${DAY_OF_MONTH}\\s+(?:of\\s+)?${MONTH_NAME}(?:,?\\s+(\\d{4}))?$`).exec(text);
  const [month, date, year] = named
    ? [monthIndex(named[1]!), Number(named[2]), named[3]]
    : numbered
      ? [monthIndex(numbered[2]!), Number(numbered[1]), numbered[3]]
      : [0, 0, undefined];
  if (!month || date < 1 || date > 31) return undefined;
  const day = dayOf(year ? Number(year) : yearFor(month, today, prefer), month, date);
  return Number(day.slice(8)) === date ? day : undefined;
}

function monthPeriod(match: RegExpMatchArray, today: string, prefer: Prefer): Period | undefined {
  const [, preposition, name, year] = match;
  if ((name === "may" || name === "jun") && !preposition && !year) return undefined;
  const month = monthIndex(name!);
  const y = year ? Number(year) : yearFor(month, today, preposition === "since" ? "past" : prefer);
  const first = dayOf(y, month, 1);
  const title = `${MONTHS[month - 1]![0]!.toUpperCase()}${MONTHS[month - 1]!.slice(1)} ${y}`;
  if (preposition === "since") return { range: range(first, today, `since ${title}`) };
  if (preposition === "until" || preposition === "by") {
    return {
      range: range(prefer === "future" ? today : "2000-01-01", lastOfMonth(y, month), `until ${title}`),
    };
  }
  return { range: range(first, lastOfMonth(y, month), `in ${title}`) };
}

/**
 * Two written days (groups 1 and 8, see DAY) as one range, when both are real and in order. A range
 * that runs past today ("mar 20 thru apr 5" on March 18) ends in the coming month, not last year's.
 */
const dayRange: Build = (m, today, prefer) => {
  const from = parseDay(m[1]!, today, prefer);
  let to = parseDay(m[8]!, today, prefer);
  if (from && to && to < from) to = parseDay(m[8]!, today, "future");
  return from && to && from <= to ? { range: range(from, to, "") } : undefined;
};

const ORDINALS: Readonly<Record<string, number>> = {
  first: 1,
  "1st": 1,
  second: 2,
  "2nd": 2,
  third: 3,
  "3rd": 3,
  fourth: 4,
  "4th": 4,
};

/**
 * A part of a month (see the matcher): the k-th week is days 7k-6 to 7k, the last week its last seven
 * days, a half 1–15 or 16 to the end, "the first N days (weeks)" its first N days (7N days).
 */
const partOfMonth: Build = (m, today, prefer) => {
  const [, which, count, unit, name, written] = m;
  const month = monthIndex(name!);
  const year = written ? Number(written) : yearFor(month, today, prefer);
  const last = lastOfMonth(year, month);
  const size = Number(last.slice(8));
  const title = `${MONTHS[month - 1]![0]!.toUpperCase()}${MONTHS[month - 1]!.slice(1)} ${year}`;
  const end = which === "last" || which === "final";
  const n = count ? numberOf(count) : undefined;
  if (count && (n === undefined || unit === "half" || unit === "fortnight")) return undefined;
  if (!count && unit !== "week" && unit !== "half" && unit !== "fortnight") return undefined;
  let days: [number, number];
  if (unit === "half") {
    const k = ORDINALS[which!] ?? (end ? 2 : undefined);
    if (k === undefined || k > 2) return undefined;
    days = k === 1 ? [1, 15] : [16, size];
  } else if (count) {
    const length = Math.min(size, n! * (unit === "days" ? 1 : 7));
    if (!end && ORDINALS[which!] !== 1) return undefined;
    days = end ? [size - length + 1, size] : [1, length];
  } else {
    const length = unit === "fortnight" ? 14 : 7;
    const k = end ? undefined : ORDINALS[which!];
    days = k === undefined ? [size - length + 1, size] : [length * (k - 1) + 1, Math.min(size, length * k)];
  }
  const said = [which, count, unit].filter(Boolean).join(" ");
  return {
    range: range(dayOf(year, month, days[0]), dayOf(year, month, days[1]), `in the ${said} of ${title}`),
  };
};

/** Each pattern with what it means; earlier patterns win over later ones at any position. */
const MATCHERS: ReadonlyArray<[RegExp, Build]> = [
  [
    // A part of a month: "the last week of feb", "1st week of march", "the first half of march", "the
    // first 2 weeks of may", "the first 10 days of april", "the second half of jan".
    new RegExp(
      `\\b(?:in\\s+|during\\s+|over\\s+)?(?:the\\s+)?(first|1st|second|2nd|third|3rd|fourth|4th|last|final)\\s+(?:${NUM}\\s+)?(week|weeks|days|half|fortnight)\\s+of\\s+${MONTH_NAME}(?:\\s+(\\d{4}))?\\b`,
      "g",
    ),
    partOfMonth,
  ],
  [
    // "the week of jan 26", "the week starting mar 2": seven days from that day.
    new RegExp(`\\b(?:the\\s+)?week\\s+(?:of|starting|beginning|commencing|from)\\s+${DAY}`, "g"),
    (m, today, prefer) => {
      const day = parseDay(m[1]!, today, prefer);
      return day ? { range: range(day, addDays(day, 6), `in the week of ${day}`) } : undefined;
    },
  ],
  [
    // "the week after next": the calendar week (Monday to Sunday) after the next one.
    /\b(?:the\s+)?week\s+after\s+next\b/g,
    (_m, today) => {
      const monday = addDays(today, -weekdayOf(today) + 14);
      return { range: range(monday, addDays(monday, 6), "in the week after next") };
    },
  ],
  [new RegExp(`\\b(?:from|between)\\s+${DAY}\\s+(?:to|and|until|till|through|-)\\s+${DAY}`, "g"), dayRange],
  // "mar 20 thru apr 5", "jan 10 - mar 10": a range without its "from" ("and" alone joins two days, not a range).
  [new RegExp(`\\b${DAY}\\s*(?:to|until|till|through|-)\\s*${DAY}`, "g"), dayRange],
  [
    new RegExp(
      `\\b(?:(?:in|over|during|within|for|from)\\s+)?(?:the\\s+)?(?:last|past|previous|prior)\\s+${NUM}\\s+${UNIT}`,
      "g",
    ),
    (m, today) => rolling(numberOf(m[1]!) ?? 1, m[2]!, today, false),
  ],
  [
    new RegExp(
      `\\b(?:(?:in|over|during|within|for)\\s+)?(?:the\\s+)?(?:next|coming|following|upcoming)\\s+${NUM}\\s+${UNIT}`,
      "g",
    ),
    (m, today) => rolling(numberOf(m[1]!) ?? 1, m[2]!, today, true),
  ],
  [
    /\b(?:(?:in|over|during|within)\s+the\s+(?:last|past|previous)|(?:over\s+|in\s+)?the\s+past|past)\s+(day|week|fortnight|month|quarter|year)\b/g,
    (m, today) => rolling(1, m[1]!, today, false),
  ],
  [
    /\b(?:in|over|during|within)\s+the\s+(?:next|coming)\s+(day|week|fortnight|month|quarter|year)\b/g,
    (m, today) => rolling(1, m[1]!, today, true),
  ],
  [
    new RegExp(`\\b${NUM}\\s+${UNIT}\\s+(?:from now|ahead|out)\\b`, "g"),
    (m, today) => rolling(numberOf(m[1]!) ?? 1, m[2]!, today, true),
  ],
  [
    new RegExp(`\\b${NUM}\\s+${UNIT}\\s+ago\\b`, "g"),
    (m, today) => {
      const day = addDays(today, -(numberOf(m[1]!) ?? 1) * unitDays(m[2]!));
      return { range: range(day, day, "") };
    },
  ],
  [
    new RegExp(`\\b(?:within|in)\\s+${NUM}\\s+${UNIT}`, "g"),
    (m, today, prefer) => rolling(numberOf(m[1]!) ?? 1, m[2]!, today, prefer === "future"),
  ],
  [
    /\b(?:so far\s+)?(?:year to date|ytd|so far this year|this year so far)\b/g,
    (_m, today) => ({ range: range(`${today.slice(0, 4)}-01-01`, today, "this year so far") }),
  ],
  [
    /\b(?:month to date|mtd|so far this month|this month so far)\b/g,
    (_m, today) => ({ range: range(`${today.slice(0, 8)}01`, today, "this month so far") }),
  ],
  [
    /\bday before yesterday\b/g,
    (_m, today) => ({ range: range(addDays(today, -2), addDays(today, -2), "") }),
  ],
  // "last weekend": the Saturday and Sunday before this week; "this weekend": this week's.
  [
    /\b(last|this|next)\s+weekend\b/g,
    (m, today) => {
      const day = new Date(`${today}T00:00:00Z`).getUTCDay();
      const monday = addDays(today, -((day + 6) % 7));
      const saturday = addDays(monday, m[1] === "last" ? -2 : m[1] === "next" ? 12 : 5);
      return { range: range(saturday, addDays(saturday, 1), `${m[1]} weekend`) };
    },
  ],
  [/\byesterday\b/g, (_m, today) => ({ range: range(addDays(today, -1), addDays(today, -1), "yesterday") })],
  [/\b(?:today|tonight)\b/g, (_m, today) => ({ range: range(today, today, "today") })],
  [/\btomorrow\b/g, (_m, today) => ({ range: range(addDays(today, 1), addDays(today, 1), "tomorrow") })],
  [
    /\b(this|last|next|current|previous|coming|the current)\s+(week|month|quarter|year)\b/g,
    (m, today) => calendar(m[1]!, m[2]!, today),
  ],
  [
    /\b(?:(next|this|last|coming|on|by|until|before|since)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/g,
    (m, today, prefer) => weekday(m[1], m[2]!, today, prefer),
  ],
  [
    new RegExp(`\\b(?:(since|after|from|before|until|till|through|by|on)\\s+)?${DAY}`, "g"),
    (m, today, prefer) => {
      const day = parseDay(m[2]!, today, prefer);
      return day ? bounded(m[1], day, today) : undefined;
    },
  ],
  // "since the 10th", "before the 20th": a day of this month (of last month when it is still to come).
  [
    /\b(since|after|before|until|till|by)\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))(?!\s*(?:to|-|until|till|through|and)\b)/g,
    (m, today) => {
      const date = Number(m[2]);
      const [year, month] = [Number(today.slice(0, 4)), Number(today.slice(5, 7))];
      const past = date > Number(today.slice(8, 10)) && /^(?:since|after)$/.test(m[1]!);
      const [y, mo] = past ? (month === 1 ? [year - 1, 12] : [year, month - 1]) : [year, month];
      const day = `${y}-${String(mo).padStart(2, "0")}-${String(date).padStart(2, "0")}`;
      return parseDay(day, today, "past") ? bounded(m[1], day, today) : undefined;
    },
  ],
  [
    /\bq([1-4])(?:\s+(\d{4}))?\b|\b(first|second|third|fourth) quarter(?: of)?(?:\s+(\d{4}))?/g,
    (m, today) => {
      const quarter = m[1] ? Number(m[1]) : ["first", "second", "third", "fourth"].indexOf(m[3]!) + 1;
      const year = Number(m[2] ?? m[4] ?? today.slice(0, 4));
      const first = dayOf(year, quarter * 3 - 2, 1);
      return { range: range(first, lastOfMonth(year, quarter * 3), `in Q${quarter} ${year}`) };
    },
  ],
  [
    new RegExp(
      `\\b(?:(since|from|in|for|during|of|until|through|by)\\s+)?${MONTH_NAME}(?:\\s+(\\d{4}))?\\b`,
      "g",
    ),
    monthPeriod,
  ],
  [
    /\b(?:(in|for|during|since)\s+)(20\d{2}|19\d{2})\b/g,
    (m, today) =>
      m[1] === "since"
        ? { range: range(`${m[2]}-01-01`, today, `since ${m[2]}`) }
        : { range: range(`${m[2]}-01-01`, `${m[2]}-12-31`, `in ${m[2]}`) },
  ],
  // A year said alone ("monthly revenue 2026", "2025 deals"): not an amount ("over 2026", "2026 eur").
  [
    /(?<![$€£¥\d.,]\s?)(?<!\b(?:over|under|above|below|than|least|most|of|to|and|between|top|no|number|#)\s)\b(20\d{2})\b(?!\s*(?:k\b|eur|usd|gbp|chf|euros?|dollars?|\$|€|£|%|,\d|\.\d))/g,
    (m) => ({ range: range(`${m[1]}-01-01`, `${m[1]}-12-31`, `in ${m[1]}`) }),
  ],
];

/** The period a message names, read as a question about the past and about the future. */
export function findDates(lower: string, today: string): DateFinding {
  const spans: Array<[number, number]> = [];
  let chosen: { match: RegExpMatchArray; build: Build } | undefined;
  for (const [pattern, build] of MATCHERS) {
    for (const match of lower.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (spans.some(([a, b]) => start < b && end > a)) continue;
      if (!build(match, today, "past")) continue;
      spans.push([start, end]);
      chosen ??= { match, build };
    }
  }
  if (!chosen) return { spans };
  return {
    past: chosen.build(chosen.match, today, "past"),
    future: chosen.build(chosen.match, today, "future"),
    spans,
  };
}
