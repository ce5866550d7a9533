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
  type Row,
  UNPAID,
  STANDING,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  LAST_WEEK,
  THIS_WEEK,
  NEXT_WEEK,
  Q2,
} from "./truths.ts";

/**
 * The EIGHTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven categories
 * of the phrasing exam, written blind (without reading the planner, its documentation or its
 * answers), in the words an owner types into a chat: lower case, typos, abbreviations, slang, with
 * or without punctuation. None is copied from the other case files. The conventions are grade.ts's;
 * every truth is computed from the tables when the test runs, and a truth that would be empty,
 * tied or ambiguous throws (the exam's own fault, reported apart).
 * Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22, last week 2026-03-09..15, next
 * week 2026-03-23..29, this month March, last month February, next month April, Q2 April to June.
 */

const PIPELINE = "stage IN ('lead', 'qualified', 'proposal')";

/** `column` in [from, to) (`to` exclusive), as a where clause. */
const between = (column: string, from: string, to: string) =>
  `${column} >= '${from}' AND ${column} < '${to}'`;

/** The values of `wrong` that are not in `right`. */
const except = (right: readonly string[], wrong: readonly string[]) =>
  [...new Set(wrong)].filter((value) => !right.includes(value));

/** An aggregate's values present (it must have some); the same over plausible wrong sets absent. */
const aggregate = async (
  right: Promise<string[]>,
  ...wrong: Array<Promise<string[]>>
): Promise<Expectation> => {
  const present = await right;
  if (present.length === 0) throw new Error("an aggregate of nothing");
  const others: string[] = [];
  for (const values of wrong) others.push(...(await values));
  return { present, absent: except(present, others) };
};

/** A ratio as the expectation; the ratios of `wrong` (part, whole) pairs absent. */
const ratioOf = async (
  t: Q,
  resource: Resource,
  part: string,
  whole: string,
  wrong: Array<[string, string]> = [],
): Promise<Expectation> => {
  const present = await t.share(resource, part, whole);
  const others: string[] = [];
  for (const [p, w] of wrong) others.push((await t.share(resource, p, w))[0]!);
  return { present, absent: except(present, others) };
};

/** A count only (bold); the counts of `wrong` sets absent. */
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

/** A sum per currency present (it must exist); the sums over `wrong` sets absent. */
const sumOf = (t: Q, resource: Resource, column: string, where: string, wrong: string[] = []) =>
  aggregate(t.total(resource, column, where), ...wrong.map((other) => t.total(resource, column, other)));

/**
 * The one name ranked first by `text` (rows of `name` and `n`, best first); throws on no rows or
 * a tie for the first place. The runners-up are absent.
 */
const winner = async (t: Q, text: string, params: unknown[] = []): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text, params);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for the first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  return {
    present: [rows[0]!.name],
    absent: except(
      [rows[0]!.name],
      rows.slice(1, 3).map((r) => r.name),
    ),
  };
};

/** The one record of `resource` matching `where` (the exam's own check: exactly one). */
const single = async (t: Q, resource: Resource, where: string, params: unknown[] = []) => {
  const rows = await t.rows<Row>(resource, where, params);
  if (rows.length !== 1) throw new Error(`${resource} where ${where}: ${rows.length} records, not one`);
  return rows[0]!;
};

/** The deal with the extreme value among `where` (a tie throws): its title and its value. */
const dealBy = async (t: Q, where: string, dir: "asc" | "desc"): Promise<Expectation> => {
  const deals = await t.rows<Row>("deals", where, [], `value ${dir}`);
  if (deals.length === 0) throw new Error(`no deals where ${where}`);
  if (deals.length > 1 && Number(deals[0]!.value) === Number(deals[1]!.value)) throw new Error("a tie");
  const others = deals.slice(1).map((d) => d.title!);
  return {
    present: [deals[0]!.title!, t.money(deals[0]!.value!, deals[0]!.cur!)],
    absent: except([deals[0]!.title!], others),
  };
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // On amount, every status and currency, strict: the 19,200 ones (one overdue, one a draft) are out.
  ...phrasings(1, ["got any invoices north of 20k"], (t) => t.list("invoices", "amount > 20000")),
  // Every stage and currency, strict: the 4,200 USD and the 2,500 USD deals are in.
  ...phrasings(1, ["deals that r sub 5 grand?"], (t) => t.list("deals", "value < 5000")),
  // "and up" is inclusive; every currency (nothing sits at exactly 10,000).
  ...phrasings(1, ["show me pmts 10k and up"], (t) => t.list("payments", "amount >= 10000")),
  // Strict: the 1,250 onboarding workshop is in, the 150 consulting hour out.
  ...phrasings(1, ["what do we sell thats pricier than 1000"], (t) => t.list("products", "price > 1000")),
  // On what is still owed (the words say so), unpaid only: the 5,000 overdue one with 2,500 left
  // is out (and on the amount, strict, it would be out too: both readings give the same set).
  ...phrasings(1, ["which unpaid bills have a remaining balance over 5000"], (t) =>
    t.list("invoices", `${UNPAID} AND owed > 5000`),
  ),
  // Inclusive at both ends: the 5,000 overdue invoice is in; a bare number compares in every
  // currency, so the 1,250.50 USD invoice is in and the 980 USD one out.
  ...phrasings(1, ["inv between 1k n 5k pls"], (t) => t.list("invoices", "amount BETWEEN 1000 AND 5000")),
  // Overdue, strict: the 1,250.50 USD one is out (on what is owed, 1,000.50, too).
  ...phrasings(1, ["any overdue inv for less than 1k"], (t) =>
    t.list("invoices", "s = 'overdue' AND amount < 1000"),
  ),
  // Compared with the one Oakridge Builders deal (7,000 EUR), strict, every stage; the two USD deals
  // are below it either way.
  ...phrasings(1, ["deals bigger than what the oakridge one is worth"], (t) =>
    t.list(
      "deals",
      `value > (SELECT d.value FROM deals d JOIN contacts c ON c.id = d.contact_id
        WHERE d.org_id = $1 AND c.company = 'Oakridge Builders')`,
    ),
  ),
  // A currency word restricts to EUR: the 250.00 USD card payment is out.
  ...phrasings(1, ["eur pmts, anything under 500?"], (t) =>
    t.list("payments", "cur = 'EUR' AND amount < 500"),
  ),
  // Unpaid, strict (on what is owed, the same four); every invoice over 10,000 (drafts and paid ones
  // too) and the standing ones are wrong counts.
  ...phrasings(1, ["count of outstanding invoices > 10k"], (t) =>
    countOf(t, "invoices", `${UNPAID} AND amount > 10000`, [
      "amount > 10000",
      `${STANDING} AND amount > 10000`,
    ]),
  ),
  // Skills (records) per candidate, at least three (inclusive).
  ...phrasings(1, ["which candidates have at least 3 skills listed"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills s WHERE s.candidate_id = v.id) >= 3"),
  ),
  // Below advanced = beginner or intermediate; counting advanced or expert too is wrong.
  ...phrasings(1, ["skills rated lower than advanced - how many?"], (t) =>
    countOf(t, "skills", "level IN ('beginner', 'intermediate')", [
      "level <> 'expert'",
      "level IN ('advanced', 'expert')",
      "level = 'intermediate'",
    ]),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Open deals by value: 17,000, 15,000 and 14,000 (the won 14,000 Helios deal is not in play).
  ...phrasings(2, ["whats in the pipe - gimme the 3 fattest deals"], (t) =>
    t.top("deals", PIPELINE, "value", 3),
  ),
  // Owed on unpaid invoices, per client (in euros: the few dollars owed by two clients change
  // nothing): Larkspur Foods ahead of Oakridge Builders.
  ...phrasings(2, ["whos the biggest debtor among our clients"], (t) =>
    winner(
      t,
      `SELECT client AS name, sum(amount - amount_paid)::text AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' AND currency = 'EUR' GROUP BY client ORDER BY sum(amount - amount_paid) DESC`,
    ),
  ),
  // Unpaid, smallest: the 59.98 one (on what is owed, too).
  ...phrasings(2, ["whats the smallest bill still unpaid"], (t) =>
    t.top("invoices", UNPAID, "amount", 1, "asc"),
  ),
  // By received_at, the earliest.
  ...phrasings(2, ["which payment came in first, ever"], (t) =>
    t.top("payments", "true", "received_at", 1, "asc"),
  ),
  // Candidates counted per position.
  ...phrasings(2, ["which position has drawn the most candidates"], (t) =>
    winner(
      t,
      `SELECT position AS name, count(*)::text AS n FROM candidates WHERE org_id = $1 AND position IS NOT NULL
        GROUP BY position ORDER BY count(*) DESC`,
    ),
  ),
  // Communications counted per contact, every channel and direction.
  ...phrasings(2, ["which contact have we got the most comms logged with"], (t) =>
    winner(
      t,
      `SELECT c.name, count(*)::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 GROUP BY c.name ORDER BY count(*) DESC`,
    ),
  ),
  ...phrasings(2, ["bottom 2 products price-wise"], (t) => t.top("products", "true", "price", 2, "asc")),
  // Got away = lost; the larger of the two lost deals, with its value.
  ...phrasings(2, ["biggest deal that got away"], (t) => dealBy(t, "stage = 'lost'", "desc")),
  // Oldest by due date (and by issue date too: the same invoice).
  ...phrasings(2, ["which inv has been late the longest"], (t) =>
    t.top("invoices", "s = 'overdue'", "due_date", 1, "asc"),
  ),
  // Payments added up per client (Kestrel Robotics' euros alone are the most).
  ...phrasings(2, ["whos paid us the most overall, client wise"], (t) =>
    winner(
      t,
      `SELECT i.client AS name, sum(p.amount)::text AS n FROM payments p JOIN invoices i ON i.id = p.invoice_id
        WHERE p.org_id = $1 AND p.currency = 'EUR' GROUP BY i.client ORDER BY sum(p.amount) DESC`,
    ),
  ),
  // Every invoice by due date, the latest.
  ...phrasings(2, ["inv with the latest due date?"], (t) => t.top("invoices", "true", "due_date", 1)),
  ...phrasings(2, ["biggest direct debit we've received"], (t) =>
    t.top("payments", "method = 'direct_debit'", "amount", 1),
  ),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Every standing invoice (open, overdue, paid), per currency; with drafts and voids it is wrong.
  ...phrasings(3, ["if u average our invoices what do u get"], (t) =>
    aggregate(t.average("invoices", "amount", STANDING), t.average("invoices", "amount")),
  ),
  // Every deal, per currency; the pipeline's median and the average are wrong answers.
  ...phrasings(3, ["median deal size across the board?"], (t) =>
    aggregate(t.median("deals", "value"), t.median("deals", "value", PIPELINE), t.average("deals", "value")),
  ),
  // Payments added up per calendar month of 2026 and currency: January, February, March.
  ...phrasings(3, ["break down cash collected by month for 2026"], async (t) => {
    const present: string[] = [];
    for (const month of [JANUARY, FEBRUARY, MARCH])
      present.push(...(await t.total("payments", "amount", between("received_at", month[0], month[1]))));
    if (present.length < 3) throw new Error("fewer than three months with payments");
    return { present: [...new Set(present)] };
  }),
  // Won among the closed (won or lost) deals; won among every deal is wrong.
  ...phrasings(3, ["of the deals weve closed, what % did we win"], (t) =>
    ratioOf(t, "deals", "stage = 'won'", "stage IN ('won', 'lost')", [["stage = 'won'", "true"]]),
  ),
  // The smallest and the largest payment per currency (one USD payment: both ends).
  ...phrasings(3, ["smallest n largest pmt amounts?"], async (t) => {
    const low = await t.perCurrency("payments", "min(amount)");
    const high = await t.perCurrency("payments", "max(amount)");
    return aggregate(Promise.resolve([...new Set([...low, ...high])]), t.average("payments", "amount"));
  }),
  // What is owed, averaged over the overdue invoices; their average amount is a wrong answer.
  ...phrasings(3, ["on avg how much is outstanding per overdue inv"], (t) =>
    aggregate(
      t.average("invoices", "owed", "s = 'overdue'"),
      t.average("invoices", "amount", "s = 'overdue'"),
      t.average("invoices", "owed", UNPAID),
    ),
  ),
  // Denominator: every contact.
  ...phrasings(3, ["customers as a percentage of all contacts?"], (t) =>
    ratioOf(t, "contacts", "lifecycle_stage = 'customer'", "true"),
  ),
  // Won deals, per currency; every deal's average is a wrong answer.
  ...phrasings(3, ["on average how big r the deals we win"], (t) =>
    aggregate(t.average("deals", "value", "stage = 'won'"), t.average("deals", "value")),
  ),
  // Every product; the average price is a wrong answer.
  ...phrasings(3, ["median price across the product catalog"], (t) =>
    aggregate(t.median("products", "price"), t.average("products", "price")),
  ),
  // Denominator: every payment.
  ...phrasings(3, ["what fraction of payments were made w card"], (t) =>
    ratioOf(t, "payments", "method = 'card'", "true"),
  ),
  // Open deals' values added up per currency; every deal's total is a wrong answer.
  ...phrasings(3, ["whats the pipeline worth in total"], (t) =>
    sumOf(t, "deals", "value", PIPELINE, ["true"]),
  ),
  // Denominator: every candidate.
  ...phrasings(3, ["share of applicants weve turned down?"], (t) =>
    ratioOf(t, "candidates", "status = 'rejected'", "true"),
  ),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // Outbound emails by occurred_at in February; every communication then and every outbound email
  // are wrong answers.
  ...phrasings(4, ["count the emails we sent out last mnth"], (t) =>
    countOf(
      t,
      "communications",
      `channel = 'email' AND direction = 'outbound' AND ${between("occurred_at", ...FEBRUARY)}`,
      [
        between("occurred_at", ...FEBRUARY),
        "channel = 'email' AND direction = 'outbound'",
        `channel = 'email' AND ${between("occurred_at", ...FEBRUARY)}`,
      ],
    ),
  ),
  // Communications by occurred_at, Monday 2026-03-09 to Sunday 2026-03-15; this week's and March's
  // counts are wrong answers.
  ...phrasings(4, ["total comms logged last wk?"], (t) =>
    countOf(t, "communications", between("occurred_at", ...LAST_WEEK), [
      between("occurred_at", ...THIS_WEEK),
      between("occurred_at", ...MARCH),
    ]),
  ),
  ...phrasings(4, ["any payments come in during jan?"], (t) =>
    t.list("payments", between("received_at", ...JANUARY)),
  ),
  // Unpaid, by due date Monday 2026-03-23 to Sunday 2026-03-29: the paid one due 03-27 is out.
  ...phrasings(4, ["anything unpaid coming due next wk?"], (t) =>
    t.list("invoices", `${UNPAID} AND ${between("due_date", ...NEXT_WEEK)}`),
  ),
  // verified_at from 2026-02-16 on: the SQL skill verified 45 days ago is out.
  ...phrasings(4, ["which skills got signed off within the past 30 days"], (t) =>
    t.list("skills", `status = 'verified' AND verified_at >= '${addDays(t.today, -30)}'`),
  ),
  // Added = created_at in February.
  ...phrasings(4, ["which deals did we add last month"], (t) =>
    t.list("deals", between("created_at", ...FEBRUARY)),
  ),
  // Inbound, from 2026-03-01 on; every inbound one and everything since the 1st are wrong answers.
  ...phrasings(4, ["how many inbound msgs since the 1st of the month"], (t) =>
    countOf(t, "communications", `direction = 'inbound' AND occurred_at >= '${MARCH[0]}'`, [
      "direction = 'inbound'",
      `occurred_at >= '${MARCH[0]}'`,
    ]),
  ),
  // Overdue, by a due date in March.
  ...phrasings(4, ["overdue invoices that were due sometime this month"], (t) =>
    t.list("invoices", `s = 'overdue' AND ${between("due_date", ...MARCH)}`),
  ),
  // Received today; this month's and every payment's counts are wrong answers.
  ...phrasings(4, ["count of payments received so far today"], (t) =>
    countOf(t, "payments", between("received_at", t.today, addDays(t.today, 1)), [
      between("received_at", ...MARCH),
      "true",
    ]),
  ),
  // Open deals by expected close date in April..June.
  ...phrasings(4, ["open opps w an expected close in q2"], (t) =>
    t.list("deals", `${PIPELINE} AND ${between("expected_close_date", ...Q2)}`),
  ),
  // Contacts with a communication (any channel, either direction) on 2026-03-17.
  ...phrasings(4, ["who did we hear from or reach out to yesterday"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id
        AND ${between("m.occurred_at", addDays(t.today, -1), t.today)})`,
    ),
  ),
  // Issued 2026-01-10 through 2026-01-20, inclusive at both ends.
  ...phrasings(4, ["inv issued from the 10th to the 20th of jan"], (t) =>
    t.list("invoices", between("issued_at", "2026-01-10", "2026-01-21")),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  ...phrasings(5, ["do we have invoices billed in anything but eur"], (t) =>
    t.list("invoices", "cur <> 'EUR'"),
  ),
  // Clients with an issued invoice still standing and no payment on any invoice.
  ...phrasings(5, ["clients we invoiced who've never paid anything at all"], async (t) => {
    const clients = await t.sql<{ client: string; paid: boolean }>(
      `SELECT i.client, bool_or(EXISTS (SELECT 1 FROM payments p WHERE p.invoice_id = i.id)) AS paid
        FROM invoices i WHERE i.org_id = $1 AND i.status IN ('open', 'paid') GROUP BY 1 ORDER BY 1`,
    );
    const present = clients.filter((c) => !c.paid).map((c) => c.client);
    if (present.length === 0) throw new Error("every client has paid something");
    return { present, absent: clients.filter((c) => c.paid).map((c) => c.client) };
  }),
  ...phrasings(5, ["contacts with no deals at all"], (t) =>
    t.list("contacts", "NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id)"),
  ),
  // Not verified = claimed; the verified count and every skill's count are wrong answers.
  ...phrasings(5, ["how many skills r still unverified"], (t) =>
    countOf(t, "skills", "status <> 'verified'", ["status = 'verified'", "true"]),
  ),
  ...phrasings(5, ["contacts without a priority tag on them"], (t) =>
    t.list("contacts", "NOT ('priority' = ANY(coalesce(tags, '{}')))"),
  ),
  ...phrasings(5, ["open deals that arent priced in euros"], (t) =>
    t.list("deals", `${PIPELINE} AND cur <> 'EUR'`),
  ),
  ...phrasings(5, ["show all candidates except the rejected n hired ones"], (t) =>
    t.list("candidates", "status NOT IN ('rejected', 'hired')"),
  ),
  // Card and direct debit.
  ...phrasings(5, ["payments made any way besides bank transfer"], (t) =>
    t.list("payments", "method <> 'bank_transfer'"),
  ),
  // Unpaid but not overdue = open (not yet due).
  ...phrasings(5, ["outstanding invoices that still havent hit their due date"], (t) =>
    t.list("invoices", "s = 'open'"),
  ),
  // No communication linked to the deal.
  ...phrasings(5, ["deals with no communication logged against them"], (t) =>
    t.list("deals", "NOT EXISTS (SELECT 1 FROM communications m WHERE m.deal_id = v.id)"),
  ),
  // No outbound email to the contact in March (inbound ones and other channels don't count).
  ...phrasings(5, ["which contacts havent gotten an email from us this month"], (t) =>
    t.list(
      "contacts",
      `NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'email'
        AND m.direction = 'outbound' AND ${between("m.occurred_at", ...MARCH)})`,
    ),
  ),
  ...phrasings(5, ["which applicants gave us no phone #"], (t) => t.list("candidates", "phone IS NULL")),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // Owed on Oakridge Builders' unpaid invoices; the invoices' full amounts are a wrong answer.
  ...phrasings(6, ["oakridge builders outstanding balance?"], (t) => {
    const where = `client = 'Oakridge Builders' AND ${UNPAID}`;
    return aggregate(t.total("invoices", "owed", where), t.total("invoices", "amount", where));
  }),
  // The stage of Larkspur Foods' one deal.
  ...phrasings(6, ["wheres the larkspur deal at"], async (t) => {
    const deal = await single(t, "deals", "company = 'Larkspur Foods'");
    return { present: [deal.stage!] };
  }),
  // His latest communication, any channel; his earlier days are absent.
  ...phrasings(6, ["last time we were in touch with theo novak?"], async (t) => {
    const days = await t.sql<{ day: string }>(
      `SELECT DISTINCT to_char(m.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM communications m
        JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1 AND c.name = 'Theo Novak' ORDER BY 1 DESC`,
    );
    if (days.length === 0) throw new Error("no communication with Theo Novak");
    return { present: [days[0]!.day], absent: days.slice(1).map((d) => d.day) };
  }),
  ...phrasings(6, ["liam moreau's skills pls"], (t) => t.list("skills", "candidate_name = 'Liam Moreau'")),
  // Meetings with her counted; every communication with her and every meeting are wrong answers.
  ...phrasings(6, ["mia schmidt meetings so far, how many"], (t) =>
    countOf(t, "communications", "contact_name = 'Mia Schmidt' AND channel = 'meeting'", [
      "contact_name = 'Mia Schmidt'",
      "channel = 'meeting'",
    ]),
  ),
  // The candidate's position.
  ...phrasings(6, ["mia haddad is up for which position"], async (t) => {
    const row = await single(t, "candidates", "name = 'Mia Haddad'");
    if (!row.position) throw new Error("Mia Haddad has no position");
    return { present: [row.position] };
  }),
  // The contact whose company is Riverbend Coffee; the other contacts are absent.
  ...phrasings(6, ["riverbend coffee - who do we deal with there"], async (t) => {
    const row = await single(t, "contacts", "company = 'Riverbend Coffee'");
    return { present: [row.name!], absent: await t.others("contacts", "company = 'Riverbend Coffee'") };
  }),
  // Juniper Health's one deal: its value.
  ...phrasings(6, ["how much is the juniper health deal worth"], async (t) => {
    const deal = await single(t, "deals", "company = 'Juniper Health'");
    return { present: [t.money(deal.value!, deal.cur!)] };
  }),
  ...phrasings(6, ["yara iyer: verified skills only"], (t) =>
    t.list("skills", "candidate_name = 'Yara Iyer' AND status = 'verified'"),
  ),
  // Billed = the standing invoices (the voided one is out), added up; with the void it is wrong.
  ...phrasings(6, ["how much have we billed acme altogether"], (t) =>
    sumOf(t, "invoices", "amount", `client = 'Acme Logistics' AND ${STANDING}`, [
      "client = 'Acme Logistics'",
    ]),
  ),
  ...phrasings(6, ["anything overdue from solstice travel?"], (t) =>
    t.list("invoices", "client = 'Solstice Travel' AND s = 'overdue'"),
  ),
  // The deals whose contact is Sofia Okafor, every stage.
  ...phrasings(6, ["deals under sofia okafor"], (t) => t.list("deals", "contact_name = 'Sofia Okafor'")),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  // Overdue and over 10,000 (on what is owed, the same four).
  ...followUps(["overdue inv list pls"], ["narrow to >10k"], (t) =>
    t.list("invoices", "s = 'overdue' AND amount > 10000"),
  ),
  ...followUps(["pull up contacts", "customers only"], ["now just the priority-tagged ones"], (t) =>
    t.list("contacts", "lifecycle_stage = 'customer' AND 'priority' = ANY(coalesce(tags, '{}'))"),
  ),
  // Card payments received in March, every currency.
  ...followUps(["march pmts"], ["keep only the card ones"], (t) =>
    t.list("payments", `method = 'card' AND ${between("received_at", ...MARCH)}`),
  ),
  // The open deals' average value per currency; every deal's average is a wrong answer.
  ...followUps(["whats in our pipeline"], ["avg value of those?"], (t) =>
    aggregate(t.average("deals", "value", PIPELINE), t.average("deals", "value")),
  ),
  ...followUps(["whos applied for backend engineer"], ["did we hire any of em"], (t) =>
    t.list("candidates", "position = 'Backend engineer' AND status = 'hired'"),
  ),
  ...followUps(["kestrel robotics invoices"], ["which ones havent been settled"], (t) =>
    t.list("invoices", `client = 'Kestrel Robotics' AND ${UNPAID}`),
  ),
  // Her inbound communications counted; all of hers and every inbound one are wrong answers.
  ...followUps(["sofia novak communication history"], ["how many of those came from her side"], (t) =>
    countOf(t, "communications", "contact_name = 'Sofia Novak' AND direction = 'inbound'", [
      "contact_name = 'Sofia Novak'",
      "direction = 'inbound'",
    ]),
  ),
  // Expert and verified, counted; the expert count and the verified count are wrong answers.
  ...followUps(["expert-level skills?"], ["how many of them have been verified"], (t) =>
    countOf(t, "skills", "level = 'expert' AND status = 'verified'", [
      "level = 'expert'",
      "status = 'verified'",
    ]),
  ),
  // Lost and closed (closed_at) in March.
  ...followUps(["deals we wrapped up in march, won or lost"], ["filter to losses"], (t) =>
    t.list("deals", `stage = 'lost' AND ${between("closed_at", ...MARCH)}`),
  ),
  // What is owed on the unpaid invoices due in April, added up; their amounts and every unpaid
  // invoice's balance are wrong answers.
  ...followUps(
    ["outstanding invoices coming due in april"],
    ["whats the remaining balance on those combined"],
    (t) => {
      const where = `${UNPAID} AND ${between("due_date", ...APRIL)}`;
      return aggregate(
        t.total("invoices", "owed", where),
        t.total("invoices", "amount", where),
        t.total("invoices", "owed", UNPAID),
      );
    },
  ),
  ...followUps(["show our product list", "order by price, priciest first"], ["just the first 2"], (t) =>
    t.top("products", "true", "price", 2),
  ),
  // Kestrel Robotics' payments added up per currency; every payment's total is a wrong answer.
  ...followUps(["kestrel's payments to us"], ["sum those"], (t) =>
    sumOf(t, "payments", "amount", "client = 'Kestrel Robotics'", ["true"]),
  ),
];

export const holdout8: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
