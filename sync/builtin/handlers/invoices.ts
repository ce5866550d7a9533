import { addDecimals, compareDecimals, isAppError } from "../../../core/index.ts";
import type { TopClientsResult } from "../../tools/insights.ts";
import type { GetResult } from "../../tools/lookup.ts";
import type { Condition, QueryArgs, QueryResult } from "../../tools/query.ts";
import type { CountResult, ListResult, SumResult } from "../../tools/records.ts";
import { money, type Filters } from "../../tools/resources.ts";
import {
  bullets,
  countOf,
  day,
  invoiceLine,
  itemsOf,
  plural,
  scopeWords,
  str,
  totalsText,
} from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { addDays } from "../dates.ts";
import { clientQuery, remember } from "../subjects.ts";
import type { Answer } from "../types.ts";
import { asksForOneClient, invoiceClient } from "./invoices-due.ts";

/**
 * Invoices by status, currency and client (list, count or total); one invoice by its number;
 * the clients ranked by what they paid.
 */

type Rec = Record<string, unknown>;

function statusWords(statuses: readonly string[]): string {
  if (statuses.length === 0) return "";
  const sorted = [...statuses].sort().join(",");
  if (sorted === "open,overdue") return "unpaid ";
  return `${statuses.join(" or ")} `;
}

export async function invoices(ctx: PlanContext): Promise<Answer> {
  const client = await invoiceClient(ctx);
  if ("reply" in client) return client.reply;
  const { subject } = client;
  const { currency, invoiceStatuses, facet } = ctx.slots;
  const who = clientQuery(subject);
  const filters: Filters = {
    ...(invoiceStatuses.length > 0 ? { status: [...invoiceStatuses] } : {}),
    ...(currency ? { currency } : {}),
    ...who.filters,
  };
  const period = ctx.slots.past ?? ctx.slots.future;
  if (period) {
    filters.due_after = addDays(period.range.from, -1);
    filters.due_before = addDays(period.range.to, 1);
  }
  const query = { resource: "invoices", filters, ...(who.q ? { q: who.q } : {}) };
  const kind = `${statusWords(invoiceStatuses)}invoice`;
  const scope = scopeWords({
    client: subject?.label,
    currency,
    period: period ? `due ${period.range.label}` : "",
  });
  if (facet === "count" && invoiceStatuses.length === 0) {
    const counts = await ctx.read<CountResult>("count_records", { ...query, group_by: "status" });
    const lines = (counts.groups ?? []).map((group) => `${String(group.key)}: **${group.count}**`);
    const memory = remember(ctx, "invoices", subject ? { subject } : {});
    let reply = `You have **${plural(counts.total, kind)}**${scope}.\n\n${bullets(lines)}`;
    // Ten or fewer: which they are, as every count of a few shows them.
    if (counts.total > 0 && counts.total <= 10) {
      const few = await ctx.read<ListResult>("list_records", { ...query, sort: "due_date", limit: 10 });
      reply += `\n\n${bullets(few.records.map((invoice) => invoiceLine(invoice, ctx.turn.today)))}`;
    }
    return { reply, memory };
  }
  const list = await ctx.read<ListResult>("list_records", { ...query, sort: "due_date", limit: 50 });
  const sums = await ctx.read<SumResult>("sum_amounts", { ...query, field: "amount" });
  const memory = remember(ctx, "invoices", {
    list: {
      resource: "invoices",
      filters,
      ...(who.q ? { q: who.q } : {}),
      sort: "due_date",
      total: list.total,
      shown: Math.min(10, list.total),
      items: itemsOf("invoices", list.records),
      field: "amount",
    },
    ...(subject ? { subject } : {}),
  });
  if (list.total === 0) return { reply: `There are no ${kind}s${scope}.`, memory };
  const amount = totalsText(sums.totals);
  const headline =
    facet === "sum"
      ? `${plural(list.total, kind)}${scope} add up to **${amount}**:`
      : `**${plural(list.total, kind)}**${scope}, **${amount}** in all:`;
  const lines = list.records.map((invoice) => invoiceLine(invoice, ctx.turn.today));
  return { reply: `${headline}\n\n${bullets(lines, list.total)}`, memory };
}

export function invoiceDetailText(invoice: Rec): string {
  const currency = String(invoice.currency);
  const lines = [
    `Status: **${String(invoice.status)}**${Number(invoice.days_overdue) > 0 ? ` (${plural(Number(invoice.days_overdue), "day")} overdue)` : ""}`,
    `Amount: **${money(invoice.amount as number, currency)}**; paid ${money(invoice.amount_paid as number, currency)}, remaining **${money(invoice.amount_remaining as number, currency)}**`,
    `Due: ${String(invoice.due_date)}`,
  ];
  if (invoice.issued_at) lines.push(`Issued: ${day(invoice.issued_at)}`);
  if (invoice.paid_at) lines.push(`Paid: ${day(invoice.paid_at)}`);
  if (invoice.voided_at) lines.push(`Voided: ${day(invoice.voided_at)}`);
  for (const item of (invoice.line_items as Rec[] | undefined) ?? []) {
    const price = money(item.unit_price as number, currency);
    lines.push(`Line: ${String(item.quantity)} × ${str(item.description) || "item"} at ${price}`);
  }
  return `**${String(invoice.number)}** — ${String(invoice.client)}\n\n${bullets(lines, lines.length, 20)}`;
}

export async function invoiceDetail(ctx: PlanContext): Promise<Answer> {
  const parts: string[] = [];
  const found: Rec[] = [];
  for (const number of ctx.analysis.entities.invoiceRefs.slice(0, 5)) {
    try {
      const result = await ctx.read<GetResult>("get_record", { resource: "invoices", number });
      found.push(result.record);
      parts.push(invoiceDetailText(result.record));
    } catch (error) {
      if (!isAppError(error) || error.code !== "not_found") throw error;
      parts.push(`I couldn't find an invoice numbered **${number}**.`);
    }
  }
  const focus = found.length === 1 ? itemsOf("invoices", found)[0] : undefined;
  const memory = remember(ctx, "invoice_detail", {
    ...(focus ? { focus } : {}),
    ...(found.length > 1
      ? {
          list: {
            resource: "invoices",
            filters: {},
            total: found.length,
            shown: found.length,
            items: itemsOf("invoices", found),
          },
        }
      : {}),
  });
  return { reply: parts.join("\n\n"), memory, ...(found.length === 0 ? { failed: true } : {}) };
}

export async function topClients(ctx: PlanContext): Promise<Answer> {
  // "which client paid us the most": one; "top clients", "which clients": five unless a number is said.
  const lower = ctx.analysis.norm.lower;
  const limit = Math.min(25, ctx.slots.limit ?? (asksForOneClient(lower) ? 1 : 5));
  const period = ctx.slots.past;
  // "which client have we billed the most": what we invoiced them, not what they paid.
  if (/\b(?:billed|invoiced|bill|invoice|billing|invoicing)\b/.test(lower) && !/\b(?:paid|pay)\b/.test(lower))
    return billedByClient(ctx, period, limit);
  if (period) return paidInPeriod(ctx, period, limit);
  const result = await ctx.read<TopClientsResult>("top_clients", { limit });
  const memory = remember(ctx, "top_clients");
  if (result.clients.length === 0) return { reply: "No client has paid anything yet.", memory };
  const lines = result.clients.map(
    (client, index) =>
      `${index + 1}. **${client.client}**: ${money(client.revenue, client.currency)} paid (${plural(client.invoices, "invoice")})`,
  );
  const head =
    limit === 1
      ? "The client who paid the most (on all their invoices):"
      : `Top ${plural(result.clients.length, "client")} by revenue (what they paid):`;
  return { reply: `${head}\n\n${lines.join("\n")}`, memory };
}

const CLIENTS = String.raw`^(?:(?:any|which|what|show(?: me)?|list|are there(?: any)?)\s+)?(?:clients?|customers?|companies)\s+(?:that|who|which)?\s*(?:we(?:\s+have)?\s+(?:invoiced|billed)\s+(?:that|who|which)?\s*)?`;

/**
 * The clients with issued invoices (open, overdue or paid; drafts and voids were never owed) and nothing
 * in one of their figures, in any currency: "any client that's never paid us anything" (nothing paid on
 * any invoice), "which clients don't owe us anything" (nothing outstanding).
 */
const NOTHING: ReadonlyArray<{
  pattern: RegExp;
  field: "paid" | "outstanding";
  /** Said of one client, of several. */
  said: [string, string];
  every: string;
}> = [
  {
    pattern: new RegExp(
      String.raw`${CLIENTS}(?:has|have|is|are)?\s*(?:never|not|not yet|not ever)\s+(?:yet\s+|ever\s+|once\s+)?(?:paid|pay)(?:\s+us)?(?:\s+(?:anything|a\s+(?:single\s+)?(?:cent|penny|dime|thing)|one\s+cent))?(?:\s+at\s+all)?(?:\s+yet)?\s*[?.!]*$`,
    ),
    field: "paid",
    said: ["has never paid anything", "have never paid anything"],
    every: "has paid something",
  },
  {
    pattern: new RegExp(
      String.raw`${CLIENTS}(?:(?:do|does)\s+not\s+owe(?:\s+us)?(?:\s+(?:anything|a\s+(?:single\s+)?(?:cent|penny|thing)|any\s+money))?|owe(?:s)?\s+(?:us\s+)?nothing|(?:are|is)\s+(?:all\s+|fully\s+)?paid\s+up(?:\s*,?\s*(?:and\s+)?(?:do|does)\s+not\s+owe(?:\s+us)?(?:\s+anything)?)?|with\s+nothing\s+(?:outstanding|owed|unpaid))(?:\s*,?\s*nothing\s+(?:outstanding|owed)(?:\s+at\s+all)?)?\s*[?.!]*$`,
    ),
    field: "outstanding",
    said: ["owes nothing now", "owe nothing now"],
    every: "still owes something",
  },
];

/** The question about clients with nothing paid or nothing owed that `message` asks, if any. */
export function clientsWithNothingAsked(message: string): (typeof NOTHING)[number] | undefined {
  return NOTHING.find((one) => one.pattern.test(message.trim()));
}

export async function clientsWithNothing(ctx: PlanContext, asked: (typeof NOTHING)[number]): Promise<Answer> {
  const result = await ctx.read<QueryResult>("query_records", {
    resource: "invoices",
    where: [{ field: "status", op: "in", value: ["open", "overdue", "paid"] }],
    aggregate: { fn: "sum", field: asked.field },
    group_by: "client",
  });
  const rows = result.mode === "records" ? [] : result.values;
  const keyOf = (row: (typeof rows)[number]) => String(row.key ?? "no client");
  const clients = [...new Set(rows.map(keyOf))];
  const nothing = clients.filter((client) =>
    rows.filter((row) => keyOf(row) === client).every((row) => Number(row.value ?? 0) === 0),
  );
  const memory = remember(ctx, "top_clients");
  const what = "of the clients we invoiced (drafts and voids left out)";
  if (nothing.length === 0)
    return { reply: `Every one ${what} ${asked.every}: **0** ${asked.said[1]}.`, memory };
  const lines = nothing.map((client) => {
    const invoices = rows.filter((row) => keyOf(row) === client).reduce((n, row) => n + row.count, 0);
    return `**${client}** (${plural(invoices, "invoice")})`;
  });
  const said = asked.said[nothing.length === 1 ? 0 : 1];
  return { reply: `**${nothing.length}** ${what} ${said}:\n${bullets(lines)}`, memory };
}

/** How a ranking of clients reads: what is added up, and how the reply says it. */
interface ClientRanking {
  query: Pick<QueryArgs, "resource" | "where">;
  /** "billed", "paid": said after each client's figure. */
  verb: string;
  /** What each figure counts: "invoice", "payment". */
  unit: string;
  /** The reply's first line, for one client and for several. */
  one: string;
  many: (n: number) => string;
  none: string;
}

/** Clients ranked by the sum of `amount` over `ranking.query`, per currency, largest first. */
async function rankClients(ctx: PlanContext, ranking: ClientRanking, limit: number): Promise<Answer> {
  const result = await ctx.read<QueryResult>("query_records", {
    ...ranking.query,
    aggregate: { fn: "sum", field: "amount" },
    group_by: "client",
  });
  const memory = remember(ctx, "top_clients");
  const rows = result.mode === "records" ? [] : result.values.filter((row) => row.value !== null);
  rows.sort((a, b) => Number(b.value) - Number(a.value) || String(a.key).localeCompare(String(b.key)));
  if (rows.length === 0) return { reply: ranking.none, memory };
  // Amounts in different currencies are not compared: each currency has its own ranking, the one with
  // the most money first.
  const currencies = [...new Set(rows.map((row) => row.currency ?? ""))];
  const sums = new Map(
    currencies.map((c) => [
      c,
      addDecimals(rows.filter((r) => (r.currency ?? "") === c).map((r) => r.value!)),
    ]),
  );
  currencies.sort((a, b) => compareDecimals(sums.get(b)!, sums.get(a)!));
  const sections = currencies.map((currency) => {
    const lines = rows
      .filter((row) => (row.currency ?? "") === currency)
      .slice(0, limit)
      .map(
        (row, index) =>
          `${index + 1}. **${row.key ?? "no client"}**: ${money(row.value!, currency)} ${ranking.verb} (${plural(row.count, ranking.unit)})`,
      );
    return currencies.length > 1 ? `In ${currency}:\n${lines.join("\n")}` : lines.join("\n");
  });
  const shown = Math.min(limit, rows.filter((row) => (row.currency ?? "") === currencies[0]).length);
  const head = limit === 1 ? ranking.one : ranking.many(shown);
  return { reply: `${head}\n\n${sections.join("\n\n")}`, memory };
}

/** Clients by what we invoiced them (issued invoices that stand: open, overdue or paid), per currency. */
function billedByClient(ctx: PlanContext, period: PlanContext["slots"]["past"], limit: number) {
  const when = period ? ` issued ${period.range.label}` : "";
  const issued: Condition[] = period
    ? [
        { field: "issued_at", op: "gte", value: period.range.from },
        { field: "issued_at", op: "lt", value: addDays(period.range.to, 1) },
      ]
    : [];
  return rankClients(
    ctx,
    {
      query: {
        resource: "invoices",
        where: [{ field: "status", op: "in", value: ["open", "overdue", "paid"] }, ...issued],
      },
      verb: "billed",
      unit: "invoice",
      one: `The client we billed the most (invoices${when}, drafts and voids left out):`,
      many: (n) =>
        `Top ${plural(n, "client")} by what we billed them (invoices${when}, drafts and voids left out):`,
      none: `No client was invoiced${when}.`,
    },
    limit,
  );
}

/**
 * Clients by what they paid in a period: the payments received from them then ("which client paid us
 * the most in march" is money that came in in March, whenever its invoices were issued), per currency.
 */
function paidInPeriod(ctx: PlanContext, period: NonNullable<PlanContext["slots"]["past"]>, limit: number) {
  const when = `in payments received ${period.range.label}`;
  return rankClients(
    ctx,
    {
      query: {
        resource: "payments",
        where: [
          { field: "received_at", op: "gte", value: period.range.from },
          { field: "received_at", op: "lt", value: addDays(period.range.to, 1) },
        ],
      },
      verb: "paid",
      unit: "payment",
      one: `The client who paid the most ${when}:`,
      many: (n) => `Top ${plural(n, "client")} by what they paid ${when}:`,
      none: `No client paid anything ${period.range.label}.`,
    },
    limit,
  );
}

/**
 * What one client paid: in a period, the payments received from it then ("has Acme paid anything
 * this month" is money that came in this month, whenever its invoices were issued); else on all its
 * invoices.
 */
export async function clientRevenue(ctx: PlanContext, subject: NonNullable<PlanContext["slots"]["subject"]>) {
  const period = ctx.slots.past;
  if (period && subject.client) {
    const result = await ctx.read<QueryResult>("query_records", {
      resource: "payments",
      where: [
        { field: "client", op: "eq", value: subject.client },
        { field: "received_at", op: "gte", value: period.range.from },
        { field: "received_at", op: "lt", value: addDays(period.range.to, 1) },
      ],
      aggregate: { fn: "sum", field: "amount" },
    });
    const values = result.mode === "records" ? [] : result.values.filter((value) => value.value !== null);
    const totals = values.map((value) => ({
      currency: value.currency ?? "",
      amount: value.value!,
      count: value.count,
    }));
    const count = countOf(totals);
    const reply =
      count === 0
        ? `**${subject.label}** paid nothing ${period.range.label}: no payment from them was received then.`
        : `**${subject.label}** paid **${totalsText(totals, "nothing")}** ${period.range.label}, in **${count}** ${count === 1 ? "payment" : "payments"}.`;
    return { reply, memory: remember(ctx, "revenue", { subject }) };
  }
  const who = clientQuery(subject);
  const sums = await ctx.read<SumResult>("sum_amounts", {
    resource: "invoices",
    filters: { ...who.filters, status: ["open", "overdue", "paid"] },
    ...(who.q ? { q: who.q } : {}),
    field: "paid",
  });
  const reply = `**${subject.label}** has paid **${totalsText(sums.totals)}** on its invoices so far${scopeWords({})}.`;
  return { reply, memory: remember(ctx, "revenue", { subject }) };
}
