import { followUps, phrasings, type Case, type Expectation, type Q, type Resource } from "./grade.ts";
import {
  aggregate,
  besides,
  best,
  countOf,
  only,
  totalOf,
  within,
  type Row,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  LAST_WEEK,
  THIS_WEEK,
  YEAR,
} from "./truths.ts";

/**
 * The ELEVENTH HOLDOUT phrasing exam: 84 owners' questions (12 per category) in the seven
 * categories of the phrasing exam, written blind (without reading the planner, its documentation or
 * its answers, and without running it on them), the way a busy owner types into a chat: lower case,
 * typos, abbreviations, filler, asides, run-on sentences. None is copied from the other case files.
 * The conventions are grade.ts's; every truth is computed from the tables when the test runs, and a
 * truth that would be empty, tied or ambiguous throws (the exam's own fault, reported apart).
 * Today is 2026-03-18, a Wednesday: this week is 2026-03-16..22 (Monday start), last week
 * 2026-03-09..15, this month March, last month February, next month April, this year 2026, q1
 * January to March; "the next 14 days" is 2026-03-18..2026-04-01.
 */

/** A list (grade.ts's), with the counts of plausible wrong sets absent too. */
const listNot = async (t: Q, resource: Resource, where: string, wrong: string[]): Promise<Expectation> => {
  const found = await t.list(resource, where);
  const n = await t.count(resource, where);
  const absent = [...(found.absent ?? [])];
  for (const other of wrong) {
    const m = await t.count(resource, other);
    if (m !== n) absent.push(t.bold(m));
  }
  return { present: found.present, absent: [...new Set(absent)] };
};

/** A ratio present; the ratios (and parts) of `wrong` (part, whole) pairs absent. */
const shareNot = async (
  t: Q,
  resource: Resource,
  part: string,
  whole: string,
  wrong: Array<[string, string]> = [],
): Promise<Expectation> => {
  const present = await t.share(resource, part, whole);
  const others: string[] = [];
  for (const [p, w] of wrong) others.push(...(await t.share(resource, p, w)));
  return { present, absent: besides(present, others) };
};

/**
 * The one name ranked first by `text` (rows of `name` and `n`, best first), with `extra` texts
 * present; throws on no rows or a tie for first place.
 */
const first = async (
  t: Q,
  text: string,
  extra: (top: { name: string; n: string }) => string[] = () => [],
) => {
  const rows = await t.sql<{ name: string; n: string }>(text);
  if (rows.length === 0) throw new Error("a ranking of nothing");
  if (rows.length > 1 && String(rows[0]!.n) === String(rows[1]!.n))
    throw new Error(`tie for first place: ${rows[0]!.name} and ${rows[1]!.name}`);
  return { present: [rows[0]!.name, ...extra(rows[0]!)], absent: [] as string[] };
};

/** A record's field, which must be set. */
const field = (row: Row, name: string) => {
  const value: unknown = row[name];
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === "string" || typeof value === "number") return String(value);
  throw new Error(`no ${name}`);
};

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Unpaid (open or overdue) strictly over 20,000: the same three on amount or on what is owed.
  ...phrasings(1, ["got any unpaid invoices north of 20k??"], (t) =>
    t.list("invoices", `${UNPAID} AND amount > 20000`),
  ),
  // Still in play (lead, qualified, proposal), strictly under 5,000, every currency (the 4,200 USD pilot is in).
  ...phrasings(1, ["deals under 5k that are still alive"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND value < 5000`),
  ),
  // A euro sign restricts to EUR; strict.
  ...phrasings(1, ["pls list payments that came in over €10k"], (t) =>
    t.list("payments", "cur = 'EUR' AND amount > 10000"),
  ),
  // Applied = the candidate's record created; before March 1st.
  ...phrasings(1, ["candidates who applied before march, any?"], (t) =>
    t.list("candidates", "created_at < '2026-03-01'"),
  ),
  // "owing" is what is owed: INV-000002 (3,200.50, owing 1,600.50) and INV-000018 (5,000, owing
  // 2,500) are over 3k on amount but not on what is owed.
  ...phrasings(1, ["which unpaid invs still have more than 3k owing on them"], (t) =>
    listNot(t, "invoices", `${UNPAID} AND owed > 3000`, [`${UNPAID} AND amount > 3000`]),
  ),
  // Inclusive, every stage: the 14,000 renewal and 14,000 seat expansion are in.
  ...phrasings(1, ["deals worth at least 14k - any stage"], (t) => t.list("deals", "value >= 14000")),
  // Every product is in EUR; strict.
  ...phrasings(1, ["anything in the price list cheaper than 1000?"], (t) =>
    t.list("products", "price < 1000"),
  ),
  // Inclusive both ends, every currency: 1,000, 1,600, 2,000 and 2,500 EUR.
  ...phrasings(1, ["show me paymnets between 1000 and 2500"], (t) =>
    t.list("payments", "amount BETWEEN 1000 AND 2500"),
  ),
  // Overdue (the shown status) strictly under 1,000: the 1,250.50 USD one is out.
  ...phrasings(1, ["overdue invoices less than 1k, the small stuff basically"], (t) =>
    t.list("invoices", "s = 'overdue' AND amount < 1000"),
  ),
  // Skills counted per candidate (any status), strictly more than three.
  ...phrasings(1, ["who's got more than 3 skills listed? candidates i mean"], (t) =>
    t.list("candidates", "(SELECT count(*) FROM skills k WHERE k.candidate_id = v.id) > 3"),
  ),
  // Issued on a day after 2026-02-20 (INV-000020, issued that day, is out); drafts were never issued.
  ...phrasings(1, ["how many invoices did we send out after feb 20"], (t) =>
    listNot(t, "invoices", "issued_at::date > '2026-02-20'", ["issued_at::date >= '2026-02-20'"]),
  ),
  // Expected close strictly before 2026-04-10 (the 04-10 Blue Fjord migration is out), any stage.
  ...phrasings(1, ["deals w an expected close date before april 10th"], (t) =>
    t.list("deals", "expected_close_date < '2026-04-10'"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Overdue (shown status): INV-000019 at 38,400 over the two 28,800 ones.
  ...phrasings(2, ["whats the biggest overdue inv rn"], (t) =>
    best(t, "invoices", "s = 'overdue'", "amount", 1),
  ),
  // Open deals, the smallest value: the 500 EUR Northwind renewal (its title is shared with the
  // 3,500 one, so its value is what tells them apart).
  ...phrasings(2, ["smallest deal still in play?"], async (t) => {
    const found = await best(t, "deals", OPEN_DEAL, "value", 1, "asc");
    return {
      present: [...found.present, t.money("500", "EUR")],
      absent: [...(found.absent ?? []), t.money("3500", "EUR")],
    };
  }),
  // Unpaid by issue date, oldest first (by due date the same three).
  ...phrasings(2, ["the three oldest unpaid bills pls"], (t) =>
    best(t, "invoices", UNPAID, "issued_at", 3, "asc"),
  ),
  // What is owed per client (EUR; the dollar balances are small): Larkspur 38,400 over Oakridge 36,400.
  ...phrasings(2, ["who owes us the most money right now"], (t) =>
    first(
      t,
      `SELECT client AS name, sum(amount - amount_paid)::text AS n FROM invoices
        WHERE org_id = $1 AND status = 'open' AND trim(currency) = 'EUR' GROUP BY client ORDER BY sum(amount - amount_paid) DESC`,
      (top) => [t.money(top.n, "EUR")],
    ),
  ),
  // Every stage, by value: 19,500, 17,000, 15,000 (then 14,000 twice).
  ...phrasings(2, ["top 3 deals by value, doesnt matter if won or not"], (t) =>
    best(t, "deals", "true", "value", 3),
  ),
  // The earliest payment received.
  ...phrasings(2, ["whats the first payment we ever got in the system"], (t) =>
    best(t, "payments", "true", "received_at", 1, "asc"),
  ),
  ...phrasings(2, ["cheapest thing we sell?"], (t) => best(t, "products", "true", "price", 1, "asc")),
  // Verified skills per candidate: one candidate has three, the others at most one.
  ...phrasings(2, ["out of the candidates who has the most verified skills"], (t) =>
    first(
      t,
      `SELECT c.name, count(*)::text AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
        WHERE s.org_id = $1 AND s.status = 'verified' GROUP BY c.name ORDER BY count(*) DESC`,
    ),
  ),
  // Lost deals, the largest: the 13,500 Acme workshop (its title is shared with an open 7,500 deal).
  ...phrasings(2, ["biggest deal we lost? still stings"], async (t) => {
    const found = await best(t, "deals", "stage = 'lost'", "value", 1);
    return {
      present: [...found.present, t.money("13500", "EUR")],
      absent: [...(found.absent ?? []), t.money("3000", "EUR"), t.money("7500", "EUR")],
    };
  }),
  // Unpaid, the latest due date.
  ...phrasings(2, ["which unpaid invoice is due the furthest out"], (t) =>
    best(t, "invoices", UNPAID, "due_date", 1),
  ),
  // Candidates by created_at, oldest: the only one created before today.
  ...phrasings(2, ["which applicant has been sitting in our pipeline the longest"], (t) =>
    best(t, "candidates", "true", "created_at", 1, "asc"),
  ),
  // Unpaid by what is owed: 38,400, 28,800, 26,800, 19,200 (the fifth is a 9,600 tie).
  ...phrasings(2, ["the 4 invoices w the biggest balance still owing"], (t) =>
    best(t, "invoices", UNPAID, "owed", 4),
  ),
];

// 3. Aggregates ---------------------------------------------------------------------------------

const aggregates: Case[] = [
  // Won deals, per currency.
  ...phrasings(3, ["avg deal size on the ones we won?"], (t) =>
    aggregate(
      t.average("deals", "value", "stage = 'won'"),
      t.average("deals", "value"),
      t.average("deals", "value", OPEN_DEAL),
    ),
  ),
  // "Every invoice": open, overdue or paid; drafts and voids out.
  ...phrasings(3, ["median invoice amount across everything we've billed"], (t) =>
    aggregate(
      t.median("invoices", "amount", STANDING),
      t.median("invoices", "amount"),
      t.median("invoices", "amount", UNPAID),
    ),
  ),
  // Won among the closed (won or lost): 5 of 7; not won among every deal.
  ...phrasings(3, ["whats our win rate on deals that actually closed (won vs lost)"], (t) =>
    shareNot(t, "deals", "stage = 'won'", "stage IN ('won', 'lost')", [["stage = 'won'", "true"]]),
  ),
  // Paid invoices whose payment day is after their due date, among the paid ones.
  ...phrasings(3, ["of the invoices that got paid, what % were paid after the due date"], (t) =>
    shareNot(t, "invoices", "paid_at::date > due_date", "s = 'paid'"),
  ),
  // Card payments, per currency.
  ...phrasings(3, ["avg card paymnt size?"], (t) =>
    aggregate(
      t.average("payments", "amount", "method = 'card'"),
      t.average("payments", "amount"),
      t.average("payments", "amount", "method <> 'card'"),
    ),
  ),
  // Billed = issued, per calendar month of 2026 by issue date, standing invoices (voids and drafts out).
  ...phrasings(3, ["how much did we bill each month so far this yr, month by month"], async (t) => {
    const months = [JANUARY, FEBRUARY, MARCH];
    const present: string[] = [];
    const wrong: string[] = [];
    for (const [from, to] of months) {
      present.push(
        ...(await t.total("invoices", "amount", `${STANDING} AND ${within("issued_at", from, to)}`)),
      );
      wrong.push(
        ...(await t.total(
          "invoices",
          "amount",
          `issued_at IS NOT NULL AND ${within("issued_at", from, to)}`,
        )),
      );
      wrong.push(...(await t.total("invoices", "amount", `${STANDING} AND ${within("due_date", from, to)}`)));
    }
    if (present.length < 3) throw new Error("a month with nothing billed");
    return { present, absent: besides(present, wrong) };
  }),
  // Open deals, per currency: EUR 17,000 and 500; the largest of every deal would be 19,500.
  ...phrasings(3, ["biggest and smallest deal in the pipeline rn?"], async (t) => {
    const max = await t.perCurrency("deals", "max(value)", `${OPEN_DEAL} AND cur = 'EUR'`);
    const min = await t.perCurrency("deals", "min(value)", `${OPEN_DEAL} AND cur = 'EUR'`);
    const wrongMax = await t.perCurrency("deals", "max(value)", "cur = 'EUR'");
    if (max.length !== 1 || min.length !== 1) throw new Error("no open EUR deals");
    return { present: [...max, ...min], absent: besides([...max, ...min], wrongMax) };
  }),
  // What is owed, averaged over the unpaid ones, per currency.
  ...phrasings(3, ["on avg how much is still owed per unpaid invoice"], (t) =>
    aggregate(
      t.average("invoices", "owed", UNPAID),
      t.average("invoices", "amount", UNPAID),
      t.average("invoices", "owed", "s <> 'paid'"),
    ),
  ),
  ...phrasings(3, ["what % of our contacts r actually customers"], (t) =>
    shareNot(t, "contacts", "lifecycle_stage = 'customer'", "true"),
  ),
  // Verified skills among every skill (not the share of candidates with one).
  ...phrasings(3, ["what fraction of the skills ppl list have we actually verified"], (t) =>
    shareNot(t, "skills", "status = 'verified'", "true"),
  ),
  // Standing invoices issued in February, per currency (the voided one is out).
  ...phrasings(3, ["avg invoice we issued back in feb?"], (t) =>
    aggregate(
      t.average("invoices", "amount", `${STANDING} AND ${within("issued_at", ...FEBRUARY)}`),
      t.average("invoices", "amount", `issued_at IS NOT NULL AND ${within("issued_at", ...FEBRUARY)}`),
      t.average("invoices", "amount", STANDING),
      t.average("invoices", "amount", `${STANDING} AND ${within("due_date", ...FEBRUARY)}`),
    ),
  ),
  // Open deals, per currency: EUR median 9,000 (eleven deals), USD 4,200.
  ...phrasings(3, ["whats the median value of our open opps"], (t) =>
    aggregate(t.median("deals", "value", OPEN_DEAL), t.median("deals", "value")),
  ),
];

// 4. Calendar windows -----------------------------------------------------------------------------

const windows: Case[] = [
  // Payments received in February (calendar month), not the last 30 days.
  ...phrasings(4, ["what did we collect last mnth"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", ...FEBRUARY), [
      "received_at >= '2026-02-16'",
      within("received_at", ...MARCH),
    ]),
  ),
  // Issued in March (any status); due in March is a different set.
  ...phrasings(4, ["how many invoices went out this month"], (t) =>
    listNot(t, "invoices", within("issued_at", ...MARCH), [within("due_date", ...MARCH)]),
  ),
  // Unpaid, due today through 2026-04-01.
  ...phrasings(4, ["whats coming due in the next 14 days that hasnt been paid"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date >= '2026-03-18' AND due_date <= '2026-04-01'`),
  ),
  // Overdue by more than 30 days: due before 2026-02-16.
  ...phrasings(4, ["anything more than 30 days past due?"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date < '2026-02-16'`),
  ),
  // Won, closed in February; not the deals created in February.
  ...phrasings(4, ["which deals did we win last month"], (t) =>
    listNot(t, "deals", `stage = 'won' AND ${within("closed_at", ...FEBRUARY)}`, [
      within("created_at", ...FEBRUARY),
      "stage = 'won'",
    ]),
  ),
  // Every payment received in 2026, per currency; March alone is less.
  ...phrasings(4, ["total received ytd, all of it"], (t) =>
    totalOf(t, "payments", "amount", within("received_at", ...YEAR), [within("received_at", ...MARCH)]),
  ),
  // Unpaid, issued in January (nothing unpaid is due in January).
  ...phrasings(4, ["unpaid invoices from january, the ones we issued back then"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("issued_at", ...JANUARY)}`),
  ),
  // Expected close in April, not the next 30 days.
  ...phrasings(4, ["deals expected to close next month?"], (t) =>
    listNot(t, "deals", within("expected_close_date", ...APRIL), [
      "expected_close_date >= '2026-03-18' AND expected_close_date <= '2026-04-17'",
    ]),
  ),
  // Received Monday 2026-03-16 onward this week; the month has one more.
  ...phrasings(4, ["payments this week so far"], (t) =>
    listNot(t, "payments", within("received_at", ...THIS_WEEK), [within("received_at", ...MARCH)]),
  ),
  // Communications that happened last week (Monday to Sunday), not the last 7 days.
  ...phrasings(4, ["how many calls, emails etc did we have w people last week"], (t) =>
    countOf(t, "communications", within("occurred_at", ...LAST_WEEK), [
      "occurred_at >= '2026-03-11'",
      within("occurred_at", ...THIS_WEEK),
    ]),
  ),
  // Verified in March; one was verified in February.
  ...phrasings(4, ["how many skils got verified so far this month"], (t) =>
    countOf(t, "skills", within("verified_at", ...MARCH), ["status = 'verified'"]),
  ),
  // Owed (not amount) on unpaid invoices falling due in April.
  ...phrasings(4, ["how much is still owed on invoices that fall due in april"], (t) =>
    aggregate(
      t.total("invoices", "owed", `${UNPAID} AND ${within("due_date", ...APRIL)}`),
      t.total("invoices", "amount", `${UNPAID} AND ${within("due_date", ...APRIL)}`),
      t.total("invoices", "owed", `${UNPAID} AND ${within("issued_at", ...APRIL)}`),
    ),
  ),
];

// 5. Negation & the other side -------------------------------------------------------------------

const negations: Case[] = [
  // Candidates with no skill of status verified.
  ...phrasings(5, ["which candidates have zero verified skills"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills k WHERE k.candidate_id = v.id AND k.status = 'verified')",
    ),
  ),
  ...phrasings(5, ["contacts w/o a phone number on file"], (t) => t.list("contacts", "phone IS NULL")),
  ...phrasings(5, ["which deals fell thru"], (t) => t.list("deals", "stage = 'lost'")),
  ...phrasings(5, ["who did we turn down for jobs"], (t) => t.list("candidates", "status = 'rejected'")),
  // Unpaid = open or overdue (not drafts, not voids).
  ...phrasings(5, ["how many invs are still unpaid, roughly"], (t) =>
    countOf(t, "invoices", UNPAID, ["status <> 'paid'", "s = 'overdue'", "s = 'open'"]),
  ),
  ...phrasings(5, ["open deals that arent at proposal stage yet"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND stage <> 'proposal'`),
  ),
  // Unpaid with nothing paid; the partly paid ones are out.
  ...phrasings(5, ["how many unpaid invoices havent had a single payment against them"], (t) =>
    listNot(t, "invoices", `${UNPAID} AND amount_paid = 0`, [UNPAID]),
  ),
  ...phrasings(5, ["which deals dont have an expected close date set"], (t) =>
    t.list("deals", "expected_close_date IS NULL"),
  ),
  ...phrasings(5, ["overdue invoices - leave out kestrel robotics"], (t) =>
    t.list("invoices", "s = 'overdue' AND client <> 'Kestrel Robotics'"),
  ),
  // Still in the running: neither rejected nor hired.
  ...phrasings(5, ["who's still in the running for a job here (not rejected, not hired)"], (t) =>
    t.list("candidates", "status NOT IN ('rejected', 'hired')"),
  ),
  ...phrasings(5, ["payments that didnt come by bank transfer"], (t) =>
    t.list("payments", "method <> 'bank_transfer'"),
  ),
  // Claimed skills of the candidates still at interview, i.e. not verified yet.
  ...phrasings(5, ["skills not verified yet for ppl in the interview stage"], (t) =>
    t.list(
      "skills",
      "status <> 'verified' AND candidate_id IN (SELECT c.id FROM candidates c WHERE c.status = 'interview')",
    ),
  ),
];

// 6. Named records inside other resources --------------------------------------------------------

const named: Case[] = [
  ...phrasings(6, ["what stage is the arm retrofit at"], async (t) => {
    const deal = await only(t, "deals", "title ILIKE 'Arm retrofit%'");
    return {
      present: [field(deal, "stage")],
      absent: ["Pilot programme — Kestrel Robotics", "Robot fleet rollout — Kestrel Robotics"],
    };
  }),
  // The Solstice pilot was won at 6,000 EUR; the Kestrel pilot (lost) is 3,000.
  ...phrasings(6, ["how much did the solstice pilot close for"], async (t) => {
    const deal = await only(t, "deals", "title = 'Pilot programme — Solstice Travel'");
    if (deal.stage !== "won") throw new Error("the Solstice pilot is not won");
    return { present: [t.money(field(deal, "value"), field(deal, "cur"))], absent: [t.money("3000", "EUR")] };
  }),
  // The latest communication with Yara Haddad (Juniper Health): inbound, so "hear from" reads the
  // same either way; the latest communication of all (today) is someone else's.
  ...phrasings(6, ["when did we last hear from yara haddad"], async (t) => {
    const last = await t.sql<{ day: string | null; inbound: string | null }>(
      `SELECT max(m.occurred_at)::date::text AS day,
          (max(m.occurred_at) FILTER (WHERE m.direction = 'inbound'))::date::text AS inbound
        FROM communications m JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND c.name = 'Yara Haddad'`,
    );
    const day = last[0]?.day;
    if (!day) throw new Error("no communication with Yara Haddad");
    if (last[0]!.inbound !== day) throw new Error("the last word with Yara Haddad was ours: ambiguous");
    const latest = await t.value("SELECT max(occurred_at)::date::text FROM communications WHERE org_id = $1");
    return { present: [day], absent: besides([day], [latest ?? ""]).filter(Boolean) };
  }),
  // Meridian's unpaid invoice: what is owed (120.92), not its amount.
  ...phrasings(6, ["whats the balance left on meridian legal's open invoice"], async (t) => {
    const inv = await only(t, "invoices", `client = 'Meridian Legal' AND ${UNPAID}`);
    return {
      present: [t.money(field(inv, "owed"), field(inv, "cur"))],
      absent: [t.money(field(inv, "amount"), field(inv, "cur"))],
    };
  }),
  // Payments on Kestrel's invoices, per currency; not what was invoiced.
  ...phrasings(6, ["how much has kestrel paid us all in"], (t) =>
    aggregate(
      t.total("payments", "amount", "client = 'Kestrel Robotics'"),
      t.total("invoices", "amount", `client = 'Kestrel Robotics' AND ${STANDING}`),
    ),
  ),
  // The contact on the Riverbend retainer; Liam Moreau is a candidate.
  ...phrasings(6, ["who's our contact on the riverbend coffee deal"], async (t) => {
    const deal = await only(t, "deals", "title = 'Consulting retainer — Riverbend Coffee'");
    return { present: [field(deal, "contact_name")], absent: ["Liam Moreau"] };
  }),
  ...phrasings(6, ["what skills has noah iyer got (the candiate)"], (t) =>
    t.list("skills", "candidate_name = 'Noah Iyer'"),
  ),
  // Quanta's seat expansion: qualified, 15,000 EUR (the Helios ones are 2,500 and 14,000).
  ...phrasings(6, ["quanta seat expansion - is it still open and whats it worth"], async (t) => {
    const deal = await only(t, "deals", "title = 'Seat expansion — Quanta Analytics'");
    return {
      present: [field(deal, "stage"), t.money(field(deal, "value"), field(deal, "cur"))],
      absent: [t.money("2500", "EUR"), t.money("14000", "EUR")],
    };
  }),
  // Oakridge's 9,600 invoice: due 2026-04-02 (issued 2026-03-03).
  ...phrasings(6, ["when is the oakridge invoice for 9600 due"], async (t) => {
    const inv = await only(t, "invoices", "client = 'Oakridge Builders' AND amount = 9600");
    return {
      present: [field(inv, "due_date")],
      absent: [field(inv, "issued_at").slice(0, 10), "2026-02-10"],
    };
  }),
  // Amara Iyer's position; Amara Novak's is another.
  ...phrasings(6, ["remind me what role amara iyer applied for"], async (t) => {
    const cand = await only(t, "candidates", "name = 'Amara Iyer'");
    const other = await only(t, "candidates", "name = 'Amara Novak'");
    const right = field(cand, "position");
    return { present: [right], absent: besides([right], [field(other, "position")]) };
  }),
  // What is owed on Acme's unpaid invoices (not their amounts, not the void).
  ...phrasings(6, ["how much is acme logistics still on the hook for"], (t) =>
    aggregate(
      t.total("invoices", "owed", `client = 'Acme Logistics' AND ${UNPAID}`),
      t.total("invoices", "amount", `client = 'Acme Logistics' AND ${UNPAID}`),
      t.total("invoices", "amount", "client = 'Acme Logistics'"),
    ),
  ),
  ...phrasings(6, ["what company is sofia okafor with"], async (t) => {
    const contact = await only(t, "contacts", "name = 'Sofia Okafor'");
    return { present: [field(contact, "company")], absent: ["Blue Fjord Studio", "Quanta Analytics"] };
  }),
];

// 7. Follow-ups that refine -----------------------------------------------------------------------

const refinements: Case[] = [
  ...followUps(["show unpaid invoices"], ["which one is the biggest"], (t) =>
    best(t, "invoices", UNPAID, "amount", 1),
  ),
  // Overdue, issued in February.
  ...followUps(["list overdue invoices"], ["only the ones issued in feb"], (t) =>
    t.list("invoices", `s = 'overdue' AND ${within("issued_at", ...FEBRUARY)}`),
  ),
  // Received in March, in dollars only.
  ...followUps(["how much did we take in this month"], ["and in dollars?"], (t) =>
    aggregate(
      t.total("payments", "amount", `cur = 'USD' AND ${within("received_at", ...MARCH)}`),
      t.total("payments", "amount", `cur = 'EUR' AND ${within("received_at", ...MARCH)}`),
    ),
  ),
  ...followUps(["show me open deals"], ["just the ones over 10k"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND value > 10000`),
  ),
  ...followUps(
    ["who are our candidates for backend engineer"],
    ["which of them are still at screening"],
    (t) => t.list("candidates", "position = 'Backend engineer' AND status = 'screening'"),
  ),
  // Won deals' value, per currency.
  ...followUps(["deals we won"], ["whats the total on those"], (t) =>
    totalOf(t, "deals", "value", "stage = 'won'", ["true", OPEN_DEAL]),
  ),
  // Card payments received in March.
  ...followUps(["payments by card"], ["how many of those were this month"], (t) =>
    countOf(t, "payments", `method = 'card' AND ${within("received_at", ...MARCH)}`, [
      "method = 'card'",
      within("received_at", ...MARCH),
    ]),
  ),
  ...followUps(["invoices for helios energy"], ["which are still unpaid"], (t) =>
    t.list("invoices", `client = 'Helios Energy' AND ${UNPAID}`),
  ),
  ...followUps(["show candidates"], ["only the ones who came thru an agency"], (t) =>
    t.list("candidates", "source = 'agency'"),
  ),
  // The average amount of the unpaid invoices, per currency (not what is owed on them).
  ...followUps(["unpaid invoices"], ["avg amount?"], (t) =>
    aggregate(
      t.average("invoices", "amount", UNPAID),
      t.average("invoices", "owed", UNPAID),
      t.average("invoices", "amount", STANDING),
    ),
  ),
  // Expected to close in April, the largest value.
  ...followUps(["deals closing in april"], ["which is worth the most"], (t) =>
    best(t, "deals", within("expected_close_date", ...APRIL), "value", 1),
  ),
  // Priority-tagged contacts, then those still prospects.
  ...followUps(["contacts tagged priority"], ["which of those are still prospects"], (t) =>
    t.list("contacts", "'priority' = ANY(tags) AND lifecycle_stage = 'prospect'"),
  ),
];

export const holdout11: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
