import { rfc3339 } from "../core/index.ts";
import type {
  CredentialRef,
  SyncAction,
  SyncActionStatus,
  SyncConversation,
  SyncInteraction,
  SyncInteractionStatus,
} from "./schema.ts";
import type { Source } from "./tools/types.ts";

/**
 * SYNC's tables' rows as the store returns them (migration 0015), typed once here, and the one
 * mapping from each row to what the API shows, so nothing past this file casts a column. Their
 * JSON columns are written only by `service.ts`, from values it built (the credential, the
 * planner, the sources) or checked (a tool's arguments, by its schema), and are typed as such.
 */

/** Who answered a turn, as `sync_interactions.planner` stores it. */
export interface PlannerRecord {
  type: "builtin" | "llm";
  model?: string;
  fallback?: string;
}

export interface ConversationRow {
  id: string;
  org_id: string;
  title: string;
  turns: number;
  created_by: CredentialRef;
  created_at: Date;
  updated_at: Date;
}

export interface InteractionRow {
  id: string;
  org_id: string;
  conversation_id: string;
  turn: number;
  message: string;
  reply: string;
  status: SyncInteractionStatus;
  /** The reply answered the message (false: a question back, the help text, "I did not understand"). */
  understood: boolean;
  planner: PlannerRecord;
  sources: Source[];
  /** jsonb: what the planner keeps for a follow-up (its own shape), or null */
  memory: unknown;
  asked_by: CredentialRef;
  created_at: Date;
  updated_at: Date;
}

export interface ActionRow {
  id: string;
  org_id: string;
  interaction_id: string;
  position: number;
  tool: string;
  /** jsonb: the arguments as the tool's schema checked them (`prepareWriteTool`) */
  arguments: Record<string, unknown>;
  preview: string;
  status: SyncActionStatus;
  result: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  expires_at: Date;
  decided_by: CredentialRef | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const rfcOrNull = (value: Date | null) => (value === null ? null : rfc3339(value));

export function renderConversation(row: ConversationRow): SyncConversation {
  return {
    id: row.id,
    object: "sync.conversation",
    title: row.title,
    turns: row.turns,
    created_by: row.created_by,
    created_at: rfc3339(row.created_at),
    updated_at: rfc3339(row.updated_at),
    metadata: {},
  };
}

/** An action as a caller sees it at `now`: a proposal past its expiry reads `expired`. */
export function renderAction(row: ActionRow, now: Date): SyncAction {
  const proposed = row.status === "proposed";
  const expired = proposed && row.expires_at.getTime() <= now.getTime();
  return {
    id: row.id,
    object: "sync.action",
    interaction_id: row.interaction_id,
    tool: row.tool,
    arguments: row.arguments,
    preview: row.preview,
    status: expired ? "expired" : row.status,
    result: row.result ?? null,
    error: row.error ?? null,
    expires_at: rfc3339(row.expires_at),
    decided_by: row.decided_by ?? null,
    decided_at: rfcOrNull(row.decided_at),
    created_at: rfc3339(row.created_at),
    updated_at: rfc3339(row.updated_at),
    metadata: {},
  };
}

export function renderInteraction(row: InteractionRow, actions: SyncAction[]): SyncInteraction {
  const { planner } = row;
  // Once every proposal is decided (or expired), nothing waits for approval any more.
  const waiting = actions.some((action) => action.status === "proposed");
  return {
    id: row.id,
    object: "sync.interaction",
    conversation_id: row.conversation_id,
    status: row.status === "requires_approval" && !waiting ? "completed" : row.status,
    understood: row.understood,
    message: row.message,
    reply: row.reply,
    actions,
    sources: row.sources,
    planner: planner.type,
    model: planner.model ?? null,
    fallback: planner.fallback ?? null,
    asked_by: row.asked_by,
    created_at: rfc3339(row.created_at),
    updated_at: rfc3339(row.updated_at),
    metadata: {},
  };
}
