import { z } from "zod";
import { AppError, newId, type Clock } from "../../core/index.ts";
import { inTransaction, type Queryable, type Store } from "../../store/index.ts";
import { actorOf, type Actor } from "../events/actor.ts";
import type { EventType } from "../events/catalog.ts";
import { recordEvents } from "../events/outbox.ts";
import { baseFields, rfcOrNull } from "../resource.ts";
import { requireGrant, type Grantor } from "../tenancy/grants.ts";
import { getOAuthApp, OAuthAppSchema } from "./apps.ts";
import { revokeGrantRecords } from "./records.ts";

/**
 * An installation: one organization's consent to one app (one per organization and app), with the
 * scopes granted, who granted them and when the app last used them. Its tokens belong to one
 * grant of the authorization server; disconnecting deletes them all at once.
 */
export const OAuthInstallationSchema = z
  .object({
    id: z.string().meta({ example: "oins_3kTqZ9" }),
    object: z.literal("oauth_installation"),
    organization_id: z.string(),
    app: z.object({
      id: z.string(),
      name: z.string(),
      client_id: z.string(),
      logo_url: z.string().nullable(),
    }),
    scopes: z.array(z.string()),
    granted_by: z
      .object({ id: z.string(), name: z.string(), email: z.string() })
      .nullable()
      .meta({ description: "The member who granted access (null once that account is deleted)" }),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "OAuthInstallation" });
export type OAuthInstallation = z.infer<typeof OAuthInstallationSchema>;

/** `oauth_app.*` events; the authorization ones reach the installing organization and the app's own. */
export const OAUTH_EVENT_TYPES: EventType[] = [
  {
    type: "oauth_app.created",
    description: "An OAuth app was registered (its client secret is never sent).",
    object: OAuthAppSchema,
  },
  {
    type: "oauth_app.updated",
    description: "An OAuth app's name, logo, redirect URIs or scopes changed; see previous_attributes.",
    object: OAuthAppSchema,
  },
  {
    type: "oauth_app.secret_rotated",
    description: "An OAuth app's client secret was replaced; the old one stopped working (neither is sent).",
    object: OAuthAppSchema,
  },
  {
    type: "oauth_app.deleted",
    description: "An OAuth app was deleted with its installations and tokens; the app as it was.",
    object: OAuthAppSchema,
  },
  {
    type: "oauth_app.authorized",
    description: "A member granted an OAuth app access to the organization.",
    object: OAuthInstallationSchema,
  },
  {
    type: "oauth_app.deauthorized",
    description: "An OAuth app was disconnected: every token it held for the organization stopped working.",
    object: OAuthInstallationSchema,
  },
];

const SELECT = `SELECT i.*, a.name AS app_name, a.client_id, a.logo_url, a.org_id AS app_org_id,
    u.name AS user_name, u.email AS user_email
  FROM oauth_installations i JOIN oauth_apps a ON a.id = i.app_id LEFT JOIN users u ON u.id = i.user_id`;

/** An `oauth_installations` row joined with its app and the member who granted it (`SELECT`). */
interface InstallationRow {
  id: string;
  org_id: string;
  app_id: string;
  grant_id: string;
  scopes: string[];
  user_id: string | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  updated_at: Date;
  app_name: string;
  client_id: string;
  logo_url: string | null;
  app_org_id: string;
  /** Of the LEFT JOIN on users: null when `user_id` is. */
  user_name: string | null;
  user_email: string | null;
}

/** An installation's lock: the grant it acts through, and whether it is disconnected. */
interface InstallationLockRow {
  grant_id: string;
  revoked_at: Date | null;
}

function render(row: InstallationRow): OAuthInstallation {
  return {
    ...baseFields(row, "oauth_installation"),
    object: "oauth_installation",
    organization_id: row.org_id,
    app: {
      id: row.app_id,
      name: row.app_name,
      client_id: row.client_id,
      logo_url: row.logo_url ?? null,
    },
    scopes: row.scopes,
    granted_by: grantedBy(row),
    last_used_at: rfcOrNull(row.last_used_at),
    revoked_at: rfcOrNull(row.revoked_at),
  };
}

/** The member who granted it; `user_id` is a foreign key, so the join found them when it is set. */
function grantedBy(row: InstallationRow): OAuthInstallation["granted_by"] {
  if (!row.user_id || row.user_name === null || row.user_email === null) return null;
  return { id: row.user_id, name: row.user_name, email: row.user_email };
}

/** Where an installation's events go: its organization, and the app's when that is another. */
const eventOrgs = (row: InstallationRow): string[] => [...new Set([row.org_id, row.app_org_id])];

/**
 * An installation's events, one per organization it concerns: the actor is named only in its own
 * organization (`actorOrg`); the other learns what happened to the app, not who did it there.
 */
const installationEvents = (
  row: InstallationRow,
  type: string,
  object: OAuthInstallation,
  by: { actor: Actor; actorOrg: string },
) =>
  eventOrgs(row).map((orgId) => ({
    orgId,
    event: { type, object, ...(orgId === by.actorOrg ? { actor: by.actor } : {}) },
  }));

export interface Authorization {
  orgId: string;
  appId: string;
  userId: string;
  grantId: string;
  scopes: string[];
  /** Who consents: the member, with their role in `orgId` (`{ type: "member", role }`). */
  grantor: Grantor;
}

/**
 * Records a consent: the organization's installation of the app now acts through `grantId` with
 * `scopes` (re-consenting replaces both), and `oauth_app.authorized` (by the consenting member) is
 * written in the same transaction. Returns the grant the installation held before, for the caller to
 * revoke if it is another one. The scopes are the grantor's to give (`requireGrant`): a member's role
 * bounds them.
 */
export async function authorizeInstallation(
  db: Queryable | Store,
  clock: Clock,
  input: Authorization,
): Promise<{ installation: OAuthInstallation; previousGrantId: string | undefined }> {
  requireGrant(input.grantor, { type: "oauth_consent", scopes: input.scopes });
  const now = clock.now();
  return inTransaction(db, async (tx) => {
    const [before] = await tx.query<InstallationLockRow>(
      "SELECT grant_id, revoked_at FROM oauth_installations WHERE org_id = $1 AND app_id = $2 FOR UPDATE",
      [input.orgId, input.appId],
    );
    await tx.query(
      `INSERT INTO oauth_installations (id, org_id, app_id, grant_id, scopes, user_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $7)
       ON CONFLICT (org_id, app_id) DO UPDATE SET grant_id = EXCLUDED.grant_id, scopes = EXCLUDED.scopes,
         user_id = EXCLUDED.user_id, revoked_at = NULL, updated_at = EXCLUDED.updated_at`,
      [newId("oins"), input.orgId, input.appId, input.grantId, input.scopes, input.userId, now.toISOString()],
    );
    const [row] = await tx.query<InstallationRow>(`${SELECT} WHERE i.org_id = $1 AND i.app_id = $2`, [
      input.orgId,
      input.appId,
    ]);
    const installation = render(row!);
    const by = { actor: actorOf(input.grantor), actorOrg: input.orgId };
    for (const { orgId, event } of installationEvents(row!, "oauth_app.authorized", installation, by)) {
      await recordEvents(tx, orgId, now, [event]);
    }
    const previous = before && !before.revoked_at ? before.grant_id : undefined;
    return { installation, previousGrantId: previous === input.grantId ? undefined : previous };
  });
}

/** The organization's installed (not disconnected) apps, newest first. */
export async function listInstallations(db: Queryable, orgId: string): Promise<OAuthInstallation[]> {
  const rows = await db.query<InstallationRow>(
    `${SELECT} WHERE i.org_id = $1 AND i.revoked_at IS NULL ORDER BY i.created_at DESC`,
    [orgId],
  );
  return rows.map(render);
}

/**
 * Disconnects an installation: marks it revoked, deletes every code, token and grant record of it
 * (so each token stops at its next use), and writes `oauth_app.deauthorized` (by `actor`), all in one
 * transaction.
 */
export async function disconnectInstallation(
  db: Queryable | Store,
  clock: Clock,
  orgId: string,
  id: string,
  actor: Actor,
): Promise<OAuthInstallation> {
  const now = clock.now();
  return inTransaction(db, async (tx) => {
    const installation = await disconnectWithin(tx, now, orgId, id, { actor, actorOrg: orgId });
    if (!installation) throw new AppError("not_found", `No such oauth_installation: '${id}'`);
    return installation;
  });
}

/**
 * Deletes an app (of `orgId`), its installations and every code, token and grant its client holds.
 * Each live installation is disconnected first, as a Disconnect would: the organization that
 * installed it and the app's own hear `oauth_app.deauthorized`, then the app's `oauth_app.deleted`
 * (by `actor`), in the same transaction.
 */
export async function deleteOAuthApp(
  db: Queryable | Store,
  clock: Clock,
  orgId: string,
  id: string,
  actor: Actor,
): Promise<void> {
  const now = clock.now();
  await inTransaction(db, async (tx) => {
    const [app] = await tx.query<{ client_id: string }>(
      "SELECT client_id FROM oauth_apps WHERE org_id = $1 AND id = $2 FOR UPDATE",
      [orgId, id],
    );
    if (!app) throw new AppError("not_found", `No such oauth_app: '${id}'`);
    const deleted = await getOAuthApp(tx, orgId, id);
    // Installations are other organizations' rows: found by the app, each acted on in its own org.
    const live = await tx.query<{ org_id: string; id: string }>(
      "SELECT org_id, id FROM oauth_installations WHERE app_id = $1 AND revoked_at IS NULL ORDER BY created_at",
      [id],
    );
    for (const installation of live) {
      await disconnectWithin(tx, now, installation.org_id, installation.id, { actor, actorOrg: orgId });
    }
    await tx.query("DELETE FROM oauth_apps WHERE org_id = $1 AND id = $2", [orgId, id]);
    await tx.query("DELETE FROM oauth_records WHERE client_id = $1", [app.client_id]);
    await recordEvents(tx, orgId, now, [{ type: "oauth_app.deleted", object: deleted, actor }]);
  });
}

/** One installation disconnected inside `tx` (undefined when there is none): see disconnectInstallation. */
async function disconnectWithin(
  tx: Queryable,
  now: Date,
  orgId: string,
  id: string,
  by: { actor: Actor; actorOrg: string },
): Promise<OAuthInstallation | undefined> {
  const [locked] = await tx.query<InstallationLockRow>(
    "SELECT grant_id, revoked_at FROM oauth_installations WHERE org_id = $1 AND id = $2 FOR UPDATE",
    [orgId, id],
  );
  if (!locked) return undefined;
  await tx.query(
    "UPDATE oauth_installations SET revoked_at = COALESCE(revoked_at, $3), updated_at = $3 WHERE org_id = $1 AND id = $2",
    [orgId, id, now.toISOString()],
  );
  await revokeGrantRecords(tx, locked.grant_id);
  const [row] = await tx.query<InstallationRow>(`${SELECT} WHERE i.org_id = $1 AND i.id = $2`, [orgId, id]);
  const installation = render(row!);
  if (!locked.revoked_at) {
    for (const { orgId: target, event } of installationEvents(
      row!,
      "oauth_app.deauthorized",
      installation,
      by,
    )) {
      await recordEvents(tx, target, now, [event]);
    }
  }
  return installation;
}

/** The grant and granting member of the organization's live installation of an app, if any. */
export async function findInstallationGrant(
  db: Queryable,
  orgId: string,
  appId: string,
): Promise<{ grantId: string; userId: string | null } | undefined> {
  const [row] = await db.query<{ grant_id: string; user_id: string | null }>(
    "SELECT grant_id, user_id FROM oauth_installations WHERE org_id = $1 AND app_id = $2 AND revoked_at IS NULL",
    [orgId, appId],
  );
  return row ? { grantId: row.grant_id, userId: row.user_id ?? null } : undefined;
}

/** Records use at most once a minute per installation, off the request's critical path. */
export async function touchInstallation(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query(
    `UPDATE oauth_installations SET last_used_at = $2::timestamptz
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
    [id, at.toISOString()],
  );
}
