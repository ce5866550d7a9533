import { sha256Hex, type Clock } from "../../core/index.ts";
import type { Queryable } from "../../store/index.ts";

/**
 * The authorization server's records (oidc-provider's models: AccessToken, RefreshToken,
 * AuthorizationCode, ClientCredentials, Grant, Session, Interaction…) in `oauth_records`, each
 * looked up by its id. A token's id is the token itself, so it is stored as its SHA-256 and its
 * payload without the `jti`, which `find` puts back from the value it was asked for.
 */
export type RecordPayload = Record<string, unknown>;

/** The models whose id is a bearer credential. */
const SECRET_MODELS = new Set(["AccessToken", "RefreshToken", "AuthorizationCode", "ClientCredentials"]);

/** The stored id of a token (its SHA-256), or the id itself for models that are no credential. */
export function recordId(model: string, id: string): string {
  return SECRET_MODELS.has(model) ? sha256Hex(id) : id;
}

export interface RecordStore {
  upsert(model: string, id: string, payload: RecordPayload, expiresInS: number | undefined): Promise<void>;
  find(model: string, id: string): Promise<RecordPayload | undefined>;
  findByUid(model: string, uid: string): Promise<RecordPayload | undefined>;
  findByUserCode(model: string, userCode: string): Promise<RecordPayload | undefined>;
  consume(model: string, id: string): Promise<void>;
  destroy(model: string, id: string): Promise<void>;
  /** Every record of the grant (its tokens, codes and the grant itself), any model. */
  revokeByGrantId(grantId: string): Promise<void>;
}

export function createRecordStore(db: Queryable, clock: Clock): RecordStore {
  const select = async (model: string, where: string, value: string, id?: string) => {
    const [row] = await db.query<{ payload: RecordPayload; consumed_at: Date | string | null }>(
      `SELECT payload, consumed_at FROM oauth_records WHERE model = $1 AND ${where} = $2`,
      [model, value],
    );
    if (!row) return undefined;
    const payload: RecordPayload = { ...row.payload };
    if (id !== undefined && SECRET_MODELS.has(model)) payload.jti = id;
    // oidc-provider reads `consumed` to refuse a second use of a code or refresh token.
    if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
    return payload;
  };
  return {
    async upsert(model, id, payload, expiresInS) {
      const stored = { ...payload };
      if (SECRET_MODELS.has(model)) delete stored.jti;
      const exp = typeof payload.exp === "number" ? payload.exp * 1000 : undefined;
      const expiresAt = exp ?? (expiresInS ? clock.nowMs() + expiresInS * 1000 : undefined);
      await db.query(
        `INSERT INTO oauth_records (model, id, payload, grant_id, client_id, user_code, uid, expires_at)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8)
         ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
           client_id = EXCLUDED.client_id, user_code = EXCLUDED.user_code, uid = EXCLUDED.uid,
           expires_at = EXCLUDED.expires_at`,
        [
          model,
          recordId(model, id),
          stored,
          stringOrNull(payload.grantId),
          stringOrNull(payload.clientId),
          stringOrNull(payload.userCode),
          stringOrNull(payload.uid),
          expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
        ],
      );
    },
    find: (model, id) => select(model, "id", recordId(model, id), id),
    findByUid: (model, uid) => select(model, "uid", uid),
    findByUserCode: (model, userCode) => select(model, "user_code", userCode),
    async consume(model, id) {
      await db.query(
        `UPDATE oauth_records SET consumed_at = COALESCE(consumed_at, $3) WHERE model = $1 AND id = $2`,
        [model, recordId(model, id), clock.now().toISOString()],
      );
    },
    async destroy(model, id) {
      await db.query(`DELETE FROM oauth_records WHERE model = $1 AND id = $2`, [model, recordId(model, id)]);
    },
    async revokeByGrantId(grantId) {
      await revokeGrantRecords(db, grantId);
    },
  };
}

/** Deletes every code, token and the grant record of `grantId`: none of them works from now on. */
export async function revokeGrantRecords(db: Queryable, grantId: string): Promise<void> {
  await db.query(`DELETE FROM oauth_records WHERE grant_id = $1 OR (model = 'Grant' AND id = $1)`, [grantId]);
}

/** Housekeeping: records past their expiry (used codes, old tokens, finished interactions). */
export async function purgeExpiredOAuthRecords(db: Queryable, now: Date): Promise<number> {
  const rows = await db.query(`DELETE FROM oauth_records WHERE expires_at < $1 RETURNING 1`, [
    now.toISOString(),
  ]);
  return rows.length;
}

const stringOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);
