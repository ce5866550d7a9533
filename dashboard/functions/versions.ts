import type { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError } from "../../core/index.ts";
import { html } from "hono/html";
import { DEPLOYMENT_LIST, type Deployment, type FunctionObject } from "../../runtime/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { parseListQuery } from "../../api/list-params.ts";
import { statusOf } from "../../api/problem.ts";
import { type Html, postButton } from "../layout.ts";
import type { DashboardParts, Signed } from "../parts.ts";
import { sessionActor } from "../session.ts";
import { canWrite, changing, functionPage, userError, viewing, when } from "./function-page.ts";
import { pager, pageParams } from "./pager.ts";

const PER_PAGE = 50;

/**
 * Versions: every deploy, newest first, each immutable; rolling back points the function at an
 * older one (the service `POST /v1/functions/{name}/rollback` calls, which needs `functions:write`).
 */
export function versionRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  app.get("/functions/:name/versions", ...viewing(parts), async (c) =>
    c.html(await versionsPage(parts, c.var.signed, c.var.fn, c.req.query("page"))),
  );
  app.post("/functions/:name/versions/:version/rollback", ...changing(parts, "write"), async (c) => {
    const { signed, fn } = c.var;
    try {
      const version = versionOf(c.req.param("version") ?? "");
      await parts.deps.functions.rollback(signed.session.orgId, fn.id, version, sessionActor(signed.session));
    } catch (error) {
      const refused = userError(error);
      const status = statusOf(refused.code) as ContentfulStatusCode;
      return c.html(await versionsPage(parts, signed, fn, undefined, refused.message), status);
    }
    return c.redirect(`/functions/${fn.name}/versions`, 303);
  });
}

/** A version in a path: a whole number from 1, else a 404 as /v1 answers it. */
function versionOf(text: string): number {
  const version = Number(text);
  if (Number.isSafeInteger(version) && version >= 1) return version;
  throw new AppError("not_found", `No such version: '${text.slice(0, 20)}'`);
}

async function versionsPage(
  parts: DashboardParts,
  signed: Signed,
  fn: FunctionObject,
  page: string | undefined,
  error?: string,
): Promise<Html> {
  const query = parseListQuery(pageParams(page, PER_PAGE, "-version"), DEPLOYMENT_LIST);
  const versions = await parts.deps.functions.deployments(signed.session.orgId, fn.id, query);
  return functionPage(
    parts,
    signed,
    fn,
    "/versions",
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}
      <table class="fn-table fn-versions">
        <thead>
          <tr>
            <th>Version</th>
            <th>Deployed</th>
            <th>Files</th>
            <th>Bundle</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${versions.data.map((deployment) => versionRow(signed, fn, deployment))}
        </tbody>
      </table>
      ${pager(`/functions/${fn.name}/versions`, versions.meta)}`,
  );
}

function versionRow(signed: Signed, fn: FunctionObject, deployment: Deployment): Html {
  const files = deployment.files.map((file) => file.path);
  return html`<tr
    ${deployment.active ? 'aria-current="true"' : ""}
    class="${deployment.active ? "fn-active" : ""}"
  >
    <td>
      v${deployment.version} ${deployment.active ? html`<span class="fn-badge">serving</span>` : ""}
      ${deployment.warnings.length > 0 ? html`<span class="muted">${deployment.warnings.length} warnings</span>` : ""}
    </td>
    <td>${when(deployment.created_at)}</td>
    <td>
      <details>
        <summary>${files.length} ${files.length === 1 ? "file" : "files"}</summary>
        <ul class="fn-files">
          ${files.map((path) => html`<li><code>${path}</code></li>`)}
        </ul>
      </details>
    </td>
    <td>
      ${deployment.bundle_bytes} bytes
      <code class="muted" title="${deployment.sha256}">${deployment.sha256.slice(0, 8)}</code>
    </td>
    <td>
      ${
        !deployment.active && canWrite(signed)
          ? postButton(
              signed,
              `/functions/${fn.name}/versions/${deployment.version}/rollback`,
              "Roll back to this version",
              {
                buttonClass: "fn-secondary",
                ariaLabel: `Roll back to this version (v${deployment.version})`,
                confirm: `Serve version ${deployment.version} of ${fn.name} instead of version ${fn.version}?`,
              },
            )
          : ""
      }
    </td>
  </tr>`;
}
