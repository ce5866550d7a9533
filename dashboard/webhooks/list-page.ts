import { html } from "hono/html";
import type { Page } from "../../engines/index.ts";
import type { WebhookEndpoint } from "../../webhooks/index.ts";
import type { Html } from "../layout.ts";
import type { DashboardParts, Signed } from "../parts.ts";
import { eventTypesOf, healthOf, lastResult } from "./endpoint-page.ts";
import { canWrite, listQuery, pager, statusBadge, when } from "./views.ts";

/** `/webhooks`: the organization's endpoints, each with its health and its latest delivery. */
export async function listPage(
  parts: DashboardParts,
  signed: Signed,
  list: Page<WebhookEndpoint>,
  notice: string | undefined,
): Promise<Html> {
  // The latest delivery of each endpoint on the page: its health as receivers see it.
  const latestOf = async (endpoint: WebhookEndpoint) => {
    const page = await parts.deps.webhookDeliveries.listForEndpoint(
      signed.session.orgId,
      endpoint.id,
      listQuery("1", 1),
    );
    return page.data[0];
  };
  const latest = await Promise.all(list.data.map(latestOf));
  return html`<h1>Webhooks</h1>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
    <p class="muted">
      Tessera signs every delivery (Standard Webhooks) and retries failures for about three days. Events are
      listed in the <a href="/events">Events</a> explorer.
    </p>
    ${canWrite(signed) ? html`<p><a class="button" href="/webhooks/new">Add an endpoint</a></p>` : ""}
    ${
      list.data.length === 0
        ? html`<p class="muted">No endpoints yet.</p>`
        : html`<table class="endpoints">
            <thead>
              <tr>
                <th>Endpoint</th>
                <th>Status</th>
                <th>Latest delivery</th>
                <th>Events</th>
              </tr>
            </thead>
            <tbody>
              ${list.data.map(
                (endpoint, index) =>
                  html`<tr>
                    <td>
                      <a class="endpoint-url" href="/webhooks/${endpoint.id}">${endpoint.url}</a>
                      ${endpoint.description ? html`<br /><span class="muted">${endpoint.description}</span>` : ""}
                    </td>
                    <td>${healthOf(endpoint)}</td>
                    <td>
                      ${
                        latest[index]
                          ? html`${statusBadge(latest[index].status)} ${when(latest[index].created_at)}<br /><span
                                class="muted"
                                >${lastResult(latest[index])}</span
                              >`
                          : html`<span class="muted">none yet</span>`
                      }
                    </td>
                    <td>${eventTypesOf(endpoint)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/webhooks", {}, list.meta)}`;
}
