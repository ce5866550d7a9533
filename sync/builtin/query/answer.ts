import { isAppError } from "../../../core/errors.ts";
import type { Condition, QueryArgs, QueryResult, QueryValue } from "../../tools/query.ts";
import { labelOf, money, type ResourceName } from "../../tools/resources.ts";
import { bullets, itemsOf, lineFor, plural, str } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import type { Answer, Memory } from "../types.ts";
import type { QueryPlan } from "./parse.ts";
import { STATUS_TABLES } from "./filters.ts";
import { MONEY_FIELD, RESOURCE_NOUNS } from "./words.ts";

/**
 * A `QueryPlan` run through `query_records` and said back: the reply opens with what was
 * understood ("Open invoices over 2,500.00, largest first: **3**"), so a misreading shows, then
 * the figures exactly as the tool returns them. Names left in the plan are looked up first; a
 * name the data does not have, or a word nothing understood, is said plainly and nothing is
 * answered in its place.
 */

type Rec = Record<string, unknown>;

/** Where a name in a question is looked for, per resource: its own field, or a contact's. */
const NAME_TARGETS: Record<ResourceName, { own?: string[]; contact?: string; candidate?: string }> = {
  invoices: { own: ["client"], contact: "contact_id" },
  deals: { own: ["title"], contact: "contact_id" },
  communications: { own: ["subject"], contact: "contact_id" },
  payments: { own: ["client"] },
  contacts: { own: ["name", "company"] },
  candidates: { own: ["name", "position", "source"] },
  skills: { own: ["name"], candidate: "candidate_id" },
  products: { own: ["name", "sku"] },
};

/**
 * Names a resource's related records carry, counted through one of its fields: a candidate "with
 * TypeScript" has a skill of that name (`skills` counts them, `of` says which).
 */
const RELATED_NAMES: Partial<Record<ResourceName, { field: string; resource: ResourceName; on: string }>> = {
  candidates: { field: "skills", resource: "skills", on: "name" },
};

/** "backend engineers" is found as "backend engineer". */
const singular = (text: string) => text.replace(/(\w{3,}?)(?:ies)\b/g, "$1y").replace(/(\w{3,})s\b/g, "$1");

/** The most contacts or candidates one name in a question may stand for (an `in` condition's limit). */
const MAX_PEOPLE = 20;

interface Resolution {
  conditions: Condition[];
  said: string;
}

/** A name run resolved to conditions: on the resource's own name, or on the contact it belongs to. */
async function resolveName(
  ctx: PlanContext,
  resource: ResourceName,
  name: string,
): Promise<Resolution | "too many" | undefined> {
  const target = NAME_TARGETS[resource];
  const matching = async (on: ResourceName, field: string, wanted: string) =>
    await ctx.read<QueryResult>("query_records", {
      resource: on,
      where: [{ field, op: "contains", value: wanted }],
      limit: MAX_PEOPLE,
    });
  for (const field of target.own ?? []) {
    for (const wanted of [...new Set([name, singular(name)])]) {
      const own = await ctx.read<QueryResult>("query_records", {
        resource,
        where: [{ field, op: "contains", value: wanted }],
        limit: MAX_PEOPLE,
      });
      // A name starts a word of what it names: "board" is not the deal "Onboarding workshop".
      if (own.total > 0 && startsWords(own, field, wanted))
        return {
          conditions: [{ field, op: "contains", value: wanted }],
          said:
            field === "name" || field === "title" || field === "client"
              ? `“${wanted}”`
              : `${field} “${wanted}”`,
        };
    }
  }
  const related = RELATED_NAMES[resource];
  if (related) {
    // "candidates who know typescript": a name their related records have (a skill's name).
    for (const wanted of [...new Set([name, singular(name)])]) {
      const found = await matching(related.resource, related.on, wanted);
      if (found.mode !== "records" || found.total === 0) continue;
      // The name itself ("sql", not "PostgreSQL"), or the one name every record found starts with.
      const values = [...new Set(found.records.map((record) => str(record[related.on])))];
      const exact = values.find((one) => one.toLowerCase() === wanted.toLowerCase());
      if (exact || (values.length === 1 && startsWords(found, related.on, wanted))) {
        const value = exact ?? values[0]!;
        return {
          conditions: [
            { field: related.field, op: "gt", value: 0, of: [{ field: related.on, op: "eq", value }] },
          ],
          said: `with ${value}`,
        };
      }
    }
  }
  const via = target.contact ? "contacts" : target.candidate ? "candidates" : undefined;
  const link = target.contact ?? target.candidate;
  if (via && link) {
    // "Liam Haddads deal": a possessive written without its apostrophe is the name.
    const bare = name.replace(/(\w{3,})s$/, "$1");
    for (const [field, wanted] of (via === "contacts" ? ["name", "company"] : ["name"]).flatMap((field) =>
      [...new Set([name, bare])].map((one) => [field, one] as const),
    )) {
      const people = await matching(via, field, wanted);
      // More people of that name than a question can list: which one is meant is asked, not guessed.
      if (people.total > MAX_PEOPLE) return "too many";
      // A name starts a word of theirs: "end" is not Riverbend Coffee.
      if (people.mode === "records" && people.total > 0 && startsWords(people, field, wanted)) {
        const ids = people.records.map((record) => String(record.id));
        const labels = [...new Set(people.records.map((record) => str(record[field])))];
        return {
          conditions: [{ field: link, op: "in", value: ids }],
          said: `of ${labels.slice(0, 3).join(", ")}`,
        };
      }
    }
    // A typo: the nearest contact's or candidate's name.
    try {
      const found = await ctx.read<{ record: Rec }>("get_record", { resource: via, name });
      return {
        conditions: [{ field: link, op: "eq", value: String(found.record.id) }],
        said: `of ${labelOf(via, found.record)}`,
      };
    } catch (error) {
      if (!isAppError(error) || error.code !== "not_found") throw error;
    }
  }
  const main = target.own?.[0];
  if (main) {
    try {
      const found = await ctx.read<{ record: Rec }>("get_record", { resource, name });
      return {
        conditions: [{ field: main, op: "eq", value: str(found.record[main]) }],
        said: `“${str(found.record[main])}”`,
      };
    } catch (error) {
      if (!isAppError(error) || error.code !== "not_found") throw error;
    }
  }
  return undefined;
}

/** Whether `wanted` starts a word of `field` in every record found (a page of them). */
function startsWords(found: QueryResult, field: string, wanted: string): boolean {
  if (found.mode !== "records") return true;
  const escaped = wanted.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const start = new RegExp(`(?:^|[^\\p{L}\\p{N}])${escaped}`, "u");
  // A field the records do not carry (a payment's client is its invoice's) cannot be checked here.
  return found.records.every(
    (record) => record[field] === undefined || start.test(str(record[field]).toLowerCase()),
  );
}

/**
 * What a record's line names of another resource, looked up in one query for the page: a skill's
 * candidate ("who has it verified"), a payment's invoice and client ("who from").
 */
async function withRelated(ctx: PlanContext, resource: ResourceName, records: Rec[]): Promise<void> {
  const link =
    resource === "skills"
      ? { key: "candidate_id", of: "candidates" as const, set: "candidate", label: (r: Rec) => str(r.name) }
      : resource === "payments"
        ? {
            key: "invoice_id",
            of: "invoices" as const,
            set: "invoice",
            label: (r: Rec) => `${str(r.number)} (${str(r.client)})`,
          }
        : undefined;
  if (!link || records.length === 0) return;
  const ids = [...new Set(records.map((record) => String(record[link.key])))];
  const found = await ctx.read<QueryResult>("query_records", {
    resource: link.of,
    where: [{ field: "id", op: "in", value: ids }],
    limit: ids.length,
  });
  if (found.mode !== "records") return;
  const labels = new Map(found.records.map((record) => [String(record.id), link.label(record)]));
  for (const record of records) {
    const label = labels.get(String(record[link.key]));
    if (label) record[link.set] = label;
  }
}

/** A record's line as the lists show it, with a candidate's dates (applied, hired, rejected). */
function lineOf(resource: ResourceName, record: Rec, today: string): string {
  const line = lineFor(resource, record, today);
  if (resource !== "candidates") return line;
  const dates = [
    `applied ${str(record.created_at).slice(0, 10)}`,
    record.hired_at ? `hired ${str(record.hired_at).slice(0, 10)}` : "",
    record.rejected_at ? `rejected ${str(record.rejected_at).slice(0, 10)}` : "",
  ].filter(Boolean);
  return `${line} (${dates.join(", ")})`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "open invoices over 2,500.00, issued last month". */
export function describe(plan: QueryPlan, names: readonly string[] = []): string {
  const noun = RESOURCE_NOUNS[plan.resource][1];
  const adjectives = [...new Set(plan.adjectives)].join(" and ");
  const head = `${adjectives ? `${adjectives} ` : ""}${noun}`;
  const parts = [...names, ...plan.said].filter(Boolean);
  return parts.length ? `${head} ${parts.join(", ")}` : head;
}

function valueText(result: QueryResult & { mode: "aggregate" | "ratio" }, value: QueryValue): string {
  if (result.mode === "ratio") {
    const percent = value.count === 0 ? "—" : `${((100 * (value.matched ?? 0)) / value.count).toFixed(1)}%`;
    return `**${percent}** (${value.matched ?? 0} of ${value.count})`;
  }
  if (result.fn === "count") return `**${value.count}**`;
  if (value.value === null) return "**none**";
  const shown = value.currency ? money(value.value, value.currency) : value.value;
  const of =
    result.fn === "sum" || result.fn === "avg" || result.fn === "median"
      ? ` (${plural(value.count, RESOURCE_NOUNS[result.resource][0], RESOURCE_NOUNS[result.resource][1])})`
      : "";
  return `**${shown}**${of}`;
}

const FN_WORDS: Record<string, string> = {
  count: "Number of",
  sum: "Total",
  avg: "Average",
  median: "Median",
  min: "Smallest",
  max: "Largest",
};

const FIELD_WORDS: Record<string, string> = {
  amount: "amount",
  outstanding: "amount owed",
  paid: "amount paid",
  value: "value",
  price: "price",
  days_overdue: "days overdue",
};

function aggregateReply(
  plan: QueryPlan,
  result: QueryResult & { mode: "aggregate" | "ratio" },
  what: string,
): string {
  const header =
    result.mode === "ratio"
      ? `${capitalized(plan.ratio!.of || plan.ratio!.said)} — ${plan.ratio!.said} among ${what}`
      : result.fn === "count"
        ? `Number of ${what}`
        : `${FN_WORDS[result.fn!]} ${FIELD_WORDS[result.field ?? ""] ?? result.field} of ${what}`;
  if (plan.rank) {
    const sign = plan.rank.descending ? -1 : 1;
    const amount = (value: QueryValue) => Number(result.fn === "count" ? value.count : (value.value ?? 0));
    const ranked = [...result.values]
      .sort((a, b) => sign * (amount(a) - amount(b)))
      .slice(0, plan.rank.limit);
    if (ranked.length === 0) return `${header}: there are none.`;
    const lines = ranked.map(
      (value, index) => `${index + 1}. **${value.key ?? "(none)"}**: ${valueText(result, value)}`,
    );
    const first = `${header}, ${plan.groupSaid}, ${plan.rank.said} first`;
    return `${first}:\n${lines.join("\n")}`;
  }
  if (plan.groupBy) {
    if (result.values.length === 0) return `${header}, ${plan.groupSaid}: there are none.`;
    const lines = result.values.map((value) => `${value.key ?? "(none)"}: ${valueText(result, value)}`);
    // How many groups: "from who?" asks how many people as much as which.
    const groups = new Set(result.values.map((value) => value.key)).size;
    const word = plan.groupSaid!.replace(/^per /, "");
    return `${header}, ${plan.groupSaid} (**${groups}** ${groups === 1 ? word : pluralOf(word)}):\n${bullets(lines, lines.length, 24)}`;
  }
  if (result.values.length === 0) {
    return result.fn === "count" || result.mode === "ratio"
      ? `${header}: **0**.`
      : `${header}: there are none.`;
  }
  if (result.mode === "aggregate" && result.fn === "count") return `${header}: **${result.total}**.`;
  return `${header}: ${result.values.map((value) => valueText(result, value)).join(" and ")}.`;
}

/** "contact" → "contacts", "status" → "statuses", "currency" → "currencies". */
function pluralOf(word: string): string {
  if (/(s|x|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

function listReply(
  plan: QueryPlan,
  result: QueryResult & { mode: "records" },
  what: string,
  today: string,
): string {
  const lines = result.records.map((record) => lineOf(plan.resource, record, today));
  if (plan.order && plan.limit !== undefined && plan.limit <= 10) {
    const orderWords = plan.order.said;
    if (result.records.length === 0) return `There are no ${what}, so none is the ${orderWords}.`;
    if (plan.limit === 1) return `The ${orderWords} of the ${result.total} ${what}:\n${bullets(lines)}`;
    return `The ${Math.min(plan.limit, result.records.length)} ${orderWords} of the ${result.total} ${what}:\n${bullets(lines)}`;
  }
  if (result.total === 0) return `${capitalized(what)}: **0** — there are none.`;
  const order = plan.order ? `, ${plan.order.said} first` : "";
  return `${capitalized(what)}${order}: **${result.total}**\n${bullets(lines, result.total)}`;
}

/** A name's condition turned around: not containing it, not one of its records. */
function negated(condition: Condition): Condition {
  // "without TypeScript": none of the related records counted.
  if (condition.of) return { ...condition, op: "eq", value: 0 };
  const op = { contains: "not_contains", in: "not_in", eq: "ne" }[condition.op as "contains" | "in" | "eq"];
  if (!op) throw new Error(`a name's condition is contains, in or eq, not ${condition.op}`);
  return { ...condition, op: op as Condition["op"] };
}

export interface QueryAnswerOptions {
  /** Conditions and words kept from the list before, for a follow-up that refines it. */
  base?: { where: Condition[]; said: string[]; adjectives: string[] };
  /** Answer only when every name is found; otherwise null (the intents read the words). */
  onlyIfFound?: boolean;
  /** With onlyIfFound: only when each name is a person's (a candidate's skills), not the records' own. */
  onlyPeople?: boolean;
}

export async function answerQuery(
  ctx: PlanContext,
  plan: QueryPlan,
  options: QueryAnswerOptions = {},
): Promise<Answer | null> {
  const where = [...(options.base?.where ?? []), ...plan.where];
  const merged: QueryPlan = {
    ...plan,
    where,
    said: [...(options.base?.said ?? []), ...plan.said],
    adjectives: [...(options.base?.adjectives ?? []), ...plan.adjectives],
  };
  const named: string[] = [];
  const unknown: string[] = [];
  const broad: string[] = [];
  // "biggest deal we lost? still stings", "… under 1k - might write off": after the question mark or a
  // dash, words that name nothing are a remark.
  const asked = Math.max(-1, ...[...ctx.analysis.norm.text.matchAll(/\?|\s-(?=[\s,])/g)].map((m) => m.index));
  for (const run of plan.names) {
    const resolved = await resolveName(ctx, plan.resource, run.text);
    if (!resolved && asked >= 0 && run.start > asked && !run.negated) continue;
    if (resolved === "too many") broad.push(run.text);
    else if (resolved && run.negated) {
      // "excluding Kestrel": none of the records the name stands for.
      where.push(...resolved.conditions.map(negated));
      named.push(
        resolved.said.startsWith("with ") ? `without ${resolved.said.slice(5)}` : `not ${resolved.said}`,
      );
    } else if (resolved) {
      if (options.onlyPeople && resolved.conditions.some((c) => !/^(candidate|contact)_id$/.test(c.field)))
        return null;
      where.push(...resolved.conditions);
      named.push(resolved.said);
    } else unknown.push(run.text);
  }
  if (options.onlyIfFound && (unknown.length > 0 || broad.length > 0)) return null;
  if (plan.leftover.length > 0 || unknown.length > 0 || broad.length > 0) {
    return notUnderstood(merged, plan.leftover, unknown, broad);
  }
  const args: QueryArgs = { resource: plan.resource, where };
  if (plan.ratio) {
    const ratio = ratioOf(merged, ctx.analysis.norm.lower);
    if (!ratio) return notUnderstood(merged, [plan.ratio.said], []);
    args.where = [...where, ...ratio.base];
    args.ratio = ratio.matched;
    merged.ratio = { ...plan.ratio, said: ratio.said, of: ratio.of };
  } else if (plan.aggregate) {
    args.aggregate = plan.aggregate;
  } else {
    if (plan.order) args.order_by = `${plan.order.descending ? "-" : ""}${plan.order.field}`;
    args.limit = plan.limit ?? 10;
    if (plan.offset) args.offset = plan.offset;
  }
  // Said after a ratio took its share out of the conditions: "among invoices", not "among invoices in USD".
  let what = describe(merged, named);
  if (plan.groupBy && (args.aggregate || args.ratio)) args.group_by = plan.groupBy;
  if (plan.groupBy && !args.aggregate && !args.ratio) {
    // "revenue per month", "won deal value by month": money is added up; anything else is counted.
    const field = MONEY_FIELD[plan.resource];
    const sums =
      plan.resource === "payments" ||
      /\b(value|worth|revenue|amount|how much|total|money)\b/.test(ctx.analysis.norm.lower);
    args.aggregate = field && sums ? { fn: "sum", field } : { fn: "count" };
    merged.aggregate = args.aggregate;
    args.group_by = plan.groupBy;
    delete args.limit;
    delete args.order_by;
  }
  // A figure about invoices is about real ones: drafts were never sent and voids were cancelled.
  if (
    plan.resource === "invoices" &&
    ((args.aggregate && args.aggregate.fn !== "count") || args.ratio) &&
    !where.some((c) => c.field === "status") &&
    // "out of all our invoices": every one of them.
    !/\ball (?:of )?(?:our |the |my )?(?:invoices|bills)\b/.test(ctx.analysis.norm.lower)
  ) {
    args.where = [...(args.where ?? []), { field: "status", op: "in", value: ["open", "overdue", "paid"] }];
    // Said, so that a total or a share over every invoice is not taken for one.
    what = `${what} (drafts and voids left out)`;
  }
  const result = await ctx.read<QueryResult>("query_records", args);
  if (result.mode === "records") await withRelated(ctx, plan.resource, result.records);
  let reply =
    result.mode === "records"
      ? listReply(merged, result, what, ctx.turn.today)
      : aggregateReply(merged, result, what);
  // A list of unpaid invoices says what they still owe, per currency ("just Kestrel" after "who owes us").
  const unpaid = where.find((c) => c.field === "status" && Array.isArray(c.value));
  if (
    result.mode === "records" &&
    result.total > 0 &&
    plan.resource === "invoices" &&
    // The top N of them are not all of them: their total would read as the N's.
    !(plan.order && plan.limit !== undefined) &&
    unpaid &&
    (unpaid.value as string[]).every((status) => status === "open" || status === "overdue")
  ) {
    const owed = await ctx.read<QueryResult>("query_records", {
      resource: "invoices",
      where,
      aggregate: { fn: "sum", field: "outstanding" },
    });
    if (owed.mode === "aggregate" && owed.values.length > 0) {
      const amounts = owed.values.map((value) => `**${money(value.value ?? "0", value.currency ?? "")}**`);
      const [first, ...rest] = reply.split("\n");
      reply = [`${first} — ${amounts.join(" and ")} still owed`, ...rest].join("\n");
    }
  }
  // "who did we send the last email to", "who's our contact on the pilot": the people, by name.
  if (
    (plan.resource === "communications" || plan.resource === "deals") &&
    result.mode === "records" &&
    result.records.length > 0 &&
    result.records.length <= 3 &&
    /\b(who|whom|contact person|point of contact)\b/.test(ctx.analysis.norm.lower)
  ) {
    const people = await ctx.read<QueryResult>("query_records", {
      resource: plan.resource,
      where: [{ field: "id", op: "in", value: result.records.map((record) => String(record.id)) }],
      aggregate: { fn: "count" },
      group_by: "contact",
    });
    if (people.mode !== "records") {
      const names = people.values.map((value) => value.key ?? "no contact on record");
      reply += `\nWith: ${names.map((name) => `**${name}**`).join(", ")}`;
    }
  }
  // A figure about a named record ("how much did the Meridian deal close for") shows the record too;
  // a count of ten or fewer shows which they are ("how many invoices got paid off this month").
  const shows =
    result.mode === "aggregate" &&
    !plan.groupBy &&
    result.total > 0 &&
    ((named.length > 0 && result.total <= 5) || (result.fn === "count" && result.total <= 10));
  if (shows) {
    const records = await ctx.read<QueryResult>("query_records", {
      resource: plan.resource,
      where: args.where ?? where,
      limit: 10,
    });
    if (records.mode === "records") {
      await withRelated(ctx, plan.resource, records.records);
      reply += `\n${bullets(records.records.map((record) => lineOf(plan.resource, record, ctx.turn.today)))}`;
    }
  }
  return { reply, memory: memoryOf(ctx, merged, result) };
}

/** The list a reply leaves for "which one is the biggest" or "only the ones from last month". */
function memoryOf(ctx: PlanContext, plan: QueryPlan, result: QueryResult): Memory {
  const records = result.mode === "records" ? result.records : [];
  // "the top 5 deals" then "which of those did we win": those five, not every deal.
  const ranked =
    plan.order && plan.limit !== undefined && records.length > 0 && records.length < result.total;
  const where: Condition[] = ranked
    ? [{ field: "id", op: "in", value: records.map((record) => String(record.id)) }]
    : plan.where;
  return {
    planner: "builtin",
    intent: "query",
    slots: ctx.slots,
    list: {
      resource: plan.resource,
      filters: {},
      where,
      said: ranked ? [`(the ${records.length} ${plan.order!.said})`] : plan.said,
      adjectives: plan.adjectives,
      ...(plan.aggregate && !plan.groupBy ? { aggregate: plan.aggregate } : {}),
      ...(plan.order ? { sort: `${plan.order.descending ? "-" : ""}${plan.order.field}` } : {}),
      total: result.total,
      shown: records.length,
      items: itemsOf(plan.resource, records),
    },
    ...(records.length === 1 ? { focus: itemsOf(plan.resource, records)[0]! } : {}),
  };
}

/**
 * The ratios an owner asks for, each with what it divides: a win rate is won among closed deals,
 * "paid late" is paid after the due date among paid invoices, a conversion from one candidate
 * status to the next is those who reached the later among those who reached the earlier.
 */
function ratioOf(
  plan: QueryPlan,
  message: string,
): { base: Condition[]; matched: Condition[]; said: string; of: string } | undefined {
  const said = plan.ratio!.said;
  if (plan.ratio!.where.length > 0) {
    return { base: [], matched: plan.ratio!.where, said, of: `share ${said}` };
  }
  const lower = `${said} ${plan.said.join(" ")} ${plan.adjectives.join(" ")} ${message}`;
  const stages = plan.where.filter((condition) => condition.field === "stage");
  const named = stages.flatMap((condition) =>
    Array.isArray(condition.value) ? condition.value : [String(condition.value)],
  );
  // A win or loss rate is among closed deals; "what % of deals are still open" is a share of them all (below).
  // "what % of our wins were with Helios": a share among the won deals, not a win rate; which is the
  // part and which the whole is not told by these rules, so it is not answered.
  if (plan.resource === "deals" && named.length > 0 && plan.names.length > 0) return undefined;
  // With no stage said, only words of winning and losing make it one: "what % of our deals are priced in
  // euros" is a share of the deals in euros (below), not a win rate among them.
  const rateWords =
    /\b(win|wins|won|winning|lose|lost|loss|losses|losing|close rate|closing rate|success|hit rate|conversion|convert|converted)\b/;
  if (
    plan.resource === "deals" &&
    named.every((stage) => stage === "won" || stage === "lost") &&
    (named.length > 0 || rateWords.test(`${said} ${message}`))
  ) {
    const wanted =
      /\b(lose|lost|loss|losses)\b/.test(lower) ||
      (named.length > 0 && named.every((stage) => stage === "lost"))
        ? "lost"
        : "won";
    const withoutStage = plan.where.filter((condition) => !stages.includes(condition));
    plan.where.splice(0, plan.where.length, ...withoutStage);
    return {
      base: [{ field: "stage", op: "in", value: ["won", "lost"] }],
      matched: [{ field: "stage", op: "eq", value: wanted }],
      said: `${wanted}`,
      of: wanted === "won" ? "win rate" : "loss rate",
    };
  }
  // "share paid late", "how often do clients pay late"; "what % are overdue" is a share of statuses (below).
  if (
    plan.resource === "invoices" &&
    /\b(paid|pay|pays|paying|payment)\b[^.?!]*\b(late|overdue|after the due|past due)\b|\bpaid late\b/.test(
      `${said} ${message}`,
    )
  ) {
    plan.where.splice(
      0,
      plan.where.length,
      ...plan.where.filter((condition) => condition.field !== "status"),
    );
    return {
      base: [{ field: "status", op: "eq", value: "paid" }],
      matched: [{ field: "paid_late", op: "eq", value: true }],
      said: "paid after the due date",
      of: "share paid late",
    };
  }
  if (plan.resource === "candidates") {
    // From one status to a later one: those who reached the later among those who reached the earlier.
    const order = ["applied", "screening", "interview", "offer", "hired"];
    const named = order.filter((status) =>
      new RegExp(`\\b${status === "interview" ? "interview" : status}`).test(lower),
    );
    if (named.length === 2) {
      const [from, to] = named as [string, string];
      plan.where.splice(
        0,
        plan.where.length,
        ...plan.where.filter((condition) => condition.field !== "status"),
      );
      return {
        base: [{ field: "status", op: "in", value: order.slice(order.indexOf(from)) }],
        matched: [{ field: "status", op: "in", value: order.slice(order.indexOf(to)) }],
        said: `reached ${to}`,
        of: `conversion from ${from} to ${to}`,
      };
    }
    if (named.length > 2) return undefined;
    // "hire rate": the hired among all candidates.
    if (
      /\bhir(?:e|ing) rate\b/.test(lower) &&
      !plan.where.some((condition) => condition.field === "status")
    ) {
      plan.where.push({ field: "status", op: "in", value: ["hired"] });
      plan.adjectives.push("hired");
    }
  }
  // "what % of candidates got hired", "share of verified skills", "% of payments made by card":
  // the one condition said (a status, a method, a source) among all the records (in the window).
  const field = STATUS_TABLES[plan.resource]?.field;
  const status = plan.where.filter((condition) => condition.field === field);
  // "of the verified skills, how many % are expert", "what % of overdue invoices are partly paid":
  // the statuses are the whole, the one other condition the share.
  const others = plan.where.filter(
    (condition) =>
      condition.field !== field && !/_at$|_date$/.test(condition.field) && condition.field !== "currency",
  );
  const sharedSaid = plan.said.filter(
    (words) =>
      !/^(issued|created|due|paid|received|expected|closed|hired|rejected|verified|from|who applied|on|in|after|before) /.test(
        words,
      ),
  );
  if (status.length > 0 && others.length === 1 && sharedSaid.length === 1) {
    plan.where.splice(plan.where.indexOf(others[0]!), 1);
    plan.said.splice(plan.said.indexOf(sharedSaid[0]!), 1);
    return { base: [], matched: others, said: sharedSaid[0]!, of: `share ${sharedSaid[0]!}` };
  }
  // "of the overdue bills, what % are usd": a status and a currency; the rules below would divide
  // by the currency, so which one is the whole is not told.
  if (status.length > 0 && plan.where.some((condition) => condition.field === "currency")) return undefined;
  if (field && status.length === 1 && status[0]!.op === "in" && plan.adjectives.length > 0) {
    plan.where.splice(0, plan.where.length, ...plan.where.filter((condition) => condition !== status[0]));
    const share = plan.adjectives.join(" or ");
    plan.adjectives.splice(0, plan.adjectives.length);
    return { base: [], matched: status, said: share, of: `share ${share}` };
  }
  const filters = plan.where.filter((condition) => !/_at$|_date$/.test(condition.field));
  if (status.length === 0 && filters.length === 1 && plan.said.length > 0) {
    const index = plan.where.indexOf(filters[0]!);
    plan.where.splice(index, 1);
    const share =
      plan.said.find(
        (words) =>
          !/^(issued|created|due|paid|received|expected|closed|hired|rejected|verified|from|who applied|on|in|after|before) /.test(
            words,
          ),
      ) ?? plan.said[0]!;
    plan.said.splice(plan.said.indexOf(share), 1);
    return { base: [], matched: filters, said: share, of: `share ${share}` };
  }
  return undefined;
}

function notUnderstood(
  plan: QueryPlan,
  leftover: readonly string[],
  unknown: readonly string[],
  broad: readonly string[] = [],
): Answer {
  const parts: string[] = [];
  if (broad.length > 0) {
    parts.push(
      `${broad.map((name) => `“${name}”`).join(" and ")} matches more than ${MAX_PEOPLE} contacts or candidates`,
    );
  }
  if (unknown.length > 0) {
    parts.push(
      `I couldn't find ${unknown.map((name) => `“${name}”`).join(" or ")} among the ${RESOURCE_NOUNS[plan.resource][1]} or their contacts`,
    );
  }
  if (leftover.length > 0)
    parts.push(`I'm not sure what ${leftover.map((word) => `“${word}”`).join(" and ")} means here`);
  const understood = describe(plan);
  return {
    reply: `${parts.join(", and ")}, so I haven't answered rather than guess. I understood: ${understood}. Could you say it another way, or name the record exactly?`,
    understood: false,
  };
}
