import type { IntelligenceSnapshot } from "../../../engines/intelligence/schema.ts";
import type { SearchResult } from "../../tools/lookup.ts";
import type { ListResult } from "../../tools/records.ts";
import { money } from "../../tools/resources.ts";
import { bullets, itemsOf, plural, productLine } from "../answers.ts";
import type { PlanContext } from "../context.ts";
import { remember } from "../subjects.ts";
import type { Answer } from "../types.ts";

/** The latest snapshot in words, a search across every resource, and the product catalogue. */

const amounts = (values: Record<string, number>) => {
  const parts = Object.entries(values).map(([currency, amount]) => money(amount, currency));
  return parts.length > 0 ? parts.join(", ") : "nothing";
};

function financeLines(finance: IntelligenceSnapshot["finance"]): string[] {
  const dso = Object.entries(finance.dso_days)
    .map(([currency, days]) => `${currency} ${days === null ? "n/a" : `${days} days`}`)
    .join(", ");
  return [
    `Outstanding: **${amounts(finance.outstanding)}** on ${plural(finance.outstanding_count, "invoice")}`,
    `Overdue: **${amounts(finance.overdue)}** on ${plural(finance.overdue_count, "invoice")}`,
    `Collected in the last 30 days: ${amounts(finance.paid_30_days)}`,
    `Invoiced in the last 90 days: ${amounts(finance.invoiced_90_days)}`,
    `Days sales outstanding: ${dso || "n/a"}`,
  ];
}

function growthLines(growth: IntelligenceSnapshot["growth"]): string[] {
  const open = Object.entries(growth.open_deals_by_stage).map(([stage, count]) => `${stage} ${count}`);
  const value = Object.entries(growth.pipeline_value_by_stage).map(
    ([stage, values]) => `${stage} ${amounts(values)}`,
  );
  const rate = growth.win_rate === null ? "n/a" : `${(growth.win_rate * 100).toFixed(1)}%`;
  return [
    `Contacts: **${growth.contacts}** (${growth.new_contacts_30_days} new in the last 30 days)`,
    `Open deals: ${open.join(", ")}`,
    `Pipeline value: ${value.join("; ")}`,
    `Deals won: ${growth.deals_won}, lost: ${growth.deals_lost}, win rate ${rate}`,
  ];
}

function talentLines(talent: IntelligenceSnapshot["talent"]): string[] {
  const statuses = Object.entries(talent.candidates_by_status).map(([status, count]) => `${status} ${count}`);
  return [
    `Candidates: ${statuses.join(", ")}`,
    `Skills verified in the last 30 days: **${talent.skills_verified_30_days}**`,
  ];
}

export async function snapshot(ctx: PlanContext): Promise<Answer> {
  const { snapshot } = await ctx.read<{ snapshot: IntelligenceSnapshot | null }>("latest_snapshot", {});
  const memory = remember(ctx, "snapshot");
  if (!snapshot) {
    return {
      reply:
        "No intelligence snapshot has been computed yet. Ask again after the next refresh, or ask me about invoices, deals or candidates directly.",
      memory,
    };
  }
  const sections = [
    `**Latest snapshot**, computed ${snapshot.computed_at}:`,
    `**Finance**\n\n${bullets(financeLines(snapshot.finance))}`,
    `**Growth**\n\n${bullets(growthLines(snapshot.growth))}`,
    `**Talent**\n\n${bullets(talentLines(snapshot.talent))}`,
  ];
  return { reply: sections.join("\n\n"), memory };
}

const SEARCH_LEAD =
  /^(?:(?:do we have|is there|are there|have we got)\s+)?(?:search(?:\s+(?:for|everything for))?|find(?:\s+me)?|look\s+(?:up|for)|lookup|anything|everything|records?|all records)\s*(?:(?:about|on|mentioning|containing|matching|for|with|named|called)\s+)?/i;

/** What to search for: the quoted words, or what follows "find"/"search for". */
export function searchQuery(ctx: PlanContext): string {
  const quoted = ctx.analysis.entities.quoted[0];
  if (quoted) return quoted;
  return ctx.analysis.norm.text
    .replace(SEARCH_LEAD, "")
    .replace(
      /^(?:(?:anything|everything|records?)\s+)?(?:about|on|mentioning|containing|matching|for)\s+/i,
      "",
    )
    .replace(/\s+(?:in|across)\s+(?:the\s+)?(?:data|records|everything|all data)$/i, "")
    .replace(/[?.!]+$/, "")
    .trim();
}

export async function search(ctx: PlanContext): Promise<Answer> {
  const query = searchQuery(ctx).slice(0, 200);
  if (!query)
    return { reply: "What should I search for? For example: “find Kestrel” or “search for INV-000030”." };
  const result = await ctx.read<SearchResult>("search", { query, limit: 5 });
  const unreadable =
    result.unreadable.length > 0
      ? `\n\n_This key cannot read ${result.unreadable.join(", ")}, so those were not searched._`
      : "";
  const items = result.matches.map((match) => ({
    resource: match.resource,
    id: String(match.record.id),
    label: match.label,
  }));
  const memory = remember(ctx, "search", {
    ...(items.length > 0
      ? {
          list: {
            resource: result.matches[0]!.resource,
            filters: {},
            q: query,
            total: items.length,
            shown: Math.min(10, items.length),
            items: items.slice(0, 50),
          },
        }
      : {}),
  });
  if (items.length === 0) return { reply: `Nothing matches “${query}”.${unreadable}`, memory };
  const lines = result.matches.map((match) => `${match.resource.replace(/s$/, "")}: **${match.label}**`);
  return {
    reply: `**${plural(items.length, "match", "matches")}** for “${query}”:\n\n${bullets(lines, items.length)}${unreadable}`,
    memory,
  };
}

export async function products(ctx: PlanContext): Promise<Answer> {
  const list = await ctx.read<ListResult>("list_records", { resource: "products", sort: "name", limit: 50 });
  const memory = remember(ctx, "products", {
    list: {
      resource: "products",
      filters: {},
      sort: "name",
      total: list.total,
      shown: Math.min(10, list.total),
      items: itemsOf("products", list.records),
    },
  });
  if (list.total === 0) return { reply: "There are no products in the catalogue yet.", memory };
  const head = `You have **${plural(list.total, "product")}** in the catalogue:`;
  return { reply: `${head}\n\n${bullets(list.records.map(productLine), list.total)}`, memory };
}
