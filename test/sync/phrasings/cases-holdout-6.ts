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
  ratio,
  countOf,
  only,
  best,
  type Row,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  FEBRUARY,
  MARCH,
  APRIL,
  LAST_WEEK,
  THIS_WEEK,
  Q2,
} from "./truths.ts";

/**
 * The SIXTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven categories
 * of the phrasing exam, written blind (without reading the planner or its answers), in the words an
 * owner types (lower case, typos, abbreviations, slang, questions and imperatives), none of them
 * copied from cases-1-3.ts, cases-4-5.ts, cases-6-7.ts or the five earlier holdouts. The conventions
 * are grade.ts's; every truth is computed from the tables when the test runs, and a truth that would
 * be empty, tied or ambiguous throws (the exam's own fault, reported apart).
 * Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22, last week 2026-03-09..15,
 * this month March, last month February, Q1 2026-01-01..03-31, Q2 2026-04-01..06-30.
 */

const PRIORITY = "'priority' = ANY(coalesce(tags, '{}'))";

/** A total per currency present (it must exist); the totals of `wrong` sets absent. */
const totalOf = async (t: Q, resource: Resource, column: string, where: string, wrong: string[] = []) =>
  aggregate(t.total(resource, column, where), ...wrong.map((other) => t.total(resource, column, other)));

/**
 * Leaves out of `found.absent` the money texts a correct reply may show anyway while listing the
 * invoices of `where`: each one's amount, balance and amount paid.
 */
const sparingInvoices = async (t: Q, found: Expectation, where: string): Promise<Expectation> => {
  const own = (await t.rows<Row>("invoices", where)).flatMap((i) =>
    [i.amount, i.owed, i.amount_paid].map((v) => t.money(String(v), String(i.cur))),
  );
  return { ...found, absent: (found.absent ?? []).filter((text) => !own.includes(text)) };
};

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

/** Two where clauses that must pick the same records (two readings of the words agreeing). */
const agreeing = async (t: Q, resource: Resource, where: string, other: string) => {
  const a = (await t.rows<Row>(resource, where, [], "id")).map((r) => r.id).join();
  const b = (await t.rows<Row>(resource, other, [], "id")).map((r) => r.id).join();
  if (a !== b) throw new Error(`the readings ${where} and ${other} disagree`);
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Every status, strict: 28,800 twice, 24,000 and 38,400 twice; the 19,200 ones are out.
  ...phrasings(1, ["which invoices are north of 20 grand"], (t) => t.list("invoices", "amount > 20000")),
  // Open deals, strict, every currency: 500 and 3,500 (Northwind, one title) and the 2,000 Juniper
  // retainer; the 4,200 USD pilot and the closed 3,000 and 2,500 deals are out.
  ...phrasings(1, ["open opps under 4k?"], (t) => t.list("deals", `${OPEN_DEAL} AND value < 4000`)),
  // Strict: the consulting hour (150) and the seat licence (29.99); the 1,250 workshop is out.
  ...phrasings(1, ["wht products are cheaper than a grand"], (t) => t.list("products", "price < 1000")),
  // Inclusive at both ends: 1,000, 1,600, 2,000 and 2,500; 450 and 8,750 are out.
  ...phrasings(1, ["pull up payments btwn 1k and 2.5k"], (t) =>
    t.list("payments", "amount BETWEEN 1000 AND 2500"),
  ),
  // What is owed, inclusive: 9,600 twice (INV-000005, INV-000021), 19,200, 26,800, 28,800, 38,400;
  // the 3,800 left on INV-000001 is out.
  ...phrasings(1, ["unpaid invoces where at least 9,600 is still left to pay"], (t) =>
    t.list("invoices", `${UNPAID} AND owed >= 9600`),
  ),
  // Open deals per contact, inclusive: Sofia Novak and Theo Novak have two; those with one open
  // deal (and Jonas Tanaka, with three deals of which one is open) are out.
  ...phrasings(1, ["anyone with 2 or more opps still open?"], (t) =>
    t.list(
      "contacts",
      `(SELECT count(*) FROM deals d WHERE d.contact_id = v.id AND d.stage IN ('lead', 'qualified', 'proposal')) >= 2`,
    ),
  ),
  // Skill records per candidate, strict: five have 2; those with 3 or 4 are out.
  ...phrasings(1, ["candidates w/ fewer than 3 skills on file"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills s WHERE s.candidate_id = v.id) < 3"),
  ),
  // A dollar sign restricts to USD, every stage: the 4,200 USD solar pilot; the 2,500 USD win is
  // under, and every euro deal over 3,000 is out.
  ...phrasings(1, ["got any deals over $3k?"], (t) => t.list("deals", "cur = 'USD' AND value > 3000")),
  // Unpaid, amount_paid at least half the amount (inclusive): INV-000006, INV-000011 and INV-000018
  // at exactly half; INV-000002 (1,600 of 3,200.50) falls just short.
  ...phrasings(1, ["hey which unpaid bills are at least half paid off already"], (t) =>
    t.list("invoices", `${UNPAID} AND amount_paid >= amount / 2`),
  ),
  // Overdue, what is left (the words say balance), strict, every currency: 150, 59.98, 2,500
  // (INV-000018, a 5,000 invoice half paid) and 1,000.50 USD; INV-000001's 3,800 is out.
  ...phrasings(1, ["overdue ones where the remaining balance is below 3k"], (t) =>
    t.list("invoices", "s = 'overdue' AND owed < 3000"),
  ),
  // Open deal value per contact (per currency), strict: Liam Haddad 17,000 and Sofia Novak 22,500;
  // Ava Okafor's 15,000 is exactly at the line, Zoe Okafor's 14,000 under.
  ...phrasings(1, ["which contacts have more than 15k sitting in open deals"], (t) =>
    t.list(
      "contacts",
      `(SELECT max(x.s) FROM (SELECT sum(d.value) AS s FROM deals d WHERE d.contact_id = v.id
        AND d.stage IN ('lead', 'qualified', 'proposal') GROUP BY d.currency) x) > 15000`,
    ),
  ),
  // Bank transfers in euros, strict: 450 and 149.95; 2,000 and up are out.
  ...phrasings(1, ["bank transfers smaller than 500 eur"], (t) =>
    t.list("payments", "method = 'bank_transfer' AND cur = 'EUR' AND amount < 500"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Open deals by value: the Riverbend Coffee retainer (17,000 EUR); the won 19,500 is closed.
  ...phrasings(2, ["biggest opp we havent closed yet"], (t) => best(t, "deals", OPEN_DEAL, "value", 1)),
  // Invoiced per client (standing invoices, per currency): Larkspur Foods 52,800, Kestrel Robotics
  // 44,150, Oakridge Builders 38,400; Juniper Health 33,809.93 fourth. With drafts and voids
  // counted the top three are the same (the truth throws if not).
  ...phrasings(2, ["top 3 clients by how much we've invoiced them"], async (t) => {
    const rank = (statuses: string) =>
      leaders(
        t,
        `SELECT client AS name, sum(amount)::text AS n FROM invoices WHERE org_id = $1 AND status IN (${statuses})
          GROUP BY client, currency ORDER BY sum(amount) DESC`,
        3,
      );
    const standing = await rank("'open', 'paid'");
    const every = await rank("'open', 'paid', 'draft', 'void'");
    if (standing.present.join() !== every.present.join()) throw new Error("drafts change the top 3");
    return standing;
  }),
  // Overdue by due date, earliest: INV-000014 (due 2026-02-02); it is also the earliest issued.
  ...phrasings(2, ["oldest overdue inv?"], async (t) => {
    const byDue = await best(t, "invoices", "s = 'overdue'", "due_date", 1, "asc");
    const byIssue = await best(t, "invoices", "s = 'overdue'", "issued_at", 1, "asc");
    if (byDue.present[0] !== byIssue.present[0]) throw new Error("the readings of oldest disagree");
    return byDue;
  }),
  // Payments by amount, smallest three: 119, 119.96 and 149.95 EUR (then 250 USD).
  ...phrasings(2, ["show me the 3 tiniest payments we got"], (t) =>
    best(t, "payments", "true", "amount", 3, "asc"),
  ),
  // Expert-level skills per candidate: Amara Novak 2 (Prototyping, User research), the others at
  // most 1.
  ...phrasings(2, ["who's got the most skills rated expert"], (t) =>
    leaders(
      t,
      `SELECT c.name, count(*)::text AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND s.level = 'expert' GROUP BY c.name ORDER BY count(*) DESC`,
    ),
  ),
  // Inbound communications per contact (every channel): Jonas Tanaka 3, Ava Okafor and Sofia Novak 2.
  ...phrasings(2, ["which contact reaches out to us most often"], (t) =>
    leaders(
      t,
      `SELECT c.name, count(*)::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.direction = 'inbound' GROUP BY c.name ORDER BY count(*) DESC`,
    ),
  ),
  // Products by price, lowest: the seat licence (29.99).
  ...phrasings(2, ["cheapest thing in our catalog"], (t) => best(t, "products", "true", "price", 1, "asc")),
  // Skill names by the number of candidates holding them: TypeScript 4, the next ones 3.
  ...phrasings(2, ["most common skill among the applicants?"], (t) =>
    leaders(
      t,
      `SELECT name, count(DISTINCT candidate_id)::text AS n FROM skills WHERE org_id = $1
        GROUP BY name ORDER BY count(DISTINCT candidate_id) DESC`,
    ),
  ),
  // Unpaid invoices per client: Kestrel Robotics 3, six clients 2.
  ...phrasings(2, ["which client has the most bills outstanding"], (t) =>
    leaders(
      t,
      `SELECT client AS name, count(*)::text AS n FROM invoices WHERE org_id = $1 AND status = 'open'
        GROUP BY client ORDER BY count(*) DESC`,
    ),
  ),
  // Open deals by expected close date from today on, soonest: the Acme Logistics workshop
  // (2026-03-24); the Northwind lead's 2026-03-04 has passed.
  ...phrasings(2, ["whats the next open deal due to close"], (t) =>
    best(t, "deals", `${OPEN_DEAL} AND expected_close_date >= $2::date`, "expected_close_date", 1, "asc"),
  ),
  // Card payments by amount: 2,500 EUR (Kestrel's INV-000018).
  ...phrasings(2, ["largest card payment weve had"], (t) =>
    best(t, "payments", "method = 'card'", "amount", 1),
  ),
  // Won deal value per contact (per currency): Ravi Okafor 19,500 EUR, Jonas Tanaka 16,500 EUR.
  ...phrasings(2, ["which contact's won deals are worth the most altogether"], (t) =>
    leaders(
      t,
      `SELECT c.name, sum(d.value)::text AS n FROM deals d JOIN contacts c ON c.id = d.contact_id
        WHERE d.org_id = $1 AND d.stage = 'won' GROUP BY c.name, d.currency ORDER BY sum(d.value) DESC`,
    ),
  ),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Overdue amounts averaged per currency; the average balance of the overdue ones and the average
  // standing invoice are wrong answers.
  ...phrasings(3, ["whats the avg size of our late invoices"], async (t) =>
    sparingInvoices(
      t,
      await aggregate(
        t.average("invoices", "amount", "s = 'overdue'"),
        t.average("invoices", "owed", "s = 'overdue'"),
        t.average("invoices", "amount", STANDING),
      ),
      "s = 'overdue'",
    ),
  ),
  // What unpaid invoices owe, median per currency (USD: 980 and 1,000.50); the median of their
  // amounts and the average balance are wrong answers (an invoice's own figures spared).
  ...phrasings(3, ["whats the median amount still owed per unpaid inv"], async (t) =>
    sparingInvoices(
      t,
      await aggregate(
        t.median("invoices", "owed", UNPAID),
        t.median("invoices", "amount", UNPAID),
        t.average("invoices", "owed", UNPAID),
      ),
      UNPAID,
    ),
  ),
  // Communications per calendar month: February 17, March 25 (a total of 42 may be said too).
  ...phrasings(3, ["break down number of client interactions by month"], async (t) => {
    const rows = await t.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM communications WHERE org_id = $1
        GROUP BY to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM') ORDER BY 1`,
    );
    const present = [...new Set(rows.map((row) => t.bold(row.n)))];
    if (rows.length < 2 || present.length !== rows.length) throw new Error("two months with the same count");
    return { present };
  }),
  // Denominator: closed deals (won or lost, 7); the part: won (5).
  ...phrasings(3, ["whats our win rate on closed deals"], (t) =>
    ratio(t.share("deals", "stage = 'won'", "stage IN ('won', 'lost')")),
  ),
  // Denominator: every skill record (31); the part: the verified ones (8).
  ...phrasings(3, ["how many of the skills candidates list are actually verified, as a percentage"], (t) =>
    ratio(t.share("skills", "status = 'verified'")),
  ),
  // Invoices by issued_at in March, lowest and highest amount per currency: 239.92 and 24,000 EUR,
  // 980 and 1,250.50 USD; the extremes over every invoice (59.98, 38,400 EUR) are wrong.
  ...phrasings(3, ["of the invoices we issued this month, whats the min and max amount"], async (t) => {
    const march = within("issued_at", ...MARCH);
    const low = await t.perCurrency("invoices", "min(amount)", march);
    const high = await t.perCurrency("invoices", "max(amount)", march);
    return aggregate(
      Promise.resolve([...new Set([...low, ...high])]),
      t.perCurrency("invoices", "min(amount)"),
      t.perCurrency("invoices", "max(amount)"),
    );
  }),
  // Lost deals added up: 16,500 EUR; the won total is a wrong answer.
  ...phrasings(3, ["how much did we lose in deals that fell thru"], (t) =>
    totalOf(t, "deals", "value", "stage = 'lost'", ["stage = 'won'", "true"]),
  ),
  // Card payments averaged per currency: 998.50 EUR and 250 USD; every payment's average is wrong.
  ...phrasings(3, ["on average how much do card payments come to"], (t) =>
    aggregate(t.average("payments", "amount", "method = 'card'"), t.average("payments", "amount")),
  ),
  // What is owed on overdue invoices added up per currency; their amounts, and what every unpaid
  // invoice owes, are wrong answers.
  ...phrasings(3, ["total balance still owed on overdue invoices"], async (t) =>
    sparingInvoices(
      t,
      await aggregate(
        t.total("invoices", "owed", "s = 'overdue'"),
        t.total("invoices", "amount", "s = 'overdue'"),
        t.total("invoices", "owed", UNPAID),
      ),
      "s = 'overdue'",
    ),
  ),
  // March payments' median per currency: 2,500 EUR (the 7th of 13) and 250 USD; every payment's
  // median and March's average are wrong answers.
  ...phrasings(3, ["median payment we've recieved in march"], (t) =>
    aggregate(
      t.median("payments", "amount", within("received_at", ...MARCH)),
      t.median("payments", "amount"),
      t.average("payments", "amount", within("received_at", ...MARCH)),
    ),
  ),
  // Denominator: every deal (19); the part: those in euros (17).
  ...phrasings(3, ["what percentage of our deals are priced in euros"], (t) =>
    ratio(t.share("deals", "cur = 'EUR'")),
  ),
  // Qualified euro deals averaged: 3,500, 2,000, 7,500 and 15,000 make 7,000 EUR; every open euro
  // deal's and every euro deal's averages are wrong.
  ...phrasings(3, ["whats a qualified deal worth on avg, euros only"], (t) =>
    aggregate(
      t.average("deals", "value", "stage = 'qualified' AND cur = 'EUR'"),
      t.average("deals", "value", `${OPEN_DEAL} AND cur = 'EUR'`),
      t.average("deals", "value", "cur = 'EUR'"),
    ),
  ),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // By received_at from 2026-02-01: fifteen; the January bank transfer (2,000) is out.
  ...phrasings(4, ["payments that came in since feb"], (t) =>
    t.list("payments", "received_at >= '2026-02-01'"),
  ),
  // Unpaid, due from today to today + 14 (2026-04-01): INV-000032 (03-23) and INV-000029 (03-30);
  // INV-000021 (04-02) is one day past, the overdue ones are already behind.
  ...phrasings(4, ["whats coming due in the next 14 days that hasnt been paid"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date BETWEEN $2::date AND '${addDays(t.today, 14)}'`),
  ),
  // Deals by closed_at in February: the Kestrel robot fleet rollout (won 02-15); nothing was lost.
  ...phrasings(4, ["which deals got closed in feb"], (t) =>
    t.list("deals", within("closed_at", ...FEBRUARY)),
  ),
  // Communications from 2026-03-11: eleven (nothing between 03-09 02:00 and 03-12 14:00, so the
  // count does not hang on where the seven days start); this week's and March's are wrong answers.
  ...phrasings(4, ["how many interactions have we logged in the last 7 days"], async (t) => {
    const from = addDays(t.today, -7);
    const a = await t.count("communications", `occurred_at >= '${from}'`);
    const b = await t.count("communications", `occurred_at >= '${addDays(t.today, -6)}'`);
    if (a !== b) throw new Error("the start of the seven days matters");
    return countOf(t, "communications", `occurred_at >= '${from}'`, [
      within("occurred_at", ...THIS_WEEK),
      within("occurred_at", ...MARCH),
    ]);
  }),
  // By issued_at, Monday 01-26 to Sunday 02-01: INV-000001 and INV-000018 (01-28), INV-000012 and
  // INV-000019 (Sunday 02-01).
  ...phrasings(4, ["invoices we sent out the week of jan 26"], (t) =>
    t.list("invoices", within("issued_at", "2026-01-26", "2026-02-02")),
  ),
  // Candidates by created_at in February: Ava Okafor; the other ten came in March.
  ...phrasings(4, ["which candidates came in during february"], (t) =>
    t.list("candidates", within("created_at", ...FEBRUARY)),
  ),
  // Open deals by expected_close_date in April..June: eight; the Acme workshop (03-24) and the
  // Northwind lead (03-04) are out, as are the two open deals without a date.
  ...phrasings(4, ["which open opps are slated to close in the second quarter"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...Q2)}`),
  ),
  // By received_at before March: 2,000 (January) + 1,000 (February) EUR; every payment's and
  // February's totals are wrong answers.
  ...phrasings(4, ["total payments recieved before march"], (t) =>
    totalOf(t, "payments", "amount", "received_at < '2026-03-01'", ["true"]),
  ),
  // Meetings, Monday 03-09 to Sunday 03-15: four; March's (6) and every meeting (7) are wrong.
  ...phrasings(4, ["number of meetings held last wk?"], (t) =>
    countOf(t, "communications", `channel = 'meeting' AND ${within("occurred_at", ...LAST_WEEK)}`, [
      `channel = 'meeting' AND ${within("occurred_at", ...MARCH)}`,
      "channel = 'meeting'",
    ]),
  ),
  // Contacts with an outbound email 02-01..02-14: the ten introductions of 02-05..02-14; Mia
  // Schmidt (02-15) and Theo Novak (02-16) are out.
  ...phrasings(4, ["who did we email in the first half of february"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'email'
        AND m.direction = 'outbound' AND ${within("m.occurred_at", "2026-02-01", "2026-02-15")})`,
    ),
  ),
  // Unpaid, due 03-01..03-15: INV-000012, INV-000019 (03-03), INV-000031 (03-08), INV-000024
  // (03-13); INV-000023 (03-16) and the paid INV-000030 (03-13) are out.
  ...phrasings(4, ["unpaid invs with a due date from mar 1 to mar 15"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date BETWEEN '2026-03-01' AND '2026-03-15'`),
  ),
  // Skills by verified_at in the last 30 days (from 2026-02-16; from 02-18 gives the same): seven
  // records; Ava Okafor's SQL (verified 02-01) is out.
  ...phrasings(4, ["what skills have been signed off over the last 30 days"], async (t) => {
    const where = `status = 'verified' AND verified_at >= '${addDays(t.today, -30)}'`;
    await agreeing(t, "skills", where, "status = 'verified' AND verified_at >= '2026-02-18'");
    return t.list("skills", where);
  }),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  // Clients (of invoices) without an overdue invoice: Helios Energy, Juniper Health, Meridian Legal
  // and Quanta Analytics; the eight with one are absent.
  ...phrasings(5, ["which clients are fully up to date, nothing overdue"], (t) =>
    namesWhere(
      t,
      `SELECT client AS name, NOT bool_or(status = 'open' AND due_date < '${t.today}'::date) AS hit
         FROM invoices WHERE org_id = $1 GROUP BY client ORDER BY client`,
    ),
  ),
  // Candidates applying for neither backend engineer nor product designer: the two data analysts
  // and the two account executives (every hired or rejected candidate is backend or product).
  ...phrasings(5, ["anyone in the hiring pipeline who's not backend or product design"], (t) =>
    t.list("candidates", "position NOT IN ('Backend engineer', 'Product designer')"),
  ),
  // Card and direct debit payments: eight; the bank transfers are out.
  ...phrasings(5, ["payments other than bank transfers"], (t) =>
    t.list("payments", "method <> 'bank_transfer'"),
  ),
  // Product designers not rejected: Sofia Schmidt (screening); Amara Novak and Sofia Lindqvist
  // were rejected.
  ...phrasings(5, ["product designers we havent turned down"], (t) =>
    t.list("candidates", "position = 'Product designer' AND status <> 'rejected'"),
  ),
  // Backend engineers' skills not verified: PostgreSQL and TypeScript (five records); their
  // verified SQL, Node.js and Distributed systems are absent.
  ...phrasings(5, ["for the backend eng candidates, which of their skills are still unverified"], (t) =>
    t.list(
      "skills",
      `status <> 'verified' AND candidate_id IN (SELECT c.id FROM candidates c WHERE c.position = 'Backend engineer')`,
    ),
  ),
  // Open deals without an expected close date: the Kestrel arm retrofit and the Helios solar
  // pilot; the won robot fleet rollout (no date either) is closed.
  ...phrasings(5, ["any open opps with no target close date set?"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date IS NULL`),
  ),
  // Contacts with no meeting (either direction): eight.
  ...phrasings(5, ["who have we not met face to face yet"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'meeting')",
    ),
  ),
  // Overdue, clients other than Acme Logistics and Kestrel Robotics: seven.
  ...phrasings(5, ["overdue invoices from everyone except acme and kestrel"], (t) =>
    t.list("invoices", "s = 'overdue' AND client NOT IN ('Acme Logistics', 'Kestrel Robotics')"),
  ),
  // Deals with no communication linked: the Kestrel arm retrofit, the Kestrel robot fleet rollout
  // and the Helios solar pilot.
  ...phrasings(5, ["deals with no comms history at all"], (t) =>
    t.list("deals", "NOT EXISTS (SELECT 1 FROM communications m WHERE m.deal_id = v.id)"),
  ),
  // Contacts with no inbound communication: seven (Ada Byron among them).
  ...phrasings(5, ["which contacts have never reached out to us themselves"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.direction = 'inbound')",
    ),
  ),
  // Candidates without a TypeScript skill: seven; the four backend engineers with it are out.
  ...phrasings(5, ["who among the applicants doesnt have typescript"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.name = 'TypeScript')",
    ),
  ),
  // Invoices in another currency than EUR: the two dollar ones.
  ...phrasings(5, ["everything we've billed that isnt in eur"], (t) => t.list("invoices", "cur <> 'EUR'")),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // What Larkspur Foods owes on its unpaid invoice: 38,400 EUR; all it was billed (52,800) is wrong.
  ...phrasings(6, ["larkspur foods - how much is still outstanding"], (t) =>
    aggregate(
      t.total("invoices", "owed", `client = 'Larkspur Foods' AND ${UNPAID}`),
      t.total("invoices", "amount", "client = 'Larkspur Foods'"),
    ),
  ),
  // Meridian Legal's payments added up: 119 + 16,002.50 EUR; what it was billed and what it still
  // owes are wrong answers (none of them one of its invoices' own figures).
  ...phrasings(6, ["total we've received from meridian legal"], async (t) =>
    sparingInvoices(
      t,
      await aggregate(
        t.total("payments", "amount", "client = 'Meridian Legal'"),
        t.total("invoices", "amount", "client = 'Meridian Legal'"),
        t.total("invoices", "owed", `client = 'Meridian Legal' AND ${UNPAID}`),
      ),
      "client = 'Meridian Legal'",
    ),
  ),
  // The Riverbend Coffee retainer's expected close date (2026-04-24); the Juniper retainer's date
  // is a wrong answer.
  ...phrasings(6, ["when's the riverbend retainer expected to close"], async (t) => {
    const row = await only(t, "deals", "title = 'Consulting retainer — Riverbend Coffee'");
    const day = await t.value("SELECT expected_close_date::text FROM deals WHERE org_id = $1 AND id = $2", [
      row.id,
    ]);
    const others = await t.sql<{ d: string }>(
      `SELECT DISTINCT expected_close_date::text AS d FROM deals
        WHERE org_id = $1 AND title LIKE 'Consulting retainer%' AND id <> $2 AND expected_close_date IS NOT NULL`,
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
  // Mia Haddad's skills: Python and SQL.
  ...phrasings(6, ["list the skills mia haddad has"], (t) =>
    t.list("skills", "candidate_name = 'Mia Haddad'"),
  ),
  // Juniper Health's invoices, every status: INV-000005, INV-000017 and INV-000029.
  ...phrasings(6, ["pull up all juniper health invoices"], (t) =>
    t.list("invoices", "client = 'Juniper Health'"),
  ),
  // The contact at Oakridge Builders: Ravi Reyes (Ravi Okafor is Meridian Legal's).
  ...phrasings(6, ["who's our contact at oakridge"], (t) =>
    t.list("contacts", "company = 'Oakridge Builders'"),
  ),
  // Liam Moreau's verified skills: Distributed systems, Node.js, TypeScript; his claimed PostgreSQL
  // is absent.
  ...phrasings(6, ["which of liam moreau's skills are verified"], async (t) => {
    const rows = await t.sql<{ name: string; hit: boolean }>(
      `SELECT s.name, s.status = 'verified' AS hit FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND c.name = 'Liam Moreau' ORDER BY 1`,
    );
    const present = rows.filter((r) => r.hit).map((r) => r.name);
    if (present.length === 0) throw new Error("nothing verified");
    return { present, absent: rows.filter((r) => !r.hit).map((r) => r.name) };
  }),
  // Sofia Okafor's deals, every stage: the arm retrofit, the pilot programme (lost) and the robot
  // fleet rollout (won).
  ...phrasings(6, ["all deals tied to sofia okafor, won lost whatever"], (t) =>
    t.list("deals", "contact_name = 'Sofia Okafor'"),
  ),
  // Meetings with Mia Schmidt: two (03-13, 03-14); her call added, and all of hers, are wrong.
  ...phrasings(6, ["how many meetings have we had with mia schmidt"], (t) =>
    countOf(t, "communications", "contact_name = 'Mia Schmidt' AND channel = 'meeting'", [
      "contact_name = 'Mia Schmidt' AND channel IN ('meeting', 'call')",
      "contact_name = 'Mia Schmidt'",
    ]),
  ),
  // Who verified Sofia Schmidt's Figma: Priya Natarajan; the other reviewers are wrong answers.
  ...phrasings(6, ["who verified sofia schmidt's figma"], async (t) => {
    const row = await only(t, "skills", "candidate_name = 'Sofia Schmidt' AND name = 'Figma'");
    const person = (by: string) => by.replace(/\s*\(.*\)$/, "");
    if (!row.verified_by) throw new Error("not verified");
    const present = [person(row.verified_by)];
    const others = await t.sql<{ by: string }>(
      "SELECT DISTINCT verified_by AS by FROM skills WHERE org_id = $1 AND verified_by IS NOT NULL",
    );
    return {
      present,
      absent: besides(
        present,
        others.map((o) => person(o.by)),
      ),
    };
  }),
  // Acme Logistics' invoice for the data migration: INV-000002, 1,600.50 EUR left; Acme's other
  // unpaid balance (28,800) is a wrong answer.
  ...phrasings(6, ["remaining balance on acme's data migration invoice?"], async (t) => {
    const where = `client = 'Acme Logistics' AND EXISTS (SELECT 1 FROM jsonb_array_elements(v.line_items) li
      WHERE li->>'description' = 'Data migration')`;
    const row = await only(t, "invoices", where);
    const present = [t.money(String(row.owed), String(row.cur))];
    const others = (
      await t.rows<Row>("invoices", `client = 'Acme Logistics' AND ${UNPAID} AND id <> $3`, [row.id])
    ).map((i) => t.money(String(i.owed), String(i.cur)));
    return { present, absent: besides(present, others) };
  }),
  // Ravi Okafor's phone; Ravi Reyes's is a wrong answer.
  ...phrasings(6, ["whats ravi okafor's phone number"], async (t) => {
    const row = await only(t, "contacts", "name = 'Ravi Okafor'");
    const others = await t.rows<Row>("contacts", "name LIKE 'Ravi %' AND id <> $3 AND phone IS NOT NULL", [
      row.id,
    ]);
    if (!row.phone) throw new Error("no phone");
    return {
      present: [row.phone],
      absent: besides(
        [row.phone],
        others.map((o) => o.phone!),
      ),
    };
  }),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  // Overdue over 10,000 (on the amount or what is owed, the same four): INV-000009, INV-000014,
  // INV-000019, INV-000023.
  ...followUps(["whats overdue rn"], ["which of those are over 10 grand"], async (t) => {
    await agreeing(t, "invoices", "s = 'overdue' AND amount > 10000", "s = 'overdue' AND owed > 10000");
    return t.list("invoices", "s = 'overdue' AND amount > 10000");
  }),
  // Proposal-stage deals by value, top two: the Riverbend retainer (17,000) and the Larkspur
  // renewal (14,000); the Blue Fjord ones (11,500, 11,000) and the Kestrel retrofit are out.
  ...followUps(["pipeline pls", "only proposal stage"], ["which 2 are biggest"], (t) =>
    best(t, "deals", "stage = 'proposal'", "value", 2),
  ),
  // Paid invoices averaged; the average standing invoice is a wrong answer.
  ...followUps(["what do our invoices average out to"], ["now only counting the paid ones"], (t) =>
    aggregate(t.average("invoices", "amount", "s = 'paid'"), t.average("invoices", "amount", STANDING)),
  ),
  // March card payments: 250 USD, 375, 119 and 2,500 EUR; February's 1,000 by card is out.
  ...followUps(["money received in march"], ["filter to card payments"], (t) =>
    t.list("payments", `method = 'card' AND ${within("received_at", ...MARCH)}`),
  ),
  // Blue Fjord Studio's open deals added up: 22,500 EUR; the whole pipeline's total is wrong.
  ...followUps(["what do we have in the pipeline with blue fjord"], ["whats all that worth combined"], (t) =>
    totalOf(t, "deals", "value", `${OPEN_DEAL} AND company = 'Blue Fjord Studio'`, [OPEN_DEAL, "true"]),
  ),
  // Priority-tagged prospects: Liam Haddad, Ravi Reyes and Yara Haddad; Ada Byron (an untagged
  // prospect) is out.
  ...followUps(["who's got the priority tag"], ["narrow to prospects"], (t) =>
    t.list("contacts", `${PRIORITY} AND lifecycle_stage = 'prospect'`),
  ),
  // What Kestrel Robotics owes on its unpaid invoices: 2,875 EUR and 1,000.50 USD; their amounts
  // and every client's balance are wrong answers (except an invoice's own figures).
  ...followUps(["what's unpaid atm", "kestrel's only"], ["sum of what's left to pay?"], async (t) => {
    const kestrel = `client = 'Kestrel Robotics' AND ${UNPAID}`;
    return sparingInvoices(
      t,
      await aggregate(
        t.total("invoices", "owed", kestrel),
        t.total("invoices", "amount", kestrel),
        t.total("invoices", "owed", UNPAID),
      ),
      kestrel,
    );
  }),
  // Candidates with a skill verified by the hiring panel: Ava Okafor, Mia Haddad, Yara Iyer and Yara
  // Kowalski; Liam Moreau and Sofia Schmidt (other reviewers) are out.
  ...followUps(
    ["pull up the verified skills", "the ones the hiring panel did"],
    ["whose skills are those"],
    (t) =>
      t.list(
        "candidates",
        `EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.status = 'verified'
        AND s.verified_by = 'Hiring panel')`,
      ),
  ),
  // Outbound emails last week: two (Theo Novak, 03-13 and 03-14); all last week's emails (3) and
  // all last week's communications are wrong.
  ...followUps(["emails last wk"], ["outgoing only - how many"], (t) =>
    countOf(
      t,
      "communications",
      `channel = 'email' AND direction = 'outbound' AND ${within("occurred_at", ...LAST_WEEK)}`,
      [`channel = 'email' AND ${within("occurred_at", ...LAST_WEEK)}`, within("occurred_at", ...LAST_WEEK)],
    ),
  ),
  // Lost deals: the Acme Logistics workshop (13,500) and the Kestrel pilot programme.
  ...followUps(["show me the deals we've won"], ["and the ones we lost?"], (t) =>
    t.list("deals", "stage = 'lost'"),
  ),
  // Unpaid, due in April, not Helios Energy: INV-000002, INV-000005, INV-000008, INV-000011 and
  // INV-000021; Helios's INV-000004 is out.
  ...followUps(["bills still owed that fall due in april"], ["leave helios out"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("due_date", ...APRIL)} AND client <> 'Helios Energy'`),
  ),
  // Candidates in screening or interview: Ava Okafor, Noah Iyer, Sofia Schmidt, Liam Moreau and Yara
  // Kowalski.
  ...followUps(["who's in the screening stage"], ["include interview stage as well"], (t) =>
    t.list("candidates", "status IN ('screening', 'interview')"),
  ),
];

export const holdout6: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
