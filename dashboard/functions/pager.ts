import { html } from "hono/html";
import type { Html } from "../layout.ts";

/**
 * Paging for the function pages' lists: the page's `page` parameter read leniently (anything but 1 to
 * 99 is page 1, which keeps within the API's window of 10,000 rows), and Previous/Next links.
 */

/** List parameters as /v1 reads them (`parseListQuery`): a page of `perPage`, sorted by `sort`. */
export function pageParams(page: string | undefined, perPage: number, sort = "-created_at"): URLSearchParams {
  const number = /^[1-9][0-9]?$/.test(page ?? "") ? page! : "1";
  return new URLSearchParams({ page: number, per_page: String(perPage), sort });
}

/** Links to the pages before and after this one, when there are any. */
export function pager(path: string, meta: { total: number; page: number; per_page: number }): Html {
  const before = meta.page > 1;
  const after = meta.page * meta.per_page < meta.total;
  if (!before && !after) return html``;
  const join = path.includes("?") ? "&" : "?";
  return html`<nav class="fn-pager" aria-label="Pages">
    ${before ? html`<a href="${path}${join}page=${meta.page - 1}">Previous</a>` : ""}
    <span class="muted">Page ${meta.page} of ${Math.ceil(meta.total / meta.per_page)}</span>
    ${after ? html`<a href="${path}${join}page=${meta.page + 1}">Next</a>` : ""}
  </nav>`;
}
