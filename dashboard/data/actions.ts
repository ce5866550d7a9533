import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { AppError } from "../../core/index.ts";
import type { AnyResourceService } from "../../engines/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { statusOf } from "../../api/problem.ts";
import { csrfField, page } from "../layout.ts";
import { textOf, type DashboardParts, type Signed } from "../parts.ts";
import {
  breadcrumbs,
  errorPage,
  findItem,
  labelOf,
  nameOf,
  recordHref,
  refusalErrors,
  resourceOf,
  userError,
  type Item,
  type Registry,
} from "./common.ts";
import { recordPage } from "./record.ts";
import { lifecycleOf, performMove } from "./transitions.ts";

/**
 * A record's state transitions (`POST /data/<resource>/<id>/move`, from the record page's buttons)
 * and its deletion, confirmed on a page of its own first. The services decide: a move the state
 * machine refuses, or a delete the resource refuses (an issued invoice), comes back as the API's
 * 409 and message.
 */
export function actionRoutes(app: Hono<AppEnv>, parts: DashboardParts, registry: Registry): void {
  app.post("/data/:resource/:id/move", parts.posted, resourceOf(parts, "write"), async (c) => {
    const { signed, service, form } = c.var;
    const lifecycle = lifecycleOf(service.definition.name);
    const to = textOf(form, "to");
    if (!lifecycle?.moves.some((move) => move.to === to))
      return recordPage(c, parts, registry, signed, service, c.req.param("id"), {
        move: { to, values: {}, errors: { _form: `No such action: '${to}'` } },
        status: 422,
      });
    const item = await findItem(service, signed.session.orgId, c.req.param("id"));
    if (item instanceof Error) return errorPage(c, parts, signed, item);
    const values = Object.fromEntries(Object.keys(form).map((name) => [name, textOf(form, name)]));
    try {
      const result = await performMove(lifecycle, { registry, signed, item, to, form: values });
      if (result.done) return c.redirect(recordHref(service, item.id), 303);
      return recordPage(c, parts, registry, signed, service, item.id, {
        move: { to, values, errors: result.errors },
        status: 422,
      });
    } catch (error) {
      const refusal = userError(error);
      return recordPage(c, parts, registry, signed, service, item.id, {
        move: { to, values, errors: { ...refusalErrors(refusal), _form: refusal.message } },
        status: statusOf(refusal.code) === 409 ? 409 : 422,
      });
    }
  });
  app.get("/data/:resource/:id/delete", parts.signedIn, resourceOf(parts, "write"), async (c) => {
    const { signed, service } = c.var;
    const item = await findItem(service, signed.session.orgId, c.req.param("id"));
    if (item instanceof Error) return errorPage(c, parts, signed, item);
    return confirmPage(c, parts, signed, service, item);
  });
  app.post("/data/:resource/:id/delete", parts.posted, resourceOf(parts, "write"), async (c) => {
    const { signed, service } = c.var;
    const orgId = signed.session.orgId;
    const item = await findItem(service, orgId, c.req.param("id"));
    if (item instanceof Error) return errorPage(c, parts, signed, item);
    try {
      await service.delete(orgId, item.id);
      return c.redirect(`/data/${service.definition.name}`, 303);
    } catch (error) {
      return confirmPage(c, parts, signed, service, item, userError(error));
    }
  });
}

/** "Delete INV-0001?" with one button (a plain page: no script, no dialog), or why it cannot be. */
function confirmPage(
  c: Context,
  parts: DashboardParts,
  signed: Signed,
  service: AnyResourceService,
  item: Item,
  refusal?: AppError,
): Response | Promise<Response> {
  const { definition } = service;
  const name = nameOf(item);
  const title = `Delete ${labelOf(definition.object).toLowerCase()} ${name}`;
  const body = html`${breadcrumbs(
      [
        [`/data/${definition.name}`, labelOf(definition.name)],
        [recordHref(service, item.id), name],
      ],
      "Delete",
    )}
    <h1>${title}?</h1>
    ${
      refusal
        ? html`<p class="error" role="alert">${refusal.message}</p>
            <p><a href="${recordHref(service, item.id)}">Back to ${name}</a></p>`
        : html`<form method="post" action="${recordHref(service, item.id)}/delete" class="card">
            ${csrfField(signed)}
            <p>
              This deletes the ${definition.object} for good; the API and webhooks see a
              <code>${definition.object}.deleted</code> event.
            </p>
            <button type="submit" class="danger">Delete ${name}</button>
            <a href="${recordHref(service, item.id)}">Cancel</a>
          </form>`
    }`;
  const status = refusal ? (statusOf(refusal.code) as 409) : 200;
  return c.html(page(title, parts.nav(signed, "/data"), body), status);
}
