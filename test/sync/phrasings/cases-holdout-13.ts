import { followUps, phrasings, type Case, type Expectation, type Q } from "./grade.ts";
import {
  aggregate,
  besides,
  best,
  countOf,
  only,
  totalOf,
  within,
  must,
  shareOfReadings,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  STAGES,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  LAST_WEEK,
  THIS_WEEK,
  Q1,
  Q2,
} from "./truths.ts";

/**
 * The THIRTEENTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven
 * categories of the phrasing exam, written blind (without reading the planner, its documentation,
 * its tests or its answers, and without running it on them), the way an owner types into a chat
 * between two jobs: lower case, typos, abbreviations, filler, run-on sentences, asides. None is
 * copied from the other case files. The conventions are grade.ts's; every truth is computed from
 * the tables when the test runs, and a truth that would be empty, tied or ambiguous throws (the
 * exam's own fault, reported apart). Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22
 * (Monday start), last week 2026-03-09..15, this month March, last month February, this quarter
 * q1 (January to March), next quarter q2 (April to June), this year 2026; "the next two weeks"
 * runs 2026-03-18..2026-04-01 and "more than 30 days late" is due before 2026-02-16.
 */

/**
 * The one name ranked first by `text` (rows of `name` and `n`, best first); throws on no rows or a
 * tie for first place. The runner-up is absent.
 */
const leader = async (t: Q, text: string): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  return { present: [rows[0]!.name], absent: rows.slice(1, 2).map((r) => r.name) };
};

/** A timestamp or date column as the organization's day (UTC), YYYY-MM-DD, in SQL. */
const dayOf = (column: string) => `to_char((${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Unpaid (open or overdue) strictly over 20,000 on amount; on what is owed the set is the same
  // (INV-000009 owes 26,800): INV-000009, INV-000014, INV-000019.
  ...phrasings(1, ["any unpaid inv over 20k?? need to chase the big ones"], (t) =>
    t.list("invoices", `${UNPAID} AND amount > 20000`),
  ),
  // Open deals (lead, qualified, proposal) strictly under 5,000, every currency (the 4,200 USD
  // pilot is in); the two Northwind renewals share a title.
  ...phrasings(1, ["deals under 5k that are still in play"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND value < 5000`),
  ),
  // Payments strictly over 15,000, any currency and method: 38,400, 24,000 and 16,002.50.
  ...phrasings(1, ["pymnts bigger than 15,000 we got, list em"], (t) => t.list("payments", "amount > 15000")),
  // Applied = the candidate's record created; before 2026-03-01: Ava Okafor alone.
  ...phrasings(1, ["did anyone apply before march or are they all new"], (t) =>
    t.list("candidates", "created_at < '2026-03-01'"),
  ),
  // Open deals whose expected close date is strictly after 2026-05-01 (the Oakridge one on
  // 2026-05-02 is in); won and lost ones left out.
  ...phrasings(1, ["open opps w/ an expected close after may 1st"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date > '2026-05-01'`),
  ),
  // Price at most 150, inclusive: the seat licence and the consulting hour (exactly 150).
  ...phrasings(1, ["which products do we sell for 150 or less"], (t) => t.list("products", "price <= 150")),
  // Overdue with strictly more than 5,000 still owed: INV-000018 owes exactly 2,500 (amount 5,000,
  // out either way) and INV-000001 owes 3,800.
  ...phrasings(1, ["overdue invoices where theyre into us for more than 5 grand"], (t) =>
    t.list("invoices", `s = 'overdue' AND owed > 5000`),
  ),
  // Won deals of 10,000 or more, inclusive: the 14,000 Helios seat expansion and the 19,500
  // Meridian workshop (the 2,500 Helios win shares a title).
  ...phrasings(1, ["won deals 10k or more - which were they"], (t) =>
    t.list("deals", "stage = 'won' AND value >= 10000"),
  ),
  // Unpaid invoices due strictly after 2026-04-15: INV-000002, INV-000004, INV-000006 (paid ones
  // and the draft due 04-23 are out).
  ...phrasings(1, ["unpaid invoices w/ a due date after april 15"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date > '2026-04-15'`),
  ),
  // Candidates with four or more skill rows (any status): Yara Kowalski, Noah Iyer, Liam Moreau.
  ...phrasings(1, ["candidates with at least 4 skills on file"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id) >= 4"),
  ),
  // Euro invoices, every status (drafts and voids included), 1,000 to 5,000 inclusive:
  // INV-000018 at exactly 5,000 is in.
  ...phrasings(1, ["every invoice in euros from 1k to 5k, dont care about status"], (t) =>
    t.list("invoices", "cur = 'EUR' AND amount BETWEEN 1000 AND 5000"),
  ),
  // Every stage and currency, strictly under 3,000: 500, 2,000, and both 2,500 wins (EUR, USD).
  ...phrasings(1, ["how many deals r worth under 3000, any stage"], (t) =>
    countOf(t, "deals", "value < 3000", ["value <= 3000", `${OPEN_DEAL} AND value < 3000`]),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Unpaid, by amount: INV-000019 at 38,400 (the paid INV-000030 at 38,400 is not unpaid).
  ...phrasings(2, ["whats our biggest unpaid invoice rn"], (t) => best(t, "invoices", UNPAID, "amount", 1)),
  // Open deals, the lowest value: the 500 Northwind renewal.
  ...phrasings(2, ["smallest deal still open in the pipe?"], (t) =>
    best(t, "deals", OPEN_DEAL, "value", 1, "asc"),
  ),
  // Unpaid, the three issued first (by due date the same three): INV-000014, INV-000009, INV-000003.
  ...phrasings(2, ["the 3 oldest bills ppl still havent paid us"], (t) =>
    best(t, "invoices", UNPAID, "issued_at", 3, "asc"),
  ),
  // Owed (amount - amount_paid) per client over unpaid invoices, in EUR (Kestrel's 1,000.50 USD
  // cannot change the order): Larkspur Foods 38,400 ahead of Oakridge Builders 36,400.
  ...phrasings(2, ["who owes us the most money at the moment"], (t) =>
    leader(
      t,
      `SELECT client AS name, sum(amount - amount_paid) AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' AND trim(currency) = 'EUR' GROUP BY client ORDER BY n DESC`,
    ),
  ),
  // Every payment, any currency: the 119 EUR card instalment (next 119.96).
  ...phrasings(2, ["smallest payment weve ever recieved?"], (t) =>
    best(t, "payments", "true", "amount", 1, "asc"),
  ),
  // Open deals, the latest expected close date: Larkspur's renewal on 2026-05-20.
  ...phrasings(2, ["of the open opps which one is expected to close the latest"], (t) =>
    best(t, "deals", OPEN_DEAL, "expected_close_date", 1),
  ),
  // Communications (any channel, direction) per contact: Jonas Tanaka with 6, next 5.
  ...phrasings(2, ["who have we been in touch with the most, like emails calls everything"], (t) =>
    leader(
      t,
      `SELECT c.name, count(*) AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 GROUP BY c.name ORDER BY n DESC`,
    ),
  ),
  // Lost deals by value: the 13,500 Acme workshop (its title is shared by an open 7,500 deal).
  ...phrasings(2, ["biggest deal we lost"], (t) => best(t, "deals", "stage = 'lost'", "value", 1)),
  // Candidates per position: Backend engineer 4, Product designer 3.
  ...phrasings(2, ["wich role has gotten the most applicants"], (t) =>
    leader(
      t,
      `SELECT position AS name, count(*) AS n FROM candidates WHERE org_id = $1
        GROUP BY position ORDER BY n DESC`,
    ),
  ),
  // Paid invoices by amount: INV-000030 at 38,400 (next 24,000).
  ...phrasings(2, ["biggest inv that actually got paid?"], (t) =>
    best(t, "invoices", "s = 'paid'", "amount", 1),
  ),
  // Open deals, the three largest: 17,000, 15,000, 14,000 (next 11,500).
  ...phrasings(2, ["top 3 opps in the pipeline by size"], (t) => best(t, "deals", OPEN_DEAL, "value", 3)),
  // Payments received 2026-03-01..31 per client, EUR: Kestrel Robotics 41,275 ahead of Juniper
  // Health 24,000 (Kestrel's 250 USD aside).
  ...phrasings(2, ["which client paid us the most in march"], (t) =>
    leader(
      t,
      `SELECT i.client AS name, sum(p.amount) AS n FROM payments p JOIN invoices i ON i.id = p.invoice_id
        WHERE p.org_id = $1 AND trim(p.currency) = 'EUR'
          AND p.received_at >= '2026-03-01' AND p.received_at < '2026-04-01'
        GROUP BY i.client ORDER BY n DESC`,
    ),
  ),
];

// 3. Aggregates ---------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Closed = won or lost: 5 of 7; won among every deal (5 of 19) is a wrong answer.
  ...phrasings(3, ["of the deals we closed one way or the other what % did we actually win"], (t) =>
    shareOfReadings(t, "deals", "stage = 'won'", "stage IN ('won', 'lost')", [["stage = 'won'", "true"]]),
  ),
  // Every standing invoice (open, overdue, paid), per currency; with drafts and voids, or the
  // unpaid ones only, is a wrong answer.
  ...phrasings(3, ["whats the avg invoice size for us"], (t) =>
    aggregate(
      t.average("invoices", "amount", STANDING),
      t.average("invoices", "amount"),
      t.average("invoices", "amount", UNPAID),
    ),
  ),
  // Every deal, any stage, per currency (USD: 2,500 and 4,200); the mean and the open deals'
  // median are wrong answers.
  ...phrasings(3, ["median deal size across everything in the crm"], (t) =>
    aggregate(t.median("deals", "value"), t.average("deals", "value"), t.median("deals", "value", OPEN_DEAL)),
  ),
  // Paid invoices whose payment day is after the due date: 3 of 8; among every invoice is wrong.
  ...phrasings(3, ["what share of the invoices that got paid were paid late"], (t) =>
    shareOfReadings(t, "invoices", "(paid_at AT TIME ZONE 'UTC')::date > due_date", "s = 'paid'", [
      ["(paid_at AT TIME ZONE 'UTC')::date > due_date", "true"],
    ]),
  ),
  // Won deals' mean value per currency; every deal's, or the open ones', is wrong.
  ...phrasings(3, ["avg value of the deals we've won"], (t) =>
    aggregate(
      t.average("deals", "value", "stage = 'won'"),
      t.average("deals", "value"),
      t.average("deals", "value", OPEN_DEAL),
    ),
  ),
  // Received per calendar month of 2026 (Jan, Feb, Mar), per currency; the year's total is wrong.
  ...phrasings(3, ["how much cash came in each month so far this yr, month by month pls"], async (t) => {
    const present: string[] = [];
    for (const [from, to] of [JANUARY, FEBRUARY, MARCH]) {
      const month = await t.total("payments", "amount", within("received_at", from, to));
      if (month.length === 0) throw new Error(`no payments ${from}`);
      present.push(...month);
    }
    const year = await t.total("payments", "amount", within("received_at", ...Q1));
    return { present, absent: besides(present, year) };
  }),
  // Mean of what is still owed over unpaid invoices, per currency; the mean amount is wrong.
  ...phrasings(3, ["on avg how much is left to pay on the invoices that are still outstanding"], (t) =>
    aggregate(t.average("invoices", "owed", UNPAID), t.average("invoices", "amount", UNPAID)),
  ),
  // Verified among every skill row: 8 of 31; verified against unverified (8 of 23) is wrong.
  ...phrasings(3, ["what fraction of all the candidate skills have actually been verified"], async (t) => {
    const present = await t.share("skills", "status = 'verified'", "true");
    const verified = await t.count("skills", "status = 'verified'");
    const not = await t.count("skills", "status <> 'verified'");
    return { present, absent: besides(present, t.ratio(verified, not)) };
  }),
  // Rejected among every candidate: 2 of 11.
  ...phrasings(3, ["what percent of applicants have we rejected"], (t) =>
    shareOfReadings(t, "candidates", "status = 'rejected'", "true", [
      ["status = 'rejected'", "status <> 'hired'"],
    ]),
  ),
  // Lowest and highest price over every product (all EUR); the mean price is wrong.
  ...phrasings(3, ["cheapest and priciest thing in our product list, just the prices"], (t) =>
    aggregate(
      Promise.all([t.perCurrency("products", "min(price)"), t.perCurrency("products", "max(price)")]).then(
        (v) => v.flat(),
      ),
      t.average("products", "price"),
    ),
  ),
  // Every payment's amount, median per currency; the mean is wrong.
  ...phrasings(3, ["median payment ammount?"], (t) =>
    aggregate(t.median("payments", "amount"), t.average("payments", "amount")),
  ),
  // Issued 2026-02-01..28, standing (the void left out), mean per currency; with the void, or
  // March's, is wrong.
  ...phrasings(3, ["avg invoice we sent out last month (ignore the voided one)"], (t) =>
    aggregate(
      t.average("invoices", "amount", `${STANDING} AND ${within("issued_at", ...FEBRUARY)}`),
      t.average("invoices", "amount", within("issued_at", ...FEBRUARY)),
      t.average("invoices", "amount", `${STANDING} AND ${within("issued_at", ...MARCH)}`),
    ),
  ),
];

// 4. Calendar windows ---------------------------------------------------------------------------

const windows: Case[] = [
  // Received in February (calendar); March's, or the last 30 days', total is wrong.
  ...phrasings(4, ["how much money came in last mnth"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", ...FEBRUARY), [
      within("received_at", ...MARCH),
      "received_at >= '2026-02-16'",
    ]),
  ),
  // Issued 2026-03-01..31: 12; by due date (11) or every invoice (32) is wrong.
  ...phrasings(4, ["how many invoices went out this month"], (t) =>
    countOf(t, "invoices", within("issued_at", ...MARCH), [within("due_date", ...MARCH), "true"]),
  ),
  // Unpaid, due 2026-03-18..2026-04-01: INV-000032 and INV-000029 (paid ones and the void due
  // in the window are out; INV-000021 due 04-02 is out).
  ...phrasings(4, ["anything unpaid coming due in the next 2 wks?"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date >= '2026-03-18' AND due_date <= '2026-04-01'`),
  ),
  // Overdue, due before 2026-02-16 (more than 30 days late): INV-000014, INV-000009, INV-000003.
  ...phrasings(4, ["which invoices are more than 30 days past due"], (t) =>
    t.list("invoices", `s = 'overdue' AND due_date < '2026-02-16'`),
  ),
  // Expected close date in q1 (any stage; the closed ones are expected in May): the 500 Northwind
  // renewal and the 7,500 Acme workshop.
  ...phrasings(4, ["which deals r supposed to close by the end of this quarter"], (t) =>
    t.list("deals", within("expected_close_date", ...Q1)),
  ),
  // Open deals expected to close in q2 (April to June).
  ...phrasings(4, ["open deals we expect to land next quarter"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...Q2)}`),
  ),
  // Invoiced in 2026 (issued, standing: the voids left out), per currency; with voids, or
  // March's alone, is wrong.
  ...phrasings(4, ["total we've invoiced ytd, not counting voided stuff"], (t) =>
    totalOf(t, "invoices", "amount", `${STANDING} AND issued_at >= '2026-01-01'`, [
      "issued_at >= '2026-01-01'",
      `${STANDING} AND ${within("issued_at", ...MARCH)}`,
    ]),
  ),
  // Won with closed_at in February: the Kestrel robot fleet rollout.
  ...phrasings(4, ["what deals did we win last mnth"], (t) =>
    t.list("deals", `stage = 'won' AND ${within("closed_at", ...FEBRUARY)}`),
  ),
  // Received 2026-03-16..22: 13; March's 14 or every payment's 16 is wrong.
  ...phrasings(4, ["how many payments landed this week"], (t) =>
    countOf(t, "payments", within("received_at", ...THIS_WEEK), [within("received_at", ...MARCH), "true"]),
  ),
  // Candidates created (applied) in March: 10; every candidate (11) is wrong.
  ...phrasings(4, ["how many ppl applied this month so far"], (t) =>
    countOf(t, "candidates", within("created_at", ...MARCH), ["true"]),
  ),
  // Communications 2026-03-09..15 (Monday to Sunday): 7; this week's, the last 7 days', or
  // March's count is wrong.
  ...phrasings(4, ["how many interactions w/ contacts did we log last wk"], (t) =>
    countOf(t, "communications", within("occurred_at", ...LAST_WEEK), [
      within("occurred_at", ...THIS_WEEK),
      "occurred_at >= '2026-03-11'",
      within("occurred_at", ...MARCH),
    ]),
  ),
  // Unpaid with a due date in February (not issued in February).
  ...phrasings(4, ["unpaid ones that were due back in feb"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("due_date", ...FEBRUARY)}`),
  ),
];

// 5. Negation & the other side ------------------------------------------------------------------

const negations: Case[] = [
  // Status other than verified: 23; the verified 8 or all 31 is wrong.
  ...phrasings(5, ["how many skills r still unverified"], (t) =>
    countOf(t, "skills", "status <> 'verified'", ["status = 'verified'", "true"]),
  ),
  // Lost deals: the Acme workshop (13,500) and the Kestrel pilot.
  ...phrasings(5, ["which deals fell thru?"], (t) => t.list("deals", "stage = 'lost'")),
  // Rejected candidates.
  ...phrasings(5, ["who did we turn down for jobs"], (t) => t.list("candidates", "status = 'rejected'")),
  // Contacts without a phone number: Ada Byron.
  ...phrasings(5, ["any contacts w/o a phone number on file"], (t) =>
    t.list("contacts", "coalesce(phone, '') = ''"),
  ),
  // Unpaid = open or overdue: 19; overdue only (10), open only (9), with drafts (22) or every
  // status but paid (24) is wrong.
  ...phrasings(5, ["how many invoices havent been paid yet (not drafts obviously)"], (t) =>
    countOf(t, "invoices", UNPAID, [
      "s = 'overdue'",
      "s = 'open'",
      "status IN ('open', 'draft')",
      "s <> 'paid'",
    ]),
  ),
  // Open deals not in proposal: lead or qualified.
  ...phrasings(5, ["open deals that arent at proposal stage yet"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND stage <> 'proposal'`),
  ),
  // Candidates with no source recorded.
  ...phrasings(5, ["candidates where we dont know how they found us"], (t) =>
    t.list("candidates", "coalesce(source, '') = ''"),
  ),
  // Deals without an expected close date (any stage).
  ...phrasings(5, ["deals with no close date set"], (t) => t.list("deals", "expected_close_date IS NULL")),
  // Payments by any method but card: 11; card (5) or every payment (16) is wrong.
  ...phrasings(5, ["how many payments werent by card"], (t) =>
    countOf(t, "payments", "method <> 'card'", ["method = 'card'", "true"]),
  ),
  // Candidates neither hired nor rejected.
  ...phrasings(5, ["which applicants havent been hired or turned down yet"], (t) =>
    t.list("candidates", "status NOT IN ('hired', 'rejected')"),
  ),
  // Unpaid and not past due: shown status open (9).
  ...phrasings(5, ["unpaid invoices that arent late yet"], (t) => t.list("invoices", "s = 'open'")),
  // Contacts whose lifecycle stage is not customer (leads and prospects).
  ...phrasings(5, ["contacts that arent customers"], (t) =>
    t.list("contacts", "lifecycle_stage <> 'customer'"),
  ),
];

// 6. Named records inside other resources -------------------------------------------------------

const named: Case[] = [
  // The one Riverbend deal: the consulting retainer, in proposal.
  ...phrasings(6, ["what stage is the riverbend deal at"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE '%riverbend%'");
    return { present: [deal.stage!], absent: STAGES.filter((s) => s !== deal.stage && s !== "lead") };
  }),
  // The one Meridian Legal deal, won: its value.
  ...phrasings(6, ["how much did the meridian deal close for"], async (t) => {
    const deal = await only(t, "deals", "company = 'Meridian Legal'");
    if (deal.stage !== "won") throw new Error("the Meridian deal is not won");
    return { present: [t.money(String(deal.value), deal.cur!)] };
  }),
  // Sofia Novak's latest inbound communication (her latest of any direction is the same day).
  ...phrasings(6, ["when did we last hear from sofia novak"], async (t) => {
    const pick = (direction: string) =>
      must(
        t,
        `SELECT ${dayOf("max(m.occurred_at)")} FROM communications m JOIN contacts c ON c.id = m.contact_id
          WHERE m.org_id = $1 AND c.name = 'Sofia Novak' AND ${direction}`,
      );
    const inbound = await pick("m.direction = 'inbound'");
    if (inbound !== (await pick("true"))) throw new Error("hear from: inbound and any direction differ");
    if (inbound === t.today) throw new Error("the answer is today");
    return { present: [inbound] };
  }),
  // The contact on the arm retrofit deal: Sofia Okafor (the other Okafors are wrong).
  ...phrasings(6, ["whos our contact on the arm retrofit deal"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE 'arm retrofit%'");
    const okafors = await t.labels("contacts", "name ILIKE '%okafor%'");
    return { present: [deal.contact_name!], absent: okafors.filter((n) => n !== deal.contact_name) };
  }),
  // Owed on Larkspur Foods' unpaid invoices; everything billed to them is wrong.
  ...phrasings(6, ["how much does larkspur still owe us"], (t) =>
    aggregate(
      t.total("invoices", "owed", `client = 'Larkspur Foods' AND ${UNPAID}`),
      t.total("invoices", "amount", `client = 'Larkspur Foods' AND ${STANDING}`),
    ),
  ),
  // What is left on INV-000018: 2,500 of 5,000.
  ...phrasings(6, ["whats left to pay on inv 18"], async (t) => {
    const invoice = await only(t, "invoices", "number = 'INV-000018'");
    return {
      present: [t.money(String(invoice.owed), invoice.cur!)],
      absent: [t.money(String(invoice.amount), invoice.cur!)],
    };
  }),
  // Ravi Reyes's deal: the Oakridge data migration.
  ...phrasings(6, ["which deal is ravi reyes attached to"], (t) =>
    t.list("deals", "contact_name = 'Ravi Reyes'"),
  ),
  // The Quanta seat expansion's expected close date.
  ...phrasings(6, ["when's the quanta seat expansion supposed to close"], async (t) => {
    const day = await must(
      t,
      `SELECT to_char(expected_close_date, 'YYYY-MM-DD') FROM deals
        WHERE org_id = $1 AND title ILIKE 'seat expansion%quanta%'`,
    );
    return { present: [day] };
  }),
  // Noah Iyer's skills, any status.
  ...phrasings(6, ["what skills does noah iyer have"], (t) =>
    t.list("skills", "candidate_name = 'Noah Iyer'"),
  ),
  // Northwind Traders' latest payment: its day and amount.
  ...phrasings(6, ["when did northwind last pay us anything and how much"], async (t) => {
    const rows = await t.rows<{ amount: string; cur: string; day: string }>(
      "payments",
      "client = 'Northwind Traders'",
      [],
      "received_at DESC",
    );
    const last = rows[0];
    if (!last) throw new Error("Northwind never paid");
    const day = await must(
      t,
      `SELECT ${dayOf("max(p.received_at)")} FROM payments p JOIN invoices i ON i.id = p.invoice_id
        WHERE p.org_id = $1 AND i.client = 'Northwind Traders'`,
    );
    if (day === t.today) throw new Error("the answer is today");
    return { present: [day, t.money(String(last.amount), last.cur)] };
  }),
  // The position Mia Lindqvist applied for (Mia Haddad's is wrong).
  ...phrasings(6, ["what job did mia lindqvist apply for again"], async (t) => {
    const candidate = await only(t, "candidates", "name = 'Mia Lindqvist'");
    const other = await only(t, "candidates", "name = 'Mia Haddad'");
    if (other.position === candidate.position) throw new Error("both Mias applied for the same job");
    return { present: [candidate.position!], absent: [other.position!] };
  }),
  // Received from Kestrel Robotics, per currency; what they were billed is wrong.
  ...phrasings(6, ["how much have we collected from kestrel so far"], async (t) => {
    const present = await t.total("payments", "amount", "client = 'Kestrel Robotics'");
    if (present.length === 0) throw new Error("Kestrel never paid");
    const billed = await t.total("invoices", "amount", `client = 'Kestrel Robotics' AND ${STANDING}`);
    return { present, absent: besides(present, billed) };
  }),
];

// 7. Follow-ups that refine ---------------------------------------------------------------------

const refinements: Case[] = [
  // Unpaid, the largest amount: INV-000019.
  ...followUps(["show me unpaid invoices"], ["which one is the biggest"], (t) =>
    best(t, "invoices", UNPAID, "amount", 1),
  ),
  // Unpaid and issued in February.
  ...followUps(["unpaid invoices"], ["just the ones issued last month"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("issued_at", ...FEBRUARY)}`),
  ),
  // Overdue and in USD: INV-000031.
  ...followUps(["overdue invoices pls"], ["any of those in dollars?"], (t) =>
    t.list("invoices", "s = 'overdue' AND cur = 'USD'"),
  ),
  // Open deals strictly over 10,000 (five deals, four titles).
  ...followUps(["open deals"], ["only the ones over 10k"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND value > 10000`),
  ),
  // Candidates for the backend engineer position.
  ...followUps(["list the candidates"], ["which of them are going for backend engineer"], (t) =>
    t.list("candidates", "position = 'Backend engineer'"),
  ),
  // Received in March, summed per currency; every payment's total is wrong.
  ...followUps(["payments received this month"], ["total?"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", ...MARCH), ["true"]),
  ),
  // Won deals, the largest: the 19,500 Meridian workshop.
  ...followUps(["deals we won"], ["which was the biggest one"], (t) =>
    best(t, "deals", "stage = 'won'", "value", 1),
  ),
  // Contacts at the lead stage: their emails.
  ...followUps(["contacts who r still leads"], ["whats their emails"], async (t) => {
    const rows = await t.rows<{ email: string }>("contacts", "lifecycle_stage = 'lead'");
    if (rows.length === 0) throw new Error("no leads");
    const others = await t.rows<{ email: string }>("contacts", "lifecycle_stage <> 'lead'");
    return { present: rows.map((r) => r.email), absent: others.map((r) => r.email) };
  }),
  // Verified skills of the candidates applying as backend engineers.
  ...followUps(["skills that are verified"], ["just for the backend engineer candidates"], (t) =>
    t.list(
      "skills",
      "status = 'verified' AND candidate_id IN (SELECT c.id FROM candidates c WHERE c.position = 'Backend engineer')",
    ),
  ),
  // Unpaid invoices due in April: what is still owed on them, per currency; their amount, or
  // the drafts due in April counted in, is wrong.
  ...followUps(["invoices due next month"], ["how much is still owed on those"], (t) =>
    aggregate(
      t.total("invoices", "owed", `${UNPAID} AND ${within("due_date", ...APRIL)}`),
      t.total("invoices", "owed", `status IN ('open', 'draft') AND ${within("due_date", ...APRIL)}`),
      t.total("invoices", "amount", `${UNPAID} AND ${within("due_date", ...APRIL)}`),
    ),
  ),
  // Deals in proposal, their values summed per currency; the whole open pipeline's is wrong.
  ...followUps(["deals in proposal"], ["what r they worth all together"], (t) =>
    totalOf(t, "deals", "value", "stage = 'proposal'", [OPEN_DEAL, "true"]),
  ),
  // Helios Energy's invoices that are paid: INV-000016.
  ...followUps(["show invoices for helios energy"], ["which of them r paid"], (t) =>
    t.list("invoices", "client = 'Helios Energy' AND s = 'paid'"),
  ),
];

export const holdout13: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
