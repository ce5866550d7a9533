import { html } from "hono/html";
import { LOG_LIST, type FunctionLog, type FunctionObject } from "../../runtime/index.ts";
import { parseListQuery } from "../../api/list-params.ts";
import type { Html } from "../layout.ts";
import type { DashboardParts, Signed } from "../parts.ts";

/**
 * A function's recent console lines, newest first, and the hooks of the live tail: the list names
 * the API's own `GET /v1/functions/{name}/logs` (which accepts the session cookie from this origin),
 * and client/functions.js polls it and adds the lines it has not shown, built the same way as here.
 * Without the script, the Refresh link reloads the page.
 */

export const RECENT_LOG_LINES = 50;

export async function recentLogs(parts: DashboardParts, signed: Signed, fn: FunctionObject): Promise<Html> {
  const query = parseListQuery(new URLSearchParams({ per_page: String(RECENT_LOG_LINES) }), LOG_LIST);
  const logs = await parts.deps.functions.logs(signed.session.orgId, fn.id, query);
  const tail = `/v1/functions/${fn.name}/logs?per_page=${RECENT_LOG_LINES}`;
  return html`<section class="fn-logs-section" id="logs" aria-labelledby="logs-title">
    <div class="fn-head">
      <h2 id="logs-title">Logs</h2>
      <p class="fn-tail-controls">
        <span class="fn-tail-status muted" id="fn-tail-status" role="status"></span>
        <a href="/functions/${fn.name}#logs" class="fn-refresh">Refresh</a>
      </p>
    </div>
    <p class="muted fn-logs-empty" ${logs.data.length > 0 ? "hidden" : ""}>
      No log lines yet: what the function writes with <code>console.log</code> shows here.
    </p>
    <ol class="fn-logs" data-tail="${tail}" aria-live="polite" aria-relevant="additions">
      ${logs.data.map(logLine)}
    </ol>
  </section>`;
}

/** One line: when, its level, the message, and the request it belongs to (functions.js builds the same). */
function logLine(line: FunctionLog): Html {
  return html`<li class="fn-log fn-log-${line.level}" data-id="${line.id}">
    <time datetime="${line.timestamp}">${line.timestamp.slice(11, 19)}</time>
    <span class="fn-log-level">${line.level}</span>
    <code class="fn-log-message">${line.message}</code>
    <span class="fn-log-request muted">${line.request_id}</span>
  </li>`;
}
