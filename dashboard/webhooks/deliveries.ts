import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../../core/index.ts";
import { getEvent } from "../../engines/index.ts";
import {
  DELIVERY_STATUSES,
  WebhookRecoverSchema,
  type WebhookEndpoint,
  type WebhookRecovery,
} from "../../webhooks/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { csrfField, fieldError, type Html, page } from "../layout.ts";
import { requires } from "../gates.ts";
import { textOf, type DashboardParts, type Signed } from "../parts.ts";
import { deliveryPage, type DeliveryPageState } from "./delivery-page.ts";
import { deliveriesTable } from "./endpoint-page.ts";
import { renderEndpoint } from "./endpoints.ts";
import { canWrite, DELIVERY_ID, ENDPOINT_ID, listQuery, notFound, pager, refusalOf } from "./views.ts";

/**
 * Deliveries: send a test event, an endpoint's deliveries (by status), one delivery with its attempts,
 * Retry, and Recover (every failed delivery since a time, due again). The same services as
 * `/v1/webhook_endpoints/{id}/test`, `…/deliveries`, `…/recover` and `/v1/webhook_deliveries/{id}/retry`.
 */

const DAY_MS = 86_400_000;

interface RecoverState {
  since?: string;
  errors?: Record<string, string>;
  recovered?: WebhookRecovery;
  error?: string;
}

/** `YYYY-MM-DDTHH:MM` (a datetime-local input, read as UTC) as RFC 3339. */
const sinceOf = (local: string) => (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local) ? `${local}:00Z` : local);
const localOf = (at: Date) => at.toISOString().slice(0, 16);

export function deliveryRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, signedIn, posted, nav } = parts;
  const endpoints = deps.webhookEndpoints;
  const deliveries = deps.webhookDeliveries;
  const reads = requires("webhooks", "read");
  const writes = requires("webhooks", "write");

  const listPage = async (c: Context, signed: Signed, endpoint: WebhookEndpoint, recover: RecoverState) => {
    const status = c.req.query("status") ?? "";
    const filter = (DELIVERY_STATUSES as readonly string[]).includes(status) ? status : "";
    const filters: Record<string, string[]> = filter ? { status: [filter] } : {};
    const query = { ...listQuery(c.req.query("page"), 25), filters };
    const list = await deliveries.listForEndpoint(signed.session.orgId, endpoint.id, query);
    const since = recover.since ?? localOf(new Date(deps.clock.nowMs() - DAY_MS));
    const body = html`<p><a href="/webhooks/${endpoint.id}">← ${endpoint.url}</a></p>
      <h1>Deliveries</h1>
      ${recoverNotice(recover)} ${statusFilter(endpoint.id, filter)}
      ${deliveriesTable(endpoint.id, list.data)}
      ${pager(`/webhooks/${endpoint.id}/deliveries`, filter ? { status: filter } : {}, list.meta)}
      ${canWrite(signed) ? recoverForm(signed, endpoint, since, recover.errors ?? {}) : ""}`;
    const code = recover.errors ? 422 : recover.error ? 409 : 200;
    return c.html(page("Deliveries", nav(signed, "/webhooks"), body), code);
  };

  app.post(`/webhooks/${ENDPOINT_ID}/test`, posted, writes, async (c) => {
    const { signed } = c.var;
    const orgId = signed.session.orgId;
    const id = c.req.param("id");
    const sent = await refusalOf(() => endpoints.sendTest(orgId, id));
    if (!(sent instanceof AppError))
      return c.redirect(`/webhooks/${id}/deliveries/${sent.id}?done=test`, 303);
    const endpoint = await refusalOf(() => endpoints.get(orgId, id));
    if (endpoint instanceof AppError) return notFound(c, parts, signed, "/webhooks");
    // A disabled endpoint: the API's 409, shown on its page.
    return renderEndpoint(c, parts, signed, endpoint, { error: sent.message }, 409);
  });

  app.get(`/webhooks/${ENDPOINT_ID}/deliveries`, signedIn, reads, async (c) => {
    const { signed } = c.var;
    const endpoint = await refusalOf(() => endpoints.get(signed.session.orgId, c.req.param("id")));
    if (endpoint instanceof AppError) return notFound(c, parts, signed, "/webhooks");
    return listPage(c, signed, endpoint, {});
  });

  app.post(`/webhooks/${ENDPOINT_ID}/recover`, posted, writes, async (c) => {
    const { signed, form } = c.var;
    const orgId = signed.session.orgId;
    const endpoint = await refusalOf(() => endpoints.get(orgId, c.req.param("id")));
    if (endpoint instanceof AppError) return notFound(c, parts, signed, "/webhooks");
    const since = textOf(form, "since").trim();
    const parsed = WebhookRecoverSchema.safeParse({ since: sinceOf(since) });
    if (!parsed.success) {
      return listPage(c, signed, endpoint, { since, errors: { since: "Give a date and time (UTC)." } });
    }
    const recovered = await refusalOf(() =>
      deliveries.recover(orgId, endpoint.id, new Date(parsed.data.since)),
    );
    if (recovered instanceof AppError)
      return listPage(c, signed, endpoint, { since, error: recovered.message });
    return listPage(c, signed, endpoint, { since, recovered });
  });

  app.get(`/webhooks/${ENDPOINT_ID}/deliveries/${DELIVERY_ID}`, signedIn, reads, async (c) => {
    const { signed } = c.var;
    const notice = c.req.query("done") === "test" ? "Test event queued: it is sent in a moment." : undefined;
    const retried = c.req.query("done") === "retried" ? "Queued to be sent again now." : undefined;
    return renderDelivery(c, signed, { notice: notice ?? retried });
  });

  app.post(`/webhooks/${ENDPOINT_ID}/deliveries/${DELIVERY_ID}/retry`, posted, writes, async (c) => {
    const { signed } = c.var;
    const { id, delivery } = c.req.param();
    const found = await refusalOf(() => deliveries.get(signed.session.orgId, delivery));
    if (found instanceof AppError || found.endpoint_id !== id) return notFound(c, parts, signed, "/webhooks");
    const retried = await refusalOf(() => deliveries.retry(signed.session.orgId, delivery));
    if (retried instanceof AppError) return renderDelivery(c, signed, { error: retried.message }, 409);
    return c.redirect(`/webhooks/${id}/deliveries/${delivery}?done=retried`, 303);
  });

  /** The delivery at the path, if it is the endpoint's: with its endpoint, event and attempts. */
  async function renderDelivery(
    c: Context,
    signed: Signed,
    state: DeliveryPageState,
    status: 200 | 409 = 200,
  ) {
    const orgId = signed.session.orgId;
    const { id, delivery: deliveryId } = c.req.param() as { id: string; delivery: string };
    const delivery = await refusalOf(() => deliveries.get(orgId, deliveryId));
    if (delivery instanceof AppError || delivery.endpoint_id !== id)
      return notFound(c, parts, signed, "/webhooks");
    const [endpoint, event, attempts] = await Promise.all([
      endpoints.get(orgId, id),
      refusalOf(() => getEvent(deps.store, orgId, delivery.event_id)),
      // Latest first, as the API lists them.
      deliveries.attempts(orgId, deliveryId, listQuery("1", 100)),
    ]);
    const body = deliveryPage(
      signed,
      {
        endpoint,
        delivery,
        event: event instanceof AppError ? undefined : event,
        attempts: attempts.data,
        canWrite: canWrite(signed),
      },
      state,
    );
    return c.html(page("Delivery", nav(signed, "/webhooks"), body), status);
  }
}

function recoverNotice(recover: RecoverState): Html {
  if (recover.error) return html`<p class="error" role="alert">${recover.error}</p>`;
  if (!recover.recovered) return html``;
  const n = recover.recovered.requeued;
  return html`<p class="notice" role="status">
    ${n === 0 ? "No failed deliveries since then." : `${n} failed ${n === 1 ? "delivery is" : "deliveries are"} being sent again.`}
  </p>`;
}

function statusFilter(endpointId: string, current: string): Html {
  const link = (status: string, label: string) =>
    html`<a
      href="/webhooks/${endpointId}/deliveries${status ? `?status=${status}` : ""}"
      ${current === status ? html`aria-current="page"` : ""}
      >${label}</a
    >`;
  return html`<nav class="tabs" aria-label="Delivery status">
    ${link("", "All")}
    ${DELIVERY_STATUSES.map((status) => link(status, status[0]!.toUpperCase() + status.slice(1)))}
  </nav>`;
}

function recoverForm(
  signed: Signed,
  endpoint: WebhookEndpoint,
  since: string,
  errors: Record<string, string>,
): Html {
  return html`<form method="post" action="/webhooks/${endpoint.id}/recover" class="card">
    <h2>Recover</h2>
    <p class="muted">
      Send again every delivery that failed since a time, for example after the receiver was down.
    </p>
    ${csrfField(signed)}
    <label for="recover-since">Failed since (UTC)</label>
    <input
      id="recover-since"
      name="since"
      type="datetime-local"
      value="${since}"
      required
      ${errors.since ? html`aria-invalid="true" aria-describedby="since-error"` : ""}
    />
    ${fieldError(errors, "since")}
    <button type="submit">Recover failed deliveries</button>
  </form>`;
}
