import { followUps, phrasings, type Case, type Expectation, type Q } from "./grade.ts";
import {
  aggregate,
  besides,
  best,
  countOf,
  only,
  totalOf,
  within,
  type Row,
  must,
  shareOf,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  STAGES,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  YESTERDAY,
  LAST_WEEK,
  THIS_WEEK,
  WEEK_AFTER_NEXT,
} from "./truths.ts";

/**
 * The SIXTEENTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven
 * categories of the phrasing exam, written blind (without reading the planner, its documentation,
 * its tests, the other exams' questions or the planner's answers, and without running it on them),
 * the way a busy owner types into a chat between two jobs: lower case, typos, abbreviations,
 * filler, run-on sentences, asides. The conventions are grade.ts's; every truth is computed from the
 * tables when the test runs, and a truth that would be empty, tied or ambiguous throws (the exam's
 * own fault, reported apart). Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22 (Monday
 * start), last week 2026-03-09..15, next week 2026-03-23..29 and the week after next
 * 2026-03-30..2026-04-05; yesterday 2026-03-17; this month March, last month February, next month
 * April, this quarter q1 (January to March), this year 2026. "More than 2 weeks past due" is due
 * before 2026-03-04, "sent more than 60 days ago" issued before 2026-01-17.
 */

/** A timestamp column as the organization's day (UTC), YYYY-MM-DD, in SQL. */
const dayOf = (column: string) => `to_char((${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/**
 * The one name ranked first by `text` (rows of `name` and `n`, best first); throws on no rows or a
 * tie for first place. The runner-up is absent unless it ties with the next one (naming one of
 * several tied would be arbitrary).
 */
const leader = async (t: Q, text: string): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  const second = rows[1];
  const clear = second && (rows.length < 3 || String(rows[2]!.n) !== String(second.n));
  return { present: [rows[0]!.name], absent: clear ? [second.name] : [] };
};

/**
 * The invoices' clients split by `matches` (an SQL boolean over one client's invoices, as an
 * aggregate: `bool_or(…)` etc.): those for which it holds present, the others absent.
 */
const clientsWhere = async (t: Q, matches: string): Promise<Expectation> => {
  const clients = await t.sql<{ client: string; hit: boolean }>(
    `SELECT client, coalesce(${matches}, false) AS hit FROM (
        SELECT i.*, CASE WHEN i.status = 'open' AND i.due_date < $2::date THEN 'overdue' ELSE i.status END AS s
          FROM invoices i WHERE i.org_id = $1) v
      GROUP BY client ORDER BY client`,
    [t.today],
  );
  const present = clients.filter((c) => c.hit).map((c) => c.client);
  if (present.length === 0) throw new Error(`no client where ${matches}`);
  return { present, absent: clients.filter((c) => !c.hit).map((c) => c.client) };
};

/** The contacts split by `where` (over the contacts view, `v`): names present, the others absent. */
const contactsWhere = async (t: Q, where: string): Promise<Expectation> => {
  const present = await t.labels("contacts", where);
  if (present.length === 0) throw new Error(`no contact where ${where}`);
  return { present, absent: await t.others("contacts", where) };
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Unpaid, 6,000 to 10,000 inclusive: INV-000005, INV-000012, INV-000021 on the amount; on what
  // is owed the same three (INV-000001 owes 3,800 of 4,800, INV-000018 2,500 of 5,000: out either way).
  ...phrasings(
    1,
    ["got anything unpaid sitting between 6k and 10k? trying to figure out who to ring this arvo"],
    (t) => t.list("invoices", `${UNPAID} AND amount BETWEEN 6000 AND 10000`),
  ),
  // Qualified deals strictly over 5,000: the Acme workshop (7,500) and the Quanta seat expansion.
  ...phrasings(1, ["qualified opps worth more than 5k - which ones"], (t) =>
    t.list("deals", "stage = 'qualified' AND value > 5000"),
  ),
  // Bank transfers strictly over 10,000: 24,000, 16,002.50 and 14,400 (the 38,400 direct debit is out).
  ...phrasings(1, ["which bank transfers came in over 10 grand"], (t) =>
    t.list("payments", "method = 'bank_transfer' AND amount > 10000"),
  ),
  // Issued strictly before 2026-01-15, any status: INV-000014, INV-000010, INV-000009, INV-000003.
  ...phrasings(1, ["the invoices we sent out before jan 15th?"], (t) =>
    t.list("invoices", "issued_at < '2026-01-15'"),
  ),
  // Candidates with fewer than three skill rows (any status): five with two each.
  ...phrasings(1, ["candidates with less than 3 skills listed, who r they"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id) < 3"),
  ),
  // Contacts with five or more communications (any channel, direction): Jonas Tanaka (6), Mia
  // Schmidt and Theo Novak (5); Sofia Novak's 4 is out.
  ...phrasings(1, ["who are the contacts weve been in touch with 5+ times"], (t) =>
    t.list("contacts", "(SELECT count(*) FROM communications m WHERE m.contact_id = v.id) >= 5"),
  ),
  // Price 100 to 2,000 inclusive: the consulting hour and the onboarding workshop.
  ...phrasings(1, ["what products do we have priced somewhere between 100 and 2000"], (t) =>
    t.list("products", "price BETWEEN 100 AND 2000"),
  ),
  // Unpaid strictly under 300: INV-000003, INV-000008, INV-000024, INV-000029 on the amount; on
  // what is owed the same (INV-000006 owes 375, INV-000011 450).
  ...phrasings(1, ["unpaid invs under 300, the tiny ones. how many n which"], (t) =>
    t.list("invoices", `${UNPAID} AND amount < 300`),
  ),
  // Open deals expected to close strictly before 2026-04-10 (the Blue Fjord one on 04-10 is out):
  // both Northwind renewals (one title) and the Acme workshop.
  ...phrasings(1, ["open deals w/ an expected close before apr 10"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date < '2026-04-10'`),
  ),
  // Won, strictly under 5,000, every currency: the 2,500 Helios expansion (its title is shared by
  // the 14,000 win) and the 2,500 USD Kestrel rollout.
  ...phrasings(1, ["won deals that were under 5k?"], (t) =>
    t.list("deals", "stage = 'won' AND value < 5000"),
  ),
  // Paid, amount strictly over 5,000: 6; every invoice over 5,000 is wrong.
  ...phrasings(1, ["how many paid invoices were bigger than 5000"], (t) =>
    countOf(t, "invoices", "s = 'paid' AND amount > 5000", [
      `${STANDING} AND amount > 5000`,
      "amount > 5000",
    ]),
  ),
  // Unpaid with at least half already received: INV-000006, INV-000011, INV-000018 at exactly half
  // (INV-000002 got 1,600 of 3,200.50, just under).
  ...phrasings(1, ["which unpaid invoices have they already paid at least half of"], (t) =>
    t.list("invoices", `${UNPAID} AND amount_paid * 2 >= amount`),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Every product by price: the seat licence at 29.99.
  ...phrasings(2, ["whats the cheapest thing we sell"], (t) =>
    best(t, "products", "true", "price", 1, "asc"),
  ),
  // Overdue by what is still owed, five: INV-000019, INV-000014, INV-000009, INV-000023,
  // INV-000012 (next 3,800; by the amount the same five).
  ...phrasings(2, ["top 5 overdue invoices by how much is still owed"], (t) =>
    best(t, "invoices", "s = 'overdue'", "owed", 5),
  ),
  // The earliest payment received this year: 2,000 EUR from Oakridge Builders on 2026-01-15.
  ...phrasings(2, ["first payment we got this year — who from and how much"], async (t) => {
    const found = await best(t, "payments", "received_at >= '2026-01-01'", "received_at", 1, "asc");
    const first = (await t.rows<Row>("payments", "received_at >= '2026-01-01'", [], "received_at"))[0]!;
    return { present: [...found.present, first.client!], absent: found.absent };
  }),
  // Unpaid invoices counted per client: Kestrel Robotics with 3 (several at 2).
  ...phrasings(2, ["which client has the most unpaid invoices (the number of them not the $)"], (t) =>
    leader(
      t,
      `SELECT client AS name, count(*)::text AS n FROM invoices WHERE org_id = $1 AND status = 'open'
        GROUP BY client ORDER BY count(*) DESC`,
    ),
  ),
  // Expert-level skills per candidate: Amara Novak with 2 (several at 1).
  ...phrasings(2, ["candidate with the most expert level skills?"], (t) =>
    leader(
      t,
      `SELECT c.name, count(*)::text AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND s.level = 'expert' GROUP BY c.name ORDER BY count(*) DESC`,
    ),
  ),
  // Card payments by amount: 2,500 EUR (Kestrel, INV-000018).
  ...phrasings(2, ["biggest single card payment weve taken"], (t) =>
    best(t, "payments", "method = 'card'", "amount", 1),
  ),
  // Not yet due (shown status open), the earliest due date: INV-000032 due 2026-03-23.
  ...phrasings(2, ["which unpaid invoice is due next"], (t) =>
    best(t, "invoices", "s = 'open'", "due_date", 1, "asc"),
  ),
  // Open deal value per company (EUR: Helios's one open deal is 4,200 USD): Blue Fjord Studio with
  // 22,500 over two deals, ahead of Riverbend Coffee's 17,000.
  ...phrasings(2, ["which company has the most money tied up in open deals"], (t) =>
    leader(
      t,
      `SELECT c.company AS name, sum(d.value)::text AS n FROM deals d JOIN contacts c ON c.id = d.contact_id
        WHERE d.org_id = $1 AND d.stage IN ('lead', 'qualified', 'proposal') AND trim(d.currency) = 'EUR'
        GROUP BY c.company ORDER BY sum(d.value) DESC`,
    ),
  ),
  // Skill names counted over candidates: TypeScript (4), the next ones tie at 3.
  ...phrasings(2, ["whats the most common skill among the applicants"], (t) =>
    leader(
      t,
      `SELECT name, count(*)::text AS n FROM skills WHERE org_id = $1 GROUP BY name ORDER BY count(*) DESC`,
    ),
  ),
  // Issued in March (drafts were never issued), by amount: INV-000017 at 24,000.
  ...phrasings(2, ["biggest invoice we've sent out this month"], (t) =>
    best(t, "invoices", within("issued_at", ...MARCH), "amount", 1),
  ),
  // Deals at the lead stage by value: the 7,000 Oakridge data migration.
  ...phrasings(2, ["whats the biggest deal still sitting at lead stage"], (t) =>
    best(t, "deals", "stage = 'lead'", "value", 1),
  ),
  // Overdue, the two smallest amounts: INV-000024 and INV-000003 (next the 1,250.50 USD one; by
  // what is owed the same two).
  ...phrasings(2, ["2 smallest overdue invs, might just write em off honestly"], (t) =>
    best(t, "invoices", "s = 'overdue'", "amount", 2, "asc"),
  ),
];

// 3. Aggregates ---------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Owed over unpaid invoices, per currency; the amounts' total, or drafts counted in, is wrong.
  ...phrasings(3, ["how much do ppl owe us altogether right now"], (t) =>
    totalOf(t, "invoices", "owed", UNPAID).then(async (e) => ({
      present: e.present,
      absent: besides(e.present, [
        ...(await t.total("invoices", "amount", UNPAID)),
        ...(await t.total("invoices", "owed", "status IN ('open', 'draft')")),
      ]),
    })),
  ),
  // Proposal among open deals: 5 of 12; among every deal (5 of 19) is wrong.
  ...phrasings(3, ["what % of the open deals are at proposal stage"], (t) =>
    shareOf(t, "deals", "stage = 'proposal'", OPEN_DEAL, [["stage = 'proposal'", "true"]]),
  ),
  // Card payments' mean per currency; every payment's mean is wrong.
  ...phrasings(3, ["avg card payment size?"], (t) =>
    aggregate(t.average("payments", "amount", "method = 'card'"), t.average("payments", "amount")),
  ),
  // Won deals' value summed per currency; the open pipeline's or every deal's is wrong.
  ...phrasings(3, ["total value of everything weve won so far"], (t) =>
    totalOf(t, "deals", "value", "stage = 'won'", [OPEN_DEAL, "true"]),
  ),
  // Issued per calendar month of 2026, voids left out (drafts were never issued), per currency;
  // the months with the voids in, or the three months together, are wrong.
  ...phrasings(3, ["how much did we invoice each month this yr, leave out the voided ones"], async (t) => {
    const present: string[] = [];
    const wrong: string[] = [];
    for (const [from, to] of [JANUARY, FEBRUARY, MARCH]) {
      const month = await t.total(
        "invoices",
        "amount",
        `status <> 'void' AND ${within("issued_at", from, to)}`,
      );
      if (month.length === 0) throw new Error(`nothing invoiced from ${from}`);
      present.push(...month);
      wrong.push(...(await t.total("invoices", "amount", within("issued_at", from, to))));
    }
    wrong.push(...(await t.total("invoices", "amount", `status <> 'void' AND issued_at >= '2026-01-01'`)));
    return { present, absent: besides(present, wrong) };
  }),
  // Inbound among every communication: 10 of 42; the outbound share is wrong.
  ...phrasings(3, ["what percentage of our comms are inbound, like them contacting us"], (t) =>
    shareOf(t, "communications", "direction = 'inbound'", "true", [["direction = 'outbound'", "true"]]),
  ),
  // Unpaid invoices' lowest and highest amount per currency; the USD max by what is owed
  // (1,000.50) and the unpaid mean are wrong.
  ...phrasings(3, ["smallest and largest unpaid invoice amounts"], (t) =>
    aggregate(
      Promise.all([
        t.perCurrency("invoices", "min(amount)", UNPAID),
        t.perCurrency("invoices", "max(amount)", UNPAID),
      ]).then((v) => v.flat()),
      t.perCurrency("invoices", "max(owed)", UNPAID),
      t.average("invoices", "amount", UNPAID),
    ),
  ),
  // Lost deals' mean value (EUR); every deal's or the open ones' mean is wrong.
  ...phrasings(3, ["avg size of the deals we lost"], (t) =>
    aggregate(
      t.average("deals", "value", "stage = 'lost'"),
      t.average("deals", "value"),
      t.average("deals", "value", OPEN_DEAL),
    ),
  ),
  // Open deals' median value per currency; their mean, or every deal's median, is wrong.
  ...phrasings(3, ["median value of the open deals"], (t) =>
    aggregate(
      t.median("deals", "value", OPEN_DEAL),
      t.average("deals", "value", OPEN_DEAL),
      t.median("deals", "value"),
    ),
  ),
  // Candidates whose source is the careers page, among every candidate: 3 of 11; among those
  // with a source known (3 of 8) is wrong.
  ...phrasings(3, ["what share of candidates came in thru the careers page"], (t) =>
    shareOf(t, "candidates", "source = 'careers page'", "true", [
      ["source = 'careers page'", "source IS NOT NULL"],
    ]),
  ),
  // Overdue invoices' median amount per currency; their mean, or the median of every unpaid one,
  // is wrong.
  ...phrasings(3, ["median overdue invoice amt"], (t) =>
    aggregate(
      t.median("invoices", "amount", "s = 'overdue'"),
      t.average("invoices", "amount", "s = 'overdue'"),
      t.median("invoices", "amount", UNPAID),
    ),
  ),
  // Expert among every skill row: 7 of 31; among the verified ones only is wrong.
  ...phrasings(3, ["what % of all the candidate skills are expert level"], (t) =>
    shareOf(t, "skills", "level = 'expert'", "true", [["level = 'expert'", "status = 'verified'"]]),
  ),
];

// 4. Calendar windows ---------------------------------------------------------------------------

const windows: Case[] = [
  // Received 2026-01-01..02-28, per currency: 3,000 EUR; March's, or every payment's, is wrong.
  ...phrasings(4, ["how much did we collect in jan and feb combined"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", JANUARY[0], FEBRUARY[1]), [
      within("received_at", ...MARCH),
      "true",
    ]),
  ),
  // Deals created in February: the Arm retrofit, the Solar monitoring pilot, the Robot fleet rollout.
  ...phrasings(4, ["which deals did we add to the crm last month"], (t) =>
    t.list("deals", within("created_at", ...FEBRUARY)),
  ),
  // Unpaid, due 2026-03-30..04-05 (Monday to Sunday): INV-000029, INV-000021, INV-000008; the two
  // due Monday 04-06 are out.
  ...phrasings(4, ["anything unpaid falling due the week after next?"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("due_date", ...WEEK_AFTER_NEXT)}`),
  ),
  // Overdue, due before 2026-03-04 (more than 14 days late): seven; the three due 03-08..16 are out.
  ...phrasings(4, ["which invoices are more than 2 wks past due"], (t) =>
    t.list("invoices", "s = 'overdue' AND due_date < '2026-03-04'"),
  ),
  // Skills verified 2026-03-16..22: 7; every verified skill (8) is wrong.
  ...phrasings(4, ["how many skills got verified this week"], (t) =>
    countOf(t, "skills", within("verified_at", ...THIS_WEEK), ["status = 'verified'"]),
  ),
  // Meetings in March: 6; every meeting (7) or last week's (4) is wrong.
  ...phrasings(4, ["how many meetings have we had this month"], (t) =>
    countOf(t, "communications", `channel = 'meeting' AND ${within("occurred_at", ...MARCH)}`, [
      "channel = 'meeting'",
      `channel = 'meeting' AND ${within("occurred_at", ...LAST_WEEK)}`,
    ]),
  ),
  // Expected close date in April (every stage; all four are open).
  ...phrasings(4, ["deals expected to close next month"], (t) =>
    t.list("deals", within("expected_close_date", ...APRIL)),
  ),
  // Issued 2026-03-16..22: 7; March's 12 or every invoice's 32 is wrong.
  ...phrasings(4, ["how many invoices did we send this week"], (t) =>
    countOf(t, "invoices", within("issued_at", ...THIS_WEEK), [within("issued_at", ...MARCH), "true"]),
  ),
  // Overdue with a due date in March: INV-000012, INV-000019, INV-000023, INV-000024, INV-000031.
  ...phrasings(4, ["what went overdue so far this month"], (t) =>
    t.list("invoices", `s = 'overdue' AND ${within("due_date", ...MARCH)}`),
  ),
  // Won with closed_at in March: four deals (two share the Helios title); February's Kestrel win is out.
  ...phrasings(4, ["what deals did we close n win this month"], (t) =>
    t.list("deals", `stage = 'won' AND ${within("closed_at", ...MARCH)}`),
  ),
  // Communications on 2026-03-17, their contacts: Sofia Okafor, Jonas Tanaka, Sofia Novak; those
  // heard from only on other days of the last week are wrong.
  ...phrasings(4, ["who did we talk to yesterday"], async (t) => {
    const on = within("m.occurred_at", ...YESTERDAY);
    const present = await t.labels(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND ${on})`,
    );
    if (present.length === 0) throw new Error("nobody yesterday");
    const week = await t.labels(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.occurred_at >= '2026-03-11')`,
    );
    return { present, absent: besides(present, week) };
  }),
  // Unpaid, issued before 2026-01-17: INV-000014, INV-000009, INV-000003 (the paid INV-000010 is out).
  ...phrasings(4, ["unpaid invoices we sent more than 60 days ago, who's dragging their feet"], (t) =>
    t.list("invoices", `${UNPAID} AND issued_at < '2026-01-17'`),
  ),
];

// 5. Negation & the other side ------------------------------------------------------------------

const negations: Case[] = [
  // Clients with no payment on any invoice: Solstice Travel.
  ...phrasings(5, ["which clients havent paid us a single thing yet"], (t) =>
    clientsWhere(t, "NOT bool_or(EXISTS (SELECT 1 FROM payments p WHERE p.invoice_id = v.id))"),
  ),
  // Lost deals: the Kestrel pilot and the 13,500 Acme workshop.
  ...phrasings(5, ["which deals didnt go our way"], (t) => t.list("deals", "stage = 'lost'")),
  // Rejected candidates: Sofia Lindqvist and Amara Novak.
  ...phrasings(5, ["candidates we passed on?"], (t) => t.list("candidates", "status = 'rejected'")),
  // Contacts with no communication at all: Ada Byron.
  ...phrasings(5, ["anyone in contacts we've never actually been in touch with"], (t) =>
    contactsWhere(t, "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id)"),
  ),
  // Unpaid with something received: eight.
  ...phrasings(5, ["invoices that are part paid but not fully, which ones"], (t) =>
    t.list("invoices", `${UNPAID} AND amount_paid > 0`),
  ),
  // Every position but backend engineer: seven candidates.
  ...phrasings(5, ["who applied for something other than backend"], (t) =>
    t.list("candidates", "position <> 'Backend engineer'"),
  ),
  // Deals in another currency than euros: the Solar monitoring pilot and the Robot fleet rollout.
  ...phrasings(5, ["any deals that arent in eur"], (t) => t.list("deals", "cur <> 'EUR'")),
  // Clients with no invoice issued in March: Larkspur Foods, Northwind Traders, Quanta Analytics,
  // Solstice Travel (Northwind's and Quanta's drafts were never issued).
  ...phrasings(5, ["which clients havent had an invoice from us this month"], (t) =>
    clientsWhere(t, `NOT bool_or(${within("issued_at", ...MARCH)})`),
  ),
  // Contacts with no open deal: Ada Byron, Jonas Brennan, Ravi Okafor.
  ...phrasings(5, ["contacts with nothing in the pipeline at the moment"], (t) =>
    contactsWhere(
      t,
      "NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id AND d.stage IN ('lead', 'qualified', 'proposal'))",
    ),
  ),
  // Unpaid in any currency but USD: 17; every unpaid one (19) or the dollar ones (2) is wrong.
  ...phrasings(5, ["how many unpaid invoices r there not counting the usd ones"], (t) =>
    countOf(t, "invoices", `${UNPAID} AND cur <> 'USD'`, [UNPAID, `${UNPAID} AND cur = 'USD'`]),
  ),
  // Open deals whose expected close date has passed: the 500 Northwind renewal (its title is
  // shared by the 3,500 one, so its value is asked for too).
  ...phrasings(5, ["open deals that shouldve closed by now but havent"], async (t) => {
    const found = await t.list("deals", `${OPEN_DEAL} AND expected_close_date < $2::date`);
    const deal = await only(t, "deals", `${OPEN_DEAL} AND expected_close_date < $2::date`);
    return { present: [...found.present, t.money(deal.value!, deal.cur!)], absent: found.absent };
  }),
  // Clients with no unpaid invoice: Quanta Analytics (its draft was never issued).
  ...phrasings(5, ["which clients are fully paid up, dont owe us anything"], (t) =>
    clientsWhere(t, "NOT bool_or(s IN ('open', 'overdue'))"),
  ),
];

// 6. Named records inside other resources -------------------------------------------------------

const STATUSES = ["applied", "screening", "interview", "offer", "hired", "rejected"];

const named: Case[] = [
  // The one Oakridge Builders deal: the data migration, at lead.
  ...phrasings(6, ["what stage is the oakridge deal in rn"], async (t) => {
    const deal = await only(t, "deals", "company = 'Oakridge Builders'");
    return { present: [deal.stage!], absent: STAGES.filter((s) => s !== deal.stage) };
  }),
  // The Solstice Travel pilot, won: its value; the Kestrel pilot's, or Solstice's invoices', is wrong.
  ...phrasings(6, ["how much was the solstice pilot worth when we won it"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE 'pilot programme%solstice%'");
    if (deal.stage !== "won") throw new Error("the Solstice pilot is not won");
    const present = [t.money(deal.value!, deal.cur!)];
    const kestrel = await t.rows<Row>("deals", "title ILIKE 'pilot programme%kestrel%'");
    const invoices = await t.rows<Row>("invoices", "client = 'Solstice Travel'");
    return {
      present,
      absent: besides(
        present,
        [...kestrel, ...invoices].map((r) => t.money((r.value ?? r.amount)!, r.cur!)),
      ),
    };
  }),
  // Theo Novak's latest communication, any direction: 2026-03-14 (Sofia Novak's is another day).
  ...phrasings(6, ["when did we last talk to theo novak"], async (t) => {
    const last = (name: string) =>
      must(
        t,
        `SELECT ${dayOf("max(m.occurred_at)")} FROM communications m JOIN contacts c ON c.id = m.contact_id
          WHERE m.org_id = $1 AND c.name = $2`,
        [name],
      );
    const theo = await last("Theo Novak");
    if (theo === t.today) throw new Error("the answer is today");
    const days = await t.sql<{ d: string }>(
      `SELECT DISTINCT ${dayOf("m.occurred_at")} AS d FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND c.name = 'Theo Novak'`,
    );
    return { present: [theo], absent: besides([theo], [...days.map((r) => r.d), await last("Sofia Novak")]) };
  }),
  // Juniper Health's invoices not yet due (shown status open): INV-000005 and INV-000029 (its paid
  // INV-000017 is out).
  ...phrasings(6, ["what does juniper have open with us invoice-wise"], (t) =>
    t.list("invoices", "client = 'Juniper Health' AND s = 'open'"),
  ),
  // Sofia Schmidt's skills, any status: Figma, Prototyping, User research.
  ...phrasings(6, ["sofia schmidt - what skills has she got"], (t) =>
    t.list("skills", "candidate_name = 'Sofia Schmidt'"),
  ),
  // The Larkspur renewal's value; Larkspur's invoices' amounts are wrong.
  ...phrasings(6, ["how much is the larkspur renewal worth"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE '%renewal%larkspur%'");
    const present = [t.money(deal.value!, deal.cur!)];
    const invoices = await t.rows<Row>("invoices", "client = 'Larkspur Foods'");
    return {
      present,
      absent: besides(
        present,
        invoices.map((i) => t.money(i.amount!, i.cur!)),
      ),
    };
  }),
  // Blue Fjord Studio's paid invoices: INV-000015 and INV-000027 (the overdue INV-000003 is out).
  ...phrasings(6, ["which invoices has blue fjord paid"], (t) =>
    t.list("invoices", "client = 'Blue Fjord Studio' AND s = 'paid'"),
  ),
  // Owed on Acme Logistics' unpaid invoices; their amounts' total is wrong.
  ...phrasings(6, ["acme logistics outstanding balance?"], (t) =>
    aggregate(
      t.total("invoices", "owed", `client = 'Acme Logistics' AND ${UNPAID}`),
      t.total("invoices", "amount", `client = 'Acme Logistics' AND ${UNPAID}`),
      t.total("invoices", "amount", `client = 'Acme Logistics' AND ${STANDING}`),
    ),
  ),
  // Jonas Brennan's latest outbound communication (every one of his is outbound): 2026-03-07.
  ...phrasings(6, ["last time we reached out to jonas brennan?"], async (t) => {
    const pick = (direction: string) =>
      must(
        t,
        `SELECT ${dayOf("max(m.occurred_at)")} FROM communications m JOIN contacts c ON c.id = m.contact_id
          WHERE m.org_id = $1 AND c.name = 'Jonas Brennan' AND ${direction}`,
      );
    const out = await pick("m.direction = 'outbound'");
    if (out !== (await pick("true"))) throw new Error("reached out: outbound and any direction differ");
    const tanaka = await must(
      t,
      `SELECT ${dayOf("max(m.occurred_at)")} FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND c.name = 'Jonas Tanaka'`,
    );
    return { present: [out], absent: besides([out], [tanaka]) };
  }),
  // Ava Okafor the candidate (a contact has the same name): at screening.
  ...phrasings(6, ["where is ava okafor at in the hiring process"], async (t) => {
    const ava = await only(t, "candidates", "name = 'Ava Okafor'");
    return { present: [ava.status!], absent: STATUSES.filter((s) => s !== ava.status && s !== "applied") };
  }),
  // Meridian Legal's one open invoice: what is left on it (its amount is wrong).
  ...phrasings(6, ["meridian's open invoice, how much is left on it"], async (t) => {
    const invoice = await only(t, "invoices", "client = 'Meridian Legal' AND s = 'open'");
    return {
      present: [invoice.number!, t.money(invoice.owed!, invoice.cur!)],
      absent: [t.money(invoice.amount!, invoice.cur!)],
    };
  }),
  // Yara Haddad's one deal: the Juniper consulting retainer and its value.
  ...phrasings(6, ["what deal is yara haddad on and whats it worth"], async (t) => {
    const deal = await only(t, "deals", "contact_name = 'Yara Haddad'");
    const riverbend = await only(t, "deals", "title ILIKE 'consulting retainer%riverbend%'");
    return {
      present: [deal.title!, t.money(deal.value!, deal.cur!)],
      absent: [riverbend.title!, t.money(riverbend.value!, riverbend.cur!)],
    };
  }),
];

// 7. Follow-ups that refine ---------------------------------------------------------------------

const refinements: Case[] = [
  // Overdue, amount strictly over 10,000: 4 (on what is owed the same four); every overdue one is wrong.
  ...followUps(["whos late paying us"], ["how many of those are over 10k"], (t) =>
    countOf(t, "invoices", "s = 'overdue' AND amount > 10000", ["s = 'overdue'"]),
  ),
  // Open deals at qualified: five.
  ...followUps(["whats in the pipeline"], ["just the qualified ones"], (t) =>
    t.list("deals", "stage = 'qualified'"),
  ),
  // Received in March by bank transfer: seven (the January transfer is out).
  ...followUps(["payments from this month pls"], ["only the bank transfers"], (t) =>
    t.list("payments", `method = 'bank_transfer' AND ${within("received_at", ...MARCH)}`),
  ),
  // Candidates at interview: Yara Kowalski and Liam Moreau.
  ...followUps(["show me the candidates"], ["who's at interview stage"], (t) =>
    t.list("candidates", "status = 'interview'"),
  ),
  // Kestrel Robotics' unpaid invoices: INV-000006, INV-000018, INV-000031 (the paid INV-000030 out).
  ...followUps(["kestrel invoices"], ["which r still unpaid"], (t) =>
    t.list("invoices", `client = 'Kestrel Robotics' AND ${UNPAID}`),
  ),
  // Every product by price: the annual support plan.
  ...followUps(["list our products"], ["which one costs the most"], (t) =>
    best(t, "products", "true", "price", 1),
  ),
  // Won deals in USD: the Robot fleet rollout.
  ...followUps(["deals we won"], ["just the usd ones"], (t) =>
    t.list("deals", "stage = 'won' AND cur = 'USD'"),
  ),
  // Issued in February, unpaid, the largest amount: INV-000019.
  ...followUps(["what did we invoice in feb", "just the unpaid ones"], ["which is the biggest"], (t) =>
    best(t, "invoices", `${UNPAID} AND ${within("issued_at", ...FEBRUARY)}`, "amount", 1),
  ),
  // Overdue, the three earliest due dates: INV-000014, INV-000009, INV-000003.
  ...followUps(["overdue invoices"], ["which 3 have been overdue the longest"], (t) =>
    best(t, "invoices", "s = 'overdue'", "due_date", 3, "asc"),
  ),
  // Communications 2026-03-16..22, inbound: 3; the week's 5 or every inbound one (10) is wrong.
  ...followUps(["any calls or emails logged this week?"], ["how many were inbound"], (t) =>
    countOf(t, "communications", `direction = 'inbound' AND ${within("occurred_at", ...THIS_WEEK)}`, [
      within("occurred_at", ...THIS_WEEK),
      "direction = 'inbound'",
    ]),
  ),
  // Open deals' mean value per currency; every deal's mean is wrong.
  ...followUps(["open deals"], ["avg value?"], (t) =>
    aggregate(t.average("deals", "value", OPEN_DEAL), t.average("deals", "value")),
  ),
  // Expected to close in April and at proposal: the 11,500 Blue Fjord migration (its title is
  // shared by the 11,000 one due in May) and the Riverbend retainer.
  ...followUps(["deals expected to close next month"], ["which of those are at proposal"], (t) =>
    t.list("deals", `stage = 'proposal' AND ${within("expected_close_date", ...APRIL)}`),
  ),
];

export const holdout16: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
