import type { Queryable } from "./port.ts";

/**
 * A work queue kept in a table, as graphile-worker keeps jobs: a row is live (waiting or
 * being worked) while `live` holds, falls due at `next_attempt_at`, and is leased to a
 * worker until `locked_until`. The webhook deliveries and the function runs are two.
 */
export interface QueueTable {
  table: "webhook_deliveries" | "function_runs";
  /** SQL condition of a live row (a constant of ours, never input). */
  live: string;
}

/** Live rows counted at most: a backlog past this reads as this (the count stays cheap). */
export const QUEUE_COUNT_CAP = 100_000;

/**
 * The next instant a worker could claim something: the earliest due time of a row not
 * leased, or the end of a lease (a leased row's due time is already past, and counting
 * it kept workers querying back to back while one slow item was in flight).
 */
export async function nextClaimable(db: Queryable, queue: QueueTable, now: Date): Promise<Date | null> {
  const [row] = await db.query<{ at: Date | null }>(
    `SELECT least(
       (SELECT min(next_attempt_at) FROM ${queue.table} WHERE ${queue.live}
          AND (locked_until IS NULL OR locked_until < $1::timestamptz)),
       (SELECT min(locked_until) FROM ${queue.table} WHERE ${queue.live}
          AND locked_until >= $1::timestamptz)) AS at`,
    [now.toISOString()],
  );
  return row?.at ?? null;
}

export interface QueueStats {
  /** Live rows (waiting or being worked), up to QUEUE_COUNT_CAP. */
  queued: number;
  /** How long the oldest row a worker could claim now has been due; 0 when none is. */
  lagSeconds: number;
}

/** What an operator watches of a queue: its depth, and how far the workers are behind. */
export async function queueStats(db: Queryable, queue: QueueTable, now: Date): Promise<QueueStats> {
  const [row] = await db.query<{ queued: number; oldest: Date | null }>(
    `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM ${queue.table} WHERE ${queue.live}
               LIMIT ${QUEUE_COUNT_CAP}) AS capped) AS queued,
            (SELECT min(next_attempt_at) FROM ${queue.table} WHERE ${queue.live}
               AND next_attempt_at <= $1::timestamptz
               AND (locked_until IS NULL OR locked_until < $1::timestamptz)) AS oldest`,
    [now.toISOString()],
  );
  const oldest = row?.oldest ?? null;
  return {
    queued: row?.queued ?? 0,
    lagSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
