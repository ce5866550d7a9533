import type { Queryable } from "../../store/index.ts";

export interface IdempotencyRow {
  request_hash: string;
  response_status: number | null;
  response_headers: unknown;
  response_body: string | null;
}

/**
 * Claims `key` for a new request. Succeeds when the key is new, expired (past its
 * 24 h), or held by a request whose lease ran out (it crashed). One statement, so
 * two racing requests cannot both win.
 */
export async function reserveIdempotencyKey(
  db: Queryable,
  args: {
    orgId: string;
    key: string;
    method: string;
    path: string;
    requestHash: string;
    now: Date;
    leaseUntil: Date;
    expiredBefore: Date;
  },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys (org_id, key, method, path, request_hash, locked_until, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $7::timestamptz)
     ON CONFLICT (org_id, key) DO UPDATE SET
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
    ],
  );
  return rows.length > 0;
}

export async function findIdempotentRequest(
  db: Queryable,
  orgId: string,
  key: string,
): Promise<IdempotencyRow | undefined> {
  const rows = await db.query<IdempotencyRow>(
    `SELECT request_hash, response_status, response_headers, response_body
     FROM idempotency_keys WHERE org_id = $1 AND key = $2`,
    [orgId, key],
  );
  return rows[0];
}

export async function saveIdempotentResponse(
  db: Queryable,
  args: { orgId: string; key: string; status: number; headers: Record<string, string>; body: string },
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys
     SET response_status = $3, response_headers = $4::jsonb, response_body = $5, locked_until = NULL
     WHERE org_id = $1 AND key = $2`,
    [args.orgId, args.key, args.status, args.headers, args.body],
  );
}

/** Forgets a key whose request failed on our side, so the client's retry runs anew. */
export async function releaseIdempotencyKey(db: Queryable, orgId: string, key: string): Promise<void> {
  await db.query("DELETE FROM idempotency_keys WHERE org_id = $1 AND key = $2 AND response_status IS NULL", [
    orgId,
    key,
  ]);
}

/** Retention: drops keys older than the window (run by the scheduler). */
export async function purgeIdempotencyKeys(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query("DELETE FROM idempotency_keys WHERE created_at < $1::timestamptz RETURNING 1", [
    before.toISOString(),
  ]);
  return rows.length;
}
