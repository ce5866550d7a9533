import type { HeadersInput } from "./options.ts";

/** Sets each header of `input` on `headers`; in a plain object, `null` removes one. */
export function applyHeaders(
  headers: Headers,
  input: HeadersInput | Record<string, string | undefined> | undefined,
): void {
  if (!input) return;
  if (input instanceof Headers) {
    input.forEach((value, name) => headers.set(name, value));
    return;
  }
  for (const [name, value] of Object.entries(input)) {
    if (value === null) headers.delete(name);
    else if (value !== undefined) headers.set(name, value);
  }
}

/**
 * `?a=1&b=x,y` from an object: arrays as comma lists (the API's "one value or a comma list"),
 * booleans as `true`/`false`, `undefined` and `null` left out.
 */
export function queryString(query: object | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(
      name,
      Array.isArray(value) ? value.map(String).join(",") : String(value as string | number | boolean),
    );
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** One path segment, percent-encoded (`sync/cursor` → `sync%2Fcursor`). */
export function encodePath(value: string | number): string {
  return encodeURIComponent(String(value));
}

/** The response with its body, already read, readable again; 204, 205 and 304 have none (Fetch, "null body status"). */
export function buffered(response: Response, text: string): Response {
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  return new Response([204, 205, 304].includes(response.status) ? null : text, init);
}

/** A refused OAuth token (docs/oauth.md): `401` with `error="invalid_token"`, which a refresh may cure. */
export function isExpiredToken(response: Response, text: string): boolean {
  if (/error="invalid_token"/.test(response.headers.get("www-authenticate") ?? "")) return true;
  return /"code"\s*:\s*"invalid_token"/.test(text);
}

export function newIdempotencyKey(): string {
  // randomUUID exists only in secure contexts of a browser; getRandomValues everywhere.
  if (typeof crypto.randomUUID === "function") return `tessera-retry-${crypto.randomUUID()}`;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `tessera-retry-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** What fetch threw, with the system error under it (`fetch failed (ECONNREFUSED)`). */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail =
    typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? cause.message : "";
  return detail ? `${error.message} (${detail})` : error.message;
}
