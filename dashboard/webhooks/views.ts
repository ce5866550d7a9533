import { html } from "hono/html";
import { isAppError, type AppError } from "../../core/index.ts";
import { hasScope, MAX_PER_PAGE, type ListQuery } from "../../engines/index.ts";
import { SIGNING_SECRET_ACCESS } from "../../webhooks/index.ts";
import type { Html } from "../layout.ts";
import type { Signed } from "../parts.ts";

/**
 * Pieces the Webhooks pages and the Events explorer share: paging, time, JSON, status badges, the
 * not-found page, and the one way a service's refusal (a 404, a 409) reaches a page.
 */

/** What a page offers the role (buttons, forms); the routes' own gates are `requires` (gates.ts). */
export const canWrite = (signed: Signed) => hasScope(signed.session.scopes, "webhooks", "write");
export const canRevealSecret = (signed: Signed) =>
  hasScope(signed.session.scopes, "webhooks", SIGNING_SECRET_ACCESS);

/** Ids as the API makes them (`newId`, the fan-out's `whd_<hex>`): anything else names nothing. */
export const ENDPOINT_ID = ":id{we_[0-9A-Za-z]{1,64}}";
export const DELIVERY_ID = ":delivery{whd_[0-9A-Za-z]{1,64}}";
export const EVENT_ID = ":id{evt_[0-9A-Za-z]{1,64}}";

/** Offset paging stops at 10,000 rows, as the API's does (`offsetWindowProblem`). */
const MAX_OFFSET_ROWS = 10_000;

/**
 * A newest-first list query for page `raw` (a query parameter): junk reads as page 1, and a page past
 * the offset window as the last one inside it, so a hand-edited URL shows a page, not an error.
 */
export function listQuery(raw: string | undefined, perPage: number): ListQuery {
  const size = Math.min(perPage, MAX_PER_PAGE);
  const asked = Number.parseInt(raw ?? "1", 10);
  const page = Math.min(Number.isFinite(asked) && asked > 0 ? asked : 1, Math.floor(MAX_OFFSET_ROWS / size));
  return { page, perPage: size, sort: { field: "created_at", descending: true }, filters: {} };
}

/** "Newer" and "Older" links around a page of a list, keeping the list's other parameters. */
export function pager(
  path: string,
  params: Record<string, string>,
  meta: { total: number; page: number; per_page: number },
): Html {
  const last = Math.max(1, Math.ceil(meta.total / meta.per_page));
  if (last === 1) return html``;
  const href = (n: number) => `${path}?${new URLSearchParams({ ...params, page: String(n) }).toString()}`;
  return html`<nav class="pager" aria-label="Pages">
    ${meta.page > 1 ? html`<a href="${href(meta.page - 1)}" rel="prev">Newer</a>` : ""}
    <span>Page ${meta.page} of ${last}</span>
    ${meta.page < last ? html`<a href="${href(meta.page + 1)}" rel="next">Older</a>` : ""}
  </nav>`;
}

/** An RFC 3339 instant, as a `<time>` readers and scripts can both use. */
export function when(instant: string | null, none = "never"): Html {
  if (!instant) return html`<span class="muted">${none}</span>`;
  return html`<time datetime="${instant}">${instant.replace("T", " ").replace(/(\.\d+)?Z$/, " UTC")}</time>`;
}

/** The pages' script island (client/webhooks.js): a Copy button, a pending delivery's refresh. */
export const WEBHOOKS_SCRIPT = html`<script src="/dashboard/assets/webhooks.js" defer></script>`;

/** JSON as an indented, escaped block (hono/html escapes it: a payload's `<script>` is text). */
export function jsonBlock(value: unknown, label: string): Html {
  return html`<pre class="json" tabindex="0" aria-label="${label}">${JSON.stringify(value, null, 2)}</pre>`;
}

/** A delivery's status (`pending`, `succeeded`, `failed`) as a labelled badge. */
export function statusBadge(status: string): Html {
  return html`<span class="badge badge-${status}">${status}</span>`;
}

/** A 404 page in a section: parts.ts `notFoundPage`. */
export { notFoundPage as notFound } from "../parts.ts";

/**
 * Runs a service call, returning the refusal when the caller is at fault (not found, conflict,
 * validation) so the page can show it; anything else is the server's and propagates.
 */
export async function refusalOf<T>(call: () => Promise<T>): Promise<T | AppError> {
  try {
    return await call();
  } catch (error) {
    if (isAppError(error) && error.isUserError) return error;
    throw error;
  }
}
