import {
  addDays,
  followUps,
  phrasings,
  type Case,
  type Expectation,
  type Q,
  type Resource,
} from "./grade.ts";
import {
  within,
  besides,
  aggregate,
  only,
  type Row,
  UNPAID,
  OPEN_DEAL,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  THIS_WEEK,
  NEXT_WEEK,
  Q1,
  YEAR,
} from "./truths.ts";

/**
 * The NINTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven categories
 * of the phrasing exam, written blind (without reading the planner or running it on them), in the
 * words an owner types on a phone between meetings: lower case, typos, abbreviations, slang,
 * filler, questions and orders. None is copied from the other case files. The conventions are
 * grade.ts's; every truth is computed from the tables when the test runs, and a truth that would
 * be empty, tied or ambiguous throws (the exam's own fault, reported apart). Today is
 * 2026-03-18, a Wednesday: this week is 2026-03-16..22, next week 2026-03-23..29, last month
 * ("prev month") February, this year 2026.
 */

/** A ratio as the expectation. */
const ratio = async (share: Promise<string[]>): Promise<Expectation> => ({ present: await share });

/** A count of records (with or without labels); the counts of `wrong` sets absent. */
const countOf = async (
  t: Q,
  resource: Resource,
  where: string,
  wrong: string[] = [],
): Promise<Expectation> => {
  const n = await t.count(resource, where);
  if (n === 0) throw new Error(`no ${resource} match ${where}: ask something with an answer`);
  const absent: string[] = [];
  for (const other of wrong) {
    const m = await t.count(resource, other);
    if (m !== n) absent.push(t.bold(m));
  }
  return { present: [t.bold(n)], absent: [...new Set(absent)] };
};

/** A total per currency present (it must exist); the totals of `wrong` sets absent. */
const totalOf = async (
  t: Q,
  resource: Resource,
  column: string,
  where: string,
  wrong: string[] = [],
): Promise<Expectation> => {
  const present = await t.total(resource, column, where);
  if (present.length === 0) throw new Error(`no ${resource} match ${where}: nothing to add up`);
  const others: string[] = [];
  for (const other of wrong) others.push(...(await t.total(resource, column, other)));
  return { present, absent: besides(present, others) };
};

/**
 * The one name ranked first by `text` (rows of `name` and `n`, best first); throws on no rows or
 * on a tie for the first place.
 */
const leader = async (t: Q, text: string): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for the first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  return { present: [rows[0]!.name] };
};

/** A field of the one record matching `where`, with the texts that name the record. */
const fieldOf =
  (resource: Resource, where: string, field: string, named: (row: Row) => string[]): Case["expect"] =>
  async (t) => {
    const row = await only(t, resource, where);
    const value = row[field];
    if (!value) throw new Error(`the ${resource} record where ${where} has no ${field}`);
    return { present: [...named(row), value] };
  };

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Inclusive, every currency; owed <= 250 picks the same four (INV-000006 owes 375).
  ...phrasings(1, ["ok so unpaid invoices for 250 or less?"], (t) =>
    t.list("invoices", `${UNPAID} AND amount <= 250`),
  ),
  // Inclusive, every stage: both 14,000 deals are in.
  ...phrasings(1, ["deals worth at least 14k? thx"], (t) => t.list("deals", "value >= 14000")),
  ...phrasings(1, ["any paymnets greater than 16k"], (t) => t.list("payments", "amount > 16000")),
  ...phrasings(1, ["any products priced under 200 eur"], (t) =>
    t.list("products", "cur = 'EUR' AND price < 200"),
  ),
  // The balance is what is owed: INV-000018 (owes 2,500) and INV-000001 (3,800) are out; the
  // amount reading gives the same five (INV-000018's 5,000 is not more than 5k).
  ...phrasings(1, ["overdue invoices w/ a balance of more than 5k"], (t) =>
    t.list("invoices", "s = 'overdue' AND owed > 5000"),
  ),
  // "$" restricts to USD: both dollar invoices (1,250.50 and 980).
  ...phrasings(1, ["inv in usd above $900"], (t) => t.list("invoices", "cur = 'USD' AND amount > 900")),
  // Open deals (lead, qualified, proposal), strict, every currency: the 3,500 renewal is out.
  ...phrasings(1, ["any live deals worth less than 3 grand"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND value < 3000`),
  ),
  // Inclusive: the three candidates with four skills.
  ...phrasings(1, ["applicants claiming four skills or more"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills s WHERE s.candidate_id = v.id) >= 4"),
  ),
  ...phrasings(1, ["settled invoices smaller than 200?"], (t) =>
    t.list("invoices", "s = 'paid' AND amount < 200"),
  ),
  // Strict, every currency; the 4,200 USD qualified deal is under it.
  ...phrasings(1, ["qualified deals worth more than 5 grand"], (t) =>
    t.list("deals", "stage = 'qualified' AND value > 5000"),
  ),
  // Due strictly after 2026-04-20: the drafts due 04-23 were never issued, the paid one is settled.
  ...phrasings(1, ["real quick - unpaid inv due later than apr 20?"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date > '2026-04-20'`),
  ),
  // Inclusive: the 1,000 card payment is in.
  ...phrasings(1, ["payments that were 1k or less"], (t) => t.list("payments", "amount <= 1000")),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // 38,400 then the two 28,800 ones; the next is 19,200.
  ...phrasings(2, ["3 biggest overdue invs"], (t) => t.top("invoices", "s = 'overdue'", "amount", 3)),
  // Counted by invoice line: the annual support plan is on far more invoices than any other.
  ...phrasings(2, ["what product do we bill for most often"], (t) =>
    leader(
      t,
      `SELECT li->>'description' AS name, count(*)::text AS n FROM invoices i, jsonb_array_elements(i.line_items) li
        WHERE i.org_id = $1 GROUP BY 1 ORDER BY count(*) DESC, 1`,
    ),
  ),
  // "in euros" restricts the currency (the one dollar card payment is 250).
  ...phrasings(2, ["whats the biggest card payment in euros"], (t) =>
    t.top("payments", "method = 'card' AND cur = 'EUR'", "amount", 1),
  ),
  // The fourth and fifth share a title (Blue Fjord Studio's two data migrations).
  ...phrasings(2, ["5 fattest deals still open"], (t) => t.top("deals", OPEN_DEAL, "value", 5)),
  // Oldest by issue date; by due date it is the same invoice.
  ...phrasings(2, ["which unpaid bill has been sitting around longest"], (t) =>
    t.top("invoices", UNPAID, "issued_at", 1, "asc"),
  ),
  // What is owed summed per client (EUR, where every large balance is).
  ...phrasings(2, ["which client's carrying the largest unpaid balance"], (t) =>
    leader(
      t,
      `SELECT client AS name, sum(amount - amount_paid)::text AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' AND trim(currency) = 'EUR'
        GROUP BY 1 ORDER BY sum(amount - amount_paid) DESC`,
    ),
  ),
  ...phrasings(2, ["which position are ppl applying for most"], (t) =>
    leader(
      t,
      `SELECT position AS name, count(*)::text AS n FROM candidates WHERE org_id = $1
        GROUP BY 1 ORDER BY count(*) DESC, 1`,
    ),
  ),
  // Verified skills counted per reviewer (verified_by).
  ...phrasings(2, ["who on our side has verified the most skills"], (t) =>
    leader(
      t,
      `SELECT verified_by AS name, count(*)::text AS n FROM skills
        WHERE org_id = $1 AND status = 'verified' AND verified_by IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1`,
    ),
  ),
  ...phrasings(2, ["earliest payment on record for 2026"], (t) =>
    t.top("payments", within("received_at", ...YEAR), "received_at", 1, "asc"),
  ),
  // SMS from us = outbound, counted per contact.
  ...phrasings(2, ["which contact gets the most sms from us"], (t) =>
    leader(
      t,
      `SELECT c.name, count(*)::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.channel = 'sms' AND m.direction = 'outbound'
        GROUP BY c.name ORDER BY count(*) DESC, c.name`,
    ),
  ),
  ...phrasings(2, ["4 largest invoices that got paid off"], (t) =>
    t.top("invoices", "s = 'paid'", "amount", 4),
  ),
  // 119.00 and 119.96 EUR; the next is 149.95 EUR (the one dollar payment is 250).
  ...phrasings(2, ["lowest 2 payments received"], (t) => t.top("payments", "true", "amount", 2, "asc")),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  ...phrasings(3, ["whats the avg price of the stuff we sell"], (t) =>
    aggregate(t.average("products", "price")),
  ),
  // Still in play = open deals; the median of every deal and their average are wrong answers.
  ...phrasings(3, ["median value of deals still in play"], (t) =>
    aggregate(
      t.median("deals", "value", OPEN_DEAL),
      t.median("deals", "value"),
      t.average("deals", "value", OPEN_DEAL),
    ),
  ),
  ...phrasings(3, ["max payment amt in march"], (t) =>
    aggregate(
      t.perCurrency("payments", "max(amount)", within("received_at", ...MARCH)),
      t.perCurrency("payments", "min(amount)", within("received_at", ...MARCH)),
    ),
  ),
  // Won by closed_at this year, per currency; every deal won or not is a wrong answer.
  ...phrasings(3, ["total value of deals we've won since new year"], (t) =>
    totalOf(t, "deals", "value", `stage = 'won' AND ${within("closed_at", ...YEAR)}`, ["true", OPEN_DEAL]),
  ),
  // The words give the denominator: closed deals (won or lost).
  ...phrasings(3, ["of the deals that closed, won or lost, what pct did we win"], (t) =>
    ratio(t.share("deals", "stage = 'won'", "stage IN ('won', 'lost')")),
  ),
  ...phrasings(3, ["how many of our contacts are leads, in %"], (t) =>
    ratio(t.share("contacts", "lifecycle_stage = 'lead'")),
  ),
  // Received per calendar month of 2026, per currency; the year's total is a wrong answer.
  ...phrasings(3, ["break down payments received by month since jan"], async (t) => {
    const months = await t.sql<{ month: string; cur: string; v: string }>(
      `SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, trim(currency) AS cur,
          sum(amount)::text AS v
        FROM payments WHERE org_id = $1 AND ${within("received_at", ...YEAR)} GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    if (new Set(months.map((m) => m.month)).size < 2) throw new Error("payments in fewer than two months");
    const present = [...new Set(months.map((m) => t.money(m.v, m.cur)))];
    return {
      present,
      absent: besides(present, await t.total("payments", "amount", within("received_at", ...YEAR))),
    };
  }),
  ...phrasings(3, ["avg bank transfer amt"], (t) =>
    aggregate(t.average("payments", "amount", "method = 'bank_transfer'"), t.average("payments", "amount")),
  ),
  ...phrasings(3, ["rejection rate for candidates?"], (t) =>
    ratio(t.share("candidates", "status = 'rejected'")),
  ),
  ...phrasings(3, ["median paid inv amount"], (t) =>
    aggregate(
      t.median("invoices", "amount", "s = 'paid'"),
      t.average("invoices", "amount", "s = 'paid'"),
      t.median("invoices", "amount", "s IN ('open', 'overdue', 'paid')"),
    ),
  ),
  // The balance is what is owed, per currency; the average overdue amount is a wrong answer.
  ...phrasings(3, ["on avg how much is still owed per overdue invoice"], (t) =>
    aggregate(
      t.average("invoices", "owed", "s = 'overdue'"),
      t.average("invoices", "amount", "s = 'overdue'"),
    ),
  ),
  ...phrasings(3, ["whats the min price we charge for any product"], (t) =>
    aggregate(t.perCurrency("products", "min(price)")),
  ),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // Received 2026-03-08..18 (or 03-09..18: the same thirteen); the 03-05 one is out.
  ...phrasings(4, ["how many payments came in over the past 10 days"], (t) =>
    t.list("payments", "received_at >= ($2::date - 10)"),
  ),
  // The Monday week 2026-02-23..03-01 and the last seven days of February give the same two.
  ...phrasings(4, ["invoices issued last wk of feb"], (t) =>
    t.list("invoices", within("issued_at", "2026-02-23", "2026-03-02")),
  ),
  // Next week is 2026-03-23..29; the paid invoice due 03-27 is out.
  ...phrasings(4, ["anything unpaid due next week?"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("due_date", ...NEXT_WEEK)}`),
  ),
  // Open deals expected today..2026-04-08; the one due 04-10 and the one already past are out.
  ...phrasings(4, ["any pipeline deals due to close within 3 weeks from today"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date BETWEEN $2::date AND $3::date`, [
      addDays(t.today, 21),
    ]),
  ),
  // Yesterday is 2026-03-17; this week's and today's counts are wrong answers.
  ...phrasings(4, ["how many comms did we log yesterday"], (t) =>
    countOf(t, "communications", within("occurred_at", "2026-03-17", "2026-03-18"), [
      within("occurred_at", ...THIS_WEEK),
      within("occurred_at", "2026-03-18", "2026-03-19"),
    ]),
  ),
  // 2026-03-01..15 inclusive; every meeting and March's are wrong answers.
  ...phrasings(4, ["how many mtgs did we have mar 1-15"], (t) =>
    countOf(
      t,
      "communications",
      `channel = 'meeting' AND ${within("occurred_at", "2026-03-01", "2026-03-16")}`,
      ["channel = 'meeting'", `channel = 'meeting' AND ${within("occurred_at", ...MARCH)}`],
    ),
  ),
  // Due in February and still unpaid (open or overdue): the paid, draft and void ones are out.
  ...phrasings(4, ["which inv were due in feb and still arent paid"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("due_date", ...FEBRUARY)}`),
  ),
  // Verified on or after 2026-02-20; SQL (verified 2026-02-01) is out.
  ...phrasings(4, ["what skils got verified since feb 20th"], (t) =>
    t.list("skills", "status = 'verified' AND verified_at >= '2026-02-20'"),
  ),
  // 2026-02-01..03-10 inclusive.
  ...phrasings(4, ["payments recieved feb 1 thru mar 10"], (t) =>
    t.list("payments", within("received_at", "2026-02-01", "2026-03-11")),
  ),
  // Won by closed_at since 2026-03-11; the dollar deal won in February is out.
  ...phrasings(4, ["deals we won in the past 7 days"], (t) =>
    t.list("deals", "stage = 'won' AND closed_at >= ($2::date - 7)"),
  ),
  ...phrasings(4, ["which invoices went out this wk"], (t) =>
    t.list("invoices", within("issued_at", ...THIS_WEEK)),
  ),
  // Prev month = February; March's and the quarter's totals are wrong answers.
  ...phrasings(4, ["total receipts for the prev month"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", ...FEBRUARY), [
      within("received_at", ...MARCH),
      within("received_at", ...Q1),
      within("received_at", ...JANUARY),
    ]),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  // "open" is the shown status (not yet due): Juniper's two open invoices are out.
  ...phrasings(5, ["open invoices apart from juniper's"], (t) =>
    t.list("invoices", "s = 'open' AND client <> 'Juniper Health'"),
  ),
  ...phrasings(5, ["any contacts without a deal?"], (t) =>
    t.list("contacts", "NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id)"),
  ),
  // No SMS either way; Ada Byron has no communication at all.
  ...phrasings(5, ["contacts with zero sms history"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'sms')",
    ),
  ),
  // The backend engineer candidates' skills not verified (claimed): five, named PostgreSQL and
  // TypeScript (both also verified for someone, so neither is absent).
  ...phrasings(5, ["backend candidates' skills that still aren't verified"], (t) =>
    t.list(
      "skills",
      "status <> 'verified' AND candidate_id IN (SELECT c.id FROM candidates c WHERE c.position = 'Backend engineer')",
    ),
  ),
  ...phrasings(5, ["which deals are in some other currency than euro"], (t) =>
    t.list("deals", "cur <> 'EUR'"),
  ),
  // Clients (of invoices) without a single payment on any of their invoices.
  ...phrasings(5, ["clients we've received zero payments from"], async (t) => {
    const clients = await t.sql<{ client: string; paid: boolean }>(
      `SELECT i.client, count(p.id) > 0 AS paid FROM invoices i LEFT JOIN payments p ON p.invoice_id = i.id
        WHERE i.org_id = $1 GROUP BY 1 ORDER BY 1`,
    );
    const present = clients.filter((c) => !c.paid).map((c) => c.client);
    if (present.length === 0) throw new Error("every client has paid something");
    return { present, absent: clients.filter((c) => c.paid).map((c) => c.client) };
  }),
  // Communications without a deal: the introductions and the fixture's email.
  ...phrasings(5, ["how many interactions weren't tied to any deal"], (t) =>
    countOf(t, "communications", "deal_id IS NULL", ["true", "deal_id IS NOT NULL"]),
  ),
  ...phrasings(5, ["priority contacts that aren't customers yet"], (t) =>
    t.list("contacts", "'priority' = ANY(coalesce(tags, '{}')) AND lifecycle_stage <> 'customer'"),
  ),
  // Deals at the proposal stage, leaving out Blue Fjord Studio's two.
  ...phrasings(5, ["proposals that arent blue fjord's"], (t) =>
    t.list("deals", "stage = 'proposal' AND company IS DISTINCT FROM 'Blue Fjord Studio'"),
  ),
  // Received before March 2026 (none is later than today).
  ...phrasings(5, ["payments that didn't land in march"], (t) =>
    t.list("payments", `NOT (${within("received_at", ...MARCH)})`),
  ),
  ...phrasings(5, ["applicants where we never logged how they found us"], (t) =>
    t.list("candidates", "source IS NULL"),
  ),
  // Not sent out yet = drafts (never issued).
  ...phrasings(5, ["which invoices have not been issued"], (t) => t.list("invoices", "status = 'draft'")),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // What is owed on Juniper Health's unpaid invoices; every client's balance is a wrong answer.
  ...phrasings(6, ["juniper health - outstanding balance?"], async (t) => {
    const found = await totalOf(t, "invoices", "owed", `${UNPAID} AND client = 'Juniper Health'`, [UNPAID]);
    return { present: ["Juniper Health", ...found.present], absent: found.absent };
  }),
  // Riverbend Coffee has one deal.
  ...phrasings(6, ["riverbend coffee - when's their deal expected to land"], async (t) => {
    const deal = await only(t, "deals", "company = 'Riverbend Coffee'");
    const day = await t.value("SELECT expected_close_date::text FROM deals WHERE org_id = $1 AND id = $2", [
      deal.id,
    ]);
    if (!day) throw new Error("the Riverbend deal has no expected close date");
    return { present: [deal.title!, day] };
  }),
  // Every invoice of the client, drafts and voids included.
  ...phrasings(6, ["how many inv does acme logistics have"], (t) =>
    t.list("invoices", "client = 'Acme Logistics'"),
  ),
  ...phrasings(6, ["payments we got from helios"], (t) => t.list("payments", "client = 'Helios Energy'")),
  ...phrasings(
    6,
    ["did yara iyer get hired or what"],
    fieldOf("candidates", "name = 'Yara Iyer'", "status", () => ["Yara Iyer"]),
  ),
  ...phrasings(
    6,
    ["where'd we source amara iyer from"],
    fieldOf("candidates", "name = 'Amara Iyer'", "source", () => ["Amara Iyer"]),
  ),
  // The day of the latest communication with him, any channel and direction.
  ...phrasings(6, ["last time we talked to ravi reyes"], async (t) => {
    const day = await t.value(
      `SELECT to_char(max(m.occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM communications m
        JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1 AND c.name = 'Ravi Reyes'`,
    );
    if (!day) throw new Error("no communication with Ravi Reyes");
    return { present: ["Ravi Reyes", day] };
  }),
  // Her two deals share a title.
  ...phrasings(6, ["sofia novaks deals?"], (t) => t.list("deals", "contact_name = 'Sofia Novak'")),
  ...phrasings(
    6,
    ["yara kowalski's german skill, verified by who?"],
    fieldOf("skills", "candidate_name = 'Yara Kowalski' AND name = 'German'", "verified_by", () => []),
  ),
  // Every deal of his, any stage, per currency; every deal's total is a wrong answer.
  ...phrasings(6, ["add up every deal we have w jonas tanaka"], async (t) => {
    const found = await totalOf(t, "deals", "value", "contact_name = 'Jonas Tanaka'", ["true"]);
    return { present: ["Jonas Tanaka", ...found.present], absent: found.absent };
  }),
  ...phrasings(
    6,
    ["email for our contact at quanta analytics"],
    fieldOf("contacts", "company = 'Quanta Analytics'", "email", (row) => [row.name!]),
  ),
  // What is left = owed; the full amount is not absent (a reply may show it beside the balance).
  ...phrasings(6, ["how much is left on inv 9"], async (t) => {
    const invoice = await only(t, "invoices", "number = 'INV-000009'");
    return { present: ["INV-000009", t.money(invoice.owed!, invoice.cur!)] };
  }),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  // Overdue with more than 20,000 owed (the amount reading gives the same three).
  ...followUps(["overdue stuff pls"], ["just ones where the balance tops 20k"], (t) =>
    t.list("invoices", "s = 'overdue' AND owed > 20000"),
  ),
  ...followUps(
    ["pull up the pipeline", "narrow to qualified"],
    ["which of em are supposed to close in april"],
    (t) => t.list("deals", `stage = 'qualified' AND ${within("expected_close_date", ...APRIL)}`),
  ),
  ...followUps(["show march's incoming payments"], ["card only"], (t) =>
    t.list("payments", `method = 'card' AND ${within("received_at", ...MARCH)}`),
  ),
  ...followUps(["all candidates pls", "filter to interviewing"], ["only backend ppl"], (t) =>
    t.list("candidates", "status = 'interview' AND position = 'Backend engineer'"),
  ),
  // Owed on the unpaid invoices added up; their full amounts are a wrong answer.
  ...followUps(["everything unpaid"], ["whats the remaining balance across them"], async (t) => {
    const owed = await t.total("invoices", "owed", UNPAID);
    return aggregate(Promise.resolve(owed), t.total("invoices", "amount", UNPAID));
  }),
  ...followUps(["show prospects"], ["anyone from juniper or oakridge in there?"], (t) =>
    t.list("contacts", "lifecycle_stage = 'prospect' AND company IN ('Juniper Health', 'Oakridge Builders')"),
  ),
  // Paid invoices issued in February, averaged; every February invoice's average is wrong.
  ...followUps(["feb invoices (by issue date)", "keep just the paid"], ["and their mean amount"], (t) =>
    aggregate(
      t.average("invoices", "amount", `s = 'paid' AND ${within("issued_at", ...FEBRUARY)}`),
      t.average("invoices", "amount", within("issued_at", ...FEBRUARY)),
      t.average("invoices", "amount", "s = 'paid'"),
    ),
  ),
  // Her meetings counted; all her communications and every meeting are wrong counts.
  ...followUps(["all interactions with mia schmidt"], ["how many of those were meetings"], (t) =>
    countOf(t, "communications", "contact_name = 'Mia Schmidt' AND channel = 'meeting'", [
      "contact_name = 'Mia Schmidt'",
      "channel = 'meeting'",
    ]),
  ),
  ...followUps(["closed-won deals"], ["top one by value?"], (t) =>
    t.top("deals", "stage = 'won'", "value", 1),
  ),
  // Strict: the 1,000 card payment is out.
  ...followUps(["payments above a thousand"], ["leave out bank transfers"], (t) =>
    t.list("payments", "amount > 1000 AND method <> 'bank_transfer'"),
  ),
  ...followUps(["show every skill on file", "expert level only"], ["and verified?"], (t) =>
    t.list("skills", "level = 'expert' AND status = 'verified'"),
  ),
  // Open (not yet due) invoices due in April: what is left on them added up.
  ...followUps(["inv due in apr", "filter to open"], ["total left to pay on them?"], (t) =>
    totalOf(t, "invoices", "owed", `s = 'open' AND ${within("due_date", ...APRIL)}`, [
      `s = 'open'`,
      within("due_date", ...APRIL),
    ]),
  ),
];

export const holdout9: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
