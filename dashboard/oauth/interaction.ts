import type { Context, Hono, MiddlewareHandler } from "hono";
import type { InteractionDetails, Provider } from "oidc-provider";
import {
  authorizeInstallation,
  findOAuthClient,
  findInstallationGrant,
  grantable,
  membershipsOf,
  revokeGrantRecords,
  roleScopes,
  getOrganization,
  type OAuthClient,
  type Role,
} from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { CSP } from "../layout.ts";
import { textOf, type DashboardParts, type Signed } from "../parts.ts";
import { formGuard } from "../guard.ts";
import { pageHeaders, sessionOf } from "../session.ts";
import { consentPage, errorPage, organizationPicker } from "./pages.ts";
import { nodeOf, type OAuthServer } from "./server.ts";
import { OAUTH_PATH } from "./provider.ts";

const PAGE = `${OAUTH_PATH}/interaction/:uid`;

/** A pending authorization as the consent page needs it. */
interface Pending {
  provider: Provider;
  details: InteractionDetails;
  client: OAuthClient;
  requested: string[];
}
/** A consent page's route: this browser's pending authorization is `c.var.pending`. */
interface PendingEnv {
  Variables: AppEnv["Variables"] & { pending: Pending };
}

/**
 * The consent pages oidc-provider sends a user to (`interactions.url`): signed in to the dashboard
 * (else its sign-in, then back), pick the organization when a member of several, see the app and
 * what it would get, approve or deny (forms with the session's CSRF token). Approving records the
 * installation (one per organization and app) and its grant of only what the role holds.
 */
export function interactionRoutes(app: Hono<AppEnv>, oauth: OAuthServer, parts: DashboardParts): void {
  const { deps, posted, nav } = parts;
  const pendingAuthorization = pendingOf(oauth, deps.store);
  app.use(`${PAGE}/*`, pageHeaders());
  app.use(PAGE, pageHeaders());
  // Approve and Deny as every dashboard form: this origin, a bounded body, a CSRF token.
  app.use(`${OAUTH_PATH}/interaction/*`, formGuard(deps));

  // The authorization first, then the session: signing in comes back here (`return_to`).
  app.get(PAGE, pendingAuthorization, async (c) => {
    const { pending } = c.var;
    const signed = await sessionOf(c, deps);
    if (!signed) {
      return c.redirect(
        `/sign-in?return_to=${encodeURIComponent(`${OAUTH_PATH}/interaction/${pending.details.uid}`)}`,
        303,
      );
    }
    const orgs = await membershipsOf(deps.store, signed.session.user.id);
    const chosen =
      orgs.find((org) => org.orgId === c.req.query("org")) ?? (orgs.length === 1 ? orgs[0] : undefined);
    withCsp(c);
    if (!chosen)
      return c.html(organizationPicker(nav(signed), pending.details.uid, pending.client.app.name, orgs));
    const { granted, withheld } = split(pending, chosen.role);
    const publisher = await getOrganization(deps.store, pending.client.orgId);
    const redirectUri = String(pending.details.params.redirect_uri);
    withCsp(c, { logoUrl: pending.client.app.logo_url, redirectUri });
    return c.html(
      consentPage(nav(signed), {
        uid: pending.details.uid,
        csrf: signed.csrf,
        app: pending.client.app,
        publisher: publisher.name,
        org: { id: chosen.orgId, name: chosen.orgName, role: chosen.role },
        grantable: granted,
        withheld,
        redirectHost: new URL(redirectUri).host,
        canSwitch: orgs.length > 1,
      }),
    );
  });

  app.post(`${PAGE}/approve`, posted, pendingAuthorization, async (c) => {
    const { signed, form, pending } = c.var;
    const member = (await membershipsOf(deps.store, signed.session.user.id)).find(
      (org) => org.orgId === textOf(form, "org"),
    );
    if (!member) return failure(c, "access_denied", "You are not a member of that organization.", 403);
    const { granted, withheld } = split(pending, member.role);
    if (granted.length === 0)
      return failure(c, "access_denied", "Your role cannot grant what the app asks for.", 403);
    const grantId = await saveGrant(pending, signed, member.orgId, granted, withheld);
    const { previousGrantId } = await authorizeInstallation(deps.store, deps.clock, {
      orgId: member.orgId,
      appId: pending.client.app.id,
      userId: signed.session.user.id,
      grantId,
      scopes: granted,
      grantor: { type: "member", role: member.role, userId: signed.session.user.id },
    });
    // Re-consent by another member starts a new grant: the old one's tokens stop now.
    if (previousGrantId) await revokeGrantRecords(deps.store, previousGrantId);
    const { req, res } = nodeOf(c);
    const to = await pending.provider.interactionResult(req, res, {
      login: { accountId: signed.session.user.id },
      consent: { grantId },
    });
    return c.redirect(to, 303);
  });

  app.post(`${PAGE}/deny`, posted, pendingAuthorization, async (c) => {
    const { req, res } = nodeOf(c);
    const to = await c.var.pending.provider.interactionResult(req, res, {
      error: "access_denied",
      error_description: "The user denied access",
    });
    return c.redirect(to, 303);
  });

  /**
   * The grant the tokens will carry: the installation's own when the same member consents again
   * (its scopes widened), else a new one. Scopes the member cannot grant are recorded as rejected,
   * so the server issues the rest instead of asking again.
   */
  async function saveGrant(
    pending: Pending,
    signed: Signed,
    orgId: string,
    granted: string[],
    withheld: string[],
  ): Promise<string> {
    const { provider, details, client } = pending;
    const userId = signed.session.user.id;
    const installed = await findInstallationGrant(deps.store, orgId, client.app.id);
    const existing = installed ? await provider.Grant.find(installed.grantId) : undefined;
    const grant =
      existing && existing.accountId === userId && existing.clientId === client.app.client_id
        ? existing
        : new provider.Grant({ accountId: userId, clientId: client.app.client_id });
    // The scopes are both the server's (checked at the authorization endpoint) and the /v1
    // resource's (what its access tokens carry): granted, or rejected, on both.
    grant.addOIDCScope(granted.join(" "));
    if (withheld.length > 0) grant.rejectOIDCScope(withheld.join(" "));
    for (const resource of resourcesOf(details)) {
      grant.addResourceScope(resource, granted.join(" "));
      if (withheld.length > 0) grant.rejectResourceScope(resource, withheld.join(" "));
    }
    return grant.save();
  }
}

/** The pending authorization of this browser (oidc-provider's interaction cookie) as `c.var.pending`, or an error page. */
function pendingOf(oauth: OAuthServer, store: Store): MiddlewareHandler<PendingEnv> {
  return async (c, next) => {
    const provider = await oauth.providerFor(c);
    const { req, res } = nodeOf(c);
    const details = await provider.interactionDetails(req, res).catch(() => undefined);
    if (!details || details.uid !== c.req.param("uid")) {
      return failure(
        c,
        "invalid_request",
        "This authorization request has expired: start again from the app.",
        400,
      );
    }
    const client = await findOAuthClient(store, String(details.params.client_id));
    if (!client) return failure(c, "invalid_client", "This app no longer exists.", 400);
    const requested = String(details.params.scope ?? "")
      .split(" ")
      .filter(Boolean);
    c.set("pending", { provider, details, client, requested });
    await next();
  };
}

/** What the member's role in the chosen organization can grant of the request, and what it cannot. */
function split(pending: Pending, role: Role): { granted: string[]; withheld: string[] } {
  const granted = grantable(pending.requested, pending.client.app.scopes, roleScopes(role));
  return { granted, withheld: pending.requested.filter((scope) => !granted.includes(scope)) };
}

/** The resource servers the request is for (one: `/v1`, oidc-provider's default resource). */
function resourcesOf(details: InteractionDetails): string[] {
  const { resource } = details.params;
  return [resource].flat().filter((value): value is string => typeof value === "string");
}

/**
 * The dashboard's policy, widened on the consent page for the app's logo (its origin) and its redirect
 * URI: browsers apply `form-action` to the redirects after a form is sent (CSP3 §6.4.2), and Approve
 * and Deny end at the app.
 */
function withCsp(c: Context, app?: { logoUrl: string | null; redirectUri: string }): void {
  let policy = CSP;
  if (app?.logoUrl)
    policy = policy.replace("img-src 'self' data:", `img-src 'self' data: ${new URL(app.logoUrl).origin}`);
  if (app)
    policy = policy.replace("form-action 'self'", `form-action 'self' ${new URL(app.redirectUri).origin}`);
  c.header("Content-Security-Policy", policy);
}

async function failure(c: Context, error: string, description: string, status: 400 | 403): Promise<Response> {
  withCsp(c);
  return c.html(await errorPage(error, description), status);
}
