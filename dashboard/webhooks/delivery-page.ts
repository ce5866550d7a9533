import { html, raw } from "hono/html";
import type { Event } from "../../engines/index.ts";
import {
  USER_AGENT,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "../../webhooks/index.ts";
import { type Html, postButton } from "../layout.ts";
import type { Signed } from "../parts.ts";
import { lastResult } from "./endpoint-page.ts";
import { statusBadge, WEBHOOKS_SCRIPT, when } from "./views.ts";

/**
 * One delivery: the message (its event), each attempt's request and response, and Retry. The request
 * is rebuilt from what is kept: the body is the event's JSON (the exact bytes signed and sent, the same
 * on every attempt), `webhook-id` is the event id and `webhook-timestamp` the attempt's start. The
 * signature itself is not kept with the attempt, so only its scheme is shown.
 */

/** How much of a response body the page shows (the first 20 KB are kept). */
const SHOWN_BODY_CHARS = 4_000;

export interface DeliveryPageState {
  notice?: string;
  error?: string;
}

function headerList(headers: ReadonlyArray<[string, Html | string]>): Html {
  return html`<dl class="headers">
    ${headers.map(
      ([name, value]) =>
        html`<dt>${name}</dt>
          <dd>${value}</dd>`,
    )}
  </dl>`;
}

function requestOf(endpoint: WebhookEndpoint, event: Event | undefined, attempt: WebhookAttempt): Html {
  const timestamp = Math.floor(Date.parse(attempt.started_at) / 1000);
  const hidden = html`<span class="muted">(value hidden)</span>`;
  const headers: Array<[string, Html | string]> = [
    ["content-type", "application/json"],
    ["user-agent", USER_AGENT],
    // Custom header values may be the receiver's credentials: never shown on a page.
    ...Object.keys(endpoint.headers).map((name): [string, Html] => [name, hidden]),
    ["webhook-id", event?.id ?? ""],
    ["webhook-timestamp", String(timestamp)],
    [
      "webhook-signature",
      html`<code>${endpoint.signing_scheme},…</code>
        <span class="muted">(one per secret signing then; not kept)</span>`,
    ],
  ];
  return html`<h4>Request</h4>
    <p><code>POST ${endpoint.url}</code></p>
    ${headerList(headers)}
    ${
      event
        ? html`<pre class="json body" tabindex="0" aria-label="Request body">${JSON.stringify(event)}</pre>`
        : html`<p class="muted">The event is no longer kept (past retention).</p>`
    }`;
}

function responseOf(attempt: WebhookAttempt): Html {
  const body = attempt.response_body ?? "";
  const cut = body.length > SHOWN_BODY_CHARS;
  return html`<h4>Response</h4>
    <p>
      ${attempt.status_code === null ? html`<strong>No response</strong>` : html`<strong>HTTP ${attempt.status_code}</strong>`}
      in ${attempt.duration_ms} ms
      ${attempt.error ? html`· <span class="error-text">${attempt.error}</span>` : ""}
    </p>
    ${attempt.response_headers ? headerList(Object.entries(attempt.response_headers)) : ""}
    ${
      attempt.response_body === null
        ? ""
        : html`<pre class="body" tabindex="0" aria-label="Response body">
${cut ? body.slice(0, SHOWN_BODY_CHARS) : body}</pre>
            ${cut ? html`<p class="muted">The first ${SHOWN_BODY_CHARS} of ${body.length} characters kept.</p>` : ""}`
    }`;
}

function attemptSection(
  endpoint: WebhookEndpoint,
  event: Event | undefined,
  attempt: WebhookAttempt,
  open: boolean,
): Html {
  const outcome =
    attempt.status_code === null ? (attempt.error ?? "no response") : `HTTP ${attempt.status_code}`;
  return html`<details class="attempt" ${raw(open ? "open" : "")}>
    <summary>
      Attempt ${attempt.attempt}: ${outcome}, ${attempt.duration_ms} ms, ${when(attempt.started_at)}
    </summary>
    <div class="exchange">
      <div>${requestOf(endpoint, event, attempt)}</div>
      <div>${responseOf(attempt)}</div>
    </div>
  </details>`;
}

function retryForm(signed: Signed, endpoint: WebhookEndpoint, delivery: WebhookDelivery): Html {
  if (!endpoint.enabled) {
    return html`<p class="muted">The endpoint is disabled: enable it to retry.</p>`;
  }
  return postButton(signed, `/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`, "Retry now", {
    formClass: "inline",
  });
}

export function deliveryPage(
  signed: Signed,
  target: {
    endpoint: WebhookEndpoint;
    delivery: WebhookDelivery;
    event: Event | undefined;
    attempts: readonly WebhookAttempt[];
    canWrite: boolean;
  },
  state: DeliveryPageState,
): Html {
  const { endpoint, delivery, event, attempts } = target;
  // While pending, webhooks.js reloads the page now and then, so the outcome shows when it lands.
  const refresh = raw(delivery.status === "pending" ? "data-refresh" : "");
  return html`<p><a href="/webhooks/${endpoint.id}/deliveries">← Deliveries of ${endpoint.url}</a></p>
    <h1>Delivery of <code>${delivery.event_type}</code></h1>
    ${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ""}
    ${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ""}
    <dl class="facts" ${refresh}>
      <dt>Status</dt>
      <dd id="delivery-status">${statusBadge(delivery.status)}</dd>
      <dt>Attempts</dt>
      <dd>${delivery.attempts}</dd>
      <dt>Last result</dt>
      <dd>${lastResult(delivery)}</dd>
      ${
        delivery.next_attempt_at
          ? html`<dt>Next attempt</dt>
              <dd>${when(delivery.next_attempt_at)}</dd>`
          : ""
      }
      <dt>Created</dt>
      <dd>${when(delivery.created_at)}</dd>
      <dt>Event</dt>
      <dd>
        <a href="/events/${delivery.event_id}"><code>${delivery.event_id}</code></a>
      </dd>
      <dt>Id</dt>
      <dd><code>${delivery.id}</code></dd>
    </dl>
    ${target.canWrite ? retryForm(signed, endpoint, delivery) : ""}
    ${delivery.status === "pending" ? html`<p><a href="">Refresh</a> to see new attempts.</p>` : ""}
    <h2>Attempts</h2>
    ${
      attempts.length === 0
        ? html`<p class="muted">No attempt yet.</p>`
        : attempts.map((attempt, index) => attemptSection(endpoint, event, attempt, index === 0))
    }
    ${WEBHOOKS_SCRIPT}`;
}
