import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../core/index.ts";
import { getOrganization, OrganizationRenameSchema, renameOrganization } from "../engines/index.ts";
import type { AppEnv } from "../api/env.ts";
import { csrfField, fieldError, type Html, page, settingsTabs } from "./layout.ts";
import { requiresRole } from "./gates.ts";
import { errorsByField, textOf, type DashboardParts, type Signed } from "./parts.ts";

/**
 * Settings → Organization: its name (an owner renames it), id, plan and the plan's rate limit (what
 * every key and session of the organization is counted against). The plan is the operator's to set
 * (`tessera orgs create --plan`, or TESSERA_RATE_LIMITS for the limits), so it is shown, not edited.
 */
export function organizationRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, signedIn, posted, nav } = parts;
  const render = async (signed: Signed, state: { name?: string; errors?: Record<string, string> }) => {
    const org = await getOrganization(deps.store, signed.session.orgId);
    const limit = deps.config.rateLimits[org.plan];
    return page(
      "Organization",
      nav(signed, "/settings/organization"),
      organizationPage(signed, { ...org, limit }, state),
    );
  };

  app.get("/settings/organization", signedIn, (c) => c.html(render(c.var.signed, {})));
  app.post("/settings/organization", posted, requiresRole("owner"), async (c) => {
    const { signed, form } = c.var;
    const name = textOf(form, "name");
    const parsed = OrganizationRenameSchema.safeParse({ name });
    if (!parsed.success) return c.html(render(signed, { name, errors: errorsByField(parsed.error) }), 422);
    try {
      await renameOrganization(deps.store, signed.session.orgId, parsed.data.name);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "conflict") throw error;
      return c.html(render(signed, { name, errors: errorsByField(error.errors) }), 409);
    }
    return c.redirect("/settings/organization", 303);
  });
}

function organizationPage(
  signed: Signed,
  org: {
    id: string;
    name: string;
    plan: string;
    created_at: string;
    limit: { limit: number; window_s: number };
  },
  state: { name?: string; errors?: Record<string, string> },
): Html {
  const errors = state.errors ?? {};
  return html`${settingsTabs("/settings/organization")}
    <h1>Organization</h1>
    <dl class="facts">
      <dt>Name</dt>
      <dd>${org.name}</dd>
      <dt>Id</dt>
      <dd><code>${org.id}</code></dd>
      <dt>Plan</dt>
      <dd>${org.plan}</dd>
      <dt>Rate limit</dt>
      <dd>
        ${org.limit.limit.toLocaleString("en")} requests per ${org.limit.window_s} s for each API key, session
        and OAuth installation
      </dd>
      <dt>Created</dt>
      <dd>${org.created_at}</dd>
    </dl>
    ${
      signed.session.role === "owner"
        ? html`<form method="post" action="/settings/organization" class="card">
            <h2>Rename</h2>
            ${csrfField(signed)}
            <label for="org-name">Name</label>
            <input
              id="org-name"
              name="name"
              type="text"
              maxlength="63"
              required
              value="${state.name ?? org.name}"
              aria-describedby="name-error"
            />
            ${fieldError(errors, "name")}
            <button type="submit">Save</button>
          </form>`
        : html`<p class="muted">Only owners rename the organization.</p>`
    }`;
}
