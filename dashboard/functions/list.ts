import type { Hono } from "hono";
import { html } from "hono/html";
import { FUNCTION_LIST } from "../../runtime/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { parseListQuery } from "../../api/list-params.ts";
import { page } from "../layout.ts";
import { requires } from "../gates.ts";
import type { DashboardParts } from "../parts.ts";
import { canWrite, triggerText, when } from "./function-page.ts";
import { pager, pageParams } from "./pager.ts";

const PER_PAGE = 50;

/** `/functions`: the organization's functions by name, with the version serving each and its triggers. */
export function listRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  app.get("/functions", parts.signedIn, requires("functions", "read"), async (c) => {
    const { signed } = c.var;
    const params = pageParams(c.req.query("page"), PER_PAGE, "name");
    const list = await parts.deps.functions.list(signed.session.orgId, parseListQuery(params, FUNCTION_LIST));
    return c.html(
      page(
        "Functions",
        parts.nav(signed, "/functions"),
        html`<div class="fn-head">
            <h1>Functions</h1>
            ${canWrite(signed) ? html`<a class="fn-button" href="/functions/new">Deploy a function</a>` : ""}
          </div>
          ${
            list.data.length === 0
              ? html`<p class="muted">
                  No functions yet. Functions are TypeScript handlers for Deno that run here, each in its own
                  isolate.
                </p>`
              : html`<table class="fn-table">
                  <thead>
                    <tr>
                      <th>Name</th>
                      <th>Version</th>
                      <th>Deployed</th>
                      <th>Triggers</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${list.data.map(
                      (fn) =>
                        html`<tr>
                          <td>
                            <a href="/functions/${fn.name}">${fn.name}</a>
                            ${fn.auth === "public" ? html`<span class="fn-badge">public</span>` : ""}
                          </td>
                          <td>
                            v${fn.version}${fn.latest_version !== fn.version ? html` of ${fn.latest_version}` : ""}
                          </td>
                          <td>${when(fn.deployed_at)}</td>
                          <td>
                            ${
                              fn.triggers.length === 0
                                ? html`<span class="muted">HTTP only</span>`
                                : fn.triggers.map(
                                    (trigger) =>
                                      html`<span class="fn-trigger">${triggerText(trigger)}</span>`,
                                  )
                            }
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }
          ${pager("/functions", list.meta)}`,
      ),
    );
  });
}
