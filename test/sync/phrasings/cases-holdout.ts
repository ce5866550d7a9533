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
  ratio,
  only,
  UNPAID,
  STANDING,
  OPEN_DEAL,
  JANUARY,
  FEBRUARY,
  MARCH,
  APRIL,
  MAY,
  THIS_WEEK,
  NEXT_WEEK,
  Q1,
} from "./truths.ts";

/**
 * The HOLDOUT phrasing exam: owners' questions in the seven categories of the phrasing exam,
 * written without reading the planner, in the words an owner types (lower case, typos,
 * abbreviations, slang, with or without punctuation), none of them copied from cases-1-3.ts,
 * cases-4-5.ts or cases-6-7.ts. The conventions are grade.ts's; every truth is computed from the
 * tables when the test runs. Today is 2026-03-18 (a Wednesday): this week is 2026-03-16..22, next
 * week 2026-03-23..29, this month March, Q1 January to March.
 */

/** Invoices that stand: issued and not cancelled (for "every invoice" aggregates). */

/** A top-N whose answer must also carry `extra` (its amount). */
const topWith = async (t: Q, args: Parameters<Q["top"]>, extra: (t: Q) => Promise<string[]>) => {
  const found = await t.top(...args);
  return { present: [...found.present, ...(await extra(t))], absent: found.absent };
};

/** A value per currency present, and the same aggregate over a plausible wrong set absent. */
const aggregate = async (present: Promise<string[]>, wrong: Promise<string[]>): Promise<Expectation> => {
  const right = await present;
  return { present: right, absent: (await wrong).filter((value) => !right.includes(value)) };
};

/** A count only (records without a label of their own); the counts of `wrong` sets absent. */
const countOf = async (t: Q, resource: Resource, where: string, wrong: string[] = []) => {
  const n = await t.count(resource, where);
  if (n === 0) throw new Error(`no ${resource} match ${where}: ask something with an answer`);
  const absent: string[] = [];
  for (const other of wrong) {
    const m = await t.count(resource, other);
    if (m !== n) absent.push(t.bold(m));
  }
  return { present: [t.bold(n)], absent };
};

/** Money received in a window, per currency; the totals of other windows absent. */
const received = async (t: Q, window: readonly [string, string], wrong: Array<readonly [string, string]>) => {
  const present = await t.total("payments", "amount", within("received_at", ...window));
  if (present.length === 0) throw new Error(`no payments in ${window.join("..")}`);
  const absent: string[] = [];
  for (const other of wrong)
    absent.push(...(await t.total("payments", "amount", within("received_at", ...other))));
  return { present, absent: [...new Set(absent)].filter((value) => !present.includes(value)) };
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

/** A deal named by a title word, its contact or its company: its title and `field`. */
const dealField =
  (where: string, field: "stage" | "value" | "expected_close_date" | "contact_name"): Case["expect"] =>
  async (t) => {
    const deal = await only(t, "deals", where);
    const value =
      field === "value"
        ? t.money(deal.value!, deal.cur!)
        : field === "expected_close_date"
          ? (await t.value("SELECT expected_close_date::text FROM deals WHERE org_id = $1 AND id = $2", [
              deal.id,
            ]))!
          : deal[field]!;
    return { present: [deal.title!, value] };
  };

/** The day (UTC) of a contact's latest communication matching `where` (on `m`). */
const lastContact =
  (name: string, where = "true"): Case["expect"] =>
  async (t) => {
    const day = await t.value(
      `SELECT to_char(max(m.occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM communications m
        JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1 AND c.name = $2 AND (${where})`,
      [name],
    );
    if (!day) throw new Error(`no communication with ${name}`);
    return { present: [name, day] };
  };

/** What a client owes: amount - amount_paid over its unpaid invoices, per currency. */
const owes =
  (client: string): Case["expect"] =>
  async (t) => {
    const present = await t.total("invoices", "owed", `${UNPAID} AND client = $3`, [client]);
    if (present.length === 0) throw new Error(`${client} owes nothing`);
    const everyone = await t.total("invoices", "owed", UNPAID);
    const full = await t.total("invoices", "amount", `${UNPAID} AND client = $3`, [client]);
    return {
      present: [client, ...present],
      absent: [...everyone, ...full].filter((value) => !present.includes(value)),
    };
  };

/** A candidate by name: the name and a field (`created_at` as its day). */
const candidateField =
  (name: string, field: "status" | "created_at"): Case["expect"] =>
  async (t) => {
    const row = await only(t, "candidates", "name = $3", [name]);
    const value =
      field === "created_at"
        ? (await t.value(
            "SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM candidates WHERE org_id = $1 AND id = $2",
            [row.id],
          ))!
        : row[field]!;
    return { present: [name, value] };
  };

// 1. Thresholds & comparisons -----------------------------------------------------------------

const thresholds: Case[] = [
  // Overdue above 20k: the amount and the amount still owed give the same three.
  ...phrasings(1, ["overdue inv above 20k pls"], (t) =>
    t.list("invoices", "s = 'overdue' AND amount > 20000"),
  ),
  ...phrasings(1, ["paid invoices under 500"], (t) => t.list("invoices", "s = 'paid' AND amount < 500")),
  // Strict: the 15,000 deal is out. Every stage.
  ...phrasings(1, ["deals north of 15k"], (t) => t.list("deals", "value > 15000")),
  // Inclusive, every currency: both 2,500 deals (EUR and USD) are in.
  ...phrasings(1, ["deals at or under 2500"], (t) => t.list("deals", "value <= 2500")),
  ...phrasings(1, ["any payments over 10 grand"], (t) => t.list("payments", "amount > 10000")),
  // "from … to" is inclusive: the 1,000 payment is in.
  ...phrasings(1, ["payments from 1k to 3k"], (t) => t.list("payments", "amount BETWEEN 1000 AND 3000")),
  // Owed < 1000 and amount < 1000 select the same seven unpaid invoices.
  ...phrasings(1, ["which unpaid invoices have under 1k left to pay"], (t) =>
    t.list("invoices", `${UNPAID} AND owed < 1000`),
  ),
  ...phrasings(1, ["products that cost more than a grand"], (t) => t.list("products", "price > 1000")),
  ...phrasings(1, ["usd inv below 1k"], (t) => t.list("invoices", "cur = 'USD' AND amount < 1000")),
  // Won deals only; the 2,500 won deals are out.
  ...phrasings(1, ["won deals > 5k"], (t) => t.list("deals", "stage = 'won' AND value > 5000")),
  // "open" is the shown status; due strictly after 2026-04-01.
  ...phrasings(1, ["open invoices due after the 1st of april"], (t) =>
    t.list("invoices", "s = 'open' AND due_date > '2026-04-01'"),
  ),
  // Every status, inclusive at both ends (the 5,000.00 invoice is in).
  ...phrasings(1, ["invoices in the 5k-10k range"], (t) =>
    t.list("invoices", "amount BETWEEN 5000 AND 10000"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

const superlatives: Case[] = [
  // Closed = won or lost; the biggest is won either way.
  ...phrasings(2, ["biggest deal we've closed"], (t) =>
    topWith(t, ["deals", "stage IN ('won', 'lost')", "value", 1], (q) =>
      q.perCurrency("deals", "max(value)", "stage IN ('won', 'lost') AND cur = 'EUR'"),
    ),
  ),
  // The 2nd and 3rd tie with each other, not with the 4th.
  ...phrasings(2, ["3 largest late invoices"], (t) => t.top("invoices", "s = 'overdue'", "amount", 3)),
  ...phrasings(2, ["what's the smallest deal we lost"], (t) =>
    topWith(t, ["deals", "stage = 'lost'", "value", 1, "asc"], (q) =>
      q.perCurrency("deals", "min(value)", "stage = 'lost'"),
    ),
  ),
  // Money received per client (EUR; the one USD payment is small): Kestrel well ahead.
  ...phrasings(2, ["which client has paid us the most"], async (t) => {
    const rows = await t.sql<{ client: string; total: string }>(
      `SELECT i.client, sum(p.amount)::text AS total FROM payments p JOIN invoices i ON i.id = p.invoice_id
        WHERE p.org_id = $1 AND trim(p.currency) = 'EUR' GROUP BY 1 ORDER BY sum(p.amount) DESC`,
    );
    if (rows[0]!.total === rows[1]!.total) throw new Error("tie for the client who paid most");
    return { present: [rows[0]!.client] };
  }),
  // "oldest" by issue date (the same two are the earliest due).
  ...phrasings(2, ["the 2 oldest overdue invoices"], (t) =>
    t.top("invoices", "s = 'overdue'", "issued_at", 2, "asc"),
  ),
  ...phrasings(2, ["our 2 priciest products"], (t) => t.top("products", "true", "price", 2)),
  // "open" is the shown status (not yet due).
  ...phrasings(2, ["smallest inv thats open"], (t) => t.top("invoices", "s = 'open'", "amount", 1, "asc")),
  ...phrasings(2, ["biggest invoice that's been paid"], (t) => t.top("invoices", "s = 'paid'", "amount", 1)),
  ...phrasings(2, ["what role do we have the most applicants for"], async (t) => {
    const rows = await t.sql<{ position: string; n: number }>(
      `SELECT position, count(*)::int AS n FROM candidates WHERE org_id = $1 GROUP BY 1 ORDER BY n DESC`,
    );
    if (rows[0]!.n === rows[1]!.n) throw new Error("tie for the position with most candidates");
    return { present: [rows[0]!.position] };
  }),
  ...phrasings(2, ["oldest payment on record"], (t) => t.top("payments", "true", "received_at", 1, "asc")),
  // Expected to close: open deals (won and lost ones are closed already).
  ...phrasings(2, ["which pipeline deal is expected to close last"], (t) =>
    t.top("deals", OPEN_DEAL, "expected_close_date", 1),
  ),
  // What each client owes (EUR, summed over its unpaid invoices): the top three and their sums.
  ...phrasings(2, ["top 3 clients by what they owe us"], async (t) => {
    const rows = await t.sql<{ client: string; owed: string }>(
      `SELECT client, sum(amount - amount_paid)::text AS owed FROM invoices
        WHERE org_id = $1 AND status = 'open' AND trim(currency) = 'EUR' GROUP BY 1
        ORDER BY sum(amount - amount_paid) DESC`,
    );
    if (rows[2]!.owed === rows[3]!.owed) throw new Error("tie for the third client by balance");
    const top = rows.slice(0, 3);
    return {
      present: [...top.map((r) => r.client), ...top.map((r) => t.money(r.owed, "EUR"))],
      absent: [rows[3]!.client],
    };
  }),
];

// 3. Aggregates -------------------------------------------------------------------------------

const aggregates: Case[] = [
  ...phrasings(3, ["whats the avg value of deals we lost"], (t) =>
    aggregate(t.average("deals", "value", "stage = 'lost'"), t.average("deals", "value")),
  ),
  ...phrasings(3, ["median payment amt"], (t) =>
    aggregate(t.median("payments", "amount"), t.average("payments", "amount")),
  ),
  // Per currency, over standing invoices (a draft's amount is no higher).
  ...phrasings(3, ["highest inv amount"], (t) =>
    aggregate(
      t.perCurrency("invoices", "max(amount)", STANDING),
      t.perCurrency("invoices", "min(amount)", STANDING),
    ),
  ),
  // The invoices' amounts, not what is still owed on them.
  ...phrasings(3, ["avg overdue invoice amount"], (t) =>
    aggregate(
      t.average("invoices", "amount", "s = 'overdue'"),
      t.average("invoices", "owed", "s = 'overdue'"),
    ),
  ),
  ...phrasings(3, ["avg pipeline deal size"], (t) =>
    aggregate(t.average("deals", "value", OPEN_DEAL), t.average("deals", "value")),
  ),
  // Balance = owed, not the invoice total.
  ...phrasings(3, ["whats the average balance on unpaid invoices"], (t) =>
    aggregate(t.average("invoices", "owed", UNPAID), t.average("invoices", "amount", UNPAID)),
  ),
  // Open among every deal.
  ...phrasings(3, ["what % of our deals are still open"], (t) => ratio(t.share("deals", OPEN_DEAL))),
  // Rejected among every candidate.
  ...phrasings(3, ["what percentage of applicants got rejected"], (t) =>
    ratio(t.share("candidates", "status = 'rejected'")),
  ),
  ...phrasings(3, ["% of payments made by card"], (t) => ratio(t.share("payments", "method = 'card'"))),
  ...phrasings(3, ["what % of contacts are tagged priority"], (t) =>
    ratio(t.share("contacts", "'priority' = ANY(coalesce(tags, '{}'))")),
  ),
  // Payments counted per calendar month of received_at; the year's count is a wrong answer.
  ...phrasings(3, ["number of payments per month in 2026"], async (t) => {
    const present = await perMonth(t, "payments", "received_at");
    const all = t.bold(await t.count("payments", "received_at >= '2026-01-01'"));
    return { present, absent: present.includes(all) ? [] : [all] };
  }),
  // Deals counted per calendar month of created_at.
  ...phrasings(3, ["how many deals got created each month this yr"], async (t) => {
    const present = await perMonth(t, "deals", "created_at");
    const all = t.bold(await t.count("deals"));
    return { present, absent: present.includes(all) ? [] : [all] };
  }),
];

// 4. Calendar windows -------------------------------------------------------------------------

const windows: Case[] = [
  // Payments by received_at; "since the start of the month" = March so far (all of it).
  ...phrasings(4, ["payments since the start of the month"], (t) =>
    t.list("payments", within("received_at", ...MARCH)),
  ),
  ...phrasings(4, ["what did we collect in jan"], (t) => received(t, JANUARY, [FEBRUARY, MARCH, Q1])),
  ...phrasings(4, ["mtd revenue"], (t) => received(t, MARCH, [FEBRUARY, Q1])),
  // Issued by issued_at (drafts were never issued).
  ...phrasings(4, ["how many invoices did we send out in march"], (t) =>
    t.list("invoices", within("issued_at", ...MARCH)),
  ),
  // Next week is Monday 2026-03-23..Sunday 2026-03-29: the 2026-03-30 one is out; a paid one due
  // next week is not "due".
  ...phrasings(4, ["whats due next wk"], (t) =>
    t.list("invoices", `s = 'open' AND ${within("due_date", ...NEXT_WEEK)}`),
  ),
  // Paid by paid_at.
  ...phrasings(4, ["invoices settled this week"], (t) =>
    t.list("invoices", `status = 'paid' AND ${within("paid_at", ...THIS_WEEK)}`),
  ),
  // Expected to close: open deals by expected_close_date (closed deals with a May date are out).
  ...phrasings(4, ["what's set to close in may"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...MAY)}`),
  ),
  ...phrasings(4, ["deals due to close in the next 2 wks"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date BETWEEN $2::date AND $3::date`, [
      addDays(t.today, 14),
    ]),
  ),
  // Verified by verified_at; SQL (verified 45 days ago) is out.
  ...phrasings(4, ["skills verified in the past fortnight"], (t) =>
    t.list("skills", "status = 'verified' AND verified_at >= $2::date - 14"),
  ),
  // Communications by occurred_at (no label: the count is the answer).
  ...phrasings(4, ["how many calls did we make in feb"], (t) =>
    countOf(t, "communications", `channel = 'call' AND ${within("occurred_at", ...FEBRUARY)}`, [
      "channel = 'call'",
    ]),
  ),
  ...phrasings(4, ["number of emails this wk"], (t) =>
    countOf(t, "communications", `channel = 'email' AND ${within("occurred_at", ...THIS_WEEK)}`, [
      "channel = 'email'",
      `channel = 'email' AND ${within("occurred_at", ...MARCH)}`,
    ]),
  ),
  // Days late = today - due_date, strictly more than 35: the one exactly 35 days late is out.
  ...phrasings(4, ["invoices more than 5 weeks past due"], (t) =>
    t.list("invoices", "s = 'overdue' AND $2::date - due_date > 35"),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

const negations: Case[] = [
  ...phrasings(5, ["contacts who arent prospects"], (t) =>
    t.list("contacts", "lifecycle_stage <> 'prospect'"),
  ),
  ...phrasings(5, ["contacts not tagged priority"], (t) =>
    t.list("contacts", "NOT ('priority' = ANY(coalesce(tags, '{}')))"),
  ),
  // An unknown source is not LinkedIn either.
  ...phrasings(5, ["applicants that didnt come from linkedin"], (t) =>
    t.list("candidates", "source IS DISTINCT FROM 'LinkedIn'"),
  ),
  ...phrasings(5, ["open deals not yet at proposal stage"], (t) =>
    t.list("deals", "stage IN ('lead', 'qualified')"),
  ),
  ...phrasings(5, ["payments that weren't bank transfers"], (t) =>
    t.list("payments", "method <> 'bank_transfer'"),
  ),
  ...phrasings(5, ["which candidates dont have a phone number"], (t) =>
    t.list("candidates", "phone IS NULL OR phone = ''"),
  ),
  ...phrasings(5, ["outstanding invoices excluding kestrel"], (t) =>
    t.list("invoices", `${UNPAID} AND client <> 'Kestrel Robotics'`),
  ),
  ...phrasings(5, ["which contacts have no deals"], (t) =>
    t.list("contacts", "NOT EXISTS (SELECT 1 FROM deals d WHERE d.contact_id = v.id)"),
  ),
  ...phrasings(5, ["candidates who aren't at the screening stage"], (t) =>
    t.list("candidates", "status <> 'screening'"),
  ),
  ...phrasings(5, ["unpaid bills that arent in euro"], (t) =>
    t.list("invoices", `${UNPAID} AND cur <> 'EUR'`),
  ),
  // Communications have no label: the count, with every communication's and the emails' absent.
  ...phrasings(5, ["how many touchpoints weren't emails"], (t) =>
    countOf(t, "communications", "channel <> 'email'", ["true", "channel = 'email'"]),
  ),
  ...phrasings(5, ["deals we didnt lose"], (t) => t.list("deals", "stage <> 'lost'")),
];

// 6. Named records inside other resources ------------------------------------------------------

const named: Case[] = [
  // A deal by its company (Juniper Health has one deal).
  ...phrasings(6, ["hows the juniper deal going"], dealField("company = 'Juniper Health'", "stage")),
  ...phrasings(
    6,
    ["what's the quanta seat expansion worth"],
    dealField("company = 'Quanta Analytics'", "value"),
  ),
  // A deal by its contact (Ravi Reyes has one deal).
  ...phrasings(
    6,
    ["when's the ravi reyes deal supposed to close"],
    dealField("contact_name = 'Ravi Reyes'", "expected_close_date"),
  ),
  ...phrasings(
    6,
    ["who's our guy on the solar monitoring pilot"],
    dealField("title ILIKE 'Solar monitoring%'", "contact_name"),
  ),
  // Every communication with her is outbound, so "reach out" and "any direction" agree.
  ...phrasings(6, ["how many times did we reach out to sofia okafor"], async (t) => {
    const n = await t.count("communications", "contact_name = 'Sofia Okafor'");
    const all = await t.count("communications");
    return { present: ["Sofia Okafor", t.bold(n)], absent: [t.bold(all)] };
  }),
  // Her latest email and her latest communication fall on the same day.
  ...phrasings(6, ["last time we emailed zoe okafor"], lastContact("Zoe Okafor", "m.channel = 'email'")),
  // Inbound; his latest communication of any direction is the same one.
  ...phrasings(
    6,
    ["when did ravi okafor last get back to us"],
    lastContact("Ravi Okafor", "m.direction = 'inbound'"),
  ),
  ...phrasings(6, ["acme's outstanding balance?"], owes("Acme Logistics")),
  ...phrasings(6, ["which payments came from meridian legal"], (t) =>
    t.list("payments", "client = 'Meridian Legal'"),
  ),
  // Communications have no label: her name and the count.
  ...phrasings(6, ["show my conversations with yara haddad"], async (t) => {
    const n = await t.count("communications", "contact_name = 'Yara Haddad'");
    const all = await t.count("communications");
    return { present: ["Yara Haddad", t.bold(n)], absent: [t.bold(all)] };
  }),
  ...phrasings(6, ["where's amara novak at"], candidateField("Amara Novak", "status")),
  // Ava Okafor is a contact and a candidate: "apply" is about the candidate.
  ...phrasings(6, ["when did ava okafor apply"], candidateField("Ava Okafor", "created_at")),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

const refinements: Case[] = [
  ...followUps(["deals in the pipeline"], ["only the qualified ones"], (t) =>
    t.list("deals", "stage = 'qualified'"),
  ),
  ...followUps(["overdue invoices"], ["just kestrel's"], (t) =>
    t.list("invoices", "s = 'overdue' AND client = 'Kestrel Robotics'"),
  ),
  ...followUps(["payments this month"], ["whats the total"], (t) => received(t, MARCH, [Q1, FEBRUARY])),
  ...followUps(["show me all candidates"], ["only those at interview stage"], (t) =>
    t.list("candidates", "status = 'interview'"),
  ),
  ...followUps(["show me paid invoices"], ["which of them were over 10k"], (t) =>
    t.list("invoices", "s = 'paid' AND amount > 10000"),
  ),
  // The average of the open deals, not of every deal.
  ...followUps(["whats in the pipeline"], ["avg value?"], (t) =>
    aggregate(t.average("deals", "value", OPEN_DEAL), t.average("deals", "value")),
  ),
  ...followUps(["invoices issued in feb"], ["and in march?"], (t) =>
    t.list("invoices", within("issued_at", ...MARCH)),
  ),
  ...followUps(["deals expected to close in april"], ["which ones are above 10k"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...APRIL)} AND value > 10000`),
  ),
  ...followUps(["list contacts", "just the customers"], ["which of those are priority"], (t) =>
    t.list("contacts", "lifecycle_stage = 'customer' AND 'priority' = ANY(coalesce(tags, '{}'))"),
  ),
  // "oldest" by issue date (also the earliest due).
  ...followUps(["overdue invoices"], ["which is the oldest"], (t) =>
    t.top("invoices", "s = 'overdue'", "issued_at", 1, "asc"),
  ),
  // Strict: the 1,000 card payment is out.
  ...followUps(["payments over 1k"], ["only by card"], (t) =>
    t.list("payments", "amount > 1000 AND method = 'card'"),
  ),
  ...followUps(["candidates who applied this month"], ["any from referrals?"], (t) =>
    t.list("candidates", `source = 'referral' AND ${within("created_at", ...MARCH)}`),
  ),
];

export const holdout: Case[] = [
  ...thresholds,
  ...superlatives,
  ...aggregates,
  ...windows,
  ...negations,
  ...named,
  ...refinements,
];
