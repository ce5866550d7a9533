import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { money } from "../../sync/tools/resources.ts";
import { createHarness, type Harness } from "./builtin/harness.ts";
import { createTruth, expectRead, invoiceTexts, plural, type Truth } from "./builtin/truth.ts";

/**
 * The built-in planner on money received, invoices by status and client, one invoice by its
 * number, the top clients, payments and products; each expected figure is computed with SQL.
 */

interface Case {
  phrase: string;
  expected: (t: Truth, h: Harness) => Promise<string[]>;
}

let h: Harness;
let truth: Truth;

beforeAll(async () => {
  h = await createHarness();
  truth = createTruth(h);
});
afterAll(async () => {
  await h.dispose();
});

const cases = (phrases: readonly string[], expected: Case["expected"]): Case[] =>
  phrases.map((phrase) => ({ phrase, expected }));

describe("revenue in a period", () => {
  const received =
    (from: string, to: string, none: string): Case["expected"] =>
    async (t) => {
      const totals = await t.paymentTotals(from, to);
      return totals.count === 0 ? [none] : [...totals.money, plural(totals.count, "payment")];
    };
  const lastMonth = received("2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z", "No payments");
  const thisYear = received("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z", "No payments");
  const thisMonth = received("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z", "No payments");
  const rolling = (days: number) =>
    received(
      new Date(Date.parse("2026-03-18T10:00:00Z") - days * 86_400_000).toISOString(),
      "2099-01-01",
      "No payments",
    );
  const all: Case[] = [
    ...cases(
      [
        "revenue last month",
        "what did we earn last month?",
        "how much money came in last month",
        "Revenue in February 2026",
      ],
      lastMonth,
    ),
    ...cases(
      [
        "how much did we collect this year?",
        "cash collected year to date",
        "income this year",
        "how much have we been paid since January",
      ],
      thisYear,
    ),
    ...cases(
      ["what did we receive this month", "total revenue this month", "payments received this month"],
      thisMonth,
    ),
    ...cases(["income in the last 30 days", "revenue", "how much have we collected lately"], rolling(30)),
    ...cases(["payments received in the past 60 days", "what came in over the last 60 days?"], rolling(60)),
    ...cases(
      ["how much was paid to us in January", "revenue in january"],
      received("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "No payments"),
    ),
    ...cases(
      ["how much did we bring in last week?"],
      received("2026-03-09T00:00:00Z", "2026-03-16T00:00:00Z", "No payments were received last week"),
    ),
  ];
  it.each(all)("$phrase", async ({ phrase, expected }) => {
    expectRead(await h.ask(phrase), await expected(truth, h), phrase);
  });

  it.each([
    ["how much has Helios Energy paid us?", "Helios Energy"],
    ["what has Juniper Health paid so far", "Juniper Health"],
    ["did Acme Logistics pay?", "Acme Logistics"],
  ])("%s", async (phrase, client) => {
    const paid = await truth.invoiceTotals(
      "amount_paid",
      "client = $3 AND s IN ('open', 'overdue', 'paid')",
      [client],
    );
    expectRead(await h.ask(phrase), [client, ...paid.money], phrase);
  });
});

describe("invoices by status, currency and client", () => {
  const listTexts =
    (where: string, params: unknown[] = [], kind = "invoice"): Case["expected"] =>
    async (t) => {
      const rows = await t.invoices(where, params);
      const amount = await t.invoiceTotals("amount", where, params);
      return [plural(rows.length, kind), ...invoiceTexts(rows, amount.money)];
    };
  const all: Case[] = [
    ...cases(
      ["show draft invoices", "list drafts invoices", "which invoices are still drafts?"],
      listTexts("s = 'draft'", [], "draft invoice"),
    ),
    ...cases(
      ["list paid invoices", "settled invoices", "which invoices have been paid?"],
      listTexts("s = 'paid'", [], "paid invoice"),
    ),
    ...cases(["void invoices", "cancelled invoices"], listTexts("s = 'void'", [], "void invoice")),
    ...cases(["open invoices"], listTexts("s = 'open'", [], "open invoice")),
    ...cases(["invoices in USD", "show me all USD invoices"], listTexts("currency = 'USD'")),
    ...cases(
      [
        "list the invoices of Acme Logistics",
        "Acme Logistics invoices",
        "show me acme logistics's invoices",
        "invoices for Acme Logistcs",
      ],
      listTexts("client = 'Acme Logistics'"),
    ),
    ...cases(
      ["Helios Energy's invoices", "bills for Helios", "what did Helios buy?"],
      listTexts("client = 'Helios Energy'"),
    ),
  ];
  it.each(all)("$phrase", async ({ phrase, expected }) => {
    expectRead(await h.ask(phrase), await expected(truth, h), phrase);
  });

  it.each(["how many invoices do we have?", "number of invoices", "count invoices"])("%s", async (phrase) => {
    const total = await truth.count("invoices");
    const rows = await h.sql<{ s: string; n: number }>(
      "SELECT CASE WHEN status = 'open' AND due_date < $2::date THEN 'overdue' ELSE status END AS s, count(*)::int AS n FROM invoices WHERE org_id = $1 GROUP BY 1",
      [h.today],
    );
    expectRead(
      await h.ask(phrase),
      [plural(total, "invoice"), ...rows.map((row) => `${row.s}: **${row.n}**`)],
      phrase,
    );
  });

  it("how many paid invoices: the count of that status", async () => {
    const paid = await truth.invoices("s = 'paid'");
    expectRead(await h.ask("how many paid invoices are there?"), [plural(paid.length, "paid invoice")]);
  });
});

describe("one invoice by its number", () => {
  const detail =
    (number: string): Case["expected"] =>
    async (t) => {
      const [row] = await t.invoices("number = $3", [number]);
      return [
        row!.number,
        row!.client,
        row!.status,
        money(row!.amount, row!.currency),
        money(row!.status === "paid" || row!.status === "void" ? "0" : row!.owed, row!.currency),
        row!.due_date,
      ];
    };
  const all: Case[] = [
    ...cases(
      ["show invoice INV-000030", "INV-000030?", "Is INV-000030 paid?", "look at inv-30"],
      detail("INV-000030"),
    ),
    ...cases(["details of invoice 12", "what's the status of invoice #12", "inv 12"], detail("INV-000012")),
    ...cases(["tell me about inv-000019", "when is invoice 19 due?"], detail("INV-000019")),
    ...cases(["how much is left on INV-000009", "invoice number 9"], detail("INV-000009")),
    ...cases(["what about INV-000002"], detail("INV-000002")),
  ];
  it.each(all)("$phrase", async ({ phrase, expected }) => {
    expectRead(await h.ask(phrase), await expected(truth, h), phrase);
  });

  it("several numbers: each invoice", async () => {
    const asked = await h.ask("show invoices 3 and 4");
    expectRead(asked, [...(await detail("INV-000003")(truth, h)), ...(await detail("INV-000004")(truth, h))]);
  });

  it("an unknown number: says it does not exist", async () => {
    const asked = await h.ask("show invoice INV-000999");
    expect(asked.reply).toContain("couldn't find an invoice numbered **INV-000999**");
    expect(asked.proposals).toHaveLength(0);
  });
});

describe("top clients by revenue", () => {
  const top =
    (limit: number, since?: string, until?: string): Case["expected"] =>
    async (_t, harness) => {
      const params: unknown[] = [];
      let where = "status <> 'void'";
      if (since) where += ` AND created_at >= $${params.push(since) + 1}::date`;
      if (until) where += ` AND created_at < $${params.push(until) + 1}::date`;
      const rows = await harness.sql<{ client: string; currency: string; revenue: string }>(
        `SELECT client, trim(currency) AS currency, sum(amount_paid)::text AS revenue FROM invoices
        WHERE org_id = $1 AND ${where} GROUP BY client, currency HAVING sum(amount_paid) > 0
        ORDER BY sum(amount_paid) DESC, client LIMIT ${limit}`,
        params,
      );
      return rows.map((row, index) => `${index + 1}. **${row.client}**: ${money(row.revenue, row.currency)}`);
    };
  const all: Case[] = [
    ...cases(
      ["top clients", "best customers by revenue", "rank clients by revenue", "largest accounts"],
      top(5),
    ),
    // A superlative asked of one ("which client"): the one at the top (issue 34), not the whole list.
    ...cases(["which client paid the most?"], top(1)),
    ...cases(["who are our top 3 clients?", "top three customers"], top(3)),
    ...cases(["top 5 customers this year", "biggest clients this year"], top(5, "2026-01-01", "2027-01-01")),
  ];
  it.each(all)("$phrase", async ({ phrase, expected }) => {
    expectRead(await h.ask(phrase), await expected(truth, h), phrase);
  });
});

describe("payments and products", () => {
  it.each([
    "list payments",
    "how many payments have we recorded?",
    "show recent payments",
    "payment transactions",
  ])("%s", async (phrase) => {
    const totals = await truth.paymentTotals("2000-01-01", "2099-01-01");
    expectRead(await h.ask(phrase), [plural(totals.count, "payment"), ...totals.money], phrase);
  });

  it.each([
    "how many products do we have?",
    "list our products",
    "what do we sell?",
    "show the product catalogue",
    "price list",
  ])("%s", async (phrase) => {
    const rows = await h.sql<{ name: string; price: string; currency: string }>(
      "SELECT name, price::text AS price, trim(currency) AS currency FROM products WHERE org_id = $1",
    );
    const texts = rows.flatMap((row) => [row.name, money(row.price, row.currency)]);
    expectRead(await h.ask(phrase), [plural(rows.length, "product"), ...texts], phrase);
  });
});
