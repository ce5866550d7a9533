import type { Queryable } from "./port.ts";

/**
 * A work queue kept in a table, as graphile-worker keeps jobs: a row is live (waiting or
 * being worked) while `live` holds, falls due at `next_attempt_at`, and is leased to a
 * worker until `locked_until`. The webhook deliveries and the function runs are two.
 * Every string here is SQL of ours (constants), never input.
 */
export interface QueueTable {
  table: "webhook_deliveries" | "function_runs";
  /** SQL condition of a live row. */
  live: string;
  /** What a row becomes as it is leased, besides `locked_until`/`locked_by` (`$1` is now). */
  onLease?: string;
  /** The rules a due row passes before it is leased; without them every due row is. */
  rules?: ClaimRules;
}

/**
 * A queue's rules, judged inside the claim statement (`claimDue`), over `due` (the rows
 * claimed: every column, locked). `$1` is the claim's now; `params` are bound from `$5`.
 */
export interface ClaimRules {
  /** More CTEs the verdict reads: `name AS (…)`, comma-separated. */
  with?: string;
  /**
   * A SELECT of `id`, `verdict` (text) and `at` (timestamptz or NULL) for every row of
   * `due`: a row judged `lease` is leased, any other is left to its `outcomes` entry.
   */
  verdict: string;
  /**
   * The assignments each other verdict makes to its rows (`v.at` is the row's `at`), in the
   * same statement; `null` changes nothing and hands the rows to the caller (`judged`).
   */
  outcomes: Readonly<Record<string, string | null>>;
  params?: readonly unknown[];
}

/** A claim: up to `limit` rows due at `now`, leased to `workerId` until `now + leaseMs`. */
export interface QueueClaim {
  now: Date;
  limit: number;
  leaseMs: number;
  workerId: string;
}

export interface Claim<T> {
  /** The rows leased to the worker, as the lease left them. */
  leased: T[];
  /** Rows whose verdict left them to the caller (an outcome of `null`), as they were claimed. */
  judged: Array<{ verdict: string; row: T }>;
}

/**
 * Claims due rows in one statement, as graphile-worker's `get_job` does: the due rows are
 * chosen and locked with `FOR UPDATE SKIP LOCKED` (oldest due first, `LIMIT`), judged by
 * the queue's rules, and each verdict's change and the leases are written by the same
 * statement, so a claim is one round trip and needs no transaction of its own. Rows other
 * workers hold are skipped, never waited for; a row whose lease has passed is due again,
 * which is all the recovery from a worker that died.
 *
 * @example
 * const { leased } = await claimDue<RunRow>(store, RUN_QUEUE, { now, limit: 8, leaseMs, workerId });
 */
export async function claimDue<T extends object>(
  db: Queryable,
  queue: QueueTable,
  claim: QueueClaim,
): Promise<Claim<T>> {
  const rows = await db.query<T & { claim_verdict: string }>(claimStatement(queue), [
    claim.now.toISOString(),
    claim.limit,
    new Date(claim.now.getTime() + claim.leaseMs).toISOString(),
    claim.workerId,
    ...(queue.rules?.params ?? []),
  ]);
  const result: Claim<T> = { leased: [], judged: [] };
  for (const { claim_verdict: verdict, ...row } of rows) {
    if (verdict === "lease") result.leased.push(row as unknown as T);
    else result.judged.push({ verdict, row: row as unknown as T });
  }
  return result;
}

const SQL_NAME = /^[a-z][a-z_]*$/;
const statements = new WeakMap<QueueTable, string>();

/**
 * The claim statement of a queue (built once): `due` locks, `verdict` judges, one UPDATE
 * per verdict with assignments of its own, `leased` leases the rest; it returns the leased
 * rows and those handed to the caller, each with its `claim_verdict`.
 */
function claimStatement(queue: QueueTable): string {
  const known = statements.get(queue);
  if (known) return known;
  const rules = queue.rules;
  const outcomes = Object.entries(rules?.outcomes ?? {});
  for (const [name] of outcomes) {
    if (!SQL_NAME.test(name) || name === "lease") throw new Error(`Bad verdict name: ${name}`);
  }
  const changes = outcomes.flatMap(([name, set]) =>
    set === null
      ? []
      : [
          `${name} AS (UPDATE ${queue.table} q SET ${set} FROM verdict v WHERE q.id = v.id AND v.verdict = '${name}'),`,
        ],
  );
  const handed = outcomes.filter(([, set]) => set === null).map(([name]) => `'${name}'`);
  const statement = `WITH due AS MATERIALIZED (
       SELECT * FROM ${queue.table}
       WHERE ${queue.live} AND next_attempt_at <= $1::timestamptz
         AND (locked_until IS NULL OR locked_until < $1::timestamptz)
       ORDER BY next_attempt_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     ),
     ${rules?.with ? `${rules.with},` : ""}
     verdict AS MATERIALIZED (
       ${rules?.verdict ?? "SELECT id, 'lease'::text AS verdict, NULL::timestamptz AS at FROM due"}
     ),
     ${changes.join("\n     ")}
     leased AS (
       UPDATE ${queue.table} q SET locked_until = $3::timestamptz, locked_by = $4${queue.onLease ? `, ${queue.onLease}` : ""}
       FROM verdict v WHERE q.id = v.id AND v.verdict = 'lease'
       RETURNING q.*
     )
     SELECT leased.*, 'lease' AS claim_verdict FROM leased
     ${handed.length === 0 ? "" : `UNION ALL SELECT due.*, v.verdict FROM due JOIN verdict v ON v.id = due.id WHERE v.verdict IN (${handed.join(", ")})`}`;
  statements.set(queue, statement);
  return statement;
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
