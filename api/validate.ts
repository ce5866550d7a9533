import type { Context } from "hono";
import type { z } from "zod";
import { AppError, MAX_JSON_DEPTH, type FieldError } from "../core/index.ts";
import type { AppEnv } from "./env.ts";
import { validationError } from "./problem.ts";

/** The request's JSON body checked against `schema`; a failure is a 422 naming each field. */
export function parseBody<T>(c: Context<AppEnv>, schema: z.ZodType<T, unknown>): T {
  // Only a missing body reads as `{}`: a JSON `null` body is refused like any non-object.
  const body = c.get("body");
  const input = body === undefined ? {} : body;
  const refused = findUnsafeInput(input);
  if (refused !== undefined) {
    throw new AppError("validation_failed", `${refused.param}: ${refused.message}`, { errors: [refused] });
  }
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, "validation_failed");
  return result.data;
}

// PostgreSQL text and jsonb hold neither U+0000 nor unpaired surrogates: a string with
// them would fail (or be altered) in the store, so it is refused here as the caller's fault.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_MESSAGE = "must not contain NUL characters or unpaired UTF-16 surrogates";
// `JSON.parse` makes `__proto__` an own key, but an assignment (zod's records, a spread, a
// merge) sets the prototype with it instead: such a key would be dropped, or worse, downstream.
const PROTO = "__proto__";

/**
 * What no schema may see, whatever it declares, as the field error refusing it: nesting past
 * MAX_JSON_DEPTH (named by its top-level field: the full path could be as long as the body),
 * a `__proto__` key, or unstorable text (`metadata.k`, `line_items[0].description`). The walk
 * never goes deeper than the limit, so no input can overflow its stack.
 */
export function findUnsafeInput(body: unknown): FieldError | undefined {
  return findIn(body, "", "body", 0);
}

const TOO_DEEP = `must not nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels`;

/** `value` at `path`, `depth` arrays and objects below the body, inside the body's field `field`. */
function findIn(value: unknown, path: string, field: string, depth: number): FieldError | undefined {
  if (value === null || typeof value !== "object") return unstorableText(value, path || "body");
  if (depth > MAX_JSON_DEPTH) return { param: field, code: "too_deep", message: TOO_DEEP };
  const isArray = Array.isArray(value);
  for (const [key, item] of isArray ? value.entries() : Object.entries(value)) {
    if (typeof key === "string" && UNSTORABLE.test(key)) return unstorable(path || "body");
    if (key === PROTO) {
      return { param: pathOf(path, key), code: "reserved_key", message: `must not be named '${PROTO}'` };
    }
    // A scalar's path is made only when it is refused: most pass.
    if (item === null || typeof item !== "object") {
      if (typeof item === "string" && UNSTORABLE.test(item)) return unstorable(pathOf(path, key));
      continue;
    }
    const at = pathOf(path, key);
    const found = findIn(item, at, depth > 0 ? field : isArray ? "body" : at, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `line_items` + 0 → `line_items[0]`, `metadata` + `k` → `metadata.k`. */
function pathOf(path: string, key: string | number): string {
  return typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;
}

function unstorableText(value: unknown, param: string): FieldError | undefined {
  return typeof value === "string" && UNSTORABLE.test(value) ? unstorable(param) : undefined;
}

function unstorable(param: string): FieldError {
  return { param, code: "invalid_string", message: UNSTORABLE_MESSAGE };
}
