import { z } from "zod";
import type { AnyResourceService } from "../../engines/index.ts";

/**
 * Which fields a resource's table shows. The engines' resources have a hand-picked set (what a
 * small-business owner scans for); any other resource gets the first scalar fields of its object
 * schema, so a new resource has a table without dashboard code.
 */
const CHOSEN: Record<string, readonly string[]> = {
  invoices: ["number", "client", "amount", "currency", "status", "due_date", "days_overdue"],
  products: ["name", "sku", "price", "currency", "active"],
  payments: ["invoice_id", "amount", "currency", "method", "reference", "received_at"],
  contacts: ["name", "email", "company", "lifecycle_stage", "tags"],
  deals: ["title", "value", "currency", "stage", "expected_close_date", "contact_id"],
  communications: ["subject", "channel", "direction", "contact_id", "occurred_at"],
  candidates: ["name", "email", "position", "status", "source"],
  skills: ["name", "level", "status", "candidate_id", "verified_by"],
};

/** Fields every object has, which a table leaves to the record page (but `created_at`). */
const HIDDEN = new Set(["id", "object", "metadata", "updated_at"]);
const DEFAULT_COLUMNS = 6;

export function tableColumns(service: AnyResourceService): readonly string[] {
  const { definition } = service;
  const chosen = CHOSEN[definition.name];
  if (chosen) return chosen;
  const schema = z.toJSONSchema(definition.schemas.object as z.ZodType, { unrepresentable: "any" }) as {
    properties?: Record<string, { type?: unknown }>;
  };
  const scalar = Object.entries(schema.properties ?? {})
    .filter(
      ([name, property]) => !HIDDEN.has(name) && property.type !== "object" && property.type !== "array",
    )
    .map(([name]) => name);
  return [...scalar.filter((name) => name !== "created_at").slice(0, DEFAULT_COLUMNS), "created_at"];
}
