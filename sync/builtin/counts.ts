import type { CountResult } from "../tools/records.ts";
import type { Filters, ResourceName } from "../tools/resources.ts";
import type { PlanContext } from "./context.ts";

/**
 * `count_records` per value of one field (a stage, a status), in the order of `values` (the
 * lifecycle's, not the alphabet's), values with nothing in them left out.
 */
export async function countPer(
  ctx: PlanContext,
  resource: ResourceName,
  field: string,
  values: readonly string[],
  query: { filters?: Filters; q?: string } = {},
): Promise<{ total: number; groups: Array<{ key: string; count: number }> }> {
  const counted = await ctx.read<CountResult>("count_records", {
    resource,
    ...(query.filters ? { filters: query.filters } : {}),
    ...(query.q ? { q: query.q } : {}),
    group_by: field,
  });
  return { total: counted.total, groups: inOrder(counted.groups ?? [], values) };
}

export function inOrder(
  groups: ReadonlyArray<{ key: string | null; count: number }>,
  values: readonly string[],
): Array<{ key: string; count: number }> {
  return values
    .map((value) => ({ key: value, count: groups.find((group) => group.key === value)?.count ?? 0 }))
    .filter((group) => group.count > 0);
}
