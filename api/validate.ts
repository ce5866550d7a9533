import type { Context } from "hono";
import type { z } from "zod";
import { AppError } from "../core/index.ts";
import type { AppEnv } from "./env.ts";
import { validationError } from "./problem.ts";

/** The request's JSON body checked against `schema`; a failure is a 422 naming each field. */
export function parseBody<T>(c: Context<AppEnv>, schema: z.ZodType<T, unknown>): T {
  // Only a missing body reads as `{}`: a JSON `null` body is refused like any non-object.
  const body = c.get("body");
  const input = body === undefined ? {} : body;
  const unstorable = findUnstorableText(input, "");
  if (unstorable !== undefined) {
    const message = "must not contain NUL characters or unpaired UTF-16 surrogates";
    throw new AppError("validation_failed", `${unstorable || "body"}: ${message}`, {
      errors: [{ param: unstorable, code: "invalid_string", message }],
    });
  }
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, "validation_failed");
  return result.data;
}

// PostgreSQL text and jsonb hold neither U+0000 nor unpaired surrogates: a string with
// them would fail (or be altered) in the store, so it is refused here as the caller's fault.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The param path (`metadata.k`, `line_items[0].description`) of the first unstorable string. */
function findUnstorableText(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return UNSTORABLE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorableText(item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) return path;
    const found = findUnstorableText(item, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Ids are `<prefix>_<base62>`; see core/random.ts `newId`. */
const ID_SHAPE = /^[a-z]{1,16}_[0-9A-Za-z]{1,64}$/;

/**
 * The `:id` path parameter. Anything not shaped like an id names no object: a 404
 * at once, so text the store cannot hold (a NUL byte) never reaches SQL as a 500.
 */
export function idParam(c: Context<AppEnv>, object: string): string {
  const id = c.req.param("id") ?? "";
  if (!ID_SHAPE.test(id)) throw new AppError("not_found", `No such ${object}: '${id.slice(0, 100)}'`);
  return id;
}
