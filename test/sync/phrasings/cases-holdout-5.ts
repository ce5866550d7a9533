import { addDays, followUps, phrasings, type Case, type Expectation, type Q } from "./grade.ts";
import {
  within,
  besides,
  aggregate,
  ratio,
  countOf,
  totalOf,
  only,
  best,
  type Row,
  UNPAID,
  OPEN_DEAL,
  FEBRUARY,
  MARCH,
  APRIL,
  LAST_WEEK,
  Q1,
} from "./truths.ts";

/**
 * The FIFTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven categories
 * of the phrasing exam, written blind (without reading the planner or its answers), in the words an
 * owner types (lower case, typos, abbreviations, slang, questions and imperatives), none of them
 * copied from cases-1-3.ts, cases-4-5.ts, cases-6-7.ts or the four earlier holdouts. The conventions
 * are grade.ts's; every truth is computed from the tables when the test runs, and a truth that would
 * be empty, tied or ambiguous throws (the exam's own fault, reported apart).
 * Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22, last week 2026-03-09..15,
 * yesterday 2026-03-17, this month March, last month February, Q1 2026-01-01..03-31.
 */

/** A skill level as a rank (beginner 1 .. expert 4), for `column` (a skills row's level). */
const RANK = (column: string) =>
  `CASE ${column} WHEN 'beginner' THEN 1 WHEN 'intermediate' THEN 2 WHEN 'advanced' THEN 3 WHEN 'expert' THEN 4 END`;

/**
 * The first `n` distinct names of `text` (rows of `name` and `n`, best first); throws when the
 * n-th and the next distinct name share a value, or when there are too few. The other names of the
 * rows (and of `rest`) are absent.
 */
const leaders = async (t: Q, text: string, n = 1, rest: string[] = []): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  const firsts: Array<{ name: string; n: string }> = [];
  for (const row of rows) if (!firsts.some((f) => f.name === row.name)) firsts.push(row);
  if (firsts.length < n) throw new Error(`a ranking of ${firsts.length}, not ${n}`);
  if (firsts.length > n && String(firsts[n - 1]!.n) === String(firsts[n]!.n))
    throw new Error(`tie at rank ${n}: ${firsts[n - 1]!.name} and ${firsts[n]!.name}`);
  const present = firsts.slice(0, n).map((f) => f.name);
  return { present, absent: besides(present, [...firsts.map((f) => f.name), ...rest]) };
};

/** Distinct bold counts per group (`text` yields rows of `n`); throws when two groups share a count. */
const countsPerGroup = async (t: Q, text: string): Promise<Expectation> => {
  const rows = await t.sql<{ n: number }>(text, [t.today]);
  if (rows.length < 2) throw new Error("fewer than two groups");
  const present = [...new Set(rows.map((row) => t.bold(row.n)))];
  if (present.length !== rows.length) throw new Error("two groups with the same count");
  return { present };
};

/**
 * Names (of `text`'s rows of `name` and `hit`) split: those with `hit` present, the others absent;
 * throws when none or more than ten match.
 */
const namesWhere = async (t: Q, text: string): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; hit: boolean }>(text);
  const present = [...new Set(rows.filter((r) => r.hit).map((r) => r.name))];
  if (present.length === 0 || present.length > 10) throw new Error(`${present.length} names match`);
  return {
    present,
    absent: besides(
      present,
      rows.filter((r) => !r.hit).map((r) => r.name),
    ),
  };
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Strict, every currency: 9,601.50, 14,400, 16,002.50, 24,000 and 38,400; 8,750 is out.
  ...phrasings(1, ["list every payment in excess of 9000"], (t) => t.list("payments", "amount > 9000")),
  // Every stage, inclusive at both ends: 7,000, 7,500, 9,000, 11,000 and 11,500 (13,500 out).
  ...phrasings(1, ["deals sized anywhere from 7k to 12k"], (t) =>
    t.list("deals", "value BETWEEN 7000 AND 12000"),
  ),
  // Inclusive: the 3,200.50 data migration and the 4,800 support plan; 1,250 is out.
  ...phrasings(1, ["products costing 3,200.50 or more"], (t) => t.list("products", "price >= 3200.50")),
  // What is still owed, strict: 26,800, 28,800 and 38,400. (No draft or paid one comes near: the
  // 19,200 draft is under, and the paid 24,000 and 38,400 owe nothing.)
  ...phrasings(1, ["invoices with a remaining balance above 20k"], (t) =>
    t.list("invoices", `${UNPAID} AND owed > 20000`),
  ),
  // Outbound emails per contact, strict: Theo Novak has three; those with two are out.
  ...phrasings(1, ["contacts we've sent more than 2 emails to"], (t) =>
    t.list(
      "contacts",
      `(SELECT count(*) FROM communications m WHERE m.contact_id = v.id AND m.channel = 'email'
        AND m.direction = 'outbound') > 2`,
    ),
  ),
  // Skills (records) at advanced or expert per candidate, inclusive: four candidates have two.
  ...phrasings(1, ["which applicants have at least two skills at advanced level or above"], (t) =>
    t.list(
      "candidates",
      `(SELECT count(*) FROM skills s WHERE s.candidate_id = v.id AND s.level IN ('advanced', 'expert')) >= 2`,
    ),
  ),
  // Euro deals, strict: 500 and 2,000 (both open, so "opps" read as open deals is the same set);
  // the 2,500 EUR win is out.
  ...phrasings(1, ["any euro opps less than 2500"], (t) => t.list("deals", "cur = 'EUR' AND value < 2500")),
  // amount_paid, strict: nine invoices; INV-000001 with exactly 1,000 paid is out.
  ...phrasings(1, ["on which invoices have we collected more than 1000 so far"], (t) =>
    t.list("invoices", "amount_paid > 1000"),
  ),
  // What each client owes on its unpaid invoices, added up per currency, strict: Acme 30,400.50,
  // Oakridge 36,400, Riverbend 19,650 and Larkspur 38,400; Juniper's 9,809.93 is out.
  ...phrasings(1, ["which clients owe us more than 10k altogether"], (t) =>
    namesWhere(
      t,
      `SELECT client AS name, bool_or(tot > 10000) AS hit FROM (
         SELECT client, currency, sum(amount - amount_paid) AS tot FROM invoices
          WHERE org_id = $1 AND status = 'open' GROUP BY client, currency) x GROUP BY client ORDER BY client`,
    ),
  ),
  // Contacts with two or more deals (any stage): Jonas Tanaka and Sofia Okafor have three; Theo
  // Novak, Sofia Novak and Mia Schmidt two.
  ...phrasings(1, ["who do we have multiple deals with"], (t) =>
    t.list("contacts", "(SELECT count(*) FROM deals d WHERE d.contact_id = v.id) >= 2"),
  ),
  // Drafts, strict: 14,400 and 119.96; the 19,200 one is out.
  ...phrasings(1, ["which unsent drafts come in under 15,000"], (t) =>
    t.list("invoices", "s = 'draft' AND amount < 15000"),
  ),
  // Card payments, inclusive, every currency: 119 EUR, 250 USD and 375 EUR; 1,000 and 2,500 out.
  ...phrasings(1, ["small card payments, 500 max"], (t) =>
    t.list("payments", "method = 'card' AND amount <= 500"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Money received per client (per currency; Kestrel's 41,275 EUR leads, its 250 USD is last):
  // Kestrel Robotics, Juniper Health, Meridian Legal; Larkspur Foods (14,400) fourth.
  ...phrasings(2, ["3 clients that brought in the most cash"], (t) =>
    leaders(
      t,
      `SELECT i.client AS name, sum(p.amount)::text AS n FROM payments p JOIN invoices i ON i.id = p.invoice_id
        WHERE p.org_id = $1 GROUP BY i.client, p.currency ORDER BY sum(p.amount) DESC, i.client`,
      3,
    ),
  ),
  // The product most sold: by units on issued invoices, by invoiced amount and by the number of
  // invoices it is on, the annual support plan leads (the truth throws if the readings disagree).
  ...phrasings(2, ["whats our best seller"], async (t) => {
    const by = async (measure: string) =>
      leaders(
        t,
        `SELECT li->>'description' AS name, ${measure}::text AS n
           FROM invoices i, jsonb_array_elements(i.line_items) li
          WHERE i.org_id = $1 AND i.status IN ('open', 'paid') GROUP BY 1 ORDER BY ${measure} DESC`,
        1,
        (await t.rows<Row>("products")).map((p) => p.name!),
      );
    const units = await by("sum((li->>'quantity')::numeric)");
    const amount = await by("sum((li->>'amount')::numeric)");
    const invoices = await by("count(DISTINCT i.id)");
    if (units.present[0] !== amount.present[0] || units.present[0] !== invoices.present[0])
      throw new Error("the readings of best seller disagree");
    return units;
  }),
  // Python held by two candidates: Mia Haddad at advanced, Noah Iyer at intermediate.
  ...phrasings(2, ["who's best at python"], (t) =>
    leaders(
      t,
      `SELECT c.name, (${RANK("s.level")})::text AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND s.name = 'Python' ORDER BY ${RANK("s.level")} DESC`,
    ),
  ),
  // Deal value of every stage per contact (per currency): Sofia Novak 22,500 EUR, then Mia Schmidt
  // 21,000 EUR (Jonas Tanaka's 16,500 EUR and 4,200 USD stay below even added up).
  ...phrasings(2, ["which contact has the most deal value overall, all stages"], (t) =>
    leaders(
      t,
      `SELECT c.name, sum(d.value)::text AS n FROM deals d JOIN contacts c ON c.id = d.contact_id
        WHERE d.org_id = $1 GROUP BY c.name, d.currency ORDER BY sum(d.value) DESC`,
    ),
  ),
  // What is owed on overdue invoices per client: Larkspur 38,400 and Acme 28,800; Oakridge
  // 26,800 third (on overdue amounts Acme and Oakridge would tie: "owe" is what is left).
  ...phrasings(2, ["which two clients owe us the most on late invoices"], (t) =>
    leaders(
      t,
      `SELECT client AS name, sum(amount - amount_paid)::text AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' AND due_date < '${t.today}'::date GROUP BY client, currency
        ORDER BY sum(amount - amount_paid) DESC`,
      2,
    ),
  ),
  // Unpaid by due date, latest: INV-000006 (2026-05-02).
  ...phrasings(2, ["of the bills still owed to us, which one's due last"], (t) =>
    best(t, "invoices", UNPAID, "due_date", 1),
  ),
  // The latest call's contact (either direction): Yara Haddad on 03-04; Mia Schmidt's was 02-28.
  ...phrasings(2, ["who did we last phone"], (t) =>
    leaders(
      t,
      `SELECT c.name, m.occurred_at::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.channel = 'call' ORDER BY m.occurred_at DESC`,
    ),
  ),
  // Verified skills per reviewer: the hiring panel 4, Marco Rossi 3, Priya Natarajan 1.
  ...phrasings(2, ["which reviewer has signed off on the most skills"], (t) =>
    leaders(
      t,
      `SELECT verified_by AS name, count(*)::text AS n FROM skills
        WHERE org_id = $1 AND status = 'verified' AND verified_by IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC`,
    ),
  ),
  // amount_paid, top 3: 38,400, 24,000 and 16,002.50 (then 14,400).
  ...phrasings(2, ["top 3 invoices by amount collected"], (t) =>
    best(t, "invoices", "true", "amount_paid", 3),
  ),
  // Outbound SMS per contact: Ravi Reyes 2, the rest 1.
  ...phrasings(2, ["who's our most texted contact"], (t) =>
    leaders(
      t,
      `SELECT c.name, count(*)::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.channel = 'sms' AND m.direction = 'outbound' GROUP BY c.name
        ORDER BY count(*) DESC`,
    ),
  ),
  // Qualified deals by expected close date, latest: the Juniper retainer (2026-05-06).
  ...phrasings(2, ["which qualified deal has the furthest-out close date"], (t) =>
    best(t, "deals", "stage = 'qualified'", "expected_close_date", 1),
  ),
  // Rejected candidates per position: both are product designers.
  ...phrasings(2, ["which role are we rejecting the most people for"], async (t) =>
    leaders(
      t,
      `SELECT position AS name, count(*)::text AS n FROM candidates
        WHERE org_id = $1 AND status = 'rejected' GROUP BY 1 ORDER BY count(*) DESC`,
      1,
      (await t.sql<{ position: string }>("SELECT DISTINCT position FROM candidates WHERE org_id = $1")).map(
        (r) => r.position,
      ),
    ),
  ),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Proposal-stage deals averaged (all EUR): 12,500; every deal's and every open deal's average wrong.
  ...phrasings(3, ["on avg how big are the deals sitting at proposal"], (t) =>
    aggregate(
      t.average("deals", "value", "stage = 'proposal'"),
      t.average("deals", "value"),
      t.average("deals", "value", OPEN_DEAL),
    ),
  ),
  // Denominator: everything we sent (outbound communications of every channel, 32); the part: the
  // texts (8).
  ...phrasings(3, ["of everything we sent out (emails texts calls meetings), what % were texts"], (t) =>
    ratio(t.share("communications", "channel = 'sms'", "direction = 'outbound'")),
  ),
  // What is owed on unpaid dollar invoices: 1,000.50 + 980; their amounts (2,230.50) are wrong.
  ...phrasings(3, ["how many dollars are we still owed"], (t) =>
    aggregate(
      t.total("invoices", "owed", `${UNPAID} AND cur = 'USD'`),
      t.total("invoices", "amount", `${UNPAID} AND cur = 'USD'`),
    ),
  ),
  // The lowest and highest bank transfer (all EUR): 149.95 and 24,000; their average is wrong.
  ...phrasings(3, ["smallest and biggest bank transfer we've received"], async (t) => {
    const low = await t.perCurrency("payments", "min(amount)", "method = 'bank_transfer'");
    const high = await t.perCurrency("payments", "max(amount)", "method = 'bank_transfer'");
    return aggregate(
      Promise.resolve([...new Set([...low, ...high])]),
      t.average("payments", "amount", "method = 'bank_transfer'"),
    );
  }),
  // Denominator: every candidate (11); the part: those applying as backend engineer (4).
  ...phrasings(3, ["what share of applicants are going for the backend job"], (t) =>
    ratio(t.share("candidates", "position = 'Backend engineer'")),
  ),
  // The three drafts averaged: 11,239.99; the average invoice is a wrong answer.
  ...phrasings(3, ["whats the average draft worth"], (t) =>
    aggregate(
      t.average("invoices", "amount", "s = 'draft'"),
      t.average("invoices", "amount", "s IN ('open', 'overdue', 'paid')"),
    ),
  ),
  // The open deals added up per currency: 98,000 EUR and 4,200 USD; every deal's total is wrong.
  ...phrasings(3, ["how much is our whole pipeline worth"], (t) =>
    aggregate(t.total("deals", "value", OPEN_DEAL), t.total("deals", "value")),
  ),
  // Communications counted per channel: 24 emails, 9 texts, 7 meetings, 2 calls.
  ...phrasings(3, ["how many of our comms were emails vs calls vs texts vs meetings"], (t) =>
    countsPerGroup(
      t,
      "SELECT channel, count(*)::int AS n FROM communications WHERE org_id = $1 AND $2::date IS NOT NULL GROUP BY 1",
    ),
  ),
  // Denominator: every communication (42); the part: those linked to a deal (29).
  ...phrasings(3, ["what % of comms are linked to a deal"], (t) =>
    ratio(t.share("communications", "deal_id IS NOT NULL")),
  ),
  // Denominator: every contact (13); the part: those with an overdue invoice (8).
  ...phrasings(3, ["what % of our contacts are behind on a payment"], (t) =>
    ratio(
      t.share(
        "contacts",
        `EXISTS (SELECT 1 FROM invoices i WHERE i.contact_id = v.id AND i.status = 'open' AND i.due_date < $2::date)`,
      ),
    ),
  ),
  // The two voided invoices added up: 119.96 + 900.
  ...phrasings(3, ["how much have we voided in total"], (t) =>
    aggregate(t.total("invoices", "amount", "s = 'void'"), t.total("invoices", "amount", "s = 'draft'")),
  ),
  // Payments averaged per month of receipt in 2026 (per currency): January 2,000, February 1,000,
  // March 8,959.07 EUR and 250 USD; the average of every payment is a wrong answer.
  ...phrasings(3, ["average payment size by month this yr"], async (t) => {
    const rows = await t.sql<{ v: string; cur: string }>(
      `SELECT round(avg(amount), 2)::text AS v, trim(currency) AS cur FROM payments
        WHERE org_id = $1 AND received_at >= '2026-01-01' AND received_at < '2027-01-01'
        GROUP BY to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM'), currency ORDER BY 1`,
    );
    const present = rows.map((r) => t.money(r.v, r.cur));
    if (rows.length < 2 || new Set(present).size !== present.length) throw new Error("months alike");
    return aggregate(Promise.resolve(present), t.average("payments", "amount"));
  }),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // Every status by due_date last week (Monday 03-09 to Sunday 03-15): INV-000024 and INV-000030;
  // the one due Monday 03-16 (this week) and the one due Sunday 03-08 are out.
  ...phrasings(4, ["which invoices fell due last week"], (t) =>
    t.list("invoices", within("due_date", ...LAST_WEEK)),
  ),
  // Won deals by closed_at in Q1: all five (no won deal's expected close date is in Q1).
  ...phrasings(4, ["how many deals did we win in the first quarter"], (t) =>
    t.list("deals", `stage = 'won' AND ${within("closed_at", ...Q1)}`),
  ),
  // Contacts with a meeting (either direction) in March; Liam Haddad's was in February.
  ...phrasings(4, ["who'd we have meetings with in march"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'meeting'
        AND ${within("m.occurred_at", ...MARCH)})`,
    ),
  ),
  // By issued_at from 2026-03-08 (nothing was issued on 03-08 or 03-09, and 03-07 is 11 days back):
  // the seven issued today. Drafts were never issued.
  ...phrasings(4, ["what have we invoiced in the past 10 days"], (t) =>
    t.list("invoices", `issued_at >= '${addDays(t.today, -10)}'`),
  ),
  // Communications by occurred_at yesterday (2026-03-17, UTC): three; this week's and today's
  // counts are wrong answers.
  ...phrasings(4, ["how many times were we in touch with clients yesterday"], (t) =>
    countOf(t, "communications", within("occurred_at", addDays(t.today, -1), t.today), [
      within("occurred_at", "2026-03-16", "2026-03-23"),
      within("occurred_at", t.today, addDays(t.today, 1)),
    ]),
  ),
  // Open deals by expected_close_date from today to 2026-04-30: five; the lead whose date (03-04)
  // has passed is out.
  ...phrasings(4, ["open deals set to close between now and end of april"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date BETWEEN '${t.today}' AND '2026-04-30'`),
  ),
  // Overdue invoices by due_date in February: five (those issued in February are another set).
  ...phrasings(4, ["late bills that were supposed to be paid in feb"], (t) =>
    t.list("invoices", `s = 'overdue' AND ${within("due_date", ...FEBRUARY)}`),
  ),
  // By issued_at, 02-01..02-14 inclusive: five (the one issued 02-17 is out).
  ...phrasings(4, ["which invoices did we send out feb 1 thru 14"], (t) =>
    t.list("invoices", within("issued_at", "2026-02-01", "2026-02-15")),
  ),
  // Communications by occurred_at, Monday 03-02 to Sunday 03-08: twelve; March's and last week's
  // counts are wrong answers.
  ...phrasings(4, ["how many client interactions in the week starting mar 2"], (t) =>
    countOf(t, "communications", within("occurred_at", "2026-03-02", "2026-03-09"), [
      within("occurred_at", ...MARCH),
      within("occurred_at", ...LAST_WEEK),
    ]),
  ),
  // Candidates by rejected_at in March: Amara Novak and Sofia Lindqvist.
  ...phrasings(4, ["who did we reject in march"], (t) =>
    t.list("candidates", `status = 'rejected' AND ${within("rejected_at", ...MARCH)}`),
  ),
  // Unpaid, due from today to today + 21 (2026-04-08): 03-23, 03-30, 04-02, 04-05 and two on
  // 04-06; the overdue ones are already past their date, the next unpaid one is due 04-23.
  ...phrasings(4, ["which unpaid bills hit their due date within 3 wks"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date BETWEEN '${t.today}' AND '${addDays(t.today, 21)}'`),
  ),
  // Deals by created_at from 2026-02-16: the sixteen created today; the three of 02-15 are out.
  ...phrasings(4, ["deals opened in the past 30 days"], (t) =>
    t.list("deals", `created_at >= '${addDays(t.today, -30)}'`),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  // Backend engineer candidates with no PostgreSQL skill: Ava Okafor (SQL and TypeScript).
  ...phrasings(5, ["backend candidates that dont have postgres on their list"], (t) =>
    t.list(
      "candidates",
      `position = 'Backend engineer'
        AND NOT EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.name = 'PostgreSQL')`,
    ),
  ),
  // Prospects (lifecycle stage) with no deal of any stage: Ada Byron.
  ...phrasings(5, ["which prospects have no deal with us yet"], (t) =>
    t.list(
      "contacts",
      "lifecycle_stage = 'prospect' AND NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id)",
    ),
  ),
  // Contacts without an outbound email in March (Ada Byron, never emailed, among them): ten.
  ...phrasings(5, ["who havent we sent an email to this month"], (t) =>
    t.list(
      "contacts",
      `NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'email'
        AND m.direction = 'outbound' AND ${within("m.occurred_at", ...MARCH)})`,
    ),
  ),
  // Customers not tagged priority: Ava Okafor and Theo Novak.
  ...phrasings(5, ["which of our customers are missing the priority tag"], (t) =>
    t.list("contacts", "lifecycle_stage = 'customer' AND NOT ('priority' = ANY(coalesce(tags, '{}')))"),
  ),
  // Open deals with no communication in March: five.
  ...phrasings(5, ["open deals with no calls, emails, texts or meetings this month"], (t) =>
    t.list(
      "deals",
      `${OPEN_DEAL} AND NOT EXISTS (SELECT 1 FROM communications m WHERE m.deal_id = v.id
        AND ${within("m.occurred_at", ...MARCH)})`,
    ),
  ),
  // Unpaid (open or overdue) not in dollars: seventeen.
  ...phrasings(5, ["unpaid invoices, leave out the dollar ones"], (t) =>
    t.list("invoices", `${UNPAID} AND cur <> 'USD'`),
  ),
  // Contacts with no SMS and no call (either direction; read as ours only, the same four).
  ...phrasings(5, ["who have we never texted or called"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel IN ('sms', 'call'))",
    ),
  ),
  // Clients with a card payment other than Kestrel Robotics: Northwind Traders and Meridian Legal;
  // the clients with no card payment are absent (Kestrel may be named as the exception).
  ...phrasings(5, ["besides kestrel, who's paid us by card"], (t) =>
    namesWhere(
      t,
      `SELECT i.client AS name, coalesce(bool_or(p.method = 'card'), false) AS hit FROM invoices i
         LEFT JOIN payments p ON p.invoice_id = i.id WHERE i.org_id = $1 AND i.client <> 'Kestrel Robotics'
        GROUP BY 1 ORDER BY 1`,
    ),
  ),
  // Inbound communications other than email: two meetings and a text; every non-email and every
  // inbound communication are wrong answers.
  ...phrasings(5, ["how many times did people reach us some way other than email"], (t) =>
    countOf(t, "communications", "direction = 'inbound' AND channel <> 'email'", [
      "channel <> 'email'",
      "direction = 'inbound'",
    ]),
  ),
  // Candidates with no skill verified by the hiring panel: seven.
  ...phrasings(5, ["applicants who havent had a skill checked by the hiring panel"], (t) =>
    t.list(
      "candidates",
      `NOT EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.status = 'verified'
        AND s.verified_by = 'Hiring panel')`,
    ),
  ),
  // Helios Energy's deals not won: the solar monitoring pilot (qualified).
  ...phrasings(5, ["anything with helios we havent won yet"], (t) =>
    t.list("deals", "company = 'Helios Energy' AND stage <> 'won'"),
  ),
  // Overdue invoices of at most 10,000 (on the amount or on what is owed, the same six).
  ...phrasings(5, ["late invoices, minus the ones above 10k"], (t) =>
    t.list("invoices", "s = 'overdue' AND amount <= 10000"),
  ),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // Every invoice of Kestrel Robotics (none is a draft or void) added up per currency; what they
  // still owe and what they paid are wrong answers, except where such a total is also one of the
  // invoices' own amount, balance or payment (the one USD invoice's balance, 1,000.50, and paid
  // 250 are its totals too), which a correct reply listing the invoices shows.
  ...phrasings(6, ["add up all the invoices we've billed kestrel"], async (t) => {
    const kestrel = "client = 'Kestrel Robotics'";
    const found = await aggregate(
      t.total("invoices", "amount", kestrel),
      t.total("invoices", "owed", `${kestrel} AND ${UNPAID}`),
      t.total("invoices", "amount_paid", kestrel),
    );
    const own = (await t.rows<Row>("invoices", kestrel)).flatMap((i) =>
      [i.amount, i.owed, i.amount_paid].map((v) => t.money(String(v), String(i.cur))),
    );
    return { ...found, absent: found.absent!.filter((text) => !own.includes(text)) };
  }),
  // Inbound texts from him: one; all his texts and all his communications are wrong answers.
  ...phrasings(6, ["how often has ravi okafor messaged us by sms"], (t) =>
    countOf(
      t,
      "communications",
      "contact_name = 'Ravi Okafor' AND channel = 'sms' AND direction = 'inbound'",
      ["contact_name = 'Ravi Okafor' AND channel = 'sms'", "contact_name = 'Ravi Okafor'"],
    ),
  ),
  // Communications linked to the Juniper Health retainer: a call and a meeting; all of Yara
  // Haddad's (with the introduction) are a wrong answer.
  ...phrasings(6, ["count the convos logged against the juniper retainer deal"], (t) =>
    countOf(
      t,
      "communications",
      "deal_id IN (SELECT d.id FROM deals d WHERE d.title = 'Consulting retainer — Juniper Health')",
      ["contact_name = 'Yara Haddad'"],
    ),
  ),
  // The candidates with a skill verified by Marco Rossi: Liam Moreau.
  ...phrasings(6, ["who did marco rossi verify"], (t) =>
    t.list(
      "candidates",
      "EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.verified_by LIKE 'Marco Rossi%')",
    ),
  ),
  // Noah Iyer's highest-level skill: dbt (advanced); his other skills are lower.
  ...phrasings(6, ["what's noah iyer strongest at"], (t) =>
    leaders(
      t,
      `SELECT s.name, (${RANK("s.level")})::text AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND c.name = 'Noah Iyer' ORDER BY ${RANK("s.level")} DESC`,
    ),
  ),
  // Helios Energy's one dollar invoice: INV-000032, due 2026-03-23; its other invoices' due dates
  // are wrong answers.
  ...phrasings(6, ["due date on helios's usd invoice?"], async (t) => {
    const row = await only(t, "invoices", "client = 'Helios Energy' AND cur = 'USD'");
    const day = await t.value("SELECT due_date::text FROM invoices WHERE org_id = $1 AND id = $2", [row.id]);
    const others = await t.sql<{ d: string }>(
      "SELECT DISTINCT due_date::text AS d FROM invoices WHERE org_id = $1 AND client = 'Helios Energy' AND id <> $2",
      [row.id],
    );
    return {
      present: [day!],
      absent: besides(
        [day!],
        others.map((o) => o.d),
      ),
    };
  }),
  // Oakridge Builders' invoices by amount: INV-000009 (28,800) over INV-000021 (9,600).
  ...phrasings(6, ["oakridges biggest bill"], (t) =>
    best(t, "invoices", "client = 'Oakridge Builders'", "amount", 1),
  ),
  // Acme Logistics' lost deals: one (the onboarding workshop of 13,500).
  ...phrasings(6, ["any lost opps at acme logistics"], (t) =>
    t.list("deals", "company = 'Acme Logistics' AND stage = 'lost'"),
  ),
  // Emails with Jonas Tanaka (either direction) in March: two; all his emails, all his March
  // communications and all of his are wrong answers.
  ...phrasings(6, ["how many emails went back n forth with jonas tanaka in march"], (t) =>
    countOf(
      t,
      "communications",
      `contact_name = 'Jonas Tanaka' AND channel = 'email' AND ${within("occurred_at", ...MARCH)}`,
      [
        "contact_name = 'Jonas Tanaka' AND channel = 'email'",
        `contact_name = 'Jonas Tanaka' AND ${within("occurred_at", ...MARCH)}`,
        "contact_name = 'Jonas Tanaka'",
      ],
    ),
  ),
  // Amara Novak's expert skills: Prototyping and User research (Figma is intermediate).
  ...phrasings(6, ["amara novak - which skills is she expert in"], (t) =>
    t.list("skills", "candidate_name = 'Amara Novak' AND level = 'expert'"),
  ),
  // Yara Kowalski's skills verified by the hiring panel: German; her claimed ones are absent.
  ...phrasings(6, ["what has the hiring panel signed off for yara kowalski"], async (t) => {
    const rows = await t.sql<{ name: string; hit: boolean }>(
      `SELECT s.name, (s.status = 'verified' AND s.verified_by = 'Hiring panel') AS hit FROM skills s
        JOIN candidates c ON c.id = s.candidate_id WHERE s.org_id = $1 AND c.name = 'Yara Kowalski' ORDER BY 1`,
    );
    const present = rows.filter((r) => r.hit).map((r) => r.name);
    if (present.length === 0) throw new Error("nothing signed off");
    return { present, absent: rows.filter((r) => !r.hit).map((r) => r.name) };
  }),
  // The Kestrel Robotics pilot programme's value; Kestrel's other deals' values are wrong.
  ...phrasings(6, ["kestrel pilot programme - size of that deal?"], async (t) => {
    const row = await only(t, "deals", "title = 'Pilot programme — Kestrel Robotics'");
    const value = t.money(String(row.value), String(row.cur));
    const others = (
      await t.rows<Row>("deals", "company = 'Kestrel Robotics' OR title LIKE 'Pilot programme%'")
    )
      .filter((d) => d.id !== row.id)
      .map((d) => t.money(String(d.value), String(d.cur)));
    return { present: [value], absent: besides([value], others) };
  }),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  // March payments other than direct debits: eleven.
  ...followUps(["list march payments"], ["drop the direct debit ones"], (t) =>
    t.list("payments", `${within("received_at", ...MARCH)} AND method <> 'direct_debit'`),
  ),
  // Deals expected to close in April (all four open) added up: 47,000 EUR; every deal's and the
  // whole pipeline's totals are wrong answers.
  ...followUps(["deals with an april close date"], ["whats that add up to"], (t) =>
    totalOf(t, "deals", "value", within("expected_close_date", ...APRIL), ["true", OPEN_DEAL]),
  ),
  // The skill names of the data analyst candidates (Mia Haddad, Noah Iyer); names no data analyst
  // holds are absent.
  ...followUps(["list data analyst candidates"], ["what skills do they list"], (t) =>
    namesWhere(
      t,
      `SELECT s.name, bool_or(c.position = 'Data analyst') AS hit FROM skills s
         JOIN candidates c ON c.id = s.candidate_id WHERE s.org_id = $1 GROUP BY 1 ORDER BY 1`,
    ),
  ),
  // The three unpaid invoices with the most owed are Larkspur's, Acme's and Oakridge's; by client
  // (what each owes in all) the top three are the same clients. The other clients owing are absent.
  ...followUps(["everything still unpaid pls", "sort by who owes the most"], ["top 3?"], async (t) => {
    const byInvoice = await best(t, "invoices", UNPAID, "owed", 3);
    const clients = await t.sql<{ client: string; number: string }>(
      `SELECT client, number FROM invoices WHERE org_id = $1 ORDER BY number`,
    );
    const clientOf = (n: string) => clients.find((c) => c.number === n)!.client;
    const present = [...new Set(byInvoice.present.map(clientOf))];
    const byClient = await leaders(
      t,
      `SELECT client AS name, sum(amount - amount_paid)::text AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' GROUP BY client, currency ORDER BY sum(amount - amount_paid) DESC`,
      3,
    );
    if (present.length !== 3 || [...byClient.present].sort().join() !== [...present].sort().join())
      throw new Error("the readings of the top 3 disagree");
    return { present, absent: byClient.absent };
  }),
  // Contacts we sent a text to in March: six; Zoe Okafor's text was in February.
  ...followUps(["texts we sent", "only in march"], ["who were they to"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'sms'
        AND m.direction = 'outbound' AND ${within("m.occurred_at", ...MARCH)})`,
    ),
  ),
  // Customers with an overdue invoice (by contact): four.
  ...followUps(["contacts at customer stage"], ["which of them have overdue invoices"], (t) =>
    t.list(
      "contacts",
      `lifecycle_stage = 'customer' AND EXISTS (SELECT 1 FROM invoices i WHERE i.contact_id = v.id
        AND i.status = 'open' AND i.due_date < $2::date)`,
    ),
  ),
  // March payments added up per method (and currency); every payment's totals per method are
  // wrong answers.
  ...followUps(["whats our cash in so far this month"], ["split that by payment method"], async (t) => {
    const present: string[] = [];
    const wrong: string[] = [];
    for (const method of ["bank_transfer", "card", "direct_debit"]) {
      present.push(
        ...(await t.total("payments", "amount", `method = $3 AND ${within("received_at", ...MARCH)}`, [
          method,
        ])),
      );
      wrong.push(...(await t.total("payments", "amount", "method = $3", [method])));
    }
    if (new Set(present).size !== present.length) throw new Error("two methods with the same total");
    return { present, absent: besides(present, wrong) };
  }),
  // Payments over 1,000 whose invoice is paid in full: six; the instalments of 2,000, 2,500 and
  // 1,600 are out.
  ...followUps(["payments bigger than 1,000"], ["just the ones that settled the invoice in full"], (t) =>
    t.list(
      "payments",
      "amount > 1000 AND invoice_id IN (SELECT i.id FROM invoices i WHERE i.status = 'paid')",
    ),
  ),
  // Helios Energy's won deals added up: 16,500 EUR; every won deal's total is a wrong answer.
  ...followUps(["show our wins", "only helios"], ["total?"], (t) =>
    totalOf(t, "deals", "value", "stage = 'won' AND company = 'Helios Energy'", ["stage = 'won'"]),
  ),
  // Contacts with a call or meeting in February: Liam Haddad and Mia Schmidt.
  ...followUps(["calls and meetings last month"], ["who were they with"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel IN ('call', 'meeting')
        AND ${within("m.occurred_at", ...FEBRUARY)})`,
    ),
  ),
  // Overdue invoices with nothing paid: what they owe added up (93,010.98 EUR); every overdue
  // invoice's owed total (with the partly paid ones) is a wrong answer.
  ...followUps(
    ["list bills that are past due", "leave out the ones theyve partly paid"],
    ["total owed?"],
    (t) => totalOf(t, "invoices", "owed", "s = 'overdue' AND amount_paid = 0", ["s = 'overdue'"]),
  ),
  // Blue Fjord Studio's invoices, every status: three.
  ...followUps(["show acme's invoices"], ["what about blue fjord"], (t) =>
    t.list("invoices", "client = 'Blue Fjord Studio'"),
  ),
];

export const holdout5: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
