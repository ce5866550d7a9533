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
                    <input type="hidden" name="_csrf" value="${nav.who.csrf}" />
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
