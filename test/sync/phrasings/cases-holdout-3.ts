import { addDays, followUps, phrasings, type Case, type Expectation, type Q } from "./grade.ts";
import {
  within,
  aggregate,
  ratio,
  countOf,
  totalOf,
  only,
  type Row,
  UNPAID,
  OPEN_DEAL,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  MAY,
  THIS_WEEK,
  Q2,
  YEAR,
} from "./truths.ts";

/**
 * The THIRD HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven categories
 * of the phrasing exam, written blind (without reading the planner or its answers), in the words an
 * owner types (lower case, typos, abbreviations, slang, with or without punctuation), none of them
 * copied from cases-1-3.ts, cases-4-5.ts, cases-6-7.ts, cases-holdout.ts or cases-holdout-2.ts. The
 * conventions are grade.ts's; every truth is computed from the tables when the test runs, and a
 * truth that would be empty, tied or ambiguous throws (the exam's own fault, reported apart).
 * Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22, this month March, Q1 January to
 * March, Q2 April to June.
 */

/**
 * The one name that ranks first in `text` (rows of `name` and `n`, best first); throws on a tie
 * for the first place or on no rows.
 */
const leader = async (t: Q, text: string, params: unknown[] = []): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text, params);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for the first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  return { present: [rows[0]!.name] };
};

/** Counts per calendar month of 2026 (`column` of `table`, `where` on it), each bold. */
const perMonth = async (t: Q, table: string, column: string, where = "true") => {
  const months = await t.sql<{ month: string; n: number }>(
    `SELECT to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::int AS n FROM ${table}
      WHERE org_id = $1 AND ${column} >= '2026-01-01' AND ${column} < '2027-01-01' AND (${where})
      GROUP BY 1 ORDER BY 1`,
  );
  if (months.length < 2) throw new Error(`${table} per month: fewer than two months`);
  return months.map((row) => t.bold(row.n));
};

/**
 * The `rank`-th deal by value (1 = the largest): its title and value. Throws when a neighbour
 * ties with it (the rank would be ambiguous).
 */
const nthDeal = async (t: Q, rank: number): Promise<Expectation> => {
  const deals = await t.rows<Row>("deals", "true", [], "value DESC");
  const at = deals[rank - 1];
  if (!at) throw new Error(`fewer than ${rank} deals`);
  const same = (other: Row | undefined) => other && Number(other.value) === Number(at.value);
  if (same(deals[rank - 2]) || same(deals[rank])) throw new Error(`a tie at rank ${rank}`);
  return { present: [at.title!, t.money(at.value!, at.cur!)] };
};

/** The day (YYYY-MM-DD, UTC) of the latest communication with `name` matching `where`. */
const lastDay = (t: Q, name: string, where: string) =>
  t.value(
    `SELECT to_char(max(m.occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM communications m
      JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1 AND c.name = $2 AND (${where})`,
    [name],
  );

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Every status and currency, strict: the 239.92 and 209.93 invoices are in, nothing is at 250.
  ...phrasings(1, ["which invocies r less than 250"], (t) => t.list("invoices", "amount < 250")),
  // "15k+" is inclusive: the 15,000 deal is in. Every stage.
  ...phrasings(1, ["deals worth 15k+"], (t) => t.list("deals", "value >= 15000")),
  // "no bigger than" is at most: the 375.00 payment is in, the 450.00 one out. Every currency.
  ...phrasings(1, ["payments no bigger than 375"], (t) => t.list("payments", "amount <= 375")),
  // Inclusive: the 1,250 onboarding workshop is in.
  ...phrasings(1, ["catalog items at 1,250 or less"], (t) => t.list("products", "price <= 1250")),
  // On what is still owed (the words say so), inclusive: the one with exactly 3,800 left is in; the
  // 5,000 invoice with 2,500 left is out.
  ...phrasings(1, ["late invoices where they still owe at least 3800"], (t) =>
    t.list("invoices", "s = 'overdue' AND owed >= 3800"),
  ),
  // A euro sign restricts to EUR: the 4,200 USD pipeline deal is out.
  ...phrasings(1, ["pipeline deals below €5k"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND cur = 'EUR' AND value < 5000`),
  ),
  // Open deals whose expected close date is strictly after 2026-04-20.
  ...phrasings(1, ["pipeline deals closing after apr 20"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date > '2026-04-20'`),
  ),
  // Levels are ordered beginner < intermediate < advanced < expert; the skills (records) counted.
  ...phrasings(1, ["skills at advanced lvl or higher"], (t) =>
    t.list("skills", "level IN ('advanced', 'expert')"),
  ),
  ...phrasings(1, ["which paid invoices topped 15k"], (t) =>
    t.list("invoices", "s = 'paid' AND amount > 15000"),
  ),
  // A dollar sign restricts to USD: the 2,500 EUR win is out.
  ...phrasings(1, ["deals we won for less than $3,000"], (t) =>
    t.list("deals", "stage = 'won' AND cur = 'USD' AND value < 3000"),
  ),
  // Every currency: the 250.00 USD card payment is below 300 and out.
  ...phrasings(1, ["card pmts above 300"], (t) => t.list("payments", "method = 'card' AND amount > 300")),
  // Strict: the two 9,600.00 invoices are out (owed > 9600 selects the same four).
  ...phrasings(1, ["unpaid invoices bigger than 9.6k"], (t) =>
    t.list("invoices", `${UNPAID} AND amount > 9600`),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // By value, every stage: 19,500 first, 17,000 second.
  ...phrasings(2, ["whats our 2nd largest deal"], (t) => nthDeal(t, 2)),
  // Won deals counted per company: Helios Energy has two, every other company one at most.
  ...phrasings(2, ["which client have we won the most deals with"], (t) =>
    leader(
      t,
      `SELECT c.company AS name, count(*)::text AS n FROM deals d JOIN contacts c ON c.id = d.contact_id
        WHERE d.org_id = $1 AND d.stage = 'won' GROUP BY c.company ORDER BY count(*) DESC, c.company`,
    ),
  ),
  // The overdue invoice with the latest due date.
  ...phrasings(2, ["what invoice went overdue most recently"], (t) =>
    t.top("invoices", "s = 'overdue'", "due_date", 1),
  ),
  // Reached out to us = the latest inbound communication's contact.
  ...phrasings(2, ["who was the last person to reach out to us"], (t) =>
    leader(
      t,
      `SELECT c.name, m.occurred_at::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.direction = 'inbound' ORDER BY m.occurred_at DESC`,
    ),
  ),
  // Sent out = issued, by issued_at in March.
  ...phrasings(2, ["biggest invoice we sent out this month"], (t) =>
    t.top("invoices", within("issued_at", ...MARCH), "amount", 1),
  ),
  // Skill names counted among the expert-level skills.
  ...phrasings(2, ["which skill shows up most at expert level"], (t) =>
    leader(
      t,
      `SELECT name, count(*)::text AS n FROM skills WHERE org_id = $1 AND level = 'expert'
        GROUP BY name ORDER BY count(*) DESC, name`,
    ),
  ),
  // Outbound emails counted per contact.
  ...phrasings(2, ["who have we sent the most emails to"], (t) =>
    leader(
      t,
      `SELECT c.name, count(*)::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.channel = 'email' AND m.direction = 'outbound'
        GROUP BY c.name ORDER BY count(*) DESC, c.name`,
    ),
  ),
  ...phrasings(2, ["priciest product under 4k"], (t) => t.top("products", "price < 4000", "price", 1)),
  ...phrasings(2, ["2 largest payments made by card"], (t) =>
    t.top("payments", "method = 'card'", "amount", 2),
  ),
  // The one candidate at the offer stage (the hired one is already hired).
  ...phrasings(2, ["which candidate is closest to getting hired"], async (t) => {
    const row = await only(t, "candidates", "status = 'offer'");
    return { present: [row.name!] };
  }),
  ...phrasings(2, ["tiniest invoice that got settled"], (t) =>
    t.top("invoices", "s = 'paid'", "amount", 1, "asc"),
  ),
  ...phrasings(2, ["largest lead-stage deal"], (t) => t.top("deals", "stage = 'lead'", "value", 1)),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  // The median of the eight bank transfers; their average and every payment's median are wrong.
  ...phrasings(3, ["whats the median paymnet by bank transfer"], (t) =>
    aggregate(
      t.median("payments", "amount", "method = 'bank_transfer'"),
      t.average("payments", "amount", "method = 'bank_transfer'"),
      t.median("payments", "amount"),
    ),
  ),
  // Invoices counted per shown status (overdue apart from open): 10, 9, 8, 3 and 2.
  ...phrasings(3, ["inv count by status"], async (t) => {
    const rows = await t.sql<{ s: string; n: number }>(
      `SELECT CASE WHEN status = 'open' AND due_date < $2::date THEN 'overdue' ELSE status END AS s,
              count(*)::int AS n FROM invoices WHERE org_id = $1 GROUP BY 1 ORDER BY 2 DESC`,
      [t.today],
    );
    const present = [...new Set(rows.map((row) => t.bold(row.n)))];
    if (present.length !== rows.length) throw new Error("two statuses with the same count");
    return { present };
  }),
  // The average payment of each method, per currency.
  ...phrasings(3, ["avg payment size for each method"], async (t) => {
    const methods = await t.sql<{ method: string }>(
      "SELECT DISTINCT method FROM payments WHERE org_id = $1 ORDER BY method",
    );
    const present: string[] = [];
    for (const { method } of methods)
      present.push(...(await t.average("payments", "amount", "method = $3", [method])));
    return aggregate(Promise.resolve([...new Set(present)]), t.average("payments", "amount"));
  }),
  // Partly paid: something paid, not all. What is left on each, averaged per currency; the average
  // balance of every unpaid invoice is a wrong answer.
  ...phrasings(3, ["on the partly paid invoices, whats the avg remaining balance"], (t) =>
    aggregate(
      t.average("invoices", "owed", "amount_paid > 0 AND amount_paid < amount"),
      t.average("invoices", "owed", UNPAID),
    ),
  ),
  // Open deals' lowest and highest value per currency; every deal's highest is a wrong answer.
  ...phrasings(3, ["pipeline deal values - lowest n highest?"], async (t) => {
    const low = await t.perCurrency("deals", "min(value)", OPEN_DEAL);
    const high = await t.perCurrency("deals", "max(value)", OPEN_DEAL);
    return aggregate(Promise.resolve([...new Set([...low, ...high])]), t.perCurrency("deals", "max(value)"));
  }),
  // Denominator: the overdue invoices (named); partly paid = something paid.
  ...phrasings(3, ["what % of overdue invoices are partly paid"], (t) =>
    ratio(t.share("invoices", "amount_paid > 0", "s = 'overdue'")),
  ),
  // Denominator: every candidate.
  ...phrasings(3, ["what percent of applicants gave us a phone #"], (t) =>
    ratio(t.share("candidates", "phone IS NOT NULL")),
  ),
  // Skills (records) over candidates, rounded to two decimals.
  ...phrasings(3, ["on avg how many skills does each canidate list"], async (t) => {
    const v = await t.value(
      `SELECT round((SELECT count(*) FROM skills WHERE org_id = $1)::numeric
                  / (SELECT count(*) FROM candidates WHERE org_id = $1), 2)::text`,
    );
    if (!v) throw new Error("no candidates");
    return { present: [v] };
  }),
  // Closed (won or lost) deals counted per month of closed_at. The year's count is not absent: a
  // correct reply may add the months up.
  ...phrasings(3, ["deals closed per month this yr, won or lost"], async (t) => ({
    present: await perMonth(t, "deals", "closed_at", "stage IN ('won', 'lost')"),
  })),
  // Denominator: every communication.
  ...phrasings(3, ["how much of our communication is inbound, percentage wise"], (t) =>
    ratio(t.share("communications", "direction = 'inbound'")),
  ),
  // Denominator: the verified skills (named).
  ...phrasings(3, ["of the verified skills, how many % are expert"], (t) =>
    ratio(t.share("skills", "level = 'expert'", "status = 'verified'")),
  ),
  // Deals expected to close in April (all open), averaged per currency; every open deal's average
  // is a wrong answer.
  ...phrasings(3, ["avg size of deals expected to close in april"], (t) =>
    aggregate(
      t.average("deals", "value", within("expected_close_date", ...APRIL)),
      t.average("deals", "value", OPEN_DEAL),
    ),
  ),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // Unpaid by due_date, inclusive at both ends: the paid one due 03-22 and the void one due 03-19
  // are out.
  ...phrasings(4, ["unpaid inv due mar 20 thru apr 5"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date BETWEEN '2026-03-20' AND '2026-04-05'`),
  ),
  // Received before 2026-03-01.
  ...phrasings(4, ["what payments came in before march"], (t) =>
    t.list("payments", "received_at < '2026-03-01'"),
  ),
  // Created this week (Monday 2026-03-16 on): the three deals added in February are out.
  ...phrasings(4, ["new deals this wk?"], (t) => t.list("deals", within("created_at", ...THIS_WEEK))),
  // Paid off = paid in full, by paid_at today; the part payments received today are not.
  ...phrasings(4, ["which invoices were paid off today"], (t) =>
    t.list("invoices", `s = 'paid' AND ${within("paid_at", t.today, addDays(t.today, 1))}`),
  ),
  // Hired by hired_at in the last 7 days (2026-03-11 on).
  ...phrasings(4, ["did we hire anybody in the last 7 days"], (t) =>
    t.list("candidates", `status = 'hired' AND hired_at >= '${addDays(t.today, -7)}'`),
  ),
  // Inbound by occurred_at this week; every inbound one and every one this week are wrong answers.
  ...phrasings(4, ["how many inbound messages this week"], (t) =>
    countOf(t, "communications", `direction = 'inbound' AND ${within("occurred_at", ...THIS_WEEK)}`, [
      "direction = 'inbound'",
      within("occurred_at", ...THIS_WEEK),
    ]),
  ),
  // Applied = created_at, before 2026-02-16 (30 days ago).
  ...phrasings(4, ["candidates who applied over 30 days ago"], (t) =>
    t.list("candidates", `created_at < '${addDays(t.today, -30)}'`),
  ),
  // Verified by verified_at in February.
  ...phrasings(4, ["what skills did we verify back in february"], (t) =>
    t.list("skills", `status = 'verified' AND ${within("verified_at", ...FEBRUARY)}`),
  ),
  // Closed (won or lost) by closed_at today: the deal won in February is out.
  ...phrasings(4, ["what deals got closed out today"], (t) =>
    t.list("deals", `stage IN ('won', 'lost') AND ${within("closed_at", t.today, addDays(t.today, 1))}`),
  ),
  // Open deals whose expected close date is before today.
  ...phrasings(4, ["open deals that blew past their expected close date"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date < $2::date`),
  ),
  // Gone out = issued, by issued_at from 2026-03-10 on (the 10th of this month).
  ...phrasings(4, ["what invoices have gone out since the 10th"], (t) =>
    t.list("invoices", "issued_at >= '2026-03-10'"),
  ),
  // Unpaid, by due_date in April..June; the paid ones and the drafts due then are out.
  ...phrasings(4, ["which unpaid invoices fall due in q2"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("due_date", ...Q2)}`),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  // Contacts with no open deal (those with only won deals, and the one with no deal at all).
  ...phrasings(5, ["contacts with nothing in the pipeline"], (t) =>
    t.list(
      "contacts",
      `NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id AND d.stage IN ('lead', 'qualified', 'proposal'))`,
    ),
  ),
  ...phrasings(5, ["candidates with no expert level skills"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.level = 'expert')",
    ),
  ),
  // Received outside March (all before it).
  ...phrasings(5, ["payments that didnt come in this month"], (t) =>
    t.list("payments", `NOT (${within("received_at", ...MARCH)})`),
  ),
  ...phrasings(5, ["non priority contacts that arent customers"], (t) =>
    t.list(
      "contacts",
      "NOT ('priority' = ANY(coalesce(tags, '{}'))) AND lifecycle_stage IS DISTINCT FROM 'customer'",
    ),
  ),
  // Clients (of invoices) with no overdue invoice; those with one are absent.
  ...phrasings(5, ["clients with zero overdue invoices"], async (t) => {
    const clients = await t.sql<{ client: string; late: boolean }>(
      `SELECT client, bool_or(status = 'open' AND due_date < $2::date) AS late FROM invoices
        WHERE org_id = $1 GROUP BY 1 ORDER BY 1`,
      [t.today],
    );
    const present = clients.filter((c) => !c.late).map((c) => c.client);
    if (present.length === 0) throw new Error("every client has an overdue invoice");
    return { present, absent: clients.filter((c) => c.late).map((c) => c.client) };
  }),
  // Phoned = a call (either direction); the two contacts with a call are absent.
  ...phrasings(5, ["contacts we've never phoned"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'call')",
    ),
  ),
  // Every status but paid: drafts, voids, open and overdue.
  ...phrasings(5, ["all inv except paid ones"], (t) => t.list("invoices", "s <> 'paid'")),
  // No invoice made out to the contact.
  ...phrasings(5, ["contacts we've never invoiced"], (t) =>
    t.list("contacts", "NOT EXISTS (SELECT 1 FROM invoices i WHERE i.contact_id = v.id)"),
  ),
  // Positions with no hired candidate.
  ...phrasings(5, ["which roles havent we hired for yet"], async (t) => {
    const roles = await t.sql<{ position: string; hired: boolean }>(
      `SELECT position, bool_or(status = 'hired') AS hired FROM candidates WHERE org_id = $1
        AND position IS NOT NULL GROUP BY 1 ORDER BY 1`,
    );
    const present = roles.filter((r) => !r.hired).map((r) => r.position);
    if (present.length === 0) throw new Error("every role has a hire");
    return { present };
  }),
  // The deal's contact is not a customer (a lead or a prospect).
  ...phrasings(5, ["deals where the contact isnt a customer"], (t) =>
    t.list(
      "deals",
      "contact_id IN (SELECT c.id FROM contacts c WHERE c.lifecycle_stage IS DISTINCT FROM 'customer')",
    ),
  ),
  // Communications with no deal; every one's and those with a deal's counts absent.
  ...phrasings(5, ["how many messages had nothing to do with a deal"], (t) =>
    countOf(t, "communications", "deal_id IS NULL", ["true", "deal_id IS NOT NULL"]),
  ),
  // Verified by someone other than the hiring panel.
  ...phrasings(5, ["verified skills that the hiring panel didnt sign off on"], (t) =>
    t.list("skills", "status = 'verified' AND verified_by IS DISTINCT FROM 'Hiring panel'"),
  ),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // Her two deals (one title), each with its value.
  ...phrasings(6, ["sofia novak, what r her deals worth"], async (t) => {
    const deals = await t.rows<Row>("deals", "contact_name = 'Sofia Novak'");
    if (deals.length < 2) throw new Error("Sofia Novak has fewer than two deals");
    return {
      present: [...new Set(deals.flatMap((d) => [d.title!, t.money(d.value!, d.cur!)]))],
    };
  }),
  // Texts we sent (outbound SMS) to him; every communication with him and every text we sent are
  // wrong answers.
  ...phrasings(6, ["how many texts have we sent ravi reyes"], (t) =>
    countOf(
      t,
      "communications",
      "contact_name = 'Ravi Reyes' AND channel = 'sms' AND direction = 'outbound'",
      ["contact_name = 'Ravi Reyes'", "channel = 'sms' AND direction = 'outbound'"],
    ),
  ),
  // His latest meeting; his latest communication (an email) is a wrong answer.
  ...phrasings(6, ["last meeting w jonas tanaka?"], async (t) => {
    const right = await lastDay(t, "Jonas Tanaka", "m.channel = 'meeting'");
    if (!right) throw new Error("no meeting with Jonas Tanaka");
    const latest = await lastDay(t, "Jonas Tanaka", "true");
    return { present: [right], absent: latest && latest !== right ? [latest] : [] };
  }),
  // Acme Logistics' payments received in March.
  ...phrasings(6, ["has acme paid anything this month"], (t) =>
    t.list("payments", `client = 'Acme Logistics' AND ${within("received_at", ...MARCH)}`),
  ),
  // "open" is the shown status (Juniper has no overdue invoice: both readings agree).
  ...phrasings(6, ["juniper invoices, which r still open"], (t) =>
    t.list("invoices", "client = 'Juniper Health' AND s = 'open'"),
  ),
  // Where we found a candidate = the source.
  ...phrasings(6, ["where did we find noah iyer"], async (t) => {
    const row = await only(t, "candidates", "name = 'Noah Iyer'");
    if (!row.source) throw new Error("Noah Iyer has no source");
    return { present: ["Noah Iyer", row.source] };
  }),
  ...phrasings(6, ["what is yara kowalski good at"], (t) =>
    t.list("skills", "candidate_name = 'Yara Kowalski'"),
  ),
  // The level of one skill of one candidate.
  ...phrasings(6, ["sofia schmidts figma level?"], async (t) => {
    const row = await only(t, "skills", "candidate_name = 'Sofia Schmidt' AND name = 'Figma'");
    return { present: [row.level!] };
  }),
  // Who verified one skill of one candidate.
  ...phrasings(6, ["who signed off on liam moreaus typescript"], async (t) => {
    const row = await only(t, "skills", "candidate_name = 'Liam Moreau' AND name = 'TypeScript'");
    if (!row.verified_by) throw new Error("not verified");
    // The reviewer's name, without the role in brackets ("Marco Rossi (design lead)").
    return { present: [row.verified_by.replace(/\s*\(.*\)$/, "")] };
  }),
  // A deal by its company (Oakridge Builders has one): its title and value.
  ...phrasings(6, ["oakridge opp - how big?"], async (t) => {
    const deal = await only(t, "deals", "company = 'Oakridge Builders'");
    return { present: [deal.title!, t.money(deal.value!, deal.cur!)] };
  }),
  // Her latest inbound email (2026-03-17); the earlier one (2026-03-08, the same subject) is a wrong
  // answer.
  ...phrasings(6, ["what did sofia novak last email us about"], async (t) => {
    const inbound = "m.channel = 'email' AND m.direction = 'inbound'";
    const right = await lastDay(t, "Sofia Novak", inbound);
    if (!right) throw new Error("no inbound email from Sofia Novak");
    const subject = await t.value(
      `SELECT m.subject FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND c.name = 'Sofia Novak' AND ${inbound} ORDER BY m.occurred_at DESC LIMIT 1`,
    );
    if (!subject) throw new Error("no subject");
    const earlier = await t.sql<{ day: string }>(
      `SELECT DISTINCT to_char(m.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM communications m
        JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1 AND c.name = 'Sofia Novak' AND ${inbound}`,
    );
    // The subject names the deal: "Re: Data migration project — Blue Fjord Studio".
    return {
      present: [right, subject.replace(/^Re:\s*/, "").split(" — ")[0]!],
      absent: earlier.map((e) => e.day).filter((day) => day !== right),
    };
  }),
  ...phrasings(6, ["kestrel payments by card"], (t) =>
    t.list("payments", "client = 'Kestrel Robotics' AND method = 'card'"),
  ),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  ...followUps(["which candidates came from an agency"], ["which of them got hired"], (t) =>
    t.list("candidates", "source = 'agency' AND status = 'hired'"),
  ),
  // Blue Fjord Studio's deals (both open) added up; every deal's and the pipeline's totals are wrong.
  ...followUps(["deals for blue fjord"], ["whats the total"], (t) =>
    totalOf(t, "deals", "value", "company = 'Blue Fjord Studio'", ["true", OPEN_DEAL]),
  ),
  // What is owed on the unpaid invoices due in April; their full amounts and every unpaid invoice's
  // balance are wrong answers.
  ...followUps(
    ["whats outstanding w/ an april due date"],
    ["how much is owed on those altogether"],
    async (t) => {
      const where = `${UNPAID} AND ${within("due_date", ...APRIL)}`;
      return aggregate(
        t.total("invoices", "owed", where),
        t.total("invoices", "amount", where),
        t.total("invoices", "owed", UNPAID),
      );
    },
  ),
  // The candidates holding an expert-level skill; those without one are absent.
  ...followUps(["list skills", "only the expert ones"], ["whose are they"], async (t) => {
    const rows = await t.sql<{ name: string; expert: boolean }>(
      `SELECT c.name, bool_or(s.level = 'expert') AS expert FROM candidates c
        JOIN skills s ON s.candidate_id = c.id WHERE c.org_id = $1 GROUP BY c.name ORDER BY c.name`,
    );
    const present = rows.filter((r) => r.expert).map((r) => r.name);
    if (present.length === 0) throw new Error("no expert skills");
    return { present, absent: rows.filter((r) => !r.expert).map((r) => r.name) };
  }),
  ...followUps(["payments by bank transfer"], ["which were under 1k"], (t) =>
    t.list("payments", "method = 'bank_transfer' AND amount < 1000"),
  ),
  // His meetings counted; every communication with him and every meeting are wrong answers.
  ...followUps(["comms with jonas tanaka"], ["just the meetings"], (t) =>
    countOf(t, "communications", "contact_name = 'Jonas Tanaka' AND channel = 'meeting'", [
      "contact_name = 'Jonas Tanaka'",
      "channel = 'meeting'",
    ]),
  ),
  // Won and closed (closed_at) in March: the one won in February is out.
  ...followUps(["won deals"], ["which of them closed this month"], (t) =>
    t.list("deals", `stage = 'won' AND ${within("closed_at", ...MARCH)}`),
  ),
  ...followUps(["overdue invoices"], ["only the ones issued in january"], (t) =>
    t.list("invoices", `s = 'overdue' AND ${within("issued_at", ...JANUARY)}`),
  ),
  // Open deals expected to close in May counted; every deal expected then, and every open deal, are
  // wrong answers.
  ...followUps(["open deals"], ["how many r expected to close in may"], (t) =>
    countOf(t, "deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...MAY)}`, [
      within("expected_close_date", ...MAY),
      OPEN_DEAL,
    ]),
  ),
  // The skills of the candidates at the interview stage.
  ...followUps(["show candidates in interview"], ["what skills do they have"], (t) =>
    t.list("skills", "candidate_id IN (SELECT c.id FROM candidates c WHERE c.status = 'interview')"),
  ),
  // Received in January and February, added up; the year's total is a wrong answer.
  ...followUps(["payments this year", "just jan and feb"], ["add em up"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", JANUARY[0], FEBRUARY[1]), [
      within("received_at", ...YEAR),
    ]),
  ),
  // Leads and prospects with at least one deal (of any stage).
  ...followUps(["contacts that are leads or prospects"], ["which of those have deals"], (t) =>
    t.list(
      "contacts",
      "lifecycle_stage IN ('lead', 'prospect') AND EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id)",
    ),
  ),
];

export const holdout3: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
