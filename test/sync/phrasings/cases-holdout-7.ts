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
  countOf,
  totalOf,
  only,
  best,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  FEBRUARY,
  MARCH,
  APRIL,
  MAY,
  WEEK_AFTER_NEXT,
} from "./truths.ts";

/**
 * The SEVENTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven categories
 * of the phrasing exam, written blind (without reading the planner or its answers), in the words an
 * owner types on a phone (lower case, typos, abbreviations, slang, questions and imperatives), none
 * of them copied from cases-1-3.ts, cases-4-5.ts, cases-6-7.ts or the earlier holdouts. The
 * conventions are grade.ts's; every truth is computed from the tables when the test runs, and a
 * truth that would be empty, tied or ambiguous throws (the exam's own fault, reported apart).
 * Today is 2026-03-18, a Wednesday: the week before last is 2026-03-02..08, the week after next
 * 2026-03-30..04-05, this month March; 2026-03-07..08 and 2026-02-28..03-01 are weekends.
 */

const WEEK_BEFORE_LAST = ["2026-03-02", "2026-03-09"] as const;

/**
 * The first `n` names of a ranking (`text` yields rows of `name` and `n`, best first): throws on a
 * tie across rank `n`, on fewer than `n` rows, or on a name ranked twice; the other names absent.
 */
const ranked = async (t: Q, text: string, n = 1, params: unknown[] = []): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text, params);
  if (rows.length < n) throw new Error(`a ranking of ${rows.length}, not ${n}`);
  if (rows.length > n && String(rows[n - 1]!.n) === String(rows[n]!.n))
    throw new Error(`tie at rank ${n}: ${rows[n - 1]!.name} and ${rows[n]!.name}`);
  const present = rows.slice(0, n).map((row) => row.name);
  if (new Set(present).size !== n) throw new Error("a name ranked twice");
  return {
    present,
    absent: besides(
      present,
      rows.slice(n).map((row) => row.name),
    ),
  };
};

/** One record looked up: its label present (no count), every other record's label absent. */
const lookup = async (
  t: Q,
  resource: Resource,
  where: string,
  params: unknown[] = [],
): Promise<Expectation> => {
  const row = await only(t, resource, where, params);
  return { present: [row.label!], absent: await t.others(resource, where, params) };
};

/** The days (YYYY-MM-DD, UTC) of the communications with contact `name` matching `where`, in `dir`. */
const days = async (t: Q, name: string, where: string, dir: "asc" | "desc") =>
  (
    await t.sql<{ day: string }>(
      `SELECT DISTINCT to_char(m.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM communications m
        JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1 AND c.name = $2 AND (${where})
        ORDER BY 1 ${dir}`,
      [name],
    )
  ).map((row) => row.day);

/** The first day of `days` present, the other days absent. */
const firstDay = (found: string[]): Expectation => {
  if (found.length === 0) throw new Error("no such day");
  return { present: [found[0]!], absent: found.slice(1) };
};

/** The invoices as grade.ts's view has them (`s` the shown status), for sub-queries. */
const INVOICE_VIEW = `SELECT i.*, trim(i.currency) AS cur, i.amount - i.amount_paid AS owed,
    CASE WHEN i.status = 'open' AND i.due_date < $2::date THEN 'overdue' ELSE i.status END AS s
  FROM invoices i WHERE i.org_id = $1`;

/** Units on an invoice's line items (null without line items). */
const UNITS = "(SELECT sum((li->>'quantity')::numeric) FROM jsonb_array_elements(v.line_items) li)";

/** A ratio present; the ratios of plausible wrong readings absent (their `(n of m)` parts too). */
const ratioOf = async (
  share: Promise<string[]>,
  ...wrong: Array<Promise<string[]>>
): Promise<Expectation> => {
  const present = await share;
  const others: string[] = [];
  for (const values of wrong) others.push(...(await values));
  return { present, absent: besides(present, others) };
};

/** The names of products on the invoices matching `where` (a line item's description). */
const productsOn = async (t: Q, where: string): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; on: boolean }>(
    `SELECT p.name, EXISTS (SELECT 1 FROM (${INVOICE_VIEW}) v, jsonb_array_elements(v.line_items) li
        WHERE (${where}) AND li->>'description' = p.name) AS on
      FROM products p WHERE p.org_id = $1 ORDER BY 1`,
    [t.today],
  );
  const present = rows.filter((r) => r.on).map((r) => r.name);
  if (present.length === 0) throw new Error(`no product on the invoices where ${where}`);
  return { present, absent: rows.filter((r) => !r.on).map((r) => r.name) };
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Deal value per contact and currency, every stage, strict: Sofia Novak 22,500 and Mia Schmidt
  // 21,000 (13,500 of it lost); Liam Haddad's 17,000 and Jonas Tanaka's 16,500 are out.
  ...phrasings(1, ["which contacts have more than 20k in deals all up, any stage"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id GROUP BY d.currency HAVING sum(d.value) > 20000)`,
    ),
  ),
  // Verified skills per candidate, at least two: Liam Moreau (three); the rest have one or none.
  ...phrasings(1, ["any candidat w at least 2 skills verified?"], (t) =>
    t.list(
      "candidates",
      "(SELECT count(*) FROM skills s WHERE s.candidate_id = v.id AND s.status = 'verified') >= 2",
    ),
  ),
  // Deals (every stage) per contact, exactly one; those with two or three, and Ada Byron with none,
  // are out.
  ...phrasings(1, ["which contacts only have the one deal with us"], (t) =>
    t.list("contacts", "(SELECT count(*) FROM deals d WHERE d.contact_id = v.id) = 1"),
  ),
  // Voided, strict: the 900 one; the 119.96 one is out.
  ...phrasings(1, ["any voided invoices above 500?"], (t) =>
    t.list("invoices", "s = 'void' AND amount > 500"),
  ),
  // Units on the line items, at least seven: 8 (three) and 7 (two); 6 is out (the dollar invoices
  // have no lines).
  ...phrasings(1, ["invs with 7+ units on em"], (t) => t.list("invoices", `${UNITS} >= 7`)),
  // Qualified, inclusive: 7,500 and 15,000; 2,000, 3,500 and the 4,200 USD one are out.
  ...phrasings(1, ["qualified opps at 7,500 and up"], (t) =>
    t.list("deals", "stage = 'qualified' AND value >= 7500"),
  ),
  // Card or direct debit, strict: 119 and 119.96; the 149.95 bank transfer and 250 USD card are out.
  ...phrasings(1, ["card or dd payments below 150"], (t) =>
    t.list("payments", "method IN ('card', 'direct_debit') AND amount < 150"),
  ),
  // Unpaid with amount_paid at least half the amount: 375 of 750, 450 of 900, 2,500 of 5,000; 1,600
  // of 3,200.50 and 119 of 239.92 fall just short.
  ...phrasings(1, ["unpaid invoices where at least half has been paid"], (t) =>
    t.list("invoices", `${UNPAID} AND amount_paid >= amount / 2`),
  ),
  // Euros, inclusive: the 150 consulting hour and the 1,250 workshop.
  ...phrasings(1, ["products that cost between 100 and 2000 euros"], (t) =>
    t.list("products", "cur = 'EUR' AND price BETWEEN 100 AND 2000"),
  ),
  // Outbound texts per contact, more than one: Ravi Reyes (two); everyone else has one or none.
  ...phrasings(1, ["anyone we've texted more than once?"], (t) =>
    t.list(
      "contacts",
      `(SELECT count(*) FROM communications m WHERE m.contact_id = v.id AND m.channel = 'sms'
        AND m.direction = 'outbound') > 1`,
    ),
  ),
  // Bank transfers, inclusive: 450, 2,000 and 8,750; 149.95 and 9,601.50 are out.
  ...phrasings(1, ["bank transfers between 400 and 9,000"], (t) =>
    t.list("payments", "method = 'bank_transfer' AND amount BETWEEN 400 AND 9000"),
  ),
  // Overdue, inclusive, every currency: 4,800, 6,401, 5,000 and 1,250.50 USD; on what is owed
  // (3,800, 6,401, 2,500, 1,000.50) the same four.
  ...phrasings(1, ["overdue bills between 1k and 7k"], (t) =>
    t.list("invoices", "s = 'overdue' AND amount BETWEEN 1000 AND 7000"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Overdue by amount_paid: 2,500 on INV-000018 (then 2,000 and 1,000).
  ...phrasings(2, ["of the late invoices, which one have they paid the most toward"], (t) =>
    best(t, "invoices", "s = 'overdue'", "amount_paid", 1),
  ),
  // Unpaid invoices counted per client: Kestrel Robotics three, no one else more than two.
  ...phrasings(2, ["which client has the most unpaid invs rn"], (t) =>
    ranked(
      t,
      `SELECT client AS name, count(*)::text AS n FROM (${INVOICE_VIEW}) v
        WHERE s IN ('open', 'overdue') GROUP BY client ORDER BY count(*) DESC, client`,
      1,
      [t.today],
    ),
  ),
  // Proposal deals by value, ascending: 9,000 (then 11,000).
  ...phrasings(2, ["smallest deal at proposal stage?"], (t) =>
    best(t, "deals", "stage = 'proposal'", "value", 1, "asc"),
  ),
  // Skills per data analyst candidate: Noah Iyer four, Mia Haddad two.
  ...phrasings(2, ["between the data analyst applicants, who lists the most skills"], (t) =>
    ranked(
      t,
      `SELECT c.name, count(s.id)::text AS n FROM candidates c LEFT JOIN skills s ON s.candidate_id = c.id
        WHERE c.org_id = $1 AND c.position = 'Data analyst' GROUP BY c.name ORDER BY count(s.id) DESC, c.name`,
    ),
  ),
  // Inbound communications (any channel) per contact: Jonas Tanaka three, no one else more than two.
  ...phrasings(2, ["who reaches out to us the most"], (t) =>
    ranked(
      t,
      `SELECT c.name, count(*)::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.direction = 'inbound' GROUP BY c.name ORDER BY count(*) DESC, c.name`,
    ),
  ),
  // Received in March by amount: 38,400, 24,000, 16,002.50, 14,400 and 9,601.50 (then 8,750).
  ...phrasings(2, ["top 5 pmts received in march"], (t) =>
    best(t, "payments", within("received_at", ...MARCH), "amount", 5),
  ),
  // Paid invoices by due date, ascending: 2026-02-09 (then 02-20).
  ...phrasings(2, ["among paid invoices which one was due earliest"], (t) =>
    best(t, "invoices", "s = 'paid'", "due_date", 1, "asc"),
  ),
  // Won deals by closed_at, ascending: the dollar win of 2026-02-15 (the others closed 03-18).
  ...phrasings(2, ["what was our first win this year"], (t) =>
    best(t, "deals", "stage = 'won' AND closed_at >= '2026-01-01'", "closed_at", 1, "asc"),
  ),
  // Drafts by due date, ascending: 2026-02-12 (then 04-13).
  ...phrasings(2, ["quick q — which draft is due first"], (t) =>
    best(t, "invoices", "s = 'draft'", "due_date", 1, "asc"),
  ),
  // Issued in March, by amount ascending (every currency): 239.92, 750 and 900 (then 980 USD).
  ...phrasings(2, ["3 smallest invoices issued in march"], (t) =>
    best(t, "invoices", within("issued_at", ...MARCH), "amount", 3, "asc"),
  ),
  // The deal of the latest call (either direction): 2026-03-04, Juniper Health's retainer.
  ...phrasings(2, ["what deal was our latest call abt"], (t) =>
    ranked(
      t,
      `SELECT d.title AS name, m.occurred_at::text AS n FROM communications m JOIN deals d ON d.id = m.deal_id
        WHERE m.org_id = $1 AND m.channel = 'call' ORDER BY m.occurred_at DESC`,
    ),
  ),
  // The contact of the earliest email we sent: 2026-02-05, Jonas Brennan.
  ...phrasings(2, ["who was the first person we ever emailed"], (t) =>
    ranked(
      t,
      `SELECT c.name, m.occurred_at::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.channel = 'email' AND m.direction = 'outbound' ORDER BY m.occurred_at`,
    ),
  ),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Paid invoices' median amount; every standing invoice's median is a wrong answer.
  ...phrasings(3, ["median for the invoices that got paid?"], (t) =>
    aggregate(t.median("invoices", "amount", "s = 'paid'"), t.median("invoices", "amount", STANDING)),
  ),
  // Deals averaged per stage and currency (every stage); the average of every deal is wrong.
  ...phrasings(3, ["avg deal size per stage pls"], async (t) => {
    const present: string[] = [];
    for (const stage of ["lead", "qualified", "proposal", "won", "lost"])
      present.push(...(await t.average("deals", "value", "stage = $3", [stage])));
    if (new Set(present).size !== present.length) throw new Error("two stages with the same average");
    return aggregate(Promise.resolve(present), t.average("deals", "value"));
  }),
  // Denominator: the open deals; the part: those expected to close in May. Every deal as the
  // denominator is a wrong answer.
  ...phrasings(3, ["what fraction of the pipeline is expected to close in may, by # of deals"], (t) =>
    ratioOf(
      t.share("deals", within("expected_close_date", ...MAY), OPEN_DEAL),
      t.share("deals", within("expected_close_date", ...MAY)),
    ),
  ),
  // Helios Energy's standing invoices averaged per currency (the voided one left out); with the
  // void, and every standing invoice's average, are wrong answers.
  ...phrasings(3, ["whats the avg invoice for helios"], (t) =>
    aggregate(
      t.average("invoices", "amount", `client = 'Helios Energy' AND ${STANDING}`),
      t.average("invoices", "amount", "client = 'Helios Energy'"),
      t.average("invoices", "amount", STANDING),
    ),
  ),
  // Denominator: the payments received in March; the part: by direct debit. Every payment as the
  // denominator is a wrong answer.
  ...phrasings(3, ["what % of march payments came by direct debit"], (t) =>
    ratioOf(
      t.share("payments", "method = 'direct_debit'", within("received_at", ...MARCH)),
      t.share("payments", "method = 'direct_debit'"),
    ),
  ),
  // Denominator: the overdue invoices; the part: those in dollars. The unpaid and every invoice as
  // the denominator are wrong answers.
  ...phrasings(3, ["of the overdue bills, what % are usd"], (t) =>
    ratioOf(
      t.share("invoices", "cur = 'USD'", "s = 'overdue'"),
      t.share("invoices", "cur = 'USD'", UNPAID),
      t.share("invoices", "cur = 'USD'"),
    ),
  ),
  // Kestrel Robotics' payments: the lowest and highest per currency (EUR 375 and 38,400; USD 250);
  // their average is a wrong answer.
  ...phrasings(3, ["kestrels smallest n largest payment to us"], async (t) => {
    const kestrel = "client = 'Kestrel Robotics'";
    const low = await t.perCurrency("payments", "min(amount)", kestrel);
    const high = await t.perCurrency("payments", "max(amount)", kestrel);
    return aggregate(
      Promise.resolve([...new Set([...low, ...high])]),
      t.average("payments", "amount", kestrel),
    );
  }),
  // Deals (every stage) expected to close in April: the median value; the average is wrong.
  ...phrasings(3, ["median value of deals expected to close in april"], (t) =>
    aggregate(
      t.median("deals", "value", within("expected_close_date", ...APRIL)),
      t.average("deals", "value", within("expected_close_date", ...APRIL)),
    ),
  ),
  // Denominator: every deal; the part: those with at least one communication logged against them.
  ...phrasings(3, ["what % of deals have had at least one convo logged"], (t) =>
    ratioOf(t.share("deals", "EXISTS (SELECT 1 FROM communications m WHERE m.deal_id = v.id)")),
  ),
  // Standing invoices issued in February averaged (the voided one left out); with it is wrong.
  ...phrasings(3, ["avg invoice we issued in feb"], (t) =>
    aggregate(
      t.average("invoices", "amount", `${STANDING} AND ${within("issued_at", ...FEBRUARY)}`),
      t.average("invoices", "amount", within("issued_at", ...FEBRUARY)),
    ),
  ),
  // Payments received today added up; every payment's total is a wrong answer.
  ...phrasings(3, ["total cash in today"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", t.today, addDays(t.today, 1)), ["true"]),
  ),
  // Denominator: the won deals; the part: those with Helios Energy. Every deal as the denominator
  // is a wrong answer.
  ...phrasings(3, ["what % of our wins were with helios"], (t) =>
    ratioOf(
      t.share("deals", "company = 'Helios Energy'", "stage = 'won'"),
      t.share("deals", "company = 'Helios Energy' AND stage = 'won'"),
    ),
  ),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // Every status, due Monday 03-30 to Sunday 04-05: 03-30, 04-02 and 04-05.
  ...phrasings(4, ["what invoices are due the week after next"], (t) =>
    t.list("invoices", within("due_date", ...WEEK_AFTER_NEXT)),
  ),
  // Every status, due in May: 05-01 and 05-02.
  ...phrasings(4, ["invoices with a due date in may"], (t) => t.list("invoices", within("due_date", ...MAY))),
  // Communications on 2026-03-07 (UTC); the weekend's (with the 8th) and the week's are wrong.
  ...phrasings(4, ["how many touchpoints on march 7th"], (t) =>
    countOf(t, "communications", within("occurred_at", "2026-03-07", "2026-03-08"), [
      within("occurred_at", "2026-03-07", "2026-03-09"),
      within("occurred_at", ...WEEK_BEFORE_LAST),
    ]),
  ),
  // Every status, due 2026-03-20..31: 03-22, 03-23, 03-27 and 03-30.
  ...phrasings(4, ["inv due from the 20th to the end of march"], (t) =>
    t.list("invoices", within("due_date", "2026-03-20", "2026-04-01")),
  ),
  // Outbound emails March 1st to 15th; every email in the window and every outbound email of March
  // are wrong answers.
  ...phrasings(4, ["emails we sent in the first half of march"], (t) =>
    countOf(
      t,
      "communications",
      `channel = 'email' AND direction = 'outbound' AND ${within("occurred_at", "2026-03-01", "2026-03-16")}`,
      [
        `channel = 'email' AND ${within("occurred_at", "2026-03-01", "2026-03-16")}`,
        `channel = 'email' AND direction = 'outbound' AND ${within("occurred_at", ...MARCH)}`,
      ],
    ),
  ),
  // Contacts with a communication (any channel, either direction) on Saturday 03-07 or Sunday 03-08.
  ...phrasings(4, ["which contacts did we deal with over the weekend of mar 7-8"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id
        AND ${within("m.occurred_at", "2026-03-07", "2026-03-09")})`,
    ),
  ),
  // Issued (issued_at) on 2026-03-07.
  ...phrasings(4, ["invoices we issued on mar 7"], (t) =>
    t.list("invoices", within("issued_at", "2026-03-07", "2026-03-08")),
  ),
  // Communications 2026-02-20..28 inclusive; February's and the last week of February (Monday
  // 02-23 to Sunday 03-01, with the 03-01 text) are wrong answers.
  ...phrasings(4, ["how many convos feb 20-28"], (t) =>
    countOf(t, "communications", within("occurred_at", "2026-02-20", "2026-03-01"), [
      within("occurred_at", ...FEBRUARY),
      within("occurred_at", "2026-02-23", "2026-03-02"),
    ]),
  ),
  // Contacts with a meeting (either direction) in February.
  ...phrasings(4, ["which contact did we meet in february"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'meeting'
        AND ${within("m.occurred_at", ...FEBRUARY)})`,
    ),
  ),
  // Inbound emails from 2026-03-10 to now; every inbound email and all emails since are wrong.
  ...phrasings(4, ["inbound emails since the 10th — how many"], (t) =>
    countOf(
      t,
      "communications",
      `channel = 'email' AND direction = 'inbound' AND occurred_at >= '2026-03-10'`,
      ["channel = 'email' AND direction = 'inbound'", "channel = 'email' AND occurred_at >= '2026-03-10'"],
    ),
  ),
  // Received 2026-02-01..03-05 inclusive: 02-10 and 03-05.
  ...phrasings(4, ["pmts recieved between feb 1 and mar 5"], (t) =>
    t.list("payments", within("received_at", "2026-02-01", "2026-03-06")),
  ),
  // By expected_close_date, April 1st to 10th inclusive: 04-03 and 04-10.
  ...phrasings(4, ["anything slated to close in the first 10 days of april"], (t) =>
    t.list("deals", within("expected_close_date", "2026-04-01", "2026-04-11")),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  // Candidates with no TypeScript skill (at any level or status).
  ...phrasings(5, ["which candidates don't have any typescript"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.name = 'TypeScript')",
    ),
  ),
  // Customers (lifecycle stage) with no outbound communication in March.
  ...phrasings(5, ["customers we haven't reached out to this month"], (t) =>
    t.list(
      "contacts",
      `lifecycle_stage = 'customer' AND NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id
        AND m.direction = 'outbound' AND ${within("m.occurred_at", ...MARCH)})`,
    ),
  ),
  // Contacts with no inbound email (outbound ones do not count).
  ...phrasings(5, ["who has never sent us an email"], (t) =>
    t.list(
      "contacts",
      `NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'email'
        AND m.direction = 'inbound')`,
    ),
  ),
  // Received on another day than today: 01-15, 02-10 and 03-05.
  ...phrasings(5, ["pmts that didnt land today"], (t) =>
    t.list("payments", `NOT (${within("received_at", t.today, addDays(t.today, 1))})`),
  ),
  // Paid invoices with no bank transfer among their payments (both paid by direct debit).
  ...phrasings(5, ["settled invoices that didnt come in via bank transfer"], (t) =>
    t.list(
      "invoices",
      "s = 'paid' AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.invoice_id = v.id AND p.method = 'bank_transfer')",
    ),
  ),
  // Products on no draft's line items; those on a draft are absent.
  ...phrasings(5, ["which products aren't on any of our drafts"], async (t) => {
    const onDrafts = await productsOn(t, "v.s = 'draft'");
    return { present: onDrafts.absent!, absent: onDrafts.present };
  }),
  ...phrasings(5, ["invoices that have no line items"], (t) =>
    t.list("invoices", "jsonb_array_length(coalesce(line_items, '[]'::jsonb)) = 0"),
  ),
  // Clients (of invoices) none of whose invoices is paid; those with a paid one are absent.
  ...phrasings(5, ["clients who haven't fully paid off a single invoice"], async (t) => {
    const clients = await t.sql<{ client: string; paid: boolean }>(
      "SELECT client, bool_or(status = 'paid') AS paid FROM invoices WHERE org_id = $1 GROUP BY 1 ORDER BY 1",
    );
    const present = clients.filter((c) => !c.paid).map((c) => c.client);
    if (present.length === 0) throw new Error("every client has paid an invoice");
    return { present, absent: clients.filter((c) => c.paid).map((c) => c.client) };
  }),
  // Communications without a subject (texts and calls); those with one are the wrong count.
  ...phrasings(5, ["how many logged comms have no subject line"], (t) =>
    countOf(t, "communications", "coalesce(subject, '') = ''", ["coalesce(subject, '') <> ''", "true"]),
  ),
  // Won deals whose contact's company is not Helios Energy.
  ...phrasings(5, ["wins that weren't with helios"], (t) =>
    t.list("deals", "stage = 'won' AND company IS DISTINCT FROM 'Helios Energy'"),
  ),
  // Candidates for Data analyst or Account executive.
  ...phrasings(5, ["applicants for roles other than backend and product design"], (t) =>
    t.list("candidates", "position NOT IN ('Backend engineer', 'Product designer')"),
  ),
  // Issued in March and not paid (open or overdue).
  ...phrasings(5, ["this month's invoices that havent been paid"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("issued_at", ...MARCH)}`),
  ),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // What is owed on Meridian Legal's one unpaid invoice (120.92); its amount is a wrong answer.
  ...phrasings(6, ["whats left to pay on meridian's open invoice"], async (t) => {
    const row = await only(t, "invoices", `client = 'Meridian Legal' AND ${UNPAID}`);
    return {
      present: [t.money(String(row.owed), String(row.cur))],
      absent: [t.money(String(row.amount), String(row.cur))],
    };
  }),
  // Helios Energy's open or overdue invoices; the paid and the voided ones are absent.
  ...phrasings(6, ["does helios have any bills outstanding"], (t) =>
    t.list("invoices", `client = 'Helios Energy' AND ${UNPAID}`),
  ),
  // The contact the invoice is made out to; the other contacts are absent.
  ...phrasings(6, ["who's the contact person on inv-000021"], async (t) => {
    const row = await only(t, "invoices", "number = 'INV-000021'");
    return lookup(t, "contacts", "id = $3", [row.contact_id]);
  }),
  // Her first meeting's day (2026-03-13); the later one and her first communication of any kind
  // (our intro email) are absent.
  ...phrasings(6, ["when was our first meeting with mia schmidt"], async (t) => {
    const meetings = firstDay(await days(t, "Mia Schmidt", "m.channel = 'meeting'", "asc"));
    const any = await days(t, "Mia Schmidt", "true", "asc");
    return {
      present: meetings.present,
      absent: besides(meetings.present, [...meetings.absent!, ...any.slice(0, 2)]),
    };
  }),
  // The day one candidate's one skill was verified.
  ...phrasings(6, ["when was ava okafor's sql verified"], async (t) => {
    const row = await only(t, "skills", "candidate_name = 'Ava Okafor' AND name = 'SQL'");
    const day = await t.value(
      "SELECT to_char(verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM skills WHERE org_id = $1 AND id = $2",
      [row.id],
    );
    if (!day) throw new Error("not verified");
    return { present: [day] };
  }),
  // Paid on INV-000009 (one payment of 2,000); what is still owed is a wrong answer.
  ...phrasings(6, ["what's come in against inv 9"], async (t) => {
    const row = await only(t, "invoices", "number = 'INV-000009'");
    const paid = await t.total("payments", "amount", "invoice_number = 'INV-000009'");
    if (paid.length !== 1 || paid[0] !== t.money(String(row.amount_paid), String(row.cur)))
      throw new Error("payments and amount_paid disagree");
    return { present: paid, absent: [t.money(String(row.owed), String(row.cur))] };
  }),
  // The contact's email address.
  ...phrasings(6, ["whats liam haddad's email again"], async (t) => {
    const row = await only(t, "contacts", "name = 'Liam Haddad'");
    return { present: [row.email!] };
  }),
  // The contact whose company is Riverbend Coffee.
  ...phrasings(6, ["remind me, who's our contact at riverbend"], (t) =>
    lookup(t, "contacts", "company = 'Riverbend Coffee'"),
  ),
  // The product on INV-000016's line items; the other products are absent.
  ...phrasings(6, ["what did we bill on inv-000016"], (t) => productsOn(t, "v.number = 'INV-000016'")),
  // Outbound emails to him; every communication with him is a wrong answer.
  ...phrasings(6, ["how many emails have we sent theo novak"], (t) =>
    countOf(
      t,
      "communications",
      "contact_name = 'Theo Novak' AND channel = 'email' AND direction = 'outbound'",
      ["contact_name = 'Theo Novak'", "contact_name = 'Theo Novak' AND channel = 'email'"],
    ),
  ),
  // The products on Solstice Travel's invoices (every status); the others are absent.
  ...phrasings(6, ["what did we sell to solstice travel"], (t) =>
    productsOn(t, "v.client = 'Solstice Travel'"),
  ),
  // Invoices with an Onboarding workshop line.
  ...phrasings(6, ["which invoices include the onboarding workshop"], (t) =>
    t.list("invoices", `line_items @> '[{"description": "Onboarding workshop"}]'::jsonb`),
  ),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  // Drafts for Northwind Traders: 19,200 and 119.96; Quanta's draft is out.
  ...followUps(["pull up my drafts"], ["which ones are for northwind"], (t) =>
    t.list("invoices", "s = 'draft' AND client = 'Northwind Traders'"),
  ),
  // The lead-stage deals added up; every open deal's total is a wrong answer.
  ...followUps(["open opps pls", "just leads"], ["whats the combined value"], (t) =>
    totalOf(t, "deals", "value", "stage = 'lead'", [OPEN_DEAL, "true"]),
  ),
  // Account executive candidates with a German skill.
  ...followUps(["account exec candidates"], ["which of them speak german"], (t) =>
    t.list(
      "candidates",
      "position = 'Account executive' AND EXISTS (SELECT 1 FROM skills s WHERE s.candidate_id = v.id AND s.name = 'German')",
    ),
  ),
  // Payments received before today, by card: 02-10's 1,000 and 03-05's 250 USD.
  ...followUps(["payments received before today"], ["which were by card"], (t) =>
    t.list("payments", `method = 'card' AND received_at < '${t.today}'`),
  ),
  // Prospects (lifecycle stage) with a deal at proposal.
  ...followUps(["show me our prospects"], ["which ones have a deal at proposal stage"], (t) =>
    t.list(
      "contacts",
      "lifecycle_stage = 'prospect' AND EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id AND d.stage = 'proposal')",
    ),
  ),
  // The contact of the won deal worth the most (19,500): Ravi Okafor.
  ...followUps(["deals we closed as won"], ["whos the contact on the biggest one"], (t) =>
    ranked(
      t,
      `SELECT c.name, d.value::text AS n FROM deals d JOIN contacts c ON c.id = d.contact_id
        WHERE d.org_id = $1 AND d.stage = 'won' ORDER BY d.value DESC`,
    ),
  ),
  // Emails logged against the Northwind renewal deals; every communication on them and every email
  // are wrong answers.
  ...followUps(["communications about the northwind renewal", "only emails"], ["how many of those"], (t) => {
    const renewal =
      "deal_id IN (SELECT d.id FROM deals d WHERE d.title = 'Annual support renewal — Northwind Traders')";
    return countOf(t, "communications", `${renewal} AND channel = 'email'`, [renewal, "channel = 'email'"]);
  }),
  // Issued in March, in dollars, the larger: 1,250.50 (the other 980).
  ...followUps(["stuff we invoiced in march", "which r in dollars"], ["the larger one?"], (t) =>
    best(t, "invoices", `cur = 'USD' AND ${within("issued_at", ...MARCH)}`, "amount", 1),
  ),
  // Sofia Lindqvist's expert-level skills: Prototyping.
  ...followUps(["sofia lindqvist skills"], ["anything at expert?"], (t) =>
    t.list("skills", "candidate_name = 'Sofia Lindqvist' AND level = 'expert'"),
  ),
  // Paid invoices' average amount; their median and every standing invoice's average are wrong.
  ...followUps(["invoices that r paid in full"], ["avg amount?"], (t) =>
    aggregate(
      t.average("invoices", "amount", "s = 'paid'"),
      t.median("invoices", "amount", "s = 'paid'"),
      t.average("invoices", "amount", STANDING),
    ),
  ),
  // His first inbound communication's day (2026-03-02); the first of all (our intro email) absent.
  ...followUps(
    ["everything we've logged with jonas tanaka", "just what he sent us"],
    ["when was the earliest"],
    async (t) => {
      const first = firstDay(await days(t, "Jonas Tanaka", "m.direction = 'inbound'", "asc"));
      const any = await days(t, "Jonas Tanaka", "true", "asc");
      return {
        present: first.present,
        absent: besides(first.present, [...any.slice(0, 1), ...first.absent!]),
      };
    },
  ),
  // Juniper Health's invoices except the paid one, added up; all of theirs is a wrong answer.
  ...followUps(["juniper health invoices", "drop the paid one"], ["add up the rest"], (t) =>
    totalOf(t, "invoices", "amount", "client = 'Juniper Health' AND s <> 'paid'", [
      "client = 'Juniper Health'",
    ]),
  ),
];

export const holdout7: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
