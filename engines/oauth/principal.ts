import type { Clock, Plan } from "../../core/index.ts";
import type { Queryable } from "../../store/index.ts";
import { roleScopes, type Role } from "../people/roles.ts";
import type { KeyPrincipal } from "../tenancy/api-keys.ts";
import { recordId, type RecordPayload } from "./records.ts";
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

/** A client credentials token's record joined with its app and the app's organization. */
interface ClientTokenRow {
  payload: RecordPayload;
  app_id: string;
  app_name: string;
  client_id: string;
  app_scopes: string[];
  org_id: string;
  org_name: string;
  plan: Plan;
}

/** An access token's record joined with its installation, its app, the member and their role. */
interface UserTokenRow extends ClientTokenRow {
  installation_id: string;
  /** The installation's scopes: what the consent granted. */
  granted: string[];
  user_id: string;
  email: string;
  user_name: string;
  role: Role;
}

const tokenScopes = (payload: RecordPayload): string[] =>
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
  const [row] = await db.query<UserTokenRow>(
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
  if (!row || row.payload.accountId !== row.user_id) return undefined;
  const role = row.role;
  const allowed = row.app_scopes.filter((scope) => row.granted.includes(scope));
  return {
    keyId: row.installation_id,
    orgId: row.org_id,
    orgName: row.org_name,
    plan: row.plan,
    kind: "engine",
    scopes: grantable(tokenScopes(row.payload), allowed, roleScopes(role)),
    oauth: {
      app: appOf(row),
      installationId: row.installation_id,
      user: { id: row.user_id, email: row.email, name: row.user_name, role },
    },
  };
}

/** A client credentials token acts as the app in the organization that registered it. */
async function clientTokenPrincipal(
  db: Queryable,
  id: string,
  now: string,
): Promise<OAuthPrincipal | undefined> {
  const [row] = await db.query<ClientTokenRow>(
    `SELECT r.payload, a.id AS app_id, a.name AS app_name, a.client_id, a.scopes AS app_scopes, a.org_id,
       o.name AS org_name, o.plan
     FROM oauth_records r
     JOIN oauth_apps a ON a.client_id = r.client_id AND a.kind = 'confidential'
     JOIN organizations o ON o.id = a.org_id
     WHERE r.model = 'ClientCredentials' AND r.id = $1 AND r.expires_at > $2`,
    [id, now],
  );
  if (!row) return undefined;
  const appScopes = row.app_scopes;
  const asked = tokenScopes(row.payload);
  return {
    keyId: row.app_id,
    orgId: row.org_id,
    orgName: row.org_name,
    plan: row.plan,
    kind: "engine",
    // Without a `scope` in the request the token carries the app's own scopes.
    scopes: asked.length > 0 ? grantable(asked, appScopes, ["*"]) : appScopes,
    oauth: { app: appOf(row), installationId: null, user: null },
  };
}

const appOf = (row: ClientTokenRow) => ({ id: row.app_id, name: row.app_name, client_id: row.client_id });

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
