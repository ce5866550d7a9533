import { z } from "zod";
import { AppError, compareDecimals } from "../../core/index.ts";
import { PAYMENT_METHODS } from "../../engines/finance/payments.ts";
import { DEAL_LIFECYCLE, DEAL_STAGES } from "../../engines/growth/deals.ts";
import type { StateMachine } from "../../engines/state-machine.ts";
import { CANDIDATE_LIFECYCLE, CANDIDATE_STATUSES } from "../../engines/talent/candidates.ts";
import { perResource, engineOf } from "./records.ts";
import {
  definitionOf,
  labelOf,
  money,
  ResourceNameSchema,
  serviceOf,
  type ResourceName,
} from "./resources.ts";
import type { PreparedChange, ToolContext, WriteTool } from "./types.ts";

/**
 * The write tools. `prepare` reads, checks and describes; it never changes anything. `apply`
 * runs at approval, through the same engine services as the REST API (validation, state
 * machines, events in the same transaction), under the approving credential's organization.
 */

type Fields = Record<string, unknown>;

function validated(
  ctx: ToolContext,
  resource: ResourceName,
  kind: "create" | "update",
  fields: Fields,
): Fields {
  const schema = definitionOf(ctx, resource).schemas[kind];
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "fields"}: ${issue.message}`)
      .join("; ");
    throw new AppError("validation_failed", `${resource} ${kind}: ${detail}`);
  }
  return parsed.data;
}

/** "name “Ada”, email ada@example.com": the fields a person would check, in the order given. */
function describeFields(fields: Fields): string {
  return Object.entries(fields)
    .filter(([key, value]) => key !== "metadata" && value !== undefined && value !== null)
    .map(([key, value]) => `${key.replace(/_/g, " ")} ${show(value)}`)
    .join(", ");
}

const CreateArgs = z
  .object({
    resource: ResourceNameSchema,
    fields: z.record(z.string(), z.unknown()).meta({ description: "The body POST /v1/<resource> takes" }),
  })
  .strict();
type CreateArgs = z.infer<typeof CreateArgs>;

export const createRecord = {
  name: "create_record",
  description:
    "Propose creating a record (contact, product, invoice with line_items, deal, communication, candidate, skill, payment) with the fields POST /v1/<resource> takes.",
  access: "write",
  ...perResource,
  parameters: CreateArgs,
  async prepare(ctx: ToolContext, args: CreateArgs): Promise<PreparedChange<CreateArgs>> {
    const fields = validated(ctx, args.resource, "create", args.fields);
    const object = definitionOf(ctx, args.resource).object;
    return {
      arguments: { ...args, fields },
      preview: `Create ${object}: ${describeFields(fields)}`,
      sources: [],
    };
  },
  async apply(ctx: ToolContext, args: CreateArgs) {
    return { object: await serviceOf(ctx, args.resource).create(ctx.orgId, args.fields) };
  },
} satisfies WriteTool<CreateArgs>;

const UpdateArgs = z
  .object({
    resource: ResourceNameSchema,
    id: z.string().max(64),
    fields: z
      .record(z.string(), z.unknown())
      .meta({ description: "The body PATCH /v1/<resource>/<id> takes" }),
  })
  .strict();
type UpdateArgs = z.infer<typeof UpdateArgs>;

export const updateRecord = {
  name: "update_record",
  description: "Propose changing fields of one record (the body PATCH /v1/<resource>/<id> takes).",
  access: "write",
  ...perResource,
  parameters: UpdateArgs,
  async prepare(ctx: ToolContext, args: UpdateArgs): Promise<PreparedChange<UpdateArgs>> {
    const fields = validated(ctx, args.resource, "update", args.fields);
    const current = await serviceOf(ctx, args.resource).get(ctx.orgId, args.id);
    const changes = Object.entries(fields)
      .filter(([key]) => key !== "metadata")
      .map(([key, value]) => `${key.replace(/_/g, " ")} ${show(current[key])} → ${show(value)}`);
    const object = definitionOf(ctx, args.resource).object;
    return {
      arguments: { ...args, fields },
      preview: `Change ${object} ${labelOf(args.resource, current)}: ${changes.join(", ") || "metadata"}`,
      sources: [{ object, id: args.id }],
    };
  },
  async apply(ctx: ToolContext, args: UpdateArgs) {
    return { object: await serviceOf(ctx, args.resource).update(ctx.orgId, args.id, args.fields) };
  },
} satisfies WriteTool<UpdateArgs>;

/** A field's value in a preview: text as is, anything else as JSON. */
function show(value: unknown): string {
  if (value === null || value === undefined) return "(none)";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** An invoice by id (`inv_…`) or number (`INV-000030`). */
async function invoiceOf(ctx: ToolContext, ref: string): Promise<Fields> {
  const service = serviceOf(ctx, "invoices");
  if (ref.startsWith("inv_")) return service.get(ctx.orgId, ref);
  const [row] = await ctx.store.query<{ id: string }>(
    "SELECT id FROM invoices WHERE org_id = $1 AND upper(number) = upper($2) LIMIT 1",
    [ctx.orgId, ref.trim()],
  );
  if (!row) throw new AppError("not_found", `No invoice numbered '${ref}'`);
  return service.get(ctx.orgId, row.id);
}

const invoiceLabel = (invoice: Fields) =>
  `${String(invoice.number)} (${String(invoice.client)}, ${money(String(invoice.amount), String(invoice.currency))})`;

const InvoiceArgs = z
  .object({ invoice: z.string().max(64).meta({ description: "Invoice id or number" }) })
  .strict();
type InvoiceArgs = z.infer<typeof InvoiceArgs>;

function invoiceStatusTool(name: string, status: "paid" | "void", verb: string, from: readonly string[]) {
  return {
    name,
    description: `Propose marking an invoice as ${status} (from ${from.join(" or ")}).`,
    access: "write",
    scopes: ["finance"],
    scopeOf: () => "finance",
    parameters: InvoiceArgs,
    async prepare(ctx: ToolContext, args: InvoiceArgs): Promise<PreparedChange<InvoiceArgs>> {
      const invoice = await invoiceOf(ctx, args.invoice);
      if (!from.includes(String(invoice.status))) {
        throw new AppError(
          "invalid_state_transition",
          `${String(invoice.number)} is ${String(invoice.status)}: it cannot be ${status === "paid" ? "marked paid" : "voided"}`,
        );
      }
      return {
        arguments: { invoice: String(invoice.id) },
        preview: `${verb} ${invoiceLabel(invoice)}${status === "paid" ? " as paid" : ""}`,
        sources: [{ object: "invoice", id: String(invoice.id) }],
      };
    },
    async apply(ctx: ToolContext, args: InvoiceArgs) {
      return {
        object: await serviceOf(ctx, "invoices").update(ctx.orgId, args.invoice, { status }),
      };
    },
  } satisfies WriteTool<InvoiceArgs>;
}

export const markInvoicePaid = invoiceStatusTool("mark_invoice_paid", "paid", "Mark", ["open", "overdue"]);
export const voidInvoice = invoiceStatusTool("void_invoice", "void", "Void", ["draft", "open", "overdue"]);

const PaymentArgs = z
  .object({
    invoice: z.string().max(64).meta({ description: "Invoice id or number" }),
    amount: z.number().positive().optional().meta({ description: "Default: what is still owed" }),
    method: z.enum(PAYMENT_METHODS).optional().meta({ description: "Default: bank_transfer" }),
    reference: z.string().max(200).optional(),
  })
  .strict();
type PaymentArgs = z.infer<typeof PaymentArgs>;

export const recordPayment = {
  name: "record_payment",
  description:
    "Propose recording a payment received against an invoice (the whole remaining amount unless given).",
  access: "write",
  scopes: ["finance"],
  scopeOf: () => "finance",
  parameters: PaymentArgs,
  async prepare(ctx: ToolContext, args: PaymentArgs): Promise<PreparedChange<PaymentArgs>> {
    const invoice = await invoiceOf(ctx, args.invoice);
    if (!["open", "overdue"].includes(String(invoice.status))) {
      throw new AppError(
        "invalid_state_transition",
        `${String(invoice.number)} is ${String(invoice.status)}: nothing is owed on it`,
      );
    }
    const amount = args.amount ?? Number(invoice.amount_remaining);
    const method = args.method ?? "bank_transfer";
    const currency = String(invoice.currency);
    if (compareDecimals(String(amount), String(invoice.amount_remaining)) > 0) {
      throw new AppError(
        "validation_failed",
        `${money(amount, currency)} is more than the ${money(String(invoice.amount_remaining), currency)} still owed on ${String(invoice.number)}`,
      );
    }
    return {
      arguments: {
        invoice: String(invoice.id),
        amount,
        method,
        ...(args.reference ? { reference: args.reference } : {}),
      },
      preview: `Record a ${money(amount, currency)} ${method.replace(/_/g, " ")} payment on ${invoiceLabel(invoice)}`,
      sources: [{ object: "invoice", id: String(invoice.id) }],
    };
  },
  async apply(ctx: ToolContext, args: PaymentArgs) {
    const body = {
      invoice_id: args.invoice,
      amount: args.amount,
      method: args.method,
      reference: args.reference,
    };
    return { object: await serviceOf(ctx, "payments").create(ctx.orgId, body) };
  },
} satisfies WriteTool<PaymentArgs>;

/** A field set to one of a lifecycle's values, described "from → to". */
function moveTool<const S extends readonly string[]>(options: {
  name: string;
  resource: ResourceName;
  field: string;
  values: S;
  description: string;
  /** The resource's lifecycle: a move it forbids (or to where it already is) is refused at once. */
  lifecycle: StateMachine<S[number]>;
}) {
  const Args = z.object({ id: z.string().max(64), [options.field]: z.enum(options.values) }).strict();
  type Args = z.infer<typeof Args>;
  return {
    name: options.name,
    description: options.description,
    access: "write",
    scopes: [engineOf(options.resource)],
    scopeOf: () => engineOf(options.resource),
    parameters: Args as z.ZodType<Args>,
    async prepare(ctx: ToolContext, args: Args): Promise<PreparedChange<Args>> {
      const record = await serviceOf(ctx, options.resource).get(ctx.orgId, String(args.id));
      const object = definitionOf(ctx, options.resource).object;
      const from = String(record[options.field]) as S[number];
      const to = String(args[options.field]) as S[number];
      if (from === to)
        throw new AppError("conflict", `${labelOf(options.resource, record)} is already ${to}`);
      options.lifecycle.assertMove(from, to);
      return {
        arguments: args,
        preview: `Move ${object} ${labelOf(options.resource, record)} from ${from} to ${to}`,
        sources: [{ object, id: String(record.id) }],
      };
    },
    async apply(ctx: ToolContext, args: Args) {
      const patch = { [options.field]: args[options.field] };
      return {
        object: await serviceOf(ctx, options.resource).update(ctx.orgId, String(args.id), patch),
      };
    },
  } satisfies WriteTool<Args>;
}

export const moveDeal = moveTool({
  name: "move_deal",
  resource: "deals",
  field: "stage",
  values: DEAL_STAGES,
  lifecycle: DEAL_LIFECYCLE,
  description: "Propose moving a deal to another stage (won only from proposal; won and lost are final).",
});

export const setCandidateStatus = moveTool({
  name: "set_candidate_status",
  resource: "candidates",
  field: "status",
  values: CANDIDATE_STATUSES,
  lifecycle: CANDIDATE_LIFECYCLE,
  description: "Propose moving a candidate to another status (one step forward, or rejected).",
});

const VerifyArgs = z.object({ id: z.string().max(64), verified_by: z.string().max(200).optional() }).strict();
type VerifyArgs = z.infer<typeof VerifyArgs>;

export const verifySkill = {
  name: "verify_skill",
  description: "Propose marking a candidate's claimed skill as verified.",
  access: "write",
  scopes: ["talent"],
  scopeOf: () => "talent",
  parameters: VerifyArgs,
  async prepare(ctx: ToolContext, args: VerifyArgs): Promise<PreparedChange<VerifyArgs>> {
    const skill = await serviceOf(ctx, "skills").get(ctx.orgId, args.id);
    if (skill.status === "verified")
      throw new AppError("conflict", `${String(skill.name)} is already verified`);
    const candidate = await serviceOf(ctx, "candidates").get(ctx.orgId, String(skill.candidate_id));
    return {
      arguments: args,
      preview: `Verify ${String(skill.name)} (${String(skill.level)}) for ${String(candidate.name)}${args.verified_by ? `, verified by ${args.verified_by}` : ""}`,
      sources: [
        { object: "skill", id: String(skill.id) },
        { object: "candidate", id: String(candidate.id) },
      ],
    };
  },
  async apply(ctx: ToolContext, args: VerifyArgs) {
    const patch = { status: "verified", ...(args.verified_by ? { verified_by: args.verified_by } : {}) };
    return { object: await serviceOf(ctx, "skills").update(ctx.orgId, args.id, patch) };
  },
} satisfies WriteTool<VerifyArgs>;
