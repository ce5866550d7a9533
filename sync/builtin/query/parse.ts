import type { Condition } from "../../tools/query.ts";
import type { ResourceName } from "../../tools/resources.ts";
import type { Analysis } from "../analysis.ts";
import { STOPWORDS } from "../stopwords.ts";
import { findPhrases } from "../vocabulary.ts";
import { aggregates, groups } from "./aggregates.ts";
import { amountsIn, comparisons, lateness } from "./amounts.ts";
import { fieldValues, negations, STATUS_TABLES, statuses, tags } from "./filters.ts";
import { closingOrder, dateOrder, latest, nextDue, ranking, sorting, superlatives } from "./orders.ts";
import { phrases, type QueryPlan, type Reading, type Span } from "./reading.ts";
import { NEVER_BY, NEVER_FROM, NEVER_TALKED, relatedNoun, relations } from "./relations.ts";
import { windows } from "./windows.ts";
import { DATE_FIELD_WORDS, RESOURCE_WORDS } from "./words.ts";

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
export const NEUTRAL: ReadonlySet<string> = new Set([
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
  "went",
  "gone",
  "become",
  "became",
  "file",
  "times",
  "tied",
  "linked",
  "associated",
  "related",
  "connected",
  "belonging",
  "things",
  "stand",
  "wise",
  "range",
  "bracket",
  "logged",
  "recorded",
  "tracked",
]);

/**
 * Words that say no more than the resource itself, per resource: a product's price or cost is
 * what it is listed at, a payment is money received. They are read as part of the resource.
 */
const SAID_BY_RESOURCE: Partial<Record<ResourceName, RegExp>> = {
  products: /\b(?:price|prices|priced|pricing|cost|costs|costing|charge|charges)\b/g,
  payments: /\b(?:received|receive|collected|came in|taken|made|cash)\b/g,
  deals: /\bhow (?:big|large|much)\b/g,
  communications: /\b(?:with\s+)?(?:people|anyone|folks)\b/g,
};

/** Sizes said beside a threshold ("small payments below 500", "cheap products under 200"): the threshold says it. */
const SIZE_WORDS = /\b(?:small|smaller|cheap|cheaper|big|bigger|large|larger|expensive|pricey|tiny|huge)\b/g;

/** What is still owed on an invoice ("balance", "owed"), read when the plan is on what is outstanding. */
const OWED_WORDS = /\b(?:balance|balances|owed|owing|owe|owes|still due|amount due|left to pay|remaining)\b/g;

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
  ["emailed", "communications"],
  ["texted", "communications"],
  ["phoned", "communications"],
  ["got back to us", "communications"],
  ["get back to us", "communications"],
  ["gotten back to us", "communications"],
  ["heard back", "communications"],
  ["applied", "candidates"],
  ["apply", "candidates"],
  ["applying", "candidates"],
  ["good at", "skills"],
  ["expected close", "deals"],
  ["last email", "communications"],
  ["latest email", "communications"],
  ["last call", "communications"],
  ["last meeting", "communications"],
  ["email we got", "communications"],
  ["email from", "communications"],
  ["last text", "communications"],
  ["last texted", "communications"],
  ["win rate", "deals"],
  ["close rate", "deals"],
  ["loss rate", "deals"],
  ["expected to close", "deals"],
  ["set to close", "deals"],
  ["due to close", "deals"],
  ["supposed to close", "deals"],
  ["going to close", "deals"],
  ["slated to close", "deals"],
  ["scheduled to close", "deals"],
  ["should close", "deals"],
  ["closing", "deals"],
  ["hire rate", "candidates"],
  ["hiring rate", "candidates"],
  ["phone on file", "contacts"],
  ["no phone", "contacts"],
  ["received", "payments"],
  ["collected", "payments"],
  ["collect", "payments"],
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
  // "which of those have deals" after a list of contacts: still the contacts, by what they have.
  if (memory && /\b(?:of those|of them|of these|which of)\b/.test(reading.lower)) {
    if (relatedNoun(memory, reading.lower)) return { resource: memory, named: false };
    // "which of them have overdue invoices" after contacts: a join this layer does not make, not a new list.
    const named = phrases(reading, RESOURCE_WORDS);
    if (named.length > 0 && !named.some((found) => found.value === memory)) {
      reading.other.push(...named);
      return { resource: memory, named: false };
    }
  }
  // "contacts we've never contacted", "who have we never texted or called": contacts without
  // conversations (of a kind), relations.ts.
  if (NEVER_TALKED.test(reading.lower) || NEVER_BY.test(reading.lower) || NEVER_FROM.test(reading.lower)) {
    const named = phrases(reading, RESOURCE_WORDS);
    const contacts = named.find((found) => found.value === "contacts");
    if (contacts) {
      reading.take(contacts.start, contacts.end);
      return { resource: "contacts", named: true };
    }
    if (named.length === 0 && /^(?:who|whom)\b/.test(reading.lower))
      return { resource: "contacts", named: true };
  }
  // "who has no verified skills", "who has the most skills": candidates, by their skills.
  if (/\bwho\s+(?:has|have)\s+(?:no|not|never|the most|the fewest|any|zero)\b/.test(reading.lower)) {
    const skills = phrases(reading, RESOURCE_WORDS).filter((found) => found.value === "skills");
    if (skills.length > 0 && phrases(reading, RESOURCE_WORDS).length === skills.length)
      return { resource: "candidates", named: true };
  }
  // "last contact with", "when did we speak to": a conversation, whatever noun is beside it.
  const talked = phrases(reading, IMPLIED).filter((found) => found.value === "communications");
  if (talked.length > 0) {
    reading.take(talked[0]!.start, talked[0]!.end);
    // "contacts we've never contacted" is about contacts without conversations: a join.
    // "which contact have we talked to the most" groups the conversations by contact (orders.ts).
    for (const found of phrases(reading, RESOURCE_WORDS)) {
      const which = /\b(?:which|what|whose)\s+$/.test(reading.lower.slice(0, found.start));
      if (found.value !== "communications" && !(found.value === "contacts" && which))
        reading.other.push(found);
    }
    return { resource: "communications", named: true };
  }
  // "emails sent or received last month": a channel sent or received stands for conversations.
  if (
    /\b(?:e-?mails|phone calls|calls|meetings|text messages|texts|sms)\s+(?:did\s+|do\s+|have\s+|has\s+)?(?:we\s+)?(?:sent|send|received|receive|get|got|logged|went out|came in)\b/.test(
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
  for (const found of named) if (found.value !== kinds[0]) reading.other.push(found);
  if (kinds.length >= 1) return { resource: kinds[0]!, named: true };
  const implied = phrases(reading, IMPLIED);
  if (implied.length > 0) {
    // "owes" and "overdue" also name a status or an amount: only the verbs of one resource are taken.
    if (
      implied[0]!.value === "communications" ||
      implied[0]!.value === "payments" ||
      /^appl(?:y|ying|ied)$/.test(implied[0]!.phrase)
    ) {
      reading.take(implied[0]!.start, implied[0]!.end);
      return { resource: implied[0]!.value, named: true };
    }
    // "top 3 by what is still owed" after the overdue invoices: what is owed, like a status (below), is
    // said of the list before and does not start a new question. A verb ("expected to close") does.
    return { resource: implied[0]!.value, named: !(memory === "invoices" && implied[0]!.value === memory) };
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
  tags(reading, plan);
  relations(reading, plan);
  statuses(reading, plan);
  if (
    !ranking(reading, plan) &&
    !latest(reading, plan) &&
    !closingOrder(reading, plan) &&
    !nextDue(reading, plan) &&
    !sorting(reading, plan) &&
    !dateOrder(reading, plan)
  )
    superlatives(reading, plan, amounts);
  comparisons(reading, plan, amounts);
  negations(reading, plan);
  groups(reading, plan);
  windows(reading, plan);
  takeAll(reading, SAID_BY_RESOURCE[resource]);
  // "what job is Yara applying for": a candidate's position, which their profile shows.
  if (resource === "candidates" && !plan.groupBy) takeAll(reading, /\bjob\b/g);
  if (plan.structured.includes("comparison")) takeAll(reading, SIZE_WORDS);
  if (resource === "invoices" && usesField(plan, "outstanding")) {
    takeAll(reading, OWED_WORDS);
    // What is owed is owed on the unpaid invoices: a draft or a paid one owes nothing.
    if (!plan.where.some((condition) => condition.field === "status")) {
      plan.where.push({ field: "status", op: "in", value: ["open", "overdue"] });
      plan.adjectives.push("unpaid");
    }
  }
  // Numbers nothing took (no comparison before them) are not understood.
  for (const amount of amounts) {
    if (!taken.some(([a, b]) => amount.start >= a && amount.end <= b))
      plan.leftover.push(lower.slice(amount.start, amount.end));
  }
  // "when was Yara Iyer hired", "when is the Larkspur deal expected to close": a named record's
  // dates, which its details show; without a name to look up, the words are not understood.
  const dateWords = /\bwhen\b/.test(lower)
    ? findPhrases(lower, DATE_FIELD_WORDS[resource] ?? []).filter(
        ({ start, end }) => !taken.some(([a, b]) => start < b && end > a),
      )
    : [];
  const dated: string[] = [];
  for (const token of analysis.norm.tokens) {
    if (taken.some(([a, b]) => token.start < b && token.end > a)) continue;
    if (dateWords.some(({ start, end }) => token.start >= start && token.end <= end)) {
      dated.push(token.word);
      continue;
    }
    if (/^\d/.test(token.raw)) continue;
    if (NEUTRAL.has(token.word) || (STOPWORDS.has(token.word) && !SIGNIFICANT.has(token.word))) continue;
    // A rank, a period or "per" that no reader took is not a name to look up ("median owed per unpaid
    // inv" is not invoices named “per”): it is a word not understood. A negation may turn a name around.
    if (SIGNIFICANT.has(token.word) && !TURNS_NAMES.has(token.word)) {
      plan.leftover.push(token.word);
      continue;
    }
    plan.names.push({
      text: analysis.norm.text.slice(token.start, token.end),
      start: token.start,
      end: token.end,
    });
  }
  plan.names = joinRuns(plan.names, analysis.norm.text);
  if (plan.names.length === 0) plan.leftover.push(...dated);
  // Another kind of record no reader related to this one ("invoices of candidates"): a join not made.
  const unrelated = reading.other.filter(({ start, end }) => !taken.some(([a, b]) => start >= a && end <= b));
  if (unrelated.length > 0) {
    plan.leftover.push(...unrelated.map((found) => found.phrase));
    plan.structured.push("join");
  }
  // A deal or a conversation named by its contact ("the Okafor deal", "how many times did we email
  // Sofia"): the intents read the name as a deal title, or answer with the contact's card.
  if (plan.names.length > 0 && resource === "deals" && !plan.byStatus) plan.structured.push("named");
  // Conversations or payments of someone ("how many times did we email Sofia", "payments from
  // Meridian"): this layer's when the name is found (index.ts); other words are the intents'.
  // "which of Mia Haddad's skills are verified": a candidate's skills with a condition ("Mia's skills"
  // alone is the intents' profile).
  const lookup =
    resource === "communications" ||
    resource === "payments" ||
    (resource === "skills" && (plan.where.length > 0 || /\bgood at\b/.test(lower)));
  if (plan.names.length > 0 && lookup && !plan.byStatus) plan.structured.push("lookup");
  // "excluding Kestrel", "other than Acme": a name turned around.
  for (const [index, run] of plan.names.entries()) {
    // "other than Larkspur and Acme": the second name is turned around too.
    const previous = plan.names[index - 1];
    if (
      previous?.negated &&
      /^\s*(?:,|and|or|nor|&)?\s*(?:,|and|or|nor|&)\s*$/.test(lower.slice(previous.end, run.start))
    ) {
      run.negated = true;
      continue;
    }
    const inside = new RegExp(`^${NAME_NEGATION}\\s+(?:the\\s+)?`, "i").exec(run.text);
    const before = new RegExp(`\\b${NAME_NEGATION}\\s+(?:the\\s+)?$`).exec(
      lower.slice(Math.max(0, run.start - 20), run.start),
    );
    if (inside) {
      run.text = run.text.slice(inside[0].length);
      run.start += inside[0].length;
    } else if (before) reading.take(run.start - before[0].length, run.start);
    else continue;
    run.negated = true;
    plan.structured.push("negation");
  }
  // Words that change the question and that nothing read ("more than a few", "after"): the intents,
  // which read fewer words still, must not answer it either (index.ts).
  plan.doubtful = [...plan.leftover, ...plan.names.map((run) => run.text)].some((text) =>
    text
      .toLowerCase()
      .split(/\s+/)
      .some((word) => DOUBT.has(word)),
  );
  // A negation with no name after it ("invoices excluding"): not understood.
  for (const run of plan.names) if (run.text.length === 0) plan.leftover.push("not");
  plan.names = plan.names.filter((run) => run.text.length > 0);
  // A candidate's stage asked by name in words the intents miss ("Liam Moreau candidate stage").
  if (
    plan.names.length > 0 &&
    resource === "candidates" &&
    /\b(status|stage|where|job|applying|applied for)\b/.test(lower)
  ) {
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

/** Words that turn a question around or bound it: left unread, no reader may answer as if they were not said. */
export const DOUBT: ReadonlySet<string> = new Set([
  "not",
  "non",
  "zero",
  "nothing",
  "none",
  "never",
  "without",
  "except",
  "excluding",
  "besides",
  "less",
  "fewer",
  "over",
  "under",
  "above",
  "below",
  "after",
  "before",
  "between",
  "least",
  "%",
]);

/** Stopwords that may begin a name turned around ("not from Acme"): names.ts and the loop below read them. */
const TURNS_NAMES: ReadonlySet<string> = new Set(["not", "no", "never", "without", "except"]);

/** Words that turn the name after them around: "excluding Kestrel", "other than Acme". */
const NAME_NEGATION =
  "(?:excluding|except(?:\\s+for)?|other\\s+than|besides|apart\\s+from|but\\s+not|not\\s+from|not\\s+for|not\\s+by|not|without)";

/** Stopwords that change a question's meaning: left over, they are not understood. */
export const SIGNIFICANT: ReadonlySet<string> = new Set([
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

/** Takes every match of `pattern` (global) in the message. */
function takeAll(reading: Reading, pattern: RegExp | undefined): void {
  if (!pattern) return;
  for (const match of reading.lower.matchAll(pattern))
    reading.take(match.index, match.index + match[0].length);
}

/** Whether any part of the plan (a condition, the order, the aggregate) is on `field`. */
function usesField(plan: QueryPlan, field: string): boolean {
  return (
    plan.where.some((condition) => condition.field === field) ||
    plan.order?.field === field ||
    plan.aggregate?.field === field
  );
}

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
