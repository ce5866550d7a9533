import { followUps, phrasings, type Case } from "./grade.ts";
import { UNPAID, OPEN_DEAL } from "./truths.ts";

/**
 * The phrasing exam's cases for the ways of speaking that belong to every question rather than to
 * one: a bound said after its number ("9600 or bigger", "5k or less", "7+"), a range said "anywhere
 * from … up to …", a leaving-out ("leave out the dollar ones", "drafts and voids aside", "except the
 * ones we turned down"), "em" for them, "narrow to", "break down … by", parts of a month ("the first
 * half of march", "1st week of feb", "the first 10 days of april"), a week from a day, "mar" and day
 * ranges without "from", "since monday" and "since the 10th", and the payments of an invoice said by
 * its number. Today is 2026-03-18, a Wednesday; conventions are grade.ts's.
 */

/** `column` in [from, to) (`to` exclusive), as a where clause. */
const within = (column: string, from: string, to: string) => `${column} >= '${from}' AND ${column} < '${to}'`;

export const operators: Case[] = [
  // 1. Bounds said after the number, both ends included.
  ...phrasings(1, ["which paymnts were 9600 or bigger", "payments of 9,600 and up", "pmts 9600+"], (t) =>
    t.list("payments", "amount >= 9600"),
  ),
  ...phrasings(1, ["open deals 5k or less", "open deals worth 5000 or under"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND value <= 5000`),
  ),
  ...phrasings(
    1,
    ["unpaid invs anywhere from 5k up to 10k incl", "unpaid invoices from 5,000 to 10,000"],
    (t) => t.list("invoices", `${UNPAID} AND amount >= 5000 AND amount <= 10000`),
  ),
  // 5. Left out, aside, except the ones….
  ...phrasings(5, ["unpaid invoices, leave out the dollar ones", "unpaid invs minus the usd ones"], (t) =>
    t.list("invoices", `${UNPAID} AND cur <> 'USD'`),
  ),
  ...phrasings(
    5,
    ["list applicants except the ones we turned down", "candidates other than the rejected ones"],
    (t) => t.list("candidates", "status <> 'rejected'"),
  ),
  ...phrasings(5, ["invoices except the paid ones", "every invoice, leaving out the paid ones"], (t) =>
    t.list("invoices", "s <> 'paid'"),
  ),
  // 4. Parts of a month, a week from a day, bare ranges, "since".
  ...phrasings(4, ["invoices sent 1st week of march", "invoices issued in the first week of mar"], (t) =>
    t.list("invoices", within("issued_at", "2026-03-01", "2026-03-08")),
  ),
  ...phrasings(
    4,
    ["emails we sent in the first half of march", "outbound emails in the 1st half of mar"],
    (t) =>
      t.list(
        "communications",
        `channel = 'email' AND direction = 'outbound' AND ${within("occurred_at", "2026-03-01", "2026-03-16")}`,
      ),
  ),
  ...phrasings(4, ["anything slated to close in the first 10 days of april"], (t) =>
    t.list(
      "deals",
      `${OPEN_DEAL} AND expected_close_date >= '2026-04-01' AND expected_close_date < '2026-04-11'`,
    ),
  ),
  ...phrasings(4, ["invoices we sent out the week of jan 26", "invs issued the week starting jan 26"], (t) =>
    t.list("invoices", within("issued_at", "2026-01-26", "2026-02-02")),
  ),
  ...phrasings(4, ["how many client interactions in the week starting mar 2"], async (t) => ({
    present: [t.bold(await t.count("communications", within("occurred_at", "2026-03-02", "2026-03-09")))],
  })),
  ...phrasings(4, ["unpaid inv due mar 20 thru apr 5", "unpaid invoices due mar 20 - apr 5"], (t) =>
    t.list("invoices", `${UNPAID} AND due_date >= '2026-03-20' AND due_date <= '2026-04-05'`),
  ),
  ...phrasings(4, ["payments we got jan 10 - mar 10"], (t) =>
    t.list("payments", within("received_at", "2026-01-10", "2026-03-11")),
  ),
  ...phrasings(4, ["what invoices have gone out since the 10th"], (t) =>
    t.list("invoices", within("issued_at", "2026-03-10", "2026-03-19")),
  ),
  ...phrasings(4, ["how many convos have we logged since monday"], async (t) => ({
    present: [t.bold(await t.count("communications", within("occurred_at", "2026-03-16", "2026-03-19")))],
  })),
  ...phrasings(
    4,
    ["skills signed off in the last 30 days", "which skills got checked off within the past 30 days"],
    (t) => t.list("skills", `status = 'verified' AND ${within("verified_at", "2026-02-16", "2026-03-19")}`),
  ),
  // 3. Per period, the months said in a row.
  ...phrasings(3, ["billed per month for jan feb mar, leave out voided ones"], async (t) => {
    const months = await t.sql<{ total: string; cur: string }>(
      `SELECT sum(amount)::text AS total, trim(currency) AS cur FROM invoices
        WHERE org_id = $1 AND status NOT IN ('void', 'draft') AND issued_at >= '2026-01-01' AND issued_at < '2026-04-01'
        GROUP BY date_trunc('month', issued_at), trim(currency)`,
    );
    return { present: months.map((row) => t.money(row.total, row.cur)) };
  }),
  ...phrasings(3, ["break down paymnets by method, how many of each"], async (t) => {
    const methods = await t.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM payments WHERE org_id = $1 GROUP BY method ORDER BY method",
    );
    return { present: methods.map((row) => t.bold(row.n)) };
  }),
  // 5. What a record does not have among its related records: a skill by name, conversations on a channel.
  ...phrasings(
    5,
    [
      "which candidates don't have typescript",
      "who among the applicants doesnt have typescript",
      "applicants without typescript",
    ],
    (t) =>
      t.list(
        "candidates",
        "NOT EXISTS (SELECT 1 FROM skills k WHERE k.candidate_id = v.id AND lower(k.name) = 'typescript')",
      ),
  ),
  ...phrasings(5, ["applicants without sql", "candidates that do not list sql"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills k WHERE k.candidate_id = v.id AND lower(k.name) = 'sql')",
    ),
  ),
  ...phrasings(
    5,
    ["contacts we've never phoned", "contacts we have never called", "contacts who have never been called"],
    (t) =>
      t.list(
        "contacts",
        "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel = 'call')",
      ),
  ),
  ...phrasings(5, ["who have we never texted or called"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.channel IN ('call', 'sms'))",
    ),
  ),
  ...phrasings(
    5,
    ["which contacts have never reached out to us themselves", "contacts that never got in touch with us"],
    (t) =>
      t.list(
        "contacts",
        "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.direction = 'inbound')",
      ),
  ),
  ...phrasings(5, ["who has never sent us an email", "contacts that have never emailed us"], (t) =>
    t.list(
      "contacts",
      "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id AND m.direction = 'inbound' AND m.channel = 'email')",
    ),
  ),
  // 2. One record by a date ("the latest due date", "due soonest": from today), any status said away.
  ...phrasings(2, ["inv with the latest due date?", "which invoice is due the furthest out"], (t) =>
    t.top("invoices", "true", "due_date", 1),
  ),
  ...phrasings(2, ["among paid invoices which one was due earliest", "the paid invoice due first"], (t) =>
    t.top("invoices", "s = 'paid'", "due_date", 1, "asc"),
  ),
  ...phrasings(2, ["which invoice is due next", "the invoice due soonest"], (t) =>
    t.top("invoices", "s = 'open' AND due_date >= $2::date", "due_date", 1, "asc"),
  ),
  ...phrasings(
    2,
    ["which payment came in first, ever", "whats the first payment we ever got in the system"],
    (t) =>
      t.top("payments", "true", "received_at", 1, "asc").then(async (top) => ({
        present: await t
          .sql<{ a: string; c: string }>(
            "SELECT amount::text AS a, trim(currency) AS c FROM payments WHERE org_id = $1 ORDER BY received_at LIMIT 1",
          )
          .then((rows) => rows.map((row) => t.money(row.a, row.c))),
        absent: top.absent,
      })),
  ),
  ...phrasings(
    2,
    ["top 3 deals by value, doesnt matter if won or not", "3 biggest deals regardless of stage"],
    (t) => t.top("deals", "true", "value", 3),
  ),
  ...phrasings(2, ["biggest deal we lost? still stings"], (t) =>
    t.top("deals", "stage = 'lost'", "value", 1),
  ),
  ...phrasings(2, ["which applicant has been sitting in our pipeline the longest"], (t) =>
    t.top("candidates", "true", "created_at", 1, "asc"),
  ),
  // 1. Comparisons said as prices, "alive" deals.
  ...phrasings(1, ["anything in the price list cheaper than 1000?", "products cheaper than 1,000"], (t) =>
    t.list("products", "price < 1000"),
  ),
  ...phrasings(1, ["deals under 5k that are still alive"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND value < 5000`),
  ),
  // 3. An average per record said as "per invoice"; "the skills people list".
  ...phrasings(3, ["on avg how much is still owed per unpaid invoice"], async (t) => ({
    present: await t.average("invoices", "owed", UNPAID),
  })),
  ...phrasings(3, ["what fraction of the skills ppl list have we actually verified"], (t) =>
    t.share("skills", "status = 'verified'").then((present) => ({ present })),
  ),
  // 5. Turned down for jobs; not come by a method; not a single payment.
  ...phrasings(5, ["who did we turn down for jobs"], (t) => t.list("candidates", "status = 'rejected'")),
  ...phrasings(5, ["payments that didnt come by bank transfer"], (t) =>
    t.list("payments", "method <> 'bank_transfer'"),
  ),
  ...phrasings(5, ["how many unpaid invoices havent had a single payment against them"], async (t) => ({
    present: [t.bold(await t.count("invoices", `${UNPAID} AND amount_paid = 0`))],
  })),
  // 1, 3, 5. Contractions without their apostrophe ("weve"), what was paid in, a remark after a dash,
  // a vague figure beside a precise one, "nothing verified", "not a single cent" on invoices.
  ...phrasings(
    1,
    ["part paid invoices where weve already got more than 1500 in but theyre not settled"],
    (t) => t.list("invoices", `${UNPAID} AND amount_paid > 1500`),
  ),
  ...phrasings(1, ["overdue invoices where they owe us less than 1k — small fry, might write off"], (t) =>
    t.list("invoices", "s = 'overdue' AND owed < 1000"),
  ),
  ...phrasings(3, ["whats the typical payment we get - median not mean"], async (t) => {
    const present = await t.median("payments", "amount");
    const mean = await t.average("payments", "amount");
    return { present, absent: mean.filter((value) => !present.includes(value)) };
  }),
  ...phrasings(
    3,
    ["on average how much is still owed per unpaid invoice, balance not the full amt"],
    async (t) => ({
      present: await t.average("invoices", "owed", UNPAID),
      absent: await t.average("invoices", "amount", UNPAID),
    }),
  ),
  ...phrasings(5, ["which candidates have nothing verified yet"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills k WHERE k.candidate_id = v.id AND k.status = 'verified')",
    ),
  ),
  ...phrasings(5, ["unpaid invs where we havent received a single cent"], (t) =>
    t.list("invoices", `${UNPAID} AND amount_paid = 0`),
  ),
  ...phrasings(4, ["how many invoices got paid off this month"], (t) =>
    t.list("invoices", "s = 'paid' AND paid_at >= '2026-03-01' AND paid_at < '2026-04-01'"),
  ),
  ...phrasings(4, ["how many ppl applied this month"], async (t) => ({
    present: [
      t.bold(await t.count("candidates", "created_at >= '2026-03-01' AND created_at < '2026-04-01'")),
    ],
  })),
  ...phrasings(2, ["who owes us the most money at the moment"], async (t) => {
    const owed = await t.sql<{ client: string }>(
      `SELECT client FROM invoices WHERE org_id = $1 AND status IN ('open', 'overdue')
        GROUP BY client ORDER BY sum(amount - amount_paid) DESC LIMIT 2`,
    );
    return { present: [owed[0]!.client], absent: [owed[1]!.client] };
  }),
  // 2, 3, 4. The client billed the most (invoiced, not paid); paid the most in a month (payments received
  // then); "by the end of this quarter"; "across everything in the crm"; "emails calls everything".
  // Each currency ranked on its own: the top client in each, the euro runner-up (unless it tops another) absent.
  ...phrasings(2, ["which client have we billed the most"], async (t) => {
    const billed = await t.sql<{ client: string; cur: string; n: number }>(
      `SELECT client, trim(currency) AS cur, row_number() OVER (PARTITION BY trim(currency) ORDER BY sum(amount) DESC)::int AS n
        FROM invoices WHERE org_id = $1 AND status IN ('open', 'paid') GROUP BY client, trim(currency)`,
    );
    const tops = billed.filter((row) => row.n === 1).map((row) => row.client);
    const second = billed.find((row) => row.cur === "EUR" && row.n === 2)!.client;
    return { present: tops, absent: tops.includes(second) ? [] : [second] };
  }),
  ...phrasings(2, ["which client paid us the most in march"], async (t) => {
    const paid = await t.sql<{ client: string }>(
      `SELECT i.client FROM payments p JOIN invoices i ON i.id = p.invoice_id
        WHERE p.org_id = $1 AND trim(p.currency) = 'EUR' AND p.received_at >= '2026-03-01' AND p.received_at < '2026-04-01'
        GROUP BY i.client ORDER BY sum(p.amount) DESC LIMIT 2`,
    );
    return { present: [paid[0]!.client], absent: [paid[1]!.client] };
  }),
  ...phrasings(2, ["who have we been in touch with the most, like emails calls everything"], async (t) => {
    const most = await t.sql<{ name: string }>(
      `SELECT c.name FROM communications m JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1
        GROUP BY c.name ORDER BY count(*) DESC LIMIT 1`,
    );
    return { present: [most[0]!.name] };
  }),
  ...phrasings(3, ["median deal size across everything in the crm"], async (t) => ({
    present: await t.median("deals", "value"),
  })),
  ...phrasings(4, ["which deals r supposed to close by the end of this quarter"], (t) =>
    t.list("deals", "expected_close_date >= '2026-01-01' AND expected_close_date < '2026-04-01'"),
  ),
  // 6. What a client is "on the hook for".
  ...phrasings(6, ["how much is acme logistics still on the hook for"], async (t) => ({
    present: await t.total("invoices", "owed", `${UNPAID} AND client = 'Acme Logistics'`),
  })),
  // 6. The payments of an invoice said by its number.
  ...phrasings(
    6,
    ["any pmts logged on inv 18?", "payments on invoice 18", "payments against INV-000018"],
    (t) => t.list("payments", "invoice_number = 'INV-000018'"),
  ),
  // 7. Narrowing said as a verb, "em" for them.
  ...followUps(
    ["pull up the pipeline", "narrow to qualified"],
    ["which of em are supposed to close in april"],
    (t) =>
      t.list(
        "deals",
        "stage = 'qualified' AND expected_close_date >= '2026-04-01' AND expected_close_date < '2026-05-01'",
      ),
  ),
  ...followUps(["invoices for helios energy"], ["which are still unpaid"], (t) =>
    t.list("invoices", `${UNPAID} AND client = 'Helios Energy'`),
  ),
  ...followUps(["deals closing in april"], ["which is worth the most"], (t) =>
    t.top(
      "deals",
      `${OPEN_DEAL} AND expected_close_date >= '2026-04-01' AND expected_close_date < '2026-05-01'`,
      "value",
      1,
    ),
  ),
  ...followUps(["contacts who r still leads"], ["whats their emails"], async (t) => ({
    present: (
      await t.sql<{ email: string }>(
        "SELECT email FROM contacts WHERE org_id = $1 AND lifecycle_stage = 'lead'",
      )
    ).map((row) => row.email),
  })),
  ...followUps(["payments above a thousand"], ["leave out bank transfers"], (t) =>
    t.list("payments", "amount > 1000 AND method <> 'bank_transfer'"),
  ),
  ...followUps(["payments above a thousand"], ["filter it down to card"], (t) =>
    t.list("payments", "amount > 1000 AND method = 'card'"),
  ),
  // A verb said in the negative names no date; "this months invoices" are the ones issued this month.
  ...phrasings(
    4,
    ["this months invoices still unpaid", "invoices from this month that have not been paid"],
    (t) => t.list("invoices", `${UNPAID} AND ${within("issued_at", "2026-03-01", "2026-04-01")}`),
  ),
  // "on or before", "no later than": the day itself included.
  ...phrasings(
    4,
    ["open deals expected to close on or before apr 3", "open deals closing no later than april 3"],
    (t) => t.list("deals", `${OPEN_DEAL} AND expected_close_date <= '2026-04-03'`),
  ),
  // Of two verbs, the one right before the date is its.
  ...phrasings(4, ["paid invoices that were due before feb 21"], (t) =>
    t.list("invoices", "s = 'paid' AND due_date < '2026-02-21'"),
  ),
  // How many related records there are, bounded.
  ...phrasings(
    1,
    ["candidates with fewer than 3 skills", "applicants that have less than 3 skills listed"],
    (t) => t.list("candidates", "(SELECT count(*) FROM skills s WHERE s.candidate_id = v.id) < 3"),
  ),
  ...phrasings(1, ["contacts with at least 3 deals"], (t) =>
    t.list("contacts", "(SELECT count(*) FROM deals d WHERE d.contact_id = v.id) >= 3"),
  ),
  // Owed said as what is left: "with more than 5k left on them".
  ...phrasings(
    1,
    ["unpaid invoices with more than 5k left on them", "unpaid invs that still have over 5k left to pay"],
    (t) => t.list("invoices", `${UNPAID} AND owed > 5000`),
  ),
  // "excluding the partly paid ones": nothing paid on them yet.
  ...phrasings(5, ["overdue invoices excluding the partly paid ones", "overdue bills not partly paid"], (t) =>
    t.list("invoices", "s = 'overdue' AND amount_paid = 0"),
  ),
  // "the biggest single payment", "payments that landed": received.
  ...phrasings(2, ["biggest single payment that landed this month"], (t) =>
    t.top("payments", within("received_at", "2026-03-01", "2026-04-01"), "amount", 1),
  ),
  // "sitting at proposal": in that stage; "sitting there the longest": the oldest.
  ...phrasings(2, ["smallest deal sitting at proposal", "the smallest of the deals stuck in proposal"], (t) =>
    t.top("deals", "stage = 'proposal'", "value", 1, "asc"),
  ),
  // A share said of a currency alone is not a win rate.
  ...phrasings(3, ["what share of our deals are in usd"], async (t) => ({
    present: await t.share("deals", "cur = 'USD'"),
  })),
  // The clients with nothing paid on any invoice.
  ...phrasings(
    5,
    ["which customers have never paid us a cent", "any clients who never paid anything"],
    async (t) => {
      const rows = await t.sql<{ client: string }>(
        `SELECT client FROM invoices WHERE org_id = $1 AND status IN ('open', 'paid')
        GROUP BY client HAVING sum(amount_paid) = 0 ORDER BY client`,
      );
      if (rows.length === 0) throw new Error("every client paid something");
      return { present: rows.map((row) => row.client) };
    },
  ),
  // Follow-ups: a count of the list's own narrowed; an order said "by how much is still owed".
  ...followUps(["show the open deals"], ["how many of those are in proposal"], (t) =>
    t.count("deals", "stage = 'proposal'").then((n) => ({ present: [t.bold(n)] })),
  ),
  ...followUps(["whats overdue"], ["top 2 by how much is still owed"], (t) =>
    t.top("invoices", "s = 'overdue'", "owed", 2),
  ),
  // Every status said as such; a status left out said as "don't count".
  ...phrasings(1, ["how many invoices are over 5k, drafts voids everything"], async (t) => ({
    present: [t.bold(await t.count("invoices", "amount > 5000"))],
  })),
  ...phrasings(4, ["how much did we invoice in january, dont count the voided ones"], async (t) => ({
    present: await t.total(
      "invoices",
      "amount",
      `s <> 'void' AND ${within("issued_at", "2026-01-01", "2026-02-01")}`,
    ),
  })),
  // Paid, but after the due date.
  ...phrasings(5, ["which invoices weren't paid on time", "invoices that were paid late"], (t) =>
    t.list("invoices", "s = 'paid' AND paid_at::date > due_date"),
  ),
  // The clients with nothing outstanding on any invoice they were sent.
  ...phrasings(5, ["which customers owe us nothing", "clients that are all paid up"], async (t) => {
    const rows = await t.sql<{ client: string }>(
      `SELECT client FROM invoices WHERE org_id = $1 AND status IN ('open', 'paid')
        GROUP BY client HAVING sum(amount - amount_paid) FILTER (WHERE status = 'open') IS NULL ORDER BY client`,
    );
    if (rows.length === 0) throw new Error("every client owes something");
    return { present: rows.map((row) => row.client) };
  }),
  // After a list: "which 2 owe us the most" are its invoices with the most still owed; a period stays.
  ...followUps(["unpaid invoices"], ["which 2 owe us the most"], (t) => t.top("invoices", UNPAID, "owed", 2)),
  ...followUps(["deals we won last month"], ["what's that worth altogether"], async (t) => ({
    present: await t.total(
      "deals",
      "value",
      `stage = 'won' AND ${within("closed_at", "2026-02-01", "2026-03-01")}`,
    ),
  })),
  ...followUps(["comms with jonas tanaka"], ["only the ones that came from him"], (t) =>
    t.list("communications", "contact_name = 'Jonas Tanaka' AND direction = 'inbound'"),
  ),
];
