import type { GetResult } from "../../tools/lookup.ts";
import type { ListResult } from "../../tools/records.ts";
import { money } from "../../tools/resources.ts";
import { itemsOf } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import type { InvoiceStatus } from "../../../engines/finance/invoices.ts";
import { namedOutright, passingSpans, resolveName } from "../names.ts";
import { clientQuery, clientSubject } from "../subjects.ts";
import type { Answer, Item, Subject } from "../types.ts";
import { invoiceClient } from "./invoices-due.ts";
import { ask, assertMayWrite, proposeAll, referenced } from "./proposals.ts";

/** Proposals on invoices: mark paid, void, record a payment. The tools check the invoice can take it. */

type Targets = { items: Item[] } | { answer: Answer };

/** The statuses an invoice the tool can change has; "void that draft" narrows them to drafts. */
const CHANGEABLE: Readonly<Record<string, readonly InvoiceStatus[]>> = {
  void_invoice: ["draft", "open", "overdue"],
  mark_invoice_paid: ["open", "overdue"],
  record_payment: ["open", "overdue"],
};

function statusesFor(ctx: PlanContext, intent: string): { statuses: InvoiceStatus[]; named: boolean } {
  const changeable = CHANGEABLE[intent] ?? ["open", "overdue"];
  const named = ctx.analysis.entities.invoiceStatuses.filter((status) => changeable.includes(status));
  return named.length > 0
    ? { statuses: [...new Set(named)], named: true }
    : { statuses: [...changeable], named: false };
}

function kindOf(statuses: readonly InvoiceStatus[]): string {
  if (statuses.every((status) => status === "draft")) return "draft invoices";
  if (statuses.every((status) => status === "open" || status === "overdue"))
    return statuses.length === 1 ? `${statuses[0]!} invoices` : "unpaid invoices";
  return "open or draft invoices";
}

/** The invoice (labelled "INV-000012 (Solstice Travel)") is the client's. */
function sameClient(item: Item, subject: Subject): boolean {
  const client = subject.client ?? /\(([^)]+)\)$/.exec(subject.label)?.[1];
  return client !== undefined && item.label.toLowerCase().includes(`(${client.toLowerCase()}`);
}

/** The client a command said in passing names ("Kestrel paid yesterday, mark it paid"), written out. */
async function passingClient(ctx: PlanContext): Promise<{ subject?: Subject }> {
  const resolved = await resolveName(ctx, ["invoices", "contacts"], {
    spans: passingSpans(ctx),
    optional: true,
  });
  return resolved && namedOutright(resolved) ? { subject: clientSubject(resolved) } : {};
}

/**
 * The invoices meant: numbers in the message, "it"/"the first one" from the last reply, or a
 * client's only one the tool can change ("the Northwind draft"). In a command said in passing,
 * a client named in the message comes before the memory.
 */
async function invoiceTargets(ctx: PlanContext, intent: string, example: string): Promise<Targets> {
  const refs = ctx.analysis.entities.invoiceRefs;
  if (refs.length > 0)
    return {
      items: refs.slice(0, 10).map((number) => ({ resource: "invoices", id: number, label: number })),
    };
  const passing = ctx.analysis.commandAt !== undefined;
  const pointed = referenced(ctx, "invoices");
  if (pointed && !passing) return { items: pointed };
  const client = passing ? await passingClient(ctx) : await invoiceClient(ctx);
  if ("reply" in client) return { answer: { ...client.reply, failed: true } };
  // "Solstice paid, mark it paid" after INV-000012 (Solstice Travel): the name agrees with the memory.
  if (pointed && (!client.subject || pointed.every((item) => sameClient(item, client.subject!))))
    return { items: pointed };
  const { statuses, named } = statusesFor(ctx, intent);
  if (client.subject || named) {
    const who = clientQuery(client.subject);
    const found = await ctx.read<ListResult>("list_records", {
      resource: "invoices",
      filters: { ...who.filters, status: statuses },
      ...(who.q ? { q: who.q } : {}),
      sort: "due_date",
      limit: 10,
    });
    const kind = kindOf(statuses);
    if (found.total === 1) return { items: itemsOf("invoices", found.records) };
    if (found.total === 0) {
      const none = client.subject ? `${client.subject.label} has no ${kind}` : `There are no ${kind}`;
      return { answer: { reply: `${none}, so there is nothing to change.`, failed: true } };
    }
    const items = itemsOf("invoices", found.records);
    const lines = items.map((item, index) => `${index + 1}. ${item.label}`).join("\n");
    const whose = client.subject ? `${client.subject.label} has` : "There are";
    const question = `${whose} ${found.total} ${kind}. Which one? Say its number or “the first one”:\n\n${lines}`;
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
