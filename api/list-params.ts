import { z } from "zod";
import { AppError, type FieldError } from "../core/index.ts";
import {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  offsetWindowProblem,
  type ListQuery,
  type ResourceDefinition,
} from "../engines/index.ts";
import { EARLIEST_INSTANT_MS, isRealDate, LATEST_INSTANT_MS } from "../engines/index.ts";

const COMMON = [
  "page",
  "per_page",
  "sort",
  "q",
  "created_after",
  "created_before",
  "updated_after",
  "updated_before",
];

/**
 * What a list takes: a resource's filters and sorts (a `ResourceDefinition` is one), and for a
 * list of the platform's, its default sort and the parameters its route reads itself.
 */
export type ListSpec = Pick<ResourceDefinition<unknown, unknown, unknown>, "filters" | "sorts"> & {
  /** The sort when none is asked for; `-created_at` (newest first) unless said. */
  defaultSort?: string;
  /** Query parameters the route reads itself (`type` of `/v1/events`): the list leaves them alone. */
  ownParams?: readonly string[];
};

/** The query parameters every list takes, for the OpenAPI document. */
export function listQuerySchema(definition: ListSpec) {
  const filters = Object.fromEntries(
    Object.entries(definition.filters).map(([name, filter]) => {
      const values = filter.kind === "enum" || filter.kind === "custom" ? filter.values : undefined;
      const description = values
        ? `One value or a comma list of: ${values.join(", ")}`
        : filter.kind === "instant"
          ? "RFC 3339 timestamp or YYYY-MM-DD (exclusive bound)"
          : filter.kind === "date"
            ? "Date YYYY-MM-DD (exclusive bound)"
            : `Filter by ${name}`;
      return [name, z.string().optional().meta({ description })];
    }),
  );
  const sorts = Object.keys(definition.sorts);
  return z.object({
    page: z.string().optional().meta({ description: "Page number, from 1", example: "1" }),
    per_page: z
      .string()
      .optional()
      .meta({ description: `Items per page, 1-${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE})` }),
    sort: z
      .string()
      .optional()
      .meta({ description: `One of ${sorts.join(", ")}; prefix - for descending` }),
    q: z.string().optional().meta({ description: "Free-text search" }),
    created_after: z.string().optional().meta({ description: "RFC 3339 timestamp or YYYY-MM-DD" }),
    created_before: z.string().optional(),
    updated_after: z.string().optional(),
    updated_before: z.string().optional(),
    ...filters,
  });
}

/**
 * Parses a list request's query string. Every mistake is a 400 naming the param:
 * a page out of range, an unknown sort field, an unknown enum value, a bad date.
 */
export function parseListQuery(params: URLSearchParams, definition: ListSpec): ListQuery {
  const errors: FieldError[] = [];
  const fail = (param: string, message: string) => errors.push({ param, code: "invalid", message });
  const own = definition.ownParams ?? [];
  for (const [name, value] of params) {
    // PostgreSQL text cannot hold U+0000: bound as a parameter, such a value fails in the store.
    if (value.includes("\u0000") && !own.includes(name)) fail(name, "must not contain NUL characters");
  }

  const page = integer(params.get("page"), 1, "page", 1, Number.MAX_SAFE_INTEGER, fail);
  const perPage = integer(params.get("per_page"), DEFAULT_PER_PAGE, "per_page", 1, MAX_PER_PAGE, fail);
  const beyond = offsetWindowProblem({ page, perPage });
  if (beyond) fail("page", beyond);

  const sortParam = params.get("sort") ?? definition.defaultSort ?? "-created_at";
  const descending = sortParam.startsWith("-");
  const field = descending ? sortParam.slice(1) : sortParam;
  if (!(field in definition.sorts))
    fail("sort", `must be one of ${Object.keys(definition.sorts).join(", ")}`);

  const query: ListQuery = { page, perPage, sort: { field, descending }, filters: {} };
  const q = params.get("q");
  if (q !== null) {
    if (q.length > 200) fail("q", "must be at most 200 characters");
    else if (q.trim()) query.q = q.trim();
  }
  query.createdAfter = instant(params.get("created_after"), "created_after", fail);
  query.createdBefore = instant(params.get("created_before"), "created_before", fail);
  query.updatedAfter = instant(params.get("updated_after"), "updated_after", fail);
  query.updatedBefore = instant(params.get("updated_before"), "updated_before", fail);

  for (const [name, filter] of Object.entries(definition.filters)) {
    const raw = params.get(name);
    if (raw === null) continue;
    // Enum and custom filters take a comma list; any other value is one value, commas and all
    // (`company=Acme, Inc.`).
    const listed = filter.kind === "enum" || filter.kind === "custom";
    const values = (listed ? raw.split(",") : [raw]).map((v) => v.trim()).filter(Boolean);
    if (values.length === 0) {
      fail(name, "must not be empty");
      continue;
    }
    const allowed = filter.kind === "enum" || filter.kind === "custom" ? filter.values : undefined;
    if (filter.kind === "boolean") {
      if (values.length !== 1 || (values[0] !== "true" && values[0] !== "false"))
        fail(name, "must be true or false");
    } else if (allowed) {
      const unknown = values.filter((v) => !allowed.includes(v));
      if (unknown.length > 0)
        fail(name, `unknown value '${unknown[0]}'; expected one of ${allowed.join(", ")}`);
    }
    if (filter.kind === "date" && !isRealDate(values[0]!)) fail(name, "must be a date YYYY-MM-DD");
    if (filter.kind === "instant") instant(values[0]!, name, fail);
    query.filters[name] = values;
  }

  for (const name of params.keys()) {
    if (!COMMON.includes(name) && !(name in definition.filters) && !own.includes(name)) {
      fail(name, "is not a known parameter");
    }
  }
  if (errors.length > 0) {
    throw new AppError("invalid_request", `${errors[0]!.param}: ${errors[0]!.message}`, { errors });
  }
  return query;
}

function integer(
  raw: string | null,
  fallback: number,
  param: string,
  min: number,
  max: number,
  fail: (param: string, message: string) => void,
): number {
  if (raw === null) return fallback;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    fail(param, `must be an integer from ${min} to ${max}`);
    return fallback;
  }
  return value;
}

function instant(
  raw: string | null,
  param: string,
  fail: (param: string, message: string) => void,
): Date | undefined {
  if (raw === null) return undefined;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const valid = dateOnly ? isRealDate(raw) : z.iso.datetime({ offset: true }).safeParse(raw).success;
  const at = valid ? new Date(dateOnly ? `${raw}T00:00:00Z` : raw) : undefined;
  // An offset can carry a valid-looking instant into year 0 or 10000, which timestamptz refuses.
  if (!at || at.getTime() < EARLIEST_INSTANT_MS || at.getTime() > LATEST_INSTANT_MS) {
    fail(param, "must be an RFC 3339 timestamp or a date YYYY-MM-DD, from year 0001 to 9999");
    return undefined;
  }
  return at;
}
