import type { ListResult } from "../../tools/records.ts";
import type { Filters } from "../../tools/resources.ts";
import { bullets, itemsOf, plural, skillLine } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { countPer } from "../counts.ts";
import { nameSpans, resolveName } from "../names.ts";
import { remember } from "../subjects.ts";
import type { Answer } from "../types.ts";
import { receivedFilters } from "./payments.ts";

/** Skills: those verified lately (or in a period), and who has a given skill. */

type Rec = Record<string, unknown>;

/** The skill named in the message ("TypeScript"), as stored. */
async function skillName(ctx: PlanContext): Promise<string | undefined> {
  const resolved = await resolveName(ctx, ["skills"]);
  return resolved ? String(resolved.record.name) : undefined;
}

async function candidateNames(ctx: PlanContext, skills: Rec[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const id of new Set(skills.slice(0, 20).map((skill) => String(skill.candidate_id)))) {
    const { record } = await ctx.read<{ record: Rec }>("get_record", { resource: "candidates", id });
    names.set(id, String(record.name));
  }
  return names;
}

async function skillsAnswer(
  ctx: PlanContext,
  intent: string,
  list: ListResult,
  filters: Filters,
  texts: { none: string; head: string },
): Promise<Answer> {
  const memory = remember(ctx, intent, {
    list: {
      resource: "skills",
      filters,
      sort: "-verified_at",
      total: list.total,
      shown: Math.min(10, list.total),
      items: itemsOf("skills", list.records),
    },
  });
  if (list.total === 0) return { reply: texts.none, memory };
  const names = await candidateNames(ctx, list.records);
  const lines = list.records.map((skill) => skillLine(skill, names.get(String(skill.candidate_id))));
  return { reply: `${texts.head}\n\n${bullets(lines, list.total)}`, memory };
}

export async function skillsVerified(ctx: PlanContext): Promise<Answer> {
  const name = await skillName(ctx);
  const period = ctx.slots.past;
  const today = ctx.turn.today;
  const label =
    period?.range.label ??
    `in the last 30 days (${new Date(ctx.turn.now.getTime() - 30 * 86_400_000).toISOString().slice(0, 10)} to ${today})`;
  let list: ListResult;
  let filters: Filters;
  if (!name && (!period || period.days !== undefined)) {
    const result = await ctx.read<{ since: string; total: number; skills: Rec[] }>("skills_verified", {
      days: Math.min(3650, Math.max(1, period?.days ?? 30)),
      limit: 50,
    });
    filters = { status: "verified", verified_after: result.since };
    list = { resource: "skills", total: result.total, records: result.skills };
  } else {
    // skills_verified's `name` matches any skill containing it ("SQL" finds PostgreSQL): the exact filter instead.
    const window = receivedFilters(
      period ?? { range: { from: today, to: today, label }, days: 30 },
      ctx.turn.now,
    );
    filters = {
      status: "verified",
      ...(window.received_after ? { verified_after: window.received_after } : {}),
      ...(window.received_before ? { verified_before: window.received_before } : {}),
      ...(name ? { name } : {}),
    };
    list = await ctx.read<ListResult>("list_records", {
      resource: "skills",
      filters,
      sort: "-verified_at",
      limit: 50,
    });
  }
  const what = name ? `${name} skill` : "skill";
  return skillsAnswer(ctx, "skills_verified", list, filters, {
    none: `No ${what}s were verified ${label}.`,
    head: `**${plural(list.total, what)}** verified ${label}:`,
  });
}

export async function skills(ctx: PlanContext): Promise<Answer | null> {
  const name = await skillName(ctx);
  const status = ctx.slots.skillStatuses.length === 1 ? ctx.slots.skillStatuses[0] : undefined;
  // "Mia Haddad's skills": a person, not a skill; the candidate's answer has them.
  if (!name && nameSpans(ctx).length > 0) return null;
  if (!name && !status) {
    const counts = await countPer(ctx, "skills", "status", ["verified", "claimed"]);
    const parts = counts.groups.map((group) => `${group.count} ${String(group.key)}`);
    return {
      reply: `There are **${plural(counts.total, "skill")}** on record${parts.length ? `: ${parts.join(", ")}` : ""}.`,
      memory: remember(ctx, "skills"),
    };
  }
  const filters: Filters = { ...(name ? { name } : {}), ...(status ? { status } : {}) };
  const list = await ctx.read<ListResult>("list_records", {
    resource: "skills",
    filters,
    sort: "name",
    limit: 50,
  });
  const what = `${status ? `${status} ` : ""}${name ?? ""}`.trim() || "skills";
  return skillsAnswer(ctx, "skills", list, filters, {
    none: `No candidate has a ${what} skill on record.`,
    head: name
      ? `**${plural(list.total, "candidate")}** ${list.total === 1 ? "lists" : "list"} ${what}:`
      : `**${plural(list.total, `${status} skill`)}**:`,
  });
}
