import type { Context } from "hono";
import { html, raw } from "hono/html";
import { isAppError } from "../../core/index.ts";
import { hasScope } from "../../engines/index.ts";
import { isFunctionRef, type FunctionObject, type Trigger } from "../../runtime/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { page, type Html } from "../layout.ts";
import { forbidden, notFoundPage, userError, type DashboardParts, type Form, type Signed } from "../parts.ts";

/**
 * What every page of one function shares: the function looked up for the signed-in user (a 404
 * page when there is none), its tabs, the scopes that gate each action, and the caller the
 * services see, which is what /v1 sees for the same session.
 */

export const canWrite = (signed: Signed): boolean => hasScope(signed.session.scopes, "functions", "write");
export const canRead = (signed: Signed): boolean => hasScope(signed.session.scopes, "functions", "read");

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

export interface FunctionRequest {
  signed: Signed;
  fn: FunctionObject;
}

type Handler<T> = (c: Context<AppEnv>, request: T) => Response | Promise<Response>;

/** A GET of a function's page: signed in, `functions:read`, the function found (else a 404 page). */
export function viewing(parts: DashboardParts, handler: Handler<FunctionRequest>) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const signed = await parts.signedIn(c);
    if (signed instanceof Response) return signed;
    if (!canRead(signed)) return forbidden(c, signed);
    const fn = await findFunction(parts, signed, c.req.param("name") ?? "");
    if (!fn) return notFound(c, parts, signed);
    return handler(c, { signed, fn });
  };
}

/**
 * A form posted to a function's page: signed in, its CSRF token (`parts.posted`), the scope /v1
 * asks for the same action, and the function found.
 */
export function changing(
  parts: DashboardParts,
  access: "read" | "write",
  handler: Handler<FunctionRequest & { form: Form }>,
) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const result = await parts.posted(c);
    if (result instanceof Response) return result;
    const { signed, form } = result;
    if (!hasScope(signed.session.scopes, "functions", access)) return forbidden(c, signed);
    const fn = await findFunction(parts, signed, c.req.param("name") ?? "");
    if (!fn) return notFound(c, parts, signed);
    return handler(c, { signed, fn, form });
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
export const notFound = (c: Context<AppEnv>, parts: DashboardParts, signed: Signed) =>
  notFoundPage(c, parts, signed, "/functions");
