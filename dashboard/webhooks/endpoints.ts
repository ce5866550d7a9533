import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { z } from "zod";
import { AppError } from "../../core/index.ts";
import {
  WebhookEndpointCreateSchema,
  WebhookEndpointUpdateSchema,
  type WebhookEndpoint,
} from "../../webhooks/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { page } from "../layout.ts";
import { requires } from "../gates.ts";
import { errorsByField, type DashboardParts, type Signed } from "../parts.ts";
import { sessionActor } from "../session.ts";
import {
  bodyOfValues,
  EMPTY_FORM,
  endpointForm,
  formField,
  valuesOfEndpoint,
  valuesOfForm,
  type EndpointFormValues,
} from "./endpoint-form.ts";
import { endpointPage, type EndpointPageState } from "./endpoint-page.ts";
import { listPage } from "./list-page.ts";
import { ENDPOINT_ID, listQuery, notFound, refusalOf } from "./views.ts";

/**
 * Endpoints: the list, create, the endpoint's page, edit, disable and enable, delete. Each calls the
 * service `/v1/webhook_endpoints` calls, so the URL rules, the catalog check and the events recorded
 * are the API's own. Reading needs `webhooks:read`; every change `webhooks:write`.
 */

/** Messages after a redirect, by key: no text of the user's travels in a URL. */
const DONE: Record<string, string> = {
  created: "Endpoint created. Reveal its signing secret below when you set up the receiver.",
  updated: "Endpoint saved.",
  disabled: "Endpoint disabled: nothing is sent to it until it is enabled.",
  enabled: "Endpoint enabled.",
  deleted: "Endpoint deleted.",
};

/** Form errors by field, the picker's per-item errors (`event_types[2]`) folded into the picker's. */
function formErrors(byParam: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [param, message] of Object.entries(byParam)) errors[formField(param)] ??= message;
  return errors;
}

/** The endpoint's page with its latest deliveries, in the state an action left it. */
export async function renderEndpoint(
  c: Context,
  parts: DashboardParts,
  signed: Signed,
  endpoint: WebhookEndpoint,
  state: EndpointPageState,
  status: 200 | 409 = 200,
): Promise<Response> {
  const recent = await parts.deps.webhookDeliveries.listForEndpoint(
    signed.session.orgId,
    endpoint.id,
    listQuery("1", 10),
  );
  const body = endpointPage(signed, endpoint, recent.data, state);
  return c.html(page(endpoint.url, parts.nav(signed, "/webhooks"), body), status);
}

export function endpointRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, signedIn, posted, nav } = parts;
  const service = deps.webhookEndpoints;
  const reads = requires("webhooks", "read");
  const writes = requires("webhooks", "write");

  const formPage = (
    c: Context,
    signed: Signed,
    target: { endpoint?: WebhookEndpoint; values: EndpointFormValues; errors: Record<string, string> },
    status: 200 | 422 = 200,
  ) => {
    const { endpoint } = target;
    const title = endpoint ? "Edit endpoint" : "New endpoint";
    const body = html`<p><a href="${endpoint ? `/webhooks/${endpoint.id}` : "/webhooks"}">← Back</a></p>
      <h1>${title}</h1>
      ${endpointForm({
        action: endpoint ? `/webhooks/${endpoint.id}/edit` : "/webhooks/new",
        submit: endpoint ? "Save" : "Create endpoint",
        csrf: signed.csrf,
        catalog: deps.catalog,
        values: target.values,
        errors: target.errors,
        creating: !endpoint,
      })}`;
    return c.html(page(title, nav(signed, "/webhooks"), body), status);
  };

  app.get("/webhooks", signedIn, reads, async (c) => {
    const { signed } = c.var;
    const list = await service.list(signed.session.orgId, listQuery(c.req.query("page"), 25));
    const notice = DONE[c.req.query("done") ?? ""];
    return c.html(page("Webhooks", nav(signed, "/webhooks"), await listPage(parts, signed, list, notice)));
  });

  app.get("/webhooks/new", signedIn, writes, (c) =>
    formPage(c, c.var.signed, { values: EMPTY_FORM, errors: {} }),
  );

  app.post("/webhooks/new", posted, writes, async (c) => {
    const { signed, form } = c.var;
    const values = valuesOfForm(form);
    const created = await saved(values, { schema: WebhookEndpointCreateSchema, creating: true }, (input) =>
      service.create(signed.session.orgId, input, sessionActor(signed.session)),
    );
    if ("errors" in created) return formPage(c, signed, { values, errors: created.errors }, 422);
    return c.redirect(`/webhooks/${created.endpoint.id}?done=created`, 303);
  });

  app.get(`/webhooks/${ENDPOINT_ID}`, signedIn, reads, async (c) => {
    const { signed } = c.var;
    const endpoint = await refusalOf(() => service.get(signed.session.orgId, c.req.param("id")));
    if (endpoint instanceof AppError) return notFound(c, parts, signed, "/webhooks");
    const notice = DONE[c.req.query("done") ?? ""];
    return renderEndpoint(c, parts, signed, endpoint, notice ? { notice } : {});
  });

  app.get(`/webhooks/${ENDPOINT_ID}/edit`, signedIn, writes, async (c) => {
    const { signed } = c.var;
    const endpoint = await refusalOf(() => service.get(signed.session.orgId, c.req.param("id")));
    if (endpoint instanceof AppError) return notFound(c, parts, signed, "/webhooks");
    return formPage(c, signed, { endpoint, values: valuesOfEndpoint(endpoint), errors: {} });
  });

  app.post(`/webhooks/${ENDPOINT_ID}/edit`, posted, writes, async (c) => {
    const { signed, form } = c.var;
    const id = c.req.param("id");
    const endpoint = await refusalOf(() => service.get(signed.session.orgId, id));
    if (endpoint instanceof AppError) return notFound(c, parts, signed, "/webhooks");
    const values = valuesOfForm(form);
    const updated = await saved(values, { schema: WebhookEndpointUpdateSchema, creating: false }, (input) =>
      service.update(signed.session.orgId, id, input, sessionActor(signed.session)),
    );
    if ("errors" in updated) return formPage(c, signed, { endpoint, values, errors: updated.errors }, 422);
    return c.redirect(`/webhooks/${id}?done=updated`, 303);
  });

  for (const [path, enabled] of [
    ["disable", false],
    ["enable", true],
  ] as const) {
    app.post(`/webhooks/${ENDPOINT_ID}/${path}`, posted, writes, async (c) => {
      const { signed } = c.var;
      const id = c.req.param("id");
      const actor = sessionActor(signed.session);
      const updated = await refusalOf(() => service.update(signed.session.orgId, id, { enabled }, actor));
      if (updated instanceof AppError) return notFound(c, parts, signed, "/webhooks");
      return c.redirect(`/webhooks/${id}?done=${path}d`, 303);
    });
  }

  app.post(`/webhooks/${ENDPOINT_ID}/delete`, posted, writes, async (c) => {
    const { signed } = c.var;
    const actor = sessionActor(signed.session);
    const deleted = await refusalOf(() => service.delete(signed.session.orgId, c.req.param("id"), actor));
    if (deleted instanceof AppError) return notFound(c, parts, signed, "/webhooks");
    return c.redirect("/webhooks?done=deleted", 303);
  });
}

/**
 * Checks the form as the API checks its body (the schema, then the service's URL and catalog
 * rules) and saves it; the refusals come back as the form's field errors.
 */
async function saved<T>(
  values: EndpointFormValues,
  body: { schema: z.ZodType<T>; creating: boolean },
  save: (input: T) => Promise<WebhookEndpoint>,
): Promise<{ endpoint: WebhookEndpoint } | { errors: Record<string, string> }> {
  const { body: input, errors } = bodyOfValues(values, body.creating);
  const parsed = body.schema.safeParse(input);
  if (!parsed.success) return { errors: formErrors({ ...errorsByField(parsed.error), ...errors }) };
  if (Object.keys(errors).length > 0) return { errors };
  const endpoint = await refusalOf(() => save(parsed.data));
  if (!(endpoint instanceof AppError)) return { endpoint };
  if (endpoint.errors.length > 0) return { errors: formErrors(errorsByField(endpoint.errors)) };
  return { errors: { _form: endpoint.message } };
}
