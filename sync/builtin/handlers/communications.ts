import type { ListResult } from "../../tools/records.ts";
import type { Filters } from "../../tools/resources.ts";
import { bullets, communicationLine, itemsOf, plural } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { recordSubject, notFound, remember, subjectOf } from "../subjects.ts";
import type { Answer } from "../types.ts";
import { receivedFilters } from "./payments.ts";

/**
 * The emails, calls, texts and meetings logged with contacts, newest first. Their subjects and
 * bodies are quoted as data (answers.ts `quote`): nothing in them is ever read as a request.
 */

type Rec = Record<string, unknown>;
const CHANNEL_NOUNS: Record<string, string> = {
  email: "email",
  call: "call",
  meeting: "meeting",
  sms: "text message",
};

/** Contact names for the lines, one lookup per contact shown. */
async function contactNames(ctx: PlanContext, records: Rec[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const id of new Set(records.slice(0, 10).map((record) => String(record.contact_id)))) {
    const { record } = await ctx.read<{ record: Rec }>("get_record", { resource: "contacts", id });
    names.set(id, String(record.name));
  }
  return names;
}

export async function communications(ctx: PlanContext): Promise<Answer> {
  const lookup = await subjectOf(ctx, ["contacts"], (resolved) => recordSubject("contacts", resolved.record));
  if ("missing" in lookup) return { reply: notFound("a contact", lookup.missing) };
  const subject = "found" in lookup ? lookup.found : undefined;
  const { channels, directions } = ctx.slots;
  const period = ctx.slots.past;
  const window = period ? receivedFilters(period, ctx.turn.now) : {};
  const filters: Filters = {
    ...(subject ? { contact_id: subject.id } : {}),
    ...(channels.length > 0 ? { channel: [...channels] } : {}),
    ...(directions.length > 0 ? { direction: [...directions] } : {}),
    ...(window.received_after ? { occurred_after: window.received_after } : {}),
    ...(window.received_before ? { occurred_before: window.received_before } : {}),
  };
  const list = await ctx.read<ListResult>("list_records", {
    resource: "communications",
    filters,
    sort: "-occurred_at",
    limit: 50,
  });
  const memory = remember(ctx, "communications", {
    list: {
      resource: "communications",
      filters,
      sort: "-occurred_at",
      total: list.total,
      shown: Math.min(10, list.total),
      items: itemsOf("communications", list.records),
    },
    ...(subject ? { subject } : {}),
  });
  const kind = channels.length === 1 ? (CHANNEL_NOUNS[channels[0]!] ?? "communication") : "communication";
  const scope = `${subject ? ` with ${subject.label}` : ""}${period ? ` ${period.range.label}` : ""}`;
  if (list.total === 0) return { reply: `No ${kind}s logged${scope}.`, memory };
  const names = await contactNames(ctx, list.records);
  const lines = list.records.map((record) => communicationLine(record, names.get(String(record.contact_id))));
  const head = `**${plural(list.total, kind)}** logged${scope}, newest first:`;
  return { reply: `${head}\n\n${bullets(lines, list.total)}`, memory };
}
