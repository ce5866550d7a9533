import { addDecimals } from "../../core/index.ts";
import { labelOf, money, type ResourceName } from "../tools/resources.ts";
import type { Item } from "./types.ts";

/**
 * Reply text from tool results: Markdown, figures exactly as the tools return them and always
 * with their currency (`money`), invoice numbers, names and dates as stored. A list shows at
 * most ten lines and says how many more there are.
 */

export const MAX_LINES = 10;

type Rec = Record<string, unknown>;
/** A field's value as text: "" for none (record fields are strings, numbers or booleans). */
export function str(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A Markdown list of at most `max` lines, then "…and N more". */
export function bullets(lines: readonly string[], total = lines.length, max = MAX_LINES): string {
  const shown = lines.slice(0, max).map((line) => `- ${line}`);
  const more = total - shown.length;
  if (more > 0) shown.push(`- …and ${more} more (ask “show me more”)`);
  return shown.join("\n");
}

export interface MoneyTotal {
  currency: string;
  amount: string;
  count?: number;
}

/** "1,250.00 EUR and 300.00 USD"; amounts of one currency added exactly first. */
export function totalsText(totals: readonly MoneyTotal[], none = "nothing"): string {
  const byCurrency = new Map<string, string[]>();
  for (const total of totals)
    byCurrency.set(total.currency, [...(byCurrency.get(total.currency) ?? []), total.amount]);
  const parts = [...byCurrency].map(([currency, amounts]) => money(addDecimals(amounts), currency));
  if (parts.length === 0) return none;
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]!}`;
}

export function countOf(totals: readonly MoneyTotal[]): number {
  return totals.reduce((sum, total) => sum + (total.count ?? 0), 0);
}

export const day = (value: unknown) => str(value).slice(0, 10);

export function invoiceLine(invoice: Rec, today: string): string {
  const currency = str(invoice.currency);
  const amount = money(invoice.amount as number, currency);
  const status = str(invoice.status);
  const remaining = Number(invoice.amount_remaining);
  const due = str(invoice.due_date);
  const head = `**${str(invoice.number)}** — ${str(invoice.client)}`;
  if (remaining > 0 && (status === "open" || status === "overdue")) {
    const owed = money(remaining, currency);
    const of = owed === amount ? "" : ` of ${amount}`;
    const when =
      status === "overdue"
        ? ` (${plural(Number(invoice.days_overdue), "day")} overdue)`
        : due === today
          ? " (today)"
          : "";
    return `${head}: ${owed} owed${of}, due ${due}${when}`;
  }
  return `${head}: ${amount}, ${status}, due ${due}`;
}

export function contactLine(contact: Rec): string {
  const company = contact.company ? ` — ${str(contact.company)}` : "";
  const email = contact.email ? `, ${str(contact.email)}` : "";
  return `**${str(contact.name)}**${company} (${str(contact.lifecycle_stage)})${email}`;
}

export function dealLine(deal: Rec): string {
  const closed = deal.closed_at ? `, closed ${day(deal.closed_at)}` : "";
  const close =
    !deal.closed_at && deal.expected_close_date ? `, expected ${str(deal.expected_close_date)}` : "";
  return `**${str(deal.title)}**: ${money(deal.value as number, str(deal.currency))}, ${str(deal.stage)}${closed}${close}`;
}

export function candidateLine(candidate: Rec): string {
  return `**${str(candidate.name)}** — ${str(candidate.position)}, ${str(candidate.status)}`;
}

export function productLine(product: Rec): string {
  const sku = product.sku ? ` (${str(product.sku)})` : "";
  const inactive = product.active === false ? ", inactive" : "";
  return `**${str(product.name)}**${sku}: ${money(product.price as number, str(product.currency))}${inactive}`;
}

export function paymentLine(payment: Rec, invoiceNumber?: string): string {
  const on = invoiceNumber ? ` on ${invoiceNumber}` : "";
  const reference = payment.reference ? ` — ${str(payment.reference)}` : "";
  const method = str(payment.method).replace(/_/g, " ");
  return `${day(payment.received_at)}: **${money(payment.amount as number, str(payment.currency))}** by ${method}${on}${reference}`;
}

export function skillLine(skill: Rec, candidateName?: string): string {
  const who = candidateName ? ` — ${candidateName}` : "";
  const verified = skill.status === "verified" ? `verified ${day(skill.verified_at)}` : "claimed";
  const by = skill.verified_by ? ` by ${str(skill.verified_by)}` : "";
  return `**${str(skill.name)}** (${str(skill.level)})${who}: ${verified}${by}`;
}

/**
 * A communication with its text quoted as data: one line, shortened, Markdown neutralised.
 * Whatever the text says, it is only shown.
 */
export function communicationLine(communication: Rec, contactName?: string): string {
  const who = contactName ? ` with ${contactName}` : "";
  const subject = communication.subject ? ` “${quote(str(communication.subject), 80)}”` : "";
  const body = communication.body ? `: “${quote(str(communication.body), 160)}”` : "";
  return `${day(communication.occurred_at)} · ${str(communication.channel)} (${str(communication.direction)})${who}${subject}${body}`;
}

/** Record text shown inside a reply: on one line, cut, with Markdown and links disarmed. */
export function quote(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return cut.replace(/([*_`[\]<>#|])/g, "\\$1");
}

export function itemsOf(resource: ResourceName, records: readonly Rec[]): Item[] {
  return records
    .slice(0, 50)
    .map((record) => ({ resource, id: str(record.id), label: labelOf(resource, record) }));
}

/** "for Acme Logistics", "in USD", "(the last 30 days)": the filters a reply names back. */
export function scopeWords(parts: { client?: string; currency?: string; period?: string }): string {
  return [
    parts.client ? ` for ${parts.client}` : "",
    parts.currency ? ` in ${parts.currency}` : "",
    parts.period ? ` ${parts.period}` : "",
  ].join("");
}

/** One line for a record of any resource, as the lists show it. */
export function lineFor(resource: ResourceName, record: Rec, today: string): string {
  switch (resource) {
    case "invoices":
      return invoiceLine(record, today);
    case "contacts":
      return contactLine(record);
    case "deals":
      return dealLine(record);
    case "candidates":
      return candidateLine(record);
    case "products":
      return productLine(record);
    case "payments":
      // Which invoice, and whose ("who from"): query/ gives each payment its invoice's number and client.
      return paymentLine(record, typeof record.invoice === "string" ? record.invoice : undefined);
    case "skills":
      // Whose skill it is ("who has it verified"): query_records gives each skill its candidate.
      return skillLine(record, typeof record.candidate === "string" ? record.candidate : undefined);
    case "communications":
      return communicationLine(record);
  }
}
