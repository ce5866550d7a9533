import type { InvoicesDueResult } from "../../tools/insights.ts";
import type { ListResult, SumResult } from "../../tools/records.ts";
import { addDecimals, compareDecimals } from "../../../core/index.ts";
import { money, type Filters } from "../../tools/resources.ts";
import { bullets, countOf, invoiceLine, itemsOf, plural, scopeWords, totalsText } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { addDays, daysBetween, type Period } from "../dates.ts";
import { clientQuery, clientSubject, notFound, remember, subjectOf } from "../subjects.ts";
import type { Answer, Subject } from "../types.ts";

/**
 * Invoices by when they fall due: the overdue ones, those due within a window (this week, the
 * next 14 days, by Friday), and everything still unpaid; each with how much is still owed per
 * currency, for all clients or one.
 */

type Rec = Record<string, unknown>;

interface InvoiceSet {
  total: number;
  records: Rec[];
  outstanding: SumResult["totals"];
  filters: Filters;
  q?: string;
}

/** The client the message names, or a reply saying it was not found. */
export async function invoiceClient(ctx: PlanContext): Promise<{ subject?: Subject } | { reply: Answer }> {
  const lookup = await subjectOf(ctx, ["invoices", "contacts"], clientSubject);
  if ("missing" in lookup) return { reply: { reply: notFound("a client", lookup.missing) } };
  return "found" in lookup ? { subject: lookup.found } : {};
}

async function listed(ctx: PlanContext, filters: Filters, subject: Subject | undefined): Promise<InvoiceSet> {
  const client = clientQuery(subject);
  const query = { filters: { ...filters, ...client.filters }, ...(client.q ? { q: client.q } : {}) };
  const list = await ctx.read<ListResult>("list_records", {
    resource: "invoices",
    ...query,
    sort: "due_date",
    limit: 50,
  });
  const sums = await ctx.read<SumResult>("sum_amounts", {
    resource: "invoices",
    ...query,
    field: "outstanding",
  });
  return { total: list.total, records: list.records, outstanding: sums.totals, ...query };
}

function answerFor(
  ctx: PlanContext,
  intent: string,
  set: InvoiceSet,
  subject: Subject | undefined,
  words: { none: string; headline: string },
): Answer {
  const list = {
    resource: "invoices" as const,
    filters: set.filters,
    ...(set.q ? { q: set.q } : {}),
    sort: "due_date",
    total: set.total,
    shown: Math.min(set.total, 10),
    items: itemsOf("invoices", set.records),
    field: "outstanding",
  };
  const memory = remember(ctx, intent, { list, ...(subject ? { subject } : {}) });
  if (set.total === 0) return { reply: words.none, memory };
  const lines = set.records.map((invoice) => invoiceLine(invoice, ctx.turn.today));
  return { reply: `${words.headline}\n\n${bullets(lines, set.total)}`, memory };
}

export async function overdue(ctx: PlanContext): Promise<Answer> {
  const client = await invoiceClient(ctx);
  if ("reply" in client) return client.reply;
  const { subject } = client;
  const currency = ctx.slots.currency;
  let set: InvoiceSet;
  if (subject) {
    set = await listed(ctx, { status: "overdue", ...(currency ? { currency } : {}) }, subject);
  } else {
    const due = await ctx.read<InvoicesDueResult>("invoices_due", {
      overdue: true,
      ...(currency ? { currency } : {}),
      limit: 50,
    });
    const filters: Filters = { status: "overdue", ...(currency ? { currency } : {}) };
    set = { total: due.total, records: due.records, outstanding: due.outstanding, filters };
  }
  const scope = scopeWords({ client: subject?.label, currency });
  const owed = totalsText(set.outstanding);
  const count = plural(set.total, "overdue invoice");
  const headline =
    ctx.slots.facet === "sum"
      ? `**${owed}** is still owed on ${count}${scope}:`
      : `**${count}**${scope}, with **${owed}** still owed:`;
  return answerFor(ctx, "overdue", set, subject, {
    none: `Nothing is overdue${scope}: no invoice is past its due date.`,
    headline,
  });
}

/** The due-date window asked about: a rolling one, a calendar one, or the next 7 days. */
function dueWindow(ctx: PlanContext): Period {
  const today = ctx.turn.today;
  return (
    ctx.slots.future ?? {
      range: {
        from: today,
        to: addDays(today, 7),
        label: `in the next 7 days (${today} to ${addDays(today, 7)})`,
      },
      days: 7,
      ahead: true,
    }
  );
}

export async function dueSoon(ctx: PlanContext): Promise<Answer> {
  const client = await invoiceClient(ctx);
  if ("reply" in client) return client.reply;
  const { subject } = client;
  const today = ctx.turn.today;
  const window = dueWindow(ctx);
  const { from, to, label } = window.range;
  const currency = ctx.slots.currency;
  const past = to < today;
  let set: InvoiceSet;
  if (!subject && !past && from <= today) {
    const due = await ctx.read<InvoicesDueResult>("invoices_due", {
      within_days: Math.max(0, daysBetween(today, to)),
      ...(currency ? { currency } : {}),
      limit: 50,
    });
    const filters: Filters = {
      status: "open",
      due_before: addDays(to, 1),
      ...(currency ? { currency } : {}),
    };
    set = { total: due.total, records: due.records, outstanding: due.outstanding, filters };
  } else {
    const filters: Filters = {
      status: past ? "overdue" : "open",
      due_after: addDays(from, -1),
      due_before: addDays(to, 1),
      ...(currency ? { currency } : {}),
    };
    set = await listed(ctx, filters, subject);
  }
  const scope = scopeWords({ client: subject?.label, currency });
  const owed = totalsText(set.outstanding);
  const what = past ? "unpaid invoices that fell due" : "invoices falling due";
  return answerFor(ctx, "due_soon", set, subject, {
    none: `No ${what} ${label}${scope}.`,
    headline: `**${plural(set.total, past ? "unpaid invoice" : "invoice")}**${scope} ${past ? "fell" : "fall"} due ${label}, with **${owed}** still to collect:`,
  });
}

/**
 * "who owes us the most", "which client paid the most": the one client at the top is asked for, not a
 * ranking ("top 3 clients", "which clients owe the most", "who owes us money").
 */
export function asksForOneClient(lower: string): boolean {
  return (
    /^who\b|\b(?:which|what)\s+(?:client|customer|company)\b(?!s)/.test(lower) &&
    /\b(?:most|best|biggest|largest)\b/.test(lower) &&
    !/\b(?:top|clients|customers|companies)\b|\d/.test(lower)
  );
}

const PER_CLIENT =
  /\b(?:who|which (?:clients?|customers?|companies)|by client|per client|each client|most)\b/;

/** "Who owes us the most?": what each client still owes, per currency, largest first. */
function owedByClient(ctx: PlanContext, set: InvoiceSet): Answer {
  const owed = new Map<string, { client: string; currency: string; amounts: string[] }>();
  for (const invoice of set.records) {
    const key = `${String(invoice.client)}\u0000${String(invoice.currency)}`;
    const row = owed.get(key) ?? {
      client: String(invoice.client),
      currency: String(invoice.currency),
      amounts: [],
    };
    row.amounts.push(String(invoice.amount_remaining));
    owed.set(key, row);
  }
  const rows = [...owed.values()]
    .map((row) => ({ ...row, total: addDecimals(row.amounts) }))
    .sort((a, b) => compareDecimals(b.total, a.total) || a.client.localeCompare(b.client));
  const lines = rows.map(
    (row, index) =>
      `${index + 1}. **${row.client}**: ${money(row.total, row.currency)} (${plural(row.amounts.length, "invoice")})`,
  );
  const head = `**${totalsText(set.outstanding)}** is still owed on **${plural(set.total, "unpaid invoice")}**, by client:`;
  const memory = remember(ctx, "outstanding");
  // "who owes us the most": one client, the one at the top ("which clients owe the most" lists them).
  if (asksForOneClient(ctx.analysis.norm.lower) && rows[0]) {
    // Amounts in different currencies are not compared: the one who owes the most in each.
    const tops = [...new Set(rows.map((row) => row.currency))].map((currency) =>
      rows.find((row) => row.currency === currency)!,
    );
    const said = tops.map(
      (top) =>
        `**${top.client}** owes the most${tops.length > 1 ? ` in ${top.currency}` : ""}: **${money(top.total, top.currency)}** on ${plural(top.amounts.length, "unpaid invoice")}`,
    );
    return {
      reply: `${said.join("; ")} (of **${totalsText(set.outstanding)}** owed in all).`,
      memory,
    };
  }
  return {
    reply: `${head}\n\n${lines.slice(0, 10).join("\n")}${rows.length > 10 ? `\n…and ${rows.length - 10} more` : ""}`,
    memory,
  };
}

export async function outstanding(ctx: PlanContext): Promise<Answer> {
  const client = await invoiceClient(ctx);
  if ("reply" in client) return client.reply;
  const { subject } = client;
  const currency = ctx.slots.currency;
  const set = await listed(ctx, { status: ["open", "overdue"], ...(currency ? { currency } : {}) }, subject);
  const overdueSums = await ctx.read<SumResult>("sum_amounts", {
    resource: "invoices",
    filters: { ...set.filters, status: "overdue" },
    ...(set.q ? { q: set.q } : {}),
    field: "outstanding",
  });
  if (!subject && PER_CLIENT.test(ctx.analysis.norm.lower) && set.total <= 50) return owedByClient(ctx, set);
  const scope = scopeWords({ client: subject?.label, currency });
  const overdueCount = countOf(overdueSums.totals);
  const late =
    overdueCount > 0
      ? ` Of that, **${totalsText(overdueSums.totals)}** is overdue (${plural(overdueCount, "invoice")}).`
      : " None of it is overdue.";
  return answerFor(ctx, "outstanding", set, subject, {
    none: `Nothing is owed${scope}: there are no unpaid invoices.`,
    headline: `**${totalsText(set.outstanding)}** is still owed${scope} on **${plural(set.total, "unpaid invoice")}**.${late}`,
  });
}
