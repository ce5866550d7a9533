import { isoDate } from "../../core/index.ts";
import type { Queryable } from "../../store/index.ts";
import { OPEN_DEAL_STAGES, type DealStage } from "../growth/deals.ts";
import { CANDIDATE_STATUSES } from "../talent/candidates.ts";
import type { SnapshotBody } from "./schema.ts";

const DAY_MS = 86_400_000;

type Money = Record<string, number>;
type Window = [since: string, until: string];

/**
 * `{ [key]: make() }` for each of `keys`. The one assertion of this file: `Object.fromEntries` is
 * typed by string keys, and every key of `K` is given one here.
 */
function everyKey<K extends string, V>(keys: readonly K[], make: () => V): Record<K, V> {
  return Object.fromEntries(keys.map((key) => [key, make()])) as Record<K, V>;
}

/** `(now − days, now]` as bound parameters. */
function window(now: Date, days: number): Window {
  return [new Date(now.getTime() - days * DAY_MS).toISOString(), now.toISOString()];
}

/**
 * The figures of one organization at `now`, aggregated in SQL: seven queries, each
 * reading one organization's rows through an index (store/migrations 0002–0012), so
 * the cost follows the open, recent or grouped rows, not the whole history. Run it
 * in one REPEATABLE READ transaction (as `refreshSnapshot` does) for figures of one
 * consistent instant.
 *
 * @example
 *   const body = await computeSnapshot(tx, orgId, new Date("2025-03-15T10:00:00Z"));
 *   body.finance.overdue; // { EUR: 1200.5 }
 */
export async function computeSnapshot(tx: Queryable, orgId: string, now: Date): Promise<SnapshotBody> {
  return {
    finance: await financeFigures(tx, orgId, now),
    growth: await growthFigures(tx, orgId, now),
    talent: await talentFigures(tx, orgId, now),
  };
}

async function financeFigures(tx: Queryable, orgId: string, now: Date): Promise<SnapshotBody["finance"]> {
  const receivables = await receivablesByCurrency(tx, orgId, isoDate(now));
  const paid = await receivedByCurrency(tx, orgId, window(now, 30));
  const invoiced = await invoicedByCurrency(tx, orgId, window(now, 90));
  const outstanding: Money = {};
  const overdue: Money = {};
  let outstandingCount = 0;
  let overdueCount = 0;
  for (const row of receivables) {
    outstanding[row.currency.trim()] = Number(row.outstanding);
    if (row.overdue_count > 0) overdue[row.currency.trim()] = Number(row.overdue);
    outstandingCount += row.outstanding_count;
    overdueCount += row.overdue_count;
  }
  return {
    outstanding,
    outstanding_count: outstandingCount,
    overdue,
    overdue_count: overdueCount,
    paid_30_days: moneyOf(paid),
    invoiced_90_days: moneyOf(invoiced),
    dso_days: daysSalesOutstanding(receivables, invoiced),
  };
}

/**
 * DSO per currency: what is still owed ÷ what was invoiced in the last 90 days × 90.
 * With nothing invoiced in a currency the ratio has no meaning: null, not infinity.
 */
function daysSalesOutstanding(
  receivables: ReadonlyArray<{ currency: string; outstanding: string }>,
  invoiced: ReadonlyArray<{ currency: string; amount: string }>,
): Record<string, number | null> {
  const owed = new Map(receivables.map((row) => [row.currency.trim(), Number(row.outstanding)]));
  const sales = new Map(invoiced.map((row) => [row.currency.trim(), Number(row.amount)]));
  const dso: Record<string, number | null> = {};
  for (const currency of [...new Set([...owed.keys(), ...sales.keys()])].sort()) {
    const sold = sales.get(currency) ?? 0;
    dso[currency] = sold > 0 ? Math.round(((owed.get(currency) ?? 0) / sold) * 90 * 10) / 10 : null;
  }
  return dso;
}

function moneyOf(rows: ReadonlyArray<{ currency: string; amount: string }>): Money {
  return Object.fromEntries(rows.map((row) => [row.currency.trim(), Number(row.amount)]));
}

/**
 * Open and overdue invoices per currency. Overdue is decided as the invoice list
 * decides it (engines/finance/invoices.ts `effectiveStatus`): stored `overdue`, or
 * `open` with a due date before today (UTC), marked by the scheduler or not yet.
 */
function receivablesByCurrency(tx: Queryable, orgId: string, today: string) {
  return tx.query<{
    currency: string;
    outstanding: string;
    outstanding_count: number;
    overdue: string;
    overdue_count: number;
  }>(
    `SELECT currency,
       sum(amount - amount_paid) AS outstanding,
       count(*) AS outstanding_count,
       coalesce(sum(amount - amount_paid) FILTER (WHERE status = 'overdue' OR due_date < $2::date), 0) AS overdue,
       count(*) FILTER (WHERE status = 'overdue' OR due_date < $2::date) AS overdue_count
     FROM invoices WHERE org_id = $1 AND status IN ('open', 'overdue')
     GROUP BY currency ORDER BY currency`,
    [orgId, today],
  );
}

/** One week's money received (the dashboard's "cash collected" chart). */
export interface WeekReceived {
  /** The week's first instant (`now` − 7 × n days); the week ends 7 days later. */
  since: string;
  received: Money;
}

/**
 * Money received per week over the last `weeks` weeks, oldest first, by the same rule as the
 * snapshot's `paid_30_days` (payments by `received_at`, plus what an invoice marked paid by hand
 * still owed, at its `paid_at`). One indexed read per week.
 */
export async function receivedByWeek(
  tx: Queryable,
  orgId: string,
  now: Date,
  weeks: number,
): Promise<WeekReceived[]> {
  const result: WeekReceived[] = [];
  for (let week = weeks; week >= 1; week -= 1) {
    const until = new Date(now.getTime() - (week - 1) * 7 * DAY_MS);
    const since = new Date(until.getTime() - 7 * DAY_MS).toISOString();
    result.push({
      since,
      received: moneyOf(await receivedByCurrency(tx, orgId, [since, until.toISOString()])),
    });
  }
  return result;
}

/** Payments received in the window, plus the unpaid rest of invoices marked paid by hand in it. */
function receivedByCurrency(tx: Queryable, orgId: string, [since, until]: Window) {
  return tx.query<{ currency: string; amount: string }>(
    `SELECT currency, sum(amount) AS amount FROM (
       SELECT currency, amount FROM payments
       WHERE org_id = $1 AND received_at > $2::timestamptz AND received_at <= $3::timestamptz
       UNION ALL
       SELECT currency, amount - amount_paid FROM invoices
       WHERE org_id = $1 AND status = 'paid' AND paid_at > $2::timestamptz AND paid_at <= $3::timestamptz
         AND amount > amount_paid
     ) AS received GROUP BY currency ORDER BY currency`,
    [orgId, since, until],
  );
}

/** Sales in the window: invoices issued (made open) in it, unless voided since. */
function invoicedByCurrency(tx: Queryable, orgId: string, [since, until]: Window) {
  return tx.query<{ currency: string; amount: string }>(
    `SELECT currency, sum(amount) AS amount FROM invoices
     WHERE org_id = $1 AND issued_at > $2::timestamptz AND issued_at <= $3::timestamptz AND status <> 'void'
     GROUP BY currency ORDER BY currency`,
    [orgId, since, until],
  );
}

async function growthFigures(tx: Queryable, orgId: string, now: Date): Promise<SnapshotBody["growth"]> {
  const [contacts] = await contactCounts(tx, orgId, window(now, 30));
  const byStage = await dealsByStage(tx, orgId);
  const openDeals = everyKey(OPEN_DEAL_STAGES, () => 0);
  const pipeline = everyKey(OPEN_DEAL_STAGES, (): Money => ({}));
  let won = 0;
  let lost = 0;
  for (const row of byStage) {
    if (row.stage === "won") won += row.n;
    else if (row.stage === "lost") lost += row.n;
    else {
      openDeals[row.stage] += row.n;
      pipeline[row.stage][row.currency.trim()] = Number(row.value);
    }
  }
  return {
    contacts: contacts?.total ?? 0,
    new_contacts_30_days: contacts?.recent ?? 0,
    open_deals_by_stage: openDeals,
    pipeline_value_by_stage: pipeline,
    deals_won: won,
    deals_lost: lost,
    win_rate: won + lost > 0 ? Math.round((won / (won + lost)) * 10_000) / 10_000 : null,
  };
}

function contactCounts(tx: Queryable, orgId: string, [since, until]: Window) {
  return tx.query<{ total: number; recent: number }>(
    `SELECT count(*) AS total,
       count(*) FILTER (WHERE created_at > $2::timestamptz AND created_at <= $3::timestamptz) AS recent
     FROM contacts WHERE org_id = $1`,
    [orgId, since, until],
  );
}

function dealsByStage(tx: Queryable, orgId: string) {
  return tx.query<{ stage: DealStage; currency: string; n: number; value: string }>(
    `SELECT stage, currency, count(*) AS n, sum(value) AS value FROM deals WHERE org_id = $1
     GROUP BY stage, currency ORDER BY stage, currency`,
    [orgId],
  );
}

async function talentFigures(tx: Queryable, orgId: string, now: Date): Promise<SnapshotBody["talent"]> {
  const byStatus = everyKey(CANDIDATE_STATUSES, () => 0);
  const rows = await tx.query<{ status: (typeof CANDIDATE_STATUSES)[number]; n: number }>(
    "SELECT status, count(*) AS n FROM candidates WHERE org_id = $1 GROUP BY status",
    [orgId],
  );
  for (const row of rows) byStatus[row.status] = row.n;
  const [since, until] = window(now, 30);
  const [verified] = await tx.query<{ n: number }>(
    `SELECT count(*) AS n FROM skills
     WHERE org_id = $1 AND verified_at > $2::timestamptz AND verified_at <= $3::timestamptz`,
    [orgId, since, until],
  );
  return { candidates_by_status: byStatus, skills_verified_30_days: verified?.n ?? 0 };
}
