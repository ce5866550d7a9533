-- The files a deployment was made from, kept for the function to read as Deno functions do
-- (`Deno.readFile(new URL("./data/x.json", import.meta.url))`; Supabase's "static files"): every
-- uploaded file but the vendored node_modules/, as bytes, immutable as the deployment is. A table
-- of its own, not a column of function_deployments: listing and rendering deployments never pays
-- for them, and the invoker reads them only when it boots an isolate for that version.
CREATE TABLE function_files (
  org_id text NOT NULL,
  deployment_id text NOT NULL REFERENCES function_deployments (id) ON DELETE CASCADE,
  -- Relative to the function's root, as uploaded: `data/x.json`.
  path text NOT NULL,
  content bytea NOT NULL,
  -- Read by deployment (the primary key's prefix), always with the organization too.
  PRIMARY KEY (deployment_id, path)
);
