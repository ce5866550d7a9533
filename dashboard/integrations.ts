import type { Hono } from "hono";
import { html } from "hono/html";
import {
  createOAuthApp,
  describeScopes,
  disconnectInstallation,
  GrantRefused,
  hasScope,
  mayGrant,
  listInstallations,
  listOAuthApps,
  OAUTH_SCOPES,
  OAuthAppCreateSchema,
  rotateOAuthAppSecret,
  type OAuthAppWithSecret,
} from "../engines/index.ts";
import type { ApiDeps, AppEnv } from "../api/env.ts";
import { csrfField, fieldError, type Html, page, postButton, settingsTabs } from "./layout.ts";
import { requires } from "./gates.ts";
import { errorsByField, textOf, type DashboardParts, type Form, type Signed } from "./parts.ts";
import { principalOfSession, sessionActor } from "./session.ts";

const PATH = "/settings/integrations";

/** What the page shows beyond the lists: a secret just made (once), or the register form's errors. */
interface PageState {
  created?: OAuthAppWithSecret;
  errors?: Record<string, string>;
  values?: Form;
}

/**
 * Settings → Integrations: the apps installed in this organization (their scopes, who granted them,
 * last use; Disconnect stops every token at once) and the OAuth apps it registered (register, with
 * the client secret shown once; rotate the secret). Changes need `keys:write`, as API keys do, and
 * an app's scopes are the member's to grant (the form offers those; the service refuses the rest).
 */
export function integrationRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, signedIn, posted, nav } = parts;
  const render = async (signed: Signed, state: PageState) =>
    page("Integrations", nav(signed, PATH), await integrationsPage(deps, signed, state));

  app.get(PATH, signedIn, async (c) => c.html(await render(c.var.signed, {})));
  app.post(`${PATH}/apps`, posted, requires("keys", "write"), async (c) => {
    const { signed, form } = c.var;
    const parsed = OAuthAppCreateSchema.safeParse(appInput(form));
    if (!parsed.success) {
      return c.html(
        await render(signed, { errors: byFormField(errorsByField(parsed.error, "name")), values: form }),
        422,
      );
    }
    const created = await createOAuthApp(
      deps.store,
      deps.clock,
      signed.session.orgId,
      parsed.data,
      principalOfSession(signed.session),
      signed.session.user.id,
    ).catch((error: unknown) => {
      if (error instanceof GrantRefused) return error;
      throw error;
    });
    if (created instanceof GrantRefused)
      return c.html(await render(signed, { errors: { scopes: created.message }, values: form }), 403);
    return c.html(await render(signed, { created }), 201);
  });
  app.post(`${PATH}/apps/:id/rotate`, posted, requires("keys", "write"), async (c) => {
    const { signed } = c.var;
    const rotated = await rotateOAuthAppSecret(
      deps.store,
      deps.clock,
      signed.session.orgId,
      c.req.param("id"),
      principalOfSession(signed.session),
    );
    return c.html(await render(signed, { created: rotated }));
  });
  app.post(`${PATH}/:id/disconnect`, posted, requires("keys", "write"), async (c) => {
    const { signed } = c.var;
    const { orgId } = signed.session;
    await disconnectInstallation(
      deps.store,
      deps.clock,
      orgId,
      c.req.param("id"),
      sessionActor(signed.session),
    );
    return c.redirect(PATH, 303);
  });
}

/** A list item's error (`redirect_uris[1]`) is shown at its field. */
function byFormField(errors: Record<string, string>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [param, message] of Object.entries(errors)) fields[param.replace(/\[\d+\].*$/, "")] ??= message;
  return fields;
}

/** The register form's fields as the API takes them (redirect URIs one per line). */
function appInput(form: Form): Record<string, unknown> {
  const logo = textOf(form, "logo_url").trim();
  return {
    name: textOf(form, "name"),
    ...(logo ? { logo_url: logo } : {}),
    redirect_uris: textOf(form, "redirect_uris").split(/\s+/).filter(Boolean),
    kind: textOf(form, "kind") || "confidential",
    scopes: [form.scopes ?? []].flat(),
  };
}

async function integrationsPage(deps: ApiDeps, signed: Signed, state: PageState): Promise<Html> {
  const orgId = signed.session.orgId;
  const [installed, apps] = await Promise.all([
    listInstallations(deps.store, orgId),
    listOAuthApps(deps.store, orgId, 1, 100),
  ]);
  const canWrite = hasScope(signed.session.scopes, "keys", "write");
  // An app's secret obtains its scopes: only a member who may grant them rotates it.
  const mayRotate = (scopes: string[]) =>
    !mayGrant(principalOfSession(signed.session), { type: "oauth_app", scopes });
  return html`${settingsTabs(PATH)}
    <h1>Integrations</h1>
    ${state.created ? secretNotice(state.created) : ""}
    <h2>Installed apps</h2>
    ${
      installed.length === 0
        ? html`<p class="muted">No app has access to this organization.</p>`
        : html`<table>
            <thead>
              <tr>
                <th>App</th>
                <th>Access</th>
                <th>Granted by</th>
                <th>Last used</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${installed.map(
                (installation) =>
                  html`<tr>
                    <td>${installation.app.name}</td>
                    <td>${scopeWords(installation.scopes)}</td>
                    <td>
                      ${installation.granted_by?.name ?? html`<span class="muted">(deleted account)</span>`}
                    </td>
                    <td>${installation.last_used_at ?? html`<span class="muted">never</span>`}</td>
                    <td>
                      ${
                        canWrite
                          ? postButton(signed, `${PATH}/${installation.id}/disconnect`, "Disconnect", {
                              buttonClass: "danger",
                              ariaLabel: `Disconnect ${installation.app.name}`,
                            })
                          : ""
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h2>Your OAuth apps</h2>
    <p class="muted">
      Apps this organization publishes: other organizations connect them from the consent page. See
      <a href="/docs">the API reference</a> and the OAuth guide for the flow.
    </p>
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>Client ID</th>
          <th>Scopes</th>
          <th>Redirect URIs</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${apps.data.map(
          (registered) =>
            html`<tr>
              <td>${registered.name} <span class="muted">(${registered.kind})</span></td>
              <td><code>${registered.client_id}</code></td>
              <td>${registered.scopes.join(" ")}</td>
              <td>${registered.redirect_uris.map((uri) => html`<code>${uri}</code><br />`)}</td>
              <td>
                ${
                  canWrite && registered.kind === "confidential" && mayRotate(registered.scopes)
                    ? postButton(signed, `${PATH}/apps/${registered.id}/rotate`, "Rotate secret", {
                        buttonClass: "danger",
                        ariaLabel: `Rotate the secret of ${registered.name}`,
                      })
                    : ""
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      canWrite
        ? registerForm(signed, state.errors ?? {}, state.values ?? {}, grantableScopes(signed))
        : html`<p class="muted">
            Your role (${signed.session.role}) can see integrations but not change them.
          </p>`
    }`;
}

function scopeWords(scopes: string[]): Html {
  return html`${describeScopes(scopes).map((line) => html`${line.family} (${line.access})<br />`)}`;
}

function secretNotice(app: OAuthAppWithSecret): Html {
  return html`<section class="notice" aria-live="polite">
    <p><strong>${app.name}</strong> is registered. Its client ID is <code>${app.client_id}</code>.</p>
    ${
      app.client_secret
        ? html`<p>Copy its client secret now: it is shown only once.</p>
            <p class="secret" id="new-secret">${app.client_secret}</p>`
        : html`<p>A public app has no secret: it proves itself with PKCE.</p>`
    }
  </section>`;
}

/** The scopes this member may let an app ask for: the ones their role holds. */
const grantableScopes = (signed: Signed): string[] =>
  OAUTH_SCOPES.filter(
    (scope) => !mayGrant(principalOfSession(signed.session), { type: "oauth_app", scopes: [scope] }),
  );

function registerForm(signed: Signed, errors: Record<string, string>, values: Form, scopes: string[]): Html {
  const checked = [values.scopes ?? []].flat();
  return html`<form method="post" action="${PATH}/apps" class="card" novalidate>
    <h2>Register an app</h2>
    ${csrfField(signed)}
    <label for="app-name">Name</label>
    <input id="app-name" name="name" type="text" maxlength="100" required value="${textOf(values, "name")}" />
    ${fieldError(errors, "name")}
    <label for="app-logo">Logo URL (https, optional)</label>
    <input id="app-logo" name="logo_url" type="text" value="${textOf(values, "logo_url")}" />
    ${fieldError(errors, "logo_url")}
    <label for="app-redirects">Redirect URIs (one per line, matched exactly)</label>
    <textarea id="app-redirects" name="redirect_uris" rows="3" class="uris">
${textOf(values, "redirect_uris")}</textarea>
    ${fieldError(errors, "redirect_uris")}
    <label for="app-kind">Kind</label>
    <select id="app-kind" name="kind">
      <option value="confidential">Confidential (a server keeps the secret)</option>
      <option value="public">Public (browser or mobile app: PKCE, no secret)</option>
    </select>
    <fieldset>
      <legend>Scopes it may ask for</legend>
      ${scopes.map(
        (scope) =>
          html`<label
            ><input
              type="checkbox"
              name="scopes"
              value="${scope}"
              ${checked.includes(scope) ? "checked" : ""}
            />
            ${scope}</label
          >`,
      )}
    </fieldset>
    ${fieldError(errors, "scopes")}
    <button type="submit">Register app</button>
  </form>`;
}
