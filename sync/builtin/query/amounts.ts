import { money } from "../../tools/resources.ts";
import { numberOf } from "../calendar.ts";
import { CURRENCY_WORDS, escapeRegExp } from "../vocabulary.ts";
import type { QueryPlan, Reading, Span } from "./reading.ts";
import { COMPARATORS, CURRENCY_NAMES, MONEY_FIELD, OWED, type Comparison } from "./words.ts";

/**
 * The numbers of a message and the comparisons made with them: "over 10k", "between 1,000 and
 * 5,000", "$2,500 or more", and how far past its due date an invoice is ("more than 45 days late").
 */

const SYMBOL_CURRENCY: Record<string, string> = { $: "USD", "€": "EUR", "£": "GBP", "¥": "JPY" };
// Thousands are grouped with commas or spaces ("10,000", "10 000").
const NUMBER = String.raw`(\d{1,3}(?:,\d{3})+|\d{1,3}(?: \d{3})+(?![\d.,])|\d+)(?:\.(\d{1,4}))?\s?(k|m|thousand|grand|million)?\b`;
const AMOUNT = new RegExp(
  String.raw`(?<![\w.])([$€£¥])?\s?${NUMBER}\s?(?:(${CURRENCY_NAMES})\b|([$€£¥]))?`,
  "gi",
);

/** A number in the message, where it is, and the currency or time unit written with it. */
export interface Amount {
  value: number;
  currency?: string;
  start: number;
  end: number;
  /** Followed by a time unit: "45 days". */
  unit?: string;
  /** The multiplier written with it ("k": 1,000), 1 without. */
  scale: number;
}

/** Every number in the message with its multiplier and currency: "10k", "$2,500", "300 usd", "45 days". */
export function amountsIn(lower: string, dateSpans: readonly Span[]): Amount[] {
  const found: Amount[] = [];
  for (const match of lower.matchAll(AMOUNT)) {
    const [all, before, whole, fraction, multiplier, word, after] = match;
    const start = match.index + all.length - all.trimStart().length;
    const end = match.index + all.trimEnd().length;
    if (dateSpans.some(([a, b]) => start < b && end > a)) continue;
    if (/^\d{4}-/.test(lower.slice(start))) continue;
    const scale =
      { k: 1e3, thousand: 1e3, grand: 1e3, m: 1e6, million: 1e6 }[multiplier?.toLowerCase() ?? ""] ?? 1;
    const value = Number(`${whole!.replace(/[, ]/g, "")}.${fraction ?? "0"}`) * scale;
    const code = before ?? after;
    const currency = code
      ? SYMBOL_CURRENCY[code]
      : word
        ? (CURRENCY_WORDS[word.toLowerCase()] ?? word.toUpperCase())
        : undefined;
    // "2 or more opportunities", "3+ invoices": a count of records, not an amount of money.
    if (
      !currency &&
      scale === 1 &&
      /^\s*(?:\+\s*|(?:or|and)\s+(?:more|fewer|less|over|under|up|above|below)\s+)?(?:open\s+|unpaid\s+|active\s+)?(?:opportunit(?:y|ies)|deals?|invoices?|bills?|payments?|contacts?|candidates?|skills?|emails?|calls?|meetings?|texts?|messages?|communications?|products?)\b/.test(
        lower.slice(end),
      )
    )
      continue;
    const unit = /^\s*(days?|weeks?|months?|years?)\b/.exec(lower.slice(end))?.[1];
    found.push({ value, scale, ...(currency ? { currency } : {}), start, end, ...(unit ? { unit } : {}) });
  }
  return found;
}

/** An amount as the reply says it: "2,500.00 EUR", or without a currency when none was named. */
function moneySaid(value: number, currency: string | undefined): string {
  return currency ? money(String(value), currency) : money(String(value), "").trim();
}

/** The comparisons, longest first: "not over" is not "over", "at or under" is not "under". */
const LONGEST_FIRST = [...COMPARATORS].sort((a, b) => b[0].length - a[0].length);

/** Comparisons said after the number: "10k or more", "2,500 and under". */
const SUFFIXES = new Set(
  COMPARATORS.map(([phrase]) => phrase).filter((phrase) => /^(?:or|and|plus)\b/.test(phrase)),
);

const COMPARISON_WORDS: Record<Comparison, string> = {
  gt: "over",
  gte: "at least",
  lt: "under",
  lte: "at most",
};

/** "over 10k", "between 1,000 and 5,000", "10k or more", "more than 45 days late". */
export function comparisons(reading: Reading, plan: QueryPlan, amounts: Amount[]): void {
  const lower = reading.lower;
  const resource = plan.resource;
  const moneyField = MONEY_FIELD[resource];
  const used = new Set<Amount>();
  const between = /\b(between|from)\s+$/;
  for (let i = 0; i < amounts.length; i++) {
    const amount = amounts[i]!;
    if (used.has(amount) || reading.taken.some(([a, b]) => amount.start >= a && amount.end <= b)) continue;
    const before = lower.slice(0, amount.start);
    const next = amounts[i + 1];
    // "between 5k and 10k", "from 1,000 to 5,000", "in the 5k-10k range".
    const joined = next && /^\s*(?:and|to|-|–)\s*$/.test(lower.slice(amount.end, next.start));
    const dashed = next && /^\s*(?:-|–|to)\s*$/.test(lower.slice(amount.end, next.start)) && !amount.unit;
    if (next && ((between.test(before) && joined) || dashed)) {
      if (!moneyField) continue;
      const currency = amount.currency ?? next.currency;
      // "5-20k": the second's multiplier is the first's too, when the first has none of its own.
      const first =
        next.scale > 1 && amount.scale === 1 && amount.value * next.scale <= next.value
          ? amount.value * next.scale
          : amount.value;
      const [low, high] = [first, next.value].sort((a, b) => a - b) as [number, number];
      plan.where.push(
        { field: moneyField, op: "gte", value: low },
        { field: moneyField, op: "lte", value: high },
      );
      plan.said.push(`between ${moneySaid(low, currency)} and ${moneySaid(high, currency)}`);
      if (currency) {
        plan.where.push({ field: "currency", op: "eq", value: currency });
      }
      const start = between.test(before)
        ? amount.start - (before.length - (between.exec(before)?.index ?? before.length))
        : amount.start;
      reading.take(start, next.end);
      used.add(amount).add(next);
      plan.structured.push("comparison");
      continue;
    }
    let op: Comparison | undefined;
    let start = amount.start;
    let end = amount.end;
    for (const [phrase, comparison] of LONGEST_FIRST) {
      const prefix = new RegExp(
        `(?:^|[^\\p{L}])${escapeRegExp(phrase)}\\s*(?:of\\s+|than\\s+)?(?:about\\s+|around\\s+)?$`,
        "u",
      ).exec(before);
      if (prefix && !SUFFIXES.has(phrase)) {
        op = comparison;
        start =
          prefix.index +
          (prefix[0].length - prefix[0].trimStart().length) +
          (/^[^\p{L}<>]/u.test(prefix[0]) ? 1 : 0);
        break;
      }
      const suffix = new RegExp(`^\\s*\\+?\\s*${escapeRegExp(phrase)}(?![\\p{L}])`, "u").exec(
        lower.slice(amount.end),
      );
      if (suffix && (SUFFIXES.has(phrase) || phrase === "+")) {
        op = comparison;
        end = amount.end + suffix[0].length;
        break;
      }
    }
    if (!op && /^\+/.test(lower.slice(amount.end))) {
      op = "gte";
      end = amount.end + 1;
    }
    if (!op) continue;
    // "more than 45 days late": the days an invoice is past its due date.
    if (amount.unit) {
      const tail =
        /^\s*(days?|weeks?|months?)\s+(late|overdue|past due|past-due|behind|outstanding|old)\b/.exec(
          lower.slice(amount.end),
        );
      if (resource === "invoices" && tail) {
        const days = amount.value * (tail[1]!.startsWith("week") ? 7 : tail[1]!.startsWith("month") ? 30 : 1);
        plan.where.push({ field: "days_overdue", op, value: days });
        if (op === "gt" || op === "gte") plan.where.push({ field: "status", op: "eq", value: "overdue" });
        plan.said.push(`${COMPARISON_WORDS[op]} ${days} days past due`);
        reading.take(start, amount.end + tail[0].length);
        used.add(amount);
        plan.structured.push("comparison");
      }
      continue;
    }
    if (!moneyField) continue;
    // "clients who owe more than 10k altogether": a bound on each client's total, which a condition
    // on each record is not. Left unread, so the question is not answered as the other one.
    const summed = /\b(altogether|all together|in total|combined|between them|all told|summed up)\b/.exec(
      lower,
    );
    if (
      summed &&
      /\b(who|which|what) (?:clients?|customers?|companies|contacts?|people)\b|\bwho\b/.test(lower)
    ) {
      plan.leftover.push(summed[1]!);
      reading.take(summed.index, summed.index + summed[0].length);
    }
    // "already got more than 1500 in", "paid over 1k so far": what has been paid of it.
    const paidBefore = /\b(?:paid|got|gotten|received|collected)\s+(?:already\s+|so\s+far\s+)?$/.test(
      lower.slice(Math.max(0, start - 30), start),
    );
    const paidAfter = /^\s+(?:in|paid)\b/.exec(lower.slice(end));
    const paid =
      resource === "invoices" &&
      (paidBefore || (paidAfter !== null && /\b(?:got|received|collected)\b/.test(lower)));
    if (paid && paidAfter) end += paidAfter[0].length;
    const field = paid ? "paid" : resource === "invoices" && OWED.test(lower) ? "outstanding" : moneyField;
    plan.where.push({ field, op, value: amount.value });
    if (amount.currency) plan.where.push({ field: "currency", op: "eq", value: amount.currency });
    plan.said.push(
      `${field === "outstanding" ? "owing " : field === "paid" ? "paid " : ""}${COMPARISON_WORDS[op]} ${moneySaid(amount.value, amount.currency)}`,
    );
    reading.take(start, end);
    used.add(amount);
    plan.structured.push("comparison");
  }
}

const LATE = "(?:late|overdue|past due|past-due|behind)";
const HOW_FAR = "(more than|over|at least|longer than|less than|under|fewer than|at most|within)";
const SPAN =
  "(\\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty-five|sixty|ninety)\\s+(day|week|month)s?";

/** "overdue by less than a week", "more than 45 days late": how far past the due date. */
export function lateness(reading: Reading, plan: QueryPlan): void {
  if (plan.resource !== "invoices") return;
  const after = new RegExp(`\\b${LATE}\\s+(?:by\\s+|for\\s+)?${HOW_FAR}\\s+${SPAN}`).exec(reading.lower);
  const before = new RegExp(`\\b${HOW_FAR}\\s+${SPAN}\\s+${LATE}`).exec(reading.lower);
  const match = after ?? before;
  if (!match) return;
  const [, how, count, unit] = match as unknown as [string, string, string, string];
  const n = /^\d+$/.test(count)
    ? Number(count)
    : count === "a" || count === "an"
      ? 1
      : (numberOf(count) ?? 1);
  const days = n * (unit === "week" ? 7 : unit === "month" ? 30 : 1);
  const op: Comparison = /more|over|longer/.test(how)
    ? "gt"
    : /at least/.test(how)
      ? "gte"
      : /at most|within/.test(how)
        ? "lte"
        : "lt";
  plan.where.push(
    { field: "days_overdue", op, value: days },
    { field: "status", op: "eq", value: "overdue" },
  );
  plan.said.push(`${COMPARISON_WORDS[op]} ${days} days past due`);
  reading.take(match.index, match.index + match[0].length);
  plan.structured.push("comparison");
}
