-- Cross-node cache invalidation (store/invalidations.ts). Every node caches API keys by their
-- hash and the deployment serving each function; a change to either NOTIFYs every node.
-- A trigger, not the application, sends it: NOTIFY is delivered at commit and only then, so no
-- node hears of a rolled-back change and none misses a committed one, whoever wrote it (the
-- API, `tessera keys revoke` on the database directly, an operator's SQL).

-- Revocation, or a change to what the key may do. last_used_at (written once a minute per key)
-- is left out: it changes nothing a cache holds.
CREATE FUNCTION notify_api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tessera_api_key_changed', json_build_object('id', OLD.id)::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_changed AFTER UPDATE OF revoked_at, scopes, kind, engines, access OR DELETE
  ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_api_key_changed();

-- Every write to a function row changes what serves it: a first deploy (a cached "no such
-- function" goes stale), a deploy, a rollback, a secrets change (secrets_revision), its
-- triggers, a delete. Notifications with the same payload in one transaction are sent once.
CREATE FUNCTION notify_function_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tessera_function_changed', json_build_object(
    'org_id', COALESCE(NEW.org_id, OLD.org_id),
    'id', COALESCE(NEW.id, OLD.id))::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER functions_changed AFTER INSERT OR UPDATE OR DELETE
  ON functions FOR EACH ROW EXECUTE FUNCTION notify_function_changed();
