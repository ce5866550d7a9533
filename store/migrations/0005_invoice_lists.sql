-- Invoice lists at scale: `?status=…` pages from an index walk and totals from
-- counters instead of scanning every matching row (bench/README.md, list-overdue).

-- A page of one status in the default order (newest first) walks this and stops.
CREATE INDEX invoices_org_status_created ON invoices (org_id, status, created_at DESC, id DESC);

-- Open invoices past their due date (those the scheduler has not marked overdue yet):
-- found by due date, sorted by creation, all from the index (no heap visit).
CREATE INDEX invoices_org_open_due ON invoices (org_id, due_date, created_at, id) WHERE status = 'open';

-- Exact row counts per (organization, stored status, due date), kept by the triggers
-- below in the writing transaction: a total is a sum over a few hundred rows, and a
-- status that depends on today's date can still be counted exactly.
CREATE TABLE invoice_counts (
  org_id text NOT NULL,
  status text NOT NULL,
  due_date date NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (org_id, status, due_date)
);

-- Statement-level, over the transition tables: a bulk write touches each counter once.
-- Counters are changed in key order so concurrent writers lock them in the same order.
CREATE FUNCTION invoice_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO invoice_counts AS c (org_id, status, due_date, n)
    SELECT org_id, status, due_date, count(*) FROM new_rows
    GROUP BY org_id, status, due_date ORDER BY org_id, status, due_date
    ON CONFLICT (org_id, status, due_date) DO UPDATE SET n = c.n + EXCLUDED.n;
    RETURN NULL;
  END IF;

  IF TG_OP = 'UPDATE' THEN
    INSERT INTO invoice_counts AS c (org_id, status, due_date, n)
    SELECT org_id, status, due_date, sum(delta) FROM (
      SELECT org_id, status, due_date, 1 AS delta FROM new_rows
      UNION ALL
      SELECT org_id, status, due_date, -1 AS delta FROM old_rows
    ) AS changes
    GROUP BY org_id, status, due_date HAVING sum(delta) <> 0 ORDER BY org_id, status, due_date
    ON CONFLICT (org_id, status, due_date) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO invoice_counts AS c (org_id, status, due_date, n)
    SELECT org_id, status, due_date, -count(*) FROM old_rows
    GROUP BY org_id, status, due_date ORDER BY org_id, status, due_date
    ON CONFLICT (org_id, status, due_date) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  -- Emptied counters go, so deleted organizations and passed dates leave nothing behind.
  DELETE FROM invoice_counts c USING (SELECT DISTINCT org_id, status, due_date FROM old_rows) AS o
  WHERE c.org_id = o.org_id AND c.status = o.status AND c.due_date = o.due_date AND c.n = 0;
  RETURN NULL;
END
$$;

CREATE TRIGGER invoice_counts_insert AFTER INSERT ON invoices
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION invoice_counts_apply();
CREATE TRIGGER invoice_counts_update AFTER UPDATE ON invoices
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION invoice_counts_apply();
CREATE TRIGGER invoice_counts_delete AFTER DELETE ON invoices
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION invoice_counts_apply();

CREATE FUNCTION invoice_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM invoice_counts;
  RETURN NULL;
END
$$;
CREATE TRIGGER invoice_counts_truncate AFTER TRUNCATE ON invoices
  FOR EACH STATEMENT EXECUTE FUNCTION invoice_counts_truncate();

-- The triggers exist (and hold off writers) before the backfill reads, so no write is missed.
INSERT INTO invoice_counts (org_id, status, due_date, n)
SELECT org_id, status, due_date, count(*) FROM invoices GROUP BY org_id, status, due_date;
