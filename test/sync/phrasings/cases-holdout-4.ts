import { addDays, followUps, phrasings, type Case, type Expectation, type Q } from "./grade.ts";
import {
  within,
  aggregate,
  ratio,
  countOf,
  totalOf,
  only,
  best,
  type Row,
  UNPAID,
  OPEN_DEAL,
  MARCH,
  APRIL,
  LAST_WEEK,
  NEXT_WEEK,
} from "./truths.ts";

/**
 * The FOURTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven categories
 * of the phrasing exam, written blind (without reading the planner or its answers), in the words an
 * owner types (lower case, typos, abbreviations, slang, questions and imperatives), none of them
 * copied from cases-1-3.ts, cases-4-5.ts, cases-6-7.ts or the earlier holdouts. The conventions are
 * grade.ts's; every truth is computed from the tables when the test runs, and a truth that would be
 * empty, tied or ambiguous throws (the exam's own fault, reported apart).
 * Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22, last week 2026-03-09..15, next
 * week 2026-03-23..29, last weekend 2026-03-14..15, this month March.
 */

const LAST_WEEKEND = ["2026-03-14", "2026-03-16"] as const;

/**
 * The one name that ranks first in `text` (rows of `name` and `n`, best first); throws on a tie
 * for the first place or on no rows. `absent` names are the rest of `rest`, if given.
 */
const leader = async (t: Q, text: string, rest: string[] = []): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for the first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  const first = rows[0]!.name;
  return { present: [first], absent: rest.filter((name) => name !== first) };
};

/** The days (YYYY-MM-DD, UTC) of the communications with contact `name` matching `where`, latest first. */
const days = async (t: Q, name: string, where: string) =>
  (
    await t.sql<{ day: string }>(
      `SELECT DISTINCT to_char(m.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM communications m
        JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1 AND c.name = $2 AND (${where})
        ORDER BY 1 DESC`,
      [name],
    )
  ).map((row) => row.day);

/** Distinct bold counts per group (`text` yields rows of `n`); throws when two groups share a count. */
const countsPerGroup = async (t: Q, text: string): Promise<Expectation> => {
  const rows = await t.sql<{ n: number }>(text, [t.today]);
  if (rows.length < 2) throw new Error("fewer than two groups");
  const present = [...new Set(rows.map((row) => t.bold(row.n)))];
  if (present.length !== rows.length) throw new Error("two groups with the same count");
  return { present };
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Unpaid (open or overdue), strict: 59.98, 150, 209.93 and 239.92. On what is owed, the same four
  // (the 750 and 900 invoices have 375 and 450 left, over 300 too).
  ...phrasings(1, ["got any unpaid bills under 300?"], (t) =>
    t.list("invoices", `${UNPAID} AND amount < 300`),
  ),
  // Lost deals, strict: the 13,500 one is in, the 3,000 one out.
  ...phrasings(1, ["did we lose any deal bigger than 5k"], (t) =>
    t.list("deals", "stage = 'lost' AND value > 5000"),
  ),
  // Products priced under 1,000: the 29.99 licence and the 150 consulting hour.
  ...phrasings(1, ["what do we sell for less than a grand"], (t) => t.list("products", "price < 1000")),
  // Direct debits, strict: 1,600 and 38,400 in, the 119.96 one out.
  ...phrasings(1, ["direct debit pmts over 1,000"], (t) =>
    t.list("payments", "method = 'direct_debit' AND amount > 1000"),
  ),
  // Candidates with at least three skills (records) on file.
  ...phrasings(1, ["which cadidates put down 3 or more skills"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills s WHERE s.candidate_id = v.id) >= 3"),
  ),
  // Contacts with more than four communications (either direction, any channel): 6, 5 and 5; the
  // one with exactly four is out.
  ...phrasings(1, ["who have we had more than 4 interactions with"], (t) =>
    t.list("contacts", "(SELECT count(*) FROM communications m WHERE m.contact_id = v.id) > 4"),
  ),
  // Paid invoices, inclusive between 5,000 and 20,000: 8,750, 9,601.50, 14,400 and 16,002.50.
  ...phrasings(1, ["settled invoices worth 5-20k"], (t) =>
    t.list("invoices", "s = 'paid' AND amount BETWEEN 5000 AND 20000"),
  ),
  // Levels are ordered beginner < intermediate < advanced < expert; the skills (records) counted.
  ...phrasings(1, ["how many skills r rated below advanced"], (t) =>
    t.list("skills", "level IN ('beginner', 'intermediate')"),
  ),
  // "usd" restricts to dollars, strict: the 4,200 USD deal; the 2,500 USD one is out.
  ...phrasings(1, ["usd deals over 3 grand"], (t) => t.list("deals", "cur = 'USD' AND value > 3000")),
  // A euro sign restricts to EUR: 119, 119.96 and 149.95; the 250 USD payment is out either way.
  ...phrasings(1, ["show payments smaller than €200"], (t) =>
    t.list("payments", "cur = 'EUR' AND amount < 200"),
  ),
  // "left on em" is what is owed; "open" is the shown status (not yet due). Strict: 1,600.50,
  // 3,200.50 and the two 9,600; the 980 USD one is out (its amount too).
  ...phrasings(1, ["open invoices with more than 1k left on em"], (t) =>
    t.list("invoices", "s = 'open' AND owed > 1000"),
  ),
  // Qualified deals, strict, every currency: 2,000, 3,500 and the 4,200 USD one.
  ...phrasings(1, ["qualified-stage opps below 5,000"], (t) =>
    t.list("deals", "stage = 'qualified' AND value < 5000"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Expert-level skills counted per candidate: Amara Novak has two, no one else more than one.
  ...phrasings(2, ["who's got the most expert level skills"], (t) =>
    leader(
      t,
      `SELECT c.name, count(*)::text AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND s.level = 'expert' GROUP BY c.name ORDER BY count(*) DESC, c.name`,
    ),
  ),
  // Open deals' value summed per company (and currency): Blue Fjord Studio's 22,500 EUR; the one
  // dollar deal (4,200 USD) is far below, so no exchange rate could change the answer.
  ...phrasings(2, ["which client has the most money tied up in open deals"], (t) =>
    leader(
      t,
      `SELECT c.company AS name, sum(d.value)::text AS n FROM deals d JOIN contacts c ON c.id = d.contact_id
        WHERE d.org_id = $1 AND d.stage IN ('lead', 'qualified', 'proposal')
        GROUP BY c.company, d.currency ORDER BY sum(d.value) DESC, c.company`,
    ),
  ),
  // The two unpaid invoices with the least owed: 59.98 and 120.92.
  ...phrasings(2, ["which 2 unpaid invoices have the smallest balance left"], (t) =>
    best(t, "invoices", UNPAID, "owed", 2, "asc"),
  ),
  ...phrasings(2, ["largest payment we got by direct debit?"], (t) =>
    best(t, "payments", "method = 'direct_debit'", "amount", 1),
  ),
  // The latest outbound SMS's contact (the latest SMS either way).
  ...phrasings(2, ["who did we text most recently"], (t) =>
    leader(
      t,
      `SELECT c.name, m.occurred_at::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.channel = 'sms' AND m.direction = 'outbound' ORDER BY m.occurred_at DESC`,
    ),
  ),
  // Unpaid and not yet due = the shown status open; by amount: the two 9,600 and the two 3,200.50
  // (the fifth is 980 USD).
  ...phrasings(2, ["top 4 unpaid invoices that arent due yet"], (t) =>
    best(t, "invoices", "s = 'open'", "amount", 4),
  ),
  // Qualified deals by value: 15,000 first.
  ...phrasings(2, ["among the qualified opps which one is worth the most"], (t) =>
    best(t, "deals", "stage = 'qualified'", "value", 1),
  ),
  // The hired candidate with the latest hired_at.
  ...phrasings(2, ["who's our most recent hire"], (t) =>
    best(t, "candidates", "status = 'hired'", "hired_at", 1),
  ),
  // Open deals expected to close in May by value: 14,000 and 11,000 (then 7,000 and 2,000).
  ...phrasings(2, ["2 biggest open deals expected to close in may"], (t) =>
    best(
      t,
      "deals",
      `${OPEN_DEAL} AND ${within("expected_close_date", "2026-05-01", "2026-06-01")}`,
      "value",
      2,
    ),
  ),
  // Products by price ascending: 29.99, then the 150 consulting hour.
  ...phrasings(2, ["2nd cheapest item in the catalouge"], async (t) => {
    const products = await t.rows<Row>("products", "true", [], "price ASC");
    const [first, second, third] = products;
    if (
      !second ||
      Number(first!.price) === Number(second.price) ||
      Number(second.price) === Number(third?.price)
    )
      throw new Error("a tie at rank 2");
    return { present: [second.name!], absent: products.filter((p) => p !== second).map((p) => p.name!) };
  }),
  // Drafts by amount: 19,200 first, then 14,400 and 119.96.
  ...phrasings(2, ["whats the largest draft we havent sent out yet"], (t) =>
    best(t, "invoices", "s = 'draft'", "amount", 1),
  ),
  // The latest meeting's contact (inbound or outbound): 2026-03-15.
  ...phrasings(2, ["who was our latest meeting with"], (t) =>
    leader(
      t,
      `SELECT c.name, m.occurred_at::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.channel = 'meeting' ORDER BY m.occurred_at DESC`,
    ),
  ),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  // The median of the two lost deals (3,000 and 13,500); every deal's median is a wrong answer.
  ...phrasings(3, ["lost deals - median value?"], (t) =>
    aggregate(t.median("deals", "value", "stage = 'lost'"), t.median("deals", "value")),
  ),
  // The pipeline (open deals) summed per stage and currency: lead, qualified (EUR and USD), proposal.
  ...phrasings(3, ["pipeline value broken down by stage"], async (t) => {
    const present: string[] = [];
    for (const stage of ["lead", "qualified", "proposal"])
      present.push(...(await t.total("deals", "value", "stage = $3", [stage])));
    if (new Set(present).size !== present.length) throw new Error("two stages with the same total");
    return { present };
  }),
  // Denominator: every invoice (all statuses, 32); the part: those in dollars.
  ...phrasings(3, ["what share of our invoices are billed in usd"], (t) =>
    ratio(t.share("invoices", "cur = 'USD'")),
  ),
  // Denominator: every candidate; the part: those with at least one verified skill.
  ...phrasings(3, ["what % of candidates have at least 1 verified skill"], (t) =>
    ratio(
      t.share(
        "candidates",
        "EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.status = 'verified')",
      ),
    ),
  ),
  // Won deals closed (closed_at) in March, averaged per currency; every won deal's average is a
  // wrong answer (it adds the 2,500 USD win of February).
  ...phrasings(3, ["avg size of the deals we won this month"], (t) =>
    aggregate(
      t.average("deals", "value", `stage = 'won' AND ${within("closed_at", ...MARCH)}`),
      t.average("deals", "value", "stage = 'won'"),
    ),
  ),
  // The lowest and highest product price (per currency: all EUR).
  ...phrasings(3, ["price range of our products? cheapest and most expensive"], async (t) => {
    const low = await t.perCurrency("products", "min(price)");
    const high = await t.perCurrency("products", "max(price)");
    return aggregate(Promise.resolve([...new Set([...low, ...high])]), t.average("products", "price"));
  }),
  // Denominator: every contact (13); the part: those with at least one deal of any stage.
  ...phrasings(3, ["how many of our contacts have a deal with us, as a percent"], (t) =>
    ratio(t.share("contacts", "EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id)")),
  ),
  // Payments counted per method: 8 bank transfers, 5 card, 3 direct debit.
  ...phrasings(3, ["break down paymnets by method, how many of each"], (t) =>
    countsPerGroup(
      t,
      "SELECT method, count(*)::int AS n FROM payments WHERE org_id = $1 AND $2::date IS NOT NULL GROUP BY 1",
    ),
  ),
  // The median of what is owed on the unpaid invoices, per currency; the median of their amounts is
  // a wrong answer.
  ...phrasings(3, ["median outstanding balance"], (t) =>
    aggregate(t.median("invoices", "owed", UNPAID), t.median("invoices", "amount", UNPAID)),
  ),
  // Denominator: the verified skills (named); the part: those verified by the hiring panel.
  ...phrasings(3, ["hiring panel verifications as a % of all verified skills"], (t) =>
    ratio(t.share("skills", "verified_by = 'Hiring panel'", "status = 'verified'")),
  ),
  // Invoices of every status counted per month of their due date in 2026: Feb 9, Mar 11, Apr 10,
  // May 2. The whole count is not absent: a correct reply may add the months up.
  ...phrasings(3, ["# of invoices due per month in 2026"], (t) =>
    countsPerGroup(
      t,
      `SELECT to_char(due_date, 'YYYY-MM') AS month, count(*)::int AS n FROM invoices
        WHERE org_id = $1 AND due_date >= '2026-01-01' AND due_date < '2027-01-01' AND $2::date IS NOT NULL
        GROUP BY 1`,
    ),
  ),
  // Payments received in March, averaged per currency; every payment's average is a wrong answer.
  ...phrasings(3, ["avg size of payments coming in this month"], (t) =>
    aggregate(
      t.average("payments", "amount", within("received_at", ...MARCH)),
      t.average("payments", "amount"),
    ),
  ),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // Every status by due_date, inclusive at both ends: 04-02, 04-05, 04-06 (three) and 04-13.
  ...phrasings(4, ["invoices due between the 1st and 15th of april"], (t) =>
    t.list("invoices", "due_date BETWEEN '2026-04-01' AND '2026-04-15'"),
  ),
  // By issued_at, inclusive: the one issued 02-14 is out, the one issued 02-28 in.
  ...phrasings(4, ["invoices issued between feb 15 and feb 28"], (t) =>
    t.list("invoices", within("issued_at", "2026-02-15", "2026-03-01")),
  ),
  // Received today.
  ...phrasings(4, ["how many payments landed today"], (t) =>
    t.list("payments", within("received_at", t.today, addDays(t.today, 1))),
  ),
  // Deals by expected_close_date next week (Monday 2026-03-23 to Sunday 2026-03-29).
  ...phrasings(4, ["anything expected to close next week"], (t) =>
    t.list("deals", within("expected_close_date", ...NEXT_WEEK)),
  ),
  // Outbound SMS by occurred_at, March 1st to 7th inclusive; every text we sent and every SMS in the
  // window are wrong answers.
  ...phrasings(4, ["how many texts went out mar 1 to mar 7"], (t) =>
    countOf(
      t,
      "communications",
      `channel = 'sms' AND direction = 'outbound' AND ${within("occurred_at", "2026-03-01", "2026-03-08")}`,
      ["channel = 'sms' AND direction = 'outbound'", "channel = 'sms'"],
    ),
  ),
  // Inbound emails from 2026-03-13 on (nothing falls on 03-13, so "from the 14th" is the same).
  ...phrasings(4, ["inbound emails over the past 5 days"], (t) =>
    countOf(
      t,
      "communications",
      `channel = 'email' AND direction = 'inbound' AND occurred_at >= '${addDays(t.today, -5)}'`,
      [
        "channel = 'email' AND direction = 'inbound'",
        `channel = 'email' AND occurred_at >= '${addDays(t.today, -5)}'`,
      ],
    ),
  ),
  // Every status, due on 2026-04-06.
  ...phrasings(4, ["which invoices have a due date of april 6"], (t) =>
    t.list("invoices", "due_date = '2026-04-06'"),
  ),
  // Won or lost by closed_at in the last 30 days (from 2026-02-16): the win of 02-15 is out.
  ...phrasings(4, ["deals closed in the past 30 days"], (t) =>
    t.list("deals", `stage IN ('won', 'lost') AND closed_at >= '${addDays(t.today, -30)}'`),
  ),
  // Open deals by expected_close_date, May 1st to 14th: 05-02 and 05-06 (two); the won deal expected
  // 05-12 is not open.
  ...phrasings(4, ["open deals w an expected close in the first 2 weeks of may"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date BETWEEN '2026-05-01' AND '2026-05-14'`),
  ),
  // Received 2026-01-10..2026-03-10 inclusive: 01-15, 02-10 and 03-05.
  ...phrasings(4, ["payments we got jan 10 - mar 10"], (t) =>
    t.list("payments", within("received_at", "2026-01-10", "2026-03-11")),
  ),
  // Communications by occurred_at last weekend (Saturday 03-14 and Sunday 03-15); this week's and
  // last week's are wrong answers.
  ...phrasings(4, ["how many touchpoints did we have last weekend"], (t) =>
    countOf(t, "communications", within("occurred_at", ...LAST_WEEKEND), [
      within("occurred_at", ...LAST_WEEK),
      within("occurred_at", "2026-03-16", "2026-03-23"),
    ]),
  ),
  // Contacts with an outbound communication last week (Monday 03-09 to Sunday 03-15).
  ...phrasings(4, ["who did we reach out to last week"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.direction = 'outbound'
        AND ${within("m.occurred_at", ...LAST_WEEK)})`,
    ),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  // Contacts with no outbound SMS (the one with only an inbound text has an outbound one too).
  ...phrasings(5, ["contacts we havent sent a text to"], (t) =>
    t.list(
      "contacts",
      `NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'sms'
        AND m.direction = 'outbound')`,
    ),
  ),
  // Candidates with no advanced or expert skill.
  ...phrasings(5, ["which candidates have no skill above intermediate"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.level IN ('advanced', 'expert'))",
    ),
  ),
  // Deals with no communication logged against them.
  ...phrasings(5, ["which deals have we never talked to anyone about"], (t) =>
    t.list("deals", "NOT EXISTS (SELECT 1 FROM communications m WHERE m.deal_id = v.id)"),
  ),
  // Clients (of invoices) with no payment on any invoice; those with one are absent.
  ...phrasings(5, ["which clients havent paid us a cent"], async (t) => {
    const clients = await t.sql<{ client: string; paid: boolean }>(
      `SELECT i.client, bool_or(EXISTS (SELECT 1 FROM payments p WHERE p.invoice_id = i.id)) AS paid
         FROM invoices i WHERE i.org_id = $1 GROUP BY 1 ORDER BY 1`,
    );
    const present = clients.filter((c) => !c.paid).map((c) => c.client);
    if (present.length === 0) throw new Error("every client has paid something");
    return { present, absent: clients.filter((c) => c.paid).map((c) => c.client) };
  }),
  // Communications with contacts whose lifecycle stage is not customer (leads and prospects);
  // every communication's count and the customers' are wrong answers.
  ...phrasings(5, ["how many convos did we have with non customers"], (t) => {
    const customer = "contact_id IN (SELECT c.id FROM contacts c WHERE c.lifecycle_stage = 'customer')";
    return countOf(t, "communications", `NOT (${customer})`, ["true", customer]);
  }),
  // No longer open = won or lost.
  ...phrasings(5, ["which deals are no longer active"], (t) => t.list("deals", "stage IN ('won', 'lost')")),
  // Not sent yet = drafts.
  ...phrasings(5, ["which invoices havent gone out yet"], (t) => t.list("invoices", "s = 'draft'")),
  // Deals whose contact is not tagged priority.
  ...phrasings(5, ["deals w non-priority contacts"], (t) =>
    t.list(
      "deals",
      "contact_id IN (SELECT c.id FROM contacts c WHERE NOT ('priority' = ANY(coalesce(c.tags, '{}'))))",
    ),
  ),
  // Contacts without a won deal (lost or open ones, or none at all).
  ...phrasings(5, ["contacts we've never won a deal with"], (t) =>
    t.list("contacts", "NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id AND d.stage = 'won')"),
  ),
  ...phrasings(5, ["any payments in a currency besides euro?"], (t) => t.list("payments", "cur <> 'EUR'")),
  // Skill names no candidate holds at expert level; the names someone holds at expert are absent.
  ...phrasings(5, ["which skills do we have no experts in"], async (t) => {
    const names = await t.sql<{ name: string; expert: boolean }>(
      `SELECT name, bool_or(level = 'expert') AS expert FROM skills WHERE org_id = $1 GROUP BY 1 ORDER BY 1`,
    );
    const present = names.filter((n) => !n.expert).map((n) => n.name);
    if (present.length === 0 || present.length > 10) throw new Error(`${present.length} skill names`);
    return { present, absent: names.filter((n) => n.expert).map((n) => n.name) };
  }),
  // Payments whose invoice is not paid in full (part payments).
  ...phrasings(5, ["payments on invoices that still arent setled"], (t) =>
    t.list("payments", "invoice_id IN (SELECT i.id FROM invoices i WHERE i.status <> 'paid')"),
  ),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // Juniper Health's unpaid invoice due first: 2026-03-30 (then 04-06; the paid one is due 05-01).
  ...phrasings(6, ["when's juniper's next invoice due"], async (t) => {
    const [first, next] = await t.rows<Row>(
      "invoices",
      `client = 'Juniper Health' AND ${UNPAID}`,
      [],
      "due_date",
    );
    if (!first || String(first.due_date) === String(next?.due_date))
      throw new Error("no single next invoice");
    const day = await t.value("SELECT due_date::text FROM invoices WHERE org_id = $1 AND id = $2", [
      first.id,
    ]);
    return { present: [first.number!, day!] };
  }),
  // The one card payment of 2,500: its invoice.
  ...phrasings(6, ["the 2,500 card payment - which invoice was that for"], async (t) => {
    const row = await only(t, "payments", "method = 'card' AND amount = 2500");
    return { present: [row.invoice_number!] };
  }),
  // Inbound emails from her; every communication with her and every inbound email are wrong answers.
  ...phrasings(6, ["how many emails has sofia novak sent us"], (t) =>
    countOf(
      t,
      "communications",
      "contact_name = 'Sofia Novak' AND channel = 'email' AND direction = 'inbound'",
      ["contact_name = 'Sofia Novak'", "channel = 'email' AND direction = 'inbound'"],
    ),
  ),
  // The invoices made out to the contact Mia Schmidt (of Acme Logistics), every status.
  ...phrasings(6, ["what invoices do we have for mia schmidt"], (t) =>
    t.list("invoices", "contact_id IN (SELECT c.id FROM contacts c WHERE c.name = 'Mia Schmidt')"),
  ),
  ...phrasings(6, ["how many deals does sofia okafor have"], (t) =>
    t.list("deals", "contact_name = 'Sofia Okafor'"),
  ),
  // His two deals (every stage) added up; every deal's total is a wrong answer.
  ...phrasings(6, ["total value of theo novaks deals"], (t) =>
    totalOf(t, "deals", "value", "contact_name = 'Theo Novak'", ["true"]),
  ),
  // His latest outbound SMS's day; the earlier one's day is a wrong answer.
  ...phrasings(6, ["when did we last text ravi reyes"], async (t) => {
    const texts = await days(t, "Ravi Reyes", "m.channel = 'sms' AND m.direction = 'outbound'");
    if (texts.length === 0) throw new Error("no text to Ravi Reyes");
    return { present: [texts[0]!], absent: texts.slice(1) };
  }),
  ...phrasings(6, ["any payments from riverbend coffee"], (t) =>
    t.list("payments", "client = 'Riverbend Coffee'"),
  ),
  // The level of one skill of one candidate.
  ...phrasings(6, ["does noah iyer know python"], async (t) => {
    const row = await only(t, "skills", "candidate_name = 'Noah Iyer' AND name = 'Python'");
    return { present: [row.level!] };
  }),
  ...phrasings(6, ["which blue fjord invoices r settled"], (t) =>
    t.list("invoices", "client = 'Blue Fjord Studio' AND s = 'paid'"),
  ),
  ...phrasings(6, ["solstice late invoices?"], (t) =>
    t.list("invoices", "client = 'Solstice Travel' AND s = 'overdue'"),
  ),
  // The candidate Ava Okafor's skills (a contact has the same name; only a candidate has skills).
  ...phrasings(6, ["what skills did ava okafor put down"], (t) =>
    t.list("skills", "candidate_name = 'Ava Okafor'"),
  ),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  ...followUps(["show me the products"], ["which ones are under 500"], (t) =>
    t.list("products", "price < 500"),
  ),
  // The lost deals added up; every deal's total is a wrong answer.
  ...followUps(["pull up lost deals"], ["total value?"], (t) =>
    totalOf(t, "deals", "value", "stage = 'lost'", ["true", OPEN_DEAL]),
  ),
  // Backend engineer candidates with a PostgreSQL skill.
  ...followUps(["candidates for the backend role"], ["who has postgres"], (t) =>
    t.list(
      "candidates",
      "position = 'Backend engineer' AND EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.name = 'PostgreSQL')",
    ),
  ),
  // Paid invoices over 10,000, their amounts added up; every paid invoice's total is a wrong answer.
  ...followUps(["invoices marked paid", "just the ones over 10k"], ["how much did those bring in"], (t) =>
    totalOf(t, "invoices", "amount", "s = 'paid' AND amount > 10000", ["s = 'paid'"]),
  ),
  // The contacts who sent the inbound emails of March.
  ...followUps(["emails we recieved this month"], ["from who?"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'email'
        AND m.direction = 'inbound' AND ${within("m.occurred_at", ...MARCH)})`,
    ),
  ),
  // The qualified deal with the earliest expected close date (the other qualified ones absent).
  ...followUps(["deals in qualified", "sort by close date"], ["which closes first"], async (t) => {
    const rest = (await t.rows<Row>("deals", "stage = 'qualified'")).map((d) => d.title!);
    return leader(
      t,
      `SELECT title AS name, expected_close_date::text AS n FROM deals
        WHERE org_id = $1 AND stage = 'qualified' AND expected_close_date IS NOT NULL
        ORDER BY expected_close_date`,
      rest,
    );
  }),
  // Overdue invoices with something paid.
  ...followUps(["overdue bills"], ["which of them did they partly pay"], (t) =>
    t.list("invoices", "s = 'overdue' AND amount_paid > 0"),
  ),
  // The candidates holding a skill the hiring panel verified; the rest absent.
  ...followUps(["skills verified by the hiring panel"], ["which candidates do those belong to"], (t) =>
    t.list(
      "candidates",
      `EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.status = 'verified'
        AND s.verified_by = 'Hiring panel')`,
    ),
  ),
  // His communications in March counted; all of his and every one in March are wrong answers.
  ...followUps(["show communications with theo novak"], ["narrow it to march"], (t) =>
    countOf(t, "communications", `contact_name = 'Theo Novak' AND ${within("occurred_at", ...MARCH)}`, [
      "contact_name = 'Theo Novak'",
      within("occurred_at", ...MARCH),
    ]),
  ),
  // Priority contacts that are not customers.
  ...followUps(["who's tagged priority"], ["drop the customers"], (t) =>
    t.list(
      "contacts",
      "'priority' = ANY(coalesce(tags, '{}')) AND lifecycle_stage IS DISTINCT FROM 'customer'",
    ),
  ),
  // Invoices due in April except drafts, their amounts added up; with the drafts, and the unpaid
  // ones only, are wrong answers.
  ...followUps(["invoices due in april", "exclude drafts"], ["add those up for me"], (t) => {
    const april = within("due_date", ...APRIL);
    return totalOf(t, "invoices", "amount", `${april} AND s <> 'draft'`, [april, `${april} AND ${UNPAID}`]);
  }),
  // The positions of the candidates in screening; a position none of them has is absent.
  ...followUps(["candidates at the screening stage rn"], ["what positions are they for"], async (t) => {
    const rows = await t.sql<{ position: string; screening: boolean }>(
      `SELECT position, bool_or(status = 'screening') AS screening FROM candidates WHERE org_id = $1
        AND position IS NOT NULL GROUP BY 1 ORDER BY 1`,
    );
    const present = rows.filter((r) => r.screening).map((r) => r.position);
    if (present.length === 0) throw new Error("no one in screening");
    return { present, absent: rows.filter((r) => !r.screening).map((r) => r.position) };
  }),
];

export const holdout4: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
