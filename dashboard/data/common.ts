import type { Context, MiddlewareHandler } from "hono";
import { html, raw } from "hono/html";
import type { AppError } from "../../core/index.ts";
import { hasScope, type AnyResourceService } from "../../engines/index.ts";
import { statusOf } from "../../api/problem.ts";
import { page, type Html } from "../layout.ts";
import { requires, type DashboardEnv } from "../gates.ts";
import {
  errorsByField,
  notFoundPage as sectionNotFound,
  userError,
  type DashboardParts,
  type Signed,
} from "../parts.ts";

/**
 * What every Data page shares: finding the resource a URL names, the signed-in user's access to
 * its engine, how a record is named and linked, and how a service's refusal becomes a page.
 */

/** A record as a service renders it (`{ id, object, … }`). */
export type Item = Record<string, unknown> & { id: string };

/** The services of the resources, and which one an id's prefix names (`inv_…` → invoices). */
export interface Registry {
  services: Map<string, AnyResourceService>;
  byPrefix(id: string): AnyResourceService | undefined;
}

export function createRegistry(services: Map<string, AnyResourceService>): Registry {
  const prefixes = new Map([...services.values()].map((service) => [service.definition.prefix, service]));
  return {
    services,
    byPrefix: (id) => prefixes.get(id.slice(0, id.indexOf("_"))),
  };
}

export type Access = "read" | "write";

/** Whether the user's role reaches the resource's engine (`finance:write` for invoices). */
export function can(signed: Signed, service: AnyResourceService, access: Access): boolean {
  return hasScope(signed.session.scopes, service.definition.engine, access);
}

/** A Data route behind `resourceOf`: the resource the URL names is `c.var.service`. */
export interface ResourceEnv {
  Variables: DashboardEnv["Variables"] & { service: AnyResourceService };
}

/**
 * After `signedIn` or `posted`: the resource the URL names as `c.var.service` (else the 404 page),
 * and the access asked for to its engine (`finance:write` for invoices; else the 403 page).
 */
export function resourceOf(parts: DashboardParts, access: Access): MiddlewareHandler<ResourceEnv> {
  return async (c, next) => {
    const service = parts.deps.resources.get(c.req.param("resource") ?? "");
    if (!service) return notFoundPage(c, parts, c.var.signed);
    c.set("service", service);
    return requires<ResourceEnv>(service.definition.engine, access)(c, next);
  };
}

/** A 404 page in Data (parts.ts). */
export const notFoundPage = (c: Context, parts: DashboardParts, signed: Signed) =>
  sectionNotFound(c, parts, signed, "/data");

/** Where a page shows a refusal: parts.ts (one rule for every group of pages). */
export { userError };

/** The record, or the API's refusal to show it (a 404 naming the id). */
export async function findItem(
  service: AnyResourceService,
  orgId: string,
  id: string,
): Promise<Item | AppError> {
  try {
    return (await service.get(orgId, id)) as Item;
  } catch (error) {
    return userError(error);
  }
}

/** The page for a refusal with no form to show it in (a record that is gone). */
export function errorPage(
  c: Context,
  parts: DashboardParts,
  signed: Signed,
  error: AppError,
): Response | Promise<Response> {
  return c.html(
    page(
      "Not possible",
      parts.nav(signed, "/data"),
      html`<h1>${error.code === "not_found" ? "Not found" : "Not possible"}</h1>
        <p class="error" role="alert">${error.message}</p>
        <p><a href="/data">Back to Data</a></p>`,
    ),
    statusOf(error.code) as 400,
  );
}

/** A refusal's messages by field; one with no field goes under `_form`. */
export function refusalErrors(error: AppError): Record<string, string> {
  return error.errors.length > 0 ? errorsByField(error.errors) : { _form: error.message };
}

/** `contact_id` → `Contact`, `due_date` → `Due date`, `line_items[0].quantity` → `Line items, row 1: Quantity`. */
export function labelOf(name: string): string {
  const row = /^(\w+)\[(\d+)\]\.(\w+)$/.exec(name);
  if (row) return `${labelOf(row[1]!)}, row ${Number(row[2]) + 1}: ${labelOf(row[3]!)}`;
  const words = name.replace(/_id$/, "").replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** How a record is named in a list or a link: its number, name, title or subject, else its id. */
export function nameOf(item: Item): string {
  for (const field of ["number", "name", "title", "subject", "reference"]) {
    const value = item[field];
    if (typeof value === "string" && value.trim()) return value;
  }
  return item.id;
}

export const recordHref = (service: AnyResourceService, id: string): string =>
  `/data/${service.definition.name}/${encodeURIComponent(id)}`;

/** A field value as text on a page: lists joined, objects as JSON, nothing as a muted dash. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === "") return "";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.map((entry) => valueText(entry)).join(", ");
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

/** Fields that hold a record's lifecycle state: shown as a badge, styled by state. */
export const STATE_FIELDS = new Set(["status", "stage", "lifecycle_stage"]);

/**
 * One value in a table cell or a record's field list: an id of another resource is a link to it,
 * a state is a badge, the rest is text (escaped by hono/html).
 */
export function valueCell(registry: Registry, field: string, value: unknown): Html {
  const text = valueText(value);
  if (text === "") return html`<span class="muted">—</span>`;
  if (typeof value === "string" && field.endsWith("_id")) {
    const target = registry.byPrefix(value);
    if (target) return html`<a href="${recordHref(target, value)}"><code>${value}</code></a>`;
  }
  if (STATE_FIELDS.has(field)) return html`<span class="badge" data-state="${text}">${text}</span>`;
  return html`${text}`;
}

/** `selected`, `checked`, … when the condition holds (hono/html escapes values, not attribute names). */
export const flag = (on: boolean, name: string): Html => raw(on ? name : "");

/** The trail above a Data page: Data › Invoices › INV-0001. */
export function breadcrumbs(links: Array<[href: string, label: string]>, current: string): Html {
  return html`<nav class="crumbs" aria-label="Breadcrumb">
    <a href="/data">Data</a>${links.map(([href, label]) => html` › <a href="${href}">${label}</a>`)} ›
    <span aria-current="page">${current}</span>
  </nav>`;
}

/** A summary of a form's errors above it, so each can be found (and the ones with no field read). */
export function errorSummary(errors: Record<string, string>, shown: ReadonlySet<string>): Html {
  const entries = Object.entries(errors);
  if (entries.length === 0) return html``;
  return html`<div class="error-summary" role="alert">
    <p>${entries.length === 1 ? "This needs a fix:" : "These need a fix:"}</p>
    <ul>
      ${entries.map(([name, message]) =>
        shown.has(name)
          ? html`<li><a href="#field-${name}">${labelOf(name)}</a>: ${message}</li>`
          : html`<li>${name === "_form" ? "" : `${name}: `}${message}</li>`,
      )}
    </ul>
  </div>`;
}
