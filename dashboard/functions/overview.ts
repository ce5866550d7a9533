import type { Hono } from "hono";
import { html, raw } from "hono/html";
import type { FunctionObject } from "../../runtime/index.ts";
import type { AppEnv } from "../../api/env.ts";
import type { InvocationDeps } from "../../api/invocation/index.ts";
import { createAuthenticator } from "../../api/middleware/auth.ts";
import { csrfField, type Html } from "../layout.ts";
import type { DashboardParts, Signed } from "../parts.ts";
import { changing, functionPage, triggerText, viewing, when } from "./function-page.ts";
import {
  EMPTY_REQUEST,
  INVOKE_METHODS,
  invokeFunction,
  invokeRequestOf,
  MAX_SHOWN_BYTES,
  type InvokeRequest,
  type InvokeResult,
} from "./invoke.ts";
import { recentLogs } from "./logs.ts";

/**
 * A function's overview: what serves it (version, auth, limits, triggers), the request builder
 * with the last answer, and its recent logs with the live tail. Invoking needs what /v1 needs to
 * invoke a function: `functions:read`.
 */
export function overviewRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  // The invocation path's caller check and rate limit, as createApi builds them for /v1.
  const invocation: InvocationDeps = { ...parts.deps, authenticate: createAuthenticator(parts.deps) };
  app.get("/functions/:name", ...viewing(parts), async (c) => {
    const { signed, fn } = c.var;
    const deployed = Number(c.req.query("deployed"));
    const notice = Number.isSafeInteger(deployed) && deployed > 0 ? deployed : undefined;
    return c.html(await overview(parts, signed, fn, { request: EMPTY_REQUEST, errors: {}, notice }));
  });
  app.post("/functions/:name/invoke", ...changing(parts, "read"), async (c) => {
    const { signed, fn, form } = c.var;
    const request = invokeRequestOf(form);
    const outcome = await invokeFunction(c, invocation, signed, fn, request);
    const state =
      "errors" in outcome ? { request, errors: outcome.errors } : { request, errors: {}, ...outcome };
    return c.html(await overview(parts, signed, fn, state), "errors" in outcome ? 422 : 200);
  });
}

interface OverviewState {
  request: InvokeRequest;
  errors: Record<string, string>;
  result?: InvokeResult;
  /** A version just deployed. */
  notice?: number | undefined;
}

async function overview(
  parts: DashboardParts,
  signed: Signed,
  fn: FunctionObject,
  state: OverviewState,
): Promise<Html> {
  return functionPage(
    parts,
    signed,
    fn,
    "",
    html`${
      state.notice
        ? html`<p class="notice" role="status">Version ${state.notice} is deployed and serving requests.</p>`
        : ""
    }
    ${facts(fn, parts.deps.config.functionsOrigin?.url)} ${builder(signed, fn, state)}
    ${await recentLogs(parts, signed, fn)}`,
  );
}

/** `functionsUrl`: the functions origin (TESSERA_FUNCTIONS_URL), where the function's URL is shown. */
function facts(fn: FunctionObject, functionsUrl: string | undefined): Html {
  return html`<dl class="fn-facts">
    <dt>Serving</dt>
    <dd>
      version ${fn.version}${fn.latest_version !== fn.version ? ` (latest is ${fn.latest_version})` : ""}
    </dd>
    <dt>Deployed</dt>
    <dd>${when(fn.deployed_at)}</dd>
    <dt>Invoke at</dt>
    <dd><code>${functionsUrl ?? ""}${fn.invoke_path}</code></dd>
    <dt>Who may invoke</dt>
    <dd>${fn.auth === "public" ? "anyone (public)" : "callers with functions:read"}</dd>
    <dt>Entrypoint</dt>
    <dd><code>${fn.entrypoint}</code> · ${fn.bundle_bytes} bytes bundled</dd>
    <dt>Limits</dt>
    <dd>
      ${fn.limits.memory_mb} MB memory · ${fn.limits.cpu_time_ms} ms CPU · ${fn.limits.wall_time_ms} ms wall
      time
    </dd>
    <dt>Triggers</dt>
    <dd>
      ${
        fn.triggers.length === 0
          ? html`<span class="muted">HTTP only</span>`
          : html`<ul class="fn-triggers">
              ${fn.triggers.map((trigger) => html`<li>${triggerText(trigger)}</li>`)}
            </ul>`
      }
    </dd>
  </dl>`;
}

/** The request builder, filled with the last request, and the function's answer below it. */
function builder(signed: Signed, fn: FunctionObject, state: OverviewState): Html {
  const { request, errors } = state;
  return html`<section class="card fn-invoke" aria-labelledby="invoke-title">
    <h2 id="invoke-title">Invoke</h2>
    <form method="post" action="/functions/${fn.name}/invoke" class="fn-request">
      ${csrfField(signed)}
      <div class="fn-request-line">
        <div>
          <label for="fn-method">Method</label>
          <select id="fn-method" name="method">
            ${INVOKE_METHODS.map(
              (method) =>
                html`<option ${raw(request.method === method ? "selected" : "")}>${method}</option>`,
            )}
          </select>
        </div>
        <div class="fn-path">
          <label for="fn-path">Path</label>
          <input
            id="fn-path"
            name="path"
            type="text"
            value="${request.path}"
            placeholder="/"
            aria-describedby="fn-path-hint"
          />
        </div>
      </div>
      <p class="fn-hint" id="fn-path-hint">After <code>/v1/functions/${fn.name}/invoke</code>.</p>
      ${fieldErrorAt(errors, "method")} ${fieldErrorAt(errors, "path")}
      <label for="fn-headers">Headers <span class="muted">(one per line, Name: value)</span></label>
      <textarea
        id="fn-headers"
        name="headers"
        rows="3"
        spellcheck="false"
        placeholder="content-type: application/json"
      >
${request.headers}</textarea>
      ${fieldErrorAt(errors, "headers")}
      <label for="fn-body">Body</label>
      <textarea id="fn-body" name="body" rows="5" spellcheck="false">${request.body}</textarea>
      <button type="submit">Send</button>
    </form>
    ${state.result ? answer(state.result) : ""}
  </section>`;
}

function fieldErrorAt(errors: Record<string, string>, field: string): Html {
  const message = errors[field];
  return message
    ? html`<p class="error" id="fn-${field}-error" role="alert">${field}: ${message}</p>`
    : html``;
}

function answer(result: InvokeResult): Html {
  return html`<section class="fn-response" aria-labelledby="response-title" role="status">
    <h3 id="response-title">
      Response <span class="fn-status fn-status-${String(result.status).charAt(0)}xx">${result.status}</span>
      ${result.statusText}
    </h3>
    <p class="muted">Request <code>${result.requestId}</code></p>
    <table class="fn-headers">
      <tbody>
        ${result.headers.map(
          ([name, value]) =>
            html`<tr>
              <th scope="row">${name}</th>
              <td><code>${value}</code></td>
            </tr>`,
        )}
      </tbody>
    </table>
    <pre class="fn-body${result.binary ? " muted" : ""}" tabindex="0" aria-label="Response body">
${result.body}</pre>
    ${result.truncated ? html`<p class="muted">Only the first ${MAX_SHOWN_BYTES} bytes are shown.</p>` : ""}
  </section>`;
}
