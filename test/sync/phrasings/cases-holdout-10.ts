import { followUps, phrasings, type Case, type Expectation, type Q, type Resource } from "./grade.ts";
import {
  type Row,
  must,
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
  YEAR,
} from "./truths.ts";

/**
 * The TENTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven categories
 * of the phrasing exam, written blind (without reading the planner, its documentation or its
 * answers, and without running it on them), the way an owner types into a chat between two
 * customers: lower case, typos, abbreviations, filler, run-on sentences. None is copied from the
 * other case files. The conventions are grade.ts's; every truth is computed from the tables when
 * the test runs, and a truth that would be empty, tied or ambiguous throws (the exam's own fault,
 * reported apart). Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22 (Monday start),
 * last week 2026-03-09..15, this month March, last month February, next month April, this year
 * 2026, q1 January to March.
 */

/** `column` in [from, to) (`to` exclusive), as a where clause. */
const span = (column: string, from: string, to: string) => `${column} >= '${from}' AND ${column} < '${to}'`;

/** The values of `wrong` that are not in `right`. */
const without = (right: readonly string[], wrong: readonly string[]) =>
  [...new Set(wrong)].filter((value) => !right.includes(value));

/** An aggregate's values present (it must have some); the same over plausible wrong sets absent. */
const agg = async (right: Promise<string[]>, ...wrong: Array<Promise<string[]>>): Promise<Expectation> => {
  const present = await right;
  if (present.length === 0) throw new Error("an aggregate of nothing");
  const others: string[] = [];
  for (const values of wrong) others.push(...(await values));
  return { present, absent: without(present, others) };
};

/** A ratio present; the ratios of `wrong` (part, whole) pairs absent. */
const pct = async (
  t: Q,
  resource: Resource,
  part: string,
  whole: string,
  wrong: Array<[string, string]> = [],
): Promise<Expectation> => {
  const present = await t.share(resource, part, whole);
  const others: string[] = [];
  for (const [p, w] of wrong) others.push((await t.share(resource, p, w))[0]!);
  return { present, absent: without(present, others) };
};

/** A bold count present (not zero); the counts of `wrong` sets absent. */
const howMany = async (
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
const sumOf = async (
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
  return { present, absent: without(present, others) };
};

/**
 * The one name ranked first by `text` (rows of `name` and `n`, best first); throws on no rows or a
 * tie for first place. The runners-up are absent.
 */
const winner = async (t: Q, text: string, runnersUpAbsent = true): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  return {
    present: [rows[0]!.name],
    absent: runnersUpAbsent ? rows.slice(1, 3).map((r) => r.name) : [],
  };
};

/** The one record of `resource` matching `where` (the exam's own check: exactly one). */
const single = async (t: Q, resource: Resource, where: string, params: unknown[] = []) => {
  const rows = await t.rows<Row>(resource, where, params);
  if (rows.length !== 1) throw new Error(`${resource} where ${where}: ${rows.length} records, not one`);
  return rows[0]!;
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Unpaid = open or overdue; on amount, inclusive both ends: INV-000018 (exactly 5,000) is in.
  ...phrasings(1, ["quick q, unpaid invs anywhere from 5k up to 10k incl?"], (t) =>
    t.list("invoices", `${UNPAID} AND amount BETWEEN 5000 AND 10000`),
  ),
  // Opps still open (lead, qualified, proposal), strictly over 10,000, every currency.
  ...phrasings(1, ["open opps worth over 10k pls"], (t) => t.list("deals", `${OPEN_DEAL} AND value > 10000`)),
  // Inclusive: every payment of 9,600 or more (the 9,601.50 one is in), every currency and method.
  ...phrasings(1, ["which paymnts were 9600 or bigger"], (t) => t.list("payments", "amount >= 9600")),
  // Strict: the onboarding workshop at exactly 1,250 is out; every product is in EUR.
  ...phrasings(1, ["whats in the catalog priced below 1250"], (t) => t.list("products", "price < 1250")),
  // Skills counted per candidate, strictly fewer than three (every status of skill).
  ...phrasings(1, ["candidates w less than 3 skills on file"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id) < 3"),
  ),
  // Unpaid (open or overdue) with something paid but strictly under half of the amount paid:
  // INV-000006, INV-000011 and INV-000018 are paid exactly half and are out.
  ...phrasings(1, ["unpaid inv where the client paid something but less than half of it"], (t) =>
    t.list("invoices", `${UNPAID} AND amount_paid > 0 AND amount_paid < amount / 2`),
  ),
  // Won deals strictly over 5,000, every currency (both 2,500 wins are out).
  ...phrasings(1, ["which won deals came in above 5 grand"], (t) =>
    t.list("deals", "stage = 'won' AND value > 5000"),
  ),
  // Level advanced or expert, every status; counted (the advanced-only and expert-only counts are wrong).
  ...phrasings(1, ["how many skills r at advanced level or higher"], (t) =>
    howMany(t, "skills", "level IN ('advanced', 'expert')", ["level = 'advanced'", "level = 'expert'"]),
  ),
  // Euro invoices strictly under 150, every status (drafts and voids included); INV-000003 at 150 is out.
  ...phrasings(1, ["inv under 150 euros, any status"], (t) =>
    t.list("invoices", "cur = 'EUR' AND amount < 150"),
  ),
  // Communications counted per contact, strictly more than four, any channel or direction.
  ...phrasings(1, ["contacts we've got more than 4 interactions logged with"], (t) =>
    t.list("contacts", "(SELECT count(*) FROM communications m WHERE m.contact_id = v.id) > 4"),
  ),
  // Every stage and currency, inclusive both ends: the 2,000 retainer is in, the 4,200 USD pilot out.
  ...phrasings(1, ["deals from 2k to 4k, all stages"], (t) => t.list("deals", "value BETWEEN 2000 AND 4000")),
  // Card payments strictly over 300, every currency: the 250 USD and the 119 EUR ones are out.
  ...phrasings(1, ["card pmts bigger than 300?"], (t) =>
    t.list("payments", "method = 'card' AND amount > 300"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Amount invoiced per client over open, overdue and paid invoices (drafts, voids left out), in
  // EUR (Kestrel's one USD invoice cannot change the order).
  ...phrasings(2, ["which customer have we billed the most, drafts n voids aside"], (t) =>
    winner(
      t,
      `SELECT client AS name, sum(amount)::text AS n FROM invoices
        WHERE org_id = $1 AND status IN ('open', 'paid') AND trim(currency) = 'EUR'
        GROUP BY 1 ORDER BY sum(amount) DESC`,
    ),
  ),
  ...phrasings(2, ["whats our priciest product"], (t) => t.top("products", "true", "price", 1)),
  // Open deals (lead, qualified, proposal), the two lowest values: 500 and 2,000 (next 3,500).
  ...phrasings(2, ["2 tiniest deals still in the pipeline"], (t) =>
    t.top("deals", OPEN_DEAL, "value", 2, "asc"),
  ),
  // Skills with status verified, counted per candidate.
  ...phrasings(2, ["which applicant has the most skills we actually checked off as verified"], (t) =>
    winner(
      t,
      `SELECT c.name, count(*)::text AS n FROM skills k JOIN candidates c ON c.id = k.candidate_id
        WHERE k.org_id = $1 AND k.status = 'verified' GROUP BY c.name ORDER BY count(*) DESC, c.name`,
    ),
  ),
  // Overdue invoices ranked by what is still owed (not amount): INV-000019 owes 38,400.
  ...phrasings(2, ["which late invoice has the most money still owing on it"], (t) =>
    t.top("invoices", "s = 'overdue'", "owed", 1),
  ),
  // Outbound emails counted per contact.
  ...phrasings(2, ["who do we email the most? outgoing only"], (t) =>
    winner(
      t,
      `SELECT c.name, count(*)::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.channel = 'email' AND m.direction = 'outbound'
        GROUP BY c.name ORDER BY count(*) DESC, c.name`,
      false,
    ),
  ),
  // Received 2026-03-01..31, the three largest amounts (any currency).
  ...phrasings(2, ["top 3 pmts this month by size"], (t) =>
    t.top("payments", span("received_at", ...MARCH), "amount", 3),
  ),
  // Not yet due (shown status open) with the earliest due date: INV-000032, due 2026-03-23.
  ...phrasings(2, ["whats the next unpaid invoice coming due"], (t) =>
    t.top("invoices", "s = 'open'", "due_date", 1, "asc"),
  ),
  // Line-item amounts on paid invoices summed per product (line description), EUR.
  ...phrasings(2, ["which product has made us the most $$ on paid invoices"], (t) =>
    winner(
      t,
      `SELECT li->>'description' AS name, sum((li->>'amount')::numeric)::text AS n
        FROM invoices i, jsonb_array_elements(i.line_items) li
        WHERE i.org_id = $1 AND i.status = 'paid' GROUP BY 1 ORDER BY sum((li->>'amount')::numeric) DESC`,
    ),
  ),
  // Won deals closed in 2026, the two largest values: 19,500 and 14,000 (the 14,000 Helios title is
  // shared by a 2,500 win, so that title is not absent).
  ...phrasings(2, ["2 biggest wins so far this yr"], (t) =>
    t.top("deals", `stage = 'won' AND ${span("closed_at", ...YEAR)}`, "value", 2),
  ),
  // Candidates counted per known source (a missing source is not a channel).
  ...phrasings(2, ["which recruiting channel got us the most applicants, where we know it"], (t) =>
    winner(
      t,
      `SELECT source AS name, count(*)::text AS n FROM candidates WHERE org_id = $1 AND source IS NOT NULL
        GROUP BY 1 ORDER BY count(*) DESC, 1`,
    ),
  ),
  // Paid invoices, the lowest amount: INV-000010 at 119.96 (next 149.95).
  ...phrasings(2, ["smallest inv that actually got paid"], (t) =>
    t.top("invoices", "s = 'paid'", "amount", 1, "asc"),
  ),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Mean value of lost deals, per currency; every deal's average is a wrong answer.
  ...phrasings(3, ["avg size of the deals we lost"], (t) =>
    agg(t.average("deals", "value", "stage = 'lost'"), t.average("deals", "value")),
  ),
  // Median of what is owed (amount - amount_paid) on overdue invoices, per currency; the median
  // amount (the same in EUR, 1,250.50 in USD) and the average owed are wrong answers.
  ...phrasings(3, ["median balance still owed on overdue inv?"], (t) =>
    agg(
      t.median("invoices", "owed", "s = 'overdue'"),
      t.median("invoices", "amount", "s = 'overdue'"),
      t.average("invoices", "owed", "s = 'overdue'"),
    ),
  ),
  // Mean payment received 2026-03-01..31, per currency; the all-time average is a wrong answer.
  ...phrasings(3, ["whats the avg payment size this mnth"], (t) =>
    agg(t.average("payments", "amount", span("received_at", ...MARCH)), t.average("payments", "amount")),
  ),
  // The words name the whole: every invoice, drafts and voids included (32); overdue is the shown status.
  ...phrasings(3, ["what % of all our invoices, drafts incl, are overdue rn"], (t) =>
    pct(t, "invoices", "s = 'overdue'", "true", [
      ["s = 'overdue'", STANDING],
      ["s = 'overdue'", UNPAID],
    ]),
  ),
  // Every skill row (any status) over every candidate, rounded to 2 decimals.
  ...phrasings(3, ["on avg how many skills does each candidate list"], async (t) => ({
    present: [
      await must(
        t,
        `SELECT round(count(*)::numeric / (SELECT count(*) FROM candidates WHERE org_id = $1), 2)::text
          FROM skills WHERE org_id = $1`,
      ),
    ],
  })),
  // Billed per calendar month of q1 by issue date, open, overdue and paid invoices only (voids and
  // never-issued drafts out), per currency; the quarter's total is a wrong answer.
  ...phrasings(3, ["billed per month for jan feb mar? by issue date, leave out voided ones"], async (t) => {
    const months = await t.sql<{ month: string; cur: string; v: string }>(
      `SELECT to_char(issued_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, trim(currency) AS cur, sum(amount)::text AS v
        FROM invoices WHERE org_id = $1 AND status IN ('open', 'paid') AND ${span("issued_at", ...Q1)}
        GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    if (new Set(months.map((m) => m.month)).size < 3) throw new Error("invoices in fewer than three months");
    const present = [...new Set(months.map((m) => t.money(m.v, m.cur)))];
    return {
      present,
      absent: without(
        present,
        await t.total("invoices", "amount", `${STANDING} AND ${span("issued_at", ...Q1)}`),
      ),
    };
  }),
  // Inbound among every communication (any channel).
  ...phrasings(3, ["what percent of our comms were inbound vs everything"], (t) =>
    pct(t, "communications", "direction = 'inbound'", "true", [["direction = 'outbound'", "true"]]),
  ),
  // Highest price minus lowest price over every product (all EUR).
  ...phrasings(3, ["gap between our cheapest and most expensive product?"], (t) =>
    agg(
      t.perCurrency("products", "max(price) - min(price)"),
      t.perCurrency("products", "max(price)"),
      t.perCurrency("products", "min(price)"),
    ),
  ),
  // Mean value of qualified deals in EUR only (the 4,200 USD qualified deal is out).
  ...phrasings(3, ["avg value of qualified deals, eur only"], (t) =>
    agg(
      t.average("deals", "value", "stage = 'qualified' AND cur = 'EUR'"),
      t.average("deals", "value", "cur = 'EUR'"),
      t.average("deals", "value", OPEN_DEAL),
    ),
  ),
  // Median of every payment, per currency; the average is a wrong answer.
  ...phrasings(3, ["whats the typical payment we get - median not mean"], (t) =>
    agg(t.median("payments", "amount"), t.average("payments", "amount")),
  ),
  // Referral among every candidate (those with no source recorded count in the whole).
  ...phrasings(3, ["what share of applicants came thru referrals"], (t) =>
    pct(t, "candidates", "source = 'referral'", "true", [["source = 'referral'", "source IS NOT NULL"]]),
  ),
  // Lowest and highest value of won deals, per currency (EUR 2,500 and 19,500; USD 2,500).
  ...phrasings(3, ["range of our won deal values, low to high"], async (t) => {
    const low = await t.perCurrency("deals", "min(value)", "stage = 'won'");
    const high = await t.perCurrency("deals", "max(value)", "stage = 'won'");
    const present = [...new Set([...low, ...high])];
    if (present.length === 0) throw new Error("no won deals");
    return {
      present,
      absent: without(present, [
        ...(await t.perCurrency("deals", "min(value)")),
        ...(await t.perCurrency("deals", "max(value)")),
      ]),
    };
  }),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // Unpaid (open or overdue) due today..2026-04-08 inclusive (21 days on); paid and drafts out,
  // already-overdue ones (due before today) out.
  ...phrasings(4, ["whats unpaid and due in the next 3 wks"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date >= $2::date AND due_date <= $2::date + 21`),
  ),
  // Issued (issued_at) 2026-01-01..31, whatever the status now (the void was issued too; drafts
  // have no issue date).
  ...phrasings(4, ["every inv we sent out in january no matter what status theyre in now"], (t) =>
    t.list("invoices", span("issued_at", ...JANUARY)),
  ),
  // Received (received_at) in February 2026.
  ...phrasings(4, ["what came in payment-wise during feb"], (t) =>
    t.list("payments", span("received_at", ...FEBRUARY)),
  ),
  // Closed (closed_at) 2026-03-16..22, won or lost.
  ...phrasings(4, ["deals closed out this wk, won or lost"], (t) =>
    t.list("deals", `stage IN ('won', 'lost') AND ${span("closed_at", ...THIS_WEEK)}`),
  ),
  // Meetings (channel) that occurred Monday 2026-03-09..Sunday 03-15; all meetings and this
  // week's are wrong counts.
  ...phrasings(4, ["# of meetings we had last week"], (t) =>
    howMany(t, "communications", `channel = 'meeting' AND ${span("occurred_at", ...LAST_WEEK)}`, [
      "channel = 'meeting'",
      `channel = 'meeting' AND ${span("occurred_at", ...THIS_WEEK)}`,
      `channel = 'meeting' AND ${span("occurred_at", ...MARCH)}`,
    ]),
  ),
  // Every communication from Monday 2026-03-16 through today; last week's and March's are wrong.
  ...phrasings(4, ["how many convos have we logged since monday"], (t) =>
    howMany(t, "communications", span("occurred_at", "2026-03-16", "2026-03-19"), [
      span("occurred_at", ...LAST_WEEK),
      span("occurred_at", ...MARCH),
    ]),
  ),
  // Verified (verified_at) in February 2026: SQL, whose label other (claimed) SQL skills share.
  ...phrasings(4, ["what skills did we verify back in february"], (t) =>
    t.list("skills", `status = 'verified' AND ${span("verified_at", ...FEBRUARY)}`),
  ),
  // Open deals with expected_close_date in April 2026 (next month).
  ...phrasings(4, ["pipeline deals slated to close next month"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND ${span("expected_close_date", ...APRIL)}`),
  ),
  // Issued (issued_at) 2026-02-01..14 inclusive, every status.
  ...phrasings(4, ["which invoices did we issue feb 1st to 14th"], (t) =>
    t.list("invoices", span("issued_at", "2026-02-01", "2026-02-15")),
  ),
  // Received 2026-01-01 through today, per currency; March's total is a wrong answer.
  ...phrasings(4, ["how much cash have we collected year to date"], (t) =>
    sumOf(t, "payments", "amount", span("received_at", ...YEAR), [
      span("received_at", ...MARCH),
      span("received_at", ...FEBRUARY),
    ]),
  ),
  // Inbound emails that occurred on or after 2026-03-04 (today minus 14 days), through today; all
  // inbound emails and every inbound channel in the window are wrong counts.
  ...phrasings(4, ["inbound emails over the last 14 days how many"], (t) =>
    howMany(
      t,
      "communications",
      "channel = 'email' AND direction = 'inbound' AND occurred_at >= $2::date - 14",
      [
        "channel = 'email' AND direction = 'inbound'",
        "direction = 'inbound' AND occurred_at >= $2::date - 14",
      ],
    ),
  ),
  // Issued (issued_at) on 2026-03-18, every status.
  ...phrasings(4, ["what inv went out today"], (t) =>
    t.list("invoices", span("issued_at", "2026-03-18", "2026-03-19")),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  // Every lifecycle stage but customer (leads and prospects).
  ...phrasings(5, ["everyone in contacts thats not a customer yet"], (t) =>
    t.list("contacts", "lifecycle_stage <> 'customer'"),
  ),
  // Overdue (shown status), Kestrel Robotics' two left out.
  ...phrasings(5, ["overdue inv excluding kestrel's"], (t) =>
    t.list("invoices", "s = 'overdue' AND client <> 'Kestrel Robotics'"),
  ),
  // Received in March 2026 by any method but card: exactly ten.
  ...phrasings(5, ["non card payments this month?"], (t) =>
    t.list("payments", `method <> 'card' AND ${span("received_at", ...MARCH)}`),
  ),
  // Every candidate whose status is not rejected (the hired one included).
  ...phrasings(5, ["list applicants except the ones we turned down"], (t) =>
    t.list("candidates", "status <> 'rejected'"),
  ),
  ...phrasings(5, ["contacts we dont have a phone # for"], (t) => t.list("contacts", "phone IS NULL")),
  // Clients (of invoices) with no invoice in the overdue shown status.
  ...phrasings(5, ["which clients are NOT behind on any invoice"], async (t) => {
    const clients = await t.sql<{ client: string; late: boolean }>(
      `SELECT client, bool_or(status = 'open' AND due_date < $2::date) AS late FROM invoices
        WHERE org_id = $1 GROUP BY 1 ORDER BY 1`,
      [t.today],
    );
    const present = clients.filter((c) => !c.late).map((c) => c.client);
    if (present.length === 0) throw new Error("every client is late");
    return { present, absent: clients.filter((c) => c.late).map((c) => c.client) };
  }),
  // expected_close_date is null (any stage).
  ...phrasings(5, ["deals that dont have an expected close date set"], (t) =>
    t.list("deals", "expected_close_date IS NULL"),
  ),
  // Unpaid (open or overdue) with amount_paid = 0: counted (eleven).
  ...phrasings(5, ["unpaid invs where we havent received a single cent"], (t) =>
    t.list("invoices", `${UNPAID} AND amount_paid = 0`),
  ),
  // Verified skills whose verifier is anyone but the Hiring panel.
  ...phrasings(5, ["verified skills signed off by someone other than the hiring panel"], (t) =>
    t.list("skills", "status = 'verified' AND verified_by <> 'Hiring panel'"),
  ),
  // Every channel but email (sms, calls, meetings), any direction; the email count is wrong.
  ...phrasings(5, ["how many touchpoints were something other than email"], (t) =>
    howMany(t, "communications", "channel <> 'email'", ["channel = 'email'", "true"]),
  ),
  // Contacts with no communication on the call or meeting channel.
  ...phrasings(5, ["who havent we had a call or mtg with, contacts wise"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel IN ('call', 'meeting'))",
    ),
  ),
  // Lifecycle customer without the priority tag.
  ...phrasings(5, ["customers w/o the priority tag"], (t) =>
    t.list("contacts", "lifecycle_stage = 'customer' AND NOT ('priority' = ANY(coalesce(tags, '{}')))"),
  ),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // Payments on Larkspur Foods' invoices added up; every payment's total is a wrong answer.
  ...phrasings(6, ["total we've received from larkspur foods"], (t) =>
    sumOf(t, "payments", "amount", "client = 'Larkspur Foods'", ["true"]),
  ),
  // The candidate (not the contact of the same name): the contact's email is absent.
  ...phrasings(6, ["whats the email for ava okafor, the candidate not the contact"], async (t) => {
    const candidate = await single(t, "candidates", "name = 'Ava Okafor'");
    const contact = await single(t, "contacts", "name = 'Ava Okafor'");
    return { present: [candidate.email!], absent: [contact.email!] };
  }),
  // Every deal whose contact is Theo Novak (two with the same title).
  ...phrasings(6, ["what opps do we have going w theo novak"], (t) =>
    t.list("deals", "contact_name = 'Theo Novak'"),
  ),
  // The level of Noah Iyer's SQL skill (Ava Okafor's SQL is expert, absent).
  ...phrasings(6, ["does noah iyer know sql? what level"], async (t) => {
    const skill = await single(t, "skills", "candidate_name = 'Noah Iyer' AND name = 'SQL'");
    return { present: [skill.level!], absent: ["expert"] };
  }),
  // Acme Logistics' onboarding workshop deal that is still open (the lost one is not meant).
  ...phrasings(
    6,
    ["the acme onboarding workshop deal thats still open - when's it expected to close"],
    async (t) => {
      const deal = await single(t, "deals", `company = 'Acme Logistics' AND ${OPEN_DEAL}`);
      return {
        present: [
          await must(t, "SELECT expected_close_date::text FROM deals WHERE org_id = $1 AND id = $2", [
            deal.id,
          ]),
        ],
      };
    },
  ),
  // Outbound SMS to Ravi Reyes counted; all his communications are a wrong count.
  ...phrasings(6, ["how many texts have gone out to ravi reyes"], (t) =>
    howMany(
      t,
      "communications",
      "contact_name = 'Ravi Reyes' AND channel = 'sms' AND direction = 'outbound'",
      ["contact_name = 'Ravi Reyes'", "channel = 'sms' AND direction = 'outbound'"],
    ),
  ),
  // INV-000023's shown status: open and past due, so overdue (a "not paid" reply may say "paid",
  // so nothing is absent).
  ...phrasings(6, ["hey is invoice 23 paid or not"], async (t) => {
    const invoice = await single(t, "invoices", "number = 'INV-000023'");
    return { present: ["INV-000023", invoice.s!] };
  }),
  // The contact on the solar monitoring pilot deal.
  ...phrasings(6, ["whos our contact on the solar monitoring pilot"], async (t) => {
    const deal = await single(t, "deals", "title LIKE 'Solar monitoring pilot%'");
    return { present: [deal.contact_name!] };
  }),
  // Candidate Yara Iyer's hired_at day.
  ...phrasings(6, ["when did we hire yara iyer"], async (t) => ({
    present: [
      await must(
        t,
        `SELECT to_char(hired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM candidates
          WHERE org_id = $1 AND name = 'Yara Iyer'`,
      ),
    ],
  })),
  // Payments recorded against INV-000018.
  ...phrasings(6, ["any pmts logged on inv 18?"], (t) => t.list("payments", "invoice_number = 'INV-000018'")),
  // The day of the latest inbound communication from Sofia Novak (any channel).
  ...phrasings(6, ["when did sofia novak last reach out to us"], async (t) => ({
    present: [
      await must(
        t,
        `SELECT to_char(max(m.occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM communications m
          JOIN contacts c ON c.id = m.contact_id
          WHERE m.org_id = $1 AND c.name = 'Sofia Novak' AND m.direction = 'inbound'`,
      ),
    ],
  })),
  // Meridian Legal's unpaid (open or overdue) invoices; the paid one is absent.
  ...phrasings(6, ["meridian legal - anything unpaid?"], (t) =>
    t.list("invoices", `${UNPAID} AND client = 'Meridian Legal'`),
  ),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  // Unpaid (open or overdue), EUR, amount strictly over 20,000.
  ...followUps(["show unpaid invoices", "only the eur ones"], ["which of those are over 20k"], (t) =>
    t.list("invoices", `${UNPAID} AND cur = 'EUR' AND amount > 20000`),
  ),
  // Every deal of Helios Energy's contact, any stage.
  ...followUps(["list our deals"], ["just the ones w helios"], (t) =>
    t.list("deals", "company = 'Helios Energy'"),
  ),
  // Received in March 2026, summed per currency; every payment's total is a wrong answer.
  ...followUps(["payments in march pls"], ["how much is that all together"], (t) =>
    sumOf(t, "payments", "amount", span("received_at", ...MARCH), ["true", span("received_at", ...FEBRUARY)]),
  ),
  // Product designer candidates whose status is not rejected.
  ...followUps(["candidates for product designer"], ["drop the rejected ones"], (t) =>
    t.list("candidates", "position = 'Product designer' AND status <> 'rejected'"),
  ),
  // Overdue ranked by what is owed (not amount): the first three.
  ...followUps(["whats overdue"], ["top 3 by how much is still owed"], (t) =>
    t.top("invoices", "s = 'overdue'", "owed", 3),
  ),
  // Jonas Tanaka's communications with direction inbound (any channel): counted.
  ...followUps(["communications w jonas tanaka"], ["just the ones that came from him"], (t) =>
    howMany(t, "communications", "contact_name = 'Jonas Tanaka' AND direction = 'inbound'", [
      "contact_name = 'Jonas Tanaka'",
    ]),
  ),
  // TypeScript skills with status verified: their candidate; the others claiming TypeScript absent.
  ...followUps(["pull up the skills list", "only typescript"], ["who has it verified"], async (t) => {
    const verified = await t.rows<Row>("skills", "name = 'TypeScript' AND status = 'verified'");
    if (verified.length === 0) throw new Error("no verified TypeScript");
    const present = [...new Set(verified.map((r) => r.candidate_name!))];
    const others = await t.rows<Row>("skills", "name = 'TypeScript' AND status <> 'verified'");
    return {
      present,
      absent: without(
        present,
        others.map((r) => r.candidate_name!),
      ),
    };
  }),
  // Open deals (lead, qualified, proposal) with expected_close_date before 2026-05-01 (past dates
  // included; deals with no expected date are out).
  ...followUps(["open deals"], ["which r expected to close before may"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date < '2026-05-01'`),
  ),
  // Priority-tagged contacts at the prospect stage.
  ...followUps(["contacts tagged priority"], ["how many of them r prospects"], (t) =>
    t.list("contacts", "'priority' = ANY(coalesce(tags, '{}')) AND lifecycle_stage = 'prospect'"),
  ),
  // Issued in January 2026, voids left out (open, overdue, paid), their amount averaged per
  // currency; with the void in, or every standing invoice, is a wrong answer.
  ...followUps(["inv issued in jan, leave out voided ones"], ["avg amount of those?"], (t) =>
    agg(
      t.average("invoices", "amount", `${STANDING} AND ${span("issued_at", ...JANUARY)}`),
      t.average("invoices", "amount", span("issued_at", ...JANUARY)),
      t.average("invoices", "amount", STANDING),
    ),
  ),
  // Card payments, the largest amount (any currency).
  ...followUps(["card payments"], ["which one was the biggest"], (t) =>
    t.top("payments", "method = 'card'", "amount", 1),
  ),
  // Skills (any status) of the candidates whose status is interview, counted.
  ...followUps(
    ["show me applicants at the interview stage"],
    ["how many skills do they have between them"],
    (t) =>
      howMany(t, "skills", "candidate_id IN (SELECT c.id FROM candidates c WHERE c.status = 'interview')", [
        "true",
      ]),
  ),
];

export const holdout10: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
