import { z } from "zod";
import { OPEN_DEAL_STAGES } from "../growth/deals.ts";
import { CANDIDATE_STATUSES } from "../talent/candidates.ts";

/**
 * The shape of an intelligence snapshot (ARCHITECTURE.md, "Engines and resources": platform resource
 * `intelligence/snapshots`; injected into edge functions as `ctx.snapshot`).
 *
 * Money is a map from currency (ISO 4217, as on the invoices) to an amount, a JSON
 * number rendered from the exact `numeric` sum the way invoices render `amount`.
 * Amounts in different currencies are never added together; a currency appears
 * only when something counted in it. Windows such as "last 30 days" end at
 * `computed_at` and start exactly 30 × 24 h before it.
 */

const money = (description: string) =>
  z
    .record(z.string(), z.number())
    .meta({ description: `${description}; per currency`, example: { EUR: 1250.5, USD: 300 } });

/** One non-negative count per key, every key present (0 when nothing counts). */
function countsOf<const K extends readonly string[]>(keys: K, description: string) {
  const shape = Object.fromEntries(keys.map((key) => [key, z.number().int().min(0)]));
  return z.object(shape as { [P in K[number]]: z.ZodNumber }).meta({ description });
}

function moneyBy<const K extends readonly string[]>(keys: K, description: string) {
  const shape = Object.fromEntries(keys.map((key) => [key, money(description)]));
  return z.object(shape as { [P in K[number]]: ReturnType<typeof money> }).meta({ description });
}

export const SnapshotFinanceSchema = z
  .object({
    outstanding: money("Still owed on open and overdue invoices (amount − amount_paid)"),
    outstanding_count: z.number().int().min(0).meta({ description: "Open and overdue invoices" }),
    overdue: money("Still owed on invoices overdue at computed_at (due date before that day, UTC)"),
    overdue_count: z.number().int().min(0),
    paid_30_days: money(
      "Money received in the last 30 days: payments by received_at, plus what an invoice marked paid by hand still owed, at its paid_at",
    ),
    invoiced_90_days: money("Amount of invoices issued in the last 90 days, voided ones left out"),
    dso_days: z.record(z.string(), z.number().nullable()).meta({
      description:
        "Days sales outstanding per currency: outstanding ÷ invoiced_90_days × 90, to one decimal; null when nothing was invoiced in that currency in the last 90 days",
      example: { EUR: 41.3, USD: null },
    }),
  })
  .meta({ id: "IntelligenceSnapshotFinance" });

export const SnapshotGrowthSchema = z
  .object({
    contacts: z.number().int().min(0),
    new_contacts_30_days: z.number().int().min(0),
    open_deals_by_stage: countsOf(OPEN_DEAL_STAGES, "Deals in each open stage"),
    pipeline_value_by_stage: moneyBy(OPEN_DEAL_STAGES, "Value of the deals in each open stage"),
    deals_won: z.number().int().min(0),
    deals_lost: z.number().int().min(0),
    win_rate: z.number().min(0).max(1).nullable().meta({
      description:
        "deals_won ÷ (deals_won + deals_lost) over every closed deal, to 4 decimals; null when none closed",
    }),
  })
  .meta({ id: "IntelligenceSnapshotGrowth" });

export const SnapshotTalentSchema = z
  .object({
    candidates_by_status: countsOf(CANDIDATE_STATUSES, "Candidates in each status, every status present"),
    skills_verified_30_days: z
      .number()
      .int()
      .min(0)
      .meta({ description: "Skills verified in the last 30 days" }),
  })
  .meta({ id: "IntelligenceSnapshotTalent" });

/** The figures, as stored (the `snapshot` jsonb column) and read back through this schema. */
export const SnapshotBodySchema = z.object({
  finance: SnapshotFinanceSchema,
  growth: SnapshotGrowthSchema,
  talent: SnapshotTalentSchema,
});
export type SnapshotBody = z.infer<typeof SnapshotBodySchema>;

/** The API object (`GET /v1/intelligence/snapshots/{id}`), and `ctx.snapshot` in edge functions. */
export const SnapshotSchema = z
  .object({
    id: z.string().meta({ example: "snap_3kTqZ9" }),
    object: z.literal("intelligence_snapshot"),
    computed_at: z.string().meta({ description: "The instant the figures describe (RFC 3339)" }),
    created_at: z.string(),
    updated_at: z.string().meta({ description: "Snapshots never change: equal to created_at" }),
    metadata: z.record(z.string(), z.string()),
    ...SnapshotBodySchema.shape,
  })
  .meta({ id: "IntelligenceSnapshot" });
export type IntelligenceSnapshot = z.infer<typeof SnapshotSchema>;
