import type { Condition } from "../../tools/query.ts";
import type { ResourceName } from "../../tools/resources.ts";
import { money } from "../../tools/resources.ts";
import type { Analysis } from "../analysis.ts";
import { addDays, type Period } from "../dates.ts";
import { numberOf } from "../calendar.ts";
import { STOPWORDS } from "../stopwords.ts";
import {
  CANDIDATE_STATUS_WORDS,
  CHANNEL_WORDS,
  CURRENCY_WORDS,
  DEAL_STAGE_WORDS,
  escapeRegExp,
  findPhrases,
  INVOICE_STATUS_WORDS,
  LIFECYCLE_WORDS,
  SKILL_STATUS_WORDS,
} from "../vocabulary.ts";
import {
  AGE_FIELD,
  AGGREGATE_WORDS,
  COMPARATORS,
  DATE_FIELD_LABEL,
  DATE_FIELD_WORDS,
  DEFAULT_DATE,
  MONEY_FIELD,
  PERIOD_GROUPS,
  RATIO_WORDS,
  RESOURCE_WORDS,
  SUPERLATIVES,
  type AggregateWord,
  type Comparison,
} from "./words.ts";

/**
 * A message read as one structured question (`QueryPlan`): the resource, its conditions, the
 * window on a named date, the aggregate or the order, and the words each part was read from.
 * Every word the plan takes has a span; what is left of the message (`leftover`), once the
 * spans, the names to look up and the words that carry no meaning are taken out, is what the
 * planner did not understand: a plan with a leftover word is never answered as if it had none.
 */

export type Span = [number, number];

export interface QueryPlan {
  resource: ResourceName;
  /** The message names the resource itself (not taken from the list before). */
  named: boolean;
  /** Named only by a status word ("who did we turn down"): the intents know most of those. */
  byStatus: boolean;
  where: Condition[];
  /** What each condition is, in words, in the order the reply says them. */
  said: string[];
  /** Status words ("open", "unpaid"): said before the noun. */
  adjectives: string[];
  aggregate?: { fn: "count" | "sum" | "avg" | "min" | "max" | "median"; field?: string };
  ratio?: { where: Condition[]; said: string; of: string };
  /** A field or `month:<date field>`. */
  groupBy?: string;
  groupSaid?: string;
  order?: { field: string; descending: boolean; said: string };
  /** Groups ranked by their value: "who owes us the most" is the first group. */
  rank?: { descending: boolean; limit: number; said: string };
  limit?: number;
  /** What makes this more than a plain list: why the query layer, not the intents, answers it. */
  structured: string[];
  /** Runs of words that may be a name (a client, a contact, a deal), to look up. */
  names: Array<{ text: string; start: number; end: number }>;
  /** Words that matter and that no part of the plan accounts for. */
  leftover: string[];
}

/** Words that never change what a question means (beyond the stopwords). */
const NEUTRAL = new Set([
  "show",
  "list",
  "give",
  "find",
  "get",
  "tell",
  "which",
  "what",
  "who",
  "whom",
  "are",
  "is",
  "do",
  "does",
  "did",
  "have",
  "has",
  "we",
  "us",
  "our",
  "the",
  "a",
  "an",
  "of",
  "in",
  "on",
  "for",
  "with",
  "from",
  "to",
  "by",
  "at",
  "all",
  "any",
  "there",
  "currently",
  "right",
  "now",
  "still",
  "ones",
  "one",
  "me",
  "please",
  "pls",
  "them",
  "those",
  "these",
  "that",
  "this",
  "it",
  "and",
  "or",
  "so",
  "far",
  "yet",
  "ever",
  "got",
  "get",
  "see",
  "want",
  "know",
  "need",
  "look",
  "value",
  "values",
  "amount",
  "amounts",
  "money",
  "size",
  "sized",
  "worth",
  "figure",
  "number",
  "record",
  "records",
  "items",
  "item",
  "entries",
  "data",
  "currently",
  "exactly",
  "approximately",
  "roughly",
  "about",
  "around",
  "only",
  "just",
  "whose",
  "where",
  "was",
  "were",
  "be",
  "been",
  "being",
  "having",
  "had",
  "total",
  "status",
  "stage",
  "as",
  "than",
  "out",
  "standing",
  "up",
  "come",
  "came",
  "coming",
  "sorted",
  "sort",
  "order",
  "ordered",
  "each",
  "every",
  "how",
  "many",
  "much",
]);

const SYMBOL_CURRENCY: Record<string, string> = { $: "USD", "€": "EUR", "£": "GBP", "¥": "JPY" };
const CODES = "eur|usd|gbp|chf|jpy|cad|aud";
const CURRENCY_NAME = `${CODES}|euros?|dollars?|bucks|pounds?|quid`;
const NUMBER = String.raw`(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,4}))?\s?(k|m|thousand|grand|million)?\b`;
const AMOUNT = new RegExp(
  String.raw`(?<![\w.])([$€£¥])?\s?${NUMBER}\s?(?:(${CURRENCY_NAME})\b|([$€£¥]))?`,
  "gi",
);

export interface Amount {
  value: number;
  currency?: string;
  start: number;
  end: number;
  /** Followed by a time unit: "45 days". */
  unit?: string;
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
    const value = Number(`${whole!.replace(/,/g, "")}.${fraction ?? "0"}`) * scale;
    const code = before ?? after;
    const currency = code
      ? SYMBOL_CURRENCY[code]
      : word
        ? (CURRENCY_WORDS[word.toLowerCase()] ?? word.toUpperCase())
        : undefined;
    const unit = /^\s*(days?|weeks?|months?|years?)\b/.exec(lower.slice(end))?.[1];
    found.push({ value, ...(currency ? { currency } : {}), start, end, ...(unit ? { unit } : {}) });
  }
  return found;
}

/** Status phrases only this layer reads (the intents' vocabulary lacks them). */
const OWN_PHRASES = new Set([
  "in play",
  "still in play",
  "still open",
  "fell through",
  "fall through",
  "falling through",
  "did not close",
  "signed",
  "landed",
  "turn down",
  "turned away",
  "let go",
  "did not make it",
  "in the running",
  "not closed",
]);

const STATUS_TABLES: Partial<
  Record<ResourceName, { field: string; table: ReadonlyArray<readonly [string, readonly string[]]> }>
> = {
  invoices: { field: "status", table: INVOICE_STATUS_WORDS },
  deals: {
    field: "stage",
    table: [
      ...DEAL_STAGE_WORDS,
      ["in play", ["lead", "qualified", "proposal"]],
      ["in the pipeline", ["lead", "qualified", "proposal"]],
      ["pipeline", ["lead", "qualified", "proposal"]],
      ["not closed", ["lead", "qualified", "proposal"]],
      ["still in play", ["lead", "qualified", "proposal"]],
      ["still open", ["lead", "qualified", "proposal"]],
      ["fell through", ["lost"]],
      ["fall through", ["lost"]],
      ["falling through", ["lost"]],
      ["did not close", ["lost"]],
      ["closed", ["won", "lost"]],
      ["signed", ["won"]],
      ["landed", ["won"]],
    ],
  },
  contacts: { field: "lifecycle_stage", table: LIFECYCLE_WORDS },
  candidates: {
    field: "status",
    table: [
      ...CANDIDATE_STATUS_WORDS,
      ["turn down", ["rejected"]],
      ["turned away", ["rejected"]],
      ["let go", ["rejected"]],
      ["did not make it", ["rejected"]],
      ["in the running", ["applied", "screening", "interview", "offer"]],
      ["in the process", ["applied", "screening", "interview", "offer"]],
      ["in process", ["applied", "screening", "interview", "offer"]],
    ],
  },
  skills: {
    field: "status",
    table: SKILL_STATUS_WORDS.map(([phrase, value]) => [phrase, [value]] as const),
  },
  communications: {
    field: "channel",
    table: CHANNEL_WORDS.map(([phrase, value]) => [phrase, [value]] as const),
  },
};

/** Verbs that say which resource a question is about when no noun does. */
const IMPLIED: ReadonlyArray<[string, ResourceName]> = [
  ["owes", "invoices"],
  ["owe", "invoices"],
  ["owed", "invoices"],
  ["owing", "invoices"],
  ["outstanding", "invoices"],
  ["unpaid", "invoices"],
  ["overdue", "invoices"],
  ["hear from", "communications"],
  ["never contacted", "communications"],
  ["talk to", "communications"],
  ["balance", "invoices"],
  ["reach out", "communications"],
  ["reached out", "communications"],
  ["get in touch", "communications"],
  ["got in touch", "communications"],
  ["in touch", "communications"],
  ["last contact", "communications"],
  ["last contacted", "communications"],
  ["speak with", "communications"],
  ["speak to", "communications"],
  ["spoken to", "communications"],
  ["heard from", "communications"],
  ["talk to", "communications"],
  ["talked to", "communications"],
  ["spoke to", "communications"],
  ["spoke with", "communications"],
  ["contacted", "communications"],
  ["applied", "candidates"],
  ["win rate", "deals"],
  ["close rate", "deals"],
  ["received", "payments"],
  ["collected", "payments"],
  ["came in", "payments"],
  ["brought in", "payments"],
  ["earned", "payments"],
  ["takings", "payments"],
  ["turnover", "payments"],
  ["sales", "payments"],
];

interface Reading {
  analysis: Analysis;
  /** The conditions of the list a follow-up refines: "what about last month?" after won deals is about closing. */
  context: readonly Condition[];
  /** Nouns of another resource than the plan's. */
  other: string[];
  lower: string;
  taken: Span[];
  take(start: number, end: number): void;
}

function phrases<V>(reading: Reading, table: ReadonlyArray<readonly [string, V]>) {
  const found = findPhrases(reading.lower, table).filter(
    ({ start, end }) => !reading.taken.some(([a, b]) => start < b && end > a),
  );
  return found;
}

/** The word (or two) right before a span: "not" in "not verified". */
function negatedBefore(lower: string, start: number): number | undefined {
  const before = lower.slice(Math.max(0, start - 24), start);
  const match =
    /\b(not|never|no|nobody has|without|except|excluding|other than|but not|non|isn't|aren't)(?:\s+|-)(?:yet\s+|been\s+|be\s+|in\s+|the\s+|a\s+|an\s+|yet\s+been\s+)?$/.exec(
      before,
    );
  return match ? start - (before.length - match.index) : undefined;
}

function resourceOf(
  reading: Reading,
  memory: ResourceName | undefined,
): { resource: ResourceName; named: boolean; byStatus?: boolean } | undefined {
  // "last contact with", "when did we speak to": a conversation, whatever noun is beside it.
  const talked = phrases(reading, IMPLIED).filter((found) => found.value === "communications");
  if (talked.length > 0) {
    reading.take(talked[0]!.start, talked[0]!.end);
    // "contacts we've never contacted" is about contacts without conversations: a join.
    for (const found of phrases(reading, RESOURCE_WORDS))
      if (found.value !== "communications") reading.other.push(found.phrase);
    return { resource: "communications", named: true };
  }
  const named = phrases(reading, RESOURCE_WORDS);
  const kinds = [...new Set(named.map((found) => found.value))];
  for (const found of named) if (found.value === kinds[0]) reading.take(found.start, found.end);
  // A second kind of record ("candidates with no verified skills") joins two resources: not this layer's.
  for (const found of named) if (found.value !== kinds[0]) reading.other.push(found.phrase);
  if (kinds.length >= 1) return { resource: kinds[0]!, named: true };
  const implied = phrases(reading, IMPLIED);
  if (implied.length > 0) {
    // "owes" and "overdue" also name a status or an amount: only the verbs of one resource are taken.
    if (implied[0]!.value === "communications" || implied[0]!.value === "payments") {
      reading.take(implied[0]!.start, implied[0]!.end);
    }
    return { resource: implied[0]!.value, named: true };
  }
  for (const [resource, tables] of Object.entries(STATUS_TABLES) as Array<
    [ResourceName, { table: ReadonlyArray<readonly [string, readonly string[]]> }]
  >) {
    if (resource === "contacts" || resource === "communications") continue;
    const statuses = findPhrases(reading.lower, tables.table).filter(
      ({ phrase }) => !["open", "active", "lead", "leads", "in progress", "closed"].includes(phrase),
    );
    if (statuses.length > 0)
      return memory ? { resource: memory, named: false } : { resource, named: true, byStatus: true };
  }
  return memory ? { resource: memory, named: false } : undefined;
}

function moneySaid(value: number, currency: string | undefined): string {
  return currency ? money(String(value), currency) : money(String(value), "").trim();
}

const COMPARISON_WORDS: Record<Comparison, string> = {
  gt: "over",
  gte: "at least",
  lt: "under",
  lte: "at most",
};

/** "over 10k", "between 1,000 and 5,000", "10k or more", "more than 45 days late". */
function comparisons(reading: Reading, plan: QueryPlan, amounts: Amount[]): void {
  const { lower, resource } = { lower: reading.lower, resource: plan.resource };
  const moneyField = MONEY_FIELD[resource];
  const used = new Set<Amount>();
  const between = new RegExp(String.raw`\b(between|from)\s+$`);
  for (let i = 0; i < amounts.length; i++) {
    const amount = amounts[i]!;
    if (used.has(amount) || reading.taken.some(([a, b]) => amount.start >= a && amount.end <= b)) continue;
    const before = lower.slice(0, amount.start);
    const next = amounts[i + 1];
    if (between.test(before) && next && /^\s*(?:and|to|-)\s*$/.test(lower.slice(amount.end, next.start))) {
      if (!moneyField) continue;
      const currency = amount.currency ?? next.currency;
      const [low, high] = [amount.value, next.value].sort((a, b) => a - b) as [number, number];
      plan.where.push(
        { field: moneyField, op: "gte", value: low },
        { field: moneyField, op: "lte", value: high },
      );
      plan.said.push(`between ${moneySaid(low, currency)} and ${moneySaid(high, currency)}`);
      if (currency) {
        plan.where.push({ field: "currency", op: "eq", value: currency });
      }
      const start = amount.start - (before.length - (between.exec(before)?.index ?? before.length));
      reading.take(start, next.end);
      used.add(amount).add(next);
      plan.structured.push("comparison");
      continue;
    }
    let op: Comparison | undefined;
    let start = amount.start;
    let end = amount.end;
    for (const [phrase, comparison] of COMPARATORS) {
      const prefix = new RegExp(
        `(?:^|[^\\p{L}])${escapeRegExp(phrase)}\\s*(?:of\\s+|than\\s+)?(?:about\\s+|around\\s+)?$`,
        "u",
      ).exec(before);
      if (prefix && !["or more", "and up", "plus", "or less", "or under"].includes(phrase)) {
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
      if (suffix && ["or more", "and up", "plus", "or less", "or under", "+"].includes(phrase)) {
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
    const field = resource === "invoices" && OWED.test(lower) ? "outstanding" : moneyField;
    plan.where.push({ field, op, value: amount.value });
    if (amount.currency) plan.where.push({ field: "currency", op: "eq", value: amount.currency });
    plan.said.push(
      `${field === "outstanding" ? "owing " : ""}${COMPARISON_WORDS[op]} ${moneySaid(amount.value, amount.currency)}`,
    );
    reading.take(start, end);
    used.add(amount);
    plan.structured.push("comparison");
  }
}

/** Words that ask what is still owed on an invoice, not its whole amount. */
const OWED = /\b(owe|owes|owed|owing|balance|left to pay|still due)\b/;
/** Words that ask for money received. */
const REVENUE =
  /\b(revenue|income|takings|turnover|sales|collected|collect|earned|brought in|how much|total)\b/;

const MONEY_WORDS =
  /\b(owe|owes|owed|owing|value|worth|revenue|amount|money|paid|pays|spent|spend|billed|invoiced)\b/;

/**
 * "who owes us the most", "which client has the most overdue invoices", "which source brings the
 * fewest candidates": a total or a count per group, the groups ranked.
 */
function ranking(reading: Reading, plan: QueryPlan): boolean {
  const most =
    /\b(?:the\s+)?(most|least|fewest|biggest|largest|highest|lowest)\b(?!\s+(?:expensive|valuable|recent|recently)\b)/.exec(
      reading.lower,
    );
  if (!most) return false;
  const lower = reading.lower;
  let group: [string, string] | undefined;
  if (
    plan.resource === "invoices" &&
    /\b(who|which|whom|what)\b/.test(lower) &&
    /\b(owe|owes|owed|owing|pays|paid|spent|spend|billed|invoiced|client|customer|company|debtor|payer)\b/.test(
      lower,
    )
  ) {
    group = ["client", "client"];
  }
  for (const [word, field] of GROUP_FIELDS[plan.resource] ?? []) {
    if (group) break;
    const match = new RegExp(`\\b(?:which|what|whose)\\s+(${word})s?\\b`).exec(lower);
    if (match) {
      group = [word, field];
      reading.take(match.index, match.index + match[0].length);
    }
  }
  if (!group) return false;
  // "which client paid the most" is the intents' top clients; what is owed or counted is this layer's.
  // "who owes us the most" is their ranked balances too; a count per client ("the most overdue invoices") is not.
  if (group[1] === "client" && !/\b(invoices|bills)\b/.test(lower)) return false;
  const client = /\b(client|customer|company|debtor|payer)s?\b/.exec(lower);
  if (client) reading.take(client.index, client.index + client[0].length);
  const who = /\bwho\b/.exec(lower);
  if (who) reading.take(who.index, who.index + who[0].length);
  reading.take(most.index, most.index + most[0].length);
  // "the most overdue invoices": counted among the overdue ones.
  const status = /^\s+(overdue|late|unpaid|open)\b/.exec(lower.slice(most.index + most[0].length));
  if (status && plan.resource === "invoices") {
    const values =
      status[1] === "open" ? ["open"] : status[1] === "unpaid" ? ["open", "overdue"] : ["overdue"];
    plan.where.push({ field: "status", op: "in", value: values });
    plan.adjectives.push(status[1]!);
    const at = most.index + most[0].length + status[0].indexOf(status[1]!);
    reading.take(at, at + status[1]!.length);
  }
  const descending = !/least|fewest|lowest/.test(most[1]!);
  const owes = /\b(owe|owes|owed|owing)\b/.exec(lower);
  const moneyField = MONEY_FIELD[plan.resource];
  if (MONEY_WORDS.test(lower) && moneyField) {
    const field = plan.resource === "invoices" && owes ? "outstanding" : moneyField;
    plan.aggregate = { fn: "sum", field };
    if (owes) {
      reading.take(owes.index, owes.index + owes[0].length);
      if (!plan.where.some((condition) => condition.field === "status")) {
        plan.where.push({ field: "status", op: "in", value: ["open", "overdue"] });
        plan.adjectives.push("unpaid");
      }
    }
    const spent = MONEY_WORDS.exec(lower)!;
    reading.take(spent.index, spent.index + spent[0].length);
  } else {
    plan.aggregate = { fn: "count" };
  }
  const top = /\b(?:top)\s+(\d{1,2}|two|three|four|five|ten)\b/.exec(lower);
  if (top) reading.take(top.index, top.index + top[0].length);
  plan.groupBy = group[1];
  plan.groupSaid = `per ${group[0]}`;
  plan.rank = { descending, limit: top ? (numberOf(top[1]!) ?? Number(top[1])) : 1, said: most[1]! };
  plan.structured.push("rank");
  return true;
}

/** "sort them by amount", "order by due date": the list in that order. */
function sorting(reading: Reading, plan: QueryPlan): boolean {
  const sort =
    /\b(?:sort|sorted|order|ordered|rank|ranked|arrange)\s+(?:them\s+|those\s+|these\s+|it\s+|the list\s+)?by\s+(?:the\s+)?([a-z]+(?:\s+date)?)(?:\s+(desc|descending|asc|ascending|first))?/.exec(
      reading.lower,
    );
  if (!sort) return false;
  const word = sort[1]!;
  const money = MONEY_FIELD[plan.resource];
  const field = /^(amount|value|price|size|total|money|biggest|largest)/.test(word)
    ? money
    : /^due/.test(word) && plan.resource === "invoices"
      ? "due_date"
      : /^(date|age|created|newest|oldest|issue)/.test(word)
        ? AGE_FIELD[plan.resource]
        : /^(name|title)/.test(word)
          ? plan.resource === "deals"
            ? "title"
            : plan.resource === "invoices"
              ? "client"
              : "name"
          : undefined;
  if (!field) return false;
  const ascending = sort[2]
    ? /^asc/.test(sort[2])
    : field === "due_date" || /^(name|title|oldest)/.test(word);
  reading.take(sort.index, sort.index + sort[0].length);
  plan.order = { field, descending: !ascending, said: ascending ? `by ${word}` : `by ${word}, largest` };
  plan.structured.push("order");
  return true;
}

/** "when did we last hear from", "the latest email": the newest communication first. */
function latest(reading: Reading, plan: QueryPlan): boolean {
  if (plan.resource !== "communications") return false;
  if (
    !/\b(when|last time|last contact|last heard|last hear|last spoke|last spoken|last talked|last reached|last got)\b|\b(hear|heard|spoke|spoken|talked|reach|reached|touch)\b.*\blast\b|\blast\b.*\b(hear|heard|spoke|speak|talked|talk|reach|reached|touch|contact)\b/.test(
      reading.lower,
    )
  )
    return false;
  const last =
    /\b(last|latest|most recent|most recently|recently)\b(?!\s+(?:\d+\s+|few\s+|couple of\s+)?(?:day|week|fortnight|month|quarter|year)s?\b)/.exec(
      reading.lower,
    );
  if (!last) return false;
  if (reading.analysis.dates.spans.some(([a, b]) => last.index >= a && last.index < b)) return false;
  reading.take(last.index, last.index + last[0].length);
  const when = /\bwhen\b/.exec(reading.lower);
  if (when) reading.take(when.index, when.index + when[0].length);
  plan.order = { field: "occurred_at", descending: true, said: "most recent" };
  plan.limit = 1;
  plan.structured.push("order");
  return true;
}

const LATE = "(?:late|overdue|past due|past-due|behind)";
const HOW_FAR = "(more than|over|at least|longer than|less than|under|fewer than|at most|within)";
const SPAN =
  "(\\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty-five|sixty|ninety)\\s+(day|week|month)s?";

/** "overdue by less than a week", "more than 45 days late": how far past the due date. */
function lateness(reading: Reading, plan: QueryPlan): void {
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

function superlatives(reading: Reading, plan: QueryPlan, amounts: Amount[]): void {
  const found = phrases(reading, SUPERLATIVES);
  const top =
    /\b(?:top|bottom|first|last)\s+(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|twenty)\b(?!\s+(?:day|week|fortnight|month|quarter|year|hour)s?\b)/.exec(
      reading.lower,
    );
  const counted = new RegExp(
    String.raw`\b(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|twenty)\s+(?:${SUPERLATIVES.map(([phrase]) => escapeRegExp(phrase)).join("|")})\b`,
  ).exec(reading.lower);
  const after = new RegExp(
    String.raw`\b(?:${SUPERLATIVES.map(([phrase]) => escapeRegExp(phrase)).join("|")})\s+(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|twenty)\b`,
  ).exec(reading.lower);
  if (after) reading.take(after.index + after[0].length - after[1]!.length, after.index + after[0].length);
  const limitText = counted?.[1] ?? top?.[1] ?? after?.[1];
  const limit = limitText ? (numberOf(limitText) ?? Number(limitText)) : undefined;
  if (counted) reading.take(counted.index, counted.index + counted[1]!.length);
  if (top) {
    reading.take(top.index, top.index + top[0].length);
    for (const amount of amounts)
      if (amount.start >= top.index && amount.end <= top.index + top[0].length)
        amounts.splice(amounts.indexOf(amount), 1);
  }
  // "the first candidate", "the first payment this year": the oldest; "the last invoice": the newest.
  const first =
    /\b(first|earliest|last|latest|newest|most recent)\s+(?:\w+\s+)?(candidate|applicant|payment|invoice|bill|deal|contact|skill|product)s?\b/.exec(
      reading.lower,
    );
  if (
    !found[0] &&
    !top &&
    first &&
    !reading.analysis.dates.spans.some(([a, b]) => first.index >= a && first.index < b)
  ) {
    const descending = !/^(first|earliest)$/.test(first[1]!);
    reading.take(first.index, first.index + first[1]!.length);
    plan.order = { field: AGE_FIELD[plan.resource], descending, said: descending ? "newest" : "first" };
    plan.limit = 1;
    plan.structured.push("order");
    return;
  }
  const superlative = found[0];
  if (!superlative && !top) return;
  const { by, descending } = superlative?.value ?? {
    by: "money" as const,
    descending: !/\bbottom\b/.test(top![0]),
  };
  if (superlative) reading.take(superlative.start, superlative.end);
  let field: string | undefined;
  if (by === "money") field = MONEY_FIELD[plan.resource];
  else if (by === "overdue") {
    field = plan.resource === "invoices" ? "days_overdue" : undefined;
    if (field) plan.where.push({ field: "status", op: "eq", value: "overdue" });
  } else field = AGE_FIELD[plan.resource];
  if (plan.resource === "invoices" && by === "money" && OWED.test(reading.lower)) field = "outstanding";
  // "the highest deal value", "the smallest invoice amount": a figure, not a record.
  if (
    superlative &&
    by === "money" &&
    field &&
    limit === undefined &&
    /^\s+(?:[a-z]+\s+)?(value|amount|price|total|size)\b(?!\s+(?:product|deal|invoice|payment|item)s?\b)/.test(
      reading.lower.slice(superlative.end),
    )
  ) {
    plan.aggregate = { fn: descending ? "max" : "min", field };
    plan.structured.push("aggregate");
    const noun = /^\s+(?:[a-z]+\s+)?(value|amount|price|total|size)\b/.exec(
      reading.lower.slice(superlative.end),
    )!;
    reading.take(superlative.end, superlative.end + noun[0].length);
    return;
  }
  if (!field) {
    plan.leftover.push(superlative?.phrase ?? top![0]);
    return;
  }
  const said = superlative?.phrase ?? (descending ? "largest" : "smallest");
  plan.order = { field, descending, said };
  plan.limit =
    limit ??
    (/\b(?:ones|invoices|deals|payments|candidates|bills|products|contacts)\b/.test(reading.lower) &&
    !superlative
      ? 5
      : 1);
  if (
    limit === undefined &&
    superlative &&
    /s\b/.test(reading.lower.slice(superlative.end).trim().split(/\s+/)[0] ?? "") &&
    /^(invoices|bills|deals|payments|candidates|products|contacts|ones|skills)$/.test(
      reading.lower.slice(superlative.end).trim().split(/\s+/)[0] ?? "",
    )
  ) {
    plan.limit = 5;
  }
  plan.structured.push("order");
}

function aggregates(reading: Reading, plan: QueryPlan): void {
  const ratio = phrases(
    reading,
    RATIO_WORDS.map((word) => [word, word] as const),
  );
  if (ratio.length > 0) {
    for (const found of ratio) reading.take(found.start, found.end);
    plan.ratio = { where: [], said: ratio[0]!.phrase, of: "" };
    // "win rate" alone is the intents' pipeline answer.
    const plain =
      plan.resource === "deals" &&
      /^(?:(?:what is|whats|what's|our|the|deal|deals|sales|please|overall)\s+)*(?:win|close|success|hit) rate\s*(?:please)?\??$/.test(
        reading.lower.trim(),
      );
    if (!plain) plan.structured.push("ratio");
  }
  const words = phrases(reading, AGGREGATE_WORDS);
  const fns = new Set<AggregateWord>();
  for (const found of words) {
    fns.add(found.value);
    reading.take(found.start, found.end);
    // "Riverbend Coffee balance due": what one client owes, which the intents read as a due date.
    if (found.phrase === "balance due") plan.structured.push("aggregate");
  }
  let pick: AggregateWord | undefined = (["avg", "median", "min", "max", "sum", "count"] as const).find(
    (fn) => fns.has(fn),
  );
  // "revenue last quarter", "payments by month": money received is added up.
  if (!pick && plan.resource === "payments" && (REVENUE.test(reading.lower) || plan.groupBy !== undefined))
    pick = "sum";
  if (!pick || plan.ratio) return;
  if (pick === "count") {
    plan.aggregate = { fn: "count" };
    return;
  }
  let field = MONEY_FIELD[plan.resource];
  const unpaid = /\b(unpaid|outstanding|open|overdue)\b/.test(reading.lower);
  if (plan.resource === "invoices" && (OWED.test(reading.lower) || (pick === "sum" && unpaid)))
    field = "outstanding";
  if (!field) {
    plan.leftover.push(words.find((found) => found.value === pick)?.phrase ?? pick);
    return;
  }
  plan.aggregate = { fn: pick, field };
  if (pick !== "sum") plan.structured.push("aggregate");
}

const GROUP_FIELDS: Partial<Record<ResourceName, ReadonlyArray<[string, string]>>> = {
  invoices: [
    ["client", "client"],
    ["customer", "client"],
    ["status", "status"],
    ["currency", "currency"],
  ],
  payments: [
    ["method", "method"],
    ["currency", "currency"],
  ],
  deals: [
    ["stage", "stage"],
    ["currency", "currency"],
  ],
  contacts: [
    ["stage", "lifecycle_stage"],
    ["company", "company"],
  ],
  candidates: [
    ["status", "status"],
    ["position", "position"],
    ["role", "position"],
    ["source", "source"],
  ],
  skills: [
    ["level", "level"],
    ["status", "status"],
    ["skill", "name"],
  ],
  communications: [
    ["channel", "channel"],
    ["direction", "direction"],
  ],
};

function groups(reading: Reading, plan: QueryPlan): void {
  const period = phrases(reading, PERIOD_GROUPS)[0];
  if (period) {
    reading.take(period.start, period.end);
    plan.groupBy = `${period.value}:${DEFAULT_DATE[plan.resource]}`;
    plan.groupSaid = `per ${period.value}`;
    plan.structured.push("group");
    return;
  }
  for (const [word, field] of GROUP_FIELDS[plan.resource] ?? []) {
    const match = new RegExp(`\\b(?:by|per|each|for each|broken down by|split by)\\s+(${word})s?\\b`).exec(
      reading.lower,
    );
    if (match) {
      reading.take(match.index, match.index + match[0].length);
      plan.groupBy = field;
      plan.groupSaid = `per ${word}`;
      // Counts by status or stage are the intents' ("candidates by status", "pipeline by stage").
      // Per client or currency too: the intents list what each owes or is worth.
      if (!["status", "stage", "lifecycle_stage", "currency", "client"].includes(field))
        plan.structured.push("group");
      return;
    }
  }
}

/** The statuses and stages named, and turned around by a negation before them. */
function statuses(reading: Reading, plan: QueryPlan): void {
  const spec = STATUS_TABLES[plan.resource];
  if (!spec) return;
  const found = phrases(reading, spec.table);
  const include = new Set<string>();
  const exclude = new Set<string>();
  let negatedUntil = -1;
  const verb = /\b(are|is|were|was|that|which|did we|got|get|have been|has been|end up|ended up)\b/.exec(
    reading.lower,
  );
  const pivot = verb ? verb.index : -1;
  for (const { phrase, value, start, end } of found) {
    // "the most overdue" is an order (superlatives), not a status.
    if (
      /\bmost\s+$/.test(reading.lower.slice(Math.max(0, start - 6), start)) &&
      !/\b(client|customer|company|who|debtor)s?\b/.test(reading.lower)
    )
      continue;
    if (
      /^\s+longest\b/.test(reading.lower.slice(end)) ||
      /\blongest\s+$/.test(reading.lower.slice(Math.max(0, start - 9), start))
    )
      continue;
    // "applied before March" is when they applied, not the status.
    if (
      plan.resource === "candidates" &&
      phrase === "applied" &&
      /^\s+(before|after|since|in|on|during|between|last|this|from|over|within|first|most recently)\b/.test(
        reading.lower.slice(end),
      )
    )
      continue;
    // "overdue" beside a window is the window's word ("more than 45 days overdue" took it already).
    // "not won or lost": the second is turned around too.
    const carried =
      negatedUntil >= 0 && /^\s*(?:,|or|nor|and|,\s*or)\s*$/.test(reading.lower.slice(negatedUntil, start));
    const negation = carried ? negatedUntil : negatedBefore(reading.lower, start);
    if (negation !== undefined && !phrase.startsWith("not ")) {
      negatedUntil = end;
      // An invoice not paid is one still to be paid: open or overdue, not a draft or a void.
      if (plan.resource === "invoices" && value.length === 1 && value[0] === "paid") {
        for (const one of ["open", "overdue"]) include.add(one);
      } else for (const one of value) exclude.add(one);
      reading.take(negation, end);
      plan.said.push(`not ${phrase}`);
      plan.structured.push("negation");
    } else {
      for (const one of value) include.add(one);
      reading.take(start, end);
      plan.adjectives.push(phrase);
      // Said the other way round ("not verified", "unpaid"), or in words the intents do not know.
      if (OWN_PHRASES.has(phrase) || (phrase.startsWith("not ") && plan.resource === "skills"))
        plan.structured.push("negation");
    }
  }
  if (include.size > 0) plan.where.push({ field: spec.field, op: "in", value: [...include] });
  if (exclude.size > 0) plan.where.push({ field: spec.field, op: "not_in", value: [...exclude] });
  // "what % of unpaid invoices are overdue": the statuses after the verb are the share's, those before its whole.
  if (plan.ratio && pivot >= 0) {
    const share = new Set(found.filter((one) => one.start > pivot).flatMap((one) => [...one.value]));
    const whole = new Set(found.filter((one) => one.start < pivot).flatMap((one) => [...one.value]));
    if (share.size > 0 && whole.size > 0) {
      plan.where.splice(0, plan.where.length, ...plan.where.filter((c) => c.field !== spec.field));
      plan.where.push({ field: spec.field, op: "in", value: [...whole] });
      plan.ratio.where.push({ field: spec.field, op: "in", value: [...share] });
      plan.ratio.said = [...found.filter((one) => one.start > pivot)].map((one) => one.phrase).join(" or ");
    }
  }
}

const EMPTY_FIELDS: Partial<Record<ResourceName, ReadonlyArray<[string, string]>>> = {
  contacts: [
    ["company", "company"],
    ["email", "email"],
    ["email address", "email"],
    ["phone", "phone"],
    ["phone number", "phone"],
  ],
  candidates: [
    ["phone", "phone"],
    ["source", "source"],
  ],
  invoices: [["contact", "contact_id"]],
  deals: [
    ["contact", "contact_id"],
    ["close date", "expected_close_date"],
    ["expected close date", "expected_close_date"],
  ],
  products: [["sku", "sku"]],
};

/** "without a company", "with no email", "missing a phone", "not in euros", "except USD". */
const PAYMENT_METHODS: ReadonlyArray<[string, string]> = [
  ["bank transfer", "bank_transfer"],
  ["wire", "bank_transfer"],
  ["transfer", "bank_transfer"],
  ["direct debit", "direct_debit"],
  ["card", "card"],
  ["credit card", "card"],
  ["cash", "cash"],
  ["cheque", "check"],
  ["check", "check"],
];

/** Values of fields that are not statuses: a payment's method, a candidate's source, a part payment. */
function fieldValues(reading: Reading, plan: QueryPlan): void {
  const lower = reading.lower;
  if (plan.resource === "payments") {
    for (const [word, method] of PAYMENT_METHODS) {
      const match = new RegExp(
        `\\b(?:(not|never|non)\\s+(?:made\\s+|paid\\s+)?(?:by\\s+|with\\s+|via\\s+)?|(?:by|with|via|paid by|made by)\\s+)(?:a\\s+)?${word}\\b`,
      ).exec(lower);
      if (!match) continue;
      const negated = match[1] !== undefined;
      plan.where.push({ field: "method", op: negated ? "ne" : "eq", value: method });
      plan.said.push(`${negated ? "not " : ""}by ${word}`);
      reading.take(match.index, match.index + match[0].length);
      plan.structured.push("filter");
      return;
    }
  }
  if (plan.resource === "candidates") {
    const source = /\b(?:not from|non|not via|not through)\s+(?:an?\s+|the\s+)?([a-z]+)\b/.exec(lower);
    if (source && !["the", "yet"].includes(source[1]!)) {
      const value = source[1]!.replace(/s$/, "");
      plan.where.push({ field: "source", op: "ne", value });
      plan.said.push(`not from ${value}`);
      reading.take(source.index, source.index + source[0].length);
      plan.structured.push("negation");
    }
  }
  if (plan.resource === "invoices") {
    const partial = /\b(?:with\s+)?(?:an?\s+)?(?:partial(?:ly)?|partly|part)[- ]?(?:paid|payments?)\b/.exec(
      lower,
    );
    if (partial) {
      plan.where.push(
        { field: "paid", op: "gt", value: 0 },
        { field: "status", op: "in", value: ["open", "overdue"] },
      );
      plan.said.push("partly paid");
      reading.take(partial.index, partial.index + partial[0].length);
      plan.structured.push("filter");
    }
    const nothing =
      /\b(?:with\s+)?(?:nothing|none of it|no money|no payments?)\s+(?:paid|received)(?:\s+yet)?\b/.exec(
        lower,
      );
    if (nothing) {
      plan.where.push({ field: "paid", op: "eq", value: 0 });
      plan.said.push("nothing paid yet");
      reading.take(nothing.index, nothing.index + nothing[0].length);
      plan.structured.push("filter");
    }
  }
}

function negations(reading: Reading, plan: QueryPlan): void {
  for (const [word, field] of EMPTY_FIELDS[plan.resource] ?? []) {
    const without = new RegExp(
      `\\b(without|with no|no|missing|lacking|(?:we )?(?:do not|does not|dont|doesnt) know(?: the)?|(?:that )?(?:do not|does not|dont|doesnt) have)\\s+(?:an?\\s+|any\\s+)?${word}s?\\b`,
    ).exec(reading.lower);
    const has = new RegExp(`\\b(with|having|that have|who have|has)\\s+(?:an?\\s+)?${word}s?\\b`).exec(
      reading.lower,
    );
    if (without) {
      plan.where.push({ field, op: "is_null" });
      plan.said.push(`without ${/^[aeiou]/.test(word) ? "an" : "a"} ${word}`);
      reading.take(without.index, without.index + without[0].length);
      plan.structured.push("negation");
      return;
    }
    if (has && !/\b(?:phone|email)\b/.test(word) === false && field !== "contact_id") {
      plan.where.push({ field, op: "not_null" });
      plan.said.push(`with ${/^[aeiou]/.test(word) ? "an" : "a"} ${word}`);
      reading.take(has.index, has.index + has[0].length);
      plan.structured.push("filter");
    }
  }
  const currency = new RegExp(
    `\\b(not|other than|except|excluding|besides|but not)\\s+(?:in\\s+)?(${CURRENCY_NAME})\\b|\\bnon[- ]?(${CODES}|euro|dollar)\\b`,
  ).exec(reading.lower);
  if (currency && plan.resource !== "candidates" && plan.resource !== "contacts") {
    const word = (currency[2] ?? currency[3])!;
    const code = CURRENCY_WORDS[word] ?? CURRENCY_WORDS[`${word}s`] ?? word.toUpperCase();
    plan.where.push({ field: "currency", op: "ne", value: code });
    plan.said.push(`not in ${code}`);
    reading.take(currency.index, currency.index + currency[0].length);
    plan.structured.push("negation");
    return;
  }
  const inCurrency = new RegExp(
    `\\b(?:in|paid in|billed in|priced in)\\s+(${CURRENCY_NAME})\\b|\\b(${CODES})\\b|\\b(euros?|dollars?|pounds?)\\b`,
  ).exec(reading.lower);
  if (inCurrency && MONEY_FIELD[plan.resource]) {
    const word = (inCurrency[1] ?? inCurrency[2] ?? inCurrency[3])!;
    const code = CURRENCY_WORDS[word] ?? CURRENCY_WORDS[`${word}s`] ?? word.toUpperCase();
    if (!plan.where.some((condition) => condition.field === "currency")) {
      plan.where.push({ field: "currency", op: "eq", value: code });
      plan.said.push(`in ${code}`);
    }
    reading.take(inCurrency.index, inCurrency.index + inCurrency[0].length);
  }
}

/** Which date a window is on: the verb beside it, or the resource's usual one. */
function dateFieldOf(reading: Reading, plan: QueryPlan): string {
  // The verb may also be a status ("paid this month"): both readings hold, so taken words count.
  const found = findPhrases(reading.lower, DATE_FIELD_WORDS[plan.resource] ?? []);
  const stage = [...plan.where, ...reading.context].find((c) => c.field === "stage" || c.field === "status");
  const values = stage && Array.isArray(stage.value) ? stage.value : [];
  const [first] = found;
  if (first) {
    reading.take(first.start, first.end);
    return first.value;
  }
  // "the ones from last month": when they were made, whatever their status.
  const [spanStart] = reading.analysis.dates.spans[0] ?? [0];
  if (/\bfrom\s+(?:the\s+)?$/.test(reading.lower.slice(Math.max(0, spanStart - 10), spanStart)))
    return DEFAULT_DATE[plan.resource];
  if (
    plan.resource === "invoices" &&
    values.length > 0 &&
    values.every((v) => v === "overdue" || v === "open")
  ) {
    return "due_date";
  }
  if (plan.resource === "invoices" && values.length === 1 && values[0] === "paid") return "paid_at";
  if (plan.resource === "deals" && values.length > 0 && values.every((v) => v === "won" || v === "lost"))
    return "closed_at";
  if (plan.resource === "candidates" && values.length === 1 && values[0] === "hired") return "hired_at";
  if (plan.resource === "candidates" && values.length === 1 && values[0] === "rejected") return "rejected_at";
  if (plan.resource === "skills" && values.length === 1 && values[0] === "verified") return "verified_at";
  return DEFAULT_DATE[plan.resource];
}

function dateConditions(field: string, from: string | undefined, to: string | undefined): Condition[] {
  const instant = field.endsWith("_at");
  const out: Condition[] = [];
  if (from) out.push({ field, op: "gte", value: from });
  if (to) out.push(instant ? { field, op: "lt", value: addDays(to, 1) } : { field, op: "lte", value: to });
  return out;
}

/** The window of the question, on the date field its verb names; "before March" is a bound, not March. */
function windows(reading: Reading, plan: QueryPlan): void {
  const { dates, today } = reading.analysis;
  if (dates.spans.length === 0) return;
  const [spanStart, spanEnd] = dates.spans[0]!;
  const field = dateFieldOf(reading, plan);
  const ahead = field === "due_date" || field === "expected_close_date";
  // A due date or a close date looks ahead: "closing in April" is the coming April, unless said otherwise.
  const backwards = /\b(last|ago|past|previous|prior|since|so far|to date|ytd)\b/.test(reading.lower);
  const period: Period | undefined =
    ahead && !backwards ? (dates.future ?? dates.past) : (dates.past ?? dates.future);
  if (!period) return;
  const before = reading.lower.slice(Math.max(0, spanStart - 12), spanStart);
  const bound = /\b(before|after|earlier than|later than|prior to)\s*$/.exec(before);
  const phrase = reading.lower.slice(spanStart, spanEnd);
  let from: string | undefined = period.range.from;
  let to: string | undefined = period.range.to;
  let words = period.range.label.replace(/\s*\(.*\)$/, "") || phrase;
  if (bound) {
    const after = bound[1] === "after" || bound[1] === "later than";
    if (after) [from, to] = [addDays(period.range.to, 1), undefined];
    else [from, to] = [undefined, addDays(period.range.from, -1)];
    words = `${after ? "after" : "before"} ${phrase.replace(/^(in|on|of)\s+/, "")}`;
    reading.take(spanStart - (before.length - bound.index), spanEnd);
  } else if (/^(before|until|by)\b/.test(phrase) && !/\b(this|next|last)\b/.test(phrase)) {
    // "before March 1": up to the day before.
    from = undefined;
  }
  if (/\bso far\b|\bto date\b/.test(reading.lower) && to && to > today) {
    to = today;
    const far = /\b(so far|to date)\b/.exec(reading.lower)!;
    reading.take(far.index, far.index + far[0].length);
    words = `${words} so far`;
  }
  for (const [start, end] of dates.spans) reading.take(start, end);
  plan.where.push(...dateConditions(field, from, to));
  const label = DATE_FIELD_LABEL[field] ?? field;
  plan.said.push(`${label} ${words}`.replace(/^on in /, "in ").replace(/^on on /, "on "));
  // The intents read a window right on money received, on closed deals and on conversations.
  const intentsRead =
    (plan.resource === "payments" &&
      /\b(receiv|came in|come in|revenue|income|collect|earn|paid|made|brought|due|upcoming)/.test(
        reading.lower,
      )) ||
    plan.resource === "communications" ||
    field === "closed_at" ||
    field === "verified_at" ||
    (field === "due_date" && period.range.to > today && !bound);
  if (!intentsRead) plan.structured.push("window");
  const stated = plan.where.some((c) => c.field === "status" || c.field === "stage");
  // What is due is what is still to be paid; what is expected to close is still in the pipeline.
  if (field === "due_date" && !stated) {
    const future = (from ?? today) >= today;
    plan.where.push({ field: "status", op: "in", value: future ? ["open"] : ["open", "overdue"] });
    plan.adjectives.push(future ? "open" : "unpaid");
  }
  if (field === "expected_close_date" && !stated) {
    plan.where.push({ field: "stage", op: "in", value: ["lead", "qualified", "proposal"] });
    plan.adjectives.push("open");
  }
}

/**
 * Reads `analysis` as a structured question about `resource` (or the resource the message names),
 * or undefined when it names no resource at all.
 */
export function parseQuery(
  analysis: Analysis,
  previous?: ResourceName,
  context: readonly Condition[] = [],
): QueryPlan | undefined {
  const lower = analysis.norm.lower;
  const taken: Span[] = [];
  const reading: Reading = {
    analysis,
    lower,
    taken,
    context,
    other: [],
    take: (start, end) => void taken.push([start, end]),
  };
  const found = resourceOf(reading, previous);
  if (!found) return undefined;
  const { resource, named } = found;
  const plan: QueryPlan = {
    resource,
    named,
    byStatus: found.byStatus === true,
    where: [],
    said: [],
    adjectives: [],
    structured: [],
    names: [],
    leftover: [],
  };
  const amounts = amountsIn(lower, analysis.dates.spans);
  aggregates(reading, plan);
  lateness(reading, plan);
  fieldValues(reading, plan);
  statuses(reading, plan);
  if (!ranking(reading, plan) && !latest(reading, plan) && !sorting(reading, plan))
    superlatives(reading, plan, amounts);
  comparisons(reading, plan, amounts);
  negations(reading, plan);
  groups(reading, plan);
  windows(reading, plan);
  // Numbers nothing took (no comparison before them) are not understood.
  for (const amount of amounts) {
    if (!taken.some(([a, b]) => amount.start >= a && amount.end <= b))
      plan.leftover.push(lower.slice(amount.start, amount.end));
  }
  for (const token of analysis.norm.tokens) {
    if (taken.some(([a, b]) => token.start < b && token.end > a)) continue;
    if (/^\d/.test(token.raw)) continue;
    if (NEUTRAL.has(token.word) || (STOPWORDS.has(token.word) && !SIGNIFICANT.has(token.word))) continue;
    plan.names.push({
      text: analysis.norm.text.slice(token.start, token.end),
      start: token.start,
      end: token.end,
    });
  }
  plan.names = joinRuns(plan.names, analysis.norm.text);
  if (reading.other.length > 0) {
    plan.leftover.push(...reading.other);
    plan.structured.push("join");
  }
  // A deal or a conversation named by its contact ("the Okafor deal"): the intents read the name as a deal title only.
  if (plan.names.length > 0 && resource === "deals" && !plan.byStatus) plan.structured.push("named");
  // A candidate's stage asked by name in words the intents miss ("Liam Moreau candidate stage").
  if (plan.names.length > 0 && resource === "candidates" && /\b(status|stage|where)\b/.test(lower)) {
    plan.structured.push("person");
  }
  // A candidate's status or dates asked by name ("when was Yara Iyer hired", "Liam Moreau candidate stage").
  if (plan.names.length > 0 && resource === "candidates" && /\b(when|date)\b/.test(lower)) {
    plan.structured.push("named");
  }
  // "who has no verified skills" asks for people, not skills: a join this layer does not make.
  if (resource === "skills" && /\bwho\b/.test(lower) && /\b(no|not|without|unverified|never)\b/.test(lower)) {
    plan.leftover.push("who");
    plan.structured.push("join");
  }
  return plan;
}

/** Stopwords that change a question's meaning: left over, they are not understood. */
const SIGNIFICANT = new Set([
  "not",
  "no",
  "never",
  "without",
  "except",
  "more",
  "less",
  "most",
  "least",
  "over",
  "under",
  "above",
  "below",
  "before",
  "after",
  "since",
  "until",
  "between",
  "top",
  "bottom",
  "first",
  "last",
  "biggest",
  "largest",
  "smallest",
  "highest",
  "lowest",
  "oldest",
  "newest",
  "latest",
  "best",
  "worst",
  "per",
  "each",
  "today",
  "yesterday",
  "tomorrow",
  "week",
  "weeks",
  "month",
  "months",
  "quarter",
  "year",
  "years",
  "day",
  "days",
  "ytd",
  "mtd",
]);

/** Adjacent words (only spaces between them) become one run: "Ava Okafor". */
function joinRuns(words: QueryPlan["names"], text: string): QueryPlan["names"] {
  const runs: QueryPlan["names"] = [];
  for (const word of words) {
    const last = runs[runs.length - 1];
    if (last && /^[\s'’-]*$/.test(text.slice(last.end, word.start))) {
      last.text = text.slice(last.start, word.end);
      last.end = word.end;
    } else runs.push({ ...word });
  }
  return runs;
}
