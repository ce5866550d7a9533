import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { hasScope } from "../../engines/tenancy/scopes.ts";
import { engineOf, perResource, sourcesOf } from "./records.ts";
import {
  definitionOf,
  labelOf,
  RESOURCE_NAMES,
  ResourceNameSchema,
  serviceOf,
  type ResourceName,
} from "./resources.ts";
import type { ReadTool, ToolContext } from "./types.ts";

/**
 * Finding one record the way a person names it: by id, by invoice number, or by name with small
 * typos ("Kestral Robotics" finds "Kestrel Robotics"), and a search across every resource the
 * caller may read.
 */

const GetArgs = z
  .object({
    resource: ResourceNameSchema,
    id: z.string().max(64).optional(),
    number: z.string().max(64).optional().meta({ description: "An invoice number, e.g. INV-000030" }),
    name: z
      .string()
      .max(200)
      .optional()
      .meta({ description: "A name, title or client as a person wrote it (small typos are resolved)" }),
  })
  .strict()
  .refine((args) => args.id ?? args.number ?? args.name, "give id, number or name");
type GetArgs = z.infer<typeof GetArgs>;

export interface GetResult {
  resource: ResourceName;
  record: Record<string, unknown>;
  /** Other records the name could mean, best first (only for a name). */
  others?: Array<Record<string, unknown>>;
}

/** Where a record's name lives, per resource, for a lookup by name. */
const NAME_COLUMNS: Record<ResourceName, string> = {
  invoices: "client",
  products: "name",
  payments: "reference",
  contacts: "name",
  deals: "title",
  communications: "subject",
  candidates: "name",
  skills: "name",
};

export const getRecord = {
  name: "get_record",
  description:
    "One record by id, by invoice number, or by name (a contact, company, candidate, deal title, product; typos resolved).",
  access: "read",
  ...perResource,
  parameters: GetArgs,
  async run(ctx: ToolContext, args: GetArgs) {
    const service = serviceOf(ctx, args.resource);
    if (args.id) {
      const record = await service.get(ctx.orgId, args.id);
      return { result: { resource: args.resource, record }, sources: sourcesOf([record]) };
    }
    if (args.number) {
      const record = await byNumber(ctx, args.number);
      return { result: { resource: "invoices" as const, record }, sources: sourcesOf([record]) };
    }
    const found = await findByName(ctx, args.resource, args.name!);
    if (found.length === 0) {
      throw new AppError("not_found", `No ${args.resource} named '${args.name}'`);
    }
    const [record, ...others] = found;
    return {
      result: { resource: args.resource, record: record!, ...(others.length ? { others } : {}) },
      sources: sourcesOf([record!]),
    };
  },
} satisfies ReadTool<GetArgs, GetResult>;

async function byNumber(ctx: ToolContext, number: string): Promise<Record<string, unknown>> {
  const wanted = number.trim().toUpperCase();
  const [row] = await ctx.store.query<{ id: string }>(
    "SELECT id FROM invoices WHERE org_id = $1 AND upper(number) = $2 LIMIT 1",
    [ctx.orgId, wanted],
  );
  if (!row) throw new AppError("not_found", `No invoice numbered '${number}'`);
  return serviceOf(ctx, "invoices").get(ctx.orgId, row.id);
}

/**
 * Records whose name is this one, best first: exact (any case), then containing it, then the
 * nearest by edit distance (at most a fifth of the name's letters wrong). The typo pass reads the
 * distinct names of the resource (one column, its organization's only).
 */
export async function findByName(
  ctx: ToolContext,
  resource: ResourceName,
  name: string,
): Promise<Array<Record<string, unknown>>> {
  const column = NAME_COLUMNS[resource];
  const table = definitionOf(ctx, resource).table ?? definitionOf(ctx, resource).name;
  const wanted = name.trim();
  let rows = await ctx.store.query<{ id: string }>(
    `SELECT id FROM ${table} WHERE org_id = $1 AND lower(${column}) = lower($2) ORDER BY created_at DESC LIMIT 5`,
    [ctx.orgId, wanted],
  );
  if (rows.length === 0) {
    const like = `%${wanted.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    rows = await ctx.store.query<{ id: string }>(
      `SELECT id FROM ${table} WHERE org_id = $1 AND ${column} ILIKE $2 ORDER BY length(${column}), created_at DESC LIMIT 5`,
      [ctx.orgId, like],
    );
  }
  if (rows.length === 0) {
    const names = await ctx.store.query<{ name: string }>(
      `SELECT DISTINCT ${column} AS name FROM ${table} WHERE org_id = $1 AND ${column} IS NOT NULL`,
      [ctx.orgId],
    );
    const nearest = nearestNames(
      wanted,
      names.map((row) => row.name),
    );
    if (nearest.length > 0) {
      const found = await ctx.store.query<{ id: string; name: string }>(
        `SELECT id, ${column} AS name FROM ${table} WHERE org_id = $1 AND ${column} = ANY($2::text[]) ORDER BY created_at DESC`,
        [ctx.orgId, nearest],
      );
      // Nearest name first (the query's order is only the tie-break among records of one name).
      rows = found.sort((a, b) => nearest.indexOf(a.name) - nearest.indexOf(b.name)).slice(0, 5);
    }
  }
  const service = serviceOf(ctx, resource);
  return Promise.all(rows.map((row) => service.get(ctx.orgId, row.id)));
}

/**
 * Names within a fifth of `wanted`'s length in edits (whole name, or one of its words), nearest
 * first: "Kestral Robotcs" finds "Kestrel Robotics", "Sofia Schmidt" does not find "Mia Schmidt".
 */
export function nearestNames(wanted: string, names: readonly string[]): string[] {
  const target = wanted.toLowerCase();
  const budget = Math.max(1, Math.floor(target.length / 5));
  const scored: Array<[string, number]> = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    const words = lower.split(/\s+/);
    const distance = Math.min(
      editDistance(target, lower),
      ...words.map((word) => editDistance(target, word)),
    );
    if (distance <= budget) scored.push([name, distance]);
  }
  return scored
    .sort((a, b) => a[1] - b[1])
    .slice(0, 5)
    .map(([name]) => name);
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > Math.max(a.length, b.length) / 2) return Math.max(a.length, b.length);
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

const SearchArgs = z
  .object({
    query: z.string().min(1).max(200),
    resources: z.array(ResourceNameSchema).max(8).optional().meta({ description: "Only these resources" }),
    limit: z.number().int().min(1).max(20).optional().meta({ description: "Per resource (default 5)" }),
  })
  .strict();
type SearchArgs = z.infer<typeof SearchArgs>;

export interface SearchResult {
  matches: Array<{ resource: ResourceName; label: string; record: Record<string, unknown> }>;
  /** Resources left out because the caller may not read their engine. */
  unreadable: ResourceName[];
}

export const search = {
  name: "search",
  description:
    "Search every resource the caller may read for a text (names, emails, invoice numbers, subjects…).",
  access: "read",
  scopes: ["finance", "growth", "talent"],
  // It skips, and names, the resources whose engine the caller may not read.
  scopeOf: () => null,
  parameters: SearchArgs,
  async run(ctx: ToolContext, args: SearchArgs) {
    const wanted = args.resources ?? RESOURCE_NAMES;
    const readable = wanted.filter((resource) => hasScope(ctx.scopes, engineOf(resource), "read"));
    const matches: SearchResult["matches"] = [];
    for (const resource of readable) {
      const page = await serviceOf(ctx, resource).list(ctx.orgId, {
        page: 1,
        perPage: args.limit ?? 5,
        sort: { field: "created_at", descending: true },
        q: args.query,
        filters: {},
      });
      for (const record of page.data) {
        matches.push({ resource, label: labelOf(resource, record), record });
      }
    }
    const unreadable = wanted.filter((resource) => !readable.includes(resource));
    return { result: { matches, unreadable }, sources: sourcesOf(matches.map((match) => match.record)) };
  },
} satisfies ReadTool<SearchArgs, SearchResult>;
