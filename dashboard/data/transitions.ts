import { html } from "hono/html";
import {
  CANDIDATE_LIFECYCLE,
  DEAL_LIFECYCLE,
  INVOICE_LIFECYCLE,
  PAYMENT_METHODS,
  type CandidateStatus,
  type DealStage,
  type InvoiceStatus,
} from "../../engines/index.ts";
import { csrfField, fieldError, type Html } from "../layout.ts";
import { errorsByField, type Signed } from "../parts.ts";
import { flag, recordHref, type Item, type Registry } from "./common.ts";

/**
 * State transitions as buttons: which moves a resource's record offers (the resource's own state
 * machine says which are allowed from its current state) and how each is made — the same service
 * call the API makes for it, so every rule and event is the service's. Only these resources have
 * a lifecycle; any other resource's state is changed, if at all, in its edit form.
 */

export interface Move {
  to: string;
  label: string;
  danger?: boolean;
}

/** What a move is made with: the record, the posted form and the user making it. */
export interface MoveRequest {
  registry: Registry;
  signed: Signed;
  item: Item;
  to: string;
  form: Record<string, string>;
}

/** A move's outcome: done, or the form's fields that need a fix (kept with the entered text). */
export type MoveResult = { done: true } | { done: false; errors: Record<string, string> };

export interface Lifecycle {
  /** The field holding the state (`status`, `stage`): an edit form leaves it to the buttons. */
  field: string;
  moves: readonly Move[];
  canMove(from: string, to: string): boolean;
  /** Controls a move asks for beside its button (the payment "Record payment" records). */
  inputs?(item: Item, to: string, values: Record<string, string>, errors: Record<string, string>): Html;
  /** Makes the move; by default an update of the state field, as `PATCH /v1/<resource>/<id>` does. */
  perform?(request: MoveRequest): Promise<MoveResult>;
}

/** The state of `service`'s record `id` set to `to` (plus `extra`) through the resource's service. */
async function updateState(request: MoveRequest, field: string, extra: Record<string, unknown> = {}) {
  const service = request.registry.byPrefix(request.item.id)!;
  const parsed = service.definition.schemas.update.safeParse({ [field]: request.to, ...extra });
  if (!parsed.success) return { done: false as const, errors: errorsByField(parsed.error) };
  await service.update(request.signed.session.orgId, request.item.id, parsed.data);
  return { done: true as const };
}

/**
 * "Record payment" records a payment for what is still owed (or the amount entered), as
 * `POST /v1/payments` does: the payment settles the invoice, and the invoice's events follow from
 * it. An invoice with nothing left to pay is marked paid as `PATCH {status: "paid"}` would.
 */
async function recordPayment(request: MoveRequest): Promise<MoveResult> {
  if (Number(request.item.amount_remaining) <= 0) return updateState(request, "status");
  const payments = request.registry.services.get("payments")!;
  const parsed = payments.definition.schemas.create.safeParse({
    invoice_id: request.item.id,
    amount: request.form.amount ?? "",
    method: request.form.method ?? "",
    ...(request.form.reference?.trim() ? { reference: request.form.reference } : {}),
  });
  if (!parsed.success) return { done: false, errors: errorsByField(parsed.error) };
  await payments.create(request.signed.session.orgId, parsed.data);
  return { done: true };
}

function paymentInputs(item: Item, values: Record<string, string>, errors: Record<string, string>): Html {
  if (Number(item.amount_remaining) <= 0) return html``;
  const amount = values.amount ?? String(item.amount_remaining);
  const method = values.method ?? "bank_transfer";
  return html`<div class="move-inputs">
    <label for="pay-amount">Amount (${String(item.currency)})</label>
    <input type="text" inputmode="decimal" id="pay-amount" name="amount" value="${amount}" />
    ${fieldError(errors, "amount")}
    <label for="pay-method">Method</label>
    <select id="pay-method" name="method">
      ${PAYMENT_METHODS.map(
        (choice) => html`<option value="${choice}" ${flag(choice === method, "selected")}>${choice}</option>`,
      )}
    </select>
    ${fieldError(errors, "method")}
    <label for="pay-reference">Reference <span class="muted">(optional)</span></label>
    <input type="text" id="pay-reference" name="reference" value="${values.reference ?? ""}" />
    ${fieldError(errors, "reference")}
  </div>`;
}

const LIFECYCLES: Record<string, Lifecycle> = {
  invoices: {
    field: "status",
    moves: [
      { to: "open", label: "Issue" },
      { to: "paid", label: "Record payment" },
      { to: "void", label: "Void", danger: true },
    ],
    canMove: (from, to) => INVOICE_LIFECYCLE.canMove(from as InvoiceStatus, to as InvoiceStatus),
    inputs: (item, to, values, errors) => (to === "paid" ? paymentInputs(item, values, errors) : html``),
    perform: (request) => (request.to === "paid" ? recordPayment(request) : updateState(request, "status")),
  },
  deals: {
    field: "stage",
    moves: [
      { to: "lead", label: "Move to lead" },
      { to: "qualified", label: "Move to qualified" },
      { to: "proposal", label: "Move to proposal" },
      { to: "won", label: "Mark won" },
      { to: "lost", label: "Mark lost", danger: true },
    ],
    canMove: (from, to) => DEAL_LIFECYCLE.canMove(from as DealStage, to as DealStage),
  },
  candidates: {
    field: "status",
    moves: [
      { to: "screening", label: "Move to screening" },
      { to: "interview", label: "Move to interview" },
      { to: "offer", label: "Make an offer" },
      { to: "hired", label: "Hire" },
      { to: "rejected", label: "Reject", danger: true },
    ],
    canMove: (from, to) => CANDIDATE_LIFECYCLE.canMove(from as CandidateStatus, to as CandidateStatus),
  },
  skills: {
    field: "status",
    moves: [{ to: "verified", label: "Verify" }],
    // skills.ts: `claimed → verified`; a verification is never taken back.
    canMove: (from, to) => from === "claimed" && to === "verified",
    // Who verified it is the signed-in user, as `verified_by` records.
    perform: (request) => updateState(request, "status", { verified_by: request.signed.session.user.name }),
  },
};

export function lifecycleOf(resource: string): Lifecycle | undefined {
  return LIFECYCLES[resource];
}

/** The moves allowed from the record's current state. */
export function allowedMoves(lifecycle: Lifecycle, item: Item): Move[] {
  const current = String(item[lifecycle.field]);
  return lifecycle.moves.filter((move) => lifecycle.canMove(current, move.to));
}

export function performMove(lifecycle: Lifecycle, request: MoveRequest): Promise<MoveResult> {
  return lifecycle.perform ? lifecycle.perform(request) : updateState(request, lifecycle.field);
}

/** A move that failed, shown again: which one, what was entered, what needs a fix. */
export interface MoveState {
  to: string;
  values: Record<string, string>;
  errors: Record<string, string>;
}

/** The record's move buttons, each its own POST form (with the controls it asks for). */
export function movesView(
  registry: Registry,
  signed: Signed,
  lifecycle: Lifecycle,
  item: Item,
  failed?: MoveState,
): Html {
  const moves = allowedMoves(lifecycle, item);
  const service = registry.byPrefix(item.id)!;
  // A final record offers no moves, but a forged one's refusal is still shown.
  if (moves.length === 0 && !failed) return html``;
  return html`<section class="card moves" aria-labelledby="moves-title">
    <h2 id="moves-title">Actions</h2>
    ${failed?.errors._form ? html`<p class="error" role="alert">${failed.errors._form}</p>` : ""}
    <div class="move-list">
      ${moves.map((move) => {
        const mine = failed?.to === move.to ? failed : undefined;
        return html`<form method="post" action="${recordHref(service, item.id)}/move" class="move">
          ${csrfField(signed)}
          <input type="hidden" name="to" value="${move.to}" />
          ${lifecycle.inputs?.(item, move.to, mine?.values ?? {}, mine?.errors ?? {}) ?? ""}
          <button type="submit" class="${move.danger ? "danger" : ""}">${move.label}</button>
        </form>`;
      })}
    </div>
  </section>`;
}
