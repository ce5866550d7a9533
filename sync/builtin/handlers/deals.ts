import type { Condition } from "../../tools/query.ts";
import type { ListResult, SumResult } from "../../tools/records.ts";
import type { Filters } from "../../tools/resources.ts";
import { bullets, countOf, dealLine, itemsOf, plural, str, totalsText, type MoneyTotal } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { countPer } from "../counts.ts";
import { addDays } from "../dates.ts";
import { hasCue } from "../intents.ts";
import { nameSpans } from "../names.ts";
import { remember } from "../subjects.ts";
import type { Answer } from "../types.ts";

/** Deals: the pipeline per stage with its value, deals in a stage (won, lost…), the win rate. */

type Rec = Record<string, unknown>;
const STAGE_ORDER = ["lead", "qualified", "proposal", "won", "lost"];
const OPEN = ["lead", "qualified", "proposal"];

export async function pipeline(ctx: PlanContext): Promise<Answer> {
  const { stages: all } = await ctx.read<{ stages: SumResult["totals"] }>("pipeline_by_stage", {});
  // "and in dollars?": the deals priced in that currency alone.
  const currency = ctx.slots.currency;
  const stages = currency ? all.filter((row) => row.currency === currency) : all;
  const of = (stage: string) => stages.filter((row) => row.key === stage);
  const open = stages.filter((row) => OPEN.includes(String(row.key)));
  const lines = OPEN.map((stage) => {
    const rows = of(stage);
    return `${stage}: ${plural(countOf(rows), "deal")}, ${totalsText(rows, "0.00")}`;
  });
  const closed = (stage: string) => {
    const rows = of(stage);
    return `**${countOf(rows)} ${stage}** (${totalsText(rows, "nothing")})`;
  };
  const reply =
    `Your open pipeline${currency ? ` in ${currency}` : ""} is **${totalsText(open, "empty")}** across **${plural(countOf(open), "open deal")}**:\n\n` +
    `${bullets(lines)}\n\nClosed so far: ${closed("won")}, ${closed("lost")}.`;
  return { reply, memory: remember(ctx, "pipeline") };
}

async function winRate(ctx: PlanContext): Promise<Answer> {
  const counts = await countPer(ctx, "deals", "stage", ["won", "lost"]);
  const count = (stage: string) => counts.groups.find((group) => group.key === stage)?.count ?? 0;
  const won = count("won");
  const lost = count("lost");
  const memory = remember(ctx, "deals");
  if (won + lost === 0) return { reply: "No deal has closed yet, so there is no win rate.", memory };
  const rate = ((won / (won + lost)) * 100).toFixed(1);
  return {
    reply: `Your win rate is **${rate}%** (${won} of ${won + lost}): ${plural(won, "deal")} won and ${lost} lost out of ${won + lost} closed.`,
    memory,
  };
}

/** Closed deals in a period: closed_at has no filter, so a list of up to 50 is narrowed here. */
function closedWithin(records: Rec[], from: string, to: string): Rec[] {
  return records.filter((deal) => {
    const closed = str(deal.closed_at).slice(0, 10);
    return closed >= from && closed <= to;
  });
}

function stageWords(stages: readonly string[]): string {
  const sorted = [...stages].sort().join(",");
  if (sorted === "lead,proposal,qualified") return "open ";
  return stages.length > 0 ? `${stages.join(" or ")} ` : "";
}

export async function deals(ctx: PlanContext): Promise<Answer> {
  if (hasCue(ctx.analysis, "win rate") || hasCue(ctx.analysis, "conversion")) return winRate(ctx);
  const stages = [...ctx.slots.dealStages].sort((a, b) => STAGE_ORDER.indexOf(a) - STAGE_ORDER.indexOf(b));
  const q = nameSpans(ctx).find((span) => span.strong)?.text;
  const currency = ctx.slots.currency;
  const filters: Filters = {
    ...(stages.length > 0 ? { stage: stages } : {}),
    ...(currency ? { currency } : {}),
  };
  const query = { resource: "deals", filters, ...(q ? { q } : {}) };
  const list = await ctx.read<ListResult>("list_records", { ...query, sort: "-value", limit: 50 });
  let records = list.records;
  let total = list.total;
  let totals: MoneyTotal[];
  const period = ctx.slots.past;
  const closedOnly = stages.length > 0 && stages.every((stage) => stage === "won" || stage === "lost");
  let when = "";
  if (period && closedOnly && list.total <= 50) {
    records = closedWithin(list.records, period.range.from, period.range.to);
    total = records.length;
    totals = records.map((deal) => ({
      currency: String(deal.currency),
      amount: String(deal.value),
      count: 1,
    }));
    when = ` closed ${period.range.label}`;
  } else {
    totals = (await ctx.read<SumResult>("sum_amounts", { ...query, field: "value" })).totals;
  }
  // Closed in a period is narrowed here, not by the tool: the list says so in query terms, so "how much is
  // that altogether" adds up the deals shown, not every won deal.
  const where: Condition[] | undefined =
    when && period
      ? [
          { field: "stage", op: "in", value: stages },
          ...(currency ? [{ field: "currency", op: "eq" as const, value: currency }] : []),
          { field: "closed_at", op: "gte", value: period.range.from },
          { field: "closed_at", op: "lt", value: addDays(period.range.to, 1) },
        ]
      : undefined;
  const memory = remember(ctx, "deals", {
    list: {
      resource: "deals",
      filters,
      ...(where ? { where } : {}),
      ...(q ? { q } : {}),
      sort: "-value",
      total,
      shown: Math.min(10, total),
      items: itemsOf("deals", records),
      field: "value",
    },
  });
  const kind = `${stageWords(stages)}deal`;
  const about = q ? ` matching “${q}”` : "";
  if (total === 0) return { reply: `There are no ${kind}s${about}${when}.`, memory };
  const head =
    ctx.slots.facet === "sum"
      ? `Your ${kind}s${about}${when} are worth **${totalsText(totals)}** (**${total}** ${total === 1 ? "deal" : "deals"}):`
      : `**${plural(total, kind)}**${about}${when}, worth **${totalsText(totals)}**:`;
  return { reply: `${head}\n\n${bullets(records.map(dealLine), total)}`, memory };
}
