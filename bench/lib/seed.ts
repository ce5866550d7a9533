import { isoDate } from "../../core/index.ts";
import { createOrganization, findOrganization } from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";

/** Rows per INSERT … SELECT statement: big enough to be set-based, small enough to report progress. */
const CHUNK = 100_000;
/** Invoices are spread over the year before the seed. */
const SPAN_DAYS = 365;
/**
 * Unpaid invoices at most `lagDays` past due are still stored `open`, older ones
 * `overdue`. 1 (the default) is the state just after midnight UTC, before the
 * scheduler's first tick marks yesterday's: the worst moment of the day for
 * `?status=overdue`. 0 is the rest of the day (the scheduler runs every 5 minutes).
 */
export const DEFAULT_LAG_DAYS = 1;

export interface SeededOrg {
  orgId: string;
  /** Whether this run inserted the invoices (false: an earlier run's organization was reused). */
  seeded: boolean;
  seedMs: number;
}

/**
 * One organization with `count` invoices, named after the count so a rerun reuses
 * it instead of inserting a million rows again. An organization left incomplete by
 * an interrupted seed is deleted and seeded anew (the seed is one transaction, so
 * this only happens if the row count was changed by hand).
 */
export async function seedInvoiceOrg(
  store: Store,
  count: number,
  log: (line: string) => void,
  lagDays = DEFAULT_LAG_DAYS,
): Promise<SeededOrg> {
  const name = `bench-list-overdue-${count}`;
  const started = performance.now();
  const existing = await findOrganization(store, name);
  if (existing) {
    const [row] = await store.query<{ n: number }>("SELECT count(*) AS n FROM invoices WHERE org_id = $1", [
      existing.id,
    ]);
    if (row?.n === count) {
      await applySchedulerLag(store, existing.id, new Date(), lagDays);
      return { orgId: existing.id, seeded: false, seedMs: performance.now() - started };
    }
    log(`  ${name} holds ${row?.n ?? 0} invoices, not ${count}: seeding it again`);
    await store.query("DELETE FROM organizations WHERE id = $1", [existing.id]);
  }

  const now = new Date();
  const orgId = await store.transaction(async (tx) => {
    const org = await createOrganization(tx, { name, plan: "enterprise" });
    for (let from = 1; from <= count; from += CHUNK) {
      const to = Math.min(count, from + CHUNK - 1);
      await tx.query(INSERT_INVOICES, [org.id, from, to, count, now.toISOString(), isoDate(now), lagDays]);
      if (count > CHUNK) log(`  seeded ${to.toLocaleString("en-US")} / ${count.toLocaleString("en-US")}`);
    }
    // Numbers continue after the seeded ones when the API creates invoices.
    await tx.query("UPDATE organizations SET invoice_seq = $2 WHERE id = $1", [org.id, count]);
    return org.id;
  });
  // Fresh statistics and visibility map, as autovacuum would leave a long-lived table.
  await store.exec("VACUUM (ANALYZE) invoices");
  return { orgId, seeded: true, seedMs: performance.now() - started };
}

/**
 * Brings a reused organization to the same state as a fresh seed today: what the
 * scheduler would have marked since is overdue, and the last `lagDays` of unpaid
 * invoices are open. A fixture, so no events.
 */
async function applySchedulerLag(store: Store, orgId: string, now: Date, lagDays: number): Promise<void> {
  const lagged = isoDate(new Date(now.getTime() - lagDays * 86_400_000));
  await store.query(
    `UPDATE invoices
     SET status = CASE WHEN due_date < $2::date THEN 'overdue' ELSE 'open' END, updated_at = $4::timestamptz
     WHERE org_id = $1 AND (
       (status = 'open' AND due_date < $2::date) OR
       (status = 'overdue' AND due_date >= $2::date AND due_date < $3::date))`,
    [orgId, lagged, isoDate(now), now.toISOString()],
  );
}

/**
 * $1 org, $2..$3 the serial range, $4 total, $5 now, $6 today, $7 lag days. Invoice g is created
 * at now - SPAN_DAYS + g/total of the span (so numbers follow creation), due on net
 * 14-60 day terms. Status follows age: 3 % draft, 3 % void, not yet due → open;
 * past due → unpaid with 40 % chance in the first 30 days and 8 % after (overdue,
 * or still open within the scheduler's lag), otherwise paid. About 9 % of invoices
 * end up overdue (0.1 % of them still stored open) and 9 % open.
 */
const INSERT_INVOICES = `
WITH base AS (
  SELECT g, random() AS r_status, random() AS r_paid, random() AS r_qty, random() AS r_price,
         $5::timestamptz - make_interval(secs => ${SPAN_DAYS} * 86400.0 * ($4::int - g) / $4::int) AS created,
         (ARRAY[14, 30, 30, 45, 60])[1 + g % 5] AS terms
  FROM generate_series($2::int, $3::int) AS g
), dated AS (
  SELECT *, (created AT TIME ZONE 'UTC')::date + terms AS due,
         $6::date - ((created AT TIME ZONE 'UTC')::date + terms) AS days_past
  FROM base
), decided AS (
  SELECT *,
    CASE
      WHEN r_status < 0.03 THEN 'draft'
      WHEN r_status < 0.06 THEN 'void'
      WHEN days_past <= 0 THEN 'open'
      WHEN r_paid < (CASE WHEN days_past <= 30 THEN 0.4 ELSE 0.08 END)
        THEN CASE WHEN days_past <= $7::int THEN 'open' ELSE 'overdue' END
      ELSE 'paid'
    END AS status,
    1 + floor(r_qty * 10)::int AS qty,
    round((50 + r_price * 950)::numeric, 2) AS price,
    round((r_price * 200)::numeric, 2) AS fee
  FROM dated
), priced AS (
  SELECT *, qty * price AS first_amount, CASE WHEN g % 3 = 0 THEN fee ELSE 0 END AS second_amount
  FROM decided
)
INSERT INTO invoices (id, org_id, number, client, amount, currency, status, due_date, description,
                      line_items, issued_at, paid_at, voided_at, metadata, created_at, updated_at)
SELECT
  'inv_' || md5($1 || ':' || g),
  $1,
  'INV-' || lpad(g::text, greatest(6, length(g::text)), '0'),
  (ARRAY['Acme Corp', 'Globex', 'Initech', 'Umbrella Ltd', 'Stark Industries', 'Wayne Enterprises',
         'Hooli', 'Pied Piper', 'Soylent', 'Tyrell Corp', 'Cyberdyne', 'Wonka Industries'])[1 + g % 12]
    || ' ' || (g % 97),
  first_amount + second_amount,
  (ARRAY['EUR', 'EUR', 'EUR', 'USD', 'USD', 'GBP'])[1 + g % 6],
  status,
  due,
  CASE WHEN g % 4 = 0 THEN 'Services for ' || to_char(created, 'FMMonth YYYY') END,
  jsonb_build_array(jsonb_build_object('product_id', NULL, 'description', 'Consulting hours',
      'quantity', qty::text, 'unit_price', price::text, 'amount', first_amount::text))
    || CASE WHEN g % 3 = 0 THEN jsonb_build_array(jsonb_build_object('product_id', NULL,
      'description', 'Travel', 'quantity', '1', 'unit_price', fee::text, 'amount', fee::text))
       ELSE '[]'::jsonb END,
  CASE WHEN status = 'draft' THEN NULL ELSE created END,
  CASE WHEN status = 'paid'
    THEN LEAST($5::timestamptz, created + make_interval(days => floor(r_paid * (terms + 20))::int)) END,
  CASE WHEN status = 'void' THEN created + interval '3 days' END,
  CASE WHEN g % 3 = 0 THEN jsonb_build_object('po', 'PO-' || g) ELSE '{}'::jsonb END,
  created,
  LEAST($5::timestamptz, created + CASE WHEN status IN ('paid', 'void') THEN interval '10 days' ELSE interval '0' END)
FROM priced`;
