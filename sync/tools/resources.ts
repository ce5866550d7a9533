import { z } from "zod";
import { AppError } from "../../core/index.ts";
import type { ListQuery } from "../../engines/list-query.ts";
import type { ResourceService } from "../../engines/resource.ts";
import type { AppliedChange, ToolContext } from "./types.ts";

/** The resources SYNC reads and writes: every engine's (ARCHITECTURE.md, "Engines and resources"). */
export const RESOURCE_NAMES = [
  "invoices",
  "products",
  "payments",
  "contacts",
  "deals",
  "communications",
  "candidates",
  "skills",
] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];
export const ResourceNameSchema = z.enum(RESOURCE_NAMES);

/** Filters as the REST API's query takes them: one value or several (enum filters). */
export const FiltersSchema = z.record(z.string(), z.union([z.string(), z.array(z.string()).max(20)])).meta({
  description: 'The resource\'s list filters, as GET /v1/<resource> takes them, e.g. {"status": "overdue"}',
});
export type Filters = z.infer<typeof FiltersSchema>;

/** How a record is named in words, for previews and replies. */
export const LABEL_FIELDS: Record<ResourceName, readonly string[]> = {
  invoices: ["number", "client"],
  products: ["name"],
  payments: ["id"],
  contacts: ["name", "company"],
  deals: ["title"],
  communications: ["subject", "channel"],
  candidates: ["name", "position"],
  skills: ["name"],
};

/** A record as the REST API renders it: whatever the resource, it has an `id` and an `object`. */
export type ApiRecord = AppliedChange["object"];

/**
 * A resource's service as the tools use it, typed once here (`serviceOf`): the registry holds every
 * resource's (`AnyResourceService`), so a tool sees records and bodies as JSON, which the service
 * validates and renders.
 */
export type RecordService = ResourceService<ApiRecord, Record<string, unknown>, Record<string, unknown>>;

export function serviceOf(ctx: ToolContext, resource: ResourceName): RecordService {
  const service: RecordService | undefined = ctx.services.get(resource);
  if (!service) throw new AppError("internal", `no service for ${resource}`);
  return service;
}

export function definitionOf(ctx: ToolContext, resource: ResourceName): RecordService["definition"] {
  return serviceOf(ctx, resource).definition;
}

/**
 * A list query from a tool's arguments, every filter checked as the REST API checks its query
 * (an unknown filter or enum value is a `validation_failed` naming it, for a model to correct).
 */
export function listQueryOf(
  ctx: ToolContext,
  resource: ResourceName,
  args: {
    filters?: Filters | undefined;
    q?: string | undefined;
    sort?: string | undefined;
    limit?: number | undefined;
  },
): ListQuery {
  const definition = definitionOf(ctx, resource);
  const filters: Record<string, string[]> = {};
  for (const [name, raw] of Object.entries(args.filters ?? {})) {
    const filter = definition.filters[name];
    if (!filter) {
      const known = Object.keys(definition.filters).join(", ") || "none";
      throw new AppError("validation_failed", `${resource} has no filter '${name}' (filters: ${known})`);
    }
    const values = (Array.isArray(raw) ? raw : raw.split(",")).map((value) => value.trim()).filter(Boolean);
    const allowed = filter.kind === "enum" || filter.kind === "custom" ? filter.values : undefined;
    const wrong = allowed ? values.find((value) => !allowed.includes(value)) : undefined;
    if (wrong !== undefined) {
      throw new AppError(
        "validation_failed",
        `'${wrong}' is not a ${name} of ${resource} (one of: ${allowed!.join(", ")})`,
      );
    }
    if (
      (filter.kind === "date" || filter.kind === "instant") &&
      !/^\d{4}-\d{2}-\d{2}/.test(values[0] ?? "")
    ) {
      throw new AppError("validation_failed", `${name} takes a date, YYYY-MM-DD`);
    }
    filters[name] = values;
  }
  const sort = args.sort ?? "-created_at";
  const field = sort.replace(/^-/, "");
  if (!(field in definition.sorts)) {
    const known = Object.keys(definition.sorts).join(", ");
    throw new AppError("validation_failed", `${resource} cannot be sorted by '${field}' (by: ${known})`);
  }
  return {
    page: 1,
    perPage: args.limit ?? 10,
    sort: { field, descending: sort.startsWith("-") },
    ...(args.q ? { q: args.q } : {}),
    filters,
  };
}

/** "INV-000030 (Kestrel Robotics)", "Ada Lovelace (Analytical Ltd)", "deal “Q3 renewal”". */
export function labelOf(resource: ResourceName, record: Record<string, unknown>): string {
  const [main, detail] = LABEL_FIELDS[resource].map((field) => record[field]);
  const name = typeof main === "string" && main ? main : String(record.id);
  return typeof detail === "string" && detail ? `${name} (${detail})` : name;
}

/**
 * An exact amount with its currency, as a person writes it: "1,250.00 EUR". Works on the decimal
 * text (sums come from SQL `numeric`), so no amount is rounded through a float.
 */
export function money(amount: number | string, currency: string): string {
  const text = typeof amount === "number" ? String(amount) : amount;
  const negative = text.startsWith("-");
  const [whole = "0", fraction = ""] = text.replace(/^-/, "").split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const cents = fraction.length <= 2 ? fraction.padEnd(2, "0") : fraction.replace(/0+$/, "").padEnd(2, "0");
  return `${negative ? "-" : ""}${grouped}.${cents} ${currency}`;
}
