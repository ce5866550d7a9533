import { HOP_BY_HOP_HEADERS } from "../../core/index.ts";

/**
 * Step 2: the headers between the caller and the function, both ways, and the one rule that keeps
 * a tenant's code from acting as the platform (ARCHITECTURE.md, "Security model"):
 *
 * - in: the caller's headers as the function's `Request` lists them: lowercased, without hop-by-hop
 *   ones, without `authorization` when the caller's Tessera key was consumed, and without the
 *   platform's cookies (`tessera_*`, `__Host-tessera_*`, `__Secure-tessera_*`): a dashboard session
 *   in a public function's logs would be its owner's account;
 * - out (`answerHeaders`): the function's headers, without a `Set-Cookie` that would set or clear one
 *   of those cookies (session fixation) nor a `Clear-Site-Data` (which clears every cookie of the
 *   site); the platform's own headers over the function's; and, on the dashboard's origin, a
 *   `Content-Security-Policy: sandbox` over any the function sent, with `nosniff`: its page is an
 *   opaque origin there (no scripts, no cookies, no same-origin reads; HTML §7.5.4, CSP3 §6.3.2).
 */
export type HeaderPairs = Array<[string, string]>;

/**
 * Where an adapter serves: the dashboard's origin (`main`: the quick start's one origin, and the
 * main origin when another serves functions), or the functions origin (TESSERA_FUNCTIONS_URL),
 * which holds no platform cookie or page, so its answers go as the function sent them.
 */
export type InvocationOrigin = "main" | "functions";

/**
 * A cookie of the platform's, as a `Cookie` pair or a `Set-Cookie` value begins: prefixes without
 * case, as RFC 6265bis §4.1.3 reads them; a leading `=` too (a nameless cookie `=tessera_x=v` goes
 * back to the server as `tessera_x=v`).
 */
const PLATFORM_COOKIE = /^[\s=]*(?:__(?:host|secure)-)?tessera_/i;
/** Cheap test first: a `Cookie` header that could hold one (most hold none, or are absent). */
const MAY_HOLD_PLATFORM_COOKIE = /tessera_/i;

/**
 * The dashboard's origin's policy for a function's answer, over the function's own: a sandbox
 * without `allow-same-origin` or `allow-scripts` (CSP3 §6.3.2): an opaque origin, no script.
 */
const SANDBOX_POLICY = "sandbox";

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
    let value = raw[i + 1]!;
    if (name === "set-cookie") {
      headers.push([name, value]);
      continue;
    }
    if (name === "cookie") {
      value = withoutPlatformCookies(value);
      if (value === "") continue;
    }
    const before = joined.get(name);
    joined.set(name, before === undefined ? value : `${before}${name === "cookie" ? "; " : ", "}${value}`);
  }
  for (const pair of joined) headers.push(pair);
  return headers;
}

/** A Fetch `Headers` (already joined and lowercased) the same way. */
export function headersFromFetch(headers: Headers, withoutAuthorization: boolean): HeaderPairs {
  const pairs: HeaderPairs = [];
  for (const [name, value] of headers) {
    if (skip(name, withoutAuthorization)) continue;
    if (name !== "cookie") pairs.push([name, value]);
    else {
      const kept = withoutPlatformCookies(value);
      if (kept !== "") pairs.push([name, kept]);
    }
  }
  return pairs;
}

/**
 * The headers a function's answer is written with (Node's shape: each `set-cookie` apart, other
 * repeated names joined by ", "), by the rule above. `ours` (request id, rate limits) win over the
 * function's, names compared as HTTP does, without case.
 *
 * @example
 *   res.writeHead(response.status, answerHeaders(response.headers, { "x-request-id": id }, "main"));
 */
export function answerHeaders(
  pairs: HeaderPairs,
  ours: Record<string, string>,
  origin: InvocationOrigin,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const pair of pairs) {
    // The guest's Headers lowercases names; the rule holds without trusting it to.
    const name = pair[0].toLowerCase();
    const value = pair[1];
    if (name === "set-cookie") {
      if (PLATFORM_COOKIE.test(value)) continue;
    } else if (name === "clear-site-data") continue;
    const before = headers[name];
    if (before === undefined) headers[name] = name === "set-cookie" ? [value] : value;
    else if (Array.isArray(before)) before.push(value);
    else headers[name] = `${before}, ${value}`;
  }
  for (const name in ours) headers[name.toLowerCase()] = ours[name]!;
  if (origin === "main") {
    headers["content-security-policy"] = SANDBOX_POLICY;
    headers["x-content-type-options"] = "nosniff";
  }
  return headers;
}

/** A `Cookie` header's value without the platform's pairs ("" when none is left). */
function withoutPlatformCookies(value: string): string {
  if (!MAY_HOLD_PLATFORM_COOKIE.test(value)) return value;
  const kept: string[] = [];
  for (const pair of value.split(";")) {
    const trimmed = pair.trim();
    if (trimmed !== "" && !PLATFORM_COOKIE.test(trimmed)) kept.push(trimmed);
  }
  return kept.join("; ");
}

function skip(name: string, withoutAuthorization: boolean): boolean {
  return (
    name.startsWith(":") || HOP_BY_HOP_HEADERS.has(name) || (withoutAuthorization && name === "authorization")
  );
}
