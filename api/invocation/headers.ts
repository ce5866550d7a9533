import { HOP_BY_HOP_HEADERS } from "../../core/index.ts";

/**
 * Step 2: the caller's headers as the function's `Request` lists them: lowercased, without
 * hop-by-hop ones and, when the caller's Tessera key was consumed, without `authorization`.
 */
export type HeaderPairs = Array<[string, string]>;

/**
 * A Node request's headers as the Fetch `Headers` of the request would list them (repeated
 * names joined by ", ", cookies by "; ", each set-cookie apart). Read off `rawHeaders`:
 * building a Headers object (validating every name and value again, after Node's parser)
 * cost more than the rest of an invocation's routing.
 */
export function headersFromNode(raw: string[], withoutAuthorization: boolean): HeaderPairs {
  const headers: HeaderPairs = [];
  const joined = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (skip(name, withoutAuthorization)) continue;
    const value = raw[i + 1]!;
    if (name === "set-cookie") headers.push([name, value]);
    else {
      const before = joined.get(name);
      joined.set(name, before === undefined ? value : `${before}${name === "cookie" ? "; " : ", "}${value}`);
    }
  }
  for (const pair of joined) headers.push(pair);
  return headers;
}

/** A Fetch `Headers` (already joined and lowercased) the same way. */
export function headersFromFetch(headers: Headers, withoutAuthorization: boolean): HeaderPairs {
  return [...headers].filter(([name]) => !skip(name, withoutAuthorization));
}

function skip(name: string, withoutAuthorization: boolean): boolean {
  return (
    name.startsWith(":") || HOP_BY_HOP_HEADERS.has(name) || (withoutAuthorization && name === "authorization")
  );
}
