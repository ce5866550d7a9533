import { html } from "hono/html";
import { describeScopes, type OAuthApp } from "../../engines/index.ts";
import { page, type Html, type PageNav } from "../layout.ts";

/** What the consent page shows: the app, the organization, and what would be granted. */
export interface ConsentView {
  uid: string;
  csrf: string;
  app: OAuthApp;
  /** Who registered the app (the page says so: an app names itself). */
  publisher: string;
  org: { id: string; name: string; role: string };
  grantable: string[];
  /** Asked for, but the member's role (or the app's registration) cannot grant it. */
  withheld: string[];
  redirectHost: string;
  /** The member belongs to several organizations: a link back to the picker. */
  canSwitch: boolean;
}

/**
 * The consent page (RFC 6749 §10.2: the user sees who is asking and for what before approving).
 * Scopes are described per engine in words; nothing is granted the role does not hold.
 */
export function consentPage(nav: PageNav, view: ConsentView): Html {
  const { app, org } = view;
  return page(
    `Authorize ${app.name}`,
    nav,
    html`<section class="consent card" aria-labelledby="consent-title">
      <header class="consent-app">
        ${app.logo_url ? html`<img src="${app.logo_url}" alt="" width="48" height="48" />` : ""}
        <div>
          <h1 id="consent-title">${app.name} wants access to ${org.name}</h1>
          <p class="muted">Registered by ${view.publisher}. You are ${org.role} of ${org.name}.</p>
        </div>
      </header>
      ${
        view.grantable.length > 0
          ? html`<p>It will be able to:</p>
              <ul class="scopes">
                ${describeScopes(view.grantable).map(
                  (line) => html`<li><strong>${line.access}</strong>: ${line.family}</li>`,
                )}
              </ul>`
          : html`<p class="error" role="alert">Your role cannot grant anything this app asks for.</p>`
      }
      ${
        view.withheld.length > 0
          ? html`<p class="muted">Not granted (beyond your role or the app's registration):</p>
              <ul class="scopes muted">
                ${describeScopes(view.withheld).map((line) => html`<li>${line.access}: ${line.family}</li>`)}
              </ul>`
          : ""
      }
      <p class="muted">
        You will be sent back to <strong>${view.redirectHost}</strong>. Disconnect it at any time in Settings
        → Integrations.
      </p>
      <div class="consent-actions">
        ${
          view.grantable.length > 0
            ? html`<form method="post" action="/oauth/interaction/${view.uid}/approve" class="inline">
                <input type="hidden" name="_csrf" value="${view.csrf}" />
                <input type="hidden" name="org" value="${org.id}" />
                <button type="submit">Approve</button>
              </form>`
            : ""
        }
        <form method="post" action="/oauth/interaction/${view.uid}/deny" class="inline">
          <input type="hidden" name="_csrf" value="${view.csrf}" />
          <button type="submit" class="danger">Deny</button>
        </form>
        ${view.canSwitch ? html`<a href="/oauth/interaction/${view.uid}">Choose another organization</a>` : ""}
      </div>
    </section>`,
  );
}

/** A member of several organizations picks the one the app will act in. */
export function organizationPicker(
  nav: PageNav,
  uid: string,
  appName: string,
  orgs: Array<{ orgId: string; orgName: string; role: string }>,
): Html {
  return page(
    `Authorize ${appName}`,
    nav,
    html`<h1>Which organization should ${appName} access?</h1>
      <ul class="org-picker">
        ${orgs.map(
          (org) =>
            html`<li>
              <a href="/oauth/interaction/${uid}?org=${org.orgId}">${org.orgName}</a>
              <span class="muted">(${org.role})</span>
            </li>`,
        )}
      </ul>`,
  );
}

/** An OAuth error shown to the user (the redirect URI could not be trusted, or the request was bad). */
export async function errorPage(error: string, description: string | undefined): Promise<string> {
  return String(
    await page(
      "Authorization failed",
      {},
      html`<h1>This authorization cannot go on</h1>
        <p><code>${error}</code>${description ? html`: ${description}` : ""}</p>
        <p>Return to the application and start again.</p>`,
    ),
  );
}
