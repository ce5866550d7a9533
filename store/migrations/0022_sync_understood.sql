-- Whether SYNC's reply answered the message: false when it asked back, gave its help text, or said what
-- it did not understand rather than answer another question (issue 34). Earlier interactions were answers.
ALTER TABLE sync_interactions ADD COLUMN understood boolean NOT NULL DEFAULT true;
