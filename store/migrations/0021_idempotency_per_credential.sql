-- Idempotency keys belong to the credential that sent them, not to the whole organization
-- (Stripe keys them per API key): a stored answer, which may hold a secret shown once, replays
-- only to the credential whose authorization produced it. `credential` is a fingerprint of the
-- caller's identity and scopes (api/middleware/idempotency.ts); rows stored before this column
-- existed have '' and match no caller, so they only wait for their 24 h purge.
ALTER TABLE idempotency_keys ADD COLUMN credential text NOT NULL DEFAULT '';
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (org_id, credential, key);
