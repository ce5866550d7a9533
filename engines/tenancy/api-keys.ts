import { z } from "zod";
import {
  AppError,
  newId,
  randomBase62,
  rfc3339,
  sha256Hex,
  type Clock,
  type Plan,
} from "../../core/index.ts";
import { inTransaction, type Queryable, type Store } from "../../store/index.ts";
import { actorOf, type Actor } from "../events/actor.ts";
import type { EventType } from "../events/catalog.ts";
import { recordEvents } from "../events/outbox.ts";
import { SqlWhere } from "../list-query.ts";
import { selectPage, type Page } from "../paging.ts";
import { ENGINES, baseFields, rfcOrNull, type Engine } from "../resource.ts";
import { requireGrant, type Grantor } from "./grants.ts";
import type { KeyPrincipal } from "./principal.ts";
import { KEY_KINDS, scopesFor, type KeyKind } from "./scopes.ts";

export type { KeyPrincipal } from "./principal.ts";

/** `sk_live_` + 40 base62 characters: 238 bits, so SHA-256 at rest is enough. */
export const KEY_PREFIX = "sk_live_";
const SECRET_LENGTH = 40;
const KEY_SHAPE = /^sk_live_[0-9A-Za-z]{32,128}$/;

export const ApiKeySchema = z
  .object({
    id: z.string().meta({ example: "key_3kTqZ9" }),
    object: z.literal("api_key"),
    name: z.string(),
    kind: z.enum(KEY_KINDS),
    engines: z.array(z.enum(ENGINES)),
    access: z.enum(["read", "write"]).nullable(),
    scopes: z.array(z.string()),
    redacted_secret: z.string().meta({ example: "sk_live_AbCd…wxyz" }),
    created_by_user: z.string().nullable().meta({
      description: "The dashboard user who created the key (`usr_…`); null for the API, the CLI or setup",
    }),
    created_at: z.string(),
    updated_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: "ApiKey" });
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const ApiKeyCreateSchema = z
  .object({
    name: z.string().trim().max(100).optional(),
    kind: z.enum(KEY_KINDS),
    engines: z.array(z.enum(ENGINES)).min(1).optional(),
    access: z.enum(["read", "write"]).optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.kind === "engine" && !value.engines) {
      ctx.addIssue({ code: "custom", path: ["engines"], message: "engine keys need at least one engine" });
    }
    if (value.kind !== "engine" && (value.engines || value.access)) {
      ctx.addIssue({
        code: "custom",
        path: ["kind"],
        message: "engines and access apply to engine keys only",
      });
    }
  });
export type ApiKeyCreate = z.infer<typeof ApiKeyCreateSchema>;

/** The created key with its secret, which is shown this once and never again. */
export type CreatedApiKey = ApiKey & { secret: string };

/** An `api_keys` row as the store returns it (migrations 0001, 0016). */
interface ApiKeyRow {
  id: string;
  org_id: string;
  name: string;
  kind: KeyKind;
  /** text[], written only from `ApiKeyCreateSchema` */
  engines: Engine[];
  access: "read" | "write" | null;
  scopes: string[];
  /** SHA-256 hex of the whole secret */
  secret_hash: string;
  display_prefix: string;
  last4: string;
  metadata: Record<string, string>;
  created_by_user: string | null;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

function render(row: ApiKeyRow): ApiKey {
  return {
    ...baseFields(row, "api_key"),
    object: "api_key",
    name: row.name,
    kind: row.kind,
    engines: row.engines,
    access: row.access ?? null,
    scopes: row.scopes,
    redacted_secret: `${row.display_prefix}…${row.last4}`,
    created_by_user: row.created_by_user ?? null,
    last_used_at: rfcOrNull(row.last_used_at),
    revoked_at: rfcOrNull(row.revoked_at),
  };
}

/** Platform events about keys; the payload never holds a secret. */
export const API_KEY_EVENT_TYPES: EventType[] = [
  {
    type: "api_key.created",
    description: "An API key was created (its secret is never sent).",
    object: ApiKeySchema,
  },
  { type: "api_key.revoked", description: "An API key was revoked.", object: ApiKeySchema },
];

/** The scopes a key made from `input` holds: its kind expanded (`scopesFor`), engine access read unless given. */
export function apiKeyScopes(input: ApiKeyCreate): string[] {
  return scopesFor(input.kind, input.engines ?? [], input.access ?? "read");
}

/**
 * Creates a key and its `api_key.created` event. Pass a transaction, or a store
 * (then one is opened), so the key and its event commit together. `grantor` is who asks:
 * a key wider than what it holds is refused (`requireGrant`; `OPERATOR` for the admin API,
 * the CLI and the first start), and it is the event's actor (`actorOf`).
 *
 * @example
 *   await createApiKey(store, orgId, { kind: "read_only" }, c.get("principal"));
 */
export async function createApiKey(
  db: Queryable | Store,
  orgId: string,
  input: ApiKeyCreate,
  grantor: Grantor,
  options: { createdByUser?: string } = {},
): Promise<CreatedApiKey> {
  requireGrant(grantor, { type: "api_key", scopes: apiKeyScopes(input) });
  const actor = actorOf(grantor);
  return inTransaction(db, (tx) => insertApiKey(tx, orgId, input, options.createdByUser ?? null, actor));
}

async function insertApiKey(
  db: Queryable,
  orgId: string,
  input: ApiKeyCreate,
  createdByUser: string | null,
  actor: Actor,
): Promise<CreatedApiKey> {
  const access = input.kind === "engine" ? (input.access ?? "read") : null;
  const scopes = apiKeyScopes(input);
  const secret = `${KEY_PREFIX}${randomBase62(SECRET_LENGTH)}`;
  const rows = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, org_id, name, kind, engines, access, scopes, secret_hash, display_prefix, last4, created_by_user)
     VALUES ($1, $2, $3, $4, $5::text[], $6, $7::text[], $8, $9, $10, $11) RETURNING *`,
    [
      newId("key"),
      orgId,
      input.name ?? "",
      input.kind,
      input.engines ?? [],
      access,
      scopes,
      sha256Hex(secret),
      secret.slice(0, KEY_PREFIX.length + 4),
      secret.slice(-4),
      createdByUser,
    ],
  );
  const key = render(rows[0]!);
  await recordEvents(db, orgId, rows[0]!.created_at, [{ type: "api_key.created", object: key, actor }]);
  return { ...key, secret };
}

export async function listApiKeys(
  db: Queryable,
  orgId: string,
  page: number,
  perPage: number,
): Promise<Page<ApiKey>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  const select = { from: "api_keys", where, orderBy: "created_at DESC, id DESC" };
  return selectPage(db, select, { page, perPage }, render);
}

export async function getApiKey(db: Queryable, orgId: string, id: string): Promise<ApiKey> {
  const rows = await db.query<ApiKeyRow>("SELECT * FROM api_keys WHERE org_id = $1 AND id = $2", [orgId, id]);
  if (!rows[0]) throw new AppError("not_found", `No such api_key: '${id}'`);
  return render(rows[0]);
}

/**
 * Revokes a key and records `api_key.revoked` (by `actor`) the first time; at commit, migration
 * 0018's trigger tells every node listening to drop it. A node's own cache is dropped by the key
 * cache's `revoke` (api/auth/key-cache.ts), which calls this: the API, the dashboard and the
 * CLI revoke through it, never through this alone.
 */
export async function revokeApiKey(
  db: Queryable | Store,
  orgId: string,
  id: string,
  clock: Clock,
  actor: Actor,
): Promise<ApiKey> {
  return inTransaction(db, async (tx) => {
    const before = await tx.query<{ revoked_at: Date | null }>(
      "SELECT revoked_at FROM api_keys WHERE org_id = $1 AND id = $2 FOR UPDATE",
      [orgId, id],
    );
    const key = await markRevoked(tx, orgId, id, clock);
    if (before[0] && !before[0].revoked_at) {
      await recordEvents(tx, orgId, clock.now(), [{ type: "api_key.revoked", object: key, actor }]);
    }
    return key;
  });
}

async function markRevoked(db: Queryable, orgId: string, id: string, clock: Clock): Promise<ApiKey> {
  const rows = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3::timestamptz), updated_at = $3::timestamptz
     WHERE org_id = $1 AND id = $2 RETURNING *`,
    [orgId, id, rfc3339(clock.now())],
  );
  if (!rows[0]) throw new AppError("not_found", `No such api_key: '${id}'`);
  return render(rows[0]);
}

/** Whether a string has the shape of a live key (cheap pre-check before hashing). */
export function looksLikeApiKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

/**
 * Finds the live key whose secret hashes to `secretHash`. The lookup is by the
 * hash (an index probe), so the secret is never compared byte by byte in SQL.
 */
export function findPrincipalByHash(db: Queryable, secretHash: string): Promise<KeyPrincipal | undefined> {
  return findPrincipal(db, "k.secret_hash = $1", [secretHash]);
}

/** The principal of an unrevoked key by its id (a function's trigger runs act as the key that deployed it). */
export function findPrincipalByKeyId(
  db: Queryable,
  orgId: string,
  keyId: string,
): Promise<KeyPrincipal | undefined> {
  return findPrincipal(db, "k.org_id = $1 AND k.id = $2", [orgId, keyId]);
}

async function findPrincipal(
  db: Queryable,
  condition: string,
  params: unknown[],
): Promise<KeyPrincipal | undefined> {
  const rows = await db.query<{
    id: string;
    org_id: string;
    name: string;
    plan: Plan;
    scopes: string[];
    kind: KeyKind;
  }>(
    `SELECT k.id, k.org_id, o.name, o.plan, k.scopes, k.kind
     FROM api_keys k JOIN organizations o ON o.id = k.org_id
     WHERE ${condition} AND k.revoked_at IS NULL`,
    params,
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    keyId: row.id,
    orgId: row.org_id,
    orgName: row.name,
    plan: row.plan,
    scopes: row.scopes,
    kind: row.kind,
  };
}

/** Records use at most once a minute per key, off the request's critical path. */
export async function touchApiKey(db: Queryable, keyId: string, at: Date): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = $2::timestamptz
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
    [keyId, at.toISOString()],
  );
}
