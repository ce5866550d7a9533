import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { EmailSchema, MetadataSchema, text } from "../fields.ts";
import {
  baseFields,
  mergeMetadata,
  rfcOrNull,
  type ResourceDefinition,
  type ResourceRow,
} from "../resource.ts";
import { defineStateMachine } from "../state-machine.ts";

export const CANDIDATE_STATUSES = [
  "applied",
  "screening",
  "interview",
  "offer",
  "hired",
  "rejected",
] as const;
export type CandidateStatus = (typeof CANDIDATE_STATUSES)[number];

/**
 * The hiring pipeline: forward one step at a time, `rejected` from any open
 * status; `hired` (only after an offer) and `rejected` are final.
 */
const TRANSITIONS: Record<CandidateStatus, readonly CandidateStatus[]> = {
  applied: ["screening", "rejected"],
  screening: ["interview", "rejected"],
  interview: ["offer", "rejected"],
  offer: ["hired", "rejected"],
  hired: [],
  rejected: [],
};

/**
 * A hired or rejected candidate is a record (`hired_at`, `rejected_at`): only its metadata still
 * changes. Every move records `candidate.status_changed`, and the outcome records itself.
 */
export const CANDIDATE_LIFECYCLE = defineStateMachine({
  object: "Candidate",
  param: "status",
  states: CANDIDATE_STATUSES,
  transitions: TRANSITIONS,
  finalEditable: ["metadata"],
  stamps: { hired: "hired_at", rejected: "rejected_at" },
  events: {
    changed: {
      type: "candidate.status_changed",
      description: "A candidate moved in the pipeline; see previous_attributes on candidate.updated.",
    },
    entered: {
      hired: { type: "candidate.hired", description: "A candidate with an offer was hired." },
      rejected: { type: "candidate.rejected", description: "A candidate was rejected." },
    },
  },
});

export const CandidateSchema = z
  .object({
    id: z.string().meta({ example: "cand_3kTqZ9" }),
    object: z.literal("candidate"),
    name: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    position: z.string().meta({ description: "The role applied for" }),
    source: z.string().nullable().meta({ example: "referral" }),
    status: z.enum(CANDIDATE_STATUSES),
    applied_at: z.string().meta({ description: "When the candidate applied (its creation)" }),
    hired_at: z.string().nullable(),
    rejected_at: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Candidate" });
export type Candidate = z.infer<typeof CandidateSchema>;

const candidateFields = {
  name: text(200),
  email: EmailSchema,
  phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ().-]{3,32}$/, "must be a phone number")
    .nullish(),
  position: text(200),
  source: text(100).nullish(),
  metadata: MetadataSchema,
};

export const CandidateCreateSchema = z
  .object({
    ...candidateFields,
    metadata: candidateFields.metadata.optional(),
    // Every candidate enters the pipeline at its start; later statuses are reached by PATCH.
    status: z.enum(["applied"]).optional(),
  })
  .strict();
export type CandidateCreate = z.infer<typeof CandidateCreateSchema>;

export const CandidateUpdateSchema = z
  .object({ ...candidateFields, status: z.enum(CANDIDATE_STATUSES) })
  .partial()
  .strict();
export type CandidateUpdate = z.infer<typeof CandidateUpdateSchema>;

/** A `candidates` row as the store returns it (migration 0007). */
export interface CandidateRow extends ResourceRow {
  name: string;
  email: string;
  phone: string | null;
  position: string;
  source: string | null;
  status: CandidateStatus;
  hired_at: Date | null;
  rejected_at: Date | null;
}

export const candidates: ResourceDefinition<Candidate, CandidateCreate, CandidateUpdate, CandidateRow> = {
  name: "candidates",
  object: "candidate",
  prefix: "cand",
  engine: "talent",
  schemas: { object: CandidateSchema, create: CandidateCreateSchema, update: CandidateUpdateSchema },
  lifecycle: CANDIDATE_LIFECYCLE,
  columns: {
    name: "text",
    email: "text",
    phone: "text",
    position: "text",
    source: "text",
    status: "text",
    hired_at: "timestamptz",
    rejected_at: "timestamptz",
  },
  sorts: { created_at: "created_at", updated_at: "updated_at", name: "name", email: "email" },
  search: ["name", "email", "position"],
  filters: {
    status: { kind: "enum", values: CANDIDATE_STATUSES },
    position: { kind: "equals" },
    source: { kind: "equals" },
    // Case-insensitive like the unique index (migration 0007); a comma list matches any of them.
    email: {
      kind: "custom",
      apply: (values, where) =>
        where.add(`lower(email) IN (SELECT lower(v) FROM unnest(${where.bind(values)}::text[]) AS v)`),
    },
  },
  // A second candidate with the same email (in any case) hits the unique index: 409 conflict.
  create: (input) => ({
    name: input.name,
    email: input.email,
    phone: input.phone ?? null,
    position: input.position,
    source: input.source ?? null,
    status: input.status ?? "applied",
    metadata: input.metadata ?? {},
  }),
  update(row, patch, ctx) {
    const current = row.status;
    const transition = patch.status ? CANDIDATE_LIFECYCLE.move(current, patch.status, ctx.now) : {};
    CANDIDATE_LIFECYCLE.assertEditable(current, patch);
    return {
      name: patch.name,
      email: patch.email,
      phone: patch.phone,
      position: patch.position,
      source: patch.source,
      metadata: mergeMetadata(row.metadata, patch.metadata),
      ...transition,
    };
  },
  async beforeDelete(row, ctx) {
    const used = await ctx.tx.query("SELECT 1 FROM skills WHERE org_id = $1 AND candidate_id = $2 LIMIT 1", [
      ctx.orgId,
      row.id,
    ]);
    if (used.length > 0) {
      throw new AppError("conflict", `Candidate '${row.id}' has skills; delete them first`);
    }
  },
  render(row) {
    const base = baseFields(row, "candidate");
    return {
      ...base,
      object: "candidate",
      name: row.name,
      email: row.email,
      phone: row.phone ?? null,
      position: row.position,
      source: row.source ?? null,
      status: row.status,
      applied_at: base.created_at,
      hired_at: rfcOrNull(row.hired_at),
      rejected_at: rfcOrNull(row.rejected_at),
      metadata: row.metadata,
    };
  },
};
