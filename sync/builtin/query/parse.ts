import type { Condition } from "../../tools/query.ts";
import type { ResourceName } from "../../tools/resources.ts";
import type { Analysis } from "../analysis.ts";
import { STOPWORDS } from "../stopwords.ts";
import { findPhrases } from "../vocabulary.ts";
import { aggregates, groups } from "./aggregates.ts";
import { amountsIn, comparisons, lateness } from "./amounts.ts";
import { fieldValues, negations, STATUS_TABLES, statuses } from "./filters.ts";
import { latest, ranking, sorting, superlatives } from "./orders.ts";
import { phrases, type QueryPlan, type Reading, type Span } from "./reading.ts";
import { windows } from "./windows.ts";
import { RESOURCE_WORDS } from "./words.ts";

export type { QueryPlan, Span } from "./reading.ts";

/**
 * A message read as one structured question (`QueryPlan`): the resource, its conditions, the
 * window on a named date, the aggregate or the order, and the words each part was read from.
 * Every word the plan takes has a span; what is left of the message (`leftover`), once the
 * spans, the names to look up and the words that carry no meaning are taken out, is what the
 * planner did not understand: a plan with a leftover word is never answered as if it had none.
 * This file finds the resource, runs the readers in their order and sorts what is left into
 * names and leftover words; the readers are amounts.ts, orders.ts, filters.ts, aggregates.ts
 * and windows.ts.
 */

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

/** The resource the message is about: a noun, a verb only one resource has, a status, or the list before. */
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
  // "emails sent or received last month": a channel sent or received stands for conversations.
  if (
    /\b(?:e-?mails|phone calls|calls|meetings|text messages|texts)\s+(?:we\s+)?(?:sent|received|logged)\b/.test(
      reading.lower,
    ) &&
    phrases(reading, RESOURCE_WORDS).length === 0
  ) {
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
  // The order is part of the reading: a reader skips what an earlier one took ("overdue" in "45 days
  // overdue" is lateness's, the 5 of "top 5" is not a threshold) and reads what it decided (a ratio
  // splits the statuses, the statuses choose the date a window is on).
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
