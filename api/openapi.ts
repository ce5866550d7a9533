import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import { z } from "zod";
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../engines/index.ts";
import type { AppEnv } from "./env.ts";

/** Problem body as documented; every error response has this shape. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string(),
    request_id: z.string(),
    errors: z.array(z.object({ param: z.string(), code: z.string(), message: z.string() })),
    errors_omitted: z
      .number()
      .int()
      .optional()
      .meta({ description: "Field errors left out of `errors`, which lists the first 100" }),
  })
  .meta({ id: "Problem" });

/** Every problem status a `/v1` operation documents, and what it says of it. */
const PROBLEM_DESCRIPTIONS = {
  400: "Malformed request or parameters",
  401: "Missing, invalid or revoked credential",
  403: "The credential lacks the scope",
  404: "No such object in this organization",
  409: "Conflict, invalid state transition, or idempotency key in use",
  412: "If-Match or If-None-Match does not hold",
  413: "Body too large",
  415: "Body is not JSON",
  422: "Body fails validation",
  429: "Rate limit exceeded",
} as const;

export type ProblemStatus = keyof typeof PROBLEM_DESCRIPTIONS;

/** What any authenticated operation can answer: a bad parameter, no credential, no scope, no rate left. */
const READ_PROBLEMS: readonly ProblemStatus[] = [400, 401, 403, 429];
/**
 * What a write can answer besides: an idempotency key in flight or a conflict (409), and the JSON
 * body middleware's refusals (413, 415), the body's own (422), an idempotency key reused (422).
 */
const WRITE_PROBLEMS: readonly ProblemStatus[] = [...READ_PROBLEMS, 409, 413, 415, 422];

export type ProblemResponses = Partial<Record<ProblemStatus, ReturnType<typeof problem>>>;

/**
 * The problem responses an operation documents, by rule: a read's (GET) or a write's, a 404 when
 * its path names something (`{id}`), then `extra`: statuses beyond the rule (`true`: in the house's
 * words) or the rule's described in the operation's own.
 */
export function problemsByRule(
  method: string,
  path: string,
  extra: Partial<Record<ProblemStatus, string | true>> = {},
): ProblemResponses {
  const statuses = new Set(method === "get" ? READ_PROBLEMS : WRITE_PROBLEMS);
  if (/\{[^}]+\}/.test(path)) statuses.add(404);
  const responses = problems([...statuses]);
  for (const status of Object.keys(extra).map(Number) as ProblemStatus[]) {
    const description = extra[status]!;
    responses[status] = problem(description === true ? PROBLEM_DESCRIPTIONS[status] : description);
  }
  return responses;
}

/** Problem responses for `statuses`, in the house's words. */
export function problems(statuses: readonly ProblemStatus[]): ProblemResponses {
  return Object.fromEntries(statuses.map((status) => [status, problem(PROBLEM_DESCRIPTIONS[status])]));
}

function problem(description: string) {
  return { description, content: { "application/problem+json": { schema: ProblemSchema } } };
}

/** What every `/v1` route but the invocation of a public function needs: a credential. */
export const BEARER = [{ bearerAuth: [] }];

export function listOf(schema: z.ZodType) {
  return z.object({
    data: z.array(schema),
    meta: z.object({ total: z.number().int(), page: z.number().int(), per_page: z.number().int() }),
  });
}

export const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** A JSON request body, as a route's `request.body` (the `jsonBody` middleware reads it). */
export const jsonRequest = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });

export type Registry = OpenAPIHono<AppEnv>["openAPIRegistry"];

/** `page` and `per_page`, for lists that take no other parameter that matters. */
export const PagingQuery = z.object({
  page: z.string().optional().meta({ description: "Page number, from 1" }),
  per_page: z
    .string()
    .optional()
    .meta({ description: `Items per page, 1-${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE})` }),
});

/**
 * An operation as the document shows it: `createRoute`'s config, with what clients are generated
 * from made required (an `operationId` in `resource.verb` style, a summary, tags). Routes are
 * declared with `operation()` (routes/declare.ts), which builds this; the invoke operations, which
 * no declaration can serve, are written as this directly (routes/function-invoke-docs.ts).
 */
export type RouteDeclaration = RouteConfig & { operationId: string; summary: string; tags: string[] };
