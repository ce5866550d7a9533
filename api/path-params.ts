import { z } from "zod";

/**
 * Path parameters as the OpenAPI document shows them and the routes validate them: the one
 * schema does both (routes/declare.ts). A value the schema refuses names nothing, so its message
 * is the 404's detail, in the words a lookup that found nothing uses: `No such invoice: 'x'`.
 */

/** After the prefix: base62 (core/random.ts `newId`); ids made in SQL are hex, a subset. */
const ID_BODY = "[0-9A-Za-z]{1,64}";

/**
 * A parameter naming an `object` when it matches `pattern`; any other value is `No such
 * <object>: '<value>'`, the value cut to `shown` characters (a path may be long).
 */
export function namingParam(object: string, pattern: RegExp, shown = 100) {
  return z.string().regex(pattern, {
    error: (issue) => `No such ${object}: '${String(issue.input).slice(0, shown)}'`,
  });
}

/** The pattern of `<prefix>_…` ids, as the document shows it: `^inv_[0-9A-Za-z]{1,64}$`. */
export function idPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}_${ID_BODY}$`);
}

/**
 * `{ id }`: the id of an `object`, `<prefix>_<base62>`. Another shape, another type's prefix
 * included, names no such object: a 404 before the store is asked.
 */
export function idParams(object: string, prefix: string) {
  return z.object({
    id: namingParam(object, idPattern(prefix)).meta({ param: { name: "id", in: "path" } }),
  });
}

/** A value matching any of the anchored `patterns`, as one pattern the document can show. */
export function eitherPattern(...patterns: RegExp[]): RegExp {
  const inner = patterns.map((pattern) => pattern.source.replace(/^\^/, "").replace(/\$$/, ""));
  return new RegExp(`^(?:${inner.join("|")})$`);
}
