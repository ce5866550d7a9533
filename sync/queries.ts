import type { Queryable } from "../store/index.ts";
import { SqlWhere, addTimeBounds, type ListQuery } from "../engines/list-query.ts";
import { selectPage, type Page } from "../engines/paging.ts";
import {
  renderConversation,
  type ActionRow,
  type ConversationRow,
  type InteractionRow,
  type PlannerRecord,
} from "./rows.ts";
import type { CredentialRef, SyncConversation, SyncInteractionStatus } from "./schema.ts";
import type { Source } from "./tools/types.ts";

/** SYNC's SQL: one named function per query, every one scoped by organization; its rows are in rows.ts. */

export async function selectConversation(
  db: Queryable,
  orgId: string,
  id: string,
  forUpdate = false,
): Promise<ConversationRow | undefined> {
  const lock = forUpdate ? " FOR UPDATE" : "";
  const [row] = await db.query<ConversationRow>(
    `SELECT * FROM sync_conversations WHERE org_id = $1 AND id = $2${lock}`,
    [orgId, id],
  );
  return row;
}

export async function insertConversation(
  db: Queryable,
  values: { id: string; orgId: string; title: string; createdBy: CredentialRef; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO sync_conversations (id, org_id, title, turns, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, 0, $4::jsonb, $5::timestamptz, $5::timestamptz)`,
    [values.id, values.orgId, values.title, values.createdBy, values.now.toISOString()],
  );
}

/** Takes the conversation's next turn number (the row is locked by the caller's transaction). */
export async function advanceConversation(
  db: Queryable,
  orgId: string,
  id: string,
  now: Date,
): Promise<number> {
  const [row] = await db.query<{ turns: number }>(
    `UPDATE sync_conversations SET turns = turns + 1, updated_at = $3::timestamptz WHERE org_id = $1 AND id = $2 RETURNING turns`,
    [orgId, id, now.toISOString()],
  );
  return Number(row!.turns);
}

export async function insertInteraction(
  db: Queryable,
  values: {
    id: string;
    orgId: string;
    conversationId: string;
    turn: number;
    message: string;
    reply: string;
    status: SyncInteractionStatus;
    understood: boolean;
    planner: PlannerRecord;
    sources: Source[];
    memory: unknown;
    askedBy: CredentialRef;
    now: Date;
  },
): Promise<InteractionRow> {
  const [row] = await db.query<InteractionRow>(
    `INSERT INTO sync_interactions
       (id, org_id, conversation_id, turn, message, reply, status, planner, sources, memory, asked_by, created_at, updated_at, understood)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11::jsonb, $12::timestamptz, $12::timestamptz, $13)
     RETURNING *`,
    [
      values.id,
      values.orgId,
      values.conversationId,
      values.turn,
      values.message,
      values.reply,
      values.status,
      values.planner,
      values.sources,
      values.memory ?? null,
      values.askedBy,
      values.now.toISOString(),
      values.understood,
    ],
  );
  return row!;
}

export async function insertAction(
  db: Queryable,
  values: {
    id: string;
    orgId: string;
    interactionId: string;
    position: number;
    tool: string;
    arguments: unknown;
    preview: string;
    expiresAt: Date;
    now: Date;
  },
): Promise<ActionRow> {
  const [row] = await db.query<ActionRow>(
    `INSERT INTO sync_actions
       (id, org_id, interaction_id, position, tool, arguments, preview, status, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, 'proposed', $8::timestamptz, $9::timestamptz, $9::timestamptz)
     RETURNING *`,
    [
      values.id,
      values.orgId,
      values.interactionId,
      values.position,
      values.tool,
      values.arguments,
      values.preview,
      values.expiresAt.toISOString(),
      values.now.toISOString(),
    ],
  );
  return row!;
}

export async function selectAction(db: Queryable, orgId: string, id: string): Promise<ActionRow | undefined> {
  const [row] = await db.query<ActionRow>(`SELECT * FROM sync_actions WHERE org_id = $1 AND id = $2`, [
    orgId,
    id,
  ]);
  return row;
}

/**
 * Claims a proposal for one decision: exactly one caller gets the row back, however many ask at
 * once (the UPDATE's WHERE is re-checked on the locked row), and only while it has not expired.
 */
export async function claimAction(
  db: Queryable,
  orgId: string,
  id: string,
  decidedBy: CredentialRef,
  now: Date,
): Promise<ActionRow | undefined> {
  const [row] = await db.query<ActionRow>(
    `UPDATE sync_actions SET decided_by = $3::jsonb, decided_at = $4::timestamptz, updated_at = $4::timestamptz
     WHERE org_id = $1 AND id = $2 AND status = 'proposed' AND decided_at IS NULL AND expires_at > $4::timestamptz
     RETURNING *`,
    [orgId, id, decidedBy, now.toISOString()],
  );
  return row;
}

/** Marks an unclaimed proposal past its expiry `expired`, so that it reads so for good. */
export async function expireAction(db: Queryable, orgId: string, id: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE sync_actions SET status = 'expired', updated_at = $3::timestamptz
     WHERE org_id = $1 AND id = $2 AND status = 'proposed' AND decided_at IS NULL AND expires_at <= $3::timestamptz`,
    [orgId, id, now.toISOString()],
  );
}

/** The decision's outcome on a claimed action. */
export async function finishAction(
  db: Queryable,
  orgId: string,
  id: string,
  outcome: { status: "completed" | "rejected" | "failed"; result?: unknown; error?: unknown },
  now: Date,
): Promise<ActionRow> {
  const [row] = await db.query<ActionRow>(
    `UPDATE sync_actions SET status = $3, result = $4::jsonb, error = $5::jsonb, updated_at = $6::timestamptz
     WHERE org_id = $1 AND id = $2 RETURNING *`,
    [orgId, id, outcome.status, outcome.result ?? null, outcome.error ?? null, now.toISOString()],
  );
  return row!;
}

/** Once none of its actions waits for a decision, an interaction that required approval is completed. */
export async function settleInteraction(db: Queryable, orgId: string, id: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE sync_interactions SET status = 'completed', updated_at = $3::timestamptz
     WHERE org_id = $1 AND id = $2 AND status = 'requires_approval'
       AND NOT EXISTS (SELECT 1 FROM sync_actions WHERE interaction_id = $2 AND status = 'proposed')`,
    [orgId, id, now.toISOString()],
  );
}

export async function selectActionsOf(
  db: Queryable,
  orgId: string,
  interactionIds: string[],
): Promise<ActionRow[]> {
  if (interactionIds.length === 0) return [];
  return db.query<ActionRow>(
    `SELECT * FROM sync_actions WHERE org_id = $1 AND interaction_id = ANY($2::text[]) ORDER BY interaction_id, position`,
    [orgId, interactionIds],
  );
}

export async function selectInteraction(
  db: Queryable,
  orgId: string,
  id: string,
): Promise<InteractionRow | undefined> {
  const [row] = await db.query<InteractionRow>(
    `SELECT * FROM sync_interactions WHERE org_id = $1 AND id = $2`,
    [orgId, id],
  );
  return row;
}

/** A conversation's turns in order, the newest `limit` of them. */
export async function selectTurns(
  db: Queryable,
  orgId: string,
  conversationId: string,
  limit: number,
): Promise<InteractionRow[]> {
  const rows = await db.query<InteractionRow>(
    `SELECT * FROM sync_interactions WHERE org_id = $1 AND conversation_id = $2 ORDER BY turn DESC LIMIT $3`,
    [orgId, conversationId, limit],
  );
  return rows.reverse();
}

export interface InteractionListQuery extends ListQuery {
  conversationId?: string;
  statuses?: SyncInteractionStatus[];
}

/**
 * A page of interactions, newest first, by their stored status (settled to `completed` when the
 * last action is decided; one whose proposals merely expired still reads `requires_approval` here).
 */
export async function selectInteractionPage(
  db: Queryable,
  orgId: string,
  query: InteractionListQuery,
): Promise<Page<InteractionRow>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  if (query.conversationId) where.add(`conversation_id = ${where.bind(query.conversationId)}`);
  if (query.statuses?.length) where.add(`status = ANY(${where.bind(query.statuses)}::text[])`);
  addTimeBounds(where, query, { created: "created_at", updated: "updated_at" });
  const order = query.sort.descending ? "DESC" : "ASC";
  return selectPage(
    db,
    { from: "sync_interactions", where, orderBy: `created_at ${order}, id ${order}` },
    query,
    (row: InteractionRow) => row,
  );
}

export async function selectConversationPage(
  db: Queryable,
  orgId: string,
  query: ListQuery,
): Promise<Page<SyncConversation>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  addTimeBounds(where, query, { created: "created_at", updated: "updated_at" });
  const order = query.sort.descending ? "DESC" : "ASC";
  const column = query.sort.field === "created_at" ? "created_at" : "updated_at";
  return selectPage(
    db,
    { from: "sync_conversations", where, orderBy: `${column} ${order}, id ${order}` },
    query,
    renderConversation,
  );
}
