import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { hasScope, listEvents, type AnyResourceService, type Event } from "../../engines/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { parseListQuery } from "../../api/list-params.ts";
import { page, type Html } from "../layout.ts";
import type { DashboardParts, Signed } from "../parts.ts";
import { tableColumns } from "./columns.ts";
import {
  breadcrumbs,
  can,
  errorPage,
  findItem,
  labelOf,
  nameOf,
  recordHref,
  resourceOf,
  STATE_FIELDS,
  valueCell,
  valueText,
  type Item,
  type Registry,
} from "./common.ts";
import { lifecycleOf, movesView, type MoveState } from "./transitions.ts";

/** How many related records and events a record page lists (each list links to the rest). */
const RELATED_LIMIT = 10;
const EVENTS_LIMIT = 20;

/**
 * `GET /data/<resource>/<id>`: the record's fields, the records it names (a deal's contact) and
 * those that name it (an invoice's payments: every resource with a `<object>_id` filter), its
 * history from the events outbox, and, for a user who may write, its actions.
 */
export function recordRoutes(app: Hono<AppEnv>, parts: DashboardParts, registry: Registry): void {
  app.get("/data/:resource/:id", parts.signedIn, resourceOf(parts, "read"), async (c) =>
    recordPage(c, parts, registry, c.var.signed, c.var.service, c.req.param("id")),
  );
}

/** The record page, with a failed move shown again (its status: 409 or 422) when there is one. */
export async function recordPage(
  c: Context,
  parts: DashboardParts,
  registry: Registry,
  signed: Signed,
  service: AnyResourceService,
  id: string,
  failed?: { move: MoveState; status: 409 | 422 },
): Promise<Response> {
  const orgId = signed.session.orgId;
  const item = await findItem(service, orgId, id);
  if (item instanceof Error) return errorPage(c, parts, signed, item);
  const [names, children, events] = await Promise.all([
    referencedNames(registry, signed, item),
    childLists(registry, signed, service, item),
    hasScope(signed.session.scopes, "webhooks", "read")
      ? listEvents(parts.deps.store, orgId, { page: 1, perPage: EVENTS_LIMIT, objectId: item.id })
      : undefined,
  ]);
  const { definition } = service;
  const title = `${labelOf(definition.object)} ${nameOf(item)}`;
  const lifecycle = lifecycleOf(definition.name);
  const writable = can(signed, service, "write");
  const body = html`${breadcrumbs([[`/data/${definition.name}`, labelOf(definition.name)]], nameOf(item))}
    <div class="data-head">
      <h1>${title}</h1>
      ${lifecycle ? valueCell(registry, lifecycle.field, item[lifecycle.field]) : ""}
      ${
        writable
          ? html`<a class="button" href="${recordHref(service, item.id)}/edit">Edit</a>
              <a class="button secondary" href="${recordHref(service, item.id)}/delete">Delete</a>`
          : ""
      }
    </div>
    ${writable && lifecycle ? movesView(registry, signed, lifecycle, item, failed?.move) : ""}
    <section aria-labelledby="fields-title">
      <h2 id="fields-title">Details</h2>
      ${fieldList(registry, item, names)}
    </section>
    ${children.map((child) => childSection(registry, signed, service, item, child))}
    ${events ? historySection(events.data, events.meta.total) : ""}`;
  return c.html(page(title, parts.nav(signed, "/data"), body), failed?.status ?? 200);
}

/** Names of the records this one names by id (`contact_id` → the contact's name), read through their services. */
async function referencedNames(registry: Registry, signed: Signed, item: Item): Promise<Map<string, string>> {
  const ids = Object.entries(item)
    .filter(([field, value]) => field.endsWith("_id") && typeof value === "string")
    .map(([, value]) => value as string);
  const named = await Promise.all(
    ids.map(async (id) => {
      const target = registry.byPrefix(id);
      if (!target || !can(signed, target, "read")) return undefined;
      const found = (await target.get(signed.session.orgId, id).catch(() => undefined)) as Item | undefined;
      return found ? ([id, nameOf(found)] as const) : undefined;
    }),
  );
  return new Map(named.filter((entry) => entry !== undefined));
}

function fieldList(registry: Registry, item: Item, names: Map<string, string>): Html {
  // What the record is about first; the bookkeeping every object has last.
  const last = ["id", "created_at", "updated_at"];
  const fields = [
    ...Object.entries(item).filter(([field]) => field !== "object" && !last.includes(field)),
    ...last.map((field) => [field, item[field]] as const),
  ];
  return html`<dl class="fields">
    ${fields.map(
      ([field, value]) =>
        html`<div>
          <dt>${labelOf(field === "id" ? "ID" : field)}</dt>
          <dd>${fieldValue(registry, field, value, names)}</dd>
        </div>`,
    )}
  </dl>`;
}

function fieldValue(registry: Registry, field: string, value: unknown, names: Map<string, string>): Html {
  if (typeof value === "string" && names.has(value)) {
    const target = registry.byPrefix(value)!;
    return html`<a href="${recordHref(target, value)}">${names.get(value)}</a>
      <code class="muted">${value}</code>`;
  }
  if (field === "id") return html`<code>${String(value)}</code>`;
  if (Array.isArray(value) && value.some((entry) => typeof entry === "object" && entry !== null)) {
    return nestedTable(registry, value as Array<Record<string, unknown>>);
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return html`<span class="muted">—</span>`;
    return html`<ul class="pairs">
      ${entries.map(([key, entry]) => html`<li><code>${key}</code> ${valueText(entry)}</li>`)}
    </ul>`;
  }
  return valueCell(registry, field, value);
}

/** A list of objects inside a record (an invoice's line items). */
function nestedTable(registry: Registry, rows: Array<Record<string, unknown>>): Html {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return html`<div class="table-scroll">
    <table class="data-table">
      <thead>
        <tr>
          ${columns.map((column) => html`<th scope="col">${labelOf(column)}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) =>
            html`<tr>
              ${columns.map((column) => html`<td>${valueCell(registry, column, row[column])}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

interface ChildList {
  service: AnyResourceService;
  filter: string;
  items: Item[];
  total: number;
}

/** Every resource that can be filtered by this record's id (`payments?invoice_id=…`), first page of each. */
async function childLists(
  registry: Registry,
  signed: Signed,
  parent: AnyResourceService,
  item: Item,
): Promise<ChildList[]> {
  const filter = `${parent.definition.object}_id`;
  const children = [...registry.services.values()].filter(
    (service) => filter in service.definition.filters && can(signed, service, "read"),
  );
  return Promise.all(
    children.map(async (service) => {
      const params = new URLSearchParams({ [filter]: item.id, per_page: String(RELATED_LIMIT) });
      const listed = await service.list(signed.session.orgId, parseListQuery(params, service.definition));
      return { service, filter, items: listed.data as Item[], total: listed.meta.total };
    }),
  );
}

function childSection(
  registry: Registry,
  signed: Signed,
  parent: AnyResourceService,
  item: Item,
  { service, filter, items, total }: ChildList,
): Html {
  const { definition } = service;
  const columns = tableColumns(service).filter((column) => column !== filter);
  const query = new URLSearchParams({ [filter]: item.id }).toString();
  const id = `related-${definition.name}`;
  return html`<section aria-labelledby="${id}" class="related">
    <div class="data-head">
      <h2 id="${id}">${labelOf(definition.name)} <span class="muted">${total}</span></h2>
      ${total > items.length ? html`<a href="/data/${definition.name}?${query}">View all</a>` : ""}
      ${
        can(signed, service, "write")
          ? html`<a href="/data/${definition.name}/new?${query}"
              >New ${labelOf(definition.object).toLowerCase()}</a
            >`
          : ""
      }
    </div>
    ${
      items.length === 0
        ? html`<p class="muted">No ${definition.name} for this ${parent.definition.object}.</p>`
        : html`<div class="table-scroll">
            <table class="data-table">
              <thead>
                <tr>
                  ${columns.map((column) => html`<th scope="col">${labelOf(column)}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${items.map(
                  (child) =>
                    html`<tr>
                      ${columns.map((column, index) =>
                        index === 0
                          ? html`<th scope="row">
                              <a href="${recordHref(service, child.id)}"
                                >${valueText(child[column]) || child.id}</a
                              >
                            </th>`
                          : html`<td>${valueCell(registry, column, child[column])}</td>`,
                      )}
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

/** The record's events, newest first, each with what it changed (`status: open → paid`). */
function historySection(events: Event[], total: number): Html {
  return html`<section aria-labelledby="history-title" class="history">
    <h2 id="history-title">History <span class="muted">${total}</span></h2>
    ${
      events.length === 0
        ? html`<p class="muted">No events recorded for it.</p>`
        : html`<ol class="events">
            ${events.map(
              (event) =>
                html`<li>
                  <a href="/events/${event.id}"><code>${event.type}</code></a>
                  <time datetime="${event.timestamp}">${event.timestamp}</time>
                  ${changesOf(event)}
                </li>`,
            )}
          </ol>`
    }
  </section>`;
}

function changesOf(event: Event): Html {
  const before = event.data.previous_attributes;
  if (!before) return html``;
  const after = event.data.object;
  const changes = Object.keys(before).filter((field) => field !== "updated_at");
  return html`<ul class="changes">
    ${changes.map((field) => {
      const from = valueText(before[field]) || "—";
      const to = valueText(after[field]) || "—";
      return STATE_FIELDS.has(field) || (from.length < 60 && to.length < 60)
        ? html`<li>${labelOf(field)}: ${from} → ${to}</li>`
        : html`<li>${labelOf(field)} changed</li>`;
    })}
  </ul>`;
}
