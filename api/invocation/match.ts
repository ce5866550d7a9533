/**
 * Step 1 of an invocation: which requests are one. `/v1/functions/{ref}/invoke`, then the
 * end, a query, or more path (the function serves everything below `/invoke`).
 */
const INVOKE = /^\/v1\/functions\/([^/?#]+)\/invoke(?=([/?#]|$))/;
// As @hono/node-server takes a URL as is (no normalization needed): anything else goes to the app.
const CANONICAL_PATH = /^\/[!#$&-;=?-\[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;
const CANONICAL_HOST = /^[a-z0-9._-]+(?::[1-9][0-9]{0,4})?$/;

/** The route patterns an invocation is counted under in metrics and logs. */
export const INVOKE_ROUTE = "/v1/functions/:id/invoke";
export const INVOKE_SUBPATH_ROUTE = "/v1/functions/:id/invoke/*";

/** Whether a path is a function invocation (`/v1/functions/{id}/invoke` and below). */
export function isInvocationPath(path: string): boolean {
  return /^\/v1\/functions\/[^/]+\/invoke(?:\/|$)/.test(path);
}

/** An invocation as read off the request line: the function named, its route, the public URL. */
export interface InvocationTarget {
  /** The `{ref}` path segment, decoded: a function name or id. */
  ref: string;
  route: typeof INVOKE_ROUTE | typeof INVOKE_SUBPATH_ROUTE;
  url: string;
}

/**
 * The invocation a Node request line names, when its path and host are already canonical
 * (what the socket adapter serves); `undefined` for anything else, which the app answers
 * (it normalizes, and its fetch adapter serves the same invocation the same way).
 */
export function matchInvocation(path: string, host: string | undefined): InvocationTarget | undefined {
  if (!path.startsWith("/v1/functions/") || host === undefined) return undefined;
  const match = INVOKE.exec(path);
  if (!match || !CANONICAL_PATH.test(path) || DOT_SEGMENT.test(path) || !CANONICAL_HOST.test(host))
    return undefined;
  if (host.endsWith(":80")) return undefined;
  let ref: string;
  try {
    ref = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  const route = match[2] === "/" ? INVOKE_SUBPATH_ROUTE : INVOKE_ROUTE;
  return { ref, route, url: `http://${host}${path}` };
}
