import { MAX_JSON_DEPTH } from "../../core/index.ts";

/**
 * What engine state accepts as keys and values. Pure functions: the service and the
 * HTTP edge both use them, so a key refused by one is refused by the other.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Characters (code points) of a key; its UTF-8 (≤ 2 KiB) stays within a btree entry. */
export const MAX_STATE_KEY_LENGTH = 512;
/** Bytes of a value serialized as compact JSON (`JSON.stringify`) in UTF-8. */
export const MAX_STATE_VALUE_BYTES = 64 * 1024;
/** Nesting of arrays and objects: deeper values are refused before jsonb's parser recurses on them. */
export const MAX_STATE_VALUE_DEPTH = MAX_JSON_DEPTH;

// C0, DEL and C1 controls; and what PostgreSQL text cannot hold (unpaired UTF-16 surrogates).
const CONTROL = /\p{Cc}/u;
const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why `key` is not a key (or, with `minLength` 0, a key prefix), or undefined. `.` and
 * `..` are refused because URL parsers drop them as dot segments (RFC 3986 §5.2.4), even
 * percent-encoded, so such a key could never be named in a path.
 */
export function keyProblem(key: string, minLength: 0 | 1): string | undefined {
  const length = [...key].length;
  if (length < minLength || length > MAX_STATE_KEY_LENGTH) {
    return `must be ${minLength}-${MAX_STATE_KEY_LENGTH} characters`;
  }
  if (CONTROL.test(key)) return "must not contain control characters";
  if (UNPAIRED.test(key)) return "must not contain unpaired UTF-16 surrogates";
  if (minLength === 1 && (key === "." || key === "..")) return "must not be '.' or '..'";
  return undefined;
}

export interface ValueProblem {
  path: (string | number)[];
  message: string;
}

/** Why `value` is not a storable JSON value of at most 64 KiB, or undefined. */
export function jsonValueProblem(value: unknown): ValueProblem | undefined {
  const found = shapeProblem(value, [], 0);
  if (found) return found;
  const bytes = Buffer.byteLength(JSON.stringify(value), "utf8");
  if (bytes > MAX_STATE_VALUE_BYTES) {
    return { path: [], message: `is ${bytes} bytes as JSON; at most ${MAX_STATE_VALUE_BYTES} are allowed` };
  }
  return undefined;
}

function shapeProblem(value: unknown, path: (string | number)[], depth: number): ValueProblem | undefined {
  if (value === null || typeof value === "boolean") return undefined;
  if (typeof value === "number") {
    return Number.isFinite(value) ? undefined : { path, message: "must be a finite number" };
  }
  if (typeof value === "string") {
    // jsonb holds neither U+0000 nor unpaired surrogates.
    return /\u0000/.test(value) || UNPAIRED.test(value)
      ? { path, message: "must not contain NUL characters or unpaired UTF-16 surrogates" }
      : undefined;
  }
  if (typeof value !== "object" || !isJsonContainer(value)) {
    return { path, message: "must be JSON: an object, array, string, number, boolean or null" };
  }
  if (depth >= MAX_STATE_VALUE_DEPTH) {
    return { path, message: `must not nest arrays and objects deeper than ${MAX_STATE_VALUE_DEPTH} levels` };
  }
  const items: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value);
  for (const [name, item] of items) {
    if (typeof name === "string" && (/\u0000/.test(name) || UNPAIRED.test(name))) {
      return { path, message: "property names must not contain NUL characters or unpaired surrogates" };
    }
    // Copied by assignment (a spread, a merge), `__proto__` sets a prototype instead of a key.
    if (name === "__proto__") return { path: [...path, name], message: "must not be named '__proto__'" };
    const found = shapeProblem(item, [...path, name], depth + 1);
    if (found) return found;
  }
  return undefined;
}

function isJsonContainer(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
