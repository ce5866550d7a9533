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
  THIS_WEEK,
  Q1,
} from "./truths.ts";

/**
 * The SEVENTEENTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven
 * categories of the phrasing exam, written blind (without reading the planner, its documentation,
 * its tests, the other exams' questions or the planner's answers, and without running it on them),
 * the way a busy owner types into a chat between two jobs: lower case, typos, abbreviations,
 * filler, asides, run-on sentences. None is copied from the other case files. The conventions are
 * grade.ts's; every truth is computed from the tables when the test runs, and a truth that would be
 * empty, tied or ambiguous throws (the exam's own fault, reported apart). Today is 2026-03-18, a
 * Wednesday: this week is 2026-03-16..22 (Monday start), this month March, last month February,
 * next month April, this quarter (q1) January to March, year to date 2026-01-01..2026-03-18; "the
 * next 7 days" runs 2026-03-18..25 and "more than 2 weeks overdue" is due before 2026-03-04.
 */

/** A timestamp column as the organization's day (UTC), YYYY-MM-DD, in SQL. */
const dayOf = (column: string) => `to_char((${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/**
 * A list whose two readings (the words read on `amount` or on what is owed) must give the same set:
 * the exam's own check, throwing when they differ.
 */
const eitherReading = async (t: Q, base: string, onAmount: string, onOwed: string): Promise<Expectation> => {
  const a = (await t.labels("invoices", `${base} AND ${onAmount}`)).join();
  const b = (await t.labels("invoices", `${base} AND ${onOwed}`)).join();
  if (a !== b) throw new Error(`the amount and owed readings differ: ${a} / ${b}`);
  return t.list("invoices", `${base} AND ${onAmount}`);
};

/**
 * The first `n` names of a ranking (rows of `name` and `n`, best first): throws on too few rows or
 * a tie across the boundary; the next name is absent.
 */
const ranked = async (t: Q, text: string, n = 1, params: unknown[] = []): Promise<Expectation> => {
  const rows = await t.sql<{ name: string; n: string }>(text, params);
  if (rows.length < n) throw new Error(`a ranking of ${rows.length}, not ${n}`);
  if (rows.length > n && String(rows[n - 1]!.n) === String(rows[n]!.n))
    throw new Error(`a tie at place ${n}: ${rows[n - 1]!.name} and ${rows[n]!.name}`);
  return { present: rows.slice(0, n).map((r) => r.name), absent: rows.slice(n, n + 1).map((r) => r.name) };
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Unpaid (open or overdue), 6,000 to 10,000 inclusive; on what is owed the set is the same
  // (checked): INV-000018 (5,000, owes 2,500) is out either way.
  ...phrasings(
    1,
    [
      "got any unpaid invoices sitting somewhere between 6 and 10 grand? trying to work out who to ring first",
    ],
    (t) => eitherReading(t, UNPAID, "amount BETWEEN 6000 AND 10000", "owed BETWEEN 6000 AND 10000"),
  ),
  // Every stage and currency, 15,000 or more inclusive (the Quanta deal at exactly 15,000 is in;
  // the strict reading's 2 is wrong).
  ...phrasings(1, ["how many deals r worth 15k or more, dont care what stage theyre at"], (t) =>
    listOf(t, "deals", "value >= 15000", ["value > 15000"]),
  ),
  // Payments strictly under 200, any currency and method.
  ...phrasings(1, ["did we get any tiny payments in, like under 200?"], (t) =>
    t.list("payments", "amount < 200"),
  ),
  // Products priced strictly over 3,000.
  ...phrasings(1, ["whats on our product list that costs more than 3k"], (t) =>
    t.list("products", "price > 3000"),
  ),
  // Overdue with strictly less than 500 owed; on the amount the set is the same (checked).
  ...phrasings(
    1,
    ["overdue invoices where the balance left is under 500 - prob not worth chasing hard"],
    (t) => eitherReading(t, "s = 'overdue'", "amount < 500", "owed < 500"),
  ),
  // Candidates with strictly fewer than 3 skill rows (any status).
  ...phrasings(1, ["which candidates have fewer than 3 skills on there profile"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id) < 3"),
  ),
  // Open deals with an expected close date strictly before 2026-04-15 (past dates included; no
  // date: out).
  ...phrasings(1, ["open deals that r supposed to close before april 15th?"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date < '2026-04-15'`),
  ),
  // Paid invoices of 10,000 or more (none sits at exactly 10,000).
  ...phrasings(1, ["paid invoices that were 10k or bigger, which ones"], (t) =>
    t.list("invoices", "s = 'paid' AND amount >= 10000"),
  ),
  // Contacts with five or more communications logged (any channel, either direction); the strict
  // reading (more than 5) is wrong.
  ...phrasings(
    1,
    ["which contacts have we had 5 or more touchpoints with (calls emails meetings whatever)"],
    (t) =>
      listOf(t, "contacts", "(SELECT count(*) FROM communications m WHERE m.contact_id = v.id) >= 5", [
        "(SELECT count(*) FROM communications m WHERE m.contact_id = v.id) > 5",
      ]),
  ),
  // A dollar sign: USD deals strictly over 3,000, any stage (the euro ones are out).
  ...phrasings(1, ["any deals over $3,000?"], (t) => t.list("deals", "cur = 'USD' AND value > 3000")),
  // Any status, due strictly after 2026-05-01 (the paid INV-000017 due on 05-01 itself is out).
  ...phrasings(1, ["r there any invoices due after the 1st of may"], (t) =>
    t.list("invoices", "due_date > '2026-05-01'"),
  ),
  // Every stage and currency, 5,000 to 10,000 inclusive.
  ...phrasings(1, ["deals in the 5 to 10k range - how many and which"], (t) =>
    t.list("deals", "value BETWEEN 5000 AND 10000"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Overdue, the smallest amount (and the least owed).
  ...phrasings(2, ["smallest overdue invoice we got?"], async (t) => {
    const found = await best(t, "invoices", "s = 'overdue'", "amount", 1, "asc");
    const owed = await best(t, "invoices", "s = 'overdue'", "owed", 1, "asc");
    if (found.present.join() !== owed.present.join()) throw new Error("smallest by amount and owed differ");
    return found;
  }),
  // Won deals, the two largest values (the 2,500 Helios win shares a title with the 14,000 one).
  ...phrasings(2, ["2 biggest deals we've won so far"], (t) => best(t, "deals", "stage = 'won'", "value", 2)),
  // Applied = the candidate's record created: the earliest.
  ...phrasings(2, ["who was the very first person to apply out of all our candidates"], (t) =>
    best(t, "candidates", "true", "created_at", 1, "asc"),
  ),
  // Card payments, the largest (every currency).
  ...phrasings(2, ["whats the largest card payment weve taken"], (t) =>
    best(t, "payments", "method = 'card'", "amount", 1),
  ),
  // Unpaid, the three with the most still owed (by amount the same three).
  ...phrasings(2, ["top 3 unpaid invoices by how much is still owed on them"], (t) =>
    best(t, "invoices", UNPAID, "owed", 3),
  ),
  // Products, the two lowest prices.
  ...phrasings(2, ["2 cheapest things we sell?"], (t) => best(t, "products", "true", "price", 2, "asc")),
  // The client of the unpaid invoice due first (issued first too: checked); the runner-up absent.
  ...phrasings(2, ["which client has had an unpaid bill hanging around the longest"], async (t) => {
    const byDue = await ranked(
      t,
      `SELECT client AS name, min(due_date)::text AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' GROUP BY client ORDER BY min(due_date)`,
    );
    const byIssue = await ranked(
      t,
      `SELECT client AS name, min(issued_at)::text AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' GROUP BY client ORDER BY min(issued_at)`,
    );
    if (byDue.present.join() !== byIssue.present.join()) throw new Error("oldest by due and by issue differ");
    return byDue;
  }),
  // Qualified deals, the largest value.
  ...phrasings(2, ["biggest deal sitting at qualified rn"], (t) =>
    best(t, "deals", "stage = 'qualified'", "value", 1),
  ),
  // Rejected candidates per position; the role with the most applicants (if another) is wrong.
  ...phrasings(2, ["which job are we rejecting the most ppl for"], async (t) => {
    const found = await ranked(
      t,
      `SELECT position AS name, count(*)::text AS n FROM candidates WHERE org_id = $1 AND status = 'rejected'
        GROUP BY position ORDER BY count(*) DESC`,
    );
    const most = await ranked(
      t,
      `SELECT position AS name, count(*)::text AS n FROM candidates WHERE org_id = $1
        GROUP BY position ORDER BY count(*) DESC`,
    );
    return {
      present: found.present,
      absent: besides(found.present, [...(found.absent ?? []), ...most.present]),
    };
  }),
  // Owed per client over unpaid invoices, in euros (the dollar balances are too small to matter):
  // the top three; by amount the same three (checked); the fourth absent.
  ...phrasings(2, ["3 clients with the biggest outstanding balance"], async (t) => {
    const byOwed = await ranked(
      t,
      `SELECT client AS name, sum(amount - amount_paid)::text AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' AND trim(currency) = 'EUR'
        GROUP BY client ORDER BY sum(amount - amount_paid) DESC`,
      3,
    );
    const byAmount = await t.sql<{ name: string }>(
      `SELECT client AS name FROM invoices WHERE org_id = $1 AND status = 'open' AND trim(currency) = 'EUR'
        GROUP BY client ORDER BY sum(amount) DESC LIMIT 3`,
    );
    if (
      [...byOwed.present].sort().join() !==
      byAmount
        .map((r) => r.name)
        .sort()
        .join()
    )
      throw new Error("the top 3 by owed and by amount differ");
    return byOwed;
  }),
  // Lost deals, the smallest value.
  ...phrasings(2, ["what was the smallest deal we lost"], (t) =>
    best(t, "deals", "stage = 'lost'", "value", 1, "asc"),
  ),
  // Invoiced (issued in 2026, standing) per client in euros: the leader; the runner-up absent.
  ...phrasings(2, ["which client have we invoiced the most this year"], (t) =>
    ranked(
      t,
      `SELECT client AS name, sum(amount)::text AS n FROM invoices
        WHERE org_id = $1 AND status IN ('open', 'paid') AND trim(currency) = 'EUR'
          AND issued_at >= '2026-01-01'
        GROUP BY client ORDER BY sum(amount) DESC`,
    ),
  ),
];

// 3. Aggregates ---------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Open deals' values summed per currency; every deal's total is wrong.
  ...phrasings(3, ["whats the whole pipeline worth right now, all the open deals added up"], (t) =>
    totalOf(t, "deals", "value", OPEN_DEAL, ["true", "stage = 'proposal'"]),
  ),
  // Issued per calendar month of q1, standing (the voids left out), per currency; the quarter's
  // total is wrong.
  ...phrasings(3, ["how much did we bill each month this quarter? skip the voided ones"], async (t) => {
    const present: string[] = [];
    for (const [from, to] of [JANUARY, FEBRUARY, MARCH]) {
      const month = await t.total("invoices", "amount", `${STANDING} AND ${within("issued_at", from, to)}`);
      if (month.length === 0) throw new Error(`nothing issued ${from}`);
      present.push(...month);
    }
    if (new Set(present).size !== present.length) throw new Error("two months with the same total");
    const quarter = await t.total("invoices", "amount", `${STANDING} AND ${within("issued_at", ...Q1)}`);
    return { present, absent: besides(present, quarter) };
  }),
  // Contacts tagged priority among every contact.
  ...phrasings(3, ["what % of our contacts r tagged priority"], (t) =>
    shareOfReadings(t, "contacts", "'priority' = ANY(tags)", "true"),
  ),
  // Referral among every candidate; among those with a known source is wrong.
  ...phrasings(3, ["what share of candidates came to us thru referrals"], (t) =>
    shareOfReadings(t, "candidates", "source = 'referral'", "true", [
      ["source = 'referral'", "source IS NOT NULL"],
    ]),
  ),
  // Bank transfers' mean amount per currency; every payment's mean is wrong.
  ...phrasings(3, ["avg size of a bank transfer payment we get?"], (t) =>
    aggregate(t.average("payments", "amount", "method = 'bank_transfer'"), t.average("payments", "amount")),
  ),
  // Open deals' median value per currency; their mean is wrong.
  ...phrasings(3, ["whats the median valu of the deals still open"], (t) =>
    aggregate(t.median("deals", "value", OPEN_DEAL), t.average("deals", "value", OPEN_DEAL)),
  ),
  // Issued invoices (standing; a void changes neither end), the lowest and highest amount per
  // currency; the mean is wrong.
  ...phrasings(3, ["smallest and largest invoice we've ever sent out, just the amounts"], async (t) => {
    const issued = "issued_at IS NOT NULL";
    const present = [
      ...(await t.perCurrency("invoices", "min(amount)", STANDING)),
      ...(await t.perCurrency("invoices", "max(amount)", STANDING)),
    ];
    const withVoids = [
      ...(await t.perCurrency("invoices", "min(amount)", issued)),
      ...(await t.perCurrency("invoices", "max(amount)", issued)),
    ];
    if (present.join() !== withVoids.join()) throw new Error("a void changes the ends");
    return aggregate(Promise.resolve(present), t.average("invoices", "amount", STANDING));
  }),
  // Lost deals' mean value per currency; won or every deal's mean is wrong.
  ...phrasings(3, ["when we lose a deal how big is it on average"], (t) =>
    aggregate(
      t.average("deals", "value", "stage = 'lost'"),
      t.average("deals", "value", "stage = 'won'"),
      t.average("deals", "value"),
    ),
  ),
  // Expert among every skill row; advanced or expert is wrong.
  ...phrasings(3, ["what % of all the skills ppl listed are expert level"], (t) =>
    shareOfReadings(t, "skills", "level = 'expert'", "true", [["level IN ('advanced', 'expert')", "true"]]),
  ),
  // Owed on overdue invoices, summed per currency; their amounts, or every unpaid one's balance,
  // are wrong.
  ...phrasings(3, ["total still owed on overdue invoices - the balance, not the face value"], (t) =>
    aggregate(
      t.total("invoices", "owed", "s = 'overdue'"),
      t.total("invoices", "amount", "s = 'overdue'"),
      t.total("invoices", "owed", UNPAID),
    ),
  ),
  // Proposal among open deals (a count, as the words say); among every deal is wrong.
  ...phrasings(3, ["how many of our open deals are at proposal, as a percentage"], (t) =>
    shareOfReadings(t, "deals", "stage = 'proposal'", OPEN_DEAL, [["stage = 'proposal'", "true"]]),
  ),
  // Unpaid invoices' median amount per currency; the median owed, the mean, or every standing
  // invoice's median is wrong.
  ...phrasings(3, ["median invoice total across the unpaid ones"], (t) =>
    aggregate(
      t.median("invoices", "amount", UNPAID),
      t.median("invoices", "owed", UNPAID),
      t.average("invoices", "amount", UNPAID),
      t.median("invoices", "amount", STANDING),
    ),
  ),
];

// 4. Calendar windows ---------------------------------------------------------------------------

const windows: Case[] = [
  // Issued 2026-03-16..22 (none of them void or draft), per currency; March's total is wrong.
  ...phrasings(4, ["how much have we invoiced this wk"], (t) =>
    totalOf(t, "invoices", "amount", `${STANDING} AND ${within("issued_at", ...THIS_WEEK)}`, [
      `${STANDING} AND ${within("issued_at", ...MARCH)}`,
      within("due_date", ...THIS_WEEK),
    ]),
  ),
  // Received 2026-01-01 to today, per currency; March's alone is wrong.
  ...phrasings(4, ["how much cash have we actualy collected ytd?"], (t) =>
    totalOf(t, "payments", "amount", "received_at >= '2026-01-01'", [within("received_at", ...MARCH)]),
  ),
  // Unpaid with a due date 2026-03-16..22 (the one due Monday the 23rd is out).
  ...phrasings(4, ["anything unpaid that was due this week"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("due_date", ...THIS_WEEK)}`),
  ),
  // Overdue by more than 14 days: due before 2026-03-04 (nothing is due on the 4th itself); every
  // overdue invoice is wrong.
  ...phrasings(4, ["which invoices are over 2 weeks overdue"], (t) =>
    listOf(t, "invoices", "s = 'overdue' AND due_date < '2026-03-04'", ["s = 'overdue'"]),
  ),
  // Won with closed_at in March: the February win is out; every won deal (5) or every deal closed
  // in March (won or lost) is wrong.
  ...phrasings(4, ["deals we won this month?"], (t) =>
    listOf(t, "deals", `stage = 'won' AND ${within("closed_at", ...MARCH)}`, [
      "stage = 'won'",
      `stage IN ('won', 'lost') AND ${within("closed_at", ...MARCH)}`,
    ]),
  ),
  // Skills verified 2026-03-16..22; every verified skill is wrong.
  ...phrasings(4, ["how many skills got verified this wk"], (t) =>
    countOf(t, "skills", within("verified_at", ...THIS_WEEK), ["status = 'verified'"]),
  ),
  // Expected close date in April (any stage; all of them open).
  ...phrasings(4, ["which deals r meant to close next month, trying to plan april"], (t) =>
    t.list("deals", within("expected_close_date", ...APRIL)),
  ),
  // Contacts with a communication 2026-03-16..22, either direction.
  ...phrasings(4, ["who've we been in contact with this week"], (t) =>
    t.list(
      "contacts",
      `EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id
        AND m.occurred_at >= '2026-03-16' AND m.occurred_at < '2026-03-23')`,
    ),
  ),
  // Issued in February and unpaid (not due in February); every unpaid invoice is wrong.
  ...phrasings(4, ["of the invoices we sent out in feb which ones are still outstanding"], (t) =>
    listOf(t, "invoices", `${UNPAID} AND ${within("issued_at", ...FEBRUARY)}`, [
      `${UNPAID} AND ${within("due_date", ...FEBRUARY)}`,
      UNPAID,
    ]),
  ),
  // Deals created in March; every deal is wrong.
  ...phrasings(4, ["how many new deals got added this month"], (t) =>
    countOf(t, "deals", within("created_at", ...MARCH), ["true"]),
  ),
  // Unpaid, due 2026-03-18..25 (with or without today the same: checked).
  ...phrasings(4, ["whats coming due in the next 7 days that hasnt been paid"], async (t) => {
    const withToday = (
      await t.labels("invoices", `${UNPAID} AND due_date BETWEEN '2026-03-18' AND '2026-03-25'`)
    ).join();
    const without = (
      await t.labels("invoices", `${UNPAID} AND due_date BETWEEN '2026-03-19' AND '2026-03-25'`)
    ).join();
    if (withToday !== without) throw new Error("something unpaid is due today");
    return t.list("invoices", `${UNPAID} AND due_date BETWEEN '2026-03-18' AND '2026-03-25'`);
  }),
  // Communications 2026-02-01..28, any channel and direction; March's, or every one's, is wrong.
  ...phrasings(4, ["how many emails calls etc did we log in february"], (t) =>
    countOf(t, "communications", within("occurred_at", ...FEBRUARY), [
      within("occurred_at", ...MARCH),
      "true",
    ]),
  ),
];

// 5. Negation & the other side ------------------------------------------------------------------

const negations: Case[] = [
  // Candidates with no phone number.
  ...phrasings(5, ["which candidates dont have a phone number on file"], (t) =>
    t.list("candidates", "coalesce(phone, '') = ''"),
  ),
  // Contacts without the priority tag.
  ...phrasings(5, ["contacts that arent tagged as priority"], (t) =>
    t.list("contacts", "NOT ('priority' = ANY(tags))"),
  ),
  // Contacts with no inbound communication ever (Ada Byron, never contacted at all, is in).
  ...phrasings(5, ["whos never reached out to us themselves, like nothing inbound from them ever"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.direction = 'inbound')",
    ),
  ),
  // Lifecycle stage neither customer nor lead: the prospects.
  ...phrasings(5, ["contacts that are neither customers nor leads"], (t) =>
    t.list("contacts", "lifecycle_stage NOT IN ('customer', 'lead')"),
  ),
  // Clients (of invoices) with no unpaid invoice (a draft is owed by nobody).
  ...phrasings(5, ["which clients dont owe us a penny right now"], async (t) => {
    const clients = await t.sql<{ client: string; owes: boolean }>(
      `SELECT client, bool_or(status = 'open') AS owes FROM invoices WHERE org_id = $1 GROUP BY client ORDER BY client`,
    );
    const present = clients.filter((c) => !c.owes).map((c) => c.client);
    if (present.length === 0) throw new Error("every client owes something");
    return { present, absent: clients.filter((c) => c.owes).map((c) => c.client) };
  }),
  // Deals in any currency but euros, any stage.
  ...phrasings(5, ["any deals that arent in euros"], (t) => t.list("deals", "cur <> 'EUR'")),
  // Never issued: the drafts.
  ...phrasings(5, ["invoices that havent actually been sent yet, still drafts"], (t) =>
    t.list("invoices", "status = 'draft'"),
  ),
  // Lost deals.
  ...phrasings(5, ["which deals didnt work out for us"], (t) => t.list("deals", "stage = 'lost'")),
  // Rejected candidates.
  ...phrasings(5, ["applicants we said no to?"], (t) => t.list("candidates", "status = 'rejected'")),
  // Overdue with nothing received; every overdue invoice is wrong.
  ...phrasings(5, ["overdue invoices where they havent paid a single thing, not even part of it"], (t) =>
    listOf(t, "invoices", "s = 'overdue' AND amount_paid = 0", ["s = 'overdue'"]),
  ),
  // Contacts with no communication in March (Ada Byron, never contacted, is in).
  ...phrasings(5, ["who havent we talked to at all this month"], (t) =>
    t.list(
      "contacts",
      `NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id
        AND m.occurred_at >= '2026-03-01' AND m.occurred_at < '2026-04-01')`,
    ),
  ),
  // Contacts with no open deal (lead, qualified, proposal): only closed ones, or none.
  ...phrasings(5, ["contacts we've got nothing open with in the pipeline"], (t) =>
    t.list(
      "contacts",
      `NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id
        AND d.stage IN ('lead', 'qualified', 'proposal'))`,
    ),
  ),
];

// 6. Named records inside other resources -------------------------------------------------------

const named: Case[] = [
  // The one Oakridge Builders deal: its stage.
  ...phrasings(6, ["whats the status on the oakridge deal, what stage is it"], async (t) => {
    const deal = await only(t, "deals", "company = 'Oakridge Builders'");
    return { present: [deal.stage!], absent: STAGES.filter((s) => s !== deal.stage && s !== "qualified") };
  }),
  // The one Solstice Travel deal: its value (not one of their invoices).
  ...phrasings(6, ["how much was the solstice deal worth"], async (t) => {
    const deal = await only(t, "deals", "company = 'Solstice Travel'");
    const invoices = await t.rows<Row>("invoices", "client = 'Solstice Travel'");
    const present = [t.money(deal.value!, deal.cur!)];
    return {
      present,
      absent: besides(
        present,
        invoices.map((i) => t.money(i.amount!, i.cur!)),
      ),
    };
  }),
  // Theo Novak's latest communication, either direction; his earlier days and Sofia Novak's
  // latest are wrong.
  ...phrasings(6, ["when did we last talk to theo novak"], async (t) => {
    const days = await t.sql<{ d: string }>(
      `SELECT DISTINCT ${dayOf("m.occurred_at")} AS d FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND c.name = 'Theo Novak' ORDER BY d DESC`,
    );
    if (days.length === 0) throw new Error("never talked to Theo Novak");
    if (days[0]!.d === t.today) throw new Error("the answer is today");
    const sofia = await must(
      t,
      `SELECT ${dayOf("max(m.occurred_at)")} FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND c.name = 'Sofia Novak'`,
    );
    const present = [days[0]!.d];
    return { present, absent: besides(present, [...days.slice(1).map((r) => r.d), sofia]) };
  }),
  // Juniper Health's invoices, every status.
  ...phrasings(6, ["what invoices have we sent juniper health"], (t) =>
    t.list("invoices", "client = 'Juniper Health'"),
  ),
  // Liam Moreau's verified skills (his claimed one is absent).
  ...phrasings(6, ["which of liam moreau's skills are actually verified"], (t) =>
    t.list("skills", "candidate_name = 'Liam Moreau' AND status = 'verified'"),
  ),
  // The contact on the Larkspur renewal deal (the other Okafors are wrong).
  ...phrasings(6, ["who's my contact on the larkspur renewal"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE '%renewal%larkspur%'");
    const okafors = await t.labels("contacts", "name ILIKE '%okafor%'");
    return { present: [deal.contact_name!], absent: okafors.filter((n) => n !== deal.contact_name) };
  }),
  // Owed on Riverbend Coffee's unpaid invoices; their amounts, or the Riverbend deal, are wrong.
  ...phrasings(6, ["how much is riverbend still into us for"], async (t) => {
    const found = await aggregate(
      t.total("invoices", "owed", `client = 'Riverbend Coffee' AND ${UNPAID}`),
      t.total("invoices", "amount", `client = 'Riverbend Coffee' AND ${UNPAID}`),
      t.total("deals", "value", "company = 'Riverbend Coffee'"),
    );
    return found;
  }),
  // The position Yara Kowalski applied for (Yara Iyer's is wrong).
  ...phrasings(6, ["what role did yara kowalski apply for"], async (t) => {
    const candidate = await only(t, "candidates", "name = 'Yara Kowalski'");
    const other = await only(t, "candidates", "name = 'Yara Iyer'");
    if (other.position === candidate.position) throw new Error("both Yaras applied for the same job");
    return { present: [candidate.position!], absent: [other.position!] };
  }),
  // Kestrel Robotics' overdue invoices (both currencies).
  ...phrasings(6, ["is kestrel behind on any invoices"], (t) =>
    t.list("invoices", "client = 'Kestrel Robotics' AND s = 'overdue'"),
  ),
  // Mia Haddad's skills, any status.
  ...phrasings(6, ["what is mia haddad good at, skills wise"], (t) =>
    t.list("skills", "candidate_name = 'Mia Haddad'"),
  ),
  // The one Quanta Analytics deal: its value (not their invoices).
  ...phrasings(6, ["how big is the quanta deal"], async (t) => {
    const deal = await only(t, "deals", "company = 'Quanta Analytics'");
    const invoices = await t.rows<Row>("invoices", "client = 'Quanta Analytics'");
    const present = [t.money(deal.value!, deal.cur!)];
    return {
      present,
      absent: besides(
        present,
        invoices.map((i) => t.money(i.amount!, i.cur!)),
      ),
    };
  }),
  // Sofia Novak's deals, summed per currency; Theo Novak's are wrong.
  ...phrasings(6, ["sofia novaks deals - what are they worth all together"], (t) =>
    totalOf(t, "deals", "value", "contact_name = 'Sofia Novak'", ["contact_name = 'Theo Novak'"]),
  ),
];

// 7. Follow-ups that refine ---------------------------------------------------------------------

const refinements: Case[] = [
  // Overdue, strictly over 10,000 (on what is owed the same set: checked).
  ...followUps(["list overdue invoices"], ["which of those r over 10k"], (t) =>
    eitherReading(t, "s = 'overdue'", "amount > 10000", "owed > 10000"),
  ),
  // Unpaid and in US dollars.
  ...followUps(["whats unpaid right now"], ["just the usd ones"], (t) =>
    t.list("invoices", `${UNPAID} AND cur = 'USD'`),
  ),
  // Product designer candidates not rejected.
  ...followUps(["product designer applicants?"], ["which of them havent been rejected"], (t) =>
    t.list("candidates", "position = 'Product designer' AND status <> 'rejected'"),
  ),
  // Lost deals' values summed per currency; the won ones', or every deal's, is wrong.
  ...followUps(["deals we lost"], ["what were they worth combined"], (t) =>
    totalOf(t, "deals", "value", "stage = 'lost'", ["stage = 'won'", "true"]),
  ),
  // Helios Energy's deals, the won ones (two share a title).
  ...followUps(["what deals do we have going with helios"], ["just the won ones"], (t) =>
    t.list("deals", "company = 'Helios Energy' AND stage = 'won'"),
  ),
  // Screening candidates with at least one verified skill.
  ...followUps(["candidates in screening"], ["which of them have at least one skill verified"], (t) =>
    t.list(
      "candidates",
      "status = 'screening' AND EXISTS (SELECT 1 FROM skills k WHERE k.candidate_id = v.id AND k.status = 'verified')",
    ),
  ),
  // Unpaid, due in April, strictly over 5,000 (on what is owed the same set: checked).
  ...followUps(["unpaid invoices due next month"], ["only the ones over 5k"], (t) =>
    eitherReading(t, `${UNPAID} AND ${within("due_date", ...APRIL)}`, "amount > 5000", "owed > 5000"),
  ),
  // Issued in February and paid; every paid invoice's count is wrong (February's own count, which a
  // right reply may repeat, is not).
  ...followUps(["how many invoices did we send out in feb"], ["how many of those got paid"], (t) =>
    listOf(t, "invoices", `s = 'paid' AND ${within("issued_at", ...FEBRUARY)}`, ["s = 'paid'"]),
  ),
  // Open deals, the four largest (the won 19,500 and 14,000 ones are out).
  ...followUps(["show me our 4 biggest deals"], ["only the ones still open"], (t) =>
    best(t, "deals", OPEN_DEAL, "value", 4),
  ),
  // Candidates created in March applying as account executives.
  ...followUps(["who applied this month"], ["just for account exec"], (t) =>
    t.list("candidates", `position = 'Account executive' AND ${within("created_at", ...MARCH)}`),
  ),
  // Expected to close in April, the largest value.
  ...followUps(["deals expected to close next month"], ["which one's the biggest"], (t) =>
    best(t, "deals", within("expected_close_date", ...APRIL), "value", 1),
  ),
  // Overdue, the three with the earliest due date.
  ...followUps(["unpaid invoices", "just the overdue ones"], ["which 3 have been overdue the longest"], (t) =>
    best(t, "invoices", "s = 'overdue'", "due_date", 3, "asc"),
  ),
];

export const holdout17: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
