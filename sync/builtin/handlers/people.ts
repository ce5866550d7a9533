import type { PlanContext } from "../context.ts";
import { nameSpans, resolveName } from "../names.ts";
import { alsoMatching } from "../subjects.ts";
import type { Answer } from "../types.ts";
import { candidateAnswer } from "./candidates.ts";
import { contactAnswer } from "./contacts.ts";

/**
 * One person by name: "who is Ada" may name a contact or a candidate, so both details resolve the
 * name over both resources and answer with whichever it names (the intent only says which comes
 * first). Here, not in contacts.ts or candidates.ts, so neither imports the other.
 */

type Rec = Record<string, unknown>;

export async function contactDetail(ctx: PlanContext): Promise<Answer | null> {
  const spans = nameSpans(ctx);
  const kept = ctx.followUp && spans.length === 0 ? ctx.slots.subject : undefined;
  if (kept?.resource === "contacts") {
    const { record } = await ctx.read<{ record: Rec }>("get_record", { resource: "contacts", id: kept.id });
    return contactAnswer(ctx, record, "");
  }
  const resolved = await resolveName(ctx, ["contacts", "candidates"], { spans, optional: true });
  if (!resolved) return null;
  if (resolved.resource === "candidates")
    return candidateAnswer(ctx, resolved.record, alsoMatching(resolved));
  return contactAnswer(ctx, resolved.record, alsoMatching(resolved));
}

export async function candidateDetail(ctx: PlanContext): Promise<Answer | null> {
  const spans = nameSpans(ctx);
  const kept = ctx.followUp && spans.length === 0 ? ctx.slots.subject : undefined;
  let candidate: Rec;
  let also = "";
  if (kept?.resource === "candidates") {
    candidate = (await ctx.read<{ record: Rec }>("get_record", { resource: "candidates", id: kept.id }))
      .record;
  } else {
    const resolved = await resolveName(ctx, ["candidates", "contacts"], { spans, optional: true });
    if (!resolved) return null;
    if (resolved.resource === "contacts") return contactAnswer(ctx, resolved.record, alsoMatching(resolved));
    candidate = resolved.record;
    also = alsoMatching(resolved);
  }
  return candidateAnswer(ctx, candidate, also);
}
