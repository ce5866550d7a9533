import { html } from "hono/html";
import { hasScope } from "../../engines/index.ts";
import type { WebhookDelivery, WebhookEndpoint } from "../../webhooks/index.ts";
import { csrfField, type Html, postButton } from "../layout.ts";
import type { Signed } from "../parts.ts";
import { canRevealSecret, statusBadge, WEBHOOKS_SCRIPT, when } from "./views.ts";

/**
 * One endpoint's page: what it is, its health, its signing secret (hidden until revealed by a POST,
 * or shown once after a rotation), the actions a writer may take, and its latest deliveries.
 */

export interface EndpointPageState {
  /** Shown on this response only: after "Reveal" or "Rotate". */
  secret?: string;
  rotated?: boolean;
  notice?: string;
  error?: string;
}

/** Health at a glance: disabled (and why), failing since when, or delivering. */
export function healthOf(endpoint: WebhookEndpoint): Html {
  if (!endpoint.enabled) {
    const why = { manual: "by hand", gone: "the target answered 410 Gone", failing: "it kept failing" };
    const reason = endpoint.disabled_reason ? why[endpoint.disabled_reason] : "";
    return html`<span class="badge badge-disabled">disabled</span>
      ${reason ? html`<span class="muted">(${reason})</span>` : ""}`;
  }
  if (endpoint.failing_since) {
    return html`<span class="badge badge-failed">failing</span>
      <span class="muted">since ${when(endpoint.failing_since)}</span>`;
  }
  return html`<span class="badge badge-succeeded">enabled</span>`;
}

export function eventTypesOf(endpoint: WebhookEndpoint): Html {
  if (endpoint.event_types.length === 0) return html`<span class="muted">all events</span>`;
  return html`<ul class="types">
    ${endpoint.event_types.map((type) => html`<li><code>${type}</code></li>`)}
  </ul>`;
}

/** A table of deliveries, each linking to its page. */
export function deliveriesTable(endpointId: string, deliveries: readonly WebhookDelivery[]): Html {
  if (deliveries.length === 0) return html`<p class="muted">No deliveries yet.</p>`;
  return html`<table class="deliveries">
    <thead>
      <tr>
        <th>Event</th>
        <th>Status</th>
        <th>Created</th>
        <th>Attempts</th>
        <th>Last result</th>
      </tr>
    </thead>
    <tbody>
      ${deliveries.map(
        (delivery) =>
          html`<tr>
            <td>
              <a href="/webhooks/${endpointId}/deliveries/${delivery.id}"
                ><code>${delivery.event_type}</code></a
              >
            </td>
            <td>${statusBadge(delivery.status)}</td>
            <td>${when(delivery.created_at)}</td>
            <td>${delivery.attempts}</td>
            <td>${lastResult(delivery)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function lastResult(delivery: WebhookDelivery): Html {
  if (delivery.attempts === 0 && !delivery.last_error) return html`<span class="muted">not sent yet</span>`;
  const code = delivery.last_status_code === null ? "" : `HTTP ${delivery.last_status_code}`;
  return html`${code}${code && delivery.last_error ? " · " : ""}${delivery.last_error ?? ""}`;
}

function secretPanel(signed: Signed, endpoint: WebhookEndpoint, state: EndpointPageState): Html {
  const name = endpoint.signing_scheme === "v1a" ? "Public key" : "Signing secret";
  const previous = endpoint.previous_secret_expires_at;
  return html`<section class="card" aria-labelledby="secret-heading">
    <h2 id="secret-heading">${name}</h2>
    <p class="muted">
      ${
        endpoint.signing_scheme === "v1a"
          ? "Receivers verify the v1a (ed25519) signature with this public key."
          : "Receivers verify the v1 (HMAC-SHA256) signature with this secret; keep it out of source control."
      }
    </p>
    ${
      state.secret
        ? html`<div class="notice" aria-live="polite">
            ${state.rotated ? html`<p>A new ${name.toLowerCase()} is signing. The previous one also signs until ${when(previous)}.</p>` : ""}
            <p class="secret" id="endpoint-secret" data-copy>${state.secret}</p>
          </div>`
        : !canRevealSecret(signed)
          ? html`<p class="secret masked">
              ${endpoint.signing_scheme === "v1a" ? "whpk_" : "whsec_"}••••••••
              <span class="muted">(revealing it takes webhooks:write)</span>
            </p>`
          : html`<form method="post" action="/webhooks/${endpoint.id}/secret" class="inline">
              ${csrfField(signed)}
              <p class="secret masked">
                ${endpoint.signing_scheme === "v1a" ? "whpk_" : "whsec_"}••••••••
                <span class="muted">(hidden)</span>
              </p>
              <button type="submit">Reveal</button>
            </form>`
    }
    ${previous && !state.rotated ? html`<p class="muted">After a rotation the previous one signs too until ${when(previous)}.</p>` : ""}
    ${
      hasScope(signed.session.scopes, "webhooks", "write")
        ? html`<details class="confirm">
            <summary>Rotate…</summary>
            <form method="post" action="/webhooks/${endpoint.id}/rotate">
              ${csrfField(signed)}
              <p>
                A new ${name.toLowerCase()} starts signing now. The current one keeps signing too for 24
                hours, so receivers can switch without missing a delivery.
              </p>
              <button type="submit" class="danger">Rotate now</button>
            </form>
          </details>`
        : ""
    }
  </section>`;
}

function actions(signed: Signed, endpoint: WebhookEndpoint): Html {
  if (!hasScope(signed.session.scopes, "webhooks", "write")) {
    return html`<p class="muted">
      Your role (${signed.session.role}) can see this endpoint but not change it.
    </p>`;
  }
  const post = (path: string, label: string, buttonClass?: string) =>
    postButton(signed, `/webhooks/${endpoint.id}/${path}`, label, {
      formClass: "inline",
      ...(buttonClass ? { buttonClass } : {}),
    });
  return html`<div class="actions">
    <a class="button" href="/webhooks/${endpoint.id}/edit">Edit</a>
    ${endpoint.enabled ? post("test", "Send a test event") : ""}
    ${endpoint.enabled ? post("disable", "Disable", "secondary") : post("enable", "Enable")}
    <details class="confirm">
      <summary>Delete…</summary>
      <form method="post" action="/webhooks/${endpoint.id}/delete">
        ${csrfField(signed)}
        <p>
          The endpoint and its delivery history are deleted; nothing more is sent to it. This cannot be
          undone.
        </p>
        <button type="submit" class="danger">Delete this endpoint</button>
      </form>
    </details>
  </div>`;
}

export function endpointPage(
  signed: Signed,
  endpoint: WebhookEndpoint,
  recent: readonly WebhookDelivery[],
  state: EndpointPageState,
): Html {
  const headerNames = Object.keys(endpoint.headers);
  return html`<p><a href="/webhooks">← Webhooks</a></p>
    <h1 class="endpoint-url">${endpoint.url}</h1>
    ${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ""}
    ${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ""}
    <dl class="facts">
      <dt>Description</dt>
      <dd>${endpoint.description ?? html`<span class="muted">none</span>`}</dd>
      <dt>Status</dt>
      <dd>${healthOf(endpoint)}</dd>
      <dt>Events</dt>
      <dd>${eventTypesOf(endpoint)}</dd>
      <dt>Signing</dt>
      <dd>${endpoint.signing_scheme}</dd>
      <dt>Retries</dt>
      <dd>
        ${endpoint.retry_policy ? html`<code>${JSON.stringify(endpoint.retry_policy)}</code>` : "the default schedule"}
      </dd>
      <dt>Rate limit</dt>
      <dd>${endpoint.rate_limit_per_s === null ? "none" : `${endpoint.rate_limit_per_s} per second`}</dd>
      ${
        // Header values may be credentials for the receiver: their names only.
        headerNames.length > 0
          ? html`<dt>Custom headers</dt>
              <dd>${headerNames.join(", ")}</dd>`
          : ""
      }
      <dt>Id</dt>
      <dd><code>${endpoint.id}</code></dd>
    </dl>
    ${actions(signed, endpoint)} ${secretPanel(signed, endpoint, state)}
    <section aria-labelledby="recent-heading">
      <h2 id="recent-heading">Latest deliveries</h2>
      ${deliveriesTable(endpoint.id, recent)}
      <p><a href="/webhooks/${endpoint.id}/deliveries">All deliveries, retry and recover</a></p>
    </section>
    ${WEBHOOKS_SCRIPT}`;
}
