import type { GetResult } from "../../tools/lookup.ts";
import { labelOf } from "../../tools/resources.ts";
import { bullets, lineFor } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { resolveName } from "../names.ts";
import { alsoMatching, clientSubject, recordSubject, remember } from "../subjects.ts";
import type { Answer, Item } from "../types.ts";
import { candidateAnswer } from "./candidates.ts";
import { contactCard } from "./contacts.ts";
import { invoiceDetailText, invoices } from "./invoices.ts";
import { skills } from "./skills.ts";

/**
 * One record in full, whatever its resource: "the second one" from a list, or a name asked
 * about with nothing else ("Kestrel Robotics?", "tell me about Liam Moreau").
 */

type Rec = Record<string, unknown>;

function detailText(item: Item, record: Rec, today: string): string {
  switch (item.resource) {
    case "invoices":
      return invoiceDetailText(record);
    case "contacts":
      return contactCard(record);
    default:
      return bullets([lineFor(item.resource, record, today)]);
  }
}

export async function recordAnswer(ctx: PlanContext, item: Item): Promise<Answer> {
  const { record } = await ctx.read<GetResult>("get_record", { resource: item.resource, id: item.id });
  if (item.resource === "candidates") return candidateAnswer(ctx, record);
  const memory = remember(ctx, `${item.resource}:detail`, {
    focus: { resource: item.resource, id: item.id, label: labelOf(item.resource, record) },
    subject: recordSubject(item.resource, record),
  });
  return { reply: detailText(item, record, ctx.turn.today), memory };
}

/** A bare name: the contact, candidate, client, deal or product it names, in that order. */
export async function lookup(ctx: PlanContext): Promise<Answer | null> {
  const resolved = await resolveName(
    ctx,
    ["contacts", "candidates", "invoices", "deals", "products", "skills"],
    {
      optional: true,
    },
  );
  if (!resolved) return null;
  const { resource, record } = resolved;
  if (resource === "invoices") {
    return invoices({ ...ctx, slots: { ...ctx.slots, subject: clientSubject(resolved) }, followUp: true });
  }
  if (resource === "candidates") return candidateAnswer(ctx, record, alsoMatching(resolved));
  if (resource === "skills") return skills(ctx);
  const item = { resource, id: String(record.id), label: labelOf(resource, record) };
  const answer = await recordAnswer(ctx, item);
  return { ...answer, reply: `${answer.reply}${alsoMatching(resolved)}` };
}
