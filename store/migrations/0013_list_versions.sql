-- Versions of each organization's resource tables, so a cached list page can be
-- checked with one tiny read instead of re-running its query (engines/list-cache.ts).
--
-- A table's version is the sum of its counters. Every statement that writes rows of an
-- organization adds 1 to one counter in the writing transaction, so a version read in
-- a later snapshot is larger exactly when some write committed in between. Counters are
-- sharded by backend (pg_backend_pid() % 64): concurrent writers on different
-- connections never wait on each other's counter row.
CREATE TABLE list_versions (
  org_id text NOT NULL,
  tbl text NOT NULL,
  shard smallint NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (org_id, tbl, shard)
);

CREATE FUNCTION list_versions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO list_versions AS v (org_id, tbl, shard, n)
    SELECT DISTINCT org_id, TG_TABLE_NAME, pg_backend_pid() % 64, 1 FROM old_rows ORDER BY 1
    ON CONFLICT (org_id, tbl, shard) DO UPDATE SET n = v.n + 1;
  ELSE
    -- An update never moves a row to another organization (org_id is never written).
    INSERT INTO list_versions AS v (org_id, tbl, shard, n)
    SELECT DISTINCT org_id, TG_TABLE_NAME, pg_backend_pid() % 64, 1 FROM new_rows ORDER BY 1
    ON CONFLICT (org_id, tbl, shard) DO UPDATE SET n = v.n + 1;
  END IF;
  RETURN NULL;
END
$$;

-- TRUNCATE empties every organization's table at once: every version of it moves.
CREATE FUNCTION list_versions_bump_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE list_versions SET n = n + 1 WHERE tbl = TG_TABLE_NAME;
  RETURN NULL;
END
$$;

-- Every resource table gets the four triggers; a new resource's migration adds them too
-- (test/store/list-versions.test.ts checks that each resource table has them).
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['invoices', 'products', 'payments', 'contacts', 'deals', 'communications', 'candidates', 'skills'] LOOP
    EXECUTE format('CREATE TRIGGER list_versions_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump()', t);
    EXECUTE format('CREATE TRIGGER list_versions_update AFTER UPDATE ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump()', t);
    EXECUTE format('CREATE TRIGGER list_versions_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump()', t);
    EXECUTE format('CREATE TRIGGER list_versions_truncate AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump_all()', t);
  END LOOP;
END
$$;
