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
  shareOf,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  LAST_WEEK,
  THIS_WEEK,
  Q1,
} from "./truths.ts";

/**
 * The FOURTEENTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven
 * categories of the phrasing exam, written blind (without reading the planner, its documentation,
 * its tests, the other exams' questions or the planner's answers, and without running it on them),
 * the way a busy owner types into a chat between two jobs: lower case, typos, abbreviations,
 * filler, run-on sentences, asides. None is copied from the other case files. The conventions are
 * grade.ts's; every truth is computed from the tables when the test runs, and a truth that would be
 * empty, tied or ambiguous throws (the exam's own fault, reported apart). Today is 2026-03-18, a
 * Wednesday: this week is 2026-03-16..22 (Monday start), last week 2026-03-09..15, this month
 * March, last month February, next month April, this quarter q1 (January to March), this year
 * 2026 (year to date 2026-01-01..2026-03-18); "the last 7 days" is 2026-03-11..18 and "more than
 * 2 weeks overdue" is due before 2026-03-04.
 */

/** A timestamp column as the organization's day (UTC), YYYY-MM-DD, in SQL. */
const dayOf = (column: string) => `to_char((${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/**
 * The one name ranked first by `text` (rows of `name` and `n`, best first); throws on no rows or a
 * tie for first place. The runner-up is absent when it alone holds second place (a runner-up tied
 * with others would be an arbitrary pick).
 */
const leader = async (t: Q, text: string): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  const second = rows[1];
  const alone = second && (rows.length < 3 || String(rows[2]!.n) !== String(second.n));
  return { present: [rows[0]!.name], absent: alone ? [second.name] : [] };
};

/** Names from SQL (`$1` the organization) present, the names of `wrong` absent; none: throws. */
const namesOf = async (t: Q, right: string, wrong: string): Promise<Expectation> => {
  const present = (await t.sql<{ name: string }>(right)).map((r) => r.name);
  if (present.length === 0) throw new Error(`no names from ${right}`);
  const others = (await t.sql<{ name: string }>(wrong)).map((r) => r.name);
  return { present, absent: besides(present, others) };
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Shown status open (not yet due), strictly over 9,000: INV-000005 and INV-000021 at 9,600
  // (owed the same); the overdue big ones are out.
  ...phrasings(1, ["hey quick one, which open invoices (not the late ones) are over 9k"], (t) =>
    t.list("invoices", "s = 'open' AND amount > 9000"),
  ),
  // Overdue with strictly less than 200 owed: INV-000003 (150) and INV-000024 (59.98); on the
  // amount the set is the same (the dollar one owes 1,000.50).
  ...phrasings(1, ["overdue invocies where the balance left is under 200 — prob not worth chasing?"], (t) =>
    t.list("invoices", "s = 'overdue' AND owed < 200"),
  ),
  // Every stage, 7,000 to 12,000 inclusive: the 7,000 Oakridge lead is in (strictly: out).
  ...phrasings(1, ["deals between 7k and 12k, any stage, pls"], (t) =>
    t.list("deals", "value BETWEEN 7000 AND 12000"),
  ),
  // Payments of 2,500 or more, inclusive (the 2,500 Kestrel instalment is in), every currency.
  ...phrasings(1, ["pull up every paymnt of 2500 or more thx"], (t) => t.list("payments", "amount >= 2500")),
  // Candidates with fewer than three skill rows (any status): the five with two.
  ...phrasings(1, ["which candidates have less than 3 skills on there profile, feels thin"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id) < 3"),
  ),
  // Strictly under 1,250: the seat licence and the consulting hour (the 1,250 workshop is out).
  ...phrasings(1, ["anything in the catalogue cheaper than 1250? someone asked for budget options"], (t) =>
    t.list("products", "price < 1250"),
  ),
  // Paid invoices whose due date is before 2026-03-01: INV-000010 and INV-000015.
  ...phrasings(1, ["paid invoices that were due before march 1 — need em for the accountant"], (t) =>
    t.list("invoices", "s = 'paid' AND due_date < '2026-03-01'"),
  ),
  // Open deals expected to close on or before 2026-04-10 (inclusive: the 11,500 Blue Fjord one on
  // 04-10 is in), the past-due Northwind lead too; no date: out.
  ...phrasings(1, ["open deals w/ an expected close on or before apr 10"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date <= '2026-04-10'`),
  ),
  // Every stage, 14,000 or more inclusive: both 14,000 deals are in (strictly: 3).
  ...phrasings(1, ["any deals at 14k+ regardless of stage"], (t) => t.list("deals", "value >= 14000")),
  // Unpaid with something received and strictly more than 1,000 still owed, every currency (the
  // dollar one owes 1,000.50, in): INV-000001, 02, 09, 18, 31.
  ...phrasings(1, ["part paid invs that still have more than 1k left on them"], (t) =>
    t.list("invoices", `${UNPAID} AND amount_paid > 0 AND owed > 1000`),
  ),
  // "$500": dollars only, unpaid, strictly over 500 (owed: the same two).
  ...phrasings(1, ["anything unpaid over $500?"], (t) =>
    t.list("invoices", `${UNPAID} AND cur = 'USD' AND amount > 500`),
  ),
  // Every status (drafts named; voids are small), strictly over 10,000: 10; without the drafts 8.
  ...phrasings(1, ["how many invoices r over 10k if u count drafts too"], (t) =>
    countOf(t, "invoices", "amount > 10000", [
      `${STANDING} AND amount > 10000`,
      `${UNPAID} AND amount > 10000`,
    ]),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Overdue, the earliest due date (the earliest issued is the same): INV-000014.
  ...phrasings(2, ["which overdue invoice has been sittin there the longest"], async (t) => {
    const due = await best(t, "invoices", "s = 'overdue'", "due_date", 1, "asc");
    const issued = await best(t, "invoices", "s = 'overdue'", "issued_at", 1, "asc");
    if (due.present[0] !== issued.present[0]) throw new Error("oldest: by due and by issue differ");
    return due;
  }),
  // Standing invoices (drafts and voids cannot reach the top 5), the five largest amounts.
  ...phrasings(2, ["top 5 invoices by amount, paid or unpaid doesnt matter"], (t) =>
    best(t, "invoices", STANDING, "amount", 5),
  ),
  // Billed (standing invoices) per client, EUR: Larkspur Foods ahead of Kestrel Robotics (drafts
  // counted in or not, the same leader; Kestrel's dollars cannot change it).
  ...phrasings(2, ["whos our biggest client by total billed? (not counting drafts)"], (t) =>
    leader(
      t,
      `SELECT client AS name, sum(amount) AS n FROM invoices
        WHERE org_id = $1 AND status IN ('open', 'paid') AND trim(currency) = 'EUR'
        GROUP BY client ORDER BY n DESC`,
    ),
  ),
  // Received 2026-03-16..22, the largest: 38,400 EUR.
  ...phrasings(2, ["whats the biggest single paymnet that landed this week"], (t) =>
    best(t, "payments", within("received_at", ...THIS_WEEK), "amount", 1),
  ),
  // Open deals, the two lowest values: the 500 Northwind lead and the 2,000 Juniper retainer.
  ...phrasings(2, ["gimme the 2 smallest deals still open"], (t) =>
    best(t, "deals", OPEN_DEAL, "value", 2, "asc"),
  ),
  // Verified skill rows per candidate: Liam Moreau with 3, every other at most 1.
  ...phrasings(2, ["which candiate has the most verified skills so far"], (t) =>
    leader(
      t,
      `SELECT c.name, count(*) AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND s.status = 'verified' GROUP BY c.name ORDER BY n DESC`,
    ),
  ),
  // Products by price, the two highest: the annual support plan and the data migration.
  ...phrasings(2, ["top 2 most expensive products we sell?"], (t) => best(t, "products", "true", "price", 2)),
  // Unpaid invoices per client, by count: Kestrel Robotics with 3.
  ...phrasings(2, ["which custmer has the most invoices outstanding w us, by count not $"], (t) =>
    leader(
      t,
      `SELECT client AS name, count(*) AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' GROUP BY client ORDER BY n DESC`,
    ),
  ),
  // Unpaid, the latest due date: INV-000006 on 2026-05-02.
  ...phrasings(2, ["of the unpaid ones which invoice is due furthest out"], (t) =>
    best(t, "invoices", UNPAID, "due_date", 1),
  ),
  // Deals at proposal, the largest: the 17,000 Riverbend retainer.
  ...phrasings(2, ["biggest deal sitting at proposal stage?"], (t) =>
    best(t, "deals", "stage = 'proposal'", "value", 1),
  ),
  // Unpaid, the three largest owed (by amount the same three): INV-000019, 14, 09.
  ...phrasings(2, ["3 largest balances ppl still owe us, by invoice"], async (t) => {
    const owed = await best(t, "invoices", UNPAID, "owed", 3);
    const amount = await best(t, "invoices", UNPAID, "amount", 3);
    if ([...owed.present].sort().join() !== [...amount.present].sort().join())
      throw new Error("owed and amount give different top 3");
    return owed;
  }),
  // Open deals expected to close today or later, the soonest: the 7,500 Acme workshop (03-24).
  ...phrasings(2, ["whats the next open deal expected to close from today on"], (t) =>
    best(t, "deals", `${OPEN_DEAL} AND expected_close_date >= $2::date`, "expected_close_date", 1, "asc"),
  ),
];

// 3. Aggregates ---------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Open deals' mean value per currency; every deal's, or the won ones', is wrong.
  ...phrasings(3, ["avg deal size in the open pipeline?"], (t) =>
    aggregate(
      t.average("deals", "value", OPEN_DEAL),
      t.average("deals", "value"),
      t.average("deals", "value", "stage = 'won'"),
    ),
  ),
  // Unpaid invoices' median amount per currency; the mean, or every standing invoice's median, is
  // wrong.
  ...phrasings(3, ["whats the median amt on unpaid invoices"], (t) =>
    aggregate(
      t.median("invoices", "amount", UNPAID),
      t.average("invoices", "amount", UNPAID),
      t.median("invoices", "amount", STANDING),
    ),
  ),
  // Owed over unpaid invoices per currency; their amount, or drafts counted in, is wrong.
  ...phrasings(3, ["total still owed to us across every unpaid inv, by currency"], (t) =>
    aggregate(
      t.total("invoices", "owed", UNPAID),
      t.total("invoices", "amount", UNPAID),
      t.total("invoices", "owed", "s IN ('open', 'overdue', 'draft')"),
    ),
  ),
  // Card payments' mean per currency; every payment's mean is wrong.
  ...phrasings(3, ["avg card payment — just curious"], (t) =>
    aggregate(t.average("payments", "amount", "method = 'card'"), t.average("payments", "amount")),
  ),
  // Standing invoices' lowest and highest amount per currency; the mean is wrong.
  ...phrasings(3, ["smallest and largest invoice amounts we've issued (skip drafts + voids)"], (t) =>
    aggregate(
      Promise.all([
        t.perCurrency("invoices", "min(amount)", STANDING),
        t.perCurrency("invoices", "max(amount)", STANDING),
      ]).then((v) => v.flat()),
      t.average("invoices", "amount", STANDING),
    ),
  ),
  // Proposal among open deals: 5 of 12; among every deal is wrong.
  ...phrasings(3, ["what % of the open pipeline is sitting at proposal"], (t) =>
    shareOf(t, "deals", "stage = 'proposal'", OPEN_DEAL, [["stage = 'proposal'", "true"]]),
  ),
  // Overdue among unpaid: 10 of 19; among every invoice, or every issued one, is wrong.
  ...phrasings(3, ["of everything unpaid, what share is actually overdue"], (t) =>
    shareOf(t, "invoices", "s = 'overdue'", UNPAID, [
      ["s = 'overdue'", "true"],
      ["s = 'overdue'", "issued_at IS NOT NULL"],
    ]),
  ),
  // Skill rows per candidate: 31 / 11 rounded to 2 decimals.
  ...phrasings(3, ["on avg how many skills does a candidate list"], async (t) => {
    const value = await must(
      t,
      `SELECT round((SELECT count(*) FROM skills WHERE org_id = $1)::numeric
          / (SELECT count(*) FROM candidates WHERE org_id = $1), 2)::text`,
    );
    return { present: [value] };
  }),
  // Standing invoices issued per month of q1, summed per currency; the quarter's total is wrong.
  ...phrasings(
    3,
    ["how much did we bill each month this quarter, jan/feb/mar separately, leave out voids"],
    async (t) => {
      const present: string[] = [];
      for (const [from, to] of [JANUARY, FEBRUARY, MARCH]) {
        const month = await t.total("invoices", "amount", `${STANDING} AND ${within("issued_at", from, to)}`);
        if (month.length === 0) throw new Error(`nothing billed from ${from}`);
        present.push(...month);
      }
      const quarter = await t.total("invoices", "amount", `${STANDING} AND ${within("issued_at", ...Q1)}`);
      return { present, absent: besides(present, quarter) };
    },
  ),
  // Inbound among every communication; inbound against outbound is wrong.
  ...phrasings(
    3,
    ["what percentage of all our logged comms were inbound ie them contacting us"],
    async (t) => {
      const present = await t.share("communications", "direction = 'inbound'", "true");
      const inbound = await t.count("communications", "direction = 'inbound'");
      const outbound = await t.count("communications", "direction <> 'inbound'");
      return { present, absent: besides(present, t.ratio(inbound, outbound)) };
    },
  ),
  // Lost deals' mean value per currency; the won ones', or every deal's, is wrong.
  ...phrasings(3, ["avg value of deals we ended up losing?"], (t) =>
    aggregate(
      t.average("deals", "value", "stage = 'lost'"),
      t.average("deals", "value", "stage = 'won'"),
      t.average("deals", "value"),
    ),
  ),
  // Every product's price, median per currency; the mean is wrong.
  ...phrasings(3, ["median product price?"], (t) =>
    aggregate(t.median("products", "price"), t.average("products", "price")),
  ),
];

// 4. Calendar windows ---------------------------------------------------------------------------

const windows: Case[] = [
  // Issued 2026-03-16..22 (any status that was issued).
  ...phrasings(4, ["what invoices went out this wk"], (t) =>
    t.list("invoices", within("issued_at", ...THIS_WEEK)),
  ),
  // Received in q1 (to date), per currency; March's alone is wrong.
  ...phrasings(4, ["total payments collected so far this quarter — for the bank meeting tmrw"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", ...Q1), [within("received_at", ...MARCH)]),
  ),
  // Unpaid with a due date in April (the paid ones and the drafts due in April are out).
  ...phrasings(4, ["anything unpaid thats due in april?"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("due_date", ...APRIL)}`),
  ),
  // Won or lost with closed_at in March: 6 deals.
  ...phrasings(4, ["deals we closed this month, won or lost"], (t) =>
    t.list("deals", `stage IN ('won', 'lost') AND ${within("closed_at", ...MARCH)}`),
  ),
  // Candidates created (applied) in February: Ava Okafor.
  ...phrasings(4, ["did anybody apply last month?"], (t) =>
    t.list("candidates", within("created_at", ...FEBRUARY)),
  ),
  // Overdue and due before 2026-03-04 (more than 14 days late): 7.
  ...phrasings(4, ["whats more than 2 weeks overdue rn"], (t) =>
    t.list("invoices", "s = 'overdue' AND due_date < '2026-03-04'"),
  ),
  // Communications from 2026-03-11 on (the first in the window is on 03-12, so every reading of
  // "the last 7 days" agrees): 11; last week's, this week's or March's count is wrong.
  ...phrasings(4, ["how many comms have we logged in the last 7 days"], async (t) => {
    const wide = await t.count("communications", "occurred_at >= '2026-03-11'");
    const narrow = await t.count("communications", "occurred_at >= '2026-03-12'");
    if (wide !== narrow) throw new Error("the last 7 days: the readings differ");
    return countOf(t, "communications", "occurred_at >= '2026-03-11'", [
      within("occurred_at", ...LAST_WEEK),
      within("occurred_at", ...THIS_WEEK),
      within("occurred_at", ...MARCH),
    ]);
  }),
  // Open deals expected to close in April.
  ...phrasings(4, ["open opps slated to close next month"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...APRIL)}`),
  ),
  // Received by bank transfer in 2026, per currency; every method's total is wrong.
  ...phrasings(4, ["ytd how much came in by bank transfer"], (t) =>
    totalOf(t, "payments", "amount", `method = 'bank_transfer' AND received_at >= '2026-01-01'`, [
      "received_at >= '2026-01-01'",
      `method = 'bank_transfer' AND ${within("received_at", ...MARCH)}`,
    ]),
  ),
  // Issued in January and still unpaid: INV-000001, 03, 09, 14, 18.
  ...phrasings(4, ["invoices issued in jan that still aren't paid"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("issued_at", ...JANUARY)}`),
  ),
  // Skills verified 2026-03-16..22: 7 (Ava Okafor's SQL, verified 2026-02-01, is out).
  ...phrasings(4, ["which skills got verified this week"], (t) =>
    t.list("skills", `status = 'verified' AND ${within("verified_at", ...THIS_WEEK)}`),
  ),
  // Deals created in February: the Kestrel fleet rollout and arm retrofit, the Helios solar pilot.
  ...phrasings(4, ["new deals added to the crm last month?"], (t) =>
    t.list("deals", within("created_at", ...FEBRUARY)),
  ),
];

// 5. Negation & the other side ------------------------------------------------------------------

const negations: Case[] = [
  // Clients with an issued invoice and none overdue: Helios, Juniper, Meridian, Quanta.
  ...phrasings(5, ["of the clients we've invoiced, who has nothing overdue"], (t) => {
    const overdue = `SELECT DISTINCT client FROM invoices
      WHERE org_id = $1 AND status = 'open' AND due_date < '${t.today}'`;
    return namesOf(
      t,
      `SELECT DISTINCT client AS name FROM invoices
        WHERE org_id = $1 AND issued_at IS NOT NULL AND client NOT IN (${overdue}) ORDER BY 1`,
      `${overdue.replace("DISTINCT client", "DISTINCT client AS name")}`,
    );
  }),
  // Contacts no deal points at: Ada Byron.
  ...phrasings(5, ["contacts we dont have any deals with at all"], (t) =>
    t.list("contacts", "NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id)"),
  ),
  // Candidates with no verified skill row: 5.
  ...phrasings(5, ["candidates w/o a single verified skill"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills k WHERE k.candidate_id = v.id AND k.status = 'verified')",
    ),
  ),
  // Open deals with no expected close date: the arm retrofit and the solar pilot (the won fleet
  // rollout has none either, and is out).
  ...phrasings(5, ["open deals missing an expected close date"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date IS NULL`),
  ),
  // Candidates with no phone: Ava Okafor, Noah Iyer, Yara Kowalski.
  ...phrasings(5, ["which candidates didnt give us a phone number"], (t) =>
    t.list("candidates", "coalesce(phone, '') = ''"),
  ),
  // Payments by card or direct debit: 8.
  ...phrasings(5, ["payments that werent bank transfers"], (t) =>
    t.list("payments", "method <> 'bank_transfer'"),
  ),
  // Unpaid with nothing received: 11; the part-paid ones (8) or every unpaid one (19) is wrong.
  ...phrasings(5, ["how many unpaid invoices havent had a single cent paid on them"], (t) =>
    countOf(t, "invoices", `${UNPAID} AND amount_paid = 0`, [`${UNPAID} AND amount_paid > 0`, UNPAID]),
  ),
  // Lost deals and their values: the 13,500 Acme workshop and the 3,000 Kestrel pilot.
  ...phrasings(5, ["which opps did we lose and what were they worth"], async (t) => {
    const found = await t.list("deals", "stage = 'lost'");
    const lost = await t.rows<{ value: string; cur: string }>("deals", "stage = 'lost'");
    return {
      present: [...found.present, ...lost.map((d) => t.money(String(d.value), d.cur))],
      absent: found.absent,
    };
  }),
  // Contacts neither lead nor customer: the prospects.
  ...phrasings(5, ["contacts that are neither leads nor customers"], (t) =>
    t.list("contacts", "lifecycle_stage NOT IN ('lead', 'customer')"),
  ),
  // Candidates for any position but backend engineer: 7; the backend ones (4) are wrong.
  ...phrasings(5, ["how many candidates arent going for backend engineer"], (t) =>
    countOf(t, "candidates", "position <> 'Backend engineer'", ["position = 'Backend engineer'", "true"]),
  ),
  // Clients with an issued, standing invoice and no payment ever: Solstice Travel.
  ...phrasings(5, ["any client thats never paid us anything?"], (t) => {
    const payers = `SELECT DISTINCT i.client FROM payments p JOIN invoices i ON i.id = p.invoice_id
      WHERE p.org_id = $1`;
    return namesOf(
      t,
      `SELECT DISTINCT client AS name FROM invoices WHERE org_id = $1
        AND status IN ('open', 'paid') AND client NOT IN (${payers}) ORDER BY 1`,
      payers.replace("DISTINCT i.client", "DISTINCT i.client AS name"),
    );
  }),
  // Unpaid and not in euros: the two dollar invoices.
  ...phrasings(5, ["anything outstanding thats not in euros"], (t) =>
    t.list("invoices", `${UNPAID} AND cur <> 'EUR'`),
  ),
];

// 6. Named records inside other resources -------------------------------------------------------

const named: Case[] = [
  // The Helios solar monitoring pilot's value: 4,200 USD (not EUR).
  ...phrasings(6, ["how big is the solar monitoring deal"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE 'solar monitoring%'");
    return { present: [t.money(String(deal.value), deal.cur!)] };
  }),
  // The one Oakridge deal's expected close date.
  ...phrasings(6, ["when's the oakridge deal meant to close"], async (t) => {
    const deal = await only(t, "deals", "company = 'Oakridge Builders'");
    const day = await must(
      t,
      `SELECT to_char(expected_close_date, 'YYYY-MM-DD') FROM deals WHERE org_id = $1 AND id = $2`,
      [deal.id],
    );
    return { present: [day] };
  }),
  // The one Quanta deal: qualified.
  ...phrasings(6, ["quanta deal — what stage r we at"], async (t) => {
    const deal = await only(t, "deals", "company = 'Quanta Analytics'");
    return { present: [deal.stage!], absent: ["proposal", "lost"].filter((s) => s !== deal.stage) };
  }),
  // Received from Larkspur Foods; what they were billed, or still owe, is wrong.
  ...phrasings(6, ["how much has larkspur actually paid us so far"], (t) =>
    aggregate(
      t.total("payments", "amount", "client = 'Larkspur Foods'"),
      t.total("invoices", "amount", `client = 'Larkspur Foods' AND ${STANDING}`),
      t.total("invoices", "owed", `client = 'Larkspur Foods' AND ${UNPAID}`),
    ),
  ),
  // Theo Novak's latest outbound communication (every one of his is outbound): 2026-03-14.
  ...phrasings(6, ["when did we last reach out to theo novak"], async (t) => {
    const pick = (direction: string) =>
      must(
        t,
        `SELECT ${dayOf("max(m.occurred_at)")} FROM communications m JOIN contacts c ON c.id = m.contact_id
          WHERE m.org_id = $1 AND c.name = 'Theo Novak' AND ${direction}`,
      );
    const outbound = await pick("m.direction = 'outbound'");
    if (outbound !== (await pick("true"))) throw new Error("reach out: outbound and any direction differ");
    if (outbound === t.today) throw new Error("the answer is today");
    return { present: [outbound] };
  }),
  // Mia Haddad's verified skills: Python (her SQL is only claimed).
  ...phrasings(6, ["which of mia haddad's skills r verified"], (t) =>
    t.list("skills", "candidate_name = 'Mia Haddad' AND status = 'verified'"),
  ),
  // Juniper Health's invoices, every status.
  ...phrasings(6, ["show me juniper health's invoices"], (t) =>
    t.list("invoices", "client = 'Juniper Health'"),
  ),
  // Owed by Blue Fjord Studio over unpaid invoices; everything billed to them is wrong.
  ...phrasings(6, ["what's blue fjord still owe"], (t) =>
    aggregate(
      t.total("invoices", "owed", `client = 'Blue Fjord Studio' AND ${UNPAID}`),
      t.total("invoices", "amount", `client = 'Blue Fjord Studio' AND ${STANDING}`),
    ),
  ),
  // Sofia Okafor is Kestrel Robotics' contact: its invoices, every status.
  ...phrasings(6, ["invoices for sofia okafor's company"], async (t) => {
    const contact = await only(t, "contacts", "name = 'Sofia Okafor'");
    return t.list("invoices", "client = $3", [contact.company]);
  }),
  // Yara Kowalski's position and status (Yara Iyer's position is wrong).
  ...phrasings(6, ["what job did yara kowalski apply for and where's she at in the process"], async (t) => {
    const yara = await only(t, "candidates", "name = 'Yara Kowalski'");
    const other = await only(t, "candidates", "name = 'Yara Iyer'");
    if (other.position === yara.position || other.status === yara.status)
      throw new Error("the two Yaras cannot be told apart");
    return { present: [yara.position!, yara.status!], absent: [other.position!] };
  }),
  // The Solstice pilot, won: its value (the lost Kestrel pilot's is wrong).
  ...phrasings(6, ["what did the solstice pilot close for"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE 'pilot programme%solstice%'");
    if (deal.stage !== "won") throw new Error("the Solstice pilot is not won");
    const other = await only(t, "deals", "title ILIKE 'pilot programme%kestrel%'");
    return {
      present: [t.money(String(deal.value), deal.cur!)],
      absent: besides([t.money(String(deal.value), deal.cur!)], [t.money(String(other.value), other.cur!)]),
    };
  }),
  // Oakridge's 9,600 invoice (INV-000021): its due date; the 9,600 Juniper one's is wrong.
  ...phrasings(6, ["oakridge's 9600 invoice — when's it due?"], async (t) => {
    const invoice = await only(t, "invoices", "client = 'Oakridge Builders' AND amount = 9600");
    const dueOf = (id: string) =>
      must(t, `SELECT to_char(due_date, 'YYYY-MM-DD') FROM invoices WHERE org_id = $1 AND id = $2`, [id]);
    const right = await dueOf(invoice.id!);
    const others = await t.rows<{ id: string }>(
      "invoices",
      "client <> 'Oakridge Builders' AND amount = 9600",
    );
    const wrong: string[] = [];
    for (const o of others) wrong.push(await dueOf(o.id));
    return { present: [right], absent: besides([right], wrong) };
  }),
];

// 7. Follow-ups that refine ---------------------------------------------------------------------

const refinements: Case[] = [
  // Overdue, the oldest (by due date and by issue date the same): INV-000014.
  ...followUps(["overdue invoices"], ["which one's the oldest"], async (t) => {
    const due = await best(t, "invoices", "s = 'overdue'", "due_date", 1, "asc");
    const issued = await best(t, "invoices", "s = 'overdue'", "issued_at", 1, "asc");
    if (due.present[0] !== issued.present[0]) throw new Error("oldest: by due and by issue differ");
    return due;
  }),
  // Received in March by card: 4 (February's card payment is out).
  ...followUps(["what payments came in this month?"], ["only the card ones"], (t) =>
    t.list("payments", `method = 'card' AND ${within("received_at", ...MARCH)}`),
  ),
  // Open deals at qualified: 5; every open deal (12) is wrong.
  ...followUps(["show me the open deals"], ["how many of those r qualified"], (t) =>
    countOf(t, "deals", "stage = 'qualified'", [OPEN_DEAL]),
  ),
  // Helios Energy's unpaid invoices: INV-000004 and INV-000032 (the paid and the void are out).
  ...followUps(["invoices for helios"], ["which are still unpaid"], (t) =>
    t.list("invoices", `client = 'Helios Energy' AND ${UNPAID}`),
  ),
  // Open deals in dollars, summed: 4,200 USD; the euro total, or every dollar deal's, is wrong.
  ...followUps(["what's the open pipeline worth"], ["and in dollars?"], (t) =>
    aggregate(
      t.total("deals", "value", `${OPEN_DEAL} AND cur = 'USD'`),
      t.total("deals", "value", OPEN_DEAL),
      t.total("deals", "value", "cur = 'USD'"),
    ),
  ),
  // Candidates in screening who came by referral: Ava Okafor and Noah Iyer.
  ...followUps(["candidates in screening"], ["which of them came thru referral"], (t) =>
    t.list("candidates", "status = 'screening' AND source = 'referral'"),
  ),
  // Issued in February, unpaid, the largest: INV-000019 (the paid INV-000030 has the same amount).
  ...followUps(["invoices we issued in feb", "just the unpaid ones"], ["which is the biggest"], (t) =>
    best(t, "invoices", `${UNPAID} AND ${within("issued_at", ...FEBRUARY)}`, "amount", 1),
  ),
  // Customers (lifecycle) with a deal still open: every customer but Ravi Okafor.
  ...followUps(["which contacts are marked as customers"], ["which of them have deals still open"], (t) =>
    t.list(
      "contacts",
      `lifecycle_stage = 'customer' AND EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id
        AND d.stage IN ('lead', 'qualified', 'proposal'))`,
    ),
  ),
  // Received 2026-03-16..22 and strictly over 10,000: 4; the week's 13 is wrong.
  ...followUps(["payments this week"], ["how many were over 10k"], (t) =>
    countOf(t, "payments", `amount > 10000 AND ${within("received_at", ...THIS_WEEK)}`, [
      within("received_at", ...THIS_WEEK),
    ]),
  ),
  // Products by price, the three highest.
  ...followUps(["list our products"], ["top 3 by price?"], (t) => best(t, "products", "true", "price", 3)),
  // Won with closed_at in March, summed per currency: EUR only; February's dollar win is wrong.
  ...followUps(["deals we won", "just this month"], ["total value?"], (t) =>
    totalOf(t, "deals", "value", `stage = 'won' AND ${within("closed_at", ...MARCH)}`, ["stage = 'won'"]),
  ),
  // Product designer candidates who were rejected: Amara Novak and Sofia Lindqvist.
  ...followUps(["who applied for product designer"], ["which of them got rejected"], (t) =>
    t.list("candidates", "position = 'Product designer' AND status = 'rejected'"),
  ),
];

export const holdout14: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
