import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { EmailSchema, MetadataSchema, text } from "../fields.ts";
import { baseFields, mergeMetadata, type ResourceDefinition, type ResourceRow } from "../resource.ts";

export const LIFECYCLE_STAGES = ["lead", "prospect", "customer", "churned"] as const;

/** Tables whose rows refer to a contact: while any does, the contact cannot be deleted. */
const REFERRERS = ["invoices", "deals", "communications"] as const;
/** Which of them still refer to contact $2, in one round trip. */
const REFERRERS_SQL = `SELECT ${REFERRERS.map(
  (table) => `EXISTS (SELECT 1 FROM ${table} WHERE org_id = $1 AND contact_id = $2) AS ${table}`,
).join(", ")}`;

const TagsSchema = z.array(z.string().trim().min(1).max(50)).max(50);

export const ContactSchema = z
  .object({
    id: z.string().meta({ example: "con_3kTqZ9" }),
    object: z.literal("contact"),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    company: z.string().nullable(),
    tags: z.array(z.string()),
    lifecycle_stage: z.enum(LIFECYCLE_STAGES),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Contact" });
export type Contact = z.infer<typeof ContactSchema>;

export const ContactCreateSchema = z
  .object({
    name: text(200),
    email: EmailSchema.nullish(),
    phone: z
      .string()
      .trim()
      .regex(/^\+?[0-9 ().-]{3,32}$/, "must be a phone number")
      .nullish(),
    company: text(200).nullish(),
    tags: TagsSchema.optional(),
    lifecycle_stage: z.enum(LIFECYCLE_STAGES).optional(),
    metadata: MetadataSchema.optional(),
  })
  .strict();
export type ContactCreate = z.infer<typeof ContactCreateSchema>;

export const ContactUpdateSchema = ContactCreateSchema.partial().strict();
export type ContactUpdate = z.infer<typeof ContactUpdateSchema>;

/** A `contacts` row as the store returns it (migration 0002). */
export interface ContactRow extends ResourceRow {
  name: string;
  email: string | null;
  phone: string | null;
  company: string | null;
  tags: string[];
  /** text, written only from `ContactCreateSchema` and `ContactUpdateSchema` */
  lifecycle_stage: Contact["lifecycle_stage"];
}

export const contacts: ResourceDefinition<Contact, ContactCreate, ContactUpdate, ContactRow> = {
  name: "contacts",
  object: "contact",
  prefix: "con",
  engine: "growth",
  schemas: { object: ContactSchema, create: ContactCreateSchema, update: ContactUpdateSchema },
  columns: {
    name: "text",
    email: "text",
    phone: "text",
    company: "text",
    tags: "text[]",
    lifecycle_stage: "text",
  },
  sorts: { created_at: "created_at", updated_at: "updated_at", name: "name", email: "email" },
  search: ["name", "email", "company"],
  filters: {
    lifecycle_stage: { kind: "enum", values: LIFECYCLE_STAGES },
    email: {
      kind: "custom",
      apply: (values, where) => where.add(`lower(email) = lower(${where.bind(values[0])})`),
    },
    company: { kind: "equals" },
    tag: { kind: "custom", apply: (values, where) => where.add(`tags @> ${where.bind(values)}::text[]`) },
  },
  create: (input) => ({
    name: input.name,
    email: input.email ?? null,
    phone: input.phone ?? null,
    company: input.company ?? null,
    tags: input.tags ?? [],
    lifecycle_stage: input.lifecycle_stage ?? "lead",
    metadata: input.metadata ?? {},
  }),
  update: (row, patch) => ({
    name: patch.name,
    email: patch.email,
    phone: patch.phone,
    company: patch.company,
    tags: patch.tags,
    lifecycle_stage: patch.lifecycle_stage,
    metadata: mergeMetadata(row.metadata, patch.metadata),
  }),
  async beforeDelete(row, ctx) {
    const [used] = await ctx.tx.query<Record<(typeof REFERRERS)[number], boolean>>(REFERRERS_SQL, [
      ctx.orgId,
      row.id,
    ]);
    const referrers = REFERRERS.filter((table) => used?.[table] === true);
    if (referrers.length > 0) {
      throw new AppError(
        "conflict",
        `Contact '${row.id}' has ${referrers.join(" and ")}; reassign or delete them first`,
      );
    }
  },
  render: (row) => ({
    ...baseFields(row, "contact"),
    object: "contact",
    name: row.name,
    email: row.email ?? null,
    phone: row.phone ?? null,
    company: row.company ?? null,
    tags: row.tags,
    lifecycle_stage: row.lifecycle_stage,
    metadata: row.metadata,
  }),
  events: {
    types: [
      { type: "contact.lifecycle_stage_changed", description: "A contact moved to another lifecycle stage." },
    ],
    derive: (before, after) =>
      before && before.lifecycle_stage !== after.lifecycle_stage ? ["contact.lifecycle_stage_changed"] : [],
  },
};
