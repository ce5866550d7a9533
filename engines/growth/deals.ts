import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { AmountSchema, CurrencySchema, DateSchema, idOf, MetadataSchema, text } from "../fields.ts";
import {
  assertReference,
  baseFields,
  mergeMetadata,
  rfcOrNull,
  type ResourceDefinition,
  type ResourceRow,
} from "../resource.ts";
import { defineStateMachine } from "../state-machine.ts";

export const DEAL_STAGES = ["lead", "qualified", "proposal", "won", "lost"] as const;
export type DealStage = (typeof DEAL_STAGES)[number];

/** Stages of a deal still in the pipeline, in pipeline order; a deal is created in one of them. */
export const OPEN_DEAL_STAGES = ["lead", "qualified", "proposal"] as const;

/**
 * The deal pipeline: an open stage may move to any other open stage (forward,
 * skipping ahead, or back), `won` only from `proposal`, `lost` from any open
 * stage; `won` and `lost` are final.
 */
const TRANSITIONS: Record<DealStage, readonly DealStage[]> = {
  lead: ["qualified", "proposal", "lost"],
  qualified: ["lead", "proposal", "lost"],
  proposal: ["lead", "qualified", "won", "lost"],
  won: [],
  lost: [],
};

/**
 * A won or lost deal keeps its record as it closed (`closed_at`): only metadata and title change.
 * Every move records `deal.stage_changed`, and closing records how.
 */
export const DEAL_LIFECYCLE = defineStateMachine({
  object: "Deal",
  param: "stage",
  states: DEAL_STAGES,
  transitions: TRANSITIONS,
  finalEditable: ["metadata", "title"],
  stamps: { won: "closed_at", lost: "closed_at" },
  events: {
    changed: {
      type: "deal.stage_changed",
      description: "A deal moved to another stage; see deal.updated for the stage it left.",
    },
    entered: {
      won: { type: "deal.won", description: "A deal was won (from proposal)." },
      lost: { type: "deal.lost", description: "A deal was lost." },
    },
  },
});

export const DealSchema = z
  .object({
    id: z.string().meta({ example: "deal_3kTqZ9" }),
    object: z.literal("deal"),
    title: z.string(),
    contact_id: z.string().nullable(),
    value: z.number().meta({ description: "Expected value, exact decimal" }),
    currency: z.string(),
    stage: z.enum(DEAL_STAGES),
    expected_close_date: z.string().nullable(),
    closed_at: z.string().nullable().meta({ description: "When the deal became won or lost" }),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Deal" });
export type Deal = z.infer<typeof DealSchema>;

const dealFields = {
  title: text(200),
  contact_id: idOf("con").nullish(),
  value: AmountSchema,
  currency: CurrencySchema,
  expected_close_date: DateSchema.nullish(),
  metadata: MetadataSchema,
};

export const DealCreateSchema = z
  .object({
    ...dealFields,
    metadata: dealFields.metadata.optional(),
    stage: z.enum(OPEN_DEAL_STAGES).optional(),
  })
  .strict();
export type DealCreate = z.infer<typeof DealCreateSchema>;

export const DealUpdateSchema = z
  .object({ ...dealFields, stage: z.enum(DEAL_STAGES) })
  .partial()
  .strict();
export type DealUpdate = z.infer<typeof DealUpdateSchema>;

/** A `deals` row as the store returns it (migration 0006). */
export interface DealRow extends ResourceRow {
  title: string;
  contact_id: string | null;
  /** numeric: exact, as a string */
  value: string;
  /** char(3) */
  currency: string;
  stage: DealStage;
  /** date: `YYYY-MM-DD` */
  expected_close_date: string | null;
  closed_at: Date | null;
}

export const deals: ResourceDefinition<Deal, DealCreate, DealUpdate, DealRow> = {
  name: "deals",
  object: "deal",
  prefix: "deal",
  engine: "growth",
  schemas: { object: DealSchema, create: DealCreateSchema, update: DealUpdateSchema },
  lifecycle: DEAL_LIFECYCLE,
  columns: {
    title: "text",
    contact_id: "text",
    value: "numeric",
    currency: "text",
    stage: "text",
    expected_close_date: "date",
    closed_at: "timestamptz",
  },
  sorts: {
    created_at: "created_at",
    updated_at: "updated_at",
    value: "value",
    expected_close_date: "expected_close_date",
    title: "title",
  },
  search: ["title"],
  filters: {
    stage: { kind: "enum", values: DEAL_STAGES },
    contact_id: { kind: "equals" },
    currency: { kind: "equals" },
    expected_close_before: { kind: "date", column: "expected_close_date", op: "<" },
    expected_close_after: { kind: "date", column: "expected_close_date", op: ">" },
  },
  async create(input, ctx) {
    if (input.contact_id) await assertReference(ctx, "contacts", input.contact_id, "contact_id");
    return {
      title: input.title,
      contact_id: input.contact_id ?? null,
      value: input.value,
      currency: input.currency,
      stage: input.stage ?? "lead",
      expected_close_date: input.expected_close_date ?? null,
      metadata: input.metadata ?? {},
    };
  },
  async update(row, patch, ctx) {
    const current = row.stage;
    const transition = patch.stage ? DEAL_LIFECYCLE.move(current, patch.stage, ctx.now) : {};
    DEAL_LIFECYCLE.assertEditable(current, patch);
    if (patch.contact_id) await assertReference(ctx, "contacts", patch.contact_id, "contact_id");
    return {
      title: patch.title,
      contact_id: patch.contact_id,
      value: patch.value,
      currency: patch.currency,
      expected_close_date: patch.expected_close_date,
      metadata: mergeMetadata(row.metadata, patch.metadata),
      ...transition,
    };
  },
  async beforeDelete(row, ctx) {
    const used = await ctx.tx.query(
      "SELECT 1 FROM communications WHERE org_id = $1 AND deal_id = $2 LIMIT 1",
      [ctx.orgId, row.id],
    );
    if (used.length > 0) {
      throw new AppError(
        "conflict",
        `Deal '${row.id}' has communications; delete them or move them off the deal first`,
      );
    }
  },
  render: (row) => ({
    ...baseFields(row, "deal"),
    object: "deal",
    title: row.title,
    contact_id: row.contact_id ?? null,
    value: Number(row.value),
    currency: row.currency.trim(),
    stage: row.stage,
    expected_close_date: row.expected_close_date ?? null,
    closed_at: rfcOrNull(row.closed_at),
    metadata: row.metadata,
  }),
};
