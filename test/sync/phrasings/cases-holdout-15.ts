import { followUps, phrasings, type Case, type Expectation, type Q, type Resource } from "./grade.ts";
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
  shareOf,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  STAGES,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  MAY,
  YESTERDAY,
  THIS_WEEK,
} from "./truths.ts";

/**
 * The FIFTEENTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven
 * categories of the phrasing exam, written blind (without reading the planner, its documentation,
 * its tests, the other exams' questions beyond the two format examples, or its answers, and without
 * running it on them), the way a busy owner types into a chat between two jobs: lower case, typos,
 * abbreviations, filler, run-on sentences, asides. None is copied from the other case files. The
 * conventions are grade.ts's; every truth is computed from the tables when the test runs, and a
 * truth that would be empty, tied or ambiguous throws (the exam's own fault, reported apart).
 * Today is 2026-03-18, a Wednesday: yesterday is 2026-03-17, this week is 2026-03-16..22 (Monday
 * start), this month March, last month February, next month April, this quarter and q1 January to
 * March, this year (ytd) from 2026-01-01; "the last 30 days" runs 2026-02-16..2026-03-18, "the next
 * 30 days" 2026-03-18..2026-04-17, and "more than 2 weeks late" is due before 2026-03-04.
 */

const TODAY = ["2026-03-18", "2026-03-19"] as const;

/** The count of communications logged with the contact row `v`, in SQL. */
const TOUCHES = "(SELECT count(*) FROM communications m WHERE m.contact_id = v.id)";

/**
 * A list on `where` that must come out the same on `reading` (the other reading of the owner's
 * words, e.g. the amount against what is still owed): throws when the two readings differ.
 */
const agreed = async (t: Q, resource: Resource, where: string, reading: string): Promise<Expectation> => {
  const one = (await t.labels(resource, where)).sort().join("|");
  const other = (await t.labels(resource, reading)).sort().join("|");
  if (one !== other) throw new Error(`the readings differ: ${where} against ${reading}`);
  return t.list(resource, where);
};

/** The first `n` by `order`, which must be the same records by `reading` (the other column). */
const bestAgreed = async (
  t: Q,
  resource: Resource,
  where: string,
  order: string,
  reading: string,
  n: number,
  dir: "asc" | "desc" = "desc",
): Promise<Expectation> => {
  const found = await best(t, resource, where, order, n, dir);
  const other = await best(t, resource, where, reading, n, dir);
  if ([...found.present].sort().join("|") !== [...other.present].sort().join("|"))
    throw new Error(`the top ${n} by ${order} and by ${reading} differ`);
  return found;
};

/**
 * The one name ranked first by `text` (rows of `name` and `n`, best first); throws on no rows or a
 * tie for first place. The runner-up is absent unless `runnerUp` is false (when several tie for
 * second place, naming one of them would be arbitrary).
 */
const leader = async (t: Q, text: string, runnerUp = true): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  return { present: [rows[0]!.name], absent: runnerUp ? rows.slice(1, 2).map((r) => r.name) : [] };
};

/** The names `right` (SQL, `$1` the organization) present and `all` minus them absent. */
const namesOf = async (t: Q, right: string, all: string): Promise<Expectation> => {
  const present = (await t.sql<{ name: string }>(right)).map((r) => r.name);
  if (present.length === 0) throw new Error(`nobody from ${right}`);
  const everyone = (await t.sql<{ name: string }>(all)).map((r) => r.name);
  return { present, absent: besides(present, everyone) };
};

/** A timestamp column as the organization's day (UTC), YYYY-MM-DD, in SQL. */
const dayOf = (column: string) => `to_char((${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Overdue, amount strictly under 200: INV-000003 (150) and INV-000024 (59.98); neither has a
  // payment, so on what is owed the set is the same (the dollar one owes 1,000.50).
  ...phrasings(1, ["hey any overdue invoices under 200? tiny ones, might just write em off"], (t) =>
    agreed(t, "invoices", "s = 'overdue' AND amount < 200", "s = 'overdue' AND owed < 200"),
  ),
  // Payments by bank transfer of 2,000 or more (inclusive: January's 2,000 is in), any currency.
  ...phrasings(1, ["bank transfers we got that were 2k or more - which ones"], (t) =>
    listOf(t, "payments", "method = 'bank_transfer' AND amount >= 2000", [
      "method = 'bank_transfer' AND amount > 2000",
      "amount >= 2000",
    ]),
  ),
  // Every stage and currency, strictly over 12,000 (won, lost and open alike).
  ...phrasings(1, ["which deals r worth more than 12k, doesnt matter what stage theyre in"], (t) =>
    listOf(t, "deals", "value > 12000", [`${OPEN_DEAL} AND value > 12000`]),
  ),
  // Unpaid, amount 6,000 to 10,000 inclusive: INV-000005, INV-000012, INV-000021 (INV-000018 at
  // 5,000 is out); on what is owed the set is the same.
  ...phrasings(1, ["unpaid invs between 6k and 10k?"], (t) =>
    agreed(
      t,
      "invoices",
      `${UNPAID} AND amount BETWEEN 6000 AND 10000`,
      `${UNPAID} AND owed BETWEEN 6000 AND 10000`,
    ),
  ),
  // Price 1,000 to 5,000 inclusive: the support plan, the data migration, the workshop.
  ...phrasings(1, ["what prodcuts do we have priced somewhere between 1k and 5k"], (t) =>
    t.list("products", "price BETWEEN 1000 AND 5000"),
  ),
  // Candidates with strictly fewer than 3 skill rows (any status).
  ...phrasings(1, ["which candidates have less than 3 skills on their profile"], (t) =>
    listOf(t, "candidates", "(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id) < 3", [
      "(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id) <= 3",
    ]),
  ),
  // Contacts with 5 or more communications (any channel, either direction): Jonas Tanaka (6),
  // Mia Schmidt and Theo Novak (5 each); the strict reading leaves one.
  ...phrasings(1, ["contacts weve had 5 or more touchpoints with (calls emails meetings whatever)"], (t) =>
    listOf(t, "contacts", `${TOUCHES} >= 5`, [`${TOUCHES} > 5`]),
  ),
  // Open deals of 11,000 or more, inclusive (the 11,000 Blue Fjord migration is in; it shares its
  // title with the 11,500 one).
  ...phrasings(1, ["open deals 11k+ pls"], (t) => t.list("deals", `${OPEN_DEAL} AND value >= 11000`)),
  // Unpaid with strictly less than 500 still owed (the words say owed): six invoices.
  ...phrasings(1, ["unpaid invocies with less than 500 left to pay on them"], (t) =>
    listOf(t, "invoices", `${UNPAID} AND owed < 500`, [`${UNPAID} AND amount < 500`]),
  ),
  // Card payments strictly over 300, any currency: 1,000, 375 and 2,500 EUR (250 USD is out).
  ...phrasings(1, ["card payments over 300?"], (t) => t.list("payments", "method = 'card' AND amount > 300")),
  // Open deals expected to close on or before 2026-04-10, inclusive (the 11,500 Blue Fjord
  // migration on 04-10 is in); deals without a date are out.
  ...phrasings(1, ["opps expected to close on or before april 10th, still open ones obvs"], (t) =>
    listOf(t, "deals", `${OPEN_DEAL} AND expected_close_date <= '2026-04-10'`, [
      `${OPEN_DEAL} AND expected_close_date < '2026-04-10'`,
    ]),
  ),
  // Every status (drafts and voids included), every currency, strictly under 1,000.
  ...phrasings(1, ["how many invoices r under 1000 - drafts voids everything, just want the number"], (t) =>
    countOf(t, "invoices", "amount < 1000", [`${STANDING} AND amount < 1000`, "amount <= 1000"]),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Unpaid, the four largest balances owed: INV-000019, INV-000014, INV-000009, INV-000023; by
  // amount the same four (next 9,600).
  ...phrasings(2, ["which 4 invoices have the biggest balances still outstanding"], (t) =>
    bestAgreed(t, "invoices", UNPAID, "owed", "amount", 4),
  ),
  // Every product, the lowest price: the monthly seat licence.
  ...phrasings(2, ["cheapest thing we sell? thx"], (t) => best(t, "products", "true", "price", 1, "asc")),
  // Issued in 2026, the earliest issue date: INV-000014 (2026-01-03).
  ...phrasings(2, ["whats the very first invoice we sent out this year"], (t) =>
    best(t, "invoices", "issued_at >= '2026-01-01'", "issued_at", 1, "asc"),
  ),
  // Lead-stage deals, the largest: the Oakridge data migration (7,000; the other lead is 500).
  ...phrasings(2, ["biggest deal still sitting at lead stage"], (t) =>
    best(t, "deals", "stage = 'lead'", "value", 1),
  ),
  // The contact on the largest open deal (the 17,000 Riverbend retainer): Liam Haddad; the
  // runner-up's contact is wrong.
  ...phrasings(2, ["whos the contact person on our biggest open deal"], (t) =>
    leader(
      t,
      `SELECT c.name, d.value AS n FROM deals d JOIN contacts c ON c.id = d.contact_id
        WHERE d.org_id = $1 AND d.stage IN ('lead', 'qualified', 'proposal') ORDER BY d.value DESC`,
    ),
  ),
  // Issued 2026-03-01..31 (standing), the largest amount: INV-000017 (24,000).
  ...phrasings(2, ["largest inv we sent this month?"], (t) =>
    best(t, "invoices", `${STANDING} AND ${within("issued_at", ...MARCH)}`, "amount", 1),
  ),
  // Candidates still in the running, the earliest to apply: Ava Okafor (2026-02-01; every other
  // candidate applied in March, so counting everyone gives the same).
  ...phrasings(
    2,
    ["which applicant has been in our hiring pipeline the longest, feel bad for them lol"],
    (t) => best(t, "candidates", "status NOT IN ('hired', 'rejected')", "created_at", 1, "asc"),
  ),
  // Unpaid, the smallest amount: INV-000024 (59.98); by what is owed the same.
  ...phrasings(2, ["smallest unpaid inv we have out there"], (t) =>
    bestAgreed(t, "invoices", UNPAID, "amount", "owed", 1, "asc"),
  ),
  // Overdue, the three earliest due dates: INV-000014, INV-000009, INV-000003 (next due 02-27).
  ...phrasings(2, ["3 invoices that r the most days past due"], (t) =>
    best(t, "invoices", "s = 'overdue'", "due_date", 3, "asc"),
  ),
  // Skill rows per skill name: TypeScript (4 candidates; several tie at 3, so no runner-up).
  ...phrasings(2, ["whats the most common skill our candidates have"], (t) =>
    leader(
      t,
      `SELECT name, count(*) AS n FROM skills WHERE org_id = $1 GROUP BY name ORDER BY n DESC`,
      false,
    ),
  ),
  // Voided invoices, the largest: INV-000028 (900; the other void is 119.96).
  ...phrasings(2, ["biggest invoice we ended up voiding"], (t) =>
    best(t, "invoices", "s = 'void'", "amount", 1),
  ),
  // Payments received 2026-03-01..31, the three largest: 38,400, 24,000, 16,002.50 EUR.
  ...phrasings(2, ["top 3 payments this month by size"], (t) =>
    best(t, "payments", within("received_at", ...MARCH), "amount", 3),
  ),
];

// 3. Aggregates ---------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Overdue invoices' mean amount, per currency; the mean owed, or every standing invoice's mean,
  // is wrong.
  ...phrasings(3, ["what does the avg overdue invoice come to roughly"], (t) =>
    aggregate(
      t.average("invoices", "amount", "s = 'overdue'"),
      t.average("invoices", "owed", "s = 'overdue'"),
      t.average("invoices", "amount", STANDING),
    ),
  ),
  // Open deals' median value, per currency; their mean, or every deal's median, is wrong.
  ...phrasings(3, ["median value of whats still in the pipline?"], (t) =>
    aggregate(
      t.median("deals", "value", OPEN_DEAL),
      t.average("deals", "value", OPEN_DEAL),
      t.median("deals", "value"),
    ),
  ),
  // Overdue among unpaid (open or overdue): 10 of 19; among every standing or every invoice is wrong.
  ...phrasings(3, ["of the invoices ppl still owe us on, what % are actually overdue"], (t) =>
    shareOf(t, "invoices", "s = 'overdue'", UNPAID, [
      ["s = 'overdue'", STANDING],
      ["s = 'overdue'", "true"],
    ]),
  ),
  // Card payments' mean, per currency (EUR 998.50, USD 250); every payment's mean is wrong.
  ...phrasings(3, ["avg card payment size?"], (t) =>
    aggregate(t.average("payments", "amount", "method = 'card'"), t.average("payments", "amount")),
  ),
  // Issued in 2026 and standing: the lowest and highest amount per currency; the mean is wrong.
  ...phrasings(3, ["smallest and largest invoice weve issued this yr, just the amounts"], (t) => {
    const where = `${STANDING} AND issued_at >= '2026-01-01'`;
    return aggregate(
      Promise.all([
        t.perCurrency("invoices", "min(amount)", where),
        t.perCurrency("invoices", "max(amount)", where),
      ]).then((v) => v.flat()),
      t.average("invoices", "amount", where),
    );
  }),
  // Open (lead, qualified, proposal) among every deal: 12 of 19; won among every deal is wrong.
  ...phrasings(3, ["what percantage of our deals are still open"], (t) =>
    shareOf(t, "deals", OPEN_DEAL, "true", [["stage = 'won'", "true"]]),
  ),
  // Bank transfers among every payment, by count: 8 of 16; card is wrong.
  ...phrasings(
    3,
    ["what share of payments come in by bank transfer, by number of payments not amount"],
    (t) => shareOf(t, "payments", "method = 'bank_transfer'", "true", [["method = 'card'", "true"]]),
  ),
  // Paid invoices' mean amount, per currency; every standing invoice's mean, or the mean payment,
  // is wrong.
  ...phrasings(3, ["on avg how big are the invoices that actually got paid"], (t) =>
    aggregate(
      t.average("invoices", "amount", "s = 'paid'"),
      t.average("invoices", "amount", STANDING),
      t.average("payments", "amount"),
    ),
  ),
  // Referral among every candidate: 2 of 11; among those with a source known (2 of 8) is wrong.
  ...phrasings(3, ["what % of candidates came to us thru referrals"], (t) =>
    shareOf(t, "candidates", "source = 'referral'", "true", [["source = 'referral'", "source IS NOT NULL"]]),
  ),
  // Contacts tagged priority among every contact.
  ...phrasings(3, ["what fraction of our contacts r tagged priority"], (t) =>
    shareOf(t, "contacts", "tags::text ILIKE '%priority%'", "true", [
      ["tags::text ILIKE '%priority%'", "lifecycle_stage = 'customer'"],
    ]),
  ),
  // Unpaid invoices: the median still owed, per currency; the median amount or the mean owed is
  // wrong.
  ...phrasings(3, ["median balance left on the unpaid invoices (whats left, not the full amt)"], (t) =>
    aggregate(
      t.median("invoices", "owed", UNPAID),
      t.median("invoices", "amount", UNPAID),
      t.average("invoices", "owed", UNPAID),
    ),
  ),
  // Open deals in euros, summed (98,000 EUR); every euro deal, or open and won, is wrong.
  ...phrasings(3, ["whats the open pipeline worth in euros all up"], (t) =>
    totalOf(t, "deals", "value", `${OPEN_DEAL} AND cur = 'EUR'`, [
      "cur = 'EUR'",
      `stage IN ('lead', 'qualified', 'proposal', 'won') AND cur = 'EUR'`,
    ]),
  ),
];

// 4. Calendar windows ---------------------------------------------------------------------------

const windows: Case[] = [
  // Issued in January and unpaid: INV-000001, -003, -009, -014, -018 (the January void is out).
  ...phrasings(4, ["which of the invoices from january r still unpaid smh"], (t) =>
    listOf(t, "invoices", `${UNPAID} AND ${within("issued_at", ...JANUARY)}`, [
      `${UNPAID} AND ${within("due_date", ...JANUARY)}`,
    ]),
  ),
  // Issued in February (standing: the void left out), summed per currency; with the void, by
  // due date in February, or March's, is wrong.
  ...phrasings(4, ["how much did we bill in feb? dont count the voided one"], (t) =>
    totalOf(t, "invoices", "amount", `${STANDING} AND ${within("issued_at", ...FEBRUARY)}`, [
      within("issued_at", ...FEBRUARY),
      `${STANDING} AND ${within("due_date", ...FEBRUARY)}`,
      `${STANDING} AND ${within("issued_at", ...MARCH)}`,
    ]),
  ),
  // Unpaid, due 2026-03-18..2026-04-17: six invoices (nothing falls on either edge; the drafts and
  // paid ones due in the window are out).
  ...phrasings(4, ["whats coming due in the next 30 days that hasnt been paid yet"], (t) =>
    listOf(t, "invoices", `${UNPAID} AND due_date BETWEEN '2026-03-18' AND '2026-04-17'`, [
      `${UNPAID} AND ${within("due_date", ...APRIL)}`,
    ]),
  ),
  // Won or lost with closed_at in March: six deals (February's dollar win is out).
  ...phrasings(4, ["which deals did we close out this month, won or lost"], (t) =>
    listOf(t, "deals", `stage IN ('won', 'lost') AND ${within("closed_at", ...MARCH)}`, [
      `stage = 'won' AND ${within("closed_at", ...MARCH)}`,
      "stage IN ('won', 'lost')",
    ]),
  ),
  // Paid in full today (paid_at 2026-03-18): eight invoices; today's part payments are not.
  ...phrasings(4, ["which invoices got paid off today"], (t) =>
    t.list("invoices", `s = 'paid' AND ${within("paid_at", ...TODAY)}`),
  ),
  // Contacts with a communication on 2026-03-17: Sofia Okafor, Jonas Tanaka, Sofia Novak (today's
  // Ava Okafor and Sunday's Mia Schmidt are wrong).
  ...phrasings(4, ["hey who did we talk to yesterday, cant remember"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND ${within("m.occurred_at", ...YESTERDAY)})`,
    ),
  ),
  // Expected close date in April, any stage: four deals.
  ...phrasings(4, ["deals that should close sometime in april?"], (t) =>
    listOf(t, "deals", within("expected_close_date", ...APRIL), [within("expected_close_date", ...MAY)]),
  ),
  // Verified on or after 2026-02-16: 7 (Ava Okafor's SQL, verified 2026-02-01, is out); every
  // verified skill (8) is wrong.
  ...phrasings(4, ["how many skills got verified in the last 30 days"], (t) =>
    countOf(t, "skills", "status = 'verified' AND verified_at >= '2026-02-16'", ["status = 'verified'"]),
  ),
  // Overdue with a due date in March (went overdue this month): INV-000012, -019, -023, -024, -031.
  ...phrasings(4, ["which invoices went overdue this month, ugh"], (t) =>
    listOf(t, "invoices", `s = 'overdue' AND ${within("due_date", ...MARCH)}`, ["s = 'overdue'"]),
  ),
  // Issued 2026-03-16..22 (Monday start), any status with an issue date: seven invoices.
  ...phrasings(4, ["what invoices went out this wk"], (t) =>
    listOf(t, "invoices", within("issued_at", ...THIS_WEEK), [within("issued_at", ...MARCH)]),
  ),
  // Overdue, due before 2026-03-04 (more than 14 days late): seven; INV-000031 (due 03-08) and
  // the two due 03-13 and 03-16 are out.
  ...phrasings(4, ["anything more than 2 weeks late? which ones"], (t) =>
    listOf(t, "invoices", "s = 'overdue' AND due_date < '2026-03-04'", ["s = 'overdue'"]),
  ),
  // Deals created in February: the three Kestrel/Helios fixtures.
  ...phrasings(4, ["what deals did we add to the crm last month"], (t) =>
    t.list("deals", within("created_at", ...FEBRUARY)),
  ),
];

// 5. Negation & the other side ------------------------------------------------------------------

/** Every client with an issued invoice, as SQL. */
const CLIENTS = `SELECT DISTINCT client AS name FROM invoices WHERE org_id = $1 AND issued_at IS NOT NULL ORDER BY name`;

const negations: Case[] = [
  // Clients with an issued invoice and no payment at all: Solstice Travel.
  ...phrasings(5, ["any client that hasnt paid us a single cent yet??"], (t) =>
    namesOf(
      t,
      `SELECT DISTINCT i.client AS name FROM invoices i WHERE i.org_id = $1 AND i.issued_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM payments p JOIN invoices j ON j.id = p.invoice_id
          WHERE p.org_id = $1 AND j.client = i.client) ORDER BY name`,
      CLIENTS,
    ),
  ),
  // Candidates with no phone number: Ava Okafor, Noah Iyer, Yara Kowalski.
  ...phrasings(5, ["candidates w/o a phone number? need to call a few of them"], (t) =>
    t.list("candidates", "coalesce(phone, '') = ''"),
  ),
  // Lost deals' value, summed per currency; the won ones', or every deal not won, is wrong.
  ...phrasings(5, ["total value of the deals that didnt work out for us"], (t) =>
    totalOf(t, "deals", "value", "stage = 'lost'", ["stage = 'won'", "stage <> 'won'"]),
  ),
  // Not sent yet = drafts: INV-000013, -022, -025.
  ...phrasings(5, ["which invoices havent actually been sent out yet"], (t) =>
    t.list("invoices", "status = 'draft'"),
  ),
  // Paid, on a day after the due date: INV-000010, -015, -030.
  ...phrasings(5, ["paid invoices that werent paid on time, which ones"], (t) =>
    t.list("invoices", "s = 'paid' AND (paid_at AT TIME ZONE 'UTC')::date > due_date"),
  ),
  // Contacts with no communication in March: Ada Byron, Liam Haddad, Zoe Okafor.
  ...phrasings(5, ["who havent we been in touch w at all this month, dont want anyone going cold"], (t) =>
    t.list(
      "contacts",
      `NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND ${within("m.occurred_at", ...MARCH)})`,
    ),
  ),
  // Contacts without the priority tag.
  ...phrasings(5, ["contacts that arent tagged as priority"], (t) =>
    t.list("contacts", "NOT (tags::text ILIKE '%priority%')"),
  ),
  // Unpaid with something received but not all: eight invoices.
  ...phrasings(
    5,
    ["invoices where theyve paid some but not the whole thing, partial payers basically"],
    (t) => listOf(t, "invoices", `${UNPAID} AND amount_paid > 0`, [`${UNPAID} AND amount_paid = 0`]),
  ),
  // Rejected candidates: Amara Novak, Sofia Lindqvist.
  ...phrasings(5, ["which applicants didnt make the cut"], (t) =>
    t.list("candidates", "status = 'rejected'"),
  ),
  // Contacts without an open deal: Ada Byron, Jonas Brennan, Ravi Okafor.
  ...phrasings(5, ["contacts with nothing in the pipeline rn"], (t) =>
    t.list(
      "contacts",
      `NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id AND d.stage IN ('lead', 'qualified', 'proposal'))`,
    ),
  ),
  // Clients with no unpaid invoice (a draft is not owed): Quanta Analytics.
  ...phrasings(5, ["which clients dont owe us anything at the moment"], (t) =>
    namesOf(
      t,
      `SELECT DISTINCT i.client AS name FROM invoices i WHERE i.org_id = $1 AND i.issued_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM invoices j WHERE j.org_id = $1 AND j.client = i.client
          AND j.status = 'open') ORDER BY name`,
      CLIENTS,
    ),
  ),
  // Open deals whose expected close date has passed: the 500 Northwind renewal (its title is
  // shared by the 3,500 one due in April).
  ...phrasings(5, ["open deals that blew past their expected close date and still arent closed"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date < '2026-03-18'`),
  ),
];

// 6. Named records inside other resources -------------------------------------------------------

const named: Case[] = [
  // The one Oakridge Builders deal: the data migration, at lead.
  ...phrasings(6, ["hey what stage is the oakridge deal in"], async (t) => {
    const deal = await only(t, "deals", "company = 'Oakridge Builders'");
    return { present: [deal.stage!], absent: STAGES.filter((s) => s !== deal.stage) };
  }),
  // The one Solstice Travel deal, won: 6,000 EUR (the lost Kestrel pilot shares the title).
  ...phrasings(6, ["how much did we win the solstice deal for again"], async (t) => {
    const deal = await only(t, "deals", "company = 'Solstice Travel'");
    if (deal.stage !== "won") throw new Error("the Solstice deal is not won");
    const other = await only(t, "deals", "company = 'Kestrel Robotics' AND title ILIKE 'pilot%'");
    return {
      present: [t.money(String(deal.value), deal.cur!)],
      absent: besides([t.money(String(deal.value), deal.cur!)], [t.money(String(other.value), other.cur!)]),
    };
  }),
  // Theo Novak's latest communication, any direction: 2026-03-14.
  ...phrasings(6, ["when did we last talk to theo novak"], async (t) => {
    const day = await must(
      t,
      `SELECT ${dayOf("max(m.occurred_at)")} FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND c.name = 'Theo Novak'`,
    );
    if (day === t.today) throw new Error("the answer is today");
    return { present: [day] };
  }),
  // Juniper Health's invoices, every status: INV-000005, -017, -029.
  ...phrasings(6, ["pull up juniper healths invoices"], (t) =>
    t.list("invoices", "client = 'Juniper Health'"),
  ),
  // Sofia Schmidt's skills (a candidate; Mia Schmidt is a contact).
  ...phrasings(6, ["what skills does sofia schmidt have"], (t) =>
    t.list("skills", "candidate_name = 'Sofia Schmidt'"),
  ),
  // Received from Blue Fjord Studio, per currency; what they were billed is wrong.
  ...phrasings(6, ["how much has blue fjord payed us so far"], (t) =>
    aggregate(
      t.total("payments", "amount", "client = 'Blue Fjord Studio'"),
      t.total("invoices", "amount", `client = 'Blue Fjord Studio' AND ${STANDING}`),
    ),
  ),
  // Helios Energy's unpaid invoice due first: INV-000032 on 2026-03-23 (the void due 03-19 and the
  // paid one due 04-06 are wrong).
  ...phrasings(6, ["when's helios's next invoice due"], async (t) => {
    const [next] = await t.rows<{ label: string }>(
      "invoices",
      `client = 'Helios Energy' AND ${UNPAID}`,
      [],
      "due_date, label",
    );
    if (!next) throw new Error("Helios owes nothing");
    const first = await must(
      t,
      `SELECT to_char(min(due_date), 'YYYY-MM-DD') FROM invoices
        WHERE org_id = $1 AND client = 'Helios Energy' AND status = 'open'`,
    );
    if (first < t.today) throw new Error("Helios's first unpaid invoice is already overdue");
    // The void's and the paid invoice's due dates are wrong readings (the other unpaid one, due
    // later, may be shown beside it).
    const dues = await t.sql<{ due: string }>(
      `SELECT to_char(due_date, 'YYYY-MM-DD') AS due FROM invoices
        WHERE org_id = $1 AND client = 'Helios Energy' AND status IN ('void', 'paid') ORDER BY due_date`,
    );
    return {
      present: [first, next.label],
      absent: besides(
        [first],
        dues.map((r) => r.due),
      ),
    };
  }),
  // Mia Haddad's status: offer (Mia Lindqvist's is applied).
  ...phrasings(6, ["whats the status on mia haddads application"], async (t) => {
    const candidate = await only(t, "candidates", "name = 'Mia Haddad'");
    return {
      present: [candidate.status!],
      absent: ["screening", "interview", "hired", "rejected"].filter((s) => s !== candidate.status),
    };
  }),
  // Jonas Tanaka's deals: three (two share the Helios seat expansion title).
  ...phrasings(6, ["which deals do we have going with jonas tanaka"], (t) =>
    t.list("deals", "contact_name = 'Jonas Tanaka'"),
  ),
  // The Larkspur renewal's expected close date: 2026-05-20.
  ...phrasings(6, ["when is the larkspur renewal supposed to close"], async (t) => {
    const deal = await only(t, "deals", "company = 'Larkspur Foods' AND title ILIKE '%renewal%'");
    const day = await must(
      t,
      `SELECT to_char(expected_close_date, 'YYYY-MM-DD') FROM deals WHERE org_id = $1 AND id = $2`,
      [deal.id],
    );
    return { present: [day] };
  }),
  // Who verified Liam Moreau's skills: Marco Rossi (the other verifiers are wrong).
  ...phrasings(6, ["who verified liam moreau's skills"], async (t) => {
    const by = await t.sql<{ name: string }>(
      `SELECT DISTINCT s.verified_by AS name FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND c.name = 'Liam Moreau' AND s.status = 'verified'`,
    );
    if (by.length !== 1) throw new Error(`Liam Moreau's skills have ${by.length} verifiers`);
    const all = await t.sql<{ name: string }>(
      `SELECT DISTINCT verified_by AS name FROM skills WHERE org_id = $1 AND verified_by IS NOT NULL`,
    );
    const person = (name: string) => name.replace(/\s*\(.*\)$/, "");
    return {
      present: [person(by[0]!.name)],
      absent: besides(
        [person(by[0]!.name)],
        all.map((r) => person(r.name)),
      ),
    };
  }),
  // Riverbend Coffee's one overdue invoice: INV-000023, its amount and due date (INV-000011 is
  // not overdue).
  ...phrasings(6, ["the overdue riverbend invoice - how much is it and when was it due"], async (t) => {
    const invoice = await only(t, "invoices", `client = 'Riverbend Coffee' AND s = 'overdue'`);
    const due = await must(
      t,
      `SELECT to_char(due_date, 'YYYY-MM-DD') FROM invoices WHERE org_id = $1 AND id = $2`,
      [invoice.id],
    );
    const others = await t.labels("invoices", `client = 'Riverbend Coffee' AND s <> 'overdue'`);
    return {
      present: [invoice.label!, t.money(String(invoice.amount), invoice.cur!), due],
      absent: others,
    };
  }),
];

// 7. Follow-ups that refine ---------------------------------------------------------------------

const refinements: Case[] = [
  // Overdue and billed to Kestrel Robotics: 2 (INV-000018, INV-000031); every overdue invoice, or
  // every Kestrel invoice, is wrong.
  ...followUps(["show me overdue invoices"], ["how many of those r kestrel's"], (t) =>
    countOf(t, "invoices", "s = 'overdue' AND client = 'Kestrel Robotics'", [
      "s = 'overdue'",
      "client = 'Kestrel Robotics'",
      `${UNPAID} AND client = 'Kestrel Robotics'`,
    ]),
  ),
  // Open deals in dollars, summed: 4,200 USD; the euro total, or every dollar deal, is wrong.
  ...followUps(["whats our open pipeline worth"], ["and in dollars?"], (t) =>
    totalOf(t, "deals", "value", `${OPEN_DEAL} AND cur = 'USD'`, [
      `${OPEN_DEAL} AND cur = 'EUR'`,
      "cur = 'USD'",
    ]),
  ),
  // Received in March by card: 250 USD, 375, 119 and 2,500 EUR (February's 1,000 card is out).
  ...followUps(["payments that came in this month"], ["just the card ones"], (t) =>
    t.list("payments", `method = 'card' AND ${within("received_at", ...MARCH)}`),
  ),
  // Helios Energy's unpaid invoices, summed per currency (nothing paid on them yet): 3,200.50 EUR
  // and 980 USD; with the paid one is wrong.
  ...followUps(["unpaid invoices for helios pls"], ["whats the total on those"], (t) =>
    totalOf(t, "invoices", "amount", `client = 'Helios Energy' AND ${UNPAID}`, [
      `client = 'Helios Energy' AND ${STANDING}`,
    ]),
  ),
  // Product designer candidates neither hired nor rejected: Sofia Schmidt.
  ...followUps(["candidates for the product designer role"], ["which of them r still in the running"], (t) =>
    t.list("candidates", "position = 'Product designer' AND status NOT IN ('hired', 'rejected')"),
  ),
  // Open deals expected in May, the largest: the Larkspur renewal (14,000).
  ...followUps(["open deals expected to close in may"], ["which one is worth the most"], (t) =>
    best(t, "deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...MAY)}`, "value", 1),
  ),
  // Issued in February and unpaid: INV-000012, -019, -023, -024, -029.
  ...followUps(["invoices we issued in february"], ["only the ones still unpaid"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("issued_at", ...FEBRUARY)}`),
  ),
  // Won with closed_at in March, summed per currency: 42,000 EUR; February's dollar win added in
  // (every won deal), or this month's lost ones, is wrong.
  ...followUps(["deals we won this month"], ["how much is that altogether"], (t) =>
    totalOf(t, "deals", "value", `stage = 'won' AND ${within("closed_at", ...MARCH)}`, [
      "stage = 'won'",
      `stage = 'lost' AND ${within("closed_at", ...MARCH)}`,
    ]),
  ),
  // Candidates with a TypeScript skill, and of those the verified ones: Liam Moreau.
  ...followUps(["which candidates have typescript"], ["which of those r verified tho"], async (t) => {
    const of = (status: string) =>
      t.sql<{ name: string }>(
        `SELECT DISTINCT c.name FROM skills s JOIN candidates c ON c.id = s.candidate_id
          WHERE s.org_id = $1 AND s.name = 'TypeScript' AND ${status} ORDER BY c.name`,
      );
    const present = (await of("s.status = 'verified'")).map((r) => r.name);
    if (present.length === 0) throw new Error("no verified TypeScript");
    const rest = (await of("s.status <> 'verified'")).map((r) => r.name);
    return { present, absent: besides(present, rest) };
  }),
  // Mia Schmidt's communications that were meetings: 2; all of hers (5) or every meeting is wrong.
  ...followUps(["show me our communications with mia schmidt"], ["how many were meetings"], (t) =>
    countOf(t, "communications", "contact_name = 'Mia Schmidt' AND channel = 'meeting'", [
      "contact_name = 'Mia Schmidt'",
      "channel = 'meeting'",
    ]),
  ),
  // Overdue, the three largest balances owed: INV-000019, -014, -009; by amount the same three.
  ...followUps(["overdue invoices"], ["which 3 owe us the most"], (t) =>
    bestAgreed(t, "invoices", "s = 'overdue'", "owed", "amount", 3),
  ),
  // Open deals at proposal: five (two share the Blue Fjord migration title).
  ...followUps(["list all our open opps"], ["just the proposal ones"], (t) =>
    listOf(t, "deals", "stage = 'proposal'", [OPEN_DEAL]),
  ),
];

export const holdout15: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
