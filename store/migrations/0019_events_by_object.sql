-- One record's history (the dashboard's record page: `listEvents` with `objectId`) reads the events
-- about that object through this index, not every event of the organization.
CREATE INDEX events_org_object ON events (org_id, (data->'object'->>'id'), created_at DESC);
