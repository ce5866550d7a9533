import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../../core/index.ts";
import { createOrganization, createResourceService, type ResourceDefinition } from "../../engines/index.ts";
import type { Row, Store } from "../../store/index.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * A create writes its row and its events in one statement from a predicted row
 * (engines/resource.ts, insertWithEvents). These prove the events always carry the
 * row as the database stored it, also when the prediction misses: a column left to
 * its default, and a default that changes which domain events there are.
 */
interface Note {
  id: string;
  object: "note";
  text: string;
  mood: string;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

const table = `notes_${Math.random().toString(36).slice(2, 8)}`;

function notes(
  leaveMoodToDefault: boolean,
  withDomainEvents = true,
): ResourceDefinition<Note, { text: string }, { text?: string }> {
  return {
    name: table,
    object: "note",
    prefix: "note",
    engine: "growth",
    schemas: { object: {} as never, create: {} as never, update: {} as never },
    columns: { text: "text", mood: "text" },
    sorts: { created_at: "created_at" },
    search: ["text"],
    filters: {},
    create: (input) => ({
      text: input.text,
      mood: leaveMoodToDefault ? undefined : "calm",
      metadata: { zebra: "1", apple: "2" },
    }),
    update: () => ({}),
    render: (row: Row) => ({
      id: row.id as string,
      object: "note",
      text: row.text as string,
      mood: (row.mood as string | undefined) ?? "unknown",
      metadata: row.metadata as Record<string, string>,
      created_at: (row.created_at as Date).toISOString(),
      updated_at: (row.updated_at as Date).toISOString(),
    }),
    ...(withDomainEvents && {
      events: {
        types: [{ type: "note.cheerful", description: "A cheerful note." }],
        derive: (_before: Note | undefined, after: Note) =>
          after.mood === "cheerful" ? ["note.cheerful"] : [],
      },
    }),
  };
}

describe.each(storeKinds())("resource create on $name", (kind) => {
  let store: Store;
  let orgId: string;
  const clock = new FakeClock("2025-03-15T10:00:00Z");

  beforeAll(async () => {
    store = await kind.open();
    await store.exec(`CREATE TABLE ${table} (
      id text PRIMARY KEY, org_id text NOT NULL, text text NOT NULL, mood text NOT NULL DEFAULT 'cheerful',
      metadata jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`);
    orgId = (await createOrganization(store, { name: `notes-${Math.random()}` })).id;
  });
  afterAll(async () => {
    await store.exec(`DROP TABLE IF EXISTS ${table}`);
    await store.dispose();
  });

  const eventsOf = (id: string) =>
    store.query<{ type: string; data: { object: Note } }>(
      "SELECT type, data FROM events WHERE org_id = $1 AND data->'object'->>'id' = $2 ORDER BY seq",
      [orgId, id],
    );

  it("writes the row and its created event in one go, the event carrying the stored object", async () => {
    const created = await createResourceService(notes(false), store, clock).create(orgId, { text: "hello" });
    expect(created).toMatchObject({ text: "hello", mood: "calm", metadata: { apple: "2", zebra: "1" } });
    const events = await eventsOf(created.id);
    expect(events.map((e) => e.type)).toEqual(["note.created"]);
    expect(events[0]!.data.object).toEqual(created);
  });

  it("corrects the created event in place when a column took its database default", async () => {
    const created = await createResourceService(notes(true, false), store, clock).create(orgId, {
      text: "plain",
    });
    expect(created.mood).toBe("cheerful");
    const events = await eventsOf(created.id);
    expect(events.map((e) => e.type)).toEqual(["note.created"]);
    expect(events[0]!.data.object).toEqual(created);
  });

  it("redoes the create when the database default changes which events there are", async () => {
    // The default makes the note cheerful: other event kinds than predicted, so the create is redone.
    const created = await createResourceService(notes(true), store, clock).create(orgId, {
      text: "defaulted",
    });
    expect(created.mood).toBe("cheerful");
    const events = await eventsOf(created.id);
    expect(events.map((e) => e.type)).toEqual(["note.created", "note.cheerful"]);
    for (const event of events) expect(event.data.object).toEqual(created);
    const [rows] = await store.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE text = 'defaulted'`,
    );
    expect(rows!.n).toBe(1);
  });
});
