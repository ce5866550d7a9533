import type { ResourceName } from "../../tools/resources.ts";

/**
 * The words of a structured question, each with what it means to the query: which resource a
 * noun names, which comparison a phrase makes, which order a superlative asks for, which
 * aggregate, which date field a verb points to. Phrases are lowercase and matched on word
 * boundaries, longest first (`findPhrases`), so every word the query reads has a span.
 */

/** Nouns (and the verbs that can only be about one resource) → the resource. */
export const RESOURCE_WORDS: ReadonlyArray<[string, ResourceName]> = [
  ["invoices", "invoices"],
  ["invoice", "invoices"],
  ["invoiced", "invoices"],
  ["invs", "invoices"],
  ["inv", "invoices"],
  ["bills", "invoices"],
  ["bill", "invoices"],
  ["billed", "invoices"],
  ["receivables", "invoices"],
  ["debtors", "invoices"],
  ["debtor", "invoices"],
  ["payments", "payments"],
  ["payment", "payments"],
  ["transactions", "payments"],
  ["receipts", "payments"],
  ["collections", "payments"],
  ["revenue", "payments"],
  ["income", "payments"],
  ["deals", "deals"],
  ["deal", "deals"],
  ["opportunities", "deals"],
  ["opportunity", "deals"],
  ["opps", "deals"],
  ["opp", "deals"],
  ["contacts", "contacts"],
  ["contact", "contacts"],
  ["people", "contacts"],
  ["candidates", "candidates"],
  ["candidate", "candidates"],
  ["applicants", "candidates"],
  ["applicant", "candidates"],
  ["hiring", "candidates"],
  ["candidats", "candidates"],
  ["candiates", "candidates"],
  ["skills", "skills"],
  ["skill", "skills"],
  ["products", "products"],
  ["things we sell", "products"],
  ["thing we sell", "products"],
  ["we sell", "products"],
  ["catalog", "products"],
  ["catalogue", "products"],
  ["product", "products"],
  ["communications", "communications"],
  ["communication", "communications"],
  ["conversations", "communications"],
  ["touchpoints", "communications"],
  ["interactions", "communications"],
  ["interaction", "communications"],
  ["messages", "communications"],
  ["convos", "communications"],
  ["convo", "communications"],
];

/** The plural a reply names a resource by. */
export const RESOURCE_NOUNS: Record<ResourceName, [string, string]> = {
  invoices: ["invoice", "invoices"],
  payments: ["payment", "payments"],
  deals: ["deal", "deals"],
  contacts: ["contact", "contacts"],
  candidates: ["candidate", "candidates"],
  skills: ["skill", "skills"],
  products: ["product", "products"],
  communications: ["communication", "communications"],
};

/** The money a resource's amounts are, for thresholds, sums and "the largest". */
export const MONEY_FIELD: Partial<Record<ResourceName, string>> = {
  invoices: "amount",
  payments: "amount",
  deals: "value",
  products: "price",
};

/** Words that ask what is still owed on an invoice, not its whole amount. */
export const OWED =
  /\b(owe|owes|owed|owing|balance|left to pay|still due)\b|\bhow much (?:is |was |remains )?(?:still )?(?:outstanding|unpaid|open)\b/;

/** The currency codes a message may write, as a pattern (`|` between them). */
export const CURRENCY_CODES = "eur|usd|gbp|chf|jpy|cad|aud";
/** The codes and the names of currencies ("euros", "bucks", "quid"), as a pattern. */
export const CURRENCY_NAMES = `${CURRENCY_CODES}|euros?|dollars?|bucks|pounds?|quid`;

/** Which records are "the oldest" or "the newest": the date that orders them. */
export const AGE_FIELD: Record<ResourceName, string> = {
  invoices: "issued_at",
  payments: "received_at",
  deals: "created_at",
  contacts: "created_at",
  candidates: "created_at",
  skills: "created_at",
  products: "created_at",
  communications: "occurred_at",
};

export type Comparison = "gt" | "gte" | "lt" | "lte";

/** A comparison before a number ("over 10k", "at least $300"). */
export const COMPARATORS: ReadonlyArray<[string, Comparison]> = [
  ["more than", "gt"],
  ["greater than", "gt"],
  ["bigger than", "gt"],
  ["larger than", "gt"],
  ["higher than", "gt"],
  ["over", "gt"],
  ["above", "gt"],
  ["exceeding", "gt"],
  ["exceeded", "gt"],
  ["topped", "gt"],
  ["topping", "gt"],
  ["exceeds", "gt"],
  ["upwards of", "gt"],
  ["north of", "gt"],
  ["in excess of", "gt"],
  ["at or above", "gte"],
  ["at or over", "gte"],
  ["no lower than", "gte"],
  ["not under", "gte"],
  ["not below", "gte"],
  ["or above", "gte"],
  ["or higher", "gte"],
  ["or greater", "gte"],
  ["or over", "gte"],
  ["and over", "gte"],
  ["and above", "gte"],
  ["at least", "gte"],
  ["no less than", "gte"],
  ["not less than", "gte"],
  ["minimum of", "gte"],
  ["or more", "gte"],
  ["and up", "gte"],
  ["plus", "gte"],
  [">=", "gte"],
  [">", "gt"],
  ["less than", "lt"],
  ["fewer than", "lt"],
  ["smaller than", "lt"],
  ["lower than", "lt"],
  ["under", "lt"],
  ["below", "lt"],
  ["beneath", "lt"],
  ["south of", "lt"],
  ["at or under", "lte"],
  ["at or below", "lte"],
  ["no higher than", "lte"],
  ["no greater than", "lte"],
  ["not over", "lte"],
  ["not above", "lte"],
  ["or below", "lte"],
  ["or lower", "lte"],
  ["or fewer", "lte"],
  ["and under", "lte"],
  ["and below", "lte"],
  ["no bigger than", "lte"],
  ["no larger than", "lte"],
  ["no more than", "lte"],
  ["at most", "lte"],
  ["no more than", "lte"],
  ["not more than", "lte"],
  ["up to", "lte"],
  ["maximum of", "lte"],
  ["or less", "lte"],
  ["or under", "lte"],
  ["<=", "lte"],
  ["<", "lt"],
];

/** "the largest", "the cheapest": an order, and whether it is by money or by age. */
export const SUPERLATIVES: ReadonlyArray<[string, { by: "money" | "age" | "overdue"; descending: boolean }]> =
  [
    ["most expensive", { by: "money", descending: true }],
    ["most left to pay", { by: "money", descending: true }],
    ["least left to pay", { by: "money", descending: false }],
    ["most owed", { by: "money", descending: true }],
    ["least owed", { by: "money", descending: false }],
    ["most outstanding", { by: "money", descending: true }],
    ["the longest", { by: "age", descending: false }],
    ["most valuable", { by: "money", descending: true }],
    ["highest value", { by: "money", descending: true }],
    ["largest", { by: "money", descending: true }],
    ["biggest", { by: "money", descending: true }],
    ["highest", { by: "money", descending: true }],
    ["priciest", { by: "money", descending: true }],
    ["largest amount", { by: "money", descending: true }],
    ["smallest", { by: "money", descending: false }],
    ["lowest", { by: "money", descending: false }],
    ["cheapest", { by: "money", descending: false }],
    ["least valuable", { by: "money", descending: false }],
    ["tiniest", { by: "money", descending: false }],
    ["oldest", { by: "age", descending: false }],
    ["earliest", { by: "age", descending: false }],
    ["newest", { by: "age", descending: true }],
    ["latest", { by: "age", descending: true }],
    ["most recent", { by: "age", descending: true }],
    ["most recently", { by: "age", descending: true }],
    ["youngest", { by: "age", descending: true }],
    ["most overdue", { by: "overdue", descending: true }],
    ["overdue longest", { by: "overdue", descending: true }],
    ["longest overdue", { by: "overdue", descending: true }],
    ["late longest", { by: "overdue", descending: true }],
    ["applied first", { by: "age", descending: false }],
    ["first to apply", { by: "age", descending: false }],
    ["first applicant", { by: "age", descending: false }],
    ["first candidate", { by: "age", descending: false }],
    ["applied most recently", { by: "age", descending: true }],
    ["latest applicant", { by: "age", descending: true }],
    ["most late", { by: "overdue", descending: true }],
    ["latest paying", { by: "overdue", descending: true }],
  ];

export type AggregateWord = "avg" | "median" | "min" | "max" | "sum" | "count";

export const AGGREGATE_WORDS: ReadonlyArray<[string, AggregateWord]> = [
  ["on average", "avg"],
  ["average", "avg"],
  ["avg", "avg"],
  ["mean", "avg"],
  ["typical", "avg"],
  ["median", "median"],
  ["minimum", "min"],
  ["min", "min"],
  ["max", "max"],
  ["smallest amount", "min"],
  ["maximum", "max"],
  ["total", "sum"],
  ["sum", "sum"],
  ["combined", "sum"],
  ["add up", "sum"],
  ["add them up", "sum"],
  ["add those up", "sum"],
  ["add it up", "sum"],
  ["total them", "sum"],
  ["sum them", "sum"],
  ["adds up", "sum"],
  ["altogether", "sum"],
  ["in total", "sum"],
  ["how much", "sum"],
  ["balance due", "sum"],
  ["how many", "count"],
  ["number of", "count"],
  ["count", "count"],
  ["many", "count"],
];

/** Words that ask for a share, a rate or a percentage. */
export const RATIO_WORDS: readonly string[] = [
  "win rate",
  "success rate",
  "close rate",
  "hit rate",
  "loss rate",
  "hire rate",
  "hiring rate",
  "conversion rate",
  "conversion",
  "convert",
  "converted",
  "percentage",
  "percent",
  "%",
  "how often",
  "share",
  "proportion",
  "fraction",
  "ratio",
  "rate",
  "what part",
];

/** "per month", "by client", "each quarter": the group a total or count is split by. */
export const PERIOD_GROUPS: ReadonlyArray<[string, "week" | "month" | "quarter" | "year"]> = [
  ["per month", "month"],
  ["each month", "month"],
  ["by month", "month"],
  ["month by month", "month"],
  ["monthly", "month"],
  ["every month", "month"],
  ["a month", "month"],
  ["per quarter", "quarter"],
  ["each quarter", "quarter"],
  ["by quarter", "quarter"],
  ["quarterly", "quarter"],
  ["per week", "week"],
  ["each week", "week"],
  ["by week", "week"],
  ["weekly", "week"],
  ["per year", "year"],
  ["by year", "year"],
  ["each year", "year"],
  ["yearly", "year"],
  ["annually", "year"],
];

/**
 * Verbs and nouns that name the date a window or a comparison is on, per resource. The first
 * phrase found wins; without one, the resource's default (`DEFAULT_DATE`) is used.
 */
export const DATE_FIELD_WORDS: Partial<Record<ResourceName, ReadonlyArray<[string, string]>>> = {
  invoices: [
    ["issued", "issued_at"],
    ["sent", "issued_at"],
    ["raised", "issued_at"],
    ["created", "created_at"],
    ["made", "issued_at"],
    ["billed", "issued_at"],
    ["invoiced", "issued_at"],
    ["dated", "issued_at"],
    ["due", "due_date"],
    ["upcoming", "due_date"],
    ["falls due", "due_date"],
    ["fall due", "due_date"],
    ["coming up", "due_date"],
    ["falling due", "due_date"],
    ["paid", "paid_at"],
    ["settled", "paid_at"],
  ],
  payments: [
    ["received", "received_at"],
    ["came in", "received_at"],
    ["got", "received_at"],
    ["collected", "received_at"],
    ["made", "received_at"],
    ["paid", "received_at"],
  ],
  deals: [
    ["expected to close", "expected_close_date"],
    ["set to close", "expected_close_date"],
    ["due to close", "expected_close_date"],
    ["supposed to close", "expected_close_date"],
    ["going to close", "expected_close_date"],
    ["slated to close", "expected_close_date"],
    ["scheduled to close", "expected_close_date"],
    ["projected to close", "expected_close_date"],
    ["forecast to close", "expected_close_date"],
    ["expected close", "expected_close_date"],
    ["closing", "expected_close_date"],
    ["close", "expected_close_date"],
    ["did we close", "closed_at"],
    ["we close", "closed_at"],
    ["closed", "closed_at"],
    ["won", "closed_at"],
    ["lost", "closed_at"],
    ["created", "created_at"],
    ["opened", "created_at"],
    ["added", "created_at"],
  ],
  contacts: [
    ["added", "created_at"],
    ["created", "created_at"],
  ],
  candidates: [
    ["applied", "created_at"],
    ["apply", "created_at"],
    ["hired", "hired_at"],
    ["rejected", "rejected_at"],
    ["turned down", "rejected_at"],
    ["added", "created_at"],
  ],
  skills: [
    ["verified", "verified_at"],
    ["added", "created_at"],
  ],
  communications: [
    ["sent or received", "occurred_at"],
    ["sent", "occurred_at"],
    ["received", "occurred_at"],
    ["logged", "occurred_at"],
  ],
};

/** The date a window is on when no verb names one: a record's own date, the one "the oldest" orders by. */
export const DEFAULT_DATE = AGE_FIELD;

/** How a reply names a date field: "issued", "due", "received"… */
export const DATE_FIELD_LABEL: Record<string, string> = {
  issued_at: "issued",
  created_at: "created",
  due_date: "due",
  paid_at: "paid",
  received_at: "received",
  expected_close_date: "expected to close",
  closed_at: "closed",
  hired_at: "hired",
  rejected_at: "rejected",
  verified_at: "verified",
  occurred_at: "from",
};

/** Words that turn the value after them around: "not verified", "never paid", "no company". */
export const NEGATIONS: readonly string[] = [
  "not",
  "never",
  "no",
  "without",
  "except",
  "excluding",
  "other than",
  "but not",
  "aren't",
  "isn't",
  "haven't",
  "hasn't",
];
