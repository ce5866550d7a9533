import { z } from "zod";
import type { EventType } from "../engines/events/catalog.ts";
import { idOf } from "../engines/fields.ts";

export const SYNC_ACTION_STATUSES = ["proposed", "completed", "rejected", "failed", "expired"] as const;
export type SyncActionStatus = (typeof SYNC_ACTION_STATUSES)[number];
export const SYNC_INTERACTION_STATUSES = ["completed", "requires_approval", "failed"] as const;
export type SyncInteractionStatus = (typeof SYNC_INTERACTION_STATUSES)[number];

/** Who asked, approved or rejected: the credential, never its secret. */
export const CredentialRefSchema = z
  .object({ type: z.enum(["api_key", "user"]), id: z.string() })
  .meta({ id: "SyncCredentialRef", example: { type: "api_key", id: "key_3kTqZ9" } });
export type CredentialRef = z.infer<typeof CredentialRefSchema>;

export const SourceSchema = z
  .object({ object: z.string(), id: z.string() })
  .meta({ id: "SyncSource", example: { object: "invoice", id: "inv_3kTqZ9" } });

export const SyncActionSchema = z
  .object({
    id: z.string().meta({ example: "act_3kTqZ9" }),
    object: z.literal("sync.action"),
    interaction_id: z.string(),
    tool: z.string().meta({ example: "mark_invoice_paid" }),
    arguments: z.record(z.string(), z.unknown()),
    preview: z.string().meta({ example: "Mark INV-000030 (Kestrel Robotics, 300.00 EUR) as paid" }),
    status: z.enum(SYNC_ACTION_STATUSES),
    result: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: "Once completed: the created or changed object, as the REST API renders it" }),
    error: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: "Once failed: the problem (code, title, detail)" }),
    expires_at: z.string(),
    decided_by: CredentialRefSchema.nullable(),
    decided_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    metadata: z.record(z.string(), z.string()),
  })
  .meta({ id: "SyncAction" });
export type SyncAction = z.infer<typeof SyncActionSchema>;

export const SyncInteractionSchema = z
  .object({
    id: z.string().meta({ example: "sint_3kTqZ9" }),
    object: z.literal("sync.interaction"),
    conversation_id: z.string(),
    status: z.enum(SYNC_INTERACTION_STATUSES),
    understood: z.boolean().meta({
      description:
        "false when the reply does not answer the message: SYNC asked which record was meant, gave its help text, or said what it did not understand instead of answering another question",
    }),
    message: z.string(),
    reply: z.string().meta({ description: "Markdown" }),
    actions: z.array(SyncActionSchema),
    sources: z.array(SourceSchema),
    planner: z.enum(["builtin", "llm"]),
    model: z.string().nullable().meta({ description: "The model that answered (planner llm)" }),
    fallback: z
      .string()
      .nullable()
      .meta({ description: "Why the model did not answer and the built-in planner did, if so" }),
    asked_by: CredentialRefSchema,
    created_at: z.string(),
    updated_at: z.string(),
    metadata: z.record(z.string(), z.string()),
  })
  .meta({ id: "SyncInteraction" });
export type SyncInteraction = z.infer<typeof SyncInteractionSchema>;

export const SyncConversationSchema = z
  .object({
    id: z.string().meta({ example: "conv_3kTqZ9" }),
    object: z.literal("sync.conversation"),
    title: z.string(),
    turns: z.number().int(),
    created_by: CredentialRefSchema,
    created_at: z.string(),
    updated_at: z.string(),
    metadata: z.record(z.string(), z.string()),
  })
  .meta({ id: "SyncConversation" });
export type SyncConversation = z.infer<typeof SyncConversationSchema>;

export const SyncConversationWithTurnsSchema = SyncConversationSchema.extend({
  interactions: z.array(SyncInteractionSchema),
}).meta({ id: "SyncConversationWithInteractions" });

/** `POST /v1/sync/chat`. The message's length limit is checked apart: too long is a 413, not a 422. */
export const SyncChatSchema = z
  .object({
    message: z.string().trim().min(1, "must not be empty"),
    conversation_id: idOf("conv").optional(),
  })
  .strict();
export type SyncChat = z.infer<typeof SyncChatSchema>;

export const SYNC_EVENT_TYPES: EventType[] = [
  {
    type: "sync.action_proposed",
    description: "SYNC proposed a change; it waits for approval.",
    object: SyncActionSchema,
  },
  {
    type: "sync.action_completed",
    description:
      "An agent action was completed: approved, and its change committed (result holds the changed object).",
    object: SyncActionSchema,
  },
  {
    type: "sync.action_rejected",
    description: "A proposed SYNC action was rejected.",
    object: SyncActionSchema,
  },
  {
    type: "sync.action_failed",
    description: "An approved SYNC action could not be made (error holds the problem).",
    object: SyncActionSchema,
  },
];
