import type { InvoiceStatus } from "../../engines/finance/invoices.ts";
import type { CommunicationChannel, CommunicationDirection } from "./types.ts";
import type { DealStage } from "../../engines/growth/deals.ts";
import type { CandidateStatus } from "../../engines/talent/candidates.ts";
import { numberOf } from "./dates.ts";
import {
  CANDIDATE_STATUS_WORDS,
  CHANNEL_WORDS,
  CURRENCY_CODES,
  CURRENCY_WORDS,
  DEAL_STAGE_WORDS,
  DIRECTION_WORDS,
  findPhrases,
  INVOICE_STATUS_WORDS,
  LIFECYCLE_WORDS,
  SKILL_STATUS_WORDS,
  type LifecycleStage,
} from "./vocabulary.ts";

/**
 * The values a message names outright: invoice numbers, amounts with their currency, emails,
 * phones, statuses and stages (through their synonyms), "the second one", "top 5". Each is found
 * with its place in the text, so the words left over can be read as names (names.ts).
 */

export interface MoneyAmount {
  /** Exact decimal text, no grouping: "1200.50". */
  amount: string;
  currency?: string;
  start: number;
  end: number;
}

export interface Entities {
  /** "INV-000030", from "INV-000030", "inv 30", "invoice #30", "invoices 30 and 31". */
  invoiceRefs: string[];
  amounts: MoneyAmount[];
  /** Numbers that are none of the above and no date. */
  numbers: Array<{ value: number; text: string; start: number; end: number }>;
  currencies: string[];
  emails: string[];
  phones: string[];
  invoiceStatuses: InvoiceStatus[];
  dealStages: DealStage[];
  lifecycleStages: LifecycleStage[];
  candidateStatuses: CandidateStatus[];
  skillStatuses: Array<"verified" | "claimed">;
  channels: CommunicationChannel[];
  directions: CommunicationDirection[];
  /** 1-based place in the last list ("the second one"); -1 for the last. */
  ordinal?: number;
  /** "top 5", "the 3 biggest". */
  limit?: number;
  /** Text in double quotes, as written. */
  quoted: string[];
  /** Spans of ids, amounts, emails and phones: not names. */
  spans: Array<[number, number]>;
}

const CODES = CURRENCY_CODES.join("|");
const SYMBOLS = "€$£¥";
const NUMBER_TEXT = "(\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.(\\d{1,4}))?";
const CURRENCY_AFTER = `(${CODES}|euros?|dollars?|pounds?|bucks|quid|francs?|yen)\\b|([${SYMBOLS}])`;
const AMOUNT_BEFORE = new RegExp(
  `(?:([${SYMBOLS}])|\\b(${CODES})\\s?)${NUMBER_TEXT}(?:\\s?(k|thousand)\\b)?`,
  "gi",
);
const AMOUNT_AFTER = new RegExp(
  `(?<![\\w.,-])${NUMBER_TEXT}(?:\\s?(k|thousand)\\b)?\\s?(?:${CURRENCY_AFTER})`,
  "gi",
);
const UNITS_AFTER = "(?!\\s*(?:days?|weeks?|months?|years?|hours?|%|st\\b|nd\\b|rd\\b|th\\b))";
const INVOICE_CODE = /\bINV[-\s#]?0*(\d{1,9})\b/gi;
const INVOICE_WORD = new RegExp(
  `\\binvoices?\\s*(?:no\\.?|number|num|nr\\.?|#)?\\s*#?\\s*(\\d{1,9})\\b${UNITS_AFTER}((?:\\s*(?:,|and|&|or)\\s*#?\\s*\\d{1,9}\\b${UNITS_AFTER})*)`,
  "gi",
);
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
const PHONE =
  /(?<![\w-])(?:\+\d[\d\s().-]{5,}\d|(?<=(?:phone|tel|mobile|cell|number)[^\d]{0,25})\(?\d[\d\s().-]{5,}\d)(?![\w-])/gi;
const ORDINALS: Readonly<Record<string, number>> = {
  first: 1,
  "1st": 1,
  second: 2,
  "2nd": 2,
  third: 3,
  "3rd": 3,
  fourth: 4,
  "4th": 4,
  fifth: 5,
  "5th": 5,
  sixth: 6,
  "6th": 6,
  seventh: 7,
  "7th": 7,
  eighth: 8,
  "8th": 8,
  ninth: 9,
  "9th": 9,
  tenth: 10,
  "10th": 10,
  last: -1,
};
const ORDINAL_NOUN =
  "one|invoice|contact|deal|candidate|item|record|entry|result|person|client|payment|skill|product|communication|email|message";
const ORDINAL = new RegExp(
  `\\b(?:(the)\\s+)?(${Object.keys(ORDINALS).join("|")})(?!\\s+\\d)(?:\\s+(${ORDINAL_NOUN}))?\\b|(?:\\bnumber|\\bno\\.|\\bitem|#)\\s*(\\d{1,2})\\b`,
  "g",
);
const LIMIT =
  /\b(?:top|first|best|biggest|largest)\s+(\d{1,2}|[a-z]+)\b|\b(\d{1,2}|[a-z]+)\s+(?:biggest|largest|best|top|most|highest)\b/g;

function overlaps(spans: Array<[number, number]>, start: number, end: number): boolean {
  return spans.some(([a, b]) => start < b && end > a);
}

const uniq = <T>(values: T[]): T[] => [...new Set(values)];
const pad = (digits: string) => (digits.length <= 6 ? digits.padStart(6, "0") : digits);

export interface InvoiceMention {
  refs: string[];
  start: number;
  numbers: number;
  end: number;
}

/**
 * Where invoices are named by number: "INV-000030", "inv 30", "invoice #30", "invoices 30 and 31", "#30" when
 * invoices are mentioned. `start`–`end` is the whole mention ("invoices 30 and 31"); `numbers` starts at its
 * first digit (the word "invoice" before it is not part of the number). A word mention inside `avoid` (an
 * email address) is not one.
 */
export function invoiceMentions(text: string, avoid: ReadonlyArray<[number, number]> = []): InvoiceMention[] {
  const found: InvoiceMention[] = [];
  const taken = () => [...avoid, ...found.map(({ start, end }) => [start, end] as [number, number])];
  for (const match of text.matchAll(INVOICE_CODE)) {
    const end = match.index + match[0].length;
    found.push({ refs: [`INV-${pad(match[1]!)}`], start: match.index, numbers: match.index, end });
  }
  for (const match of text.matchAll(INVOICE_WORD)) {
    const end = match.index + match[0].length;
    if (overlaps(taken(), match.index, end)) continue;
    const more = [...(match[2] ?? "").matchAll(/\d{1,9}/g)].map((m) => m[0]);
    const refs = [match[1]!, ...more].map((digits) => `INV-${pad(digits.replace(/^0+(?=\d)/, ""))}`);
    found.push({ refs, start: match.index, numbers: match.index + match[0].search(/\d/), end });
  }
  if (/\binv(?:oice)?s?\b/i.test(text)) {
    for (const match of text.matchAll(/(?<![\w#])#\s?(\d{1,9})\b/g)) {
      const end = match.index + match[0].length;
      if (overlaps(taken(), match.index, end)) continue;
      found.push({ refs: [`INV-${pad(match[1]!)}`], start: match.index, numbers: match.index, end });
    }
  }
  return found;
}

function invoiceRefs(text: string, spans: Array<[number, number]>): string[] {
  const mentions = invoiceMentions(text, [...spans]);
  for (const mention of mentions) spans.push([mention.numbers, mention.end]);
  return uniq(mentions.flatMap((mention) => mention.refs));
}

function currencyOf(word: string | undefined): string | undefined {
  if (!word) return undefined;
  const upper = word.toUpperCase();
  if ((CURRENCY_CODES as readonly string[]).includes(upper)) return upper;
  return CURRENCY_WORDS[word.toLowerCase()];
}

function decimal(whole: string, fraction: string | undefined, thousands: string | undefined): string {
  const digits = whole.replace(/,/g, "");
  if (!thousands) return fraction ? `${digits}.${fraction}` : digits;
  const value = Number(`${digits}.${fraction ?? "0"}`) * 1000;
  return String(Math.round(value * 10_000) / 10_000);
}

function amounts(text: string, spans: Array<[number, number]>): MoneyAmount[] {
  const found: MoneyAmount[] = [];
  for (const match of text.matchAll(AMOUNT_BEFORE)) {
    const [all, symbol, code, whole, fraction, thousands] = match;
    const end = match.index + all.length;
    if (overlaps(spans, match.index, end)) continue;
    const currency = currencyOf(symbol ?? code);
    found.push({ amount: decimal(whole!, fraction, thousands), currency, start: match.index, end });
  }
  for (const match of text.matchAll(AMOUNT_AFTER)) {
    const [all, whole, fraction, thousands, word, symbol] = match;
    const end = match.index + all.length;
    if (
      overlaps(spans, match.index, end) ||
      overlaps(
        found.map((a) => [a.start, a.end]),
        match.index,
        end,
      )
    ) {
      continue;
    }
    const currency = currencyOf(word ?? symbol);
    found.push({ amount: decimal(whole!, fraction, thousands), currency, start: match.index, end });
  }
  for (const amount of found) spans.push([amount.start, amount.end]);
  return found.sort((a, b) => a.start - b.start);
}

function currencies(text: string, found: MoneyAmount[]): string[] {
  const named = [
    ...text.matchAll(
      new RegExp(
        `\\b(${CODES})\\b|\\b(euros?|dollars?|pounds?|sterling|yen|francs?)\\b|([${SYMBOLS}])`,
        "gi",
      ),
    ),
  ]
    .map((match) => currencyOf(match[1] ?? match[2] ?? match[3]))
    .filter((code): code is string => code !== undefined);
  return uniq([...found.flatMap((amount) => (amount.currency ? [amount.currency] : [])), ...named]);
}

function ordinalOf(lower: string, taken: Array<[number, number]>): number | undefined {
  const length = lower.replace(/[?.!\s]+$/, "").length;
  for (const match of lower.matchAll(ORDINAL)) {
    const end = match.index + match[0].length;
    if (overlaps(taken, match.index, end)) continue;
    if (match[4]) return Number(match[4]);
    const [, the, word, noun] = match;
    // "first" and "last" alone are too common ("last emails", "first quarter") to mean a place in a list.
    if (!the && !noun && end !== length) continue;
    if (word === "last" && !noun && end !== length) continue;
    return ORDINALS[word!];
  }
  return undefined;
}

function limitOf(lower: string): number | undefined {
  for (const match of lower.matchAll(LIMIT)) {
    const value = numberOf(match[1] ?? match[2] ?? "");
    if (value !== undefined && value > 0 && value <= 50) return value;
  }
  return undefined;
}

function bareNumbers(text: string, spans: Array<[number, number]>): Entities["numbers"] {
  const numbers: Entities["numbers"] = [];
  for (const match of text.matchAll(/(?<![\w.,-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,4}))?(?![\w-])/g)) {
    const end = match.index + match[0].length;
    if (overlaps(spans, match.index, end)) continue;
    const text = decimal(match[1]!, match[2], undefined);
    numbers.push({ value: Number(text), text, start: match.index, end });
  }
  return numbers;
}

const valuesOf = <V>(lower: string, table: ReadonlyArray<readonly [string, readonly V[]]>): V[] =>
  uniq(findPhrases(lower, table).flatMap((found) => [...found.value]));

/** Everything `text` names outright; `dateSpans` are the dates already found (dates.ts). */
export function findEntities(text: string, lower: string, dateSpans: Array<[number, number]>): Entities {
  const spans: Array<[number, number]> = [];
  const emails = uniq([...text.matchAll(EMAIL)].map((match) => match[0]));
  for (const match of text.matchAll(EMAIL)) spans.push([match.index, match.index + match[0].length]);
  const invoices = invoiceRefs(text, spans);
  const phones: string[] = [];
  for (const match of text.matchAll(PHONE)) {
    const end = match.index + match[0].length;
    if (overlaps([...spans, ...dateSpans], match.index, end)) continue;
    phones.push(match[0].trim());
    spans.push([match.index, end]);
  }
  const money = amounts(text, [...spans, ...dateSpans]);
  for (const amount of money) spans.push([amount.start, amount.end]);
  const ordinal = ordinalOf(lower, [...spans, ...dateSpans]);
  const limit = limitOf(lower);
  return {
    invoiceRefs: invoices,
    amounts: money,
    numbers: bareNumbers(text, [...spans, ...dateSpans]),
    currencies: currencies(text, money),
    emails,
    phones,
    invoiceStatuses: valuesOf(lower, INVOICE_STATUS_WORDS),
    dealStages: valuesOf(lower, DEAL_STAGE_WORDS),
    lifecycleStages: valuesOf(lower, LIFECYCLE_WORDS),
    candidateStatuses: valuesOf(lower, CANDIDATE_STATUS_WORDS),
    skillStatuses: uniq(findPhrases(lower, SKILL_STATUS_WORDS).map((found) => found.value)),
    channels: uniq(findPhrases(lower, CHANNEL_WORDS).map((found) => found.value)),
    directions: uniq(findPhrases(lower, DIRECTION_WORDS).map((found) => found.value)),
    ...(ordinal !== undefined ? { ordinal } : {}),
    ...(limit !== undefined ? { limit } : {}),
    quoted: [...text.matchAll(/"([^"]{1,200})"/g)].map((match) => match[1]!.trim()),
    spans,
  };
}
