import type { Hono } from "hono";
import { html } from "hono/html";
import {
  ApiKeyCreateSchema,
  apiKeyScopes,
  createApiKey,
  ENGINES,
  GrantRefused,
  hasScope,
  listApiKeys,
  listMembers,
  mayGrant,
} from "../engines/index.ts";
import type { ApiDeps, AppEnv } from "../api/env.ts";
import { csrfField, fieldError, type Html, page, postButton, settingsTabs } from "./layout.ts";
import { requires } from "./gates.ts";
import { textOf, type DashboardParts, type Signed, errorsByField } from "./parts.ts";
import { principalOfSession, sessionActor } from "./session.ts";

/** Settings → API Keys: the organization's keys; create (the secret shown once) and revoke need `keys:write`. */
export function apiKeyRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, signedIn, posted, nav } = parts;
  app.get("/settings/api-keys", signedIn, async (c) => {
    const { signed } = c.var;
    return c.html(page("API Keys", nav(signed, "/settings/api-keys"), await keysPage(deps, signed, {})));
  });
  app.post("/settings/api-keys", posted, requires("keys", "write"), async (c) => {
    const { signed, form } = c.var;
    const kind = textOf(form, "kind");
    const engines = [form.engines ?? []].flat();
    const input = {
      name: textOf(form, "name").trim() || undefined,
      kind,
      ...(kind === "engine" ? { access: textOf(form, "access") || "read" } : {}),
      ...(kind === "engine" && engines.length > 0 ? { engines } : {}),
    };
    const parsed = ApiKeyCreateSchema.safeParse(input);
    if (!parsed.success) {
      const errors = errorsByField(parsed.error, "kind");
      return c.html(
        page("API Keys", nav(signed, "/settings/api-keys"), await keysPage(deps, signed, { errors })),
        422,
      );
    }
    // The "may grant" rule, in the service: a key holds no more than the member's role (403 at `kind`).
    const created = await createApiKey(
      deps.store,
      signed.session.orgId,
      parsed.data,
      principalOfSession(signed.session),
      {
        createdByUser: signed.session.user.id,
      },
    ).catch((error: unknown) => {
      if (error instanceof GrantRefused) return error;
      throw error;
    });
    if (created instanceof GrantRefused) {
      const errors = { kind: created.message };
      return c.html(
        page("API Keys", nav(signed, "/settings/api-keys"), await keysPage(deps, signed, { errors })),
        403,
      );
    }
    return c.html(
      page(
        "API Keys",
        nav(signed, "/settings/api-keys"),
        await keysPage(deps, signed, { secret: created.secret, name: created.name }),
      ),
      201,
    );
  });
  app.post("/settings/api-keys/:id/revoke", posted, requires("keys", "write"), async (c) => {
    const { signed } = c.var;
    await deps.keys.revoke(signed.session.orgId, c.req.param("id"), sessionActor(signed.session));
    return c.redirect("/settings/api-keys", 303);
  });
}

async function keysPage(
  deps: ApiDeps,
  signed: Signed,
  state: { secret?: string; name?: string; errors?: Record<string, string> },
): Promise<Html> {
  const [keys, members] = await Promise.all([
    listApiKeys(deps.store, signed.session.orgId, 1, 100),
    listMembers(deps.store, signed.session.orgId),
  ]);
  const names = new Map(members.map((member) => [member.user, member.name]));
  /** Who made the key: a member by name, a former member by id, else the API or CLI. */
  const creator = (userId: string | null) =>
    userId ? (names.get(userId) ?? userId) : html`<span class="muted">API or CLI</span>`;
  const canWrite = hasScope(signed.session.scopes, "keys", "write");
  // Only the kinds this member may grant are offered (a developer has no full-access option).
  const grantable = (kind: "full_access" | "read_only") =>
    !mayGrant(principalOfSession(signed.session), { type: "api_key", scopes: apiKeyScopes({ kind }) });
  const errors = state.errors ?? {};
  return html`${settingsTabs("/settings/api-keys")}
    <h1>API Keys</h1>
    ${
      state.secret
        ? html`<section class="notice" aria-live="polite">
            <p>
              <strong>${state.name || "The new key"}</strong> is ready. Copy its secret now: it is shown only
              once.
            </p>
            <p class="secret" id="new-secret">${state.secret}</p>
          </section>`
        : ""
    }
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>Kind</th>
          <th>Scopes</th>
          <th>Created by</th>
          <th>Last used</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${keys.data.map(
          (key) =>
            html`<tr>
              <td>
                ${key.name || html`<span class="muted">(unnamed)</span>`}
                <code>${key.redacted_secret}</code>
              </td>
              <td>${key.kind}</td>
              <td>${key.scopes.join(" ")}</td>
              <td>${creator(key.created_by_user)}</td>
              <td>${key.last_used_at ?? html`<span class="muted">never</span>`}</td>
              <td>
                ${
                  key.revoked_at
                    ? html`<span class="muted">revoked</span>`
                    : canWrite
                      ? postButton(signed, `/settings/api-keys/${key.id}/revoke`, "Revoke", {
                          buttonClass: "danger",
                          ariaLabel: `Revoke ${key.name || key.id}`,
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
        ? html`<form method="post" action="/settings/api-keys" class="card">
            <h2>Create a key</h2>
            ${csrfField(signed)}
            <label for="key-name">Name</label>
            <input id="key-name" name="name" type="text" maxlength="100" />
            <label for="key-kind">Access</label>
            <select id="key-kind" name="kind">
              ${grantable("full_access") ? html`<option value="full_access">Full access</option>` : ""}
              ${grantable("read_only") ? html`<option value="read_only">Read-only</option>` : ""}
              <option value="engine">Engine-specific</option>
            </select>
            ${fieldError(errors, "kind")}
            <fieldset>
              <legend>Engines (engine-specific keys)</legend>
              ${ENGINES.map((engine) => html`<label><input type="checkbox" name="engines" value="${engine}" /> ${engine}</label>`)}
            </fieldset>
            ${fieldError(errors, "engines")}
            <label for="key-access">Engine access</label>
            <select id="key-access" name="access">
              <option value="read">Read</option>
              <option value="write">Read and write</option>
            </select>
            <button type="submit">Create key</button>
          </form>`
        : html`<p class="muted">
            Your role (${signed.session.role}) can see keys but not create or revoke them.
          </p>`
    }`;
}
