import { LIFECYCLE_STAGES } from "../../../engines/growth/contacts.ts";
import type { ListResult } from "../../tools/records.ts";
import type { Filters } from "../../tools/resources.ts";
import { bullets, contactLine, itemsOf, plural, str } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { countPer } from "../counts.ts";
import { hasCue } from "../intents.ts";
import { nameSpans } from "../names.ts";
import { recordSubject, remember } from "../subjects.ts";
import type { Answer } from "../types.ts";

/** Contacts: one contact's answer (people.ts finds whom a name means), and how many there are per lifecycle stage. */

type Rec = Record<string, unknown>;
const STAGE_PLURALS: Record<string, string> = {
  lead: "leads",
  prospect: "prospects",
  customer: "customers",
  churned: "churned contacts",
};
const STAGE_SINGULARS: Record<string, string> = { churned: "churned contact" };

function stageNoun(stages: readonly string[], count: number): string {
  if (stages.length === 0) return count === 1 ? "contact" : "contacts";
  const nouns = count === 1 ? STAGE_SINGULARS : STAGE_PLURALS;
  return stages.map((stage) => nouns[stage] ?? stage).join(" or ");
}

/** The field the question asks for, answered first: "Ava Okafor's email is …". */
function lead(ctx: PlanContext, contact: Rec): string {
  const name = String(contact.name);
  const value = (field: string) => str(contact[field]) || undefined;
  const has = (cue: string) => hasCue(ctx.analysis, cue);
  if (has("email") && !has("phone")) {
    const email = value("email");
    return email ? `${name}'s email is **${email}**.` : `${name} has no email on record.`;
  }
  if (has("phone") || has("mobile")) {
    const phone = value("phone");
    return phone ? `${name}'s phone number is **${phone}**.` : `${name} has no phone number on record.`;
  }
  if (has("company") || has("work") || has("works") || has("employer")) {
    const company = value("company");
    return company ? `${name} works at **${company}**.` : `${name} has no company on record.`;
  }
  if (has("stage") || has("lifecycle")) return `${name} is a **${String(contact.lifecycle_stage)}**.`;
  return "";
}

export function contactCard(contact: Rec): string {
  const lines = [
    `Email: ${str(contact.email) || "—"}`,
    `Phone: ${str(contact.phone) || "—"}`,
    `Company: ${str(contact.company) || "—"}`,
    `Lifecycle stage: ${String(contact.lifecycle_stage)}`,
  ];
  const tags = contact.tags as string[] | undefined;
  if (tags && tags.length > 0) lines.push(`Tags: ${tags.join(", ")}`);
  return `**${String(contact.name)}**\n\n${bullets(lines)}`;
}

export function contactAnswer(ctx: PlanContext, contact: Rec, also: string): Answer {
  const first = lead(ctx, contact);
  const reply = `${first ? `${first}\n\n` : ""}${contactCard(contact)}${also}`;
  const subject = recordSubject("contacts", contact);
  const focus = itemsOf("contacts", [contact])[0]!;
  return { reply, memory: remember(ctx, "contact_detail", { focus, subject }) };
}

export async function contacts(ctx: PlanContext): Promise<Answer> {
  const stages = ctx.slots.lifecycleStages;
  const spans = nameSpans(ctx).filter((span) => span.strong);
  const q = spans[0]?.text;
  const filters: Filters = stages.length > 0 ? { lifecycle_stage: [...stages] } : {};
  const at = q ? ` matching “${q}”` : "";
  if (stages.length === 0 && ctx.slots.facet !== "list") {
    const counts = await countPer(ctx, "contacts", "lifecycle_stage", LIFECYCLE_STAGES, q ? { q } : {});
    const parts = counts.groups.map(
      (group) => `${group.count} ${stageNoun([String(group.key)], group.count)}`,
    );
    const reply = `You have **${plural(counts.total, "contact")}**${at}${parts.length > 0 ? `: ${parts.join(", ")}` : ""}.`;
    return { reply, memory: remember(ctx, "contacts") };
  }
  const list = await ctx.read<ListResult>("list_records", {
    resource: "contacts",
    filters,
    ...(q ? { q } : {}),
    sort: "name",
    limit: 50,
  });
  const memory = remember(ctx, "contacts", {
    list: {
      resource: "contacts",
      filters,
      ...(q ? { q } : {}),
      sort: "name",
      total: list.total,
      shown: Math.min(10, list.total),
      items: itemsOf("contacts", list.records),
    },
  });
  if (list.total === 0) return { reply: `You have no ${stageNoun(stages, 2)}${at}.`, memory };
  const lines = list.records.map(contactLine);
  const head = `You have **${list.total} ${stageNoun(stages, list.total)}**${at}:`;
  return { reply: `${head}\n\n${bullets(lines, list.total)}`, memory };
}
