import { addDays, followUps, phrasings, type Case, type Expectation, type Q } from "./grade.ts";
import {
  within,
  aggregate,
  ratio,
  countOf,
  totalOf,
  only,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  JANUARY,
  FEBRUARY,
  MARCH,
  MAY,
  LAST_WEEK,
  THIS_WEEK,
  Q1,
  YEAR,
} from "./truths.ts";

/**
 * The SECOND HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven categories
 * of the phrasing exam, written without reading the planner, in the words an owner types (lower
 * case, typos, abbreviations, slang, with or without punctuation), none of them copied from
 * cases-1-3.ts, cases-4-5.ts, cases-6-7.ts or cases-holdout.ts. The conventions are grade.ts's;
 * every truth is computed from the tables when the test runs, and a truth that would be empty,
 * tied or ambiguous throws (the exam's own fault, reported apart). Today is 2026-03-18, a
 * Wednesday: this week is 2026-03-16..22, last week 2026-03-09..15, this month March, Q1 January
 * to March.
 */

/** Invoices that stand: issued and not cancelled (for "every invoice" aggregates). */

/** A top-N whose answer must also carry `extra` (its amount). */
const topWith = async (t: Q, args: Parameters<Q["top"]>, extra: (t: Q) => Promise<string[]>) => {
  const found = await t.top(...args);
  return { present: [...found.present, ...(await extra(t))], absent: found.absent };
};

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

/** A deal named by its contact or its company: its title and `field`. */
const dealField =
  (where: string, field: "stage" | "value" | "expected_close_date"): Case["expect"] =>
  async (t) => {
    const deal = await only(t, "deals", where);
    const value =
      field === "value"
        ? t.money(deal.value!, deal.cur!)
        : field === "expected_close_date"
          ? await t.value("SELECT expected_close_date::text FROM deals WHERE org_id = $1 AND id = $2", [
              deal.id,
            ])
          : deal[field];
    if (!value) throw new Error(`the deal where ${where} has no ${field}`);
    return { present: [deal.title!, value] };
  };

/** A candidate by name: the name and a field. */
const candidateField =
  (name: string, field: "position" | "status" | "source"): Case["expect"] =>
  async (t) => {
    const row = await only(t, "candidates", "name = $3", [name]);
    const value = row[field];
    if (!value) throw new Error(`${name} has no ${field}`);
    return { present: [name, value] };
  };

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Inclusive: the two 9,600.00 invoices are in. Owed >= 9600 selects the same six.
  ...phrasings(1, ["unpaid inv of 9600 or more"], (t) => t.list("invoices", `${UNPAID} AND amount >= 9600`)),
  // Strict, every stage and currency: the 3,000 lost deal is out, both 2,500 deals in.
  ...phrasings(1, ["show deals smaller than 3k"], (t) => t.list("deals", "value < 3000")),
  // Every currency: the 250.00 USD payment is in.
  ...phrasings(1, ["any payments smaller than 400?"], (t) => t.list("payments", "amount < 400")),
  ...phrasings(1, ["whats priced above 3k in our product list"], (t) => t.list("products", "price > 3000")),
  // A euro sign restricts to EUR (the USD invoices are small anyway).
  ...phrasings(1, ["inv over €30,000"], (t) => t.list("invoices", "cur = 'EUR' AND amount > 30000")),
  // Open deals, inclusive at 11,500 (the 11,000 deal is out).
  ...phrasings(1, ["open deals 11.5k and up"], (t) => t.list("deals", `${OPEN_DEAL} AND value >= 11500`)),
  ...phrasings(1, ["wins bigger than 10k"], (t) => t.list("deals", "stage = 'won' AND value > 10000")),
  // Inclusive: the 14,400.00 paid invoice is in.
  ...phrasings(1, ["paid inv >= 14400"], (t) => t.list("invoices", "s = 'paid' AND amount >= 14400")),
  // "btwn" is inclusive: the 2,000 payment is in.
  ...phrasings(1, ["payments btwn 2k and 10k"], (t) => t.list("payments", "amount BETWEEN 2000 AND 10000")),
  // Open deals with an expected close date before 2026-04-01 (one of them is already past).
  ...phrasings(1, ["open deals w/ a close date before april"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date < '2026-04-01'`),
  ),
  ...phrasings(1, ["draft inv above 10k?"], (t) => t.list("invoices", "status = 'draft' AND amount > 10000")),
  // Due strictly before 2026-02-15.
  ...phrasings(1, ["overdue bills due before feb 15"], (t) =>
    t.list("invoices", "s = 'overdue' AND due_date < '2026-02-15'"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Billed = invoiced: standing invoices summed per client in EUR (Larkspur well ahead; adding the
  // drafts or the USD invoices changes no rank at the top).
  ...phrasings(2, ["which client have we billed the most"], (t) =>
    leader(
      t,
      `SELECT client AS name, sum(amount)::text AS n FROM invoices
        WHERE org_id = $1 AND status IN ('open', 'paid') AND trim(currency) = 'EUR'
        GROUP BY 1 ORDER BY sum(amount) DESC`,
    ),
  ),
  ...phrasings(2, ["2 smallest deals in the pipeline"], (t) => t.top("deals", OPEN_DEAL, "value", 2, "asc")),
  // Unverified = not verified (claimed), counted per candidate.
  ...phrasings(2, ["who has the most unverified skills"], (t) =>
    leader(
      t,
      `SELECT c.name, count(*)::text AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND s.status <> 'verified' GROUP BY c.name ORDER BY count(*) DESC, c.name`,
    ),
  ),
  // What is left to pay (owed) on each unpaid invoice.
  ...phrasings(2, ["which 3 invoices have the most left to pay"], (t) =>
    t.top("invoices", UNPAID, "owed", 3),
  ),
  ...phrasings(2, ["2 lowest priced things we sell"], (t) => t.top("products", "true", "price", 2, "asc")),
  // Still in the process (neither hired nor rejected), the earliest to apply.
  ...phrasings(2, ["who's been in our hiring pipeline the longest"], (t) =>
    t.top("candidates", "status NOT IN ('hired', 'rejected')", "created_at", 1, "asc"),
  ),
  // Outbound emails, the latest one's contact.
  ...phrasings(2, ["who did we send the last email to"], (t) =>
    leader(
      t,
      `SELECT c.name, m.occurred_at::text AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND m.channel = 'email' AND m.direction = 'outbound' ORDER BY m.occurred_at DESC`,
    ),
  ),
  ...phrasings(2, ["biggest usd deal"], (t) =>
    topWith(t, ["deals", "cur = 'USD'", "value", 1], (q) =>
      q.perCurrency("deals", "max(value)", "cur = 'USD'"),
    ),
  ),
  ...phrasings(2, ["overdue inv with the least left to pay"], (t) =>
    t.top("invoices", "s = 'overdue'", "owed", 1, "asc"),
  ),
  // Counted by candidate: TypeScript is held by four, every other skill by three or fewer.
  ...phrasings(2, ["what skill do the most candidates have"], (t) =>
    leader(
      t,
      `SELECT name, count(DISTINCT candidate_id)::text AS n FROM skills WHERE org_id = $1
        GROUP BY name ORDER BY count(DISTINCT candidate_id) DESC, name`,
    ),
  ),
  ...phrasings(2, ["whats the biggest bank transfer we've received"], (t) =>
    t.top("payments", "method = 'bank_transfer'", "amount", 1),
  ),
  ...phrasings(2, ["our 2 biggest wins"], (t) => t.top("deals", "stage = 'won'", "value", 2)),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Card payments per currency; the average of every payment is a wrong answer.
  ...phrasings(3, ["avg card payment amt"], (t) =>
    aggregate(t.average("payments", "amount", "method = 'card'"), t.average("payments", "amount")),
  ),
  // Median (not the average) of won deals, per currency.
  ...phrasings(3, ["median won deal size"], (t) =>
    aggregate(t.median("deals", "value", "stage = 'won'"), t.average("deals", "value", "stage = 'won'")),
  ),
  // Received in March, per currency; the largest ones are a wrong answer.
  ...phrasings(3, ["min payment amount this month"], (t) =>
    aggregate(
      t.perCurrency("payments", "min(amount)", within("received_at", ...MARCH)),
      t.perCurrency("payments", "max(amount)", within("received_at", ...MARCH)),
    ),
  ),
  // Denominator: every invoice (32, drafts and voids included), as the words say.
  ...phrasings(3, ["out of all our invoices how many % are overdue"], (t) =>
    ratio(t.share("invoices", "s = 'overdue'")),
  ),
  // Denominator: every candidate.
  ...phrasings(3, ["what percent of candidates came thru referrals"], (t) =>
    ratio(t.share("candidates", "source = 'referral'")),
  ),
  // Denominator: every skill.
  ...phrasings(3, ["how many of our skills are expert level, as a %"], (t) =>
    ratio(t.share("skills", "level = 'expert'")),
  ),
  // Not due yet = the shown status open; the balance is what is owed. The largest over every
  // unpaid invoice is a wrong answer.
  ...phrasings(3, ["biggest balance on invoices that arent due yet"], (t) =>
    aggregate(
      t.perCurrency("invoices", "max(owed)", "s = 'open'"),
      t.perCurrency("invoices", "max(owed)", UNPAID),
    ),
  ),
  ...phrasings(3, ["average price of products over 1k"], (t) =>
    aggregate(t.average("products", "price", "price > 1000"), t.average("products", "price")),
  ),
  ...phrasings(3, ["median inv amt for overdue ones"], (t) =>
    aggregate(
      t.median("invoices", "amount", "s = 'overdue'"),
      t.average("invoices", "amount", "s = 'overdue'"),
      t.median("invoices", "amount", STANDING),
    ),
  ),
  // Communications counted per calendar month of occurred_at; the year's count is a wrong answer.
  ...phrasings(3, ["how many comms per month this year"], async (t) => {
    const present = await perMonth(t, "communications", "occurred_at");
    const all = t.bold(await t.count("communications", within("occurred_at", ...YEAR)));
    return { present, absent: present.includes(all) ? [] : [all] };
  }),
  // Standing invoices in USD; the EUR average is a wrong answer.
  ...phrasings(3, ["whats our typical invoice in usd, on average"], (t) =>
    aggregate(
      t.average("invoices", "amount", `${STANDING} AND cur = 'USD'`),
      t.average("invoices", "amount", STANDING),
    ),
  ),
  // Denominator: the open deals (the pipeline).
  ...phrasings(3, ["of the open deals what % are at proposal"], (t) =>
    ratio(t.share("deals", "stage = 'proposal'", OPEN_DEAL)),
  ),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // Issued by issued_at in 2026-03-01..07 (the Monday week 2026-03-02..08 has the same five).
  ...phrasings(4, ["invoices sent 1st week of march"], (t) =>
    t.list("invoices", within("issued_at", "2026-03-01", "2026-03-08")),
  ),
  // Received from 2026-02-01 to today; the quarter's (with January's) is a wrong answer. March's
  // alone is not absent: a correct reply may break the sum down by month.
  ...phrasings(4, ["how much cash came in since feb 1st"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", "2026-02-01", addDays(t.today, 1)), [
      within("received_at", ...Q1),
    ]),
  ),
  // Open (not yet due) invoices due today..2026-03-28: the one due 2026-03-30 is out, and so are
  // the paid and void ones due in the window.
  ...phrasings(4, ["anything coming due in the next 10 days?"], (t) =>
    t.list("invoices", "s = 'open' AND due_date BETWEEN $2::date AND $3::date", [addDays(t.today, 10)]),
  ),
  // Closed (won or lost) by closed_at in March: the deal won in February is out.
  ...phrasings(4, ["which deals did we close this month, won or lost"], (t) =>
    t.list("deals", `stage IN ('won', 'lost') AND ${within("closed_at", ...MARCH)}`),
  ),
  // Open deals by expected_close_date, inclusive at both ends.
  ...phrasings(4, ["deals expected to close apr 15 - 30"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date BETWEEN '2026-04-15' AND '2026-04-30'`),
  ),
  // Hired by hired_at, this calendar year.
  ...phrasings(4, ["hires so far this yr"], (t) =>
    t.list("candidates", `status = 'hired' AND ${within("hired_at", ...YEAR)}`),
  ),
  // Applied = created_at, January and February.
  ...phrasings(4, ["anyone apply in jan or feb?"], (t) =>
    t.list("candidates", within("created_at", JANUARY[0], FEBRUARY[1])),
  ),
  // Verified by verified_at this week; SQL (verified 45 days ago) is out.
  ...phrasings(4, ["skills that got verified this wk"], (t) =>
    t.list("skills", `status = 'verified' AND ${within("verified_at", ...THIS_WEEK)}`),
  ),
  // Texts = SMS; "we send" = outbound; March by occurred_at.
  ...phrasings(4, ["how many texts did we send in march"], (t) =>
    countOf(
      t,
      "communications",
      `channel = 'sms' AND direction = 'outbound' AND ${within("occurred_at", ...MARCH)}`,
      ["channel = 'sms'", `channel = 'sms' AND ${within("occurred_at", ...MARCH)}`],
    ),
  ),
  // Last week is Monday 2026-03-09..Sunday 2026-03-15.
  ...phrasings(4, ["meetings we had last wk?"], (t) =>
    countOf(t, "communications", `channel = 'meeting' AND ${within("occurred_at", ...LAST_WEEK)}`, [
      "channel = 'meeting'",
      `channel = 'meeting' AND ${within("occurred_at", ...MARCH)}`,
    ]),
  ),
  // One day, by received_at.
  ...phrasings(4, ["payments on the 5th of march"], (t) =>
    t.list("payments", within("received_at", "2026-03-05", "2026-03-06")),
  ),
  // Went past due this month: overdue, due in March (before today).
  ...phrasings(4, ["which invoices went past due this month"], (t) =>
    t.list("invoices", `s = 'overdue' AND ${within("due_date", ...MARCH)}`),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  ...phrasings(5, ["overdue inv other than larkspur and acme"], (t) =>
    t.list("invoices", "s = 'overdue' AND client NOT IN ('Larkspur Foods', 'Acme Logistics')"),
  ),
  // Open deals only: the won deal without a date is out.
  ...phrasings(5, ["pipeline deals missing a close date"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date IS NULL`),
  ),
  // Replied = an inbound communication; contacts never written to have not replied either.
  ...phrasings(5, ["contacts that never replied to us"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.direction = 'inbound')",
    ),
  ),
  ...phrasings(5, ["candidates that arent backend engineers"], (t) =>
    t.list("candidates", "position IS DISTINCT FROM 'Backend engineer'"),
  ),
  ...phrasings(5, ["verified skills other than typescript"], (t) =>
    t.list("skills", "status = 'verified' AND name <> 'TypeScript'"),
  ),
  ...phrasings(5, ["payments excluding kestrel robotics"], (t) =>
    t.list("payments", "client <> 'Kestrel Robotics'"),
  ),
  // Communications have no label: the count; every one's and the outbound ones' counts absent.
  ...phrasings(5, ["how many communications werent outbound"], (t) =>
    countOf(t, "communications", "direction IS DISTINCT FROM 'outbound'", ["true", "direction = 'outbound'"]),
  ),
  // Clients (of invoices) with no open or overdue invoice; those who owe something are absent.
  ...phrasings(5, ["which clients dont owe us anything"], async (t) => {
    const clients = await t.sql<{ client: string; owes: boolean }>(
      `SELECT client, bool_or(status = 'open') AS owes FROM invoices WHERE org_id = $1 GROUP BY 1 ORDER BY 1`,
    );
    const present = clients.filter((c) => !c.owes).map((c) => c.client);
    if (present.length === 0) throw new Error("every client owes something");
    return { present, absent: clients.filter((c) => c.owes).map((c) => c.client) };
  }),
  ...phrasings(5, ["payments that werent card or bank transfer"], (t) =>
    t.list("payments", "method NOT IN ('card', 'bank_transfer')"),
  ),
  ...phrasings(5, ["contacts other than leads n prospects"], (t) =>
    t.list("contacts", "lifecycle_stage NOT IN ('lead', 'prospect')"),
  ),
  ...phrasings(5, ["contacts we havent had a meeting with"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'meeting')",
    ),
  ),
  // Open deals past the lead stage: qualified or proposal.
  ...phrasings(5, ["open deals that arent just leads"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND stage <> 'lead'`),
  ),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // A deal by its contact (Zoe Okafor has one deal).
  ...phrasings(6, ["how much is zoe okafors deal worth"], dealField("contact_name = 'Zoe Okafor'", "value")),
  ...phrasings(
    6,
    ["where do things stand w liam haddads deal"],
    dealField("contact_name = 'Liam Haddad'", "stage"),
  ),
  // A deal by its company (Oakridge Builders has one deal).
  ...phrasings(
    6,
    ["oakridge data migration - expected close?"],
    dealField("company = 'Oakridge Builders'", "expected_close_date"),
  ),
  // Every communication with him, any channel and direction.
  ...phrasings(6, ["how many times have we been in touch w theo novak"], async (t) => {
    const n = await t.count("communications", "contact_name = 'Theo Novak'");
    if (n === 0) throw new Error("no communication with Theo Novak");
    const all = await t.count("communications");
    return { present: ["Theo Novak", t.bold(n)], absent: [t.bold(all)] };
  }),
  // Her latest inbound email (2026-03-12); her latest communication (a meeting, 2026-03-14) is a
  // wrong answer. Her outbound emails' days are not absent: a reply may list both directions.
  ...phrasings(6, ["last email we got from mia schmidt"], async (t) => {
    const day = (where: string) =>
      t.value(
        `SELECT to_char(max(m.occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM communications m
          JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1 AND c.name = 'Mia Schmidt' AND (${where})`,
      );
    const right = await day("m.channel = 'email' AND m.direction = 'inbound'");
    if (!right) throw new Error("no inbound email from Mia Schmidt");
    const latest = await day("true");
    return { present: ["Mia Schmidt", right], absent: latest && latest !== right ? [latest] : [] };
  }),
  ...phrasings(6, ["list blue fjord studio's payments"], (t) =>
    t.list("payments", "client = 'Blue Fjord Studio'"),
  ),
  // Received from Kestrel, per currency; every client's total is a wrong answer.
  ...phrasings(6, ["how much has kestrel paid us so far"], async (t) => {
    const found = await totalOf(t, "payments", "amount", "client = 'Kestrel Robotics'", ["true"]);
    return { present: ["Kestrel Robotics", ...found.present], absent: found.absent };
  }),
  // What is owed on its unpaid invoices (its drafts were never issued); every client's balance and
  // the balance with the drafts are wrong answers. The invoice's full amount is not absent: a
  // correct reply may show it beside what is left.
  ...phrasings(6, ["whats northwind traders still owe"], async (t) => {
    const client = "client = 'Northwind Traders'";
    const found = await totalOf(t, "invoices", "owed", `${UNPAID} AND ${client}`, [
      UNPAID,
      `status <> 'paid' AND ${client}`,
    ]);
    return { present: ["Northwind Traders", ...found.present], absent: found.absent };
  }),
  ...phrasings(6, ["what job is yara kowalski applying for"], candidateField("Yara Kowalski", "position")),
  ...phrasings(6, ["what skills does liam moreau have"], (t) =>
    t.list("skills", "candidate_name = 'Liam Moreau'"),
  ),
  ...phrasings(6, ["which of mia haddads skills are verified"], (t) =>
    t.list("skills", "candidate_name = 'Mia Haddad' AND status = 'verified'"),
  ),
  // Jonas Tanaka's three deals (two share a title).
  ...phrasings(6, ["deals tied to jonas tanaka"], (t) => t.list("deals", "contact_name = 'Jonas Tanaka'")),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  // The average of the won deals, per currency, not of every deal.
  ...followUps(["list the deals we've won"], ["and the avg size of those?"], (t) =>
    aggregate(t.average("deals", "value", "stage = 'won'"), t.average("deals", "value")),
  ),
  // Still active = neither hired nor rejected, among the product designers.
  ...followUps(
    ["list all applicants", "just product designers pls"],
    ["which of them are still active"],
    (t) => t.list("candidates", "position = 'Product designer' AND status NOT IN ('hired', 'rejected')"),
  ),
  // March's bank transfers added up; March's total and every bank transfer's are wrong answers.
  ...followUps(["payments in march", "only the bank transfers"], ["how much is that in total"], (t) =>
    totalOf(t, "payments", "amount", `method = 'bank_transfer' AND ${within("received_at", ...MARCH)}`, [
      within("received_at", ...MARCH),
      "method = 'bank_transfer'",
    ]),
  ),
  // "open" is the shown status: Kestrel's overdue invoice is out.
  ...followUps(["invoices that are open"], ["any from kestrel?"], (t) =>
    t.list("invoices", "s = 'open' AND client = 'Kestrel Robotics'"),
  ),
  ...followUps(["verified skills"], ["just liam moreaus"], (t) =>
    t.list("skills", "status = 'verified' AND candidate_name = 'Liam Moreau'"),
  ),
  // Priority customers counted; every priority contact's and every customer's counts absent.
  ...followUps(["contacts tagged priority"], ["how many of them are customers"], (t) =>
    countOf(t, "contacts", "lifecycle_stage = 'customer' AND 'priority' = ANY(coalesce(tags, '{}'))", [
      "'priority' = ANY(coalesce(tags, '{}'))",
      "lifecycle_stage = 'customer'",
    ]),
  ),
  ...followUps(["deals w expected close in may"], ["only the ones at lead stage"], (t) =>
    t.list("deals", `stage = 'lead' AND ${within("expected_close_date", ...MAY)}`),
  ),
  ...followUps(["invoices we sent in jan"], ["which got paid"], (t) =>
    t.list("invoices", `s = 'paid' AND ${within("issued_at", ...JANUARY)}`),
  ),
  ...followUps(["payments above 5000"], ["just direct debits"], (t) =>
    t.list("payments", "amount > 5000 AND method = 'direct_debit'"),
  ),
  // The proposal-stage deals' value added up; the whole pipeline's is a wrong answer.
  ...followUps(["deals at proposal"], ["add them up"], (t) =>
    totalOf(t, "deals", "value", "stage = 'proposal'", [OPEN_DEAL, "true"]),
  ),
  ...followUps(["outstanding invoices", "only > 5k"], ["the ones issued in feb?"], (t) =>
    t.list("invoices", `${UNPAID} AND amount > 5000 AND ${within("issued_at", ...FEBRUARY)}`),
  ),
  // Inbound emails in March counted; March's emails and every inbound email are wrong answers.
  ...followUps(["emails this month"], ["how many were inbound"], (t) =>
    countOf(
      t,
      "communications",
      `channel = 'email' AND direction = 'inbound' AND ${within("occurred_at", ...MARCH)}`,
      [
        `channel = 'email' AND ${within("occurred_at", ...MARCH)}`,
        "channel = 'email' AND direction = 'inbound'",
      ],
    ),
  ),
];

export const holdout2: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
