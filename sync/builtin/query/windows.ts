import type { Condition } from "../../tools/query.ts";
import { addDays, findDates, type Period } from "../dates.ts";
import { findPhrases } from "../vocabulary.ts";
import type { QueryPlan, Reading } from "./reading.ts";
import { DATE_FIELD_LABEL, DATE_FIELD_WORDS, DEFAULT_DATE } from "./words.ts";

/**
 * The window of a question ("last month", "before March", "this year so far") as conditions on
 * the date its verb names: created, due, paid, closed, hired.
 */

const NEGATED = /\b(?:not|never|nothing|no)\s+(?:yet\s+|been\s+|yet\s+been\s+|even\s+)?$/;

/** The date the message's verb names ("issued", "paid", "expected to close"), taking the verb. */
export function namedDateField(reading: Reading, plan: QueryPlan): string | undefined {
  // The verb may also be a status ("paid this month"): both readings hold, so taken words count.
  // A verb said in the negative names no date: "this month's invoices that have not been paid" were
  // issued this month; nothing was paid.
  // Of two verbs, the one right before the date is its: "paid invoices that were due before march 1".
  const found = findPhrases(reading.lower, DATE_FIELD_WORDS[plan.resource] ?? []).filter(
    (one) => !NEGATED.test(reading.lower.slice(Math.max(0, one.start - 20), one.start)),
  );
  const [spanStart] = reading.analysis.dates.spans[0] ?? [-1];
  const nearest = found.filter((one) => one.end <= spanStart && spanStart - one.end <= 12).at(-1);
  const first = nearest ?? found[0];
  if (!first) return undefined;
  reading.take(first.start, first.end);
  return first.value;
}

/** Which date a window is on: the verb beside it, or the resource's usual one. */
function dateFieldOf(reading: Reading, plan: QueryPlan): string {
  const named = namedDateField(reading, plan);
  if (named) return named;
  const stage = [...plan.where, ...reading.context].find((c) => c.field === "stage" || c.field === "status");
  const values = stage && Array.isArray(stage.value) ? stage.value : [];
  // "the ones from last month": when they were made, whatever their status.
  // "this month's invoices that have not been paid" too: the invoices of this month, whatever they owe.
  const [spanStart, spanEnd] = reading.analysis.dates.spans[0] ?? [0, 0];
  if (
    /\bfrom\s+(?:the\s+)?$/.test(reading.lower.slice(Math.max(0, spanStart - 10), spanStart)) ||
    /^from\s/.test(reading.lower.slice(spanStart, spanEnd)) ||
    /^(?:'s|’s|s)?\s+(?:invoices?|invs?|bills?|deals?|payments?|candidates?|contacts?)\b/.test(
      reading.lower.slice(spanEnd, spanEnd + 16),
    )
  )
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
  // A win rate over a period is over the deals closed in it.
  if (plan.resource === "deals" && plan.ratio) return "closed_at";
  if (plan.resource === "candidates" && values.length === 1 && values[0] === "hired") return "hired_at";
  if (plan.resource === "candidates" && values.length === 1 && values[0] === "rejected") return "rejected_at";
  if (plan.resource === "skills" && values.length === 1 && values[0] === "verified") return "verified_at";
  return DEFAULT_DATE[plan.resource];
}

/** The conditions of a window on `field`; a day's end on a timestamp is the next day's start. */
function dateConditions(field: string, from: string | undefined, to: string | undefined): Condition[] {
  const instant = field.endsWith("_at");
  const out: Condition[] = [];
  if (from) out.push({ field, op: "gte", value: from });
  if (to) out.push(instant ? { field, op: "lt", value: addDays(to, 1) } : { field, op: "lte", value: to });
  return out;
}

/** The window of the question, on the date field its verb names; "before March" is a bound, not March. */
export function windows(reading: Reading, plan: QueryPlan): void {
  const { dates, today } = reading.analysis;
  if (dates.spans.length === 0) return;
  const [spanStart, spanEnd] = dates.spans[0]!;
  const field = dateFieldOf(reading, plan);
  // What is overdue is past due: its due date lies behind ("overdue bills due before feb 15").
  const overdue = plan.where.some(
    (c) => c.field === "status" && Array.isArray(c.value) && c.value.every((v) => v === "overdue"),
  );
  const ahead = (field === "due_date" && !overdue) || field === "expected_close_date";
  // A due date or a close date looks ahead: "closing in April" is the coming April, unless said otherwise.
  // "were due in feb" is the February behind us, whatever the verb of a due date usually means.
  const backwards =
    /\b(last|ago|past|previous|prior|since|so far|to date|ytd)\b/.test(reading.lower) ||
    /\b(?:were|was|fell|came|had been|have been|has been) due\b/.test(reading.lower);
  const period: Period | undefined =
    ahead && !backwards ? (dates.future ?? dates.past) : (dates.past ?? dates.future);
  if (!period) return;
  const before = reading.lower.slice(Math.max(0, spanStart - 16), spanStart);
  // "over 30 days ago" is before that day; "less than 30 days ago" after it.
  const ago = /\bago\b/.test(reading.lower.slice(spanStart, spanEnd));
  const bound =
    /\b(before|after|earlier than|later than|prior to)\s*$/.exec(before) ??
    (ago ? /\b(over|more than|less than|under|within)\s*$/.exec(before) : null);
  const phrase = reading.lower.slice(spanStart, spanEnd);
  let from: string | undefined = period.range.from;
  let to: string | undefined = period.range.to;
  let words = period.range.label.replace(/\s*\(.*\)$/, "") || phrase;
  if (bound) {
    const after = ["after", "later than", "less than", "under", "within"].includes(bound[1]!);
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
  // "in jan or feb", "march to may": two periods side by side are one window from the first to the last
  // (which the intents, reading the first period alone, would not answer).
  let joined = false;
  const second = dates.spans[1];
  if (
    second &&
    !bound &&
    /^\s*(?:or|and|to|through|till|until|-|–)\s*$/.test(reading.lower.slice(spanEnd, second[0]))
  ) {
    const other = findDates(reading.lower.slice(second[0], second[1]), today);
    const range = other.past?.range ?? other.future?.range;
    if (range && from && range.to > from) {
      joined = true;
      to = range.to;
      words = `${words} to ${range.label.replace(/\s*\(.*\)$/, "").replace(/^(in|on)\s+/, "")}`;
      reading.take(spanEnd, second[0]);
    }
  }
  for (const [start, end] of dates.spans) reading.take(start, end);
  plan.where.push(...dateConditions(field, from, to));
  const label =
    plan.resource === "candidates" && field === "created_at"
      ? "who applied"
      : (DATE_FIELD_LABEL[field] ?? field);
  plan.said.push(
    `${label} ${words}`
      .replace(/^on in /, "in ")
      .replace(/^on on /, "on ")
      .replace(/^from (since|until|before|after|in|on|from) /, "$1 "),
  );
  // "which invoices have a due date of April 6": every invoice with that date, paid or not, which the
  // intents (what is still to collect) do not answer.
  const everyStatus = field === "due_date" && /\bdue dates?\s+(?:of|on|in|is|was|=)\b/.test(reading.lower);
  // The intents read a window right on money received, on closed deals and on conversations.
  // "before March" is a bound the intents do not read.
  const intentsRead =
    !bound &&
    !joined &&
    ((plan.resource === "payments" &&
      /\b(receiv|came in|come in|revenue|income|collect(?!ions)|earn|paid|made|brought|due|upcoming)/.test(
        reading.lower,
      )) ||
      // The intents read a window on conversations, unless a channel is named ("emails sent last month").
      (plan.resource === "communications" && !/\b(sent|received|logged)\b/.test(reading.lower)) ||
      // The intents read deals closed in a calendar period ("won last month"), not a rolling one.
      (field === "closed_at" &&
        !/\b(today|yesterday|this week|past|last \d+|\d+ days)\b/.test(reading.lower)) ||
      field === "verified_at" ||
      (field === "due_date" &&
        period.range.to > today &&
        !bound &&
        !everyStatus &&
        !plan.where.some(
          (c) => c.field === "status" && Array.isArray(c.value) && c.value.includes("overdue"),
        )));
  if (!intentsRead) plan.structured.push("window");
  const stated = plan.where.some((c) => c.field === "status" || c.field === "stage");
  // What is due is what is still to be paid; what is expected to close is still in the pipeline.
  if (field === "due_date" && !stated && !everyStatus) {
    const future = (from ?? today) >= today;
    plan.where.push({ field: "status", op: "in", value: future ? ["open"] : ["open", "overdue"] });
    plan.adjectives.push(future ? "open" : "unpaid");
  }
  if (field === "expected_close_date" && !stated) {
    plan.where.push({ field: "stage", op: "in", value: ["lead", "qualified", "proposal"] });
    plan.adjectives.push("open");
  }
}
