import type { Context, MiddlewareHandler } from "hono";
import { html, raw } from "hono/html";
import { isAppError } from "../../core/index.ts";
import { hasScope, type Access } from "../../engines/index.ts";
import { isFunctionRef, type FunctionObject, type Trigger } from "../../runtime/index.ts";
import { requires, type DashboardEnv, type PostedEnv } from "../gates.ts";
import { page, type Html } from "../layout.ts";
import { notFoundPage, userError, type DashboardParts, type Signed } from "../parts.ts";

/**
 * What every page of one function shares: the function looked up for the signed-in user (a 404
 * page when there is none), its tabs, the gates of each action, and the caller the services see,
 * which is what /v1 sees for the same session.
 */

/** What a page offers the role (buttons, forms); the routes' own gates are `viewing` and `changing`. */
export const canWrite = (signed: Signed): boolean => hasScope(signed.session.scopes, "functions", "write");

/** Where a page shows a refusal: parts.ts (one rule for every group of pages). */
export { userError };

/** The page's script: the editor's Tab key, confirmations, the live log tail (all optional). */
export const FUNCTIONS_SCRIPT = html`<script src="/dashboard/assets/functions.js" defer></script>`;

const TABS: Array<[suffix: string, label: string]> = [
  ["", "Overview"],
  ["/deploy", "Deploy"],
  ["/versions", "Versions"],
  ["/secrets", "Secrets"],
  ["/runs", "Runs"],
];

/** A function's page: its name as the heading under its tabs, `active` the current tab's suffix. */
export function functionPage(
  parts: DashboardParts,
  signed: Signed,
  fn: FunctionObject,
  active: string,
  body: Html,
): Html {
  const base = `/functions/${fn.name}`;
  const label = TABS.find(([suffix]) => suffix === active)?.[1] ?? "Overview";
  return page(
    `${label} · ${fn.name}`,
    parts.nav(signed, "/functions"),
    html`<p class="fn-crumbs"><a href="/functions">Functions</a></p>
      <h1 class="fn-title">${fn.name} <span class="fn-badge">v${fn.version}</span></h1>
      <nav class="tabs" aria-label="${fn.name}">
        ${TABS.map(
          ([suffix, text]) =>
            html`<a href="${base}${suffix}" ${raw(suffix === active ? 'aria-current="page"' : "")}
              >${text}</a
            >`,
        )}
      </nav>
      ${body} ${FUNCTIONS_SCRIPT}`,
  );
}

/** How a trigger reads in a list: `invoice.paid, contact.*` or `cron 0 8 * * * (Europe/Berlin)`. */
export function triggerText(trigger: Trigger): string {
  if (trigger.type === "event") return `on ${trigger.events.join(", ")}`;
  return `cron ${trigger.schedule}${trigger.timezone ? ` (${trigger.timezone})` : ""}`;
}

/** An instant as the page shows it: minutes in UTC, the full value in `datetime`. */
export function when(instant: string | null): Html {
  if (!instant) return html`<span class="muted">—</span>`;
  return html`<time datetime="${instant}">${instant.slice(0, 16).replace("T", " ")} UTC</time>`;
}

/** A route of one function's pages: the function the path names is `c.var.fn`. */
export interface FunctionEnv {
  Variables: DashboardEnv["Variables"] & { fn: FunctionObject };
}
/** A form posted to one function's page: `c.var.fn` and the form, `c.var.form`. */
export interface FunctionFormEnv {
  Variables: PostedEnv["Variables"] & FunctionEnv["Variables"];
}

/**
 * The gates of a GET of a function's page, for a route to spread before its handler: signed in,
 * `functions:read`, the function found (else the 404 page) as `c.var.fn`.
 *
 * @example
 *   app.get("/functions/:name/versions", ...viewing(parts), async (c) =>
 *     c.html(await versionsPage(parts, c.var.signed, c.var.fn, c.req.query("page"))),
 *   );
 */
export function viewing(parts: DashboardParts) {
  return [parts.signedIn, requires("functions", "read"), named(parts)] as const;
}

/**
 * The gates of a form posted to a function's page: signed in with the session's CSRF token
 * (`parts.posted`), the scope /v1 asks for the same action, the function found.
 */
export function changing(parts: DashboardParts, access: Access) {
  return [parts.posted, requires("functions", access), named(parts)] as const;
}

/** The function the path's `:name` names, as `c.var.fn`; else the 404 page. */
function named(parts: DashboardParts): MiddlewareHandler<FunctionEnv> {
  return async (c, next) => {
    const fn = await findFunction(parts, c.var.signed, c.req.param("name") ?? "");
    if (!fn) return notFound(c, parts, c.var.signed);
    c.set("fn", fn);
    await next();
  };
}

/** The function a page names, in the user's organization; undefined when there is none. */
export async function findFunction(
  parts: DashboardParts,
  signed: Signed,
  ref: string,
): Promise<FunctionObject | undefined> {
  if (!isFunctionRef(ref)) return undefined;
  try {
    return await parts.deps.functions.get(signed.session.orgId, ref);
  } catch (error) {
    if (isAppError(error) && error.code === "not_found") return undefined;
    throw error;
  }
}

/** A 404 page in Functions (parts.ts). */
export const notFound = (c: Context, parts: DashboardParts, signed: Signed) =>
  notFoundPage(c, parts, signed, "/functions");
