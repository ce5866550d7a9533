import { isoDate } from "../../core/index.ts";
import type { Store } from "../../store/index.ts";
import { recordEvents } from "../events/outbox.ts";
import { INVOICE_LIFECYCLE, renderInvoice, type InvoiceRow } from "./invoices.ts";

const BATCH = 500;

/**
 * Records `overdue` on open invoices whose due date has passed and emits
 * `invoice.overdue` for each, once: the status change and its event commit
 * together, and an invoice already marked is never picked again. Reads already
 * show such invoices as overdue; this makes the change durable and announced.
 */
export async function markOverdueInvoices(store: Store, now: Date): Promise<number> {
  const today = isoDate(now);
  let total = 0;
  for (;;) {
    const marked = await store.transaction(async (tx) => {
      const rows = await tx.query<InvoiceRow>(
        `UPDATE invoices SET status = 'overdue', updated_at = $2::timestamptz
         WHERE id IN (
           SELECT id FROM invoices WHERE status = 'open' AND due_date < $1::date
           ORDER BY due_date, id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED
         )
         RETURNING *`,
        [today, now.toISOString()],
      );
      const byOrg = new Map<string, InvoiceRow[]>();
      for (const row of rows) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), row]);
      for (const [orgId, orgRows] of byOrg) {
        const type = INVOICE_LIFECYCLE.timedEvent("overdue");
        const events = orgRows.map((row) => ({ type, object: renderInvoice(row, today) }));
        await recordEvents(tx, orgId, now, events);
      }
      return rows.length;
    });
    total += marked;
    if (marked < BATCH) return total;
  }
}
