import type { Clock, Plan } from "../../core/index.ts";
import type { Queryable, Row } from "../../store/index.ts";
import { roleScopes, type Role } from "../people/roles.ts";
import type { KeyPrincipal } from "../tenancy/api-keys.ts";
import { recordId } from "./records.ts";
import { grantable } from "./scopes.ts";

/** oidc-provider's opaque tokens: 256 random bits as 43 base64url characters. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Whether a bearer value has the shape of an OAuth access token (API keys start with `sk_live_`). */
export const looksLikeOAuthToken = (value: string): boolean => TOKEN_SHAPE.test(value);

/**
 * A caller known by an OAuth access token. `keyId` is the installation's id (a client credentials
 * token: the app's), so rate limits count per installation; the scopes are never more than the
 * app may ask for, the consent granted, and the granting member's role holds today.
 */
export interface OAuthPrincipal extends KeyPrincipal {
  oauth: {
    app: { id: string; name: string; client_id: string };
    installationId: string | null;
    /** The member who granted access; null for a client credentials token (the app acts itself). */
    user: { id: string; email: string; name: string; role: Role } | null;
  };
}

export const isOAuthPrincipal = (principal: KeyPrincipal): principal is OAuthPrincipal =>
  "oauth" in principal;

const tokenScopes = (payload: Row): string[] =>
  typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : [];

/**
 * The principal of a live access token, or undefined when it is unknown, expired (by `clock`),
 * its installation is disconnected, its member deleted or no longer in the organization, or its app
 * deleted. One lookup by the token's hash, joined to what it acts for.
 */
export async function findOAuthPrincipal(
  db: Queryable,
  clock: Clock,
  token: string,
): Promise<OAuthPrincipal | undefined> {
  if (!looksLikeOAuthToken(token)) return undefined;
  const now = clock.now().toISOString();
  return (
    (await userTokenPrincipal(db, recordId("AccessToken", token), now)) ??
    (await clientTokenPrincipal(db, recordId("ClientCredentials", token), now))
  );
}

async function userTokenPrincipal(
  db: Queryable,
  id: string,
  now: string,
): Promise<OAuthPrincipal | undefined> {
  const [row] = await db.query(
    `SELECT r.payload, i.id AS installation_id, i.org_id, i.scopes AS granted, i.user_id,
       a.id AS app_id, a.name AS app_name, a.client_id, a.scopes AS app_scopes,
       u.email, u.name AS user_name, m.role, o.name AS org_name, o.plan
     FROM oauth_records r
     JOIN oauth_installations i ON i.grant_id = r.grant_id AND i.revoked_at IS NULL
     JOIN oauth_apps a ON a.id = i.app_id AND a.client_id = r.client_id
     JOIN users u ON u.id = i.user_id
     JOIN memberships m ON m.user_id = i.user_id AND m.org_id = i.org_id
     JOIN organizations o ON o.id = i.org_id
     WHERE r.model = 'AccessToken' AND r.id = $1 AND r.expires_at > $2`,
    [id, now],
  );
  if (!row || (row.payload as Row).accountId !== row.user_id) return undefined;
  const role = row.role as Role;
  const allowed = (row.app_scopes as string[]).filter((scope) => (row.granted as string[]).includes(scope));
  return {
    keyId: row.installation_id as string,
    orgId: row.org_id as string,
    orgName: row.org_name as string,
    plan: row.plan as Plan,
    kind: "engine",
    scopes: grantable(tokenScopes(row.payload as Row), allowed, roleScopes(role)),
    oauth: {
      app: appOf(row),
      installationId: row.installation_id as string,
      user: { id: row.user_id as string, email: row.email as string, name: row.user_name as string, role },
    },
  };
}

/** A client credentials token acts as the app in the organization that registered it. */
async function clientTokenPrincipal(
  db: Queryable,
  id: string,
  now: string,
): Promise<OAuthPrincipal | undefined> {
  const [row] = await db.query(
    `SELECT r.payload, a.id AS app_id, a.name AS app_name, a.client_id, a.scopes AS app_scopes, a.org_id,
       o.name AS org_name, o.plan
     FROM oauth_records r
     JOIN oauth_apps a ON a.client_id = r.client_id AND a.kind = 'confidential'
     JOIN organizations o ON o.id = a.org_id
     WHERE r.model = 'ClientCredentials' AND r.id = $1 AND r.expires_at > $2`,
    [id, now],
  );
  if (!row) return undefined;
  const appScopes = row.app_scopes as string[];
  const asked = tokenScopes(row.payload as Row);
  return {
    keyId: row.app_id as string,
    orgId: row.org_id as string,
    orgName: row.org_name as string,
    plan: row.plan as Plan,
    kind: "engine",
    // Without a `scope` in the request the token carries the app's own scopes.
    scopes: asked.length > 0 ? grantable(asked, appScopes, ["*"]) : appScopes,
    oauth: { app: appOf(row), installationId: null, user: null },
  };
}

const appOf = (row: Row) => ({
  id: row.app_id as string,
  name: row.app_name as string,
  client_id: row.client_id as string,
});

/** Whether the installation of `grantId` is connected and `userId`, who consented, is still a member. */
export async function grantIsLive(db: Queryable, grantId: string, userId: string): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM oauth_installations i JOIN memberships m ON m.user_id = i.user_id AND m.org_id = i.org_id
     WHERE i.grant_id = $1 AND i.user_id = $2 AND i.revoked_at IS NULL`,
    [grantId, userId],
  );
  return rows.length > 0;
}

export async function userExists(db: Queryable, userId: string): Promise<boolean> {
  return (await db.query("SELECT 1 FROM users WHERE id = $1", [userId])).length > 0;
}
