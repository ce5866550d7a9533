import { labelOf, type Filters, type ResourceName } from "../tools/resources.ts";
import type { PlanContext } from "./context.ts";
import { nameSpans, resolveName, type NameSpan, type Resolved } from "./names.ts";
import type { Item, ListMemory, Memory, Subject } from "./types.ts";

/**
 * The record a question is about ("Acme's invoices", "Ava's email"), resolved from the names in
 * the message, or kept from the question before when a follow-up names none ("and last month?").
 */

export type Lookup<T> = { found: T } | { missing: string } | { none: true };

/** What the message names, or the subject of the question it follows, or nothing. */
export async function subjectOf(
  ctx: PlanContext,
  resources: readonly ResourceName[],
  toSubject: (resolved: Resolved) => Subject,
  extra: Array<[number, number]> = [],
): Promise<Lookup<Subject>> {
  const spans = nameSpans(ctx, extra);
  if (spans.length === 0) {
    const kept = ctx.followUp ? ctx.slots.subject : undefined;
    return kept && resources.includes(kept.resource) ? { found: kept } : { none: true };
  }
  const resolved = await resolveName(ctx, resources, { spans, optional: resources.length > 1 });
  if (resolved) return { found: toSubject(resolved) };
  const strong = spans.find((span: NameSpan) => span.strong);
  return strong ? { missing: strong.text } : { none: true };
}

/** A client: an invoice's `client`, or a contact (whose invoices carry its id). */
export function clientSubject(resolved: Resolved): Subject {
  const { record, resource } = resolved;
  if (resource === "contacts") {
    return {
      resource,
      id: String(record.id),
      label: labelOf("contacts", record),
      contactId: String(record.id),
    };
  }
  const client = String(record.client);
  return { resource: "invoices", id: String(record.id), label: client, client };
}

export function recordSubject(resource: ResourceName, record: Record<string, unknown>): Subject {
  return { resource, id: String(record.id), label: labelOf(resource, record) };
}

/** The client part of an invoice query: a text search on the client, or the contact's id. */
export function clientQuery(subject: Subject | undefined): { filters: Filters; q?: string } {
  if (!subject) return { filters: {} };
  if (subject.contactId) return { filters: { contact_id: subject.contactId } };
  return { filters: {}, ...(subject.client ? { q: subject.client } : {}) };
}

export function notFound(what: string, name: string): string {
  return `I couldn't find ${what} named “${name}”. Check the spelling, or ask me to “find ${name}” to search everything.`;
}

/** "Also matching: …": the other records a name could mean, so the user can say which. */
export function alsoMatching(resolved: Resolved): string {
  if (resolved.others.length === 0) return "";
  const names = resolved.others.slice(0, 4).map((record) => labelOf(resolved.resource, record));
  return `\n\n_Also matching “${resolved.span.text}”: ${names.join("; ")}. Name one in full to see it instead._`;
}

/** The memory a reply leaves: its intent and slots, the list it showed, the record it was about. */
export function remember(
  ctx: PlanContext,
  intent: string,
  parts: { list?: ListMemory; focus?: Item; subject?: Subject } = {},
): Memory {
  const slots = { ...ctx.slots };
  if (parts.subject) slots.subject = parts.subject;
  else delete slots.subject;
  return {
    planner: "builtin",
    intent,
    slots,
    ...(parts.list ? { list: parts.list } : {}),
    ...(parts.focus ? { focus: parts.focus } : {}),
  };
}
