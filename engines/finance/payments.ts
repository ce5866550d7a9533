import { z } from "zod";
import { addDecimals, AppError, compareDecimals, subtractDecimals } from "../../core/index.ts";
import { AmountSchema, CurrencySchema, idOf, MetadataSchema, text, TimestampSchema } from "../fields.ts";
import {
  baseFields,
  mergeMetadata,
  recordChange,
  rfc,
  type ResourceDefinition,
  type ResourceRow,
  type RuleContext,
} from "../resource.ts";
import { effectiveStatus, invoices, renderInvoice, type InvoiceRow, type InvoiceStatus } from "./invoices.ts";

export const PAYMENT_METHODS = ["card", "bank_transfer", "direct_debit", "cash", "check", "other"] as const;

export const PaymentSchema = z
  .object({
    id: z.string().meta({ example: "pay_3kTqZ9" }),
    object: z.literal("payment"),
    invoice_id: z.string(),
    amount: z.number(),
    currency: z.string(),
    method: z.enum(PAYMENT_METHODS),
    reference: z.string().nullable().meta({ description: "Your reference, e.g. the bank transfer's" }),
    received_at: z.string(),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Payment" });
export type Payment = z.infer<typeof PaymentSchema>;

/** A `payments` row as the store returns it (migration 0008). */
export interface PaymentRow extends ResourceRow {
  invoice_id: string;
  /** numeric: exact, as a string */
  amount: string;
  /** char(3) */
  currency: string;
  /** text, written only from `PaymentCreateSchema` and `PaymentUpdateSchema` */
  method: Payment["method"];
  reference: string | null;
  received_at: Date;
}

const PositiveAmountSchema = AmountSchema.refine((value) => compareDecimals(value, "0") > 0, {
  message: "must be greater than 0",
});

export const PaymentCreateSchema = z
  .object({
    invoice_id: idOf("inv"),
    amount: PositiveAmountSchema,
    currency: CurrencySchema.optional().meta({ description: "Defaults to the invoice's; must equal it" }),
    method: z.enum(PAYMENT_METHODS),
    reference: text(200).nullish(),
    received_at: TimestampSchema.optional(),
    metadata: MetadataSchema.optional(),
  })
  .strict();
export type PaymentCreate = z.infer<typeof PaymentCreateSchema>;

/** What can change on a recorded payment: its bookkeeping, never its money or invoice. */
export const PaymentUpdateSchema = PaymentCreateSchema.pick({
  method: true,
  reference: true,
  received_at: true,
  metadata: true,
})
  .partial()
  .strict();
export type PaymentUpdate = z.infer<typeof PaymentUpdateSchema>;

/** Statuses of an invoice that can take (or give back) a payment. */
const PAYABLE: readonly InvoiceStatus[] = ["open", "overdue"];

/**
 * Applies `delta` (a payment's amount, negated when one is deleted) to its invoice,
 * locked for the rest of the transaction: a payment that covers the balance marks
 * the invoice paid, and the invoice's own events are recorded alongside.
 */
async function applyToInvoice(
  ctx: RuleContext,
  invoiceId: string,
  delta: { amount: string; currency?: string; removing: boolean },
): Promise<InvoiceRow> {
  const [invoice] = await ctx.tx.query<InvoiceRow>(
    "SELECT * FROM invoices WHERE org_id = $1 AND id = $2 FOR UPDATE",
    [ctx.orgId, invoiceId],
  );
  if (!invoice) {
    throw new AppError("validation_failed", `No such invoice: '${invoiceId}'`, {
      errors: [
        { param: "invoice_id", code: "invalid_reference", message: `No such invoice: '${invoiceId}'` },
      ],
    });
  }
  const status = effectiveStatus(invoice.status, invoice.due_date, ctx.today);
  if (!PAYABLE.includes(status)) {
    const action = delta.removing ? "its payments cannot be deleted" : "it cannot take payments";
    throw new AppError("invalid_state_transition", `Invoice ${invoiceId} is ${status}; ${action}`, {
      errors: [{ param: "invoice_id", code: "invoice_not_payable", message: `the invoice is ${status}` }],
    });
  }
  const currency = invoice.currency.trim();
  if (delta.currency !== undefined && delta.currency !== currency) {
    throw new AppError("validation_failed", `The invoice is in ${currency}; a payment must be too`, {
      errors: [{ param: "currency", code: "currency_mismatch", message: `must be ${currency}` }],
    });
  }
  const paid = invoice.amount_paid;
  const total = invoice.amount;
  const remaining = subtractDecimals(total, paid);
  if (!delta.removing && compareDecimals(delta.amount, remaining) > 0) {
    throw new AppError("validation_failed", `The payment exceeds the invoice's remaining ${remaining}`, {
      errors: [{ param: "amount", code: "amount_exceeds_balance", message: `at most ${remaining}` }],
    });
  }
  const newPaid = delta.removing ? subtractDecimals(paid, delta.amount) : addDecimals([paid, delta.amount]);
  const settles = compareDecimals(newPaid, total) >= 0;
  const [updated] = await ctx.tx.query<InvoiceRow>(
    `UPDATE invoices SET amount_paid = $3::numeric, updated_at = $4::timestamptz,
       status = CASE WHEN $5::boolean THEN 'paid' ELSE status END,
       paid_at = CASE WHEN $5::boolean THEN $4::timestamptz ELSE paid_at END
     WHERE org_id = $1 AND id = $2 RETURNING *`,
    [ctx.orgId, invoiceId, newPaid, ctx.now.toISOString(), settles],
  );
  await recordChange(ctx, invoices, renderInvoice(invoice, ctx.today), renderInvoice(updated!, ctx.today));
  return invoice;
}

export const payments: ResourceDefinition<Payment, PaymentCreate, PaymentUpdate, PaymentRow> = {
  name: "payments",
  object: "payment",
  prefix: "pay",
  engine: "finance",
  schemas: { object: PaymentSchema, create: PaymentCreateSchema, update: PaymentUpdateSchema },
  columns: {
    invoice_id: "text",
    amount: "numeric",
    currency: "text",
    method: "text",
    reference: "text",
    received_at: "timestamptz",
  },
  sorts: { created_at: "created_at", updated_at: "updated_at", received_at: "received_at", amount: "amount" },
  search: ["reference"],
  filters: {
    invoice_id: { kind: "equals" },
    method: { kind: "enum", values: PAYMENT_METHODS },
    currency: { kind: "equals" },
    received_after: { kind: "instant", column: "received_at", op: ">" },
    received_before: { kind: "instant", column: "received_at", op: "<" },
  },
  async create(input, ctx) {
    const invoice = await applyToInvoice(ctx, input.invoice_id, {
      amount: input.amount,
      currency: input.currency,
      removing: false,
    });
    return {
      invoice_id: input.invoice_id,
      amount: input.amount,
      currency: invoice.currency.trim(),
      method: input.method,
      reference: input.reference ?? null,
      received_at: input.received_at ? new Date(input.received_at) : ctx.now,
      metadata: input.metadata ?? {},
    };
  },
  update: (row, patch) => ({
    method: patch.method,
    reference: patch.reference,
    received_at: patch.received_at ? new Date(patch.received_at) : undefined,
    metadata: mergeMetadata(row.metadata, patch.metadata),
  }),
  // A payment recorded in error is deleted and the invoice's balance restored; once the
  // invoice is paid (or void) its payments are its record and stay.
  async beforeDelete(row, ctx) {
    await applyToInvoice(ctx, row.invoice_id, { amount: row.amount, removing: true });
  },
  render: (row) => ({
    ...baseFields(row, "payment"),
    object: "payment",
    invoice_id: row.invoice_id,
    amount: Number(row.amount),
    currency: row.currency.trim(),
    method: row.method,
    reference: row.reference ?? null,
    received_at: rfc(row.received_at),
    metadata: row.metadata,
  }),
};
