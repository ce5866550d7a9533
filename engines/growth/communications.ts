import { z } from "zod";
import { idOf, MetadataSchema, text, TimestampSchema } from "../fields.ts";
import {
  assertReference,
  baseFields,
  mergeMetadata,
  rfc,
  type ResourceDefinition,
  type ResourceRow,
  type RuleContext,
} from "../resource.ts";

export const COMMUNICATION_CHANNELS = ["email", "call", "sms", "meeting"] as const;
export const COMMUNICATION_DIRECTIONS = ["inbound", "outbound"] as const;

export const CommunicationSchema = z
  .object({
    id: z.string().meta({ example: "comm_3kTqZ9" }),
    object: z.literal("communication"),
    contact_id: z.string(),
    deal_id: z.string().nullable(),
    channel: z.enum(COMMUNICATION_CHANNELS),
    direction: z.enum(COMMUNICATION_DIRECTIONS),
    subject: z.string().nullable(),
    body: z.string().nullable(),
    occurred_at: z.string().meta({ description: "When it happened (RFC 3339)" }),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Communication" });
export type Communication = z.infer<typeof CommunicationSchema>;

export const CommunicationCreateSchema = z
  .object({
    contact_id: idOf("con"),
    deal_id: idOf("deal").nullish(),
    channel: z.enum(COMMUNICATION_CHANNELS),
    direction: z.enum(COMMUNICATION_DIRECTIONS),
    subject: text(500).nullish(),
    body: z.string().max(20_000).nullish(),
    occurred_at: TimestampSchema.optional().meta({ description: "Defaults to now" }),
    metadata: MetadataSchema.optional(),
  })
  .strict();
export type CommunicationCreate = z.infer<typeof CommunicationCreateSchema>;

export const CommunicationUpdateSchema = CommunicationCreateSchema.partial().strict();
export type CommunicationUpdate = z.infer<typeof CommunicationUpdateSchema>;

/** A `communications` row as the store returns it (migration 0006). */
export interface CommunicationRow extends ResourceRow {
  contact_id: string;
  deal_id: string | null;
  channel: Communication["channel"];
  direction: Communication["direction"];
  subject: string | null;
  body: string | null;
  occurred_at: Date;
}

async function checkReferences(input: CommunicationUpdate, ctx: RuleContext): Promise<void> {
  if (input.contact_id) await assertReference(ctx, "contacts", input.contact_id, "contact_id");
  if (input.deal_id) await assertReference(ctx, "deals", input.deal_id, "deal_id");
}

export const communications: ResourceDefinition<
  Communication,
  CommunicationCreate,
  CommunicationUpdate,
  CommunicationRow
> = {
  name: "communications",
  object: "communication",
  prefix: "comm",
  engine: "growth",
  schemas: {
    object: CommunicationSchema,
    create: CommunicationCreateSchema,
    update: CommunicationUpdateSchema,
  },
  columns: {
    contact_id: "text",
    deal_id: "text",
    channel: "text",
    direction: "text",
    subject: "text",
    body: "text",
    occurred_at: "timestamptz",
  },
  sorts: { created_at: "created_at", updated_at: "updated_at", occurred_at: "occurred_at" },
  search: ["subject", "body"],
  filters: {
    contact_id: { kind: "equals" },
    deal_id: { kind: "equals" },
    channel: { kind: "enum", values: COMMUNICATION_CHANNELS },
    direction: { kind: "enum", values: COMMUNICATION_DIRECTIONS },
    occurred_after: { kind: "instant", column: "occurred_at", op: ">" },
    occurred_before: { kind: "instant", column: "occurred_at", op: "<" },
  },
  async create(input, ctx) {
    await checkReferences(input, ctx);
    return {
      contact_id: input.contact_id,
      deal_id: input.deal_id ?? null,
      channel: input.channel,
      direction: input.direction,
      subject: input.subject ?? null,
      body: input.body ?? null,
      occurred_at: input.occurred_at ? new Date(input.occurred_at) : ctx.now,
      metadata: input.metadata ?? {},
    };
  },
  async update(row, patch, ctx) {
    await checkReferences(patch, ctx);
    return {
      contact_id: patch.contact_id,
      deal_id: patch.deal_id,
      channel: patch.channel,
      direction: patch.direction,
      subject: patch.subject,
      body: patch.body,
      occurred_at: patch.occurred_at,
      metadata: mergeMetadata(row.metadata, patch.metadata),
    };
  },
  render: (row) => ({
    ...baseFields(row, "communication"),
    object: "communication",
    contact_id: row.contact_id,
    deal_id: row.deal_id ?? null,
    channel: row.channel,
    direction: row.direction,
    subject: row.subject ?? null,
    body: row.body ?? null,
    occurred_at: rfc(row.occurred_at),
    metadata: row.metadata,
  }),
};
