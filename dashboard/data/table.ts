import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { AppError } from "../../core/index.ts";
import { ENGINES, type AnyResourceService, type ListQuery, type Page } from "../../engines/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { parseListQuery } from "../../api/list-params.ts";
import { page, type Html } from "../layout.ts";
import { errorsByField, type DashboardParts, type Signed } from "../parts.ts";
import { tableColumns } from "./columns.ts";
import { filterForm } from "./filters.ts";
import {
  breadcrumbs,
  can,
  labelOf,
  recordHref,
  resourceOf,
  userError,
  valueCell,
  valueText,
  type Item,
  type Registry,
} from "./common.ts";

/**
 * `GET /data` (every engine's resources, with their totals) and `GET /data/<resource>` (a table).
 * The table's query string is exactly the API's list parameters, parsed by the API's own parser,
 * so `/data/invoices?status=overdue&sort=-due_date` and `/v1/invoices?status=overdue&sort=-due_date`
 * name the same rows, and a table's URL can be bookmarked and shared.
 */
export function tableRoutes(app: Hono<AppEnv>, parts: DashboardParts, registry: Registry): void {
  app.get("/data", parts.signedIn, async (c) => {
    const { signed } = c.var;
    return c.html(page("Data", parts.nav(signed, "/data"), await indexBody(registry, signed)));
  });
  app.get("/data/:resource", parts.signedIn, resourceOf(parts, "read"), async (c) => {
    const found = c.var;
    const params = new URL(c.req.url).searchParams;
    // A filter form sends its empty fields too; the API would refuse `currency=`, so the page
    // moves to the same URL without them, which is the one to bookmark.
    const blank = [...params].filter(([, value]) => value === "").map(([name]) => name);
    if (blank.length > 0) {
      for (const name of blank) params.delete(name);
      return c.redirect(tableHref(found.service, params), 303);
    }
    return tablePage(c, parts, registry, found, params);
  });
}

async function tablePage(
  c: Context,
  parts: DashboardParts,
  registry: Registry,
  { signed, service }: { signed: Signed; service: AnyResourceService },
  params: URLSearchParams,
): Promise<Response> {
  const { definition } = service;
  let listed: { query: ListQuery; page: Page<Item> } | undefined;
  let refusal: AppError | undefined;
  try {
    const query = parseListQuery(params, definition);
    listed = { query, page: (await service.list(signed.session.orgId, query)) as Page<Item> };
  } catch (error) {
    refusal = userError(error);
  }
  const body = html`${breadcrumbs([], labelOf(definition.name))}
    <div class="data-head">
      <h1>${labelOf(definition.name)}</h1>
      ${
        can(signed, service, "write")
          ? html`<a class="button" href="/data/${definition.name}/new"
              >New ${labelOf(definition.object).toLowerCase()}</a
            >`
          : ""
      }
    </div>
    ${filterForm(service, params, refusal ? errorsByField(refusal.errors) : {})}
    ${
      refusal
        ? html`<p class="error" role="alert">${refusal.message}</p>`
        : recordsTable(registry, service, listed!.page, listed!.query, params)
    }`;
  return c.html(page(labelOf(definition.name), parts.nav(signed, "/data"), body), refusal ? 400 : 200);
}

/** `/data/<resource>?<params>`, or without `?` when there are none. */
function tableHref(service: AnyResourceService, params: URLSearchParams): string {
  const query = params.toString();
  return `/data/${service.definition.name}${query ? `?${query}` : ""}`;
}

/** The same table with some parameters changed (a sort, a page); `undefined` removes one. */
function withParams(
  service: AnyResourceService,
  params: URLSearchParams,
  changes: Record<string, string | undefined>,
): string {
  const next = new URLSearchParams(params);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) next.delete(name);
    else next.set(name, value);
  }
  return tableHref(service, next);
}

/** The index: each engine's resources, each with its total (one counted page of one row). */
async function indexBody(registry: Registry, signed: Signed): Promise<Html> {
  const groups = await Promise.all(
    ENGINES.map(async (engine) => {
      const services = [...registry.services.values()].filter(
        (service) => service.definition.engine === engine && can(signed, service, "read"),
      );
      const totals = await Promise.all(
        services.map(async (service) => {
          const one = parseListQuery(new URLSearchParams({ per_page: "1" }), service.definition);
          return (await service.list(signed.session.orgId, one)).meta.total;
        }),
      );
      return { engine, services, totals };
    }),
  );
  return html`<h1>Data</h1>
    <p class="muted">Every record of every engine, as the API serves it.</p>
    <div class="data-index">
      ${groups
        .filter((group) => group.services.length > 0)
        .map(
          ({ engine, services, totals }) =>
            html`<section class="card">
              <h2>${labelOf(engine)}</h2>
              <ul>
                ${services.map(
                  (service, index) =>
                    html`<li>
                      <a href="/data/${service.definition.name}">${labelOf(service.definition.name)}</a>
                      <span class="muted">${totals[index]}</span>
                    </li>`,
                )}
              </ul>
            </section>`,
        )}
    </div>`;
}

function recordsTable(
  registry: Registry,
  service: AnyResourceService,
  listed: Page<Item>,
  query: ListQuery,
  params: URLSearchParams,
): Html {
  const columns = tableColumns(service);
  const { total, page: current, per_page: perPage } = listed.meta;
  const first = total === 0 ? 0 : (current - 1) * perPage + 1;
  const last = Math.min(total, (current - 1) * perPage + listed.data.length);
  return html`<p class="muted" aria-live="polite">
      ${total === 0 ? "Nothing matches." : `Showing ${first}–${last} of ${total}`}
    </p>
    <div class="table-scroll">
      <table class="data-table">
        <thead>
          <tr>
            ${columns.map((column) => header(service, column, query, params))}
          </tr>
        </thead>
        <tbody>
          ${listed.data.map(
            (item) =>
              html`<tr>
                ${columns.map((column, index) =>
                  index === 0
                    ? html`<th scope="row">
                        <a href="${recordHref(service, item.id)}">${valueText(item[column]) || item.id}</a>
                      </th>`
                    : html`<td>${valueCell(registry, column, item[column])}</td>`,
                )}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${pager(service, params, current, perPage, total)}`;
}

/** A column header: a link that sorts by it (ascending first, then descending) when the API can. */
function header(
  service: AnyResourceService,
  column: string,
  query: ListQuery,
  params: URLSearchParams,
): Html {
  const label = labelOf(column);
  if (!(column in service.definition.sorts)) return html`<th scope="col">${label}</th>`;
  const sorted = query.sort.field === column;
  const next = sorted && !query.sort.descending ? `-${column}` : column;
  const order = sorted ? (query.sort.descending ? "descending" : "ascending") : undefined;
  return html`<th scope="col" aria-sort="${order ?? "none"}">
    <a href="${withParams(service, params, { sort: next, page: undefined })}"
      >${label}${order ? (order === "ascending" ? " ▲" : " ▼") : ""}</a
    >
  </th>`;
}

function pager(
  service: AnyResourceService,
  params: URLSearchParams,
  current: number,
  perPage: number,
  total: number,
): Html {
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages === 1 && current === 1) return html``;
  const link = (to: number, label: string, rel: string) =>
    html`<a rel="${rel}" href="${withParams(service, params, { page: to === 1 ? undefined : String(to) })}"
      >${label}</a
    >`;
  return html`<nav class="pager" aria-label="Pages">
    ${current > 1 ? link(Math.min(current - 1, pages), "← Previous", "prev") : ""}
    <span>Page ${current} of ${pages}</span>
    ${current < pages ? link(current + 1, "Next →", "next") : ""}
  </nav>`;
}
