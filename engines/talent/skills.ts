import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { idOf, MetadataSchema, text } from "../fields.ts";
import {
  assertReference,
  baseFields,
  mergeMetadata,
  rfcOrNull,
  type ResourceDefinition,
  type ResourceRow,
} from "../resource.ts";

export const SKILL_LEVELS = ["beginner", "intermediate", "advanced", "expert"] as const;
export type SkillLevel = (typeof SKILL_LEVELS)[number];

/** `claimed → verified`; a verification is never taken back. */
export const SKILL_STATUSES = ["claimed", "verified"] as const;
export type SkillStatus = (typeof SKILL_STATUSES)[number];

export const SkillSchema = z
  .object({
    id: z.string().meta({ example: "skl_3kTqZ9" }),
    object: z.literal("skill"),
    candidate_id: z.string(),
    name: z.string().meta({ example: "TypeScript" }),
    level: z.enum(SKILL_LEVELS),
    status: z.enum(SKILL_STATUSES),
    verified_at: z.string().nullable(),
    verified_by: z.string().nullable().meta({ description: "Who verified the skill" }),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Skill" });
export type Skill = z.infer<typeof SkillSchema>;

const skillFields = {
  name: text(100),
  level: z.enum(SKILL_LEVELS),
  status: z.enum(SKILL_STATUSES),
  verified_by: text(200).nullish(),
  metadata: MetadataSchema,
};

export const SkillCreateSchema = z
  .object({ ...skillFields, candidate_id: idOf("cand") })
  .partial({ level: true, status: true, metadata: true })
  .strict();
export type SkillCreate = z.infer<typeof SkillCreateSchema>;

/** The candidate a skill belongs to is fixed: a patch cannot move it. */
export const SkillUpdateSchema = z.object(skillFields).partial().strict();
export type SkillUpdate = z.infer<typeof SkillUpdateSchema>;

/** A `skills` row as the store returns it (migration 0007). */
export interface SkillRow extends ResourceRow {
  candidate_id: string;
  name: string;
  level: SkillLevel;
  status: SkillStatus;
  verified_at: Date | null;
  verified_by: string | null;
}

/** Names who verified a skill only on a verified one. */
function assertVerifiedBy(status: SkillStatus, verifiedBy: string | null | undefined): void {
  if (verifiedBy == null || status === "verified") return;
  const message = "can only be set on a verified skill; send status verified with it";
  throw new AppError("validation_failed", `verified_by: ${message}`, {
    errors: [{ param: "verified_by", code: "requires_verified", message }],
  });
}

export const skills: ResourceDefinition<Skill, SkillCreate, SkillUpdate, SkillRow> = {
  name: "skills",
  object: "skill",
  prefix: "skl",
  engine: "talent",
  schemas: { object: SkillSchema, create: SkillCreateSchema, update: SkillUpdateSchema },
  columns: {
    candidate_id: "text",
    name: "text",
    level: "text",
    status: "text",
    verified_at: "timestamptz",
    verified_by: "text",
  },
  sorts: { created_at: "created_at", updated_at: "updated_at", name: "name", verified_at: "verified_at" },
  search: ["name"],
  filters: {
    candidate_id: { kind: "equals" },
    status: { kind: "enum", values: SKILL_STATUSES },
    level: { kind: "enum", values: SKILL_LEVELS },
    // Case-insensitive like the unique index (migration 0007); a comma list matches any of them.
    name: {
      kind: "custom",
      apply: (values, where) =>
        where.add(`lower(name) IN (SELECT lower(v) FROM unnest(${where.bind(values)}::text[]) AS v)`),
    },
    verified_after: { kind: "instant", column: "verified_at", op: ">" },
    verified_before: { kind: "instant", column: "verified_at", op: "<" },
  },
  // A second skill of one candidate with the same name (in any case) hits the unique index: 409.
  async create(input, ctx) {
    const status = input.status ?? "claimed";
    assertVerifiedBy(status, input.verified_by);
    await assertReference(ctx, "candidates", input.candidate_id, "candidate_id");
    return {
      candidate_id: input.candidate_id,
      name: input.name,
      level: input.level ?? "intermediate",
      status,
      verified_at: status === "verified" ? ctx.now : null,
      verified_by: input.verified_by ?? null,
      metadata: input.metadata ?? {},
    };
  },
  update(row, patch, ctx) {
    const current = row.status;
    const status = patch.status ?? current;
    if (current === "verified" && status === "claimed") {
      throw new AppError("invalid_state_transition", "Skill is verified; it cannot become claimed", {
        errors: [
          { param: "status", code: "invalid_transition", message: "verified → claimed is not allowed" },
        ],
      });
    }
    assertVerifiedBy(status, patch.verified_by);
    const verifies = current === "claimed" && status === "verified";
    return {
      name: patch.name,
      level: patch.level,
      status: verifies ? status : undefined,
      verified_at: verifies ? ctx.now : undefined,
      verified_by: patch.verified_by,
      metadata: mergeMetadata(row.metadata, patch.metadata),
    };
  },
  render: (row) => ({
    ...baseFields(row, "skill"),
    object: "skill",
    candidate_id: row.candidate_id,
    name: row.name,
    level: row.level,
    status: row.status,
    verified_at: rfcOrNull(row.verified_at),
    verified_by: row.verified_by ?? null,
    metadata: row.metadata,
  }),
  events: {
    types: [{ type: "skill.verified", description: "A candidate's skill was verified." }],
    derive: (before, after) =>
      after.status === "verified" && before?.status !== "verified" ? ["skill.verified"] : [],
  },
};
