import type { ResourceName } from "../../tools/resources.ts";
import { phrases, type QueryPlan, type Reading } from "./reading.ts";
import { namedDateField } from "./windows.ts";
import {
  AGGREGATE_WORDS,
  DEFAULT_DATE,
  MONEY_FIELD,
  OWED,
  PERIOD_GROUPS,
  RATIO_WORDS,
  type AggregateWord,
} from "./words.ts";

/**
 * What a question computes over the records rather than lists: an aggregate ("the average deal",
 * "revenue last quarter"), a ratio ("win rate", "what % of"), and the groups it is computed per
 * ("by month", "per source").
 */

/** Words that ask for money received. */
const REVENUE =
  /\b(revenue|income|takings|turnover|sales|collected|collect|collections|earned|brought in|how much|total)\b/;

/** What was billed, said as a figure ("billed per month", "billed in q1?"): invoices' amounts added up. */
const BILLED =
  /^(?:total\s+)?(?:billed|invoiced)\b|\b(?:billed|invoiced)\s+(?:per|each|by|a)\s+(?:month|week|quarter|year)\b/;

/** "the average deal", "total unpaid", "win rate": the aggregate or the ratio asked for, on the field it is over. */
export function aggregates(reading: Reading, plan: QueryPlan): void {
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
    // "how often do clients pay late", "paid after the due date": the share paid late (answer.ts).
    const late =
      /\b(?:(?:were|was|get|got|are|is)\s+)?(?:paid|pay|pays|paying)\s+(?:late|after (?:the|their|its) due dates?|past (?:the|their|its) due dates?)\b/.exec(
        reading.lower,
      );
    if (plan.resource === "invoices" && late) reading.take(late.index, late.index + late[0].length);
  }
  const words = phrases(reading, AGGREGATE_WORDS);
  const fns = new Set<AggregateWord>();
  // "the typical payment — median not mean": a vague word beside a precise one is the precise one.
  const precise = words.some(
    (found) => found.phrase !== "typical" && found.value !== "sum" && found.value !== "count",
  );
  for (const found of words) {
    reading.take(found.start, found.end);
    if (precise && found.phrase === "typical") continue;
    fns.add(found.value);
    // "Riverbend Coffee balance due": what one client owes, which the intents read as a due date.
    if (found.phrase === "balance due") plan.structured.push("aggregate");
  }
  let pick: AggregateWord | undefined = (["avg", "median", "min", "max", "sum", "count"] as const).find(
    (fn) => fns.has(fn),
  );
  // "the min and max amount": two figures of one kind asked at once; the plan answers one, so the
  // other is a word it did not read.
  const figures = words.filter(
    (found) =>
      ["avg", "median", "min", "max"].includes(found.value) && !(precise && found.phrase === "typical"),
  );
  const other = figures.find((found) => found.value !== pick);
  if (other && pick && pick !== "sum" && pick !== "count") plan.leftover.push(other.phrase);
  // "revenue last quarter": money received is added up ("payments by month" is, in answer.ts).
  if (!pick && plan.resource === "payments" && REVENUE.test(reading.lower)) pick = "sum";
  if (!pick && plan.resource === "invoices" && BILLED.test(reading.lower)) pick = "sum";
  if (!pick || plan.ratio) return;
  if (pick === "count") {
    plan.aggregate = { fn: "count" };
    return;
  }
  let field = MONEY_FIELD[plan.resource];
  // Unpaid said, or the list before was ("overdue invoices", then "add them up"): what they still owe.
  const unpaid =
    /\b(unpaid|outstanding|open|overdue)\b/.test(reading.lower) ||
    reading.context.some(
      (c) =>
        c.field === "status" &&
        Array.isArray(c.value) &&
        c.value.every((v) => v === "open" || v === "overdue"),
    );
  if (plan.resource === "invoices" && (OWED.test(reading.lower) || (pick === "sum" && unpaid)))
    field = "outstanding";
  if (!field) {
    plan.leftover.push(words.find((found) => found.value === pick)?.phrase ?? pick);
    return;
  }
  plan.aggregate = { fn: pick, field };
  if (pick !== "sum") plan.structured.push("aggregate");
}

/** The fields a resource's records are grouped by, per the word that names each. */
export const GROUP_FIELDS: Partial<Record<ResourceName, ReadonlyArray<[string, string]>>> = {
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
    ["candidate", "candidate"],
    ["person", "candidate"],
  ],
  communications: [
    ["channel", "channel"],
    ["direction", "direction"],
    ["contact", "contact"],
    ["person", "contact"],
  ],
};

/**
 * "whose are they", "from who?", "who were they to": a follow-up asking who the records before are
 * of, which is those records per the person each belongs to.
 */
const WHOSE =
  /^(?:and\s+|so\s+)?(?:(?:from|to|with|for|by)\s+)?(?:who|whom|whose)(?:\s+(?:are|were|is|was)\s+(?:they|those|these|them|it|that))?(?:\s+(?:from|to|with|for|of|by))?\s*\??$/;
const WHO_GROUPS: Partial<Record<ResourceName, [string, string]>> = {
  skills: ["candidate", "candidate"],
  communications: ["contact", "contact"],
  deals: ["contact", "contact"],
};

/** "by month", "per source": the period or the field the figures are computed per. */
export function groups(reading: Reading, plan: QueryPlan): void {
  const period = phrases(reading, PERIOD_GROUPS)[0];
  if (period) {
    reading.take(period.start, period.end);
    // "invoices issued per month", "deals closed each quarter": the date the verb names.
    plan.groupBy = `${period.value}:${namedDateField(reading, plan) ?? DEFAULT_DATE[plan.resource]}`;
    plan.groupSaid = `per ${period.value}`;
    plan.structured.push("group");
    return;
  }
  const whose = WHOSE.exec(reading.lower);
  const person = WHO_GROUPS[plan.resource];
  if (whose && person) {
    reading.take(whose.index, whose.index + whose[0].length);
    plan.groupBy = person[1];
    plan.groupSaid = `per ${person[0]}`;
    plan.structured.push("group");
    return;
  }
  for (const [word, field] of GROUP_FIELDS[plan.resource] ?? []) {
    // "by method", "split that by payment method": one word may stand between.
    const match = new RegExp(
      `\\b(?:by|per|each|for each|broken down by|split by)\\s+(?:[a-z]+\\s+)?(${word})s?\\b`,
    ).exec(reading.lower);
    if (match) {
      // "split that by method", "break it down by source": the verb of the grouping.
      const verb =
        /\b(?:split|break|broken|breakdown)(?:\s+(?:that|it|them|this|those|these))?(?:\s+(?:up|down))?\s*$/.exec(
          reading.lower.slice(0, match.index),
        );
      reading.take(verb?.index ?? match.index, match.index + match[0].length);
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
