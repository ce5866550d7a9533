import type { Context, MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import { isAppError, type AppError, type FieldError } from "../core/index.ts";
import { html } from "hono/html";
import { csrfMatches } from "../engines/index.ts";
import type { ApiDeps } from "../api/env.ts";
import { fieldErrors } from "../api/problem.ts";
import { page, type PageNav } from "./layout.ts";
import type { DashboardEnv, PostedEnv, Signed } from "./env.ts";
import { sessionOf } from "./session.ts";

export type { Form, Signed } from "./env.ts";

/**
 * What every group of pages (accounts.ts, api-keys.ts, members.ts, sync-panel.ts) is built with: the
 * services, the session's gates a route declares before its handler (with `requires`, gates.ts),
 * and the header of a page.
 */
export interface DashboardParts {
  deps: ApiDeps;
  /** Middleware: the signed-in user as `c.var.signed`, or a redirect to sign in. */
  signedIn: MiddlewareHandler<DashboardEnv>;
  /**
   * Middleware: a state-changing form, signed in and carrying the session's own CSRF token, as
   * `c.var.signed` and `c.var.form`; else a redirect to sign in, or a 403 page.
   */
  posted: MiddlewareHandler<PostedEnv>;
  /** The header of a page for this user, `active` marking the current link. */
  nav: (signed: Signed, active?: string) => PageNav;
}

export function createParts(deps: ApiDeps): DashboardParts {
  const nav = (signed: Signed, active?: string): PageNav => ({
    who: {
      name: signed.session.user.name,
      email: signed.session.user.email,
      orgName: signed.session.orgName,
      role: signed.session.role,
      csrf: signed.csrf,
    },
    ...(active ? { active } : {}),
  });
  return {
    deps,
    nav,
    signedIn: async (c, next) => {
      const signed = await sessionOf(c, deps);
      if (!signed) return c.redirect("/sign-in", 303);
      c.set("signed", signed);
      await next();
    },
    // The form guard (guard.ts) has checked the origin and a token, which may be the pre-session
    // one: a form that needs a session needs the session's.
    posted: async (c, next) => {
      const signed = await sessionOf(c, deps);
      if (!signed) return c.redirect("/sign-in", 303);
      const form = await formOf(c);
      const csrf = typeof form._csrf === "string" ? form._csrf : c.req.header("x-csrf-token");
      if (!csrfMatches(signed.session, csrf)) {
        return c.html(
          page(
            "Forbidden",
            nav(signed),
            html`<h1>Forbidden</h1>
              <p>This form has expired: reload the page and try again.</p>`,
          ),
          403,
        );
      }
      c.set("signed", signed);
      c.set("form", form);
      await next();
    },
  };
}

/** A posted form's fields as text (a repeated field as a list; an uploaded file is not expected). */
export async function formOf(c: Context): Promise<Record<string, string | string[]>> {
  const body = await c.req.parseBody({ all: true });
  return Object.fromEntries(
    Object.entries(body).map(([name, value]) => [
      name,
      Array.isArray(value)
        ? value.map((item) => (typeof item === "string" ? item : ""))
        : typeof value === "string"
          ? value
          : "",
    ]),
  );
}

/** One field's text (the first, if repeated). */
export const textOf = (form: Record<string, string | string[]>, name: string): string =>
  [form[name] ?? ""].flat()[0] ?? "";

/** The answer to a role that cannot do what it asked (`requires`, gates.ts): 403, as a page naming the role. */
export function forbidden(c: Context, signed: Signed): Response | Promise<Response> {
  return c.html(
    page(
      "Forbidden",
      {
        who: {
          ...signed.session.user,
          orgName: signed.session.orgName,
          role: signed.session.role,
          csrf: signed.csrf,
        },
      },
      html`<h1>Forbidden</h1>
        <p>Your role (${signed.session.role}) cannot do this.</p>`,
    ),
    403,
  );
}

/**
 * The API's validation errors as a form shows them: field name → the first message for it. A zod
 * failure and an AppError's `errors` (a service's refusal) read the same, named as the API names
 * them (`line_items[0].quantity`); a problem with no field goes under `fallback`.
 *
 * @example
 *   const parsed = Schema.safeParse(values);
 *   if (!parsed.success) return render(errorsByField(parsed.error)); // { email: "Invalid email" }
 */
export function errorsByField(
  error: ZodError | readonly FieldError[],
  fallback = "_form",
): Record<string, string> {
  const errors = Array.isArray(error) ? (error as readonly FieldError[]) : fieldErrors(error as ZodError);
  const byField: Record<string, string> = {};
  for (const { param, message } of errors) byField[param || fallback] ??= message;
  return byField;
}

/**
 * A refusal the user can act on (a 404, a 409 naming the states, a 422 naming the field), as the
 * API's status and message, for the page to show; anything else is not the user's to see and goes on
 * to the app's handler (an error page with the request id).
 */
export function userError(error: unknown): AppError {
  if (isAppError(error) && error.isUserError) return error;
  throw error;
}

/**
 * A 404 page within a section (`/data`, `/webhooks`, …): another organization's object reads as
 * missing, as on the API, and the page offers the way back to the section.
 */
export function notFoundPage(
  c: Context,
  parts: DashboardParts,
  signed: Signed,
  section: string,
): Response | Promise<Response> {
  return c.html(
    page(
      "Not found",
      parts.nav(signed, section),
      html`<h1>Not found</h1>
        <p>There is no such page in ${signed.session.orgName}. <a href="${section}">Back</a></p>`,
    ),
    404,
  );
}
