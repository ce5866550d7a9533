import { invoiceMentions } from "../entities.ts";
import type { ResourceName } from "../../tools/resources.ts";
import {
  CANDIDATE_STATUS_WORDS,
  CHANNEL_WORDS,
  CURRENCY_WORDS,
  DEAL_STAGE_WORDS,
  INVOICE_STATUS_WORDS,
  LIFECYCLE_WORDS,
  SKILL_STATUS_WORDS,
} from "../vocabulary.ts";
import { phrases, type QueryPlan, type Reading } from "./reading.ts";
import { CURRENCY_CODES, CURRENCY_NAMES, MONEY_FIELD } from "./words.ts";

/**
 * The conditions on a record's own values, and the same turned around: statuses and stages
 * ("unpaid", "not won or lost"), a payment's method, a candidate's source, what is paid of an
 * invoice, an empty or filled field ("without a company"), and a currency ("not in euros").
 */

/** Status phrases only this layer reads (the intents' vocabulary lacks them). */
const OWN_PHRASES = new Set([
  "in play",
  "still in play",
  "still open",
  "fell through",
  "fall through",
  "falling through",
  "got away",
  "slipped away",
  "did not close",
  "did not work out",
  "did not pan out",
  "signed",
  "landed",
  "turn down",
  "turned away",
  "let go",
  "did not make it",
  "in the running",
  "not closed",
]);

/** Per resource, the field its statuses are on and the phrases that name them (a phrase may name several). */
export const STATUS_TABLES: Partial<
  Record<ResourceName, { field: string; table: ReadonlyArray<readonly [string, readonly string[]]> }>
> = {
  invoices: {
    field: "status",
    table: [
      ...INVOICE_STATUS_WORDS,
      ["not due yet", ["open"]],
      ["not yet due", ["open"]],
      ["not due", ["open"]],
      ["went past due", ["overdue"]],
    ],
  },
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
      ["got away", ["lost"]],
      ["slipped away", ["lost"]],
      ["fall through", ["lost"]],
      ["falling through", ["lost"]],
      ["did not close", ["lost"]],
      ["did not work out", ["lost"]],
      // Said turned around: "deals we did not lose".
      ["lose", ["lost"]],
      ["did not pan out", ["lost"]],
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
      ["still active", ["applied", "screening", "interview", "offer"]],
      ["active", ["applied", "screening", "interview", "offer"]],
      ["hiring pipeline", ["applied", "screening", "interview", "offer"]],
      ["in the pipeline", ["applied", "screening", "interview", "offer"]],
      ["pipeline", ["applied", "screening", "interview", "offer"]],
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

/** Where a negation right before a span starts ("not" in "not verified"), if there is one. */
function negatedBefore(lower: string, start: number): number | undefined {
  const before = lower.slice(Math.max(0, start - 24), start);
  const match =
    /\b(not|never|no|nobody has|without|except|excluding|other than|but not|non|isn't|aren't)(?:\s+|-)(?:yet\s+|been\s+|be\s+|in\s+|the\s+|a\s+|an\s+|yet\s+been\s+|(?:yet\s+)?(?:at|in)\s+(?:the\s+)?)?$/.exec(
      before,
    );
  return match ? start - (before.length - match.index) : undefined;
}

/** The statuses and stages named, and turned around by a negation before them. */
export function statuses(reading: Reading, plan: QueryPlan): void {
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
      /^\s+(before|after|earlier|later|prior|since|in|on|during|between|last|this|from|over|within|first|most recently)\b/.test(
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
      // An invoice not paid is one still to be paid: open or overdue, not a draft or a void. "All
      // invoices except paid ones" leaves the paid ones out of all of them, drafts and voids kept.
      const leftOut = /^(?:except|excluding|other than|besides|but not)\b/.test(
        reading.lower.slice(negation, start),
      );
      if (plan.resource === "invoices" && value.length === 1 && value[0] === "paid" && !leftOut) {
        for (const one of ["open", "overdue"]) include.add(one);
      } else for (const one of value) exclude.add(one);
      reading.take(negation, end);
      plan.said.push(`${leftOut ? "except" : "not"} ${phrase}`);
      plan.structured.push("negation");
    } else {
      for (const one of value) include.add(one);
      reading.take(start, end);
      // "deals that got away" are lost deals: a phrase of this layer's own is said as the status it names.
      plan.adjectives.push(OWN_PHRASES.has(phrase) && value.length === 1 ? value[0]! : phrase);
      // Said the other way round ("not verified", "unpaid"), or in words the intents do not know.
      if (OWN_PHRASES.has(phrase) || (phrase.startsWith("not ") && plan.resource === "skills"))
        plan.structured.push("negation");
    }
  }
  // "unpaid invoices that aren't due yet": a status inside another narrows it (open ⊂ open or
  // overdue); statuses side by side ("open or overdue") are either.
  const groups = found.filter((one) => plan.adjectives.includes(one.phrase)).map((one) => new Set(one.value));
  const nested = groups.find((small) =>
    groups.some(
      (large) => large !== small && large.size > small.size && [...small].every((v) => large.has(v)),
    ),
  );
  if (nested && groups.every((group) => [...nested].every((v) => group.has(v)))) {
    include.clear();
    for (const value of nested) include.add(value);
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

/** The fields a record may lack, per resource, by the words that name them. */
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

/** How a payment was made, in words → the method. */
const PAYMENT_METHODS: ReadonlyArray<[string, string]> = [
  ["bank transfer", "bank_transfer"],
  ["wire", "bank_transfer"],
  ["transfer", "bank_transfer"],
  ["direct debit", "direct_debit"],
  ["dd", "direct_debit"],
  ["card", "card"],
  ["credit card", "card"],
  ["cash", "cash"],
  ["cheque", "check"],
  ["check", "check"],
];

/** "payments on inv 18", "what's come in against INV-000009": the payments of the invoices named. */
function paymentsOfInvoices(reading: Reading, plan: QueryPlan): void {
  const mentions = invoiceMentions(reading.lower);
  for (const mention of mentions) reading.take(mention.start, mention.end);
  const numbers = [...new Set(mentions.flatMap((mention) => mention.refs))];
  if (numbers.length === 0) return;
  plan.where.push({ field: "invoice_number", op: "in", value: numbers });
  plan.said.push(`on ${numbers.join(" or ")}`);
  plan.structured.push("filter");
}

/** Values of fields that are not statuses: a payment's method, a candidate's source, a part payment. */
export function fieldValues(reading: Reading, plan: QueryPlan): void {
  const lower = reading.lower;
  if (plan.resource === "payments") {
    paymentMethods(reading, plan);
    paymentsOfInvoices(reading, plan);
  }
  if (plan.resource === "communications") directions(reading, plan);
  if (plan.resource === "skills") {
    const level = /\b(beginner|intermediate|advanced|expert)s?(?:\s+level)?\b/.exec(lower);
    // "which skills do we have no experts in": the skills nobody has at that level, a question about
    // every candidate's skills at once that one condition on a skill cannot ask: not read.
    const nobody = level
      ? /\b(?:no|without(?:\s+any)?|zero|nobody|no\s+one|none)\s+(?:(?:at|of)\s+)?$/.exec(
          lower.slice(0, level.index),
        )
      : null;
    if (level && nobody && /\b(?:in|at|for|on)\b/.test(lower.slice(level.index + level[0].length))) {
      plan.leftover.push(`${nobody[0].trim()} ${level[0]}`);
      reading.take(nobody.index, level.index + level[0].length);
      plan.structured.push("join");
    } else if (level && levelBound(reading, plan, level)) {
      // "advanced or higher", "below advanced": a range of levels (levelBound).
    } else if (level) {
      const negated = negatedBefore(lower, level.index);
      plan.where.push({ field: "level", op: negated === undefined ? "eq" : "ne", value: level[1]! });
      plan.said.push(`${negated === undefined ? "" : "not "}at ${level[1]} level`);
      reading.take(negated ?? level.index, level.index + level[0].length);
      plan.structured.push("filter");
    }
  }
  if (plan.resource === "candidates") {
    const source =
      /\b(?:not from|non|not via|not through|(?:did|do|does) not come (?:from|through|via)|not coming from)\s+(?:an?\s+|the\s+)?([a-z]+)\b/.exec(
        lower,
      );
    // "came through referrals", "sourced from linkedin", "via an agency": where they came from.
    const from = source
      ? null
      : /\b(?:came\s+|come\s+|coming\s+|sourced\s+|found\s+)?(?:from|through|via)\s+(?:an?\s+|the\s+)?(referrals?|linkedin|job boards?|careers page|agency|agencies)\b/.exec(
          lower,
        );
    if (from) {
      const value = from[1]!.replace(/ies$/, "y").replace(/s$/, "");
      plan.where.push({ field: "source", op: "eq", value });
      plan.said.push(`from ${value}`);
      reading.take(from.index, from.index + from[0].length);
      plan.structured.push("filter");
    }
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
    // "excluding partly paid", "not partly paid": nothing paid on them yet (their status stays the list's).
    const left = partial
      ? /\b(?:excluding|except(?:\s+for)?|not|without|other\s+than|besides|apart\s+from|but\s+not)\s+(?:the\s+ones\s+)?(?:(?:that|which)\s+(?:are|were)\s+|(?:they|we)\s+(?:have\s+)?)?$/.exec(
          lower.slice(Math.max(0, partial.index - 40), partial.index),
        )
      : null;
    if (partial && left) {
      plan.where.push({ field: "paid", op: "eq", value: 0 });
      plan.said.push("not partly paid");
      reading.take(partial.index - left[0].length, partial.index + partial[0].length);
      plan.structured.push("negation");
    } else if (partial) {
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
    // "invoices that were paid late": paid after their due date (a share of them is a ratio: answer.ts).
    const late = plan.ratio
      ? null
      : /\b(?:(?:were|was|got|get)\s+)?paid\s+(?:late|after\s+(?:the|their|its)\s+due\s+dates?|past\s+(?:the|their|its)\s+due\s+dates?)\b/.exec(
          lower,
        );
    if (late) {
      plan.where.push({ field: "paid_late", op: "eq", value: true });
      if (!plan.where.some((condition) => condition.field === "status"))
        plan.where.push({ field: "status", op: "in", value: ["paid"] });
      plan.said.push("paid late");
      reading.take(late.index, late.index + late[0].length);
      plan.structured.push("filter");
    }
  }
}

const LEVELS = ["beginner", "intermediate", "advanced", "expert"];

/** "advanced level or higher", "rated below advanced", "above intermediate": the levels on one side. */
function levelBound(reading: Reading, plan: QueryPlan, level: RegExpExecArray): boolean {
  const lower = reading.lower;
  const at = LEVELS.indexOf(level[1]!);
  const end = level.index + level[0].length;
  const after =
    /^\s*,?\s*(?:level\s+)?or\s+(higher|above|better|more|up|lower|below|less|worse|under)\b/.exec(
      lower.slice(end),
    );
  const before =
    /\b(below|under|lower than|less than|worse than|above|over|higher than|better than|more than)\s+(?:the\s+)?$/.exec(
      lower.slice(0, level.index),
    );
  if (!after && !before) return false;
  const up = after
    ? /^(higher|above|better|more|up)$/.test(after[1]!)
    : /^(above|over|higher than|better than|more than)$/.test(before![1]!);
  const levels = after
    ? up
      ? LEVELS.slice(at)
      : LEVELS.slice(0, at + 1)
    : up
      ? LEVELS.slice(at + 1)
      : LEVELS.slice(0, at);
  if (levels.length === 0) return false;
  plan.where.push({ field: "level", op: "in", value: levels });
  plan.said.push(`at ${levels.join(" or ")} level`);
  reading.take(before ? before.index : level.index, after ? end + after[0].length : end);
  plan.structured.push("filter");
  return true;
}

/** "tagged priority", "not tagged vip", "with the partner tag": a contact's tags. */
export function tags(reading: Reading, plan: QueryPlan): void {
  if (plan.resource !== "contacts") return;
  const match =
    /\b(?:(not|never|without|isn't|aren't)\s+(?:been\s+)?)?(?:tagged(?:\s+(?:as|with))?|with\s+(?:the\s+|a\s+)?tag)\s+["'“]?([\w-]+)["'”]?/.exec(
      reading.lower,
    ) ?? /\b(?:(without)\s+|with\s+)(?:the\s+|a\s+)?["'“]?([\w-]+)["'”]?\s+tag\b/.exec(reading.lower);
  if (!match) return;
  const negated = match[1] !== undefined;
  plan.where.push({ field: "tags", op: negated ? "ne" : "eq", value: match[2]! });
  plan.said.push(`${negated ? "not " : ""}tagged ${match[2]!}`);
  reading.take(match.index, match.index + match[0].length);
  plan.structured.push(negated ? "negation" : "filter");
}

/** The methods a payment was made by, said or turned around: "by card", "bank transfers", "not card or cash". */
function paymentMethods(reading: Reading, plan: QueryPlan): void {
  const lower = reading.lower;
  const found: Array<{ method: string; word: string; start: number; end: number }> = [];
  for (const [word, method] of PAYMENT_METHODS) {
    // A bare "check" is a verb ("check the payments"): a cheque is said by, with or as one.
    // "cash" is also money ("how much cash came in"): a method only when said as one.
    const said = ["check", "transfer", "cash"].includes(word);
    const pattern = said
      ? `\\b(?:(?:by|with|via|as|in)\\s+(?:a\\s+)?${word}s?\\b|${word}s?\\s+payments?\\b)`
      : `\\b${word}s?\\b(?:\\s+payments?)?`;
    for (const match of lower.matchAll(new RegExp(pattern, "g"))) {
      const start = match.index;
      const end = start + match[0].length;
      if (found.some((one) => start < one.end && end > one.start)) continue;
      found.push({ method, word, start, end });
    }
  }
  if (found.length === 0) return;
  found.sort((a, b) => a.start - b.start);
  const first = found[0]!;
  const lead =
    /\b(?:(not|never|non|except|excluding|other than)\s+(?:(?:made|paid|come|came|arrive|arrived|sent|received|get|got)\s+(?:in\s+)?)?)?(?:(?:by|with|via|through|paid by|made by|paid with|paid via)\s+)?(?:a\s+|an\s+)?$/.exec(
      lower.slice(Math.max(0, first.start - 30), first.start),
    );
  const negated = lead?.[1] !== undefined;
  const start = first.start - (lead ? lead[0].length : 0);
  const methods = [...new Set(found.map((one) => one.method))];
  plan.where.push({ field: "method", op: negated ? "not_in" : "in", value: methods });
  plan.said.push(`${negated ? "not " : ""}by ${found.map((one) => one.word).join(" or ")}`);
  reading.take(start, found[found.length - 1]!.end);
  for (const one of found) reading.take(one.start, one.end);
  plan.structured.push(negated ? "negation" : "filter");
}

/** "inbound", "outgoing", "did we send", "we received": which way a conversation went. */
function directions(reading: Reading, plan: QueryPlan): void {
  const lower = reading.lower;
  const word = /\b(inbound|incoming|outbound|outgoing)\b/.exec(lower);
  const sent =
    /\b(?:did we send|we sent|we send|sent by us|we made|did we make|went out|we initiated|we started|we reached out|from our (?:side|end))\b/.exec(
      lower,
    );
  const got =
    /\b(?:did we get|we got|we received|did we receive|sent to us|sent us|emailed us|called us|texted us|they sent|replied|came in|(?:came|come|coming)\s+from\s+(?:him|her|them|their\s+side|his\s+side|her\s+side|their\s+end)|from\s+(?:his|her|their)\s+(?:side|end)|(?:he|she|they)\s+(?:initiated|started|reached\s+out|sent|wrote))\b/.exec(
      lower,
    );
  const match = word ?? sent ?? got;
  if (!match) return;
  let value = word
    ? /^(inbound|incoming)$/.test(word[1]!)
      ? "inbound"
      : "outbound"
    : sent
      ? "outbound"
      : "inbound";
  const negation = word ? negatedBefore(lower, word.index) : undefined;
  if (negation !== undefined) value = value === "inbound" ? "outbound" : "inbound";
  plan.where.push({ field: "direction", op: "eq", value });
  plan.said.push(value);
  reading.take(negation ?? match.index, match.index + match[0].length);
  plan.structured.push(negation !== undefined ? "negation" : "filter");
}

/** "without a company", "with no email", "missing a phone", "not in euros", "except USD". */
export function negations(reading: Reading, plan: QueryPlan): void {
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
    // Having one is read only of a phone or an email: "with a company", "with a contact" go on to name which.
    if (has && /\b(?:phone|email)\b/.test(word)) {
      plan.where.push({ field, op: "not_null" });
      plan.said.push(`with ${/^[aeiou]/.test(word) ? "an" : "a"} ${word}`);
      reading.take(has.index, has.index + has[0].length);
      plan.structured.push("filter");
    }
  }
  const currency = new RegExp(
    `\\b(not|other than|except|excluding|besides|but not|anything but|anything except|anything other than)\\s+(?:in\\s+)?(${CURRENCY_NAMES})\\b|\\bnon[- ]?(${CURRENCY_CODES}|euro|dollar)\\b`,
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
    `\\b(?:in|paid in|billed in|priced in)\\s+(${CURRENCY_NAMES})\\b|\\b(${CURRENCY_CODES})\\b|\\b(euros?|dollars?|pounds?)\\b`,
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
