import type { Queryable } from "../../store/index.ts";

export interface IdempotencyRow {
  request_hash: string;
  response_status: number | null;
  response_headers: unknown;
  response_body: string | null;
}

/**
 * Which stored answer a request may see: the organization, the caller's credential fingerprint
 * (api/middleware/idempotency.ts) and the client's `Idempotency-Key`.
 */
export interface IdempotencyScope {
  orgId: string;
  credential: string;
  key: string;
}

/**
 * Claims `key` for a new request. Succeeds when the key is new, expired (past its
 * 24 h), or held by a request whose lease ran out (it crashed). One statement, so
 * two racing requests cannot both win.
 */
export async function reserveIdempotencyKey(
  db: Queryable,
  args: IdempotencyScope & {
    method: string;
    path: string;
    requestHash: string;
    now: Date;
    leaseUntil: Date;
    expiredBefore: Date;
  },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys
       (org_id, credential, key, method, path, request_hash, locked_until, created_at)
     VALUES ($1, $9, $2, $3, $4, $5, $6::timestamptz, $7::timestamptz)
     ON CONFLICT (org_id, credential, key) DO UPDATE SET
       method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash,
       locked_until = EXCLUDED.locked_until, created_at = EXCLUDED.created_at,
       response_status = NULL, response_headers = NULL, response_body = NULL
     WHERE idempotency_keys.created_at < $8::timestamptz
        OR (idempotency_keys.response_status IS NULL
            AND idempotency_keys.locked_until < $7::timestamptz
            AND idempotency_keys.request_hash = EXCLUDED.request_hash)
     RETURNING 1`,
    [
      args.orgId,
      args.key,
      args.method,
      args.path,
      args.requestHash,
      args.leaseUntil.toISOString(),
      args.now.toISOString(),
      args.expiredBefore.toISOString(),
      args.credential,
    ],
  );
  return rows.length > 0;
}

export async function findIdempotentRequest(
  db: Queryable,
  scope: IdempotencyScope,
): Promise<IdempotencyRow | undefined> {
  const rows = await db.query<IdempotencyRow>(
    `SELECT request_hash, response_status, response_headers, response_body
     FROM idempotency_keys WHERE org_id = $1 AND credential = $2 AND key = $3`,
    [scope.orgId, scope.credential, scope.key],
  );
  return rows[0];
}

export async function saveIdempotentResponse(
  db: Queryable,
  args: IdempotencyScope & { status: number; headers: Record<string, string>; body: string },
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys
     SET response_status = $4, response_headers = $5::jsonb, response_body = $6, locked_until = NULL
     WHERE org_id = $1 AND credential = $2 AND key = $3`,
    [args.orgId, args.credential, args.key, args.status, args.headers, args.body],
  );
}

/** Forgets a key whose request failed on our side, so the client's retry runs anew. */
export async function releaseIdempotencyKey(db: Queryable, scope: IdempotencyScope): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_keys
     WHERE org_id = $1 AND credential = $2 AND key = $3 AND response_status IS NULL`,
    [scope.orgId, scope.credential, scope.key],
  );
}

/** Retention: drops keys older than the window (run by the scheduler). */
export async function purgeIdempotencyKeys(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query("DELETE FROM idempotency_keys WHERE created_at < $1::timestamptz RETURNING 1", [
    before.toISOString(),
  ]);
  return rows.length;
}
