import { numberOf } from "../calendar.ts";
import { escapeRegExp } from "../vocabulary.ts";
import { GROUP_FIELDS } from "./aggregates.ts";
import type { Amount } from "./amounts.ts";
import { phrases, type QueryPlan, type Reading } from "./reading.ts";
import { AGE_FIELD, DATE_FIELD_LABEL, DATE_FIELD_WORDS, MONEY_FIELD, OWED, SUPERLATIVES } from "./words.ts";

/**
 * The order a question asks for, and how many: "the biggest invoice", "top 5 deals", "sort them
 * by due date", "when did we last hear from", and groups ranked by their total or count ("who
 * owes us the most"). ranking, latest and sorting say whether they set the order; superlatives
 * reads only when none of them did (parse.ts).
 */

/** Words about money: with one, a ranking adds the amounts up rather than counting the records. */
const MONEY_WORDS =
  /\b(owe|owes|owed|owing|debtors?|value|worth|revenue|amount|money|paid|pays|spent|spend|billed|invoiced)\b/;

/**
 * "who owes us the most", "which client has the most overdue invoices", "which source brings the
 * fewest candidates": a total or a count per group, the groups ranked.
 */
export function ranking(reading: Reading, plan: QueryPlan): boolean {
  const most =
    /\b(?:the\s+)?(most|least|fewest|biggest|largest|highest|lowest)\b(?!\s+(?:expensive|valuable|recent|recently)\b)/.exec(
      reading.lower,
    ) ??
    // "top 3 clients by what they owe us": the top of the clients, without a superlative.
    (plan.resource === "invoices"
      ? /\b(top)\s+(?:\d{1,2}|two|three|four|five|ten)\s+(?:clients|customers|debtors|payers|companies)\b/.exec(
          reading.lower,
        )
      : null);
  if (!most) return false;
  const lower = reading.lower;
  let group: [string, string] | undefined;
  if (
    plan.resource === "invoices" &&
    /\b(who|which|whom|what|top)\b/.test(lower) &&
    /\b(owe|owes|owed|owing|pays|paid|spent|spend|billed|invoiced|client|customer|company|debtor|payer)\b/.test(
      lower,
    )
  ) {
    group = ["client", "client"];
  }
  // "biggest debtor": the client that owes the most.
  if (plan.resource === "invoices" && /\bdebtors?\b/.test(lower)) group = ["client", "client"];
  // "who do we talk to most": conversations counted per contact.
  if (plan.resource === "communications" && /\bwho(?:m)?\b/.test(lower)) group = ["contact", "contact"];
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
  if (group[1] === "client" && !/\b(invoices|bills|debtors?)\b/.test(lower) && !/^top\b/.test(most[0]))
    return false;
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
  const clients = /^top\b/.test(most[0])
    ? /\b(clients|customers|debtors|payers|companies)\b/.exec(lower)
    : null;
  if (clients) reading.take(clients.index, clients.index + clients[0].length);
  const owes = /\b(owe|owes|owed|owing|debtors?)\b/.exec(lower);
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
  // "top 3", "which two clients", "the three companies": how many groups the answer ranks.
  const top =
    /\b(?:top)\s+(\d{1,2}|two|three|four|five|ten)\b/.exec(lower) ??
    /\b(?:which|what|the)\s+(\d{1,2}|two|three|four|five|ten)\s+(?:clients|customers|companies|debtors|payers|contacts|people|candidates|sources|methods)\b/.exec(
      lower,
    );
  if (top) reading.take(top.index, top.index + top[0].length);
  plan.groupBy = group[1];
  plan.groupSaid = `per ${group[0]}`;
  plan.rank = { descending, limit: top ? (numberOf(top[1]!) ?? Number(top[1])) : 1, said: most[1]! };
  plan.structured.push("rank");
  return true;
}

/** "sort them by amount", "order by due date": the list in that order. */
export function sorting(reading: Reading, plan: QueryPlan): boolean {
  // "sort them by amount", "order by amount, biggest first"; after a list, "by amount please".
  const sort =
    /\b(?:sort|sorted|order|ordered|rank|ranked|arrange)\s+(?:them\s+|those\s+|these\s+|it\s+|the list\s+)?by\s+(?:the\s+)?([a-z]+(?:\s+date)?)(?:,?\s+(desc|descending|asc|ascending|first|(?:biggest|largest|highest|smallest|lowest|newest|oldest)\s+first))?/.exec(
      reading.lower,
    ) ??
    (reading.context.length > 0 || !plan.named
      ? /^(?:and\s+|now\s+|ok\s+)?by\s+(?:the\s+)?(amount|value|price|size|due date|date|name|title)(?:,?\s+(desc|descending|asc|ascending|(?:biggest|largest|highest|smallest|lowest|newest|oldest)\s+first))?(?=\s*(?:please|pls)?\s*[.?!]?\s*$)/.exec(
          reading.lower,
        )
      : null);
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
    ? /^(asc|smallest|lowest|oldest)/.test(sort[2])
    : field === "due_date" || /^(name|title|oldest)/.test(word);
  reading.take(sort.index, sort.index + sort[0].length);
  plan.order = { field, descending: !ascending, said: ascending ? `by ${word}` : `by ${word}, largest` };
  plan.structured.push("order");
  return true;
}

/** "when's Juniper's next invoice due": the open invoice falling due first. */
export function nextDue(reading: Reading, plan: QueryPlan): boolean {
  if (plan.resource !== "invoices") return false;
  const match =
    /\bnext\s+(?:\w+\s+)?(?:invoice|bill|inv|payment)s?\s+(?:that\s+is\s+|is\s+)?(?:due|falling due)\b/.exec(
      reading.lower,
    );
  if (!match) return false;
  reading.take(match.index, match.index + match[0].length);
  plan.order = { field: "due_date", descending: false, said: "falling due next" };
  plan.limit = 1;
  if (!plan.where.some((condition) => condition.field === "status")) {
    plan.where.push({ field: "status", op: "in", value: ["open"] });
    plan.adjectives.push("open");
  }
  plan.structured.push("order");
  return true;
}

/**
 * "due next", "closing soonest": from today on, and still open (an invoice not yet due, a deal not yet won or
 * lost), unless the question says which status.
 */
function stillToCome(reading: Reading, plan: QueryPlan, field: "due_date" | "expected_close_date"): void {
  plan.where.push({ field, op: "gte", value: reading.analysis.today });
  const open =
    field === "due_date"
      ? { field: "status", values: ["open"] }
      : { field: "stage", values: ["lead", "qualified", "proposal"] };
  if (!plan.where.some((condition) => condition.field === open.field)) {
    plan.where.push({ field: open.field, op: "in", value: open.values });
    plan.adjectives.push("open");
  }
}

/** Words that put a date first or last: "the latest due date", "due soonest", "paid most recently". */
const LATE = "latest|last|furthest|farthest|newest|most recent|most recently";
const EARLY = "earliest|soonest|first|oldest|next";

/**
 * One record by one of its dates, the date named by its field's words: "the invoice with the latest due
 * date", "which draft is due first", "the payment received most recently", "the skill verified first".
 * A window is not an order: "due last week" is a window (windows.ts).
 */
export function dateOrder(reading: Reading, plan: QueryPlan): boolean {
  const fields = DATE_FIELD_WORDS[plan.resource] ?? [];
  for (const [word, field] of fields) {
    const name = escapeRegExp(word);
    const before = new RegExp(
      `\\b(?:the\\s+)?(${LATE}|${EARLY})(?:\\s+out)?\\s+${name}(?:\\s+dates?)?\\b(?!\\s+(?:\\d|day|week|month|quarter|year))`,
    ).exec(reading.lower);
    const after = new RegExp(
      `\\b${name}\\s+(?:the\\s+)?(${LATE}|${EARLY})\\b(?!\\s+(?:\\d|day|week|month|quarter|year|few|couple))`,
    ).exec(reading.lower);
    const match = before ?? after;
    if (!match) continue;
    const late = new RegExp(`^(?:${LATE})$`).test(match[1]!);
    reading.take(match.index, match.index + match[0].length);
    if (/^(?:next|soonest)$/.test(match[1]!) && (field === "due_date" || field === "expected_close_date"))
      stillToCome(reading, plan, field);
    plan.order = {
      field,
      descending: late,
      said: `${late ? "last" : "first"} ${DATE_FIELD_LABEL[field] ?? word}`,
    };
    plan.limit = 1;
    plan.structured.push("order");
    return true;
  }
  return false;
}

/** "which deal is expected to close last", "what closes first": deals by their expected close date. */
export function closingOrder(reading: Reading, plan: QueryPlan): boolean {
  if (plan.resource !== "deals") return false;
  const match =
    /\b(?:(?:expected|set|due|supposed|going|slated|scheduled) to\s+)?clos(?:e|es|ing)\s+(last|latest|first|soonest|earliest)\b(?!\s+(?:\d|day|week|month|quarter|year))/.exec(
      reading.lower,
    );
  if (!match) return false;
  const descending = /^(last|latest)$/.test(match[1]!);
  reading.take(match.index, match.index + match[0].length);
  if (match[1] === "soonest") stillToCome(reading, plan, "expected_close_date");
  plan.order = {
    field: "expected_close_date",
    descending,
    said: descending ? "closing last" : match[1] === "soonest" ? "next to close" : "closing first",
  };
  plan.limit = 1;
  if (!plan.where.some((condition) => condition.field === "stage")) {
    plan.where.push({ field: "stage", op: "in", value: ["lead", "qualified", "proposal"] });
    plan.adjectives.push("open");
  }
  plan.structured.push("order");
  return true;
}

/** "when did we last hear from", "the latest email": the newest communication first. */
export function latest(reading: Reading, plan: QueryPlan): boolean {
  if (plan.resource !== "communications") return false;
  const lastOne =
    /\b(?:the\s+)?(?:last|latest|most recent)\s+(e-?mail|call|meeting|text|message|conversation|sms)\b/.exec(
      reading.lower,
    );
  if (lastOne) {
    reading.take(lastOne.index, lastOne.index + lastOne[0].length);
    const channel = {
      email: "email",
      "e-mail": "email",
      call: "call",
      meeting: "meeting",
      text: "sms",
      sms: "sms",
    }[lastOne[1]!];
    if (channel && !plan.where.some((condition) => condition.field === "channel"))
      plan.where.push({ field: "channel", op: "eq", value: channel });
    const who = /\b(?:who|whom|when)\b/.exec(reading.lower);
    if (who) reading.take(who.index, who.index + who[0].length);
    plan.order = { field: "occurred_at", descending: true, said: "most recent" };
    plan.limit = 1;
    plan.structured.push("order");
    return true;
  }
  if (
    !/\b(when|last time|last contact|last heard|last hear|last spoke|last spoken|last talked|last reached|last got)\b|\b(hear|heard|spoke|spoken|talked|reach|reached|touch|emailed|called|texted|phoned|met)\b.*\blast\b|\blast\b.*\b(hear|heard|spoke|speak|talked|talk|reach|reached|touch|contact|emailed|called|texted|phoned|met|get back|got back)\b/.test(
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

/** A count of records in figures or words: "top 5", "the 3 biggest". */
const COUNT = String.raw`(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|twenty)`;
/** Any of the superlatives, as one alternation. */
const SUPERLATIVE = SUPERLATIVES.map(([phrase]) => escapeRegExp(phrase)).join("|");

/**
 * "the biggest invoice", "top 5 deals", "the first candidate": an order and how many; "the highest
 * deal value" is the figure itself (a max or a min).
 */
export function superlatives(reading: Reading, plan: QueryPlan, amounts: Amount[]): void {
  const found = phrases(reading, SUPERLATIVES);
  const top =
    /\b(?:top|bottom|first|last)\s+(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|twenty)\b(?!\s+(?:day|week|fortnight|month|quarter|year|hour)s?\b)/.exec(
      reading.lower,
    );
  const counted = new RegExp(String.raw`\b${COUNT}\s+(?:${SUPERLATIVE})\b`).exec(reading.lower);
  const after = new RegExp(String.raw`\b(?:${SUPERLATIVE})\s+${COUNT}\b`).exec(reading.lower);
  if (after) reading.take(after.index + after[0].length - after[1]!.length, after.index + after[0].length);
  // "which 3 invoices have the most left to pay": the count before the noun.
  const before =
    found.length > 0
      ? new RegExp(
          String.raw`(?:^|\b(?:which|what|the|show|list|give me)\s+)${COUNT}\s+(?:(?:[a-z]+\s+)?(?:invoices|bills|deals|payments|candidates|products|contacts|skills)|(?:are|were|have|has|is))\b`,
        ).exec(reading.lower)
      : null;
  if (before) {
    const at = before.index + before[0].search(new RegExp(String.raw`\b${before[1]!}\b`));
    reading.take(at, at + before[1]!.length);
  }
  const limitText = counted?.[1] ?? top?.[1] ?? after?.[1] ?? before?.[1];
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
  // "our 2nd largest deal", "the third oldest invoice": one record, after the ones before it.
  const ordinal = superlative
    ? /\b(\d{1,2})(?:st|nd|rd|th)\s+$|\b(second|third|fourth|fifth)\s+$/.exec(
        reading.lower.slice(Math.max(0, superlative.start - 12), superlative.start),
      )
    : null;
  if (ordinal && superlative) {
    const n = ordinal[1]
      ? Number(ordinal[1])
      : ["second", "third", "fourth", "fifth"].indexOf(ordinal[2]!) + 2;
    if (n > 1) plan.offset = n - 1;
    reading.take(superlative.start - ordinal[0].length, superlative.start);
  }
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
  } else if (
    plan.resource === "invoices" &&
    /\b(?:went|gone|became|become|fell|go|goes|turned)\s+(?:overdue|past due|late)\b/.test(reading.lower)
  ) {
    // "which invoice went overdue most recently": the latest due date among the overdue.
    field = "due_date";
    const went = /\b(?:went|gone|became|become|fell|go|goes|turned)\b/.exec(reading.lower)!;
    reading.take(went.index, went.index + went[0].length);
  } else field = AGE_FIELD[plan.resource];
  if (plan.resource === "invoices" && by === "money" && OWED.test(reading.lower)) field = "outstanding";
  // "the highest deal value", "the smallest invoice amount": a figure, not a record ("which unpaid
  // invoice has the smallest balance" asks for the record).
  if (
    superlative &&
    !/\bwhich\s+(?:[a-z]+\s+)?(?:invoice|bill|deal|payment|candidate|product|contact|skill)s?\b/.test(
      reading.lower,
    ) &&
    by === "money" &&
    field &&
    limit === undefined &&
    /^\s+(?:[a-z]+\s+)?(value|amount|price|total|size|balance)\b(?!\s+(?:product|deal|invoice|payment|item)s?\b)/.test(
      reading.lower.slice(superlative.end),
    )
  ) {
    plan.aggregate = { fn: descending ? "max" : "min", field };
    plan.structured.push("aggregate");
    const noun = /^\s+(?:[a-z]+\s+)?(value|amount|price|total|size|balance)\b/.exec(
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
  if (plan.offset) {
    plan.limit = 1;
    plan.order.said = `number ${plan.offset + 1} ${said}`;
    plan.structured.push("order");
    return;
  }
  plan.limit =
    limit ??
    (/\b(?:ones|invoices|deals|payments|candidates|bills|products|contacts)\b/.test(reading.lower) &&
    !superlative
      ? 5
      : 1);
  if (limit === undefined && superlative) {
    // "the biggest invoices": a plural noun right after the superlative asks for a few.
    const next = reading.lower.slice(superlative.end).trim().split(/\s+/)[0] ?? "";
    if (/^(invoices|bills|deals|payments|candidates|products|contacts|ones|skills)$/.test(next))
      plan.limit = 5;
  }
  plan.structured.push("order");
}
