import { DEAL_LIFECYCLE, type DealStage } from "../../../engines/growth/deals.ts";
import {
  CANDIDATE_LIFECYCLE,
  CANDIDATE_STATUSES,
  type CandidateStatus,
} from "../../../engines/talent/candidates.ts";
import { editDistance } from "../../tools/lookup.ts";
import type { ListResult } from "../../tools/records.ts";
import { labelOf, type ResourceName } from "../../tools/resources.ts";
import { itemsOf } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { nameSpans, namedOutright, passingSpans, resolveName } from "../names.ts";
import { fold } from "../normalize.ts";
import type { Answer, Item } from "../types.ts";
import { CANDIDATE_STATUS_WORDS, DEAL_STAGE_WORDS, findPhrases } from "../vocabulary.ts";
import { ask, assertMayWrite, proposeAll, referenced } from "./proposals.ts";

/**
 * Proposals that move a record along its lifecycle: a deal to another stage, a candidate to
 * another status, a claimed skill to verified. The record is found by name (or "it", "the
 * second one"); when a name fits several, the one that can make the move is taken, and when
 * that still leaves several, the user is asked which.
 */

type Rec = Record<string, unknown>;

/** The stage or status after "to"/"as"/"into" when several are named ("from screening to interview"). */
function target<V>(
  ctx: PlanContext,
  table: ReadonlyArray<readonly [string, readonly V[]]>,
  named: readonly V[],
  implied?: V,
): V | undefined {
  // A command said in passing is read alone: "she declined the offer, reject her" is no offer.
  const lower = ctx.analysis.norm.lower.slice(ctx.analysis.commandAt ?? 0);
  const after = /\b(?:to|as|into|in)\s+(?:the\s+|a\s+|an\s+)?(.+)$/.exec(lower)?.[1];
  const found = after ? findPhrases(after, table) : [];
  const single = found.length > 0 ? found[0]!.value : [];
  if (single.length === 1) return single[0];
  if (ctx.analysis.commandAt !== undefined) {
    const said = [...new Set(findPhrases(lower, table).flatMap((phrase) => [...phrase.value]))];
    if (said.length === 1) return said[0];
  }
  // "decline her", "hire him": the verb says the status when no status word does.
  if (implied !== undefined && (ctx.analysis.commandAt !== undefined || named.length !== 1)) return implied;
  return named.length === 1 ? named[0] : undefined;
}

const POINTING = /\b(?:it|this|that|this one|that one|him|her|his|their|its|she|he|they|them)\b/;

async function fetched(ctx: PlanContext, resource: ResourceName, items: readonly Item[]): Promise<Rec[]> {
  const records: Rec[] = [];
  for (const item of items.slice(0, 10)) {
    records.push((await ctx.read<{ record: Rec }>("get_record", { resource, id: item.id })).record);
  }
  return records;
}

async function dealsOf(ctx: PlanContext, contactId: string): Promise<Rec[]> {
  const deals = await ctx.read<ListResult>("list_records", {
    resource: "deals",
    filters: { contact_id: contactId },
    limit: 20,
  });
  return deals.records;
}

/**
 * The records a command said in passing is about: one named in the message (a deal also by its
 * contact's name) beats the memory; then "it", "her", "their deal" from the last reply; then,
 * when it showed a list, its records of that kind, for `choose` to settle or to ask about.
 */
async function passingRecords(ctx: PlanContext, resource: ResourceName): Promise<Rec[]> {
  const named = await resolveName(ctx, [resource], { spans: passingSpans(ctx) });
  if (named && namedOutright(named)) return [named.record, ...named.others];
  if (resource === "deals") {
    const contact = await resolveName(ctx, ["contacts"], { spans: passingSpans(ctx), optional: true });
    if (contact && namedOutright(contact) && contact.others.length === 0)
      return dealsOf(ctx, String(contact.record.id));
  }
  const pointed = referenced(ctx, resource);
  if (pointed) return fetched(ctx, resource, pointed);
  return pointedAround(ctx, resource);
}

/** "their deal" (the contact the last reply was about), "it" when the last reply listed several. */
async function pointedAround(ctx: PlanContext, resource: ResourceName): Promise<Rec[]> {
  const command = ctx.analysis.norm.lower.slice(ctx.analysis.commandAt ?? 0);
  const memory = ctx.memory;
  if (!memory || !POINTING.test(command)) return [];
  const about = memory.focus ?? memory.slots.subject;
  if (resource === "deals" && about?.resource === "contacts") return dealsOf(ctx, about.id);
  const listed = (memory.list?.items ?? []).filter((item) => item.resource === resource);
  return fetched(ctx, resource, listed);
}

/** The records a name fits, or what the last reply pointed to, fetched whole. */
async function candidatesFor(ctx: PlanContext, resource: ResourceName): Promise<Rec[]> {
  if (ctx.analysis.commandAt !== undefined) return passingRecords(ctx, resource);
  const pointed = referenced(ctx, resource);
  if (pointed && pointed.length === 1) {
    const { record } = await ctx.read<{ record: Rec }>("get_record", { resource, id: pointed[0]!.id });
    return [record];
  }
  const resolved = await resolveName(ctx, [resource]);
  return resolved ? [resolved.record, ...resolved.others] : pointedAround(ctx, resource);
}

function choose<S extends string>(
  ctx: PlanContext,
  records: Rec[],
  field: string,
  to: S,
  canMove: (from: S, to: S) => boolean,
): Rec | undefined {
  if (records.length === 1) return records[0];
  const movable = records.filter((record) => canMove(record[field] as S, to));
  return movable.length === 1 ? movable[0] : undefined;
}

function which(
  ctx: PlanContext,
  resource: ResourceName,
  records: Rec[],
  field: string,
  intent: string,
): Answer {
  const items = itemsOf(resource, records);
  const lines = records.map(
    (record, index) => `${index + 1}. ${labelOf(resource, record)} (${String(record[field])})`,
  );
  return ask(ctx, `That fits more than one. Which one do you mean?\n\n${lines.join("\n")}`, intent, items);
}

async function move<S extends string>(
  ctx: PlanContext,
  options: {
    tool: string;
    resource: ResourceName;
    field: string;
    to: S;
    canMove: (from: S, to: S) => boolean;
    noun: string;
  },
): Promise<Answer> {
  const records = await candidatesFor(ctx, options.resource);
  if (records.length === 0) {
    return ask(
      ctx,
      `Which ${options.noun}? Name it, for example “move the Kestrel deal to won” or “move Ava Okafor to interview”.`,
      options.tool,
    );
  }
  const record = choose(ctx, records, options.field, options.to, options.canMove);
  if (!record && !records.some((one) => options.canMove(one[options.field] as S, options.to))) {
    const states = records.map((one) => `${labelOf(options.resource, one)} is ${String(one[options.field])}`);
    return {
      reply: `None of the ${options.noun}s that fit can move to ${options.to}: ${states.join("; ")}. I have not proposed anything.`,
      failed: true,
    };
  }
  if (!record) return which(ctx, options.resource, records, options.field, options.tool);
  const from = record[options.field] as S;
  const label = labelOf(options.resource, record);
  if (from === options.to)
    return { reply: `${label} is already ${options.to}; nothing to change.`, failed: true };
  if (!options.canMove(from, options.to)) {
    return {
      reply: `${label} is ${from}, and a ${options.noun} cannot go from ${from} to ${options.to}, so I have not proposed it.`,
      failed: true,
    };
  }
  const args = { id: String(record.id), [options.field]: options.to };
  return proposeAll(ctx, [{ tool: options.tool, args, label }], options.tool);
}

export async function moveDeal(ctx: PlanContext): Promise<Answer> {
  assertMayWrite(ctx, "move_deal", {});
  const to = target<DealStage>(ctx, DEAL_STAGE_WORDS, ctx.analysis.entities.dealStages);
  if (!to)
    return ask(
      ctx,
      "Which stage should the deal move to: lead, qualified, proposal, won or lost?",
      "move_deal",
    );
  return move(ctx, {
    tool: "move_deal",
    resource: "deals",
    field: "stage",
    to,
    canMove: (from, to) => DEAL_LIFECYCLE.canMove(from, to),
    noun: "deal",
  });
}

const FORWARD =
  /\b(?:advance|progress|promote|push|bump|move (?:\w+ )*(?:forward|on|ahead|along)|next (?:stage|step|status))\b/;

const VERB_STATUS: Readonly<Record<string, CandidateStatus>> = {
  reject: "rejected",
  decline: "rejected",
  hire: "hired",
};

export async function setCandidateStatus(ctx: PlanContext): Promise<Answer> {
  assertMayWrite(ctx, "set_candidate_status", {});
  const implied = VERB_STATUS[ctx.analysis.verb ?? ""];
  let to = target<CandidateStatus>(
    ctx,
    CANDIDATE_STATUS_WORDS,
    ctx.analysis.entities.candidateStatuses,
    implied,
  );
  if (!to && FORWARD.test(ctx.analysis.norm.lower)) {
    const [record] = await candidatesFor(ctx, "candidates");
    const next = record
      ? CANDIDATE_STATUSES[CANDIDATE_STATUSES.indexOf(record.status as CandidateStatus) + 1]
      : undefined;
    if (next && next !== "rejected") to = next;
  }
  if (!to) {
    return ask(
      ctx,
      "Which status should the candidate move to: screening, interview, offer, hired or rejected?",
      "set_candidate_status",
    );
  }
  return move(ctx, {
    tool: "set_candidate_status",
    resource: "candidates",
    field: "status",
    to,
    canMove: (from, to) => CANDIDATE_LIFECYCLE.canMove(from, to),
    noun: "candidate",
  });
}

/** The candidate's skill the message names ("TypeScript", "node js"), by its words or its nearest spelling. */
function skillNamed(ctx: PlanContext, skills: Rec[]): Rec | undefined {
  const text = ` ${fold(ctx.analysis.norm.text).replace(/[^\p{L}\p{N}.+#]+/gu, " ")} `;
  const byName = [...skills]
    .sort((a, b) => String(b.name).length - String(a.name).length)
    .find(
      (skill) =>
        text.includes(` ${fold(String(skill.name))} `) ||
        text.includes(` ${fold(String(skill.name)).replace(/[.\s]+/g, "")} `),
    );
  return byName;
}

export async function verifySkill(ctx: PlanContext): Promise<Answer> {
  assertMayWrite(ctx, "verify_skill", {});
  const verifiedBy = /\bverified by\s+([^,.;]{2,80})/i.exec(ctx.analysis.norm.text)?.[1]?.trim();
  const extra = verifiedBy ? { verified_by: verifiedBy } : {};
  const pointed = referenced(ctx, "skills");
  if (pointed?.length === 1) {
    return proposeAll(
      ctx,
      [{ tool: "verify_skill", args: { id: pointed[0]!.id, ...extra }, label: pointed[0]!.label }],
      "verify_skill",
    );
  }
  const people = await candidatesFor(ctx, "candidates");
  if (people.length === 0)
    return ask(
      ctx,
      "Whose skill should I verify? For example “verify Liam Moreau's TypeScript skill”.",
      "verify_skill",
    );
  if (people.length > 1) return which(ctx, "candidates", people, "status", "verify_skill");
  const candidate = people[0]!;
  const skills = await ctx.read<ListResult>("list_records", {
    resource: "skills",
    filters: { candidate_id: String(candidate.id) },
    sort: "name",
    limit: 50,
  });
  const skill = skillNamed(ctx, skills.records) ?? nearestSkill(ctx, skills.records);
  if (!skill) {
    const claimed = skills.records.filter((record) => record.status === "claimed");
    const names = claimed.map((record, index) => `${index + 1}. ${String(record.name)}`).join("\n");
    const question = claimed.length
      ? `Which of ${String(candidate.name)}'s skills? The ones still claimed:\n\n${names}`
      : `${String(candidate.name)} has no claimed skill left to verify.`;
    return ask(ctx, question, "verify_skill", itemsOf("skills", claimed));
  }
  const label = `${String(skill.name)} (${String(candidate.name)})`;
  return proposeAll(
    ctx,
    [{ tool: "verify_skill", args: { id: String(skill.id), ...extra }, label }],
    "verify_skill",
  );
}

/** A skill written with a typo: the nearest of the candidate's skills to a name left in the message. */
function nearestSkill(ctx: PlanContext, skills: Rec[]): Rec | undefined {
  const spans = nameSpans(ctx).map((span) => fold(span.text));
  return skills.find((skill) => {
    const name = fold(String(skill.name));
    return spans.some((span) =>
      span
        .split(" ")
        .some(
          (word) => word.length >= 3 && editDistance(word, name) <= Math.max(1, Math.floor(name.length / 4)),
        ),
    );
  });
}
