import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { AnyResourceService } from "../../engines/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { parseListQuery } from "../../api/list-params.ts";
import { statusOf } from "../../api/problem.ts";
import { page } from "../layout.ts";
import { errorsByField, type DashboardParts, type Signed } from "../parts.ts";
import {
  breadcrumbs,
  can,
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
import {
  bodyOf,
  changedFields,
  formFields,
  postedValues,
  valuesOf,
  type FormField,
  type Values,
} from "./fields.ts";
import { recordForm, type Choices } from "./form-view.ts";
import { lifecycleOf } from "./transitions.ts";

/** Blank line-item rows a form offers: more on a new record, a couple to add on an edit. */
const NEW_ROWS = 3;
const EDIT_ROWS = 2;
/** Records offered in a reference's choice (`contact_id`); the newest first. */
const CHOICES_LIMIT = "100";

/**
 * Create (`/data/<resource>/new`) and edit (`/data/<resource>/<id>/edit`) forms, derived from the
 * resource's create and update schemas. A post is read into the body the API would take, checked
 * by the same schema and written by the same service; whatever either refuses is shown at its
 * field (422, or the service's 409), with every entered value kept.
 */
export function formRoutes(app: Hono<AppEnv>, parts: DashboardParts, registry: Registry): void {
  app.get("/data/:resource/new", parts.signedIn, resourceOf(parts, "write"), async (c) => {
    const found = c.var;
    const fields = createFields(found.service);
    // A link may fill fields in (`/data/payments/new?invoice_id=inv_…`, from the invoice's page).
    const query = new URL(c.req.url).searchParams;
    const values = Object.fromEntries(fields.map((field) => [field.name, query.get(field.name) ?? ""]));
    return createPage(c, parts, registry, found, { values, errors: {} }, 200);
  });
  app.post("/data/:resource/new", parts.posted, resourceOf(parts, "write"), async (c) => {
    const { signed, service, form } = c.var;
    const fields = createFields(service);
    const values = postedValues(fields, form);
    const { body, errors } = bodyOf(fields, values, "create");
    const parsed = service.definition.schemas.create.safeParse(body);
    if (!parsed.success || Object.keys(errors).length > 0) {
      const all = { ...(parsed.success ? {} : errorsByField(parsed.error)), ...errors };
      return createPage(c, parts, registry, { signed, service }, { values, errors: all }, 422);
    }
    try {
      const created = (await service.create(signed.session.orgId, parsed.data)) as Item;
      return c.redirect(recordHref(service, created.id), 303);
    } catch (error) {
      const refusal = userError(error);
      const state = { values, errors: refusalErrors(refusal) };
      return createPage(c, parts, registry, { signed, service }, state, statusOf(refusal.code));
    }
  });
  app.get("/data/:resource/:id/edit", parts.signedIn, resourceOf(parts, "write"), async (c) => {
    const found = c.var;
    const item = await findItem(found.service, found.signed.session.orgId, c.req.param("id"));
    if (item instanceof Error) return errorPage(c, parts, found.signed, item);
    const values = valuesOf(editFields(found.service), item);
    return editPage(c, parts, registry, { ...found, item }, { values, errors: {} }, 200);
  });
  app.post("/data/:resource/:id/edit", parts.posted, resourceOf(parts, "write"), async (c) => {
    const { signed, service, form } = c.var;
    const orgId = signed.session.orgId;
    const item = await findItem(service, orgId, c.req.param("id"));
    if (item instanceof Error) return errorPage(c, parts, signed, item);
    const fields = editFields(service);
    const values = postedValues(fields, form);
    const target = { signed, service, item };
    // Only what the user changed is sent: a paid invoice still takes a new description, and an
    // untouched amount does not fight the line items it follows from.
    const changed = changedFields(fields, valuesOf(fields, item), values);
    if (changed.length === 0) return c.redirect(recordHref(service, item.id), 303);
    const { body, errors } = bodyOf(changed, values, "update");
    removeClearedKeys(body, item);
    const parsed = service.definition.schemas.update.safeParse(body);
    if (!parsed.success || Object.keys(errors).length > 0) {
      const all = { ...(parsed.success ? {} : errorsByField(parsed.error)), ...errors };
      return editPage(c, parts, registry, target, { values, errors: all }, 422);
    }
    try {
      await service.update(orgId, item.id, parsed.data);
      return c.redirect(recordHref(service, item.id), 303);
    } catch (error) {
      const refusal = userError(error);
      const state = { values, errors: refusalErrors(refusal) };
      return editPage(c, parts, registry, target, state, statusOf(refusal.code));
    }
  });
}

const createFields = (service: AnyResourceService): FormField[] =>
  formFields(service.definition.schemas.create);

/** An edit leaves the lifecycle's state to the record page's buttons, which allow only real moves. */
function editFields(service: AnyResourceService): FormField[] {
  const lifecycle = lifecycleOf(service.definition.name);
  return formFields(service.definition.schemas.update, new Set(lifecycle ? [lifecycle.field] : []));
}

/**
 * Metadata patches merge (engines/resource.ts `mergeMetadata`): a key removed from the form's lines
 * is sent as "", which removes it, so the record ends as the form shows it.
 */
function removeClearedKeys(body: Record<string, unknown>, item: Item): void {
  const metadata = body.metadata as Record<string, string> | undefined;
  const current = item.metadata as Record<string, string> | undefined;
  if (!metadata || !current) return;
  for (const key of Object.keys(current)) if (!(key in metadata)) metadata[key] = "";
}

interface FormState {
  values: Values;
  errors: Record<string, string>;
}

async function createPage(
  c: Context,
  parts: DashboardParts,
  registry: Registry,
  { signed, service }: { signed: Signed; service: AnyResourceService },
  state: FormState,
  status: number,
): Promise<Response> {
  const { definition } = service;
  const fields = createFields(service);
  const title = `New ${labelOf(definition.object).toLowerCase()}`;
  const body = html`${breadcrumbs([[`/data/${definition.name}`, labelOf(definition.name)]], "New")}
    <h1>${title}</h1>
    ${recordForm(signed, {
      action: `/data/${definition.name}/new`,
      submit: `Create ${labelOf(definition.object).toLowerCase()}`,
      fields,
      ...state,
      choices: await choicesFor(registry, signed, fields),
      blankRows: NEW_ROWS,
    })}`;
  return c.html(page(title, parts.nav(signed, "/data"), body), status as 200);
}

async function editPage(
  c: Context,
  parts: DashboardParts,
  registry: Registry,
  { signed, service, item }: { signed: Signed; service: AnyResourceService; item: Item },
  state: FormState,
  status: number,
): Promise<Response> {
  const { definition } = service;
  const fields = editFields(service);
  const title = `Edit ${labelOf(definition.object).toLowerCase()} ${nameOf(item)}`;
  const body = html`${breadcrumbs(
      [
        [`/data/${definition.name}`, labelOf(definition.name)],
        [recordHref(service, item.id), nameOf(item)],
      ],
      "Edit",
    )}
    <h1>${title}</h1>
    ${recordForm(signed, {
      action: `${recordHref(service, item.id)}/edit`,
      submit: "Save changes",
      fields,
      ...state,
      choices: await choicesFor(registry, signed, fields),
      blankRows: EDIT_ROWS,
    })}
    <p><a href="${recordHref(service, item.id)}">Cancel</a></p>`;
  return c.html(page(title, parts.nav(signed, "/data"), body), status as 200);
}

/** For each reference among the fields (row columns too), the newest records it may name. */
async function choicesFor(
  registry: Registry,
  signed: Signed,
  fields: readonly FormField[],
): Promise<Choices> {
  const prefixes = new Set(
    fields.flatMap((field) => [field, ...(field.columns ?? [])]).flatMap((field) => field.refPrefix ?? []),
  );
  const entries = await Promise.all(
    [...prefixes].map(async (prefix) => {
      const service = registry.byPrefix(`${prefix}_`);
      if (!service || !can(signed, service, "read")) return undefined;
      const query = parseListQuery(new URLSearchParams({ per_page: CHOICES_LIMIT }), service.definition);
      const listed = await service.list(signed.session.orgId, query);
      const records = (listed.data as Item[]).map((item) => ({ id: item.id, label: nameOf(item) }));
      return [prefix, records] as const;
    }),
  );
  return new Map(entries.filter((entry) => entry !== undefined));
}
