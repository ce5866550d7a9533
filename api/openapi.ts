import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
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
  })
  .meta({ id: "Problem" });

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ProblemSchema } },
});

/** Error responses every authenticated route can give. */
export const COMMON_ERRORS = {
  400: problem("Malformed request or parameters"),
  401: problem("Missing, invalid or revoked credential"),
  403: problem("The credential lacks the scope"),
  429: problem("Rate limit exceeded"),
};

export const WRITE_ERRORS = {
  ...COMMON_ERRORS,
  409: problem("Conflict, invalid state transition, or idempotency key in use"),
  413: problem("Body too large"),
  415: problem("Body is not JSON"),
  422: problem("Body fails validation"),
};

/** Conditional requests (If-Match / If-None-Match) that do not hold: engine state only today. */
export const PRECONDITION_FAILED = { 412: problem("If-Match or If-None-Match does not hold") };

export const NOT_FOUND = { 404: problem("No such object in this organization") };

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

export type Registry = OpenAPIHono<AppEnv>["openAPIRegistry"];

export const IdParam = z.object({ id: z.string().meta({ param: { name: "id", in: "path" } }) });
