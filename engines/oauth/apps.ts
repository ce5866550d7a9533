import { z } from "zod";
import { AppError, newId, randomBase62, rfc3339, sha256Hex, type Clock } from "../../core/index.ts";
import { inTransaction, type Queryable, type Store } from "../../store/index.ts";
import { actorOf } from "../events/actor.ts";
import { previousAttributes, recordEvents } from "../events/outbox.ts";
import { SqlWhere } from "../list-query.ts";
import { selectPage, type Page } from "../paging.ts";
import { baseFields } from "../resource.ts";
import { requireGrant, type Grantor } from "../tenancy/grants.ts";
import { OAUTH_SCOPES } from "./scopes.ts";

/** `ocs_` + 40 base62 characters (238 bits): SHA-256 at rest is enough, as for API keys. */
const SECRET_PREFIX = "ocs_";
const SECRET_LENGTH = 40;
const CLIENT_ID_PREFIX = "oc_";

export const APP_KINDS = ["confidential", "public"] as const;
export type AppKind = (typeof APP_KINDS)[number];

/**
 * A redirect URI is compared exactly (RFC 9700 §4.1.3); https, or http on a loopback host for
 * development and native apps (RFC 8252 §7.3). No fragment (RFC 6749 §3.1.2).
 */
const RedirectUriSchema = z
  .url()
  .max(2000)
  .refine((value) => {
    const url = new URL(value);
    if (url.hash) return false;
    if (url.protocol === "https:") return true;
    return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  }, "must be https (or http on localhost), without a fragment");

const ScopesSchema = z
  .array(z.enum(OAUTH_SCOPES as [string, ...string[]]))
  .min(1)
  .transform((scopes) => [...new Set(scopes)]);

export const OAuthAppSchema = z
  .object({
    id: z.string().meta({ example: "oapp_3kTqZ9" }),
    object: z.literal("oauth_app"),
    name: z.string(),
    logo_url: z.string().nullable(),
    redirect_uris: z.array(z.string()),
    kind: z.enum(APP_KINDS),
    scopes: z.array(z.string()).meta({ description: "The scopes the app may ask for" }),
    client_id: z.string().meta({ example: "oc_7hQ2…" }),
    redacted_secret: z.string().nullable().meta({ example: "ocs_…wxyz" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "OAuthApp" });
export type OAuthApp = z.infer<typeof OAuthAppSchema>;

export const OAuthAppCreateSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    logo_url: z
      .url({ protocol: /^https$/ })
      .max(2000)
      .optional(),
    redirect_uris: z.array(RedirectUriSchema).min(1).max(10),
    kind: z.enum(APP_KINDS).default("confidential"),
    scopes: ScopesSchema,
  })
  .strict();
export type OAuthAppCreate = z.input<typeof OAuthAppCreateSchema>;

export const OAuthAppUpdateSchema = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    logo_url: z
      .url({ protocol: /^https$/ })
      .max(2000)
      .nullable()
      .optional(),
    redirect_uris: z.array(RedirectUriSchema).min(1).max(10).optional(),
    scopes: ScopesSchema.optional(),
  })
  .strict();
export type OAuthAppUpdate = z.input<typeof OAuthAppUpdateSchema>;

/** An app with its client secret, which is shown at creation and rotation only. */
export type OAuthAppWithSecret = OAuthApp & { client_secret: string | null };

/** An `oauth_apps` row as the store returns it (migration 0017). */
interface OAuthAppRow {
  id: string;
  org_id: string;
  name: string;
  logo_url: string | null;
  redirect_uris: string[];
  kind: AppKind;
  scopes: string[];
  client_id: string;
  /** SHA-256 hex of the client secret; null for a public app */
  client_secret_hash: string | null;
  secret_last4: string | null;
  created_by_user: string | null;
  created_at: Date;
  updated_at: Date;
}

function render(row: OAuthAppRow): OAuthApp {
  return {
    ...baseFields(row, "oauth_app"),
    object: "oauth_app",
    name: row.name,
    logo_url: row.logo_url ?? null,
    redirect_uris: row.redirect_uris,
    kind: row.kind,
    scopes: row.scopes,
    client_id: row.client_id,
    redacted_secret: row.secret_last4 ? `${SECRET_PREFIX}…${row.secret_last4}` : null,
  };
}

const newSecret = () => `${SECRET_PREFIX}${randomBase62(SECRET_LENGTH)}`;

/**
 * Registers an app and records `oauth_app.created` (by `grantor`) in the same transaction. The scopes
 * it may ask for are a grant (its client secret obtains them by client credentials): `grantor` must
 * hold them.
 */
export async function createOAuthApp(
  db: Queryable | Store,
  clock: Clock,
  orgId: string,
  input: OAuthAppCreate,
  grantor: Grantor,
  createdByUser?: string,
): Promise<OAuthAppWithSecret> {
  const app = OAuthAppCreateSchema.parse(input);
  requireGrant(grantor, { type: "oauth_app", scopes: app.scopes });
  const secret = app.kind === "confidential" ? newSecret() : null;
  const now = clock.now();
  return inTransaction(db, async (tx) => {
    const rows = await tx.query<OAuthAppRow>(
      `INSERT INTO oauth_apps (id, org_id, name, logo_url, redirect_uris, kind, scopes, client_id, client_secret_hash, secret_last4, created_by_user, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::text[], $6, $7::text[], $8, $9, $10, $11, $12, $12) RETURNING *`,
      [
        newId("oapp"),
        orgId,
        app.name,
        app.logo_url ?? null,
        app.redirect_uris,
        app.kind,
        app.scopes,
        `${CLIENT_ID_PREFIX}${randomBase62(24)}`,
        secret ? sha256Hex(secret) : null,
        secret ? secret.slice(-4) : null,
        createdByUser ?? null,
        now.toISOString(),
      ],
    );
    const created = render(rows[0]!);
    await recordEvents(tx, orgId, now, [
      { type: "oauth_app.created", object: created, actor: actorOf(grantor) },
    ]);
    return { ...created, client_secret: secret };
  });
}

export async function listOAuthApps(
  db: Queryable,
  orgId: string,
  page: number,
  perPage: number,
): Promise<Page<OAuthApp>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  return selectPage(
    db,
    { from: "oauth_apps", where, orderBy: "created_at DESC, id DESC" },
    { page, perPage },
    render,
  );
}

export async function getOAuthApp(db: Queryable, orgId: string, id: string): Promise<OAuthApp> {
  const [row] = await db.query<OAuthAppRow>("SELECT * FROM oauth_apps WHERE org_id = $1 AND id = $2", [
    orgId,
    id,
  ]);
  if (!row) throw new AppError("not_found", `No such oauth_app: '${id}'`);
  return render(row);
}

/**
 * Changes what the app says about itself, with `oauth_app.updated` (by `grantor`, with
 * previous_attributes) when anything changed; tokens already issued keep at most the new scopes.
 * `grantor` must hold the app's scopes before and after: a new redirect URI on a wider app would
 * let its changer collect the codes of members who can grant more.
 */
export async function updateOAuthApp(
  db: Queryable | Store,
  clock: Clock,
  orgId: string,
  id: string,
  input: OAuthAppUpdate,
  grantor: Grantor,
): Promise<OAuthApp> {
  const change = OAuthAppUpdateSchema.parse(input);
  return inTransaction(db, async (tx) => {
    const before = await lockOAuthApp(tx, orgId, id);
    requireGrant(grantor, {
      type: "oauth_app",
      scopes: [...new Set([...before.scopes, ...(change.scopes ?? [])])],
    });
    const now = clock.now();
    const [row] = await tx.query<OAuthAppRow>(
      `UPDATE oauth_apps SET
         name = COALESCE($3, name),
         logo_url = CASE WHEN $4::boolean THEN $5 ELSE logo_url END,
         redirect_uris = COALESCE($6::text[], redirect_uris),
         scopes = COALESCE($7::text[], scopes),
         updated_at = $8
       WHERE org_id = $1 AND id = $2 RETURNING *`,
      [
        orgId,
        id,
        change.name ?? null,
        change.logo_url !== undefined,
        change.logo_url ?? null,
        change.redirect_uris ?? null,
        change.scopes ?? null,
        rfc3339(now),
      ],
    );
    const updated = render(row!);
    const changed = previousAttributes(before, updated);
    if (Object.keys(changed).length > 0) {
      await recordEvents(tx, orgId, now, [
        { type: "oauth_app.updated", object: updated, previousAttributes: changed, actor: actorOf(grantor) },
      ]);
    }
    return updated;
  });
}

/**
 * A new client secret; the old one stops working at once. Records `oauth_app.secret_rotated` (by
 * `grantor`; the event shows the new secret's last four characters, as the app does, never the
 * secret). The secret obtains the app's scopes by client credentials, so `grantor` must hold them.
 */
export async function rotateOAuthAppSecret(
  db: Queryable | Store,
  clock: Clock,
  orgId: string,
  id: string,
  grantor: Grantor,
): Promise<OAuthAppWithSecret> {
  return inTransaction(db, async (tx) => {
    const app = await lockOAuthApp(tx, orgId, id);
    if (app.kind === "public") {
      throw new AppError("invalid_request", "A public app has no client secret to rotate");
    }
    requireGrant(grantor, { type: "oauth_app", scopes: app.scopes });
    const secret = newSecret();
    const now = clock.now();
    const [row] = await tx.query<OAuthAppRow>(
      `UPDATE oauth_apps SET client_secret_hash = $3, secret_last4 = $4, updated_at = $5
       WHERE org_id = $1 AND id = $2 RETURNING *`,
      [orgId, id, sha256Hex(secret), secret.slice(-4), rfc3339(now)],
    );
    const rotated = render(row!);
    await recordEvents(tx, orgId, now, [
      { type: "oauth_app.secret_rotated", object: rotated, actor: actorOf(grantor) },
    ]);
    return { ...rotated, client_secret: secret };
  });
}

/** The app, locked for the change the caller's transaction makes to it; `not_found` when none. */
async function lockOAuthApp(tx: Queryable, orgId: string, id: string): Promise<OAuthApp> {
  const [row] = await tx.query<OAuthAppRow>(
    "SELECT * FROM oauth_apps WHERE org_id = $1 AND id = $2 FOR UPDATE",
    [orgId, id],
  );
  if (!row) throw new AppError("not_found", `No such oauth_app: '${id}'`);
  return render(row);
}

/** What the authorization server knows of an app (any organization's: the client id is global). */
export interface OAuthClient {
  app: OAuthApp;
  orgId: string;
  /** SHA-256 hex of the secret, compared by the server in constant time; null for public apps. */
  secretHash: string | null;
}

export async function findOAuthClient(db: Queryable, clientId: string): Promise<OAuthClient | undefined> {
  const [row] = await db.query<OAuthAppRow>("SELECT * FROM oauth_apps WHERE client_id = $1", [clientId]);
  if (!row) return undefined;
  return { app: render(row), orgId: row.org_id, secretHash: row.client_secret_hash ?? null };
}
