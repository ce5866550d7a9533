-- One row per (job, tick): the node that inserts it runs the tick; the others skip.
CREATE TABLE scheduled_runs (
  job text NOT NULL,
  tick timestamptz NOT NULL,
  node text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  error text,
  PRIMARY KEY (job, tick)
);
