import { CANDIDATE_STATUSES } from "../../../engines/talent/candidates.ts";
import type { ListResult } from "../../tools/records.ts";
import type { Filters } from "../../tools/resources.ts";
import { bullets, candidateLine, day, itemsOf, plural, skillLine, str } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { countPer, inOrder } from "../counts.ts";
import { nameSpans, resolveName } from "../names.ts";
import { alsoMatching, recordSubject, remember } from "../subjects.ts";
import type { Answer } from "../types.ts";
import { skills } from "./skills.ts";

/** Candidates: the hiring funnel per status, who is in a status, one candidate with their skills. */

type Rec = Record<string, unknown>;

const STATUS_PHRASES: Record<string, string> = {
  applied: "applied",
  screening: "in screening",
  interview: "in interview",
  offer: "with an offer",
  hired: "hired",
  rejected: "rejected",
};

const ROLE = /\bfor (?:the |a |an )?([\p{L} ]+?) (?:role|position|job|opening)s?\b/iu;

/** A candidate, a skill or a role the question names, answered here, or the text to search for. */
async function named(ctx: PlanContext, statuses: readonly string[]): Promise<Answer | { q?: string }> {
  const strong = nameSpans(ctx).filter((span) => span.strong);
  const role = ROLE.exec(ctx.analysis.norm.text)?.[1];
  if (role) return { q: role };
  if (strong.length === 0) return {};
  const person = await resolveName(ctx, ["candidates"], { spans: strong });
  if (person && statuses.length === 0) return candidateAnswer(ctx, person.record, alsoMatching(person));
  if (person) {
    const status = String(person.record.status);
    const is = statuses.includes(status)
      ? ""
      : `, not ${statuses.map((one) => STATUS_PHRASES[one] ?? one).join(" or ")}`;
    const answer = await candidateAnswer(ctx, person.record);
    return {
      ...answer,
      reply: `${String(person.record.name)} is ${STATUS_PHRASES[status] ?? status}${is}.\n\n${answer.reply}`,
    };
  }
  const skill = await resolveName(ctx, ["skills"], { spans: strong, optional: true });
  const bySkill = skill ? await skills(ctx) : null;
  return bySkill ?? { q: strong[0]!.text };
}

async function funnel(ctx: PlanContext, q: string | undefined): Promise<Answer> {
  const counts = q
    ? await countPer(ctx, "candidates", "status", CANDIDATE_STATUSES, { q })
    : await ctx
        .read<{ total: number; statuses: Array<{ key: string | null; count: number }> }>(
          "candidates_by_status",
          {},
        )
        .then((result) => ({ total: result.total, groups: inOrder(result.statuses, CANDIDATE_STATUSES) }));
  const parts = counts.groups.map(
    (group) => `${group.count} ${STATUS_PHRASES[String(group.key)] ?? String(group.key)}`,
  );
  const about = q ? ` matching “${q}”` : "";
  const reply = `You have **${plural(counts.total, "candidate")}**${about}${parts.length > 0 ? `: ${parts.join(", ")}` : ""}.`;
  return { reply, memory: remember(ctx, "candidates") };
}

export async function candidates(ctx: PlanContext): Promise<Answer> {
  // "who applied for the designer job" asks for the job's candidates, whatever their status.
  const appliedFor = /\bappl(?:ied|ying) for\b/.test(ctx.analysis.norm.lower);
  const statuses = [...ctx.slots.candidateStatuses]
    .filter((status) => !(appliedFor && status === "applied"))
    .sort((a, b) => CANDIDATE_STATUSES.indexOf(a) - CANDIDATE_STATUSES.indexOf(b));
  const found = await named(ctx, statuses);
  if ("reply" in found) return found;
  const q = found.q;
  if (statuses.length === 0 && ctx.slots.facet !== "list" && !q) return funnel(ctx, q);
  const about = q ? ` matching “${q}”` : "";
  const filters: Filters = statuses.length > 0 ? { status: statuses } : {};
  const list = await ctx.read<ListResult>("list_records", {
    resource: "candidates",
    filters,
    ...(q ? { q } : {}),
    sort: "name",
    limit: 50,
  });
  const memory = remember(ctx, "candidates", {
    list: {
      resource: "candidates",
      filters,
      ...(q ? { q } : {}),
      sort: "name",
      total: list.total,
      shown: Math.min(10, list.total),
      items: itemsOf("candidates", list.records),
    },
  });
  const where = statuses.map((status) => STATUS_PHRASES[status] ?? status).join(" or ");
  if (list.total === 0) return { reply: `No candidates${about} are ${where || "on record"}.`, memory };
  const verb = list.total === 1 ? "is" : "are";
  const head = where
    ? `**${plural(list.total, "candidate")}**${about} ${verb} ${where}:`
    : `**${plural(list.total, "candidate")}**${about}:`;
  return { reply: `${head}\n\n${bullets(list.records.map(candidateLine), list.total)}`, memory };
}

export function candidateCard(candidate: Rec): string[] {
  return [
    `Status: **${String(candidate.status)}**`,
    `Email: ${String(candidate.email)}`,
    `Phone: ${str(candidate.phone) || "—"}`,
    `Source: ${str(candidate.source) || "—"}`,
    `Applied: ${day(candidate.applied_at)}`,
  ];
}

export async function candidateAnswer(ctx: PlanContext, candidate: Rec, also = ""): Promise<Answer> {
  const skills = await ctx.read<ListResult>("list_records", {
    resource: "skills",
    filters: { candidate_id: String(candidate.id) },
    sort: "name",
    limit: 50,
  });
  const skillLines = skills.records.map((skill) => skillLine(skill));
  const skillText =
    skills.total === 0
      ? "No skills on record."
      : `Skills: **${skills.total}**\n\n${bullets(skillLines, skills.total, 20)}`;
  const reply =
    `**${String(candidate.name)}** — ${String(candidate.position)}\n\n${bullets(candidateCard(candidate))}\n\n${skillText}` +
    also;
  const memory = remember(ctx, "candidate_detail", {
    focus: itemsOf("candidates", [candidate])[0]!,
    subject: recordSubject("candidates", candidate),
    list: {
      resource: "skills",
      filters: { candidate_id: String(candidate.id) },
      sort: "name",
      total: skills.total,
      shown: Math.min(20, skills.total),
      items: itemsOf("skills", skills.records),
    },
  });
  return { reply, memory };
}
