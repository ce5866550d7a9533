import type { Hono } from "hono";
import { html, raw } from "hono/html";
import { AppError } from "../core/index.ts";
import { getEvent, listEvents, type Event, type EventType } from "../engines/index.ts";
import type { WebhookDelivery } from "../webhooks/index.ts";
import type { AppEnv } from "../api/env.ts";
import { page, type Html } from "./layout.ts";
import { requires } from "./gates.ts";
import type { DashboardParts } from "./parts.ts";
import {
  EVENT_ID,
  jsonBlock,
  listQuery,
  notFound,
  pager,
  refusalOf,
  statusBadge,
  when,
} from "./webhooks/views.ts";

/**
 * The Events explorer (`/events`): the organization's events newest first, filtered by a kind or a
 * family from the catalog, each with its payload (the exact webhook body, pretty-printed and escaped),
 * a link to the object's record, and the deliveries it made. The reads `GET /v1/events` makes; events
 * belong to the webhooks scope there, so here too.
 */
export function eventRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, signedIn, nav } = parts;
  const known = new Set(deps.catalog.map((entry) => entry.type));
  const families = new Set(deps.catalog.map((entry) => familyOf(entry.type)));
  /** Where an object's record is: `/data/<resource>/<id>` by its `object`, or a webhook endpoint's page. */
  const resourceOf = new Map(
    [...deps.resources.values()].map(({ definition }) => [definition.object, definition.name]),
  );

  app.get("/events", signedIn, requires("webhooks", "read"), async (c) => {
    const { signed } = c.var;
    const type = c.req.query("type") ?? "";
    // The select offers only the catalog's values; anything else is a hand-edited URL.
    const valid = type === "" || known.has(type) || families.has(type);
    const { page: pageNumber, perPage } = listQuery(c.req.query("page"), 25);
    const filter =
      !valid || type === ""
        ? {}
        : type.endsWith(".*")
          ? { typePrefix: type.slice(0, -1) }
          : { types: [type] };
    const list = await listEvents(deps.store, signed.session.orgId, { page: pageNumber, perPage, ...filter });
    const body = html`<h1>Events</h1>
      ${typeFilter(deps.catalog, valid ? type : "")}
      ${valid ? "" : html`<p class="error" role="alert">Unknown event type: showing every type.</p>`}
      ${eventTable(list.data, (event) => objectLink(resourceOf, event))}
      ${pager("/events", valid && type ? { type } : {}, list.meta)}`;
    return c.html(page("Events", nav(signed, "/events"), body), valid ? 200 : 400);
  });

  app.get(`/events/${EVENT_ID}`, signedIn, requires("webhooks", "read"), async (c) => {
    const { signed } = c.var;
    const orgId = signed.session.orgId;
    const event = await refusalOf(() => getEvent(deps.store, orgId, c.req.param("id")));
    if (event instanceof AppError) return notFound(c, parts, signed, "/events");
    const deliveries = await deps.webhookDeliveries.listForEvent(orgId, event.id, listQuery("1", 25));
    return c.html(
      page(
        event.type,
        nav(signed, "/events"),
        eventPage(event, objectLink(resourceOf, event), deliveries.data),
      ),
    );
  });
}

/** `invoice.paid` → `invoice.*`, the API's family filter. */
const familyOf = (type: string) => `${type.split(".")[0]}.*`;

function typeFilter(catalog: readonly EventType[], current: string): Html {
  const groups = new Map<string, string[]>();
  for (const { type } of catalog) groups.set(familyOf(type), [...(groups.get(familyOf(type)) ?? []), type]);
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${raw(value === current ? "selected" : "")}>${label}</option>`;
  return html`<form method="get" action="/events" class="filter">
    <label for="event-type">Type</label>
    <select id="event-type" name="type">
      ${option("", "All types")}
      ${[...groups.entries()].map(
        ([family, types]) =>
          html`<optgroup label="${family.slice(0, -2)}">
            ${option(family, `every ${family.slice(0, -2)} event (${family})`)}
            ${types.map((type) => option(type, type))}
          </optgroup>`,
      )}
    </select>
    <button type="submit">Filter</button>
  </form>`;
}

/** The object an event is about, linked to its record page when there is one. */
function objectLink(resourceOf: ReadonlyMap<string, string>, event: Event): Html {
  const object = event.data.object;
  const kind = typeof object.object === "string" ? object.object : "";
  const id = typeof object.id === "string" ? object.id : "";
  if (!id) return html`<span class="muted">—</span>`;
  const resource = resourceOf.get(kind);
  const href = resource ? `/data/${resource}/${id}` : kind === "webhook_endpoint" ? `/webhooks/${id}` : "";
  const label = html`${kind ? `${kind} ` : ""}<code>${id}</code>`;
  return href ? html`<a href="${href}">${label}</a>` : label;
}

function eventTable(events: readonly Event[], link: (event: Event) => Html): Html {
  if (events.length === 0) return html`<p class="muted">No events.</p>`;
  return html`<table class="events">
    <thead>
      <tr>
        <th>Type</th>
        <th>Object</th>
        <th>Time</th>
        <th>Event</th>
      </tr>
    </thead>
    <tbody>
      ${events.map(
        (event) =>
          html`<tr>
            <td>
              <a href="/events/${event.id}"><code>${event.type}</code></a>
            </td>
            <td>${link(event)}</td>
            <td>${when(event.timestamp)}</td>
            <td><code>${event.id}</code></td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function eventPage(event: Event, link: Html, deliveries: readonly WebhookDelivery[]): Html {
  return html`<p><a href="/events">← Events</a></p>
    <h1><code>${event.type}</code></h1>
    <dl class="facts">
      <dt>Object</dt>
      <dd>${link}</dd>
      <dt>Time</dt>
      <dd>${when(event.timestamp)}</dd>
      ${
        event.actor
          ? html`<dt>Actor</dt>
              <dd>${event.actor.type} <code>${event.actor.id}</code></dd>`
          : ""
      }
      <dt>Id</dt>
      <dd><code>${event.id}</code></dd>
    </dl>
    <h2>Payload</h2>
    <p class="muted">The body every endpoint receives for this event (shown indented).</p>
    ${jsonBlock(event, "Event payload")}
    <h2>Deliveries</h2>
    ${
      deliveries.length === 0
        ? html`<p class="muted">No endpoint received this event.</p>`
        : html`<ul class="event-deliveries">
            ${deliveries.map(
              (delivery) =>
                html`<li>
                  ${statusBadge(delivery.status)}
                  <a href="/webhooks/${delivery.endpoint_id}/deliveries/${delivery.id}"
                    >to endpoint <code>${delivery.endpoint_id}</code></a
                  >
                </li>`,
            )}
          </ul>`
    }`;
}
