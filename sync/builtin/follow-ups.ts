import type { CountResult, ListResult, SumResult } from "../tools/records.ts";
import type { Filters, ResourceName } from "../tools/resources.ts";
import { bullets, lineFor, plural, totalsText } from "./answers.ts";
import { slotsOf } from "./analysis.ts";
import { calendar, range } from "./calendar.ts";
import type { PlanContext } from "./context.ts";
import { classify } from "./intents.ts";
import { recordAnswer } from "./handlers/records.ts";
import type { Answer, ListMemory, Memory, Slots } from "./types.ts";

/**
 * Questions that lean on the reply before: "show me more", "the second one", "how much do they
 * add up to?", "how many of them are in EUR?", "what about last month?". What was listed, with
 * which filters, is in the memory that reply left (types.ts); nothing else is assumed.
 */

const MORE =
  /^(?:(?:show|give|list|see|get)\s+)?(?:me\s+)?(?:some\s+)?(?:more|the rest|the others|others|next(?:\s+(?:page|ones?|\d+))?|remaining(?:\s+ones)?|continue|keep going)\b/;
const THEM = /\b(?:they|them|those|these|all of them|these ones|those ones|of which)\b/;
const TOTAL = /\b(?:in total|altogether|all together|combined|the total)\b/;
const AGAIN =
  /^(?:and|but|what about|how about|what if|same|same for|now|then|also|for|in|only|just|ok(?:ay)?|and for|and in|and what about)\b/;

/** Filters a follow-up adds to the list it is about: a currency, a status, a channel. */
function narrowed(list: ListMemory, slots: Slots): Filters {
  const filters: Filters = { ...list.filters };
  if (slots.currency) filters.currency = slots.currency;
  const status: Partial<Record<ResourceName, [string, readonly string[]]>> = {
    invoices: ["status", slots.invoiceStatuses],
    deals: ["stage", slots.dealStages],
    contacts: ["lifecycle_stage", slots.lifecycleStages],
    candidates: ["status", slots.candidateStatuses],
    skills: ["status", slots.skillStatuses],
    communications: ["channel", slots.channels],
  };
  const [field, values] = status[list.resource] ?? ["", []];
  if (field && values.length > 0) filters[field] = [...values];
  if (list.resource === "payments" || list.resource === "skills" || list.resource === "communications") {
    delete filters.currency;
    if (slots.currency && list.resource === "payments") filters.currency = slots.currency;
  }
  return filters;
}

const SUMMABLE: Partial<Record<ResourceName, string>> = {
  invoices: "amount",
  payments: "amount",
  deals: "value",
  products: "price",
};

async function aggregate(ctx: PlanContext, list: ListMemory): Promise<Answer | null> {
  const filters = narrowed(list, slotsOf(ctx.analysis));
  const query = { resource: list.resource, filters, ...(list.q ? { q: list.q } : {}) };
  const noun = list.resource.replace(/s$/, "");
  const memory = { ...ctx.memory!, list: { ...list, filters } };
  if (ctx.analysis.facet === "sum" && SUMMABLE[list.resource]) {
    const field = list.field ?? SUMMABLE[list.resource]!;
    const sums = await ctx.read<SumResult>("sum_amounts", { ...query, field });
    const count = sums.totals.reduce((sum, row) => sum + row.count, 0);
    const what = field === "outstanding" ? "still owed" : field === "paid" ? "paid" : "in all";
    return {
      reply: `They add up to **${totalsText(sums.totals, "nothing")}** ${what} (${plural(count, noun)}).`,
      memory,
    };
  }
  if (ctx.analysis.facet === "count" || ctx.analysis.facet === "sum") {
    const counts = await ctx.read<CountResult>("count_records", query);
    const changed = Object.keys(filters).filter(
      (key) => String(filters[key]) !== String(list.filters[key] ?? ""),
    );
    const which = changed.map((key) =>
      key === "currency" ? `in ${String(filters[key])}` : [filters[key]].flat().join(" or "),
    );
    const verb = counts.total === 1 ? "is" : "are";
    const how = which.length > 0 ? ` ${verb} ${which.join(", ")}` : "";
    return { reply: `**${counts.total}** of them${how} (out of ${plural(list.total, noun)}).`, memory };
  }
  return null;
}

async function more(ctx: PlanContext, list: ListMemory): Promise<Answer> {
  if (ctx.memory?.intent === "search") return moreItems(ctx, list);
  if (list.shown >= list.total) {
    return {
      reply: `That was all of them: ${plural(list.total, list.resource.replace(/s$/, ""))}.`,
      memory: ctx.memory!,
    };
  }
  const page = await ctx.read<ListResult>("list_records", {
    resource: list.resource,
    filters: list.filters,
    ...(list.q ? { q: list.q } : {}),
    ...(list.sort ? { sort: list.sort } : {}),
    limit: 50,
  });
  const next = page.records.slice(list.shown, list.shown + 10);
  const shown = list.shown + next.length;
  const memory: Memory = { ...ctx.memory!, list: { ...list, shown } };
  if (next.length === 0) return { reply: "There are no more to show.", memory };
  const lines = next.map((record) => lineFor(list.resource, record, ctx.turn.today));
  const left = page.total - shown;
  const tail = left > 0 ? `\n\n${left} more after these.` : "";
  return {
    reply: `${list.shown + 1}–${shown} of ${page.total}:\n\n${bullets(lines, next.length)}${tail}`,
    memory,
  };
}

/** A search's matches span resources: the next of those remembered, by label. */
function moreItems(ctx: PlanContext, list: ListMemory): Answer {
  const next = list.items.slice(list.shown, list.shown + 10);
  const shown = list.shown + next.length;
  const memory: Memory = { ...ctx.memory!, list: { ...list, shown } };
  if (next.length === 0) return { reply: "That was all of them.", memory };
  const lines = next.map((item) => `${item.resource.replace(/s$/, "")}: **${item.label}**`);
  return {
    reply: `${list.shown + 1}–${shown} of ${list.items.length}:\n\n${bullets(lines, next.length)}`,
    memory,
  };
}

/** "the second one", "number 3": that record in full. */
async function pick(ctx: PlanContext, list: ListMemory): Promise<Answer | null> {
  const ordinal = ctx.analysis.entities.ordinal!;
  const item = ordinal === -1 ? list.items[list.items.length - 1] : list.items[ordinal - 1];
  if (!item)
    return {
      reply: `The last list had ${plural(list.items.length, "entry", "entries")}; there is no number ${ordinal}.`,
    };
  return recordAnswer(ctx, item);
}

/** Re-asks the last question with what this message changes ("what about last month?"). */
/**
 * "and the month before?": the calendar period before the one the last answer was about (not before
 * today, as "last month" is).
 */
function periodBefore(kept: Slots, lower: string): Slots["past"] {
  const before = /\b(?:the\s+)?(week|month|quarter|year)\s+before\b/.exec(lower);
  if (!before || !kept.past) return undefined;
  const unit = before[1]!;
  const shifted = calendar("last", unit, kept.past.range.from);
  return { range: range(shifted.range.from, shifted.range.to, `the ${unit} before`) };
}

export function mergedSlots(memory: Memory, analysis: PlanContext["analysis"]): Slots {
  const fresh = slotsOf(analysis);
  const kept = memory.slots;
  const earlier = fresh.past ? undefined : periodBefore(kept, analysis.norm.lower);
  if (earlier) fresh.past = earlier;
  const pickList = <T>(now: T[], before: T[]) => (now.length > 0 ? now : before);
  return {
    ...kept,
    ...(fresh.past ? { past: fresh.past, future: fresh.future } : {}),
    ...(fresh.currency ? { currency: fresh.currency } : {}),
    ...(fresh.limit !== undefined ? { limit: fresh.limit } : {}),
    ...(fresh.facet ? { facet: fresh.facet } : {}),
    invoiceStatuses: pickList(fresh.invoiceStatuses, kept.invoiceStatuses),
    dealStages: pickList(fresh.dealStages, kept.dealStages),
    lifecycleStages: pickList(fresh.lifecycleStages, kept.lifecycleStages),
    candidateStatuses: pickList(fresh.candidateStatuses, kept.candidateStatuses),
    skillStatuses: pickList(fresh.skillStatuses, kept.skillStatuses),
    channels: pickList(fresh.channels, kept.channels),
    directions: pickList(fresh.directions, kept.directions),
  };
}

export function asksAgain(ctx: PlanContext): boolean {
  return AGAIN.test(ctx.analysis.norm.lower) && ctx.analysis.norm.tokens.length <= 10;
}

const NOUNS: ReadonlyArray<[ResourceName, readonly string[]]> = [
  ["invoices", ["invoice", "bill"]],
  ["contacts", ["contact", "customer", "lead", "prospect"]],
  ["deals", ["deal", "opportunity"]],
  ["candidates", ["candidate", "applicant"]],
  ["skills", ["skill"]],
  ["products", ["product"]],
  ["payments", ["payment"]],
  ["communications", ["communication", "meeting", "call"]],
];

/** The message names another kind of record than the list's. */
function namesOther(ctx: PlanContext, resource: ResourceName): boolean {
  const stems = ctx.analysis.stems;
  return NOUNS.some(([other, nouns]) => other !== resource && nouns.some((noun) => stems.has(noun)));
}

/** "show me more", "the second one", "how much do they add up to?" with no list before them. */
export function withoutEarlier(ctx: PlanContext): Answer | null {
  const { norm, entities } = ctx.analysis;
  const leans =
    MORE.test(norm.lower) ||
    entities.ordinal !== undefined ||
    THEM.test(norm.lower) ||
    /^(?:it|that)\W*$/.test(norm.lower);
  if (!leans || ctx.memory?.list) return null;
  return {
    reply:
      "I don't have an earlier list in this conversation to refer to. Ask for one first, for example “which invoices are overdue?”, then “the second one” or “how much do they add up to?”.",
    failed: true,
  };
}

/** A follow-up on the list before, answered; null when the message is not one. */
export async function followUp(ctx: PlanContext): Promise<Answer | null> {
  const list = ctx.memory?.list;
  if (!list) return null;
  const { norm, entities } = ctx.analysis;
  const lower = norm.lower;
  if (MORE.test(lower)) return more(ctx, list);
  // A question of its own ("how many invoices in total?" after contacts) is not about the last list.
  const own = (classify(ctx.analysis)[0]?.score ?? 0) >= 4 || namesOther(ctx, list.resource);
  if (
    entities.ordinal !== undefined &&
    entities.invoiceRefs.length === 0 &&
    (!own || norm.tokens.length <= 5)
  ) {
    return pick(ctx, list);
  }
  if (THEM.test(lower) || (TOTAL.test(lower) && !own)) return aggregate(ctx, list);
  return null;
}
