import { z } from "zod";
import { INVOICE_STATUSES } from "../../engines/finance/invoices.ts";
import { COMMUNICATION_CHANNELS, COMMUNICATION_DIRECTIONS } from "../../engines/growth/communications.ts";
import { DEAL_STAGES } from "../../engines/growth/deals.ts";
import { CANDIDATE_STATUSES } from "../../engines/talent/candidates.ts";
import { ConditionSchema } from "../tools/query.ts";
import { FiltersSchema, ResourceNameSchema } from "../tools/resources.ts";

/**
 * What the built-in planner keeps between turns (`PlanOutcome.memory`) and the slots a question
 * fills. Memory comes back from storage in `history`, so it is read through its schema: a
 * memory of another shape (an older planner's, the model's) is ignored, not trusted.
 */

export type CommunicationChannel = (typeof COMMUNICATION_CHANNELS)[number];
export type CommunicationDirection = (typeof COMMUNICATION_DIRECTIONS)[number];

export const RangeSchema = z.object({ from: z.string(), to: z.string(), label: z.string() });

export const PeriodSchema = z.object({
  range: RangeSchema,
  days: z.number().int().optional(),
  ahead: z.boolean().optional(),
});

/** A record a question is about, once resolved: a client, a contact, a candidate, a deal… */
export const SubjectSchema = z.object({
  resource: ResourceNameSchema,
  id: z.string(),
  /** How replies name it: "Ava Okafor (Quanta Analytics)". */
  label: z.string(),
  /** The invoices' `client` it stands for, when it is a client. */
  client: z.string().optional(),
  /** The contact whose invoices, deals or communications are meant. */
  contactId: z.string().optional(),
});
export type Subject = z.infer<typeof SubjectSchema>;

export const FACETS = ["count", "sum", "list"] as const;
export type Facet = (typeof FACETS)[number];

export const SlotsSchema = z.object({
  past: PeriodSchema.optional(),
  future: PeriodSchema.optional(),
  currency: z.string().optional(),
  invoiceStatuses: z.array(z.enum(INVOICE_STATUSES)).default([]),
  dealStages: z.array(z.enum(DEAL_STAGES)).default([]),
  lifecycleStages: z.array(z.enum(["lead", "prospect", "customer", "churned"])).default([]),
  candidateStatuses: z.array(z.enum(CANDIDATE_STATUSES)).default([]),
  skillStatuses: z.array(z.enum(["verified", "claimed"])).default([]),
  channels: z.array(z.enum(COMMUNICATION_CHANNELS)).default([]),
  directions: z.array(z.enum(COMMUNICATION_DIRECTIONS)).default([]),
  limit: z.number().int().optional(),
  facet: z.enum(FACETS).optional(),
  subject: SubjectSchema.optional(),
});
export type Slots = z.infer<typeof SlotsSchema>;

export const ItemSchema = z.object({ resource: ResourceNameSchema, id: z.string(), label: z.string() });
export type Item = z.infer<typeof ItemSchema>;

/** A list the reply showed: enough to page it, count or add it up again, or pick "the second one". */
export const ListMemorySchema = z.object({
  resource: ResourceNameSchema,
  filters: FiltersSchema,
  q: z.string().optional(),
  sort: z.string().optional(),
  total: z.number().int(),
  shown: z.number().int(),
  items: z.array(ItemSchema).max(50),
  /** The amount a "how much" adds up (sum_amounts' field). */
  field: z.string().optional(),
  /** A structured question's conditions (query/), and the words they were said in, for a refinement. */
  where: z.array(ConditionSchema).max(24).optional(),
  said: z.array(z.string()).max(24).optional(),
  adjectives: z.array(z.string()).max(12).optional(),
  /** The figure a structured question asked for ("the average invoice"), asked again of a narrowing. */
  aggregate: z
    .object({ fn: z.enum(["count", "sum", "avg", "min", "max", "median"]), field: z.string().optional() })
    .optional(),
});
export type ListMemory = z.infer<typeof ListMemorySchema>;

export const MemorySchema = z.object({
  planner: z.literal("builtin"),
  intent: z.string(),
  slots: SlotsSchema,
  list: ListMemorySchema.optional(),
  /** The one record the reply was about, for "it". */
  focus: ItemSchema.optional(),
});
export type Memory = z.infer<typeof MemorySchema>;

/** What a handler answers; `null` from a handler means "not mine", and the next intent is tried. */
export interface Answer {
  reply: string;
  failed?: boolean;
  /** `false` when the reply is a question back or says what was not understood (PlanOutcome). */
  understood?: boolean;
  /** Failed for want of a scope: the question was understood. */
  refused?: boolean;
  memory?: Memory;
}
