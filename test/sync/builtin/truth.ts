import { expect } from "vitest";
import { money } from "../../../sync/tools/resources.ts";
import type { Asked, Harness } from "./harness.ts";

/**
 * The data's true answers, computed straight from the tables with SQL (not through the tools
 * the planner calls), and the checks the tests make of a reply against them.
 */

export const DAY_MS = 86_400_000;

export interface InvoiceRow {
  number: string;
  client: string;
  currency: string;
  due_date: string;
  status: string;
  owed: string;
  amount: string;
  amount_paid: string;
}

/** The status a caller sees: an open invoice past its due date is overdue ($2 is today). */
const STATUS = "CASE WHEN status = 'open' AND due_date < $2::date THEN 'overdue' ELSE status END";

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export function createTruth(h: Harness) {
  const sql = <T>(text: string, params: unknown[]) => h.sql<T>(text, params);
  /** `where` may use `s` (the status a caller sees) and `$3…` for `params`. */
  const invoices = (where: string, params: unknown[] = []) =>
    sql<InvoiceRow>(
      `SELECT number, client, trim(currency) AS currency, due_date::text AS due_date, s AS status,
              (amount - amount_paid)::text AS owed, amount::text AS amount, amount_paid::text AS amount_paid
         FROM (SELECT *, ${STATUS} AS s FROM invoices WHERE org_id = $1) i
        WHERE ${where} ORDER BY due_date, number`,
      [h.today, ...params],
    );
  const totals = async (table: string, column: string, where: string, params: unknown[]) => {
    const rows = await sql<{ currency: string; total: string; n: number }>(
      `SELECT trim(currency) AS currency, sum(${column})::text AS total, count(*)::int AS n
         FROM (SELECT *, ${table === "invoices" ? STATUS : "$2::date"} AS s FROM ${table} WHERE org_id = $1) t
        WHERE ${where} GROUP BY 1 ORDER BY 1`,
      [h.today, ...params],
    );
    return {
      money: rows.map((row) => money(row.total, row.currency)),
      count: rows.reduce((a, r) => a + r.n, 0),
    };
  };
  return {
    invoices,
    invoiceTotals: (column: string, where: string, params: unknown[] = []) =>
      totals("invoices", column, where, params),
    paymentTotals: (from: string, to: string) =>
      totals("payments", "amount", "received_at >= $3::timestamptz AND received_at < $4::timestamptz", [
        from,
        to,
      ]),
    dealTotals: (where: string, params: unknown[] = []) => totals("deals", "value", where, params),
    names: async (table: string, where: string, params: unknown[] = [], column = "name") =>
      (
        await sql<{ name: string }>(
          `SELECT ${column} AS name FROM ${table} WHERE org_id = $1 AND ${where} ORDER BY ${column}`,
          params,
        )
      ).map((row) => row.name),
    count: async (table: string, where = "true", params: unknown[] = []) =>
      (
        await sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1 AND ${where}`,
          params,
        )
      )[0]!.n,
    one: async <T = Record<string, unknown>>(table: string, where: string, params: unknown[] = []) =>
      (await sql<T>(`SELECT * FROM ${table} WHERE org_id = $1 AND ${where} LIMIT 1`, params))[0]!,
  };
}
export type Truth = ReturnType<typeof createTruth>;

/**
 * The invoice numbers a capped list must show: all when there are ten or fewer, else the
 * first ten by due date (those tied with the tenth may be shown in either order, so only the
 * ones before it are required), and "…and N more".
 */
export function listedNumbers(rows: readonly InvoiceRow[]): { shown: string[]; more?: string } {
  if (rows.length <= 10) return { shown: rows.map((row) => row.number) };
  const tenth = rows[9]!.due_date;
  const shown = rows.filter((row) => row.due_date < tenth).map((row) => row.number);
  return { shown, more: `and ${rows.length - 10} more` };
}

/** A read answered: every expected text in the reply, emitted whole, nothing proposed. */
export function expectRead(asked: Asked, texts: readonly string[], phrase = ""): void {
  for (const text of texts) expect(asked.reply, `${phrase} → should mention ${text}`).toContain(text);
  expect(asked.proposals, phrase).toHaveLength(0);
  expect(asked.emitted).toBe(asked.reply);
  expect(asked.outcome.failed, `${phrase} failed: ${asked.reply}`).toBeFalsy();
}

/** An invoice list checked against rows: the count, the money still owed, the numbers shown. */
export function invoiceTexts(rows: readonly InvoiceRow[], owed: readonly string[]): string[] {
  const { shown, more } = listedNumbers(rows);
  return [...owed, ...shown, ...(more ? [more] : [])];
}
