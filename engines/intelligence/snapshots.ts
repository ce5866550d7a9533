import { AppError, newId, type Clock, type Logger } from "../../core/index.ts";
import type { Queryable, Store } from "../../store/index.ts";
import { SqlWhere, type ListQuery } from "../list-query.ts";
import { selectPage, type Page } from "../paging.ts";
import { rfc } from "../resource.ts";
import { computeSnapshot } from "./compute.ts";
import { SnapshotBodySchema, type IntelligenceSnapshot } from "./schema.ts";

/**
 * Intelligence snapshots: an organization's key figures (computeSnapshot), stored
 * as history. The scheduler refreshes every organization's (see jobs.ts); a caller
 * refreshes its own with `POST /v1/intelligence/snapshots`. Snapshots never change.
 */

/** An `intelligence_snapshots` row as the store returns it (migration 0012). */
interface SnapshotRow {
  id: string;
  org_id: string;
  computed_at: Date;
  /** jsonb: `SnapshotBodySchema`, parsed on the way back */
  snapshot: unknown;
  created_at: Date;
  /** bigserial: write order */
  seq: number;
}

/** Renders a stored row; the jsonb is read back through its schema (a boundary). */
function renderSnapshot(row: SnapshotRow): IntelligenceSnapshot {
  const body = SnapshotBodySchema.parse(row.snapshot);
  const created = rfc(row.created_at);
  return {
    id: row.id,
    object: "intelligence_snapshot",
    computed_at: rfc(row.computed_at),
    created_at: created,
    updated_at: created,
    metadata: {},
    ...body,
  };
}

/**
 * Computes the organization's figures at the clock's now and stores them as its
 * newest snapshot, in one transaction whose reads all see one instant.
 *
 * @example
 *   const snapshot = await refreshSnapshot(store, clock, orgId);
 *   snapshot.finance.overdue_count; // 3
 */
export async function refreshSnapshot(
  store: Store,
  clock: Clock,
  orgId: string,
): Promise<IntelligenceSnapshot> {
  const now = clock.now();
  return store.transaction(async (tx) => {
    // Seven reads, one instant: no payment lands between the outstanding and the paid figures.
    await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    const body = await computeSnapshot(tx, orgId, now);
    const [row] = await tx.query<SnapshotRow>(
      `INSERT INTO intelligence_snapshots (id, org_id, computed_at, snapshot, created_at)
       VALUES ($1, $2, $3::timestamptz, $4::jsonb, $3::timestamptz) RETURNING *`,
      [newId("snap"), orgId, now.toISOString(), body],
    );
    return renderSnapshot(row!);
  });
}

/**
 * The organization's newest snapshot, or null before its first: one index probe.
 * The function runtime injects it as `ctx.snapshot`.
 */
export async function latestSnapshot(store: Store, orgId: string): Promise<IntelligenceSnapshot | null> {
  const [row] = await store.query<SnapshotRow>(
    `SELECT * FROM intelligence_snapshots WHERE org_id = $1 ORDER BY computed_at DESC, seq DESC LIMIT 1`,
    [orgId],
  );
  return row ? renderSnapshot(row) : null;
}

export async function getSnapshot(db: Queryable, orgId: string, id: string): Promise<IntelligenceSnapshot> {
  const [row] = await db.query<SnapshotRow>(
    "SELECT * FROM intelligence_snapshots WHERE org_id = $1 AND id = $2",
    [orgId, id],
  );
  if (!row) throw new AppError("not_found", `No such intelligence_snapshot: '${id}'`);
  return renderSnapshot(row);
}

/**
 * A page of the organization's history, newest first unless `sort=computed_at`
 * (ascending); `createdAfter`/`createdBefore` bound `computed_at`. Other list
 * fields of the query (`q`, `updated_*`, filters) do not apply to snapshots.
 */
export async function listSnapshots(
  db: Queryable,
  orgId: string,
  query: ListQuery,
): Promise<Page<IntelligenceSnapshot>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  if (query.createdAfter)
    where.add(`computed_at > ${where.bind(query.createdAfter.toISOString())}::timestamptz`);
  if (query.createdBefore)
    where.add(`computed_at < ${where.bind(query.createdBefore.toISOString())}::timestamptz`);
  const direction = query.sort.descending ? "DESC" : "ASC";
  const orderBy = `computed_at ${direction}, seq ${direction}`;
  return selectPage(db, { from: "intelligence_snapshots", where, orderBy }, query, renderSnapshot);
}

/**
 * Refreshes every organization's snapshot at `now`, one transaction each, walking
 * organizations by id so any number of them is read a page at a time. One
 * organization failing is logged and the others still refresh.
 */
export async function refreshAllSnapshots(
  store: Store,
  now: Date,
  log: Logger,
): Promise<{ refreshed: number; failed: number }> {
  const clock: Clock = { now: () => now, nowMs: () => now.getTime() };
  let refreshed = 0;
  let failed = 0;
  let after = "";
  for (;;) {
    const orgs = await store.query<{ id: string }>(
      "SELECT id FROM organizations WHERE id > $1 ORDER BY id LIMIT 100",
      [after],
    );
    for (const { id } of orgs) {
      try {
        await refreshSnapshot(store, clock, id);
        refreshed++;
      } catch (error) {
        // An organization deleted since the page was read has nothing left to refresh.
        if (!(await organizationExists(store, id))) continue;
        failed++;
        log.error("intelligence snapshot failed", { org: id, error });
      }
    }
    if (orgs.length < 100) return { refreshed, failed };
    after = orgs[orgs.length - 1]!.id;
  }
}

async function organizationExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.query("SELECT 1 FROM organizations WHERE id = $1", [id])).length > 0;
}

/**
 * Retention: drops snapshots computed before `before`, except each organization's
 * newest, so `latest` never disappears while the scheduler is paused.
 */
export async function purgeSnapshots(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query(
    `DELETE FROM intelligence_snapshots AS old WHERE old.computed_at < $1::timestamptz
       AND EXISTS (
         SELECT 1 FROM intelligence_snapshots AS newer
         WHERE newer.org_id = old.org_id AND (newer.computed_at, newer.seq) > (old.computed_at, old.seq)
       )
     RETURNING 1`,
    [before.toISOString()],
  );
  return rows.length;
}
