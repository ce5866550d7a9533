import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { money } from "../../sync/tools/resources.ts";
import { createHarness, type Harness } from "./builtin/harness.ts";
import { addDays, createTruth, expectRead, invoiceTexts, plural, type Truth } from "./builtin/truth.ts";

/**
 * The built-in planner on invoices by due date: overdue, falling due in a window, and what is
 * still owed, for all clients or one; each reply must carry the counts, the amounts per currency
 * and the invoice numbers the tables hold, computed here with SQL.
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

async function overdueTexts(t: Truth, where = "true", params: unknown[] = []): Promise<string[]> {
  const rows = await t.invoices(`s = 'overdue' AND ${where}`, params);
  const owed = await t.invoiceTotals("amount - amount_paid", `s = 'overdue' AND ${where}`, params);
  return [plural(rows.length, "overdue invoice"), ...invoiceTexts(rows, owed.money)];
}

describe("overdue invoices", () => {
  const phrases = [
    "Which invoices are overdue?",
    "show me overdue invoices",
    "list the late invoices",
    "what's overdue?",
    "Any invoices past due?",
    "which bills are past due",
    "How many invoices are overdue?",
    "how many overdue invoices do we have",
    "number of late invoices",
    "count the overdue bills",
    "How much is overdue?",
    "how much money is owed on overdue invoices?",
    "how much is owed on late invoices?",
    "overdue invoices please",
    "Could you show me the overdue invoices?",
    "I'd like to know which invoices are overdue",
    "can you tell me what's past due",
    "OVERDUE INVOICES",
    "overdue",
    "invoices overdue?",
    "late invoices?",
    "Which clients do we need to chase?",
    "who should we chase for payment?",
    "delinquent invoices",
    "past-due bills",
    "list every overdue invoice",
    "overdeu invoices",
    "which invocies are late",
    "hey, what is overdue right now?",
    "total of overdue invoices",
  ];
  it.each(cases(phrases, (t) => overdueTexts(t)))("$phrase", async ({ phrase, expected }) => {
    expectRead(await h.ask(phrase), await expected(truth, h), phrase);
  });

  it.each(["overdue invoices in USD", "which USD invoices are late?", "overdue invoices in dollars"])(
    "%s (one currency)",
    async (phrase) => {
      const asked = await h.ask(phrase);
      expectRead(asked, await overdueTexts(truth, "currency = 'USD'"), phrase);
      expect(asked.reply).not.toContain("EUR");
    },
  );

  it.each([
    "overdue invoices for Kestrel Robotics",
    "what's overdue for kestrel robotics?",
    "late invoices of Kestral Robotics",
  ])("%s (one client)", async (phrase) => {
    expectRead(await h.ask(phrase), await overdueTexts(truth, "client = 'Kestrel Robotics'"), phrase);
  });
});

describe("invoices falling due", () => {
  const dueTexts = (from: (today: string) => string, to: (today: string) => string): Case["expected"] => {
    return async (t, harness) => {
      const [start, end] = [from(harness.today), to(harness.today)];
      const where = "s = 'open' AND due_date >= $3::date AND due_date <= $4::date";
      const rows = await t.invoices(where, [start, end]);
      if (rows.length === 0) return ["No invoices falling due"];
      const owed = await t.invoiceTotals("amount - amount_paid", where, [start, end]);
      return [plural(rows.length, "invoice"), ...invoiceTexts(rows, owed.money)];
    };
  };
  const within = (days: number) =>
    dueTexts(
      (today) => today,
      (today) => addDays(today, days),
    );
  const all: Case[] = [
    ...cases(
      [
        "what's due in the next 14 days?",
        "invoices due within 14 days",
        "which invoices fall due in the next two weeks",
        "Invoices falling due in the coming 14 days",
      ],
      within(14),
    ),
    ...cases(
      ["upcoming invoices in the next 30 days", "bills due within 30 days", "what is due in 30 days?"],
      within(30),
    ),
    ...cases(
      ["anything due in the next 7 days?", "invoices due soon", "what's coming up for payment?"],
      within(7),
    ),
    ...cases(["invoices due in the next 60 days", "upcoming payments due over the next 60 days"], within(60)),
    ...cases(
      ["which invoices are due next week?", "invoices due next week"],
      dueTexts(
        () => "2026-03-23",
        () => "2026-03-29",
      ),
    ),
    ...cases(
      ["invoices due by Friday"],
      dueTexts(
        (today) => today,
        () => "2026-03-20",
      ),
    ),
    ...cases(
      ["what falls due this week?"],
      dueTexts(
        (today) => today,
        () => "2026-03-22",
      ),
    ),
    ...cases(
      ["invoices due in April", "which invoices are due next month?"],
      dueTexts(
        () => "2026-04-01",
        () => "2026-04-30",
      ),
    ),
    ...cases(
      ["what is coming due this month"],
      dueTexts(
        (today) => today,
        () => "2026-03-31",
      ),
    ),
  ];
  it.each(all)("$phrase", async ({ phrase, expected }) => {
    expectRead(await h.ask(phrase), await expected(truth, h), phrase);
  });
});

describe("what is still owed", () => {
  const owedTexts = async (t: Truth, where = "true", params: unknown[] = []) => {
    const unpaid = `s IN ('open', 'overdue') AND ${where}`;
    const rows = await t.invoices(unpaid, params);
    const owed = await t.invoiceTotals("amount - amount_paid", unpaid, params);
    const late = await t.invoiceTotals("amount - amount_paid", `s = 'overdue' AND ${where}`, params);
    return [plural(rows.length, "unpaid invoice"), ...invoiceTexts(rows, owed.money), ...late.money];
  };
  it.each(
    cases(
      [
        "how much is still outstanding?",
        "how much are we owed?",
        "what's owed to us",
        "total receivables",
        "unpaid invoices",
        "How much money is unpaid?",
        "what is the outstanding balance",
        "how much do clients owe us?",
        "show unpaid bills",
        "outstanding amount per currency",
        "what's our accounts receivable",
        "invoices not yet paid",
      ],
      (t) => owedTexts(t),
    ),
  )("$phrase", async ({ phrase, expected }) => {
    expectRead(await h.ask(phrase), await expected(truth, h), phrase);
  });

  it.each([
    ["how much does Acme Logistics owe us?", "Acme Logistics"],
    ["what does Oakridge Builders owe", "Oakridge Builders"],
    ["Kestral Robotics outstanding balance", "Kestrel Robotics"],
    ["unpaid invoices of helios energy", "Helios Energy"],
  ])("%s", async (phrase, client) => {
    expectRead(await h.ask(phrase), [client, ...(await owedTexts(truth, "client = $3", [client]))], phrase);
  });

  it("Who owes us the most?: the one client at the top of each currency, with what it owes", async () => {
    const [top] = await h.sql<{ client: string; currency: string; owed: string }>(
      `SELECT client, trim(currency) AS currency, sum(amount - amount_paid)::text AS owed FROM invoices
        WHERE org_id = $1 AND status IN ('open', 'overdue') GROUP BY 1, 2 ORDER BY sum(amount - amount_paid) DESC, client LIMIT 2`,
    );
    const asked = await h.ask("Who owes us the most?");
    // Each currency on its own: the top in euros, said with its currency (a client owes dollars too).
    expectRead(asked, [
      `**${top!.client}** owes the most in ${top!.currency}: **${money(top!.owed, top!.currency)}**`,
    ]);
    const [, second] = await h.sql<{ client: string }>(
      `SELECT client FROM invoices WHERE org_id = $1 AND status IN ('open', 'overdue')
        GROUP BY client ORDER BY sum(amount - amount_paid) DESC, client LIMIT 2`,
    );
    expect(asked.reply).not.toContain(second!.client);
  });

  it.each(["which clients owe us money?", "outstanding by client", "which clients owe us the most"])(
    "%s: what each client owes, largest first",
    async (phrase) => {
      const rows = await h.sql<{ client: string; currency: string; owed: string }>(
        `SELECT client, trim(currency) AS currency, sum(amount - amount_paid)::text AS owed FROM invoices
          WHERE org_id = $1 AND status IN ('open', 'overdue') GROUP BY 1, 2 ORDER BY sum(amount - amount_paid) DESC, client`,
      );
      const lines = rows
        .slice(0, 3)
        .map((row, index) => `${index + 1}. **${row.client}**: ${money(row.owed, row.currency)}`);
      expectRead(await h.ask(phrase), lines, phrase);
    },
  );

  it("owed by a contact: the invoices carrying that contact", async () => {
    const asked = await h.ask("what does Mia Schmidt owe us?");
    const contact = await truth.one<{ id: string }>("contacts", "name = 'Mia Schmidt'");
    expectRead(asked, ["Mia Schmidt", ...(await owedTexts(truth, "contact_id = $3", [contact.id]))]);
  });
});
