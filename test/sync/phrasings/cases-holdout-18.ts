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
  listOf,
  shareOfReadings,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  STAGES,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  MAY,
  LAST_WEEK,
  THIS_WEEK,
  NEXT_WEEK,
  YEAR,
} from "./truths.ts";

/**
 * The EIGHTEENTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven
 * categories of the phrasing exam, written blind (without reading the planner, its documentation,
 * its tests, the other exams' questions or the planner's answers, and without running it on them),
 * the way a busy owner types into a chat between two jobs: lower case, typos, abbreviations, filler,
 * asides, run-on sentences. The conventions are grade.ts's; every truth is computed from the tables
 * when the test runs, and a truth that would be empty, tied or ambiguous throws (the exam's own
 * fault, reported apart). Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22 (Monday
 * start), last week 2026-03-09..15, next week 2026-03-23..29, this month March, last month February,
 * next month April, this quarter q1 (January to March), year to date from 2026-01-01; "the next 30
 * days" runs 2026-03-18..2026-04-17, "the last 30 days" from 2026-02-16, and "more than 2 weeks
 * overdue" is due before 2026-03-04.
 */

/**
 * The one name ranked first by `text` (rows of `name` and `n`, best first); throws on no rows or a
 * tie for first place. `wrong` names (another reading's winner) are absent.
 */
const leader = async (t: Q, text: string, wrong: string[] = []): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  const top = rows[0]!.name;
  if (wrong.includes(top)) throw new Error(`the wrong reading's winner ${top} is the right one`);
  return { present: [top], absent: wrong };
};

/** A timestamp column as the organization's day (UTC), YYYY-MM-DD, in SQL. */
const dayOf = (column: string) => `to_char((${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/** Every client named on an invoice. */
const clients = async (t: Q) =>
  (
    await t.sql<{ client: string }>("SELECT DISTINCT client FROM invoices WHERE org_id = $1 ORDER BY client")
  ).map((r) => r.client);

/** The latest communication day with a contact, inbound only or any direction. */
const lastContact = (t: Q, name: string, inboundOnly: boolean) =>
  must(
    t,
    `SELECT ${dayOf("max(m.occurred_at)")} FROM communications m JOIN contacts c ON c.id = m.contact_id
      WHERE m.org_id = $1 AND c.name = $2 ${inboundOnly ? "AND m.direction = 'inbound'" : ""}`,
    [name],
  );

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Overdue, amount strictly over 10,000: INV-000009, INV-000014, INV-000019, INV-000023; on what
  // is owed the set is the same (INV-000009 still owes 26,800).
  ...phrasings(
    1,
    ["which overdue bills are north of 10k? thinking of sending a few stern emails today"],
    (t) => listOf(t, "invoices", "s = 'overdue' AND amount > 10000", ["s = 'overdue' AND owed > 10000"]),
  ),
  // Unpaid, amount strictly under 300: on what is owed the set is the same (INV-000006 owes 375,
  // INV-000011 owes 450, both out either way).
  ...phrasings(1, ["unpaid invoices under 300 - the tiny ones, might just let em ride tbh"], async (t) => {
    const owed = await t.count("invoices", `${UNPAID} AND owed < 300`);
    const amount = await t.count("invoices", `${UNPAID} AND amount < 300`);
    if (owed !== amount) throw new Error("owed and amount readings differ");
    return t.list("invoices", `${UNPAID} AND amount < 300`);
  }),
  // Every stage, 5,000 to 10,000 inclusive: 6,000, 7,000, 7,500 and 9,000.
  ...phrasings(1, ["show me deals between 5k and 10k, dont care what stage theyre at"], (t) =>
    listOf(t, "deals", "value BETWEEN 5000 AND 10000", [`${OPEN_DEAL} AND value BETWEEN 5000 AND 10000`]),
  ),
  // Payments of 2,500 or more, inclusive (the 2,500 card payment is in; the strict reading's 6 is
  // wrong).
  ...phrasings(1, ["every payment of 2500 or more that weve recieved pls"], (t) =>
    listOf(t, "payments", "amount >= 2500", ["amount > 2500"]),
  ),
  // Price strictly under 2,000: the consulting hour, the seat licence and the onboarding workshop.
  ...phrasings(1, ["what can a customer buy off us for less than 2000"], (t) =>
    t.list("products", "price < 2000"),
  ),
  // More than one verified skill: Liam Moreau alone (three); the others have one at most.
  ...phrasings(1, ["any candidate got more than one verified skill?"], (t) =>
    listOf(
      t,
      "candidates",
      "(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id AND k.status = 'verified') > 1",
      ["(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id AND k.status = 'verified') >= 1"],
    ),
  ),
  // Five or more communications (any channel, either direction), inclusive: Jonas Tanaka (6),
  // Mia Schmidt and Theo Novak (5); the strict reading (Jonas alone) is wrong.
  ...phrasings(1, ["contacts we've had 5 or more convos with, calls emails whatever all counts"], (t) =>
    listOf(t, "contacts", "(SELECT count(*) FROM communications m WHERE m.contact_id = v.id) >= 5", [
      "(SELECT count(*) FROM communications m WHERE m.contact_id = v.id) > 5",
    ]),
  ),
  // Payments received before 2026-03-01: 2,000 (January) and 1,000 (February).
  ...phrasings(1, ["did anything actually get paid to us before march 1 or was it all this month"], (t) =>
    listOf(t, "payments", "received_at < '2026-03-01'", ["received_at >= '2026-03-01'"]),
  ),
  // Clients whose unpaid invoices add up (per currency) to strictly more than 10,000, on what is
  // owed; on the amount the set is the same (Juniper Health is at 9,809.93 either way): Acme
  // Logistics, Larkspur Foods, Oakridge Builders, Riverbend Coffee.
  ...phrasings(
    1,
    ["which clients owe us more than 10k all together if u add up their unpaid stuff"],
    async (t) => {
      const over = async (column: string) =>
        (
          await t.sql<{ client: string }>(
            `SELECT DISTINCT client FROM (
             SELECT client, trim(currency) AS cur, sum(${column}) AS total FROM invoices
              WHERE org_id = $1 AND status = 'open' GROUP BY client, trim(currency)) g
            WHERE total > 10000 ORDER BY client`,
          )
        ).map((r) => r.client);
      const owed = await over("amount - amount_paid");
      const amount = await over("amount");
      if (owed.length === 0) throw new Error("no client owes over 10k");
      if (owed.join("|") !== amount.join("|")) throw new Error("owed and amount readings differ");
      return { present: owed, absent: besides(owed, await clients(t)) };
    },
  ),
  // Open deals expected to close on or before 2026-04-10, inclusive: the Blue Fjord migration on
  // 04-10 is in (its 11,000 twin in May shares the title); strict gives 3.
  ...phrasings(1, ["open deals that shld close by apr 10 at the latest"], (t) =>
    listOf(t, "deals", `${OPEN_DEAL} AND expected_close_date <= '2026-04-10'`, [
      `${OPEN_DEAL} AND expected_close_date < '2026-04-10'`,
    ]),
  ),
  // Paid, amount strictly under 1,000: INV-000010 and INV-000015.
  ...phrasings(1, ["paid invoices that were less than 1000 each"], (t) =>
    t.list("invoices", "s = 'paid' AND amount < 1000"),
  ),
  // Open deals strictly over 7,000: 7; at least 7,000 (8) or every stage (10) is wrong.
  ...phrasings(1, ["how many deals in the pipeline r worth more than 7k, just the live ones"], (t) =>
    countOf(t, "deals", `${OPEN_DEAL} AND value > 7000`, [`${OPEN_DEAL} AND value >= 7000`, "value > 7000"]),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Overdue, the earliest due date: INV-000014 (due 02-02; it was issued first too).
  ...phrasings(2, ["which overdue invoice has been dragging on the longest"], async (t) => {
    const byDue = await best(t, "invoices", "s = 'overdue'", "due_date", 1, "asc");
    const byIssued = await best(t, "invoices", "s = 'overdue'", "issued_at", 1, "asc");
    if (byDue.present[0] !== byIssued.present[0]) throw new Error("due and issued readings differ");
    return byDue;
  }),
  // Unpaid, the three largest balances owed: INV-000019, INV-000014, INV-000009 (by amount the
  // same three).
  ...phrasings(2, ["top three balances ppl owe us, biggest first"], async (t) => {
    const owed = await best(t, "invoices", UNPAID, "owed", 3);
    const amount = await t.top("invoices", UNPAID, "amount", 3);
    if ([...owed.present].sort().join() !== [...amount.present].sort().join())
      throw new Error("owed and amount readings differ");
    return owed;
  }),
  // Received 2026-03-01..31, the largest: 38,400 EUR.
  ...phrasings(2, ["biggest single payment we got in march"], (t) =>
    best(t, "payments", within("received_at", ...MARCH), "amount", 1),
  ),
  // Unpaid invoices counted per client: Kestrel Robotics with 3 (two EUR, one USD); Larkspur Foods,
  // owed the most money on one invoice, is the wrong reading.
  ...phrasings(2, ["which client has the most invoices still unpaid, count wise"], (t) =>
    leader(
      t,
      `SELECT client AS name, count(*) AS n FROM invoices WHERE org_id = $1 AND status = 'open'
        GROUP BY client ORDER BY n DESC`,
      ["Larkspur Foods"],
    ),
  ),
  // Verified skills per candidate: Liam Moreau with 3.
  ...phrasings(2, ["out of the applicants whos got the most skills actually verified"], (t) =>
    leader(
      t,
      `SELECT c.name, count(*) AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND s.status = 'verified' GROUP BY c.name ORDER BY n DESC`,
    ),
  ),
  // The lowest price: the seat licence.
  ...phrasings(2, ["whats the cheapest thing on our price list"], (t) =>
    best(t, "products", "true", "price", 1, "asc"),
  ),
  // Customers (lifecycle stage) by their latest communication, the oldest first: Zoe Okafor
  // (2026-02-28); Liam Haddad (a prospect, 02-26) and Ada Byron (a prospect, never) are the
  // readings that forget "customer".
  ...phrasings(
    2,
    ["which customer havent we talked to in the longest time, feels like weve gone quiet on someone"],
    (t) =>
      leader(
        t,
        `SELECT c.name, -extract(epoch FROM max(m.occurred_at)) AS n FROM contacts c
         JOIN communications m ON m.contact_id = c.id
        WHERE c.org_id = $1 AND c.lifecycle_stage = 'customer' GROUP BY c.name ORDER BY n DESC`,
        ["Liam Haddad", "Ada Byron"],
      ),
  ),
  // Applied = created; the earliest: Ava Okafor (2026-02-01; everyone else applied today).
  ...phrasings(2, ["who's been waiting the longest since they applied"], (t) =>
    best(t, "candidates", "status NOT IN ('hired', 'rejected')", "created_at", 1, "asc"),
  ),
  // Open deals, the two largest: Riverbend's 17,000 retainer and Quanta's 15,000 seat expansion.
  ...phrasings(2, ["our 2 biggest open deals rn?"], (t) => best(t, "deals", OPEN_DEAL, "value", 2)),
  // Issued 2026-03-01..31, the largest: INV-000017 at 24,000 (paid; every March invoice stands).
  ...phrasings(2, ["biggest invoice we've sent out this month"], (t) =>
    best(t, "invoices", `status <> 'draft' AND ${within("issued_at", ...MARCH)}`, "amount", 1),
  ),
  // Open deal value per company, EUR (Helios's 4,200 USD cannot change the order): Blue Fjord
  // Studio with 22,500 over two deals; Riverbend Coffee (the single largest deal) is wrong.
  ...phrasings(2, ["which company has the most money riding on open deals, adding up all their deals"], (t) =>
    leader(
      t,
      `SELECT c.company AS name, sum(d.value) AS n FROM deals d JOIN contacts c ON c.id = d.contact_id
        WHERE d.org_id = $1 AND d.stage IN ('lead', 'qualified', 'proposal') AND trim(d.currency) = 'EUR'
        GROUP BY c.company ORDER BY n DESC`,
      ["Riverbend Coffee"],
    ),
  ),
  // Unpaid, the smallest: INV-000024 at 59.98 (the smallest balance owed too).
  ...phrasings(2, ["smallest outstanding invoice we have?"], async (t) => {
    const amount = await best(t, "invoices", UNPAID, "amount", 1, "asc");
    const owed = await best(t, "invoices", UNPAID, "owed", 1, "asc");
    if (amount.present[0] !== owed.present[0]) throw new Error("owed and amount readings differ");
    return amount;
  }),
];

// 3. Aggregates ---------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Mean owed over overdue invoices, per currency; the mean amount, or every unpaid one's, is wrong.
  ...phrasings(3, ["roughly how much is still owed per overdue invoice, on avg"], (t) =>
    aggregate(
      t.average("invoices", "owed", "s = 'overdue'"),
      t.average("invoices", "amount", "s = 'overdue'"),
      t.average("invoices", "owed", UNPAID),
    ),
  ),
  // Open deals, median per currency (EUR 9,000; USD 4,200 alone); the mean or every deal's median
  // is wrong.
  ...phrasings(3, ["whats the median size of the deals we have open"], (t) =>
    aggregate(
      t.median("deals", "value", OPEN_DEAL),
      t.average("deals", "value", OPEN_DEAL),
      t.median("deals", "value"),
    ),
  ),
  // Won deals' values summed per currency; the open pipeline's or every deal's total is wrong.
  ...phrasings(3, ["add up everything we've won so far, total deal value"], (t) =>
    totalOf(t, "deals", "value", "stage = 'won'", [OPEN_DEAL, "true"]),
  ),
  // Overdue among unpaid: 10 of 19; among every invoice or the standing ones is wrong.
  ...phrasings(3, ["of everything unpaid how many are actualy overdue, as a %"], (t) =>
    shareOfReadings(t, "invoices", "s = 'overdue'", UNPAID, [
      ["s = 'overdue'", "true"],
      ["s = 'overdue'", STANDING],
    ]),
  ),
  // Received by card and by bank transfer, each per currency; direct debit's or the whole total
  // is wrong.
  ...phrasings(3, ["how much came in by card vs by bank transfer?"], async (t) => {
    const card = await t.total("payments", "amount", "method = 'card'");
    const bank = await t.total("payments", "amount", "method = 'bank_transfer'");
    if (card.length === 0 || bank.length === 0) throw new Error("a method with no payments");
    const present = [...card, ...bank];
    const wrong = [
      ...(await t.total("payments", "amount", "method = 'direct_debit'")),
      ...(await t.total("payments", "amount")),
    ];
    return { present, absent: besides(present, wrong) };
  }),
  // Standing invoices (voids left out) issued in each month of q1, summed per currency; with the
  // voids, or the quarter's total, is wrong.
  ...phrasings(3, ["how much did we bill each month this quarter? leave the voided ones out"], async (t) => {
    const present: string[] = [];
    const wrong: string[] = [];
    for (const [from, to] of [JANUARY, FEBRUARY, MARCH]) {
      const month = await t.total("invoices", "amount", `${STANDING} AND ${within("issued_at", from, to)}`);
      if (month.length === 0) throw new Error(`nothing billed ${from}`);
      present.push(...month);
      wrong.push(
        ...(await t.total("invoices", "amount", `status <> 'draft' AND ${within("issued_at", from, to)}`)),
      );
    }
    wrong.push(
      ...(await t.total(
        "invoices",
        "amount",
        `${STANDING} AND ${within("issued_at", JANUARY[0], MARCH[1])}`,
      )),
    );
    return { present, absent: besides(present, wrong) };
  }),
  // Source referral among every candidate: 2 of 11; among those with a known source is wrong.
  ...phrasings(3, ["% of candidates that came in thru a referral"], (t) =>
    shareOfReadings(t, "candidates", "source = 'referral'", "true", [
      ["source = 'referral'", "source IS NOT NULL"],
    ]),
  ),
  // Unpaid in EUR, the lowest and highest amount (the same as on what is owed); the mean is wrong.
  ...phrasings(3, ["smallest and largest unpaid invoice in euros"], async (t) => {
    const where = `${UNPAID} AND cur = 'EUR'`;
    const lo = await t.perCurrency("invoices", "min(amount)", where);
    const hi = await t.perCurrency("invoices", "max(amount)", where);
    const loOwed = await t.perCurrency("invoices", "min(owed)", where);
    const hiOwed = await t.perCurrency("invoices", "max(owed)", where);
    if (lo.length !== 1 || hi.length !== 1) throw new Error("no unpaid euro invoices");
    if (lo[0] !== loOwed[0] || hi[0] !== hiOwed[0]) throw new Error("owed and amount readings differ");
    return aggregate(Promise.resolve([lo[0]!, hi[0]!]), t.average("invoices", "amount", where));
  }),
  // Mean deal value per stage, per currency; the mean over every deal is wrong.
  ...phrasings(3, ["avg deal value for each stage of the pipeline"], async (t) => {
    const present: string[] = [];
    for (const stage of STAGES) {
      const avg = await t.average("deals", "value", `stage = '${stage}'`);
      if (avg.length === 0) throw new Error(`no ${stage} deals`);
      present.push(...avg);
    }
    return { present, absent: besides(present, await t.average("deals", "value")) };
  }),
  // Owed over unpaid invoices, per currency; the amounts, or with drafts counted in, is wrong.
  ...phrasings(3, ["whats the grand total people owe us right now"], (t) =>
    aggregate(
      t.total("invoices", "owed", UNPAID),
      t.total("invoices", "amount", UNPAID),
      t.total("invoices", "owed", "status IN ('open', 'draft')"),
    ),
  ),
  // Received 2026-03-01..31, mean per currency; every payment's mean is wrong.
  ...phrasings(3, ["average size of the payments we got this month"], (t) =>
    aggregate(
      t.average("payments", "amount", within("received_at", ...MARCH)),
      t.average("payments", "amount"),
    ),
  ),
  // Open (lead, qualified, proposal) among every deal: 12 of 19; leaving proposal out is wrong.
  ...phrasings(3, ["what percentage of our deals are still open"], (t) =>
    shareOfReadings(t, "deals", OPEN_DEAL, "true", [["stage IN ('lead', 'qualified')", "true"]]),
  ),
];

// 4. Calendar windows ---------------------------------------------------------------------------

const windows: Case[] = [
  // Unpaid, due 2026-03-23..29: INV-000032 (INV-000007 due 03-27 is paid).
  ...phrasings(4, ["anything unpaid falling due next week?"], (t) =>
    listOf(t, "invoices", `${UNPAID} AND ${within("due_date", ...NEXT_WEEK)}`, [
      `${UNPAID} AND ${within("due_date", ...THIS_WEEK)}`,
    ]),
  ),
  // Received in January: 2,000 EUR; February's or March's total is wrong.
  ...phrasings(4, ["how much did we collect in january"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", ...JANUARY), [
      within("received_at", ...FEBRUARY),
      within("received_at", ...MARCH),
    ]),
  ),
  // Unpaid, issued in January: INV-000001, INV-000003, INV-000009, INV-000014, INV-000018.
  ...phrasings(4, ["unpaid invoices that we sent out back in january, still hanging?"], (t) =>
    listOf(t, "invoices", `${UNPAID} AND ${within("issued_at", ...JANUARY)}`, [
      `${UNPAID} AND ${within("due_date", ...JANUARY)}`,
    ]),
  ),
  // Expected close date in April (any stage; all four are open).
  ...phrasings(4, ["which deals r supposed to land in april"], (t) =>
    t.list("deals", within("expected_close_date", ...APRIL)),
  ),
  // Applied = created, in February: Ava Okafor alone.
  ...phrasings(4, ["did anyone apply last month or is it all new ppl"], (t) =>
    t.list("candidates", within("created_at", ...FEBRUARY)),
  ),
  // Communications 2026-03-16..22: 5; last week's 7, the last 7 days' or March's count is wrong.
  ...phrasings(4, ["how many calls/emails/meetings have we logged with contacts this week so far"], (t) =>
    countOf(t, "communications", within("occurred_at", ...THIS_WEEK), [
      within("occurred_at", ...LAST_WEEK),
      "occurred_at >= '2026-03-11'",
      within("occurred_at", ...MARCH),
    ]),
  ),
  // Overdue by more than 14 days: due before 2026-03-04 (7 of the 10 overdue).
  ...phrasings(4, ["whats more than 2 weeks overdue"], (t) =>
    listOf(t, "invoices", `s = 'overdue' AND due_date < '2026-03-04'`, ["s = 'overdue'"]),
  ),
  // Won with closed_at in March: Meridian, Solstice and both Helios seat expansions (the February
  // Kestrel rollout is out).
  ...phrasings(4, ["what have we won this month, deal wise"], (t) =>
    listOf(t, "deals", `stage = 'won' AND ${within("closed_at", ...MARCH)}`, ["stage = 'won'"]),
  ),
  // Unpaid, due 2026-03-18..2026-04-17: six (the paid ones and the draft due in the window are out).
  ...phrasings(4, ["whats coming due in the next 30 days that we still need to collect"], (t) =>
    listOf(t, "invoices", `${UNPAID} AND due_date >= '2026-03-18' AND due_date <= '2026-04-17'`, [
      `${UNPAID} AND due_date <= '2026-04-17'`,
    ]),
  ),
  // Verified on or after 2026-02-16: 7; Ava Okafor's SQL (verified 45 days ago) is out, all 8 wrong.
  ...phrasings(4, ["how many skills got verified in the last 30 days"], (t) =>
    countOf(t, "skills", "status = 'verified' AND verified_at >= '2026-02-16'", ["status = 'verified'"]),
  ),
  // Deals created in February: the Kestrel rollout (won since), the arm retrofit, the solar pilot.
  ...phrasings(4, ["which deals got added to the crm last month"], (t) =>
    t.list("deals", within("created_at", ...FEBRUARY)),
  ),
  // Received in 2026, per currency; March's total is wrong.
  ...phrasings(4, ["total money in year to date?"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", ...YEAR), [within("received_at", ...MARCH)]),
  ),
];

// 5. Negation & the other side ------------------------------------------------------------------

const negations: Case[] = [
  // Contacts without the priority tag: Ada Byron, Ava Okafor, Jonas Brennan, Sofia Okafor, Theo Novak.
  ...phrasings(5, ["which contacts arent flagged as priority"], (t) =>
    t.list("contacts", "NOT coalesce('priority' = ANY(tags), false)"),
  ),
  // Candidates without a phone number: Ava Okafor, Noah Iyer, Yara Kowalski.
  ...phrasings(5, ["applicants missing a phone number?"], (t) =>
    t.list("candidates", "coalesce(phone, '') = ''"),
  ),
  // Clients with no unpaid invoice (a draft is not owed): Quanta Analytics alone.
  ...phrasings(5, ["which clients are fully paid up, nothing outstanding at all"], async (t) => {
    const all = await clients(t);
    const owing = (
      await t.sql<{ client: string }>(
        "SELECT DISTINCT client FROM invoices WHERE org_id = $1 AND status = 'open'",
      )
    ).map((r) => r.client);
    const present = all.filter((c) => !owing.includes(c));
    if (present.length === 0) throw new Error("every client owes something");
    return { present, absent: owing };
  }),
  // Lost deals: the Kestrel pilot and the 13,500 Acme workshop (its title shared with an open deal).
  ...phrasings(5, ["what deals did we end up losing"], (t) => t.list("deals", "stage = 'lost'")),
  // Candidates without any verified skill.
  ...phrasings(5, ["which candidates dont have a single verified skill"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills k WHERE k.candidate_id = v.id AND k.status = 'verified')",
    ),
  ),
  // Contacts with no communication at all: Ada Byron.
  ...phrasings(5, ["is there anyone in our contacts we've never actually been in touch with"], (t) =>
    t.list("contacts", "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id)"),
  ),
  // Contacts with no open deal: Ada Byron, Jonas Brennan (won), Ravi Okafor (won).
  ...phrasings(5, ["contacts with nothing open in the pipeline right now"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id AND d.stage IN ('lead', 'qualified', 'proposal'))",
    ),
  ),
  // Deals in a currency other than EUR: the two USD deals.
  ...phrasings(5, ["any deals that arent in euros?"], (t) => t.list("deals", "cur <> 'EUR'")),
  // Overdue with nothing paid: six (the partly paid overdue ones are out).
  ...phrasings(5, ["overdue invoices where they havent paid us a single cent"], (t) =>
    listOf(t, "invoices", "s = 'overdue' AND amount_paid = 0", ["s = 'overdue'"]),
  ),
  // Rejected candidates: Amara Novak, Sofia Lindqvist.
  ...phrasings(5, ["which applicants did we say no to"], (t) => t.list("candidates", "status = 'rejected'")),
  // Skills not verified, of the backend engineer candidates: 5 of their 10; every unverified
  // skill (23) or all their skills is wrong.
  ...phrasings(5, ["backend applicants - how many of their skills havent been verified yet"], (t) =>
    countOf(
      t,
      "skills",
      "status <> 'verified' AND candidate_id IN (SELECT c.id FROM candidates c WHERE c.position = 'Backend engineer')",
      [
        "status <> 'verified'",
        "candidate_id IN (SELECT c.id FROM candidates c WHERE c.position = 'Backend engineer')",
      ],
    ),
  ),
  // Drafts: never issued. INV-000013, INV-000022, INV-000025.
  ...phrasings(5, ["which invoices havent been sent out yet"], (t) => t.list("invoices", "s = 'draft'")),
];

// 6. Named records inside other resources -------------------------------------------------------

const named: Case[] = [
  // The one Juniper Health deal: the consulting retainer, qualified.
  ...phrasings(6, ["juniper retainer - where's that at in the pipeline?"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE '%retainer%juniper%'");
    return { present: [deal.stage!], absent: STAGES.filter((s) => s !== deal.stage && s !== "lead") };
  }),
  // The Solstice pilot, won: its value (the Kestrel pilot's and the Helios solar pilot's are wrong).
  ...phrasings(6, ["what did we close the solstice pilot for"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE '%pilot%solstice%'");
    if (deal.stage !== "won") throw new Error("the Solstice pilot is not won");
    const others = await t.rows<{ value: string; cur: string }>(
      "deals",
      "title ILIKE '%pilot%' AND company <> 'Solstice Travel'",
    );
    const present = [t.money(String(deal.value), deal.cur!)];
    return {
      present,
      absent: besides(
        present,
        others.map((d) => t.money(String(d.value), d.cur)),
      ),
    };
  }),
  // Theo Novak's latest communication, any direction: 2026-03-14.
  ...phrasings(6, ["when did we last talk to theo novak"], async (t) => {
    const day = await lastContact(t, "Theo Novak", false);
    if (day === t.today) throw new Error("the answer is today");
    return { present: [day] };
  }),
  // Oakridge Builders' invoices, every status: INV-000009, INV-000021.
  ...phrasings(6, ["pull up the oakridge builders invoices"], (t) =>
    t.list("invoices", "client = 'Oakridge Builders'"),
  ),
  // Sofia Schmidt's verified skills: Figma (her prototyping and user research are only claimed).
  ...phrasings(6, ["which of sofia schmidt's skills have actually been verified"], (t) =>
    t.list("skills", "candidate_name = 'Sofia Schmidt' AND status = 'verified'"),
  ),
  // Owed on Acme Logistics' unpaid invoices (INV-000002 half paid); the amounts, or with the void,
  // is wrong.
  ...phrasings(6, ["hows much does acme owe us atm"], (t) =>
    aggregate(
      t.total("invoices", "owed", `client = 'Acme Logistics' AND ${UNPAID}`),
      t.total("invoices", "amount", `client = 'Acme Logistics' AND ${UNPAID}`),
      t.total("invoices", "owed", "client = 'Acme Logistics' AND status IN ('open', 'void')"),
    ),
  ),
  // The contact at Riverbend Coffee: Liam Haddad (Yara Haddad is Juniper's).
  ...phrasings(6, ["who's our contact over at riverbend"], async (t) => {
    const contact = await only(t, "contacts", "company = 'Riverbend Coffee'");
    const haddads = await t.labels("contacts", "name ILIKE '%haddad%'");
    return { present: [contact.name!], absent: haddads.filter((n) => n !== contact.name) };
  }),
  // Received from Helios Energy, per currency; what they were billed in all, in the currencies
  // they paid in, is wrong (the USD invoice, still owed in full, may be said beside it).
  ...phrasings(6, ["has helios paid us anything yet? how much"], async (t) => {
    const present = await t.total("payments", "amount", "client = 'Helios Energy'");
    if (present.length === 0) throw new Error("Helios never paid");
    const paidIn = (await t.rows<{ cur: string }>("payments", "client = 'Helios Energy'")).map((p) => p.cur);
    const billed = await t.total(
      "invoices",
      "amount",
      `client = 'Helios Energy' AND ${STANDING} AND cur = ANY($3::text[])`,
      [paidIn],
    );
    return { present, absent: besides(present, billed) };
  }),
  // The one Larkspur Foods deal: its expected close date.
  ...phrasings(6, ["the larkspur renewal, whens that meant to close"], async (t) => {
    const deal = await only(t, "deals", "company = 'Larkspur Foods'");
    const day = await must(
      t,
      "SELECT to_char(expected_close_date, 'YYYY-MM-DD') FROM deals WHERE org_id = $1 AND id = $2",
      [deal.id],
    );
    return { present: [day] };
  }),
  // Ravi Okafor's latest inbound communication (the same day as his latest of any direction).
  ...phrasings(6, ["when did ravi okafor last reach out to us"], async (t) => {
    const inbound = await lastContact(t, "Ravi Okafor", true);
    if (inbound !== (await lastContact(t, "Ravi Okafor", false)))
      throw new Error("inbound and any direction differ");
    if (inbound === t.today) throw new Error("the answer is today");
    return { present: [inbound] };
  }),
  // Kestrel Robotics' deals, every stage: the arm retrofit, the lost pilot, the won rollout.
  ...phrasings(6, ["what deals have we got with kestrel, all of them incl the dead ones"], (t) =>
    t.list("deals", "company = 'Kestrel Robotics'"),
  ),
  // The candidate Ava Okafor's skills (she is also a contact at Quanta): SQL and TypeScript.
  ...phrasings(6, ["what skills did ava okafor put down on her application"], (t) =>
    t.list("skills", "candidate_name = 'Ava Okafor'"),
  ),
];

// 7. Follow-ups that refine ---------------------------------------------------------------------

const refinements: Case[] = [
  // Overdue invoices: what is still owed on them, per currency; their amounts, or every unpaid
  // invoice's balance, is wrong.
  ...followUps(["show me whats overdue"], ["ok and what does that come to, whats actually still owed"], (t) =>
    aggregate(
      t.total("invoices", "owed", "s = 'overdue'"),
      t.total("invoices", "amount", "s = 'overdue'"),
      t.total("invoices", "owed", UNPAID),
    ),
  ),
  // Deals in proposal, the smallest: the 9,000 arm retrofit.
  ...followUps(["whats in the pipeline", "just proposal stage"], ["smallest one of those?"], (t) =>
    best(t, "deals", "stage = 'proposal'", "value", 1, "asc"),
  ),
  // Received in March by card: 250 USD, 2,500, 375 and 119 EUR.
  ...followUps(["payments that came in this month"], ["only the ones paid by card"], (t) =>
    listOf(t, "payments", `method = 'card' AND ${within("received_at", ...MARCH)}`, [
      "method = 'card'",
      within("received_at", ...MARCH),
    ]),
  ),
  // Product designer candidates who were rejected: 2 of the 3.
  ...followUps(["show me the product designer candidates"], ["how many of them did we reject"], (t) =>
    countOf(t, "candidates", "position = 'Product designer' AND status = 'rejected'", [
      "position = 'Product designer'",
    ]),
  ),
  // Unpaid invoices, what is owed in USD: 1,000.50 + 980; the USD amounts are wrong.
  ...followUps(["what do we have outstanding"], ["how much of that is in usd"], (t) =>
    aggregate(
      t.total("invoices", "owed", `${UNPAID} AND cur = 'USD'`),
      t.total("invoices", "amount", `${UNPAID} AND cur = 'USD'`),
    ),
  ),
  // Prospects with an open deal: Liam Haddad, Ravi Reyes, Yara Haddad (Ada Byron has none).
  ...followUps(["list contacts that are prospects"], ["which of them have an open deal"], (t) =>
    listOf(
      t,
      "contacts",
      `lifecycle_stage = 'prospect' AND EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id
        AND d.stage IN ('lead', 'qualified', 'proposal'))`,
      ["lifecycle_stage = 'prospect'"],
    ),
  ),
  // Careers page candidates at interview: Liam Moreau and Yara Kowalski, 2 of 3.
  ...followUps(
    ["candidates pls", "which came from our careers page"],
    ["and how many of those r at interview stage"],
    (t) =>
      countOf(t, "candidates", "source = 'careers page' AND status = 'interview'", [
        "source = 'careers page'",
        "status = 'interview'",
      ]),
  ),
  // Oakridge Builders' unpaid invoices, the earliest due date: INV-000009's.
  ...followUps(["what does oakridge builders owe us"], ["when was the oldest one due"], async (t) => {
    const due = await t.sql<{ d: string }>(
      `SELECT to_char(due_date, 'YYYY-MM-DD') AS d FROM invoices
        WHERE org_id = $1 AND client = 'Oakridge Builders' AND status = 'open' ORDER BY due_date`,
    );
    if (due.length < 2) throw new Error("fewer than two unpaid Oakridge invoices: no oldest to pick");
    if (due[0]!.d === due[1]!.d) throw new Error("two Oakridge invoices due the same day");
    return {
      present: [due[0]!.d],
      absent: besides(
        [due[0]!.d],
        due.slice(1).map((r) => r.d),
      ),
    };
  }),
  // Open deals expected to close in May, summed per currency; every deal expected in May (won and
  // lost too) is wrong.
  ...followUps(["open deals expected to close in may"], ["add up their value"], (t) =>
    totalOf(t, "deals", "value", `${OPEN_DEAL} AND ${within("expected_close_date", ...MAY)}`, [
      within("expected_close_date", ...MAY),
      OPEN_DEAL,
    ]),
  ),
  // Deals at lead, summed per currency: 500 + 7,000; the whole open pipeline's total is wrong.
  ...followUps(["deals at lead stage"], ["total value of those?"], (t) =>
    totalOf(t, "deals", "value", "stage = 'lead'", [OPEN_DEAL]),
  ),
  // Candidates at interview (Liam Moreau, Yara Kowalski): their skills, eight.
  ...followUps(["who's at interview stage rn"], ["what skills have they got"], (t) =>
    t.list("skills", "candidate_id IN (SELECT c.id FROM candidates c WHERE c.status = 'interview')"),
  ),
  // Unpaid, amount strictly over 5,000 (INV-000018 at exactly 5,000 is out; on what is owed the
  // set is the same): 7; with the drafts, or every status, is wrong.
  ...followUps(["invoices over 5k", "only unpaid ones"], ["how many is that"], async (t) => {
    const owed = await t.count("invoices", `${UNPAID} AND owed > 5000`);
    const amount = await t.count("invoices", `${UNPAID} AND amount > 5000`);
    if (owed !== amount) throw new Error("owed and amount readings differ");
    return countOf(t, "invoices", `${UNPAID} AND amount > 5000`, [
      "status IN ('open', 'draft') AND amount > 5000",
      "amount > 5000",
    ]);
  }),
];

export const holdout18: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
