import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * The dashboard's pages are rendered on the server with `hono/html`: every interpolated value is
 * escaped (a contact named `<img src=x onerror=…>` is text), and no page has an inline script, so
 * the Content-Security-Policy allows scripts from this origin only.
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

export interface PageNav {
  /** The signed-in user and organization, when there is one. */
  who?: { name: string; email: string; orgName: string; role: string; csrf: string };
  active?: string;
}

/** The main navigation; a page marks its section active with the section's href. */
const LINKS: Array<[href: string, label: string]> = [
  ["/", "Overview"],
  ["/data", "Data"],
  ["/webhooks", "Webhooks"],
  ["/functions", "Functions"],
  ["/events", "Events"],
  ["/sync", "SYNC"],
  ["/settings", "Settings"],
];

/** Settings' own pages, as tabs under its heading (`settingsTabs`). */
const SETTINGS_TABS: Array<[href: string, label: string]> = [
  ["/settings/api-keys", "API Keys"],
  ["/settings/members", "Members"],
  ["/settings/sessions", "Sessions"],
  ["/settings/organization", "Organization"],
  ["/settings/integrations", "Integrations"],
  ["/settings/audit-log", "Audit log"],
];

/** The tabs of Settings, `active` marking the current one. */
export function settingsTabs(active: string): Html {
  return html`<nav class="tabs" aria-label="Settings">
    ${SETTINGS_TABS.map(
      ([href, label]) =>
        html`<a href="${href}" ${raw(active === href ? 'aria-current="page"' : "")}>${label}</a>`,
    )}
  </nav>`;
}

/** Whether the page at `active` belongs to the section at `href` (`/data/invoices` to `/data`). */
const inSection = (active: string | undefined, href: string): boolean =>
  active !== undefined && (active === href || (href !== "/" && active.startsWith(`${href}/`)));

export function page(title: string, nav: PageNav, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Tessera</title>
        <link rel="stylesheet" href="/dashboard/assets/app.css" />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">Tessera</a>
          ${
            nav.who
              ? html`<nav aria-label="Main">
                    ${LINKS.map(
                      ([href, label]) =>
                        html`<a
                          href="${href}"
                          ${raw(inSection(nav.active, href) ? 'aria-current="page"' : "")}
                          >${label}</a
                        >`,
                    )}
                  </nav>
                  <form method="post" action="/sign-out" class="who">
                    <span>${nav.who.name} · ${nav.who.orgName} (${nav.who.role})</span>
                    ${csrfField(nav.who)}
                    <button type="submit">Sign out</button>
                  </form>`
              : ""
          }
        </header>
        <main>${body}</main>
      </body>
    </html>`;
}

/** A form field's error, next to the field. */
export function fieldError(errors: Record<string, string>, name: string): Html {
  const message = errors[name];
  return message ? html`<p class="error" id="${name}-error" role="alert">${message}</p>` : html``;
}

/** Every POST form's CSRF field: the signed-in session's token (`DashboardParts.posted` checks it). */
export function csrfField(session: { csrf: string }): Html {
  return html`<input type="hidden" name="_csrf" value="${session.csrf}" />`;
}

export interface PostButtonOptions {
  /** The button's class: `danger`, `fn-secondary`, … */
  buttonClass?: string;
  /** The form's class (`inline` sits beside other buttons). */
  formClass?: string;
  /** The button's accessible name, when its label alone does not say what it acts on ("Revoke" which key). */
  ariaLabel?: string;
  /** Asked before posting (`data-confirm`: client/functions.js asks on the Functions pages). */
  confirm?: string;
  /** Hidden fields posted beside the CSRF token. */
  fields?: Record<string, string>;
}

/**
 * A form that posts one action with one button: revoke, rotate, remove, retry, roll back. Forms with
 * inputs of their own write their `<form>` and put `csrfField` in it.
 */
export function postButton(
  session: { csrf: string },
  action: string,
  label: string,
  options: PostButtonOptions = {},
): Html {
  const { buttonClass, formClass, ariaLabel, confirm, fields = {} } = options;
  // The label sits against its tags (`>Retry</button>`), as a hand-written button does.
  const attributes = html`${buttonClass ? html` class="${buttonClass}"` : ""}${
    ariaLabel ? html` aria-label="${ariaLabel}"` : ""
  }`;
  return html`<form
    method="post"
    action="${action}"
    ${formClass ? html` class="${formClass}"` : ""}${confirm ? html` data-confirm="${confirm}"` : ""}
  >
    ${csrfField(session)}
    ${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <button type="submit" ${attributes}>${label}</button>
  </form>`;
}
