import { z } from "zod";
import { AppError, newId, rfc3339 } from "../../core/index.ts";
import type { Queryable } from "../../store/index.ts";
import { likePattern, SqlWhere } from "../list-query.ts";
import { selectPage, type Page } from "../paging.ts";
import { ActorSchema, type Actor } from "./actor.ts";

/**
 * The transactional outbox: events are rows written by the same transaction as
 * the change they record, so a rolled-back change leaves no event and every
 * committed change has one. Webhook delivery reads from here.
 */

/** Standard Webhooks payload shape, plus `object` like every API object. */
export const EventSchema = z
  .object({
    id: z.string().meta({ example: "evt_3kTqZ9" }),
    object: z.literal("event"),
    type: z.string().meta({ example: "invoice.paid" }),
    timestamp: z.string().meta({ description: "When the change committed (RFC 3339)" }),
    actor: ActorSchema.optional().meta({
      description:
        "Who made the change, on management actions (keys, members, sessions, OAuth apps, functions, webhook endpoints): see docs/audit-log.md. Absent on data events.",
    }),
    data: z.object({
      object: z.record(z.string(), z.unknown()),
      previous_attributes: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: "Event" });
export type Event = z.infer<typeof EventSchema>;

/** An `events` row as the store returns it (migration 0004). */
export interface EventRow {
  id: string;
  org_id: string;
  type: string;
  /** jsonb, written only by `eventsInsert` */
  data: Event["data"];
  /** jsonb (migration 0023): who made a management change; null on data events. */
  actor: Actor | null;
  created_at: Date;
  /** bigserial: write order */
  seq: number;
}

export interface EventInput {
  type: string;
  object: unknown;
  /** On updates: the changed fields' values before the change. */
  previousAttributes?: Record<string, unknown>;
  /**
   * Who did it, on a management action (`actorOf(principal)`, actor.ts). Only in the actor's own
   * organization: an event written to another (the app's, when a member installs it) carries none.
   */
  actor?: Actor;
}

/** Writes events in the caller's transaction, in order, in one statement; returns their ids in order. */
export async function recordEvents(
  tx: Queryable,
  orgId: string,
  now: Date,
  events: readonly EventInput[],
): Promise<string[]> {
  if (events.length === 0) return [];
  const insert = eventsInsert(orgId, now, events, 0);
  await tx.query(insert.sql, insert.params);
  return insert.ids;
}

/**
 * The INSERT of `events` as SQL and parameters numbered after `offset` existing ones,
 * so a caller can make it part of a larger statement (a create and its event in one).
 */
export function eventsInsert(
  orgId: string,
  now: Date,
  events: readonly EventInput[],
  offset: number,
): { sql: string; params: unknown[]; ids: string[] } {
  const params: unknown[] = [orgId, now.toISOString()];
  const org = `$${offset + 1}`;
  const at = `$${offset + 2}::timestamptz`;
  const ids: string[] = [];
  const rows = events.map((event) => {
    const data = event.previousAttributes
      ? { object: event.object, previous_attributes: event.previousAttributes }
      : { object: event.object };
    ids.push(newId("evt"));
    params.push(ids[ids.length - 1], event.type, data, event.actor ?? null);
    const n = offset + params.length;
    return `($${n - 3}, ${org}, $${n - 2}, $${n - 1}::jsonb, $${n}::jsonb, ${at})`;
  });
  const sql = `INSERT INTO events (id, org_id, type, data, actor, created_at) VALUES ${rows.join(", ")}`;
  return { sql, params, ids };
}

/**
 * The fields of `after` that differ from `before`, with their old values
 * (Stripe's `previous_attributes`). `updated_at` always changes and is left out.
 */
export function previousAttributes(before: object, after: object): Record<string, unknown> {
  const old = before as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after as Record<string, unknown>)) {
    if (key === "updated_at") continue;
    if (JSON.stringify(old[key]) !== JSON.stringify(value)) changed[key] = old[key] ?? null;
  }
  return changed;
}

export interface EventListQuery {
  page: number;
  perPage: number;
  types?: string[];
  /** Prefix match, e.g. `invoice.` for every invoice event. */
  typePrefix?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Only the events about this object (`data.object.id`): one record's history, as the dashboard shows it. */
  objectId?: string;
}

/** An event row as the API renders it: also the exact webhook payload. */
export function renderEvent(row: EventRow): Event {
  return {
    id: row.id,
    object: "event",
    type: row.type,
    timestamp: rfc3339(row.created_at),
    ...(row.actor ? { actor: row.actor } : {}),
    data: row.data,
  };
}

/** Newest first; `seq` (write order) breaks ties between events of one instant. */
export async function listEvents(db: Queryable, orgId: string, query: EventListQuery): Promise<Page<Event>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  if (query.types?.length) where.add(`type = ANY(${where.bind(query.types)}::text[])`);
  if (query.typePrefix) where.add(`type LIKE ${where.bind(likePattern(query.typePrefix).slice(1))}`);
  if (query.createdAfter)
    where.add(`created_at > ${where.bind(query.createdAfter.toISOString())}::timestamptz`);
  if (query.createdBefore)
    where.add(`created_at < ${where.bind(query.createdBefore.toISOString())}::timestamptz`);
  if (query.objectId) where.add(`data->'object'->>'id' = ${where.bind(query.objectId)}`);
  const orderBy = "created_at DESC, seq DESC, id DESC";
  return selectPage(db, { from: "events", where, orderBy }, query, renderEvent);
}

/** Where a stream of an organization's events stands: the write order it has read up to. */
export interface EventCursor {
  /** Events with a greater `seq` are new. */
  seq: number;
}

/** The organization's newest event's place in write order (0 when it has none): a stream's start. */
export async function latestEventCursor(db: Queryable, orgId: string): Promise<EventCursor> {
  const [row] = await db.query<{ seq: string | number | null }>(
    "SELECT max(seq) AS seq FROM events WHERE org_id = $1",
    [orgId],
  );
  return { seq: Number(row?.seq ?? 0) };
}

/** The place of one of the organization's events (to resume after it), or undefined when gone. */
export async function eventCursorOf(
  db: Queryable,
  orgId: string,
  id: string,
): Promise<EventCursor | undefined> {
  const [row] = await db.query<{ seq: string | number }>(
    "SELECT seq FROM events WHERE org_id = $1 AND id = $2",
    [orgId, id],
  );
  return row ? { seq: Number(row.seq) } : undefined;
}

/**
 * The organization's events written after `cursor`, oldest first, with their `seq`.
 * `seq` is taken at insert and transactions commit in any order, so an event can become
 * visible after one with a greater `seq` was read: a reader asks again for what it read in
 * the last `lookbackMs` too, and skips the ids it has sent (see api/routes/event-stream.ts).
 */
export async function eventsAfter(
  db: Queryable,
  orgId: string,
  query: {
    /** Where the reader started: nothing at or before it is read again. */
    start: EventCursor;
    cursor: EventCursor;
    since: Date;
    types?: string[];
    typePrefix?: string;
    limit: number;
  },
): Promise<Array<{ event: Event; seq: number }>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  where.add(`seq > ${where.bind(query.start.seq)}`);
  where.add(
    `(seq > ${where.bind(query.cursor.seq)} OR created_at > ${where.bind(query.since.toISOString())}::timestamptz)`,
  );
  if (query.types?.length) where.add(`type = ANY(${where.bind(query.types)}::text[])`);
  if (query.typePrefix) where.add(`type LIKE ${where.bind(likePattern(query.typePrefix).slice(1))}`);
  const rows = await db.query<EventRow>(
    `SELECT * FROM events ${where.toSql()} ORDER BY seq LIMIT ${Math.max(1, Math.floor(query.limit))}`,
    where.params,
  );
  return rows.map((row) => ({ event: renderEvent(row), seq: Number(row.seq) }));
}

/** Events by id, across organizations (the queue workers' batch read; a purged event is absent). */
export async function eventsById(db: Queryable, ids: string[]): Promise<Map<string, EventRow>> {
  const rows = await db.query<EventRow>("SELECT * FROM events WHERE id = ANY($1::text[])", [ids]);
  return new Map(rows.map((row) => [row.id, row]));
}

export async function getEvent(db: Queryable, orgId: string, id: string): Promise<Event> {
  const rows = await db.query<EventRow>("SELECT * FROM events WHERE org_id = $1 AND id = $2", [orgId, id]);
  if (!rows[0]) throw new AppError("not_found", `No such event: '${id}'`);
  return renderEvent(rows[0]);
}

/** Retention: drops events older than `before` (run by the scheduler). */
export async function purgeEvents(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query("DELETE FROM events WHERE created_at < $1::timestamptz RETURNING 1", [
    before.toISOString(),
  ]);
  return rows.length;
}
