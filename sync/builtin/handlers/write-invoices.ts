import type { GetResult } from "../../tools/lookup.ts";
import type { ListResult } from "../../tools/records.ts";
import { money } from "../../tools/resources.ts";
import { itemsOf } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { clientQuery } from "../subjects.ts";
import type { Answer, Item } from "../types.ts";
import { invoiceClient } from "./invoices-due.ts";
import { ask, assertMayWrite, proposeAll, referenced } from "./proposals.ts";

/** Proposals on invoices: mark paid, void, record a payment. The tools check the invoice can take it. */

type Targets = { items: Item[] } | { answer: Answer };

/** The invoices meant: numbers in the message, "it"/"the first one" from the last reply, or a client's only unpaid one. */
async function invoiceTargets(ctx: PlanContext, intent: string, example: string): Promise<Targets> {
  const refs = ctx.analysis.entities.invoiceRefs;
  if (refs.length > 0)
    return {
      items: refs.slice(0, 10).map((number) => ({ resource: "invoices", id: number, label: number })),
    };
  const pointed = referenced(ctx, "invoices");
  if (pointed) return { items: pointed };
  const client = await invoiceClient(ctx);
  if ("reply" in client) return { answer: { ...client.reply, failed: true } };
  if (client.subject) {
    const who = clientQuery(client.subject);
    const unpaid = await ctx.read<ListResult>("list_records", {
      resource: "invoices",
      filters: { ...who.filters, status: ["open", "overdue"] },
      ...(who.q ? { q: who.q } : {}),
      sort: "due_date",
      limit: 10,
    });
    if (unpaid.total === 1) return { items: itemsOf("invoices", unpaid.records) };
    if (unpaid.total === 0) {
      return {
        answer: {
          reply: `${client.subject.label} has no unpaid invoices, so there is nothing to change.`,
          failed: true,
        },
      };
    }
    const items = itemsOf("invoices", unpaid.records);
    const lines = items.map((item, index) => `${index + 1}. ${item.label}`).join("\n");
    const question = `${client.subject.label} has ${unpaid.total} unpaid invoices. Which one? Say its number or “the first one”:\n\n${lines}`;
    return { answer: ask(ctx, question, intent, items) };
  }
  return { answer: ask(ctx, `Which invoice? Give its number, for example “${example}”.`, intent) };
}

export async function markPaid(ctx: PlanContext): Promise<Answer> {
  assertMayWrite(ctx, "mark_invoice_paid", {});
  const targets = await invoiceTargets(ctx, "mark_invoice_paid", "mark INV-000030 as paid");
  if ("answer" in targets) return targets.answer;
  const attempts = targets.items.map((item) => ({
    tool: "mark_invoice_paid",
    args: { invoice: item.id },
    label: item.label,
  }));
  return proposeAll(ctx, attempts, "mark_invoice_paid");
}

export async function voidInvoice(ctx: PlanContext): Promise<Answer> {
  assertMayWrite(ctx, "void_invoice", {});
  const targets = await invoiceTargets(ctx, "void_invoice", "void INV-000031");
  if ("answer" in targets) return targets.answer;
  const attempts = targets.items.map((item) => ({
    tool: "void_invoice",
    args: { invoice: item.id },
    label: item.label,
  }));
  return proposeAll(ctx, attempts, "void_invoice");
}

const METHODS: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:bank transfer|wire|transfer|bacs|sepa)\b/, "bank_transfer"],
  [/\bdirect debit\b/, "direct_debit"],
  [/\b(?:card|credit card|debit card|visa|mastercard|amex|stripe)\b/, "card"],
  [/\bcash\b/, "cash"],
  [/\b(?:check|cheque)\b/, "check"],
];

function paymentDetails(ctx: PlanContext): {
  amount?: { value: number; currency?: string };
  method?: string;
  reference?: string;
} {
  const { entities, norm } = ctx.analysis;
  const money = entities.amounts[0];
  const bare = entities.numbers.find((number) => number.value > 0);
  const amount = money
    ? { value: Number(money.amount), ...(money.currency ? { currency: money.currency } : {}) }
    : bare
      ? { value: bare.value }
      : undefined;
  const method = METHODS.find(([pattern]) => pattern.test(norm.lower))?.[1];
  const reference = /\b(?:reference|ref\.?)\s*[:#]?\s*([A-Za-z0-9][\w./-]{0,60})/i.exec(norm.text)?.[1];
  return {
    ...(amount ? { amount } : {}),
    ...(method ? { method } : {}),
    ...(reference ? { reference } : {}),
  };
}

/** What the tool's check leaves to approval: the currency, and an amount above what is owed. */
function paymentProblem(
  invoice: Record<string, unknown>,
  amount: { value: number; currency?: string } | undefined,
) {
  const number = String(invoice.number);
  const currency = String(invoice.currency);
  if (amount?.currency && amount.currency !== currency) {
    return `${number} is in ${currency}, so a payment in ${amount.currency} cannot go on it.`;
  }
  const remaining = Number(invoice.amount_remaining);
  if (amount && ["open", "overdue"].includes(String(invoice.status)) && amount.value > remaining) {
    return `${money(amount.value, currency)} is more than the ${money(remaining, currency)} still owed on ${number}.`;
  }
  return undefined;
}

export async function recordPayment(ctx: PlanContext): Promise<Answer> {
  assertMayWrite(ctx, "record_payment", {});
  const targets = await invoiceTargets(ctx, "record_payment", "record a payment of 300 EUR on INV-000030");
  if ("answer" in targets) return targets.answer;
  if (targets.items.length > 1) {
    const lines = targets.items.map((item, index) => `${index + 1}. ${item.label}`).join("\n");
    return ask(ctx, `A payment goes on one invoice. Which one?\n\n${lines}`, "record_payment", targets.items);
  }
  const target = targets.items[0]!;
  const details = paymentDetails(ctx);
  const key = target.id.startsWith("inv_") ? { id: target.id } : { number: target.id };
  const { record } = await ctx.read<GetResult>("get_record", { resource: "invoices", ...key });
  const problem = paymentProblem(record, details.amount);
  if (problem) return { reply: `${problem} Nothing was proposed.`, failed: true };
  const args = {
    invoice: target.id,
    ...(details.amount ? { amount: details.amount.value } : {}),
    ...(details.method ? { method: details.method } : {}),
    ...(details.reference ? { reference: details.reference } : {}),
  };
  const answer = await proposeAll(
    ctx,
    [{ tool: "record_payment", args, label: target.label }],
    "record_payment",
  );
  if (!details.amount && !answer.failed)
    answer.reply += "\n\nNo amount was given, so this records what is still owed.";
  return answer;
}
