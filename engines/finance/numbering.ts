import type { RuleContext } from "../resource.ts";

/**
 * Next invoice number of the organization, `INV-000001` upward. The counter row is
 * updated in the creating transaction, so numbers never repeat; a rolled-back
 * create gives its number back.
 */
export async function nextInvoiceNumber(ctx: RuleContext): Promise<string> {
  const rows = await ctx.tx.query<{ seq: number }>(
    "UPDATE organizations SET invoice_seq = invoice_seq + 1 WHERE id = $1 RETURNING invoice_seq AS seq",
    [ctx.orgId],
  );
  return `INV-${String(rows[0]!.seq).padStart(6, "0")}`;
}
