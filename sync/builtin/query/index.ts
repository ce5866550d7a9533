import type { Condition } from "../../tools/query.ts";
import { FIELDS } from "../../tools/query.ts";
import type { PlanContext } from "../context.ts";
import type { Answer, ListMemory, Memory } from "../types.ts";
import type { QueryResult } from "../../tools/query.ts";
import { bullets, itemsOf, lineFor } from "../answers.ts";
import { candidateDetail } from "../handlers/people.ts";
import { clientsWithNothing, clientsWithNothingAsked } from "../handlers/invoices.ts";
import { addDays } from "../calendar.ts";
import { answerQuery } from "./answer.ts";
import { DATE_FIELD_LABEL } from "./words.ts";
import { parseQuery } from "./parse.ts";

/**
 * The structured layer of the built-in planner: a question with a threshold, an order, an
 * aggregate beyond count and sum, a ratio, a negation, a group or a window on a named date is
 * read as one query (parse.ts) and answered from it (answer.ts), or said back as not understood.
 * Plain questions ("which invoices are overdue?") stay with the intents, which answer them in
 * their own words; a follow-up that refines the list before ("only the ones from last month",
 * "which one is the biggest") is this layer's too.
 */

/** The conditions a list remembered by the intents stands for, when each of its filters has a field. */
function conditionsOf(list: ListMemory, memory?: Memory): Condition[] | undefined {
  if (list.where) return list.where;
  // "invoices for Helios Energy": the intents searched for the client they named; that is its invoices.
  // "unpaid invoices for Helios", then "what's the total on those": the client and the statuses.
  const client = memory?.slots.subject?.client;
  const ofClient = Boolean(list.q && list.resource === "invoices" && client && list.q === client);
  const fields = FIELDS[list.resource];
  const conditions: Condition[] = ofClient ? [{ field: "client", op: "eq", value: client! }] : [];
  for (const [name, raw] of Object.entries(list.filters)) {
    const values = Array.isArray(raw) ? raw : raw.split(",");
    // A window filter ("occurred_after", "due_before") is a bound on its date field.
    const bound = /^(.+)_(after|before)$/.exec(name);
    const dated = bound ? [`${bound[1]}_at`, `${bound[1]}_date`].find((field) => fields[field]) : undefined;
    if (bound && dated)
      conditions.push({ field: dated, op: bound[2] === "after" ? "gt" : "lt", value: values[0]! });
    else if (fields[name]) conditions.push({ field: name, op: "in", value: values });
    else return undefined;
  }
  if (list.q && !ofClient) return undefined;
  return conditions;
}

/**
 * An intents' list leaves filters, not words: its client and its window said from the conditions it
 * kept ("of Helios Energy", "received 2026-03-01 to 2026-03-18"), so a refinement of it still says
 * what it is over.
 */
function boundsSaid(where: readonly Condition[]): string[] {
  const said: string[] = [];
  for (const condition of where)
    if (condition.field === "client" && condition.op === "eq") said.push(`of ${String(condition.value)}`);
  const fields = new Set(where.filter((c) => /_(at|date)$/.test(c.field)).map((c) => c.field));
  for (const field of fields) {
    const day = (op: string) => {
      const bound = where.find((c) => c.field === field && c.op === op)?.value;
      return typeof bound === "string" ? bound.slice(0, 10) : undefined;
    };
    // The bounds are exclusive (an inclusive lower one, "gte", is its own day): the day after the lower
    // one, the day before the upper one.
    const from = day("gte") ?? (day("gt") && addDays(day("gt")!, 1));
    const to = day("lt") && addDays(day("lt")!, -1);
    const label = DATE_FIELD_LABEL[field] ?? field;
    if (from && to) said.push(`${label} ${from} to ${to}`);
    else if (from) said.push(`${label} since ${from}`);
    else if (to) said.push(`${label} until ${to}`);
  }
  return said;
}

/**
 * An intents' list's statuses or stages in words ("overdue", "unpaid", "won"), so a refinement of it
 * says what it still holds: "the 3 largest of the 10 overdue invoices".
 */
function statusesSaid(where: readonly Condition[]): string[] {
  const said: string[] = [];
  for (const condition of where) {
    if ((condition.field !== "status" && condition.field !== "stage") || !Array.isArray(condition.value))
      continue;
    const values = condition.value.map(String);
    const unpaid = values.length === 2 && values.includes("open") && values.includes("overdue");
    said.push(unpaid ? "unpaid" : values.join(" or "));
  }
  return said;
}

/** The resource an intents' reply was about, when it left no list (a pipeline, a count). */
export const INTENT_RESOURCE: Readonly<Record<string, ListMemory["resource"]>> = {
  overdue: "invoices",
  due_soon: "invoices",
  outstanding: "invoices",
  invoices: "invoices",
  revenue: "payments",
  payments: "payments",
  pipeline: "deals",
  deals: "deals",
  contacts: "contacts",
  candidates: "candidates",
  skills: "skills",
  skills_verified: "skills",
  products: "products",
  communications: "communications",
};

/** The list an intents' reply stands for, from its slots. */
function listOfSlots(memory: Memory): ListMemory | undefined {
  const resource = INTENT_RESOURCE[memory.intent];
  if (!resource) return undefined;
  const slots = memory.slots;
  const where: Condition[] = [];
  const add = (field: string, values: readonly string[]) =>
    values.length > 0 && where.push({ field, op: "in", value: [...values] });
  if (resource === "invoices") {
    const statuses =
      memory.intent === "overdue"
        ? ["overdue"]
        : memory.intent === "outstanding"
          ? ["open", "overdue"]
          : slots.invoiceStatuses;
    add("status", statuses);
  }
  if (resource === "deals")
    add(
      "stage",
      memory.intent === "pipeline" && slots.dealStages.length === 0
        ? ["lead", "qualified", "proposal"]
        : slots.dealStages,
    );
  if (resource === "candidates") add("status", slots.candidateStatuses);
  if (resource === "contacts") add("lifecycle_stage", slots.lifecycleStages);
  if (resource === "skills")
    add("status", memory.intent === "skills_verified" ? ["verified"] : slots.skillStatuses);
  if (resource === "communications") add("channel", slots.channels);
  if (slots.currency && resource !== "candidates" && resource !== "contacts" && resource !== "skills") {
    where.push({ field: "currency", op: "eq", value: slots.currency });
  }
  if (slots.past || slots.future || slots.subject) return undefined;
  return { resource, filters: {}, where, total: 0, shown: 0, items: [] };
}

const MORE =
  /^(?:and\s+)?(?:show\s+|give\s+|list\s+)?(?:me\s+)?(?:the\s+)?(?:more|next(?:\s+\d+)?(?:\s+ones)?|rest|remaining(?:\s+ones)?|others)(?:\s+(?:ones|please))?\W*$/;

/** "show me more" after a list this layer showed: the next page of the same query. */
async function more(ctx: PlanContext, list: ListMemory): Promise<Answer> {
  const page = await ctx.read<QueryResult>("query_records", {
    resource: list.resource,
    where: list.where ?? [],
    ...(list.sort ? { order_by: list.sort } : {}),
    limit: 10,
    offset: list.shown,
  });
  const records = page.mode === "records" ? page.records : [];
  if (records.length === 0) {
    return {
      reply: `That was all of them: ${list.total} in all.`,
      memory: { ...ctx.memory!, list: { ...list } },
    };
  }
  const from = list.shown + 1;
  const to = list.shown + records.length;
  const lines = records.map((record) => lineFor(list.resource, record, ctx.turn.today));
  return {
    reply: `${from}–${to} of ${list.total}:\n${bullets(lines, lines.length)}`,
    memory: {
      ...ctx.memory!,
      list: { ...list, shown: to, items: [...list.items, ...itemsOf(list.resource, records)].slice(-50) },
    },
  };
}

/**
 * A threshold, a rank or a share in a message whose records this layer could not tell: the intents
 * would answer it without the bound ("which invocies r less than 250" is not every invoice).
 */
const BOUNDED =
  /\b(?:less|more|fewer|greater|bigger|smaller|higher|lower|larger)\s+than\b|\b(?:over|under|above|below|at least|at most|topped|exceed(?:s|ed|ing)?)\s+[$€£]?\d|\b(?:\d{1,2}(?:st|nd|rd|th)|second|third|fourth|fifth)\s+(?:largest|biggest|smallest|highest|lowest|oldest|newest|latest)\b|%|\bpercent/;

function unreadable(): Answer {
  return {
    reply:
      "I couldn't tell which records you mean, so I haven't answered rather than guess. Name them (invoices, payments, deals, contacts, candidates, skills, products or conversations), for example “invoices over 2,500”.",
    understood: false,
  };
}

/** "which are still unpaid", "what have they paid": asked of the list before as a whole. */
const OF_THE_LIST = /^(?:and\s+)?(?:which|what)\s+(?:are|were|is|was|have|has)\b/;

const REFERS = new RegExp(
  `\\b(those|these|them|they|of them|ones|which one|which of|the one|only|just|out of|among)\\b|^any\\b|${OF_THE_LIST.source}|^(?:and\\s+|now\\s+)?(?:split|break|sum|total|group|sort|order|rank|count|add)\\s+(?:that|it|this)\\b`,
);

/** "what are their emails", "their phone numbers" after a list of people. */
const THEIR_DETAILS = /\btheir\s+(e-?mails?|email\s+addresses|phones?|phone\s+numbers?|numbers)\b/;

/** The people of the list before, each with the detail asked for (an email, a phone). */
async function detailsOf(ctx: PlanContext, list: ListMemory, detail: string): Promise<Answer | null> {
  if (list.resource !== "contacts" && list.resource !== "candidates") return null;
  const field = /mail/.test(detail) ? "email" : "phone";
  const byId: Condition = { field: "id", op: "in", value: list.items.map((item) => item.id) };
  const where = conditionsOf(list, ctx.memory) ?? [byId];
  const found = await ctx.read<QueryResult>("query_records", { resource: list.resource, where, limit: 10 });
  if (found.mode !== "records") return null;
  const lines = found.records.map((record) => {
    const value = record[field];
    return `**${String(record.name)}**: ${typeof value === "string" && value ? value : `no ${field} on record`}`;
  });
  const more = found.total > lines.length ? `\n…and ${found.total - lines.length} more` : "";
  return {
    reply: `The ${field === "email" ? "emails" : "phone numbers"} of the ${found.total} ${list.resource} before:\n${bullets(lines, lines.length)}${more}`,
    memory: { ...ctx.memory! },
  };
}

export async function structuredAnswer(ctx: PlanContext): Promise<Answer | null> {
  const list = ctx.memory?.list ?? (ctx.memory ? listOfSlots(ctx.memory) : undefined);
  const their = THEIR_DETAILS.exec(ctx.analysis.norm.lower);
  if (list && their) {
    const details = await detailsOf(ctx, list, their[1]!);
    if (details) return details;
  }
  // A question about clients, not invoices: the ones with nothing paid, or nothing owed, on any invoice.
  const nothing = clientsWithNothingAsked(ctx.analysis.norm.lower);
  if (nothing) return clientsWithNothing(ctx, nothing);
  // "which of them are still in the running" with no list before: there is nothing to narrow.
  if (!list && /\b(?:of|among)\s+(?:them|those|these)\b/.test(ctx.analysis.norm.lower)) return null;
  const plan = parseQuery(ctx.analysis, list?.resource, list ? (conditionsOf(list, ctx.memory) ?? []) : []);
  if (!plan) return BOUNDED.test(ctx.analysis.norm.lower) ? unreadable() : null;
  const lower = ctx.analysis.norm.lower;
  // "and the month before?": the intents ask their last question again over the period before.
  if (/\b(?:week|month|quarter|year)\s+before\b/.test(lower) && ctx.memory && ctx.memory.intent !== "query")
    return null;
  const refines =
    list !== undefined &&
    list.resource === plan.resource &&
    (!plan.named || REFERS.test(lower)) &&
    // "how much is that in total", "add them up": a figure over the list before.
    // After the intents' own list, a plain narrowing ("and in dollars?", "what about last month?") is theirs.
    (ctx.memory?.intent === "query" ||
      plan.structured.some((part) => part !== "window") ||
      (!plan.named && plan.aggregate !== undefined && plan.where.length === 0) ||
      // "only the ones from last month", "which of those are from Acme"; "what about…" asks again instead.
      // "how many of those are qualified" too: a count of the list's own narrowed ("how many of them
      // are in EUR?" is follow-ups.ts' count per currency).
      (REFERS.test(lower) &&
        !/^(?:and\s+)?(?:what|how) about\b/.test(lower) &&
        (!plan.aggregate ||
          (plan.aggregate.fn === "count" &&
            plan.where.some((condition) => condition.field !== "currency"))) &&
        (plan.where.length > 0 || plan.names.length > 0)));
  if (plan.structured.length === 0 && !refines && !plan.doubtful) return null;
  // Read from the list before without refining it, or named by a status alone with only a window: the intents'.
  if (!refines && !plan.named && !plan.doubtful) return null;
  if (!refines && plan.byStatus && plan.structured.every((part) => part === "window")) return null;
  if (refines && ctx.memory?.intent === "query" && MORE.test(lower)) return more(ctx, list);
  // A candidate asked about by name: the intents' profile (status, position, skills) is the answer.
  if (!refines && plan.structured.includes("person") && !plan.structured.includes("named")) {
    const profile = await candidateDetail(ctx);
    if (profile) return profile;
  }
  if (refines) {
    const where = conditionsOf(list, ctx.memory);
    if (where) {
      // "which of them closed this month" after won deals: "closed" is the verb of the window, and a
      // status broader than the list's (won or lost ⊇ won) narrows nothing: the list's stays.
      for (const condition of [...plan.where]) {
        const before = where.find((old) => old.field === condition.field && old.op === "in");
        const wider =
          condition.op === "in" &&
          before &&
          Array.isArray(condition.value) &&
          Array.isArray(before.value) &&
          before.value.every((value) => (condition.value as string[]).includes(value));
        if (wider && (condition.field === "status" || condition.field === "stage")) {
          plan.where.splice(plan.where.indexOf(condition), 1);
          // Its word ("unpaid" for "still owed") goes with it: the list's status is what is said.
          plan.adjectives.splice(0, plan.adjectives.length);
        }
      }
      // A field said again replaces the one before ("what about last month?", "and in dollars?").
      const fields = new Set(plan.where.map((condition) => condition.field));
      const kept = where.filter((condition) => !fields.has(condition.field));
      const dated = plan.where.some((condition) => /_at$|_date$/.test(condition.field));
      const said = (list.said ?? boundsSaid(where)).filter(
        (words) =>
          !(
            dated &&
            /^(issued|created|due|paid|received|expected|closed|hired|rejected|verified|on|in) /.test(words)
          ),
      );
      const adjectives =
        fields.has("status") || fields.has("stage") ? [] : (list.adjectives ?? statusesSaid(kept));
      // "what do our invoices average out to", then "only the paid ones": the same figure, narrowed.
      if (
        list.aggregate &&
        !plan.aggregate &&
        !plan.order &&
        !plan.ratio &&
        !plan.groupBy &&
        !/^(?:and\s+|now\s+)?(?:which|who|show|list|name)\b/.test(lower)
      )
        plan.aggregate = list.aggregate;
      return answerQuery(ctx, plan, { base: { where: kept, said, adjectives } });
    }
    // "which are still unpaid" leans on the list before as a whole: never answered as a new question.
    // "which of them are still in the running" says it is about that list: never answered afresh either.
    if (
      plan.structured.length === 0 &&
      !OF_THE_LIST.test(lower) &&
      !/\b(?:of|among)\s+(?:them|those|these)\b/.test(lower)
    )
      return null;
    // The list before cannot be narrowed in query terms: answering afresh would drop what it was.
    return {
      reply:
        "I can't narrow the last list down that way, so I haven't answered rather than guess. Ask the whole question in one message, for example “inbound emails this month”.",
      understood: false,
    };
  }
  const lookupOnly = plan.structured.every((part) => part === "lookup") && !plan.doubtful;
  return answerQuery(ctx, plan, {
    onlyIfFound: lookupOnly,
    onlyPeople: lookupOnly && plan.resource === "skills",
  });
}
