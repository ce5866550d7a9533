import type { ListResult, SumResult } from "../../tools/records.ts";
import type { Filters } from "../../tools/resources.ts";
import { bullets, countOf, itemsOf, paymentLine, plural, totalsText } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { addDays, type Period } from "../dates.ts";
import { remember } from "../subjects.ts";
import type { Answer } from "../types.ts";
import { clientRevenue } from "./invoices.ts";
import { invoiceClient } from "./invoices-due.ts";

/**
 * Money received: revenue in a period (the payments recorded, by the day they were received),
 * one client's revenue, and the payments themselves.
 */

const DAY_MS = 86_400_000;

/** `received_after`/`received_before` for a period: the filters are strict, so the bounds are too. */
export function receivedFilters(period: Period, now: Date): Filters {
  if (period.days !== undefined && !period.ahead) {
    return { received_after: new Date(now.getTime() - period.days * DAY_MS).toISOString() };
  }
  return {
    received_after: new Date(Date.parse(`${period.range.from}T00:00:00Z`) - 1).toISOString(),
    received_before: `${addDays(period.range.to, 1)}T00:00:00Z`,
  };
}

function defaultPeriod(ctx: PlanContext): Period {
  const today = ctx.turn.today;
  return {
    range: {
      from: addDays(today, -30),
      to: today,
      label: `in the last 30 days (${addDays(today, -30)} to ${today})`,
    },
    days: 30,
  };
}

async function paymentsIn(ctx: PlanContext, filters: Filters) {
  const list = await ctx.read<ListResult>("list_records", {
    resource: "payments",
    filters,
    sort: "-received_at",
    limit: 50,
  });
  const sums = await ctx.read<SumResult>("sum_amounts", { resource: "payments", filters });
  return { list, sums };
}

function paymentsAnswer(
  ctx: PlanContext,
  intent: string,
  filters: Filters,
  found: Awaited<ReturnType<typeof paymentsIn>>,
  headline: string,
): Answer {
  const { list } = found;
  const memory = remember(ctx, intent, {
    list: {
      resource: "payments",
      filters,
      sort: "-received_at",
      total: list.total,
      shown: Math.min(10, list.total),
      items: itemsOf("payments", list.records),
      field: "amount",
    },
  });
  const lines = list.records.map((payment) => paymentLine(payment));
  return { reply: list.total === 0 ? headline : `${headline}\n\n${bullets(lines, list.total)}`, memory };
}

export async function revenue(ctx: PlanContext): Promise<Answer> {
  const client = await invoiceClient(ctx);
  if ("reply" in client) return client.reply;
  if (client.subject) return clientRevenue(ctx, client.subject);
  const period = ctx.slots.past ?? defaultPeriod(ctx);
  const currency = ctx.slots.currency;
  const filters = { ...receivedFilters(period, ctx.turn.now), ...(currency ? { currency } : {}) };
  const found = await paymentsIn(ctx, filters);
  const label = period.range.label;
  const count = countOf(found.sums.totals);
  const headline =
    count === 0
      ? `No payments were received ${label}${currency ? ` in ${currency}` : ""}.`
      : `You received **${totalsText(found.sums.totals)}** ${label}, in **${plural(count, "payment")}**:`;
  return paymentsAnswer(ctx, "revenue", filters, found, headline);
}

export async function payments(ctx: PlanContext): Promise<Answer> {
  const period = ctx.slots.past;
  const currency = ctx.slots.currency;
  const filters: Filters = {
    ...(period ? receivedFilters(period, ctx.turn.now) : {}),
    ...(currency ? { currency } : {}),
  };
  const found = await paymentsIn(ctx, filters);
  const when = period ? ` ${period.range.label}` : "";
  const count = found.list.total;
  const headline =
    count === 0
      ? `No payments were recorded${when}.`
      : `**${plural(count, "payment")}** recorded${when}, **${totalsText(found.sums.totals)}** in all:`;
  return paymentsAnswer(ctx, "payments", filters, found, headline);
}
