/**
 * The read intents SYNC's built-in planner answers, and the shape of a rule that points to one
 * (intents.ts scores them; rules-finance/growth/talent.ts write them).
 */

export const READ_INTENTS = [
  "overdue",
  "due_soon",
  "outstanding",
  "revenue",
  "invoices",
  "invoice_detail",
  "top_clients",
  "contact_detail",
  "contacts",
  "pipeline",
  "deals",
  "communications",
  "candidates",
  "candidate_detail",
  "skills_verified",
  "skills",
  "snapshot",
  "search",
  "products",
  "payments",
  "help",
] as const;
export type ReadIntent = (typeof READ_INTENTS)[number];

export interface Rule {
  intent: ReadIntent;
  /** Every group must have a cue present. */
  needs: readonly (readonly string[])[];
  cues: Readonly<Record<string, number>>;
}
