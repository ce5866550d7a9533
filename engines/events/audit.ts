import type { Queryable } from "../../store/index.ts";
import { likePattern, SqlWhere } from "../list-query.ts";
import { selectPage, type Page } from "../paging.ts";
import type { Actor, ActorType } from "./actor.ts";
import { renderEvent, type Event, type EventListQuery } from "./outbox.ts";

/**
 * The audit log: the management actions of an organization, each an event of the outbox with its
 * actor (docs/audit-log.md). These are its kinds, in one place; each is declared in the catalog
 * where it is recorded (api-keys.ts, members.ts, sessions.ts, oauth/, runtime/function-events.ts,
 * webhooks/event-types.ts), and every one is written with an actor in the actor's organization.
 */
export const AUDIT_EVENT_TYPES = [
  "api_key.created",
  "api_key.revoked",
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "session.revoked",
  "oauth_app.created",
  "oauth_app.updated",
  "oauth_app.secret_rotated",
  "oauth_app.deleted",
  "oauth_app.authorized",
  "oauth_app.deauthorized",
  "function.deployed",
  "function.rolled_back",
  "function.deleted",
  "function.secrets_updated",
  "webhook_endpoint.created",
  "webhook_endpoint.updated",
  "webhook_endpoint.deleted",
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export interface AuditListQuery extends Pick<
  EventListQuery,
  "page" | "perPage" | "types" | "typePrefix" | "createdAfter" | "createdBefore"
> {
  actorTypes?: readonly ActorType[];
  actorId?: string;
}

/**
 * The organization's audit events, newest first: the audit kinds, written with an actor (an event
 * recorded in another organization than its actor's has none, and is not this one's action). Reads
 * the partial index of migration 0023.
 */
export async function listAuditEvents(
  db: Queryable,
  orgId: string,
  query: AuditListQuery,
): Promise<Page<Event>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  where.add("actor IS NOT NULL");
  const types = query.types?.length ? query.types : AUDIT_EVENT_TYPES;
  where.add(`type = ANY(${where.bind(types.filter(isAuditEventType))}::text[])`);
  if (query.typePrefix) where.add(`type LIKE ${where.bind(likePattern(query.typePrefix).slice(1))}`);
  if (query.actorTypes?.length) where.add(`actor->>'type' = ANY(${where.bind(query.actorTypes)}::text[])`);
  if (query.actorId) where.add(`actor->>'id' = ${where.bind(query.actorId)}`);
  if (query.createdAfter)
    where.add(`created_at > ${where.bind(query.createdAfter.toISOString())}::timestamptz`);
  if (query.createdBefore)
    where.add(`created_at < ${where.bind(query.createdBefore.toISOString())}::timestamptz`);
  const orderBy = "created_at DESC, seq DESC, id DESC";
  return selectPage(db, { from: "events", where, orderBy }, query, renderEvent);
}

export const isAuditEventType = (type: string): type is AuditEventType =>
  (AUDIT_EVENT_TYPES as readonly string[]).includes(type);

/** An actor's key in `describeActors`' map: `user:usr_…`. */
export const actorKey = (actor: Actor): string => `${actor.type}:${actor.id}`;

/** How the audit page names an actor: a name, and what tells two of that name apart (a user's email). */
export interface ActorName {
  name: string;
  detail?: string;
}

/**
 * Readable names for actors, as the audit page shows them, by `actorKey`: a user's name and email, an
 * API key's name (or its redacted secret), an OAuth app's name (this organization's, or one installed
 * in it). One query per kind; an actor since deleted is absent (the page shows its id).
 */
export async function describeActors(
  db: Queryable,
  orgId: string,
  actors: readonly Actor[],
): Promise<Map<string, ActorName>> {
  const idsOf = (type: ActorType) => [...new Set(actors.filter((a) => a.type === type).map((a) => a.id))];
  const [users, keys, apps] = await Promise.all([
    namesOf(
      db,
      "user",
      idsOf("user"),
      "SELECT id, name, email AS detail FROM users WHERE id = ANY($1::text[])",
    ),
    namesOf(
      db,
      "api_key",
      idsOf("api_key"),
      `SELECT id, COALESCE(NULLIF(name, ''), display_prefix || '…' || last4) AS name FROM api_keys
       WHERE id = ANY($1::text[]) AND org_id = $2`,
      orgId,
    ),
    namesOf(
      db,
      "oauth_app",
      idsOf("oauth_app"),
      `SELECT a.id, a.name FROM oauth_apps a WHERE a.id = ANY($1::text[])
       AND (a.org_id = $2 OR EXISTS (SELECT 1 FROM oauth_installations i WHERE i.app_id = a.id AND i.org_id = $2))`,
      orgId,
    ),
  ]);
  return new Map([...users, ...keys, ...apps]);
}

async function namesOf(
  db: Queryable,
  type: ActorType,
  ids: string[],
  sql: string,
  orgId?: string,
): Promise<Array<[string, ActorName]>> {
  if (ids.length === 0) return [];
  const rows = await db.query<{ id: string; name: string; detail?: string }>(
    sql,
    orgId === undefined ? [ids] : [ids, orgId],
  );
  return rows.map((row) => [
    actorKey({ type, id: row.id }),
    row.detail ? { name: row.name, detail: row.detail } : { name: row.name },
  ]);
}
