import type { Source, ToolOutput, Tool } from "./tools/types.ts";

/**
 * The seam between SYNC's service and its two planners (the built-in one, `builtin/`, and
 * the model's, `llm/`). A planner reads the message and the conversation so far, calls read
 * tools through `turn.call`, proposes writes through `turn.propose`, and returns the reply.
 * It never runs a write: the service turns each proposal into a `sync.action` that waits for
 * approval. Scope checks happen in `call` and `propose`, not in the planner.
 */
export interface Planner {
  readonly kind: "builtin" | "llm";
  plan(turn: PlannerTurn): Promise<PlanOutcome>;
}

/** One earlier turn of the conversation, oldest first. */
export interface HistoryTurn {
  message: string;
  reply: string;
  sources: Source[];
  actions: Array<{ id: string; tool: string; arguments: unknown; status: string; preview: string }>;
  /** What the planner kept for follow-ups ("the first one", "they"): its own JSON, or null. */
  memory: unknown;
}

export interface PlannerTurn {
  message: string;
  history: HistoryTurn[];
  /** The tools this caller may use (its scopes decide), read and write. */
  tools: readonly Tool[];
  /** Tools the caller's scopes rule out, so a planner can say why ("this key cannot read finance"). */
  refusedTools: readonly Tool[];
  /**
   * Runs a read tool: arguments validated, scope checked, its sources recorded on the interaction.
   * Throws `AppError` (`validation_failed`, `insufficient_scope`, `not_found`) with a message a
   * model can act on.
   */
  call<R = unknown>(name: string, args: unknown): Promise<ToolOutput<R>>;
  /**
   * Proposes a write: validated, scope checked, `prepare`d (ids resolved, preview written) and
   * recorded as a proposed action. Throws as `call` does, or `conflict` when the change cannot be
   * made (an invoice already paid).
   */
  propose(name: string, args: unknown): Promise<ProposedAction>;
  /** Streams part of the reply as it is written (Server-Sent Events); the outcome's reply is the whole. */
  emit(delta: string): void;
  now: Date;
  /** `YYYY-MM-DD` of `now` in UTC. */
  today: string;
}

export interface ProposedAction {
  id: string;
  tool: string;
  arguments: unknown;
  preview: string;
}

export interface PlanOutcome {
  /** The whole reply, Markdown allowed. */
  reply: string;
  /** `failed` when the planner could not do what was asked (it says why in the reply). */
  failed?: boolean;
  /**
   * `false` when the reply does not answer the message: a clarifying question, the help text, or
   * "I can't answer that" naming what was not understood. Absent means understood.
   */
  understood?: boolean;
  /** Kept with the interaction and handed back in `history` for follow-ups. */
  memory?: unknown;
  /** The model that answered (LLM planner). */
  model?: string;
  /** Set when the model failed and the built-in planner answered instead: why. */
  fallback?: string;
}
