import { z } from "zod";
import {
  addDecimals,
  AppError,
  compareDecimals,
  multiplyDecimals,
  subtractDecimals,
} from "../../core/index.ts";
import { AmountSchema, CurrencySchema, DateSchema, idOf, MetadataSchema, text } from "../fields.ts";
import type { Branch } from "../list-query.ts";
import {
  assertReference,
  mergeMetadata,
  rfc,
  rfcOrNull,
  type ResourceDefinition,
  type ResourceRow,
  type RuleContext,
} from "../resource.ts";
import { defineStateMachine } from "../state-machine.ts";
import { nextInvoiceNumber } from "./numbering.ts";

export const INVOICE_STATUSES = ["draft", "open", "overdue", "paid", "void"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Statuses a client may ask for; `overdue` only follows from the due date passing. */
const SETTABLE_STATUSES = ["draft", "open", "paid", "void"] as const;

/** The invoice state machine (ARCHITECTURE.md, "Engines and resources"): `paid` and `void` are final. */
const TRANSITIONS: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  draft: ["open", "void"],
  open: ["paid", "overdue", "void"],
  overdue: ["paid", "void"],
  paid: [],
  void: [],
};

/**
 * A paid or void invoice is a record: only its metadata and description still change. Each move
 * stamps its time (`issued_at`, `paid_at`, `voided_at`) and records what happened; an invoice
 * created open is sent at once. `overdue` comes with time: the scheduler records it and its event
 * (engines/finance/overdue.ts).
 */
export const INVOICE_LIFECYCLE = defineStateMachine({
  object: "Invoice",
  param: "status",
  states: INVOICE_STATUSES,
  transitions: TRANSITIONS,
  finalEditable: ["metadata", "description"],
  stamps: { open: "issued_at", paid: "paid_at", void: "voided_at" },
  events: {
    entered: {
      open: { type: "invoice.sent", description: "An invoice was finalized and sent (became open)." },
      paid: { type: "invoice.paid", description: "An invoice was paid in full." },
      void: { type: "invoice.voided", description: "An invoice was voided." },
    },
    timed: {
      overdue: {
        type: "invoice.overdue",
        description: "An open invoice passed its due date unpaid (emitted once).",
      },
    },
  },
});

export function canTransition(from: InvoiceStatus, to: InvoiceStatus): boolean {
  return INVOICE_LIFECYCLE.canMove(from, to);
}

/**
 * The status a caller sees: an open invoice whose due date has passed is overdue
 * at request time, whether or not the scheduler has recorded it yet.
 */
export function effectiveStatus(stored: InvoiceStatus, dueDate: string, today: string): InvoiceStatus {
  return stored === "open" && dueDate < today ? "overdue" : stored;
}

/** Whole days between the due date and today; 0 unless overdue. */
export function daysOverdue(status: InvoiceStatus, dueDate: string, today: string): number {
  if (status !== "overdue") return 0;
  // Date-only ISO strings parse as UTC midnight (ECMA-262 Date Time String Format).
  const ms = Date.parse(today) - Date.parse(dueDate);
  return Math.max(0, Math.round(ms / 86_400_000));
}

const LineItemInputSchema = z
  .object({
    product_id: idOf("prod").nullish(),
    description: text(500).optional(),
    quantity: AmountSchema,
    unit_price: AmountSchema,
  })
  .strict();

const LineItemSchema = z.object({
  product_id: z.string().nullable(),
  description: z.string().nullable(),
  quantity: z.number(),
  unit_price: z.number(),
  amount: z.number(),
});
/** A line item as `line_items` stores it (priced here, exact decimals as strings). */
type StoredLineItem = {
  product_id: string | null;
  description: string | null;
  quantity: string;
  unit_price: string;
  amount: string;
};

/** An `invoices` row as the store returns it (migrations 0002, 0008). */
export interface InvoiceRow extends ResourceRow {
  number: string;
  client: string;
  contact_id: string | null;
  /** numeric: exact, as a string */
  amount: string;
  amount_paid: string;
  /** char(3) */
  currency: string;
  status: InvoiceStatus;
  /** date: `YYYY-MM-DD` */
  due_date: string;
  description: string | null;
  /** jsonb, written only by this file (`pricedLineItems`) */
  line_items: StoredLineItem[];
  issued_at: Date | null;
  paid_at: Date | null;
  voided_at: Date | null;
}

export const InvoiceSchema = z
  .object({
    id: z.string().meta({ example: "inv_3kTqZ9" }),
    object: z.literal("invoice"),
    number: z.string(),
    client: z.string(),
    contact_id: z.string().nullable(),
    amount: z.number(),
    amount_paid: z.number().meta({ description: "Sum of the payments recorded against it" }),
    amount_remaining: z.number().meta({ description: "What is still owed; 0 once paid or void" }),
    currency: z.string(),
    status: z.enum(INVOICE_STATUSES),
    due_date: z.string(),
    days_overdue: z.number().int().min(0),
    description: z.string().nullable(),
    line_items: z.array(LineItemSchema),
    issued_at: z.string().nullable(),
    paid_at: z.string().nullable(),
    voided_at: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Invoice" });
export type Invoice = z.infer<typeof InvoiceSchema>;

const invoiceFields = {
  number: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._/-]{1,64}$/, "must be 1-64 of A-Z a-z 0-9 . _ / -"),
  client: text(200),
  contact_id: idOf("con").nullish(),
  amount: AmountSchema,
  currency: CurrencySchema,
  due_date: DateSchema,
  description: z.string().max(2000).nullish(),
  line_items: z.array(LineItemInputSchema).max(250),
  metadata: MetadataSchema,
};

export const InvoiceCreateSchema = z
  .object({
    ...invoiceFields,
    number: invoiceFields.number.optional(),
    amount: invoiceFields.amount.optional(),
    line_items: invoiceFields.line_items.optional(),
    metadata: invoiceFields.metadata.optional(),
    status: z.enum(["draft", "open"]).optional(),
  })
  .strict()
  .refine((v) => v.amount !== undefined || (v.line_items?.length ?? 0) > 0, {
    message: "amount is required unless line_items are given",
    path: ["amount"],
  });
export type InvoiceCreate = z.infer<typeof InvoiceCreateSchema>;

export const InvoiceUpdateSchema = z
  .object({ ...invoiceFields, status: z.enum(SETTABLE_STATUSES) })
  .partial()
  .strict();
export type InvoiceUpdate = z.infer<typeof InvoiceUpdateSchema>;

type LineItemInput = z.infer<typeof LineItemInputSchema>;

function pricedLineItems(items: LineItemInput[]): StoredLineItem[] {
  return items.map((item) => ({
    product_id: item.product_id ?? null,
    description: item.description ?? null,
    quantity: item.quantity,
    unit_price: item.unit_price,
    amount: multiplyDecimals(item.quantity, item.unit_price),
  }));
}

/**
 * The amount, exactly: the sum of the line items when there are any. A given
 * amount that disagrees with them is refused rather than silently replaced.
 */
function reconcileAmount(
  amount: string | undefined,
  items: StoredLineItem[] | undefined,
): string | undefined {
  if (!items || items.length === 0) return amount;
  const total = addDecimals(items.map((item) => item.amount));
  if (amount !== undefined && compareDecimals(amount, total) !== 0) {
    throw new AppError("validation_failed", "amount does not equal the sum of line_items", {
      errors: [{ param: "amount", code: "amount_mismatch", message: `line_items total ${total}` }],
    });
  }
  return total;
}

async function checkReferences(
  input: { contact_id?: string | null; line_items?: LineItemInput[] },
  ctx: RuleContext,
) {
  if (input.contact_id) await assertReference(ctx, "contacts", input.contact_id, "contact_id");
  for (const [index, item] of (input.line_items ?? []).entries()) {
    if (item.product_id)
      await assertReference(ctx, "products", item.product_id, `line_items[${index}].product_id`);
  }
}

export const invoices: ResourceDefinition<Invoice, InvoiceCreate, InvoiceUpdate, InvoiceRow> = {
  name: "invoices",
  object: "invoice",
  prefix: "inv",
  engine: "finance",
  schemas: { object: InvoiceSchema, create: InvoiceCreateSchema, update: InvoiceUpdateSchema },
  lifecycle: INVOICE_LIFECYCLE,
  columns: {
    number: "text",
    client: "text",
    contact_id: "text",
    amount: "numeric",
    // Moved only by payments (engines/finance/payments.ts); written here so a create is predicted whole.
    amount_paid: "numeric",
    currency: "text",
    status: "text",
    due_date: "date",
    description: "text",
    line_items: "jsonb",
    issued_at: "timestamptz",
    paid_at: "timestamptz",
    voided_at: "timestamptz",
  },
  sorts: {
    created_at: "created_at",
    updated_at: "updated_at",
    due_date: "due_date",
    amount: "amount",
    number: "number",
  },
  search: ["client", "number", "description"],
  filters: {
    status: {
      kind: "custom",
      values: INVOICE_STATUSES,
      columns: ["status", "due_date"],
      // `overdue` and `open` depend on today's date, so they are decided here, not stored.
      apply(values, where, ctx) {
        let today: string | undefined;
        const todayParam = () => (today ??= where.bind(ctx.today));
        const branches = [...new Set(values)].flatMap((status): Branch[] => {
          if (status === "overdue") {
            return [
              { sql: "status = 'overdue'" },
              // Few: the scheduler marks these overdue every five minutes.
              { sql: `status = 'open' AND due_date < ${todayParam()}::date`, few: true },
            ];
          }
          if (status === "open") return [{ sql: `status = 'open' AND due_date >= ${todayParam()}::date` }];
          return [{ sql: `status = ${where.bind(status)}` }];
        });
        where.anyOf(branches);
      },
    },
    currency: { kind: "equals" },
    contact_id: { kind: "equals" },
    due_before: { kind: "date", column: "due_date", op: "<" },
    due_after: { kind: "date", column: "due_date", op: ">" },
  },
  async create(input, ctx) {
    await checkReferences(input, ctx);
    const items = input.line_items ? pricedLineItems(input.line_items) : undefined;
    const status = input.status ?? "open";
    return {
      number: input.number ?? (await nextInvoiceNumber(ctx)),
      client: input.client,
      contact_id: input.contact_id ?? null,
      amount: reconcileAmount(input.amount, items),
      amount_paid: "0",
      currency: input.currency,
      status,
      due_date: input.due_date,
      description: input.description ?? null,
      line_items: items ?? [],
      issued_at: status === "open" ? ctx.now : null,
      metadata: input.metadata ?? {},
    };
  },
  async update(row, patch, ctx) {
    const current = effectiveStatus(row.status, row.due_date, ctx.today);
    const transition = patch.status ? INVOICE_LIFECYCLE.move(current, patch.status, ctx.now) : {};
    INVOICE_LIFECYCLE.assertEditable(current, patch);
    await checkReferences(patch, ctx);
    const items = patch.line_items ? pricedLineItems(patch.line_items) : undefined;
    const amount = items ? reconcileAmount(patch.amount, items) : patch.amount;
    if (amount !== undefined && !items && row.line_items.length > 0) {
      throw new AppError("validation_failed", "amount follows line_items; change the line items instead", {
        errors: [
          { param: "amount", code: "amount_from_line_items", message: "send line_items with the new amount" },
        ],
      });
    }
    if (amount !== undefined && compareDecimals(amount, row.amount_paid) < 0) {
      throw new AppError("validation_failed", `amount is below the ${row.amount_paid} already paid`, {
        errors: [{ param: "amount", code: "amount_below_paid", message: "delete payments first" }],
      });
    }
    if (patch.currency !== undefined && patch.currency !== row.currency.trim()) {
      if (compareDecimals(row.amount_paid, "0") > 0) {
        throw new AppError("validation_failed", "The invoice has payments; its currency cannot change", {
          errors: [{ param: "currency", code: "currency_locked", message: "the invoice has payments" }],
        });
      }
    }
    return {
      number: patch.number,
      client: patch.client,
      contact_id: patch.contact_id,
      amount,
      currency: patch.currency,
      due_date: patch.due_date,
      description: patch.description,
      line_items: items,
      metadata: mergeMetadata(row.metadata, patch.metadata),
      ...transition,
    };
  },
  // Stripe's rule: only drafts are deleted; an issued invoice is voided, so its record stays.
  beforeDelete(row, ctx) {
    const status = effectiveStatus(row.status, row.due_date, ctx.today);
    if (status !== "draft") {
      throw new AppError(
        "invalid_state_transition",
        `Invoice is ${status}; only drafts can be deleted (void it instead)`,
      );
    }
  },
  render: (row, { today }) => renderInvoice(row, today),
  counts: { table: "invoice_counts", columns: ["status", "due_date"] },
  // Not a move: a payment that leaves the status as it was (the lifecycle's events follow, and
  // there are none then). One that settles the invoice is `invoice.paid`, the lifecycle's.
  events: {
    types: [
      {
        type: "invoice.partially_paid",
        description: "A payment was recorded against an invoice without settling it.",
      },
    ],
    derive(before, after) {
      const partly = before && after.status !== "paid" && after.amount_paid > before.amount_paid;
      return partly ? ["invoice.partially_paid"] : [];
    },
  },
};

function amountRemaining(status: InvoiceStatus, amount: string, paid: string): number {
  if (status === "paid" || status === "void") return 0;
  return Number(subtractDecimals(String(amount), String(paid)));
}

export function renderInvoice(row: InvoiceRow, today: string): Invoice {
  const dueDate = row.due_date;
  const status = effectiveStatus(row.status, dueDate, today);
  // Spelled out, not `...baseFields(row)`: V8 builds a literal with a spread and this
  // many further keys as a slow dictionary object (6× slower to render and serialize).
  return {
    id: row.id,
    object: "invoice",
    created_at: rfc(row.created_at),
    updated_at: rfc(row.updated_at),
    number: row.number,
    client: row.client,
    contact_id: row.contact_id ?? null,
    amount: Number(row.amount),
    amount_paid: Number(row.amount_paid),
    amount_remaining: amountRemaining(status, row.amount, row.amount_paid),
    currency: row.currency.trim(),
    status,
    due_date: dueDate,
    days_overdue: daysOverdue(status, dueDate, today),
    description: row.description ?? null,
    line_items: row.line_items.map((item) => ({
      product_id: item.product_id,
      description: item.description,
      quantity: Number(item.quantity),
      unit_price: Number(item.unit_price),
      amount: Number(item.amount),
    })),
    issued_at: rfcOrNull(row.issued_at),
    paid_at: rfcOrNull(row.paid_at),
    voided_at: rfcOrNull(row.voided_at),
    metadata: row.metadata,
  };
}
