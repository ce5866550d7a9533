import { phrasings, type Case, type Q } from "./grade.ts";
import { UNPAID, STANDING, OPEN_DEAL } from "./truths.ts";

/**
 * Categories 1-3 of the phrasing exam: thresholds & comparisons, superlatives & top-N, and
 * aggregates other than count and sum. Every answer is computed from the tables when the test
 * runs (see grade.ts for the conventions: "open" vs "unpaid", strict vs inclusive bounds…).
 */

/** Invoices that stand: issued and not cancelled (for "average invoice" and the like). */

// 1. Thresholds & comparisons -----------------------------------------------------------------

export const thresholds: Case[] = [
  // "open" is the status shown (not yet due): overdue invoices are not "open". Above 5k the
  // amount and the amount still owed select the same invoices.
  ...phrasings(
    1,
    ["open invoices above 5k", "open inv over 5,000", "which open invoices are more than 5000"],
    (t) => t.list("invoices", "s = 'open' AND amount > 5000"),
  ),
  // A list of "invoices" with no status word covers every status (drafts and voids included).
  ...phrasings(
    1,
    [
      "invoices over 10k",
      "show me all invoices above 10,000",
      "inv > 10000",
      "any invoices bigger than 10k?",
    ],
    (t) => t.list("invoices", "amount > 10000"),
  ),
  ...phrasings(
    1,
    ["unpaid invoices over 10k", "outstanding invoices above 10 000", "which unpaid bills are more than 10k"],
    (t) => t.list("invoices", `${UNPAID} AND amount > 10000`),
  ),
  ...phrasings(
    1,
    ["overdue invoices under 1,000", "late invoices less than 1000", "small overdue bills below 1k"],
    (t) => t.list("invoices", "s = 'overdue' AND amount < 1000"),
  ),
  // Owed, not the invoice total: "still owed" / "balance" (both readings agree here anyway).
  ...phrasings(
    1,
    ["invoices with more than 5,000 still owed", "invoices where the balance is over 5k"],
    (t) => t.list("invoices", `${UNPAID} AND owed > 5000`),
  ),
  // Inclusive: the 150.00 invoice is in.
  ...phrasings(1, ["invoices of at most 150", "invoices for 150 or less", "inv up to 150"], (t) =>
    t.list("invoices", "amount <= 150"),
  ),
  // A currency sign restricts to that currency: "$1,000" is about USD invoices only.
  ...phrasings(1, ["invoices over $1,000", "any invoices above 1000 dollars", "usd invoices over 1k"], (t) =>
    t.list("invoices", "cur = 'USD' AND amount > 1000"),
  ),
  // Deals of every stage (won and lost included) unless the words say open / pipeline.
  ...phrasings(1, ["deals under 5k", "deals worth less than 5,000", "which deals are below 5000"], (t) =>
    t.list("deals", "value < 5000"),
  ),
  ...phrasings(
    1,
    [
      "open deals over 10k",
      "deals in the pipeline worth more than 10,000",
      "active deals > 10k",
      "pipeline deals above 10000 eur",
    ],
    (t) => t.list("deals", `${OPEN_DEAL} AND value > 10000`),
  ),
  // "between" is inclusive at both ends.
  ...phrasings(
    1,
    ["deals between 5k and 10k", "deals worth between 5,000 and 10,000", "deals from 5000 to 10000"],
    (t) => t.list("deals", "value BETWEEN 5000 AND 10000"),
  ),
  ...phrasings(1, ["deals of at least 14,000", "deals worth 14k or more"], (t) =>
    t.list("deals", "value >= 14000"),
  ),
  // Payments are shown by their amount (they have no label of their own).
  ...phrasings(
    1,
    ["payments of more than 5,000", "payments over 5k", "which payments were bigger than €5000"],
    (t) => t.list("payments", "amount > 5000"),
  ),
  ...phrasings(1, ["payments under 500", "small payments below 500", "payments less than 500"], (t) =>
    t.list("payments", "amount < 500"),
  ),
  // Inclusive: the 2,500.00 EUR payment is in.
  ...phrasings(1, ["payments of at least 2,500", "payments >= 2500", "payments of 2500 or more"], (t) =>
    t.list("payments", "amount >= 2500"),
  ),
  // "applied" is the candidate's created_at.
  ...phrasings(
    1,
    [
      "candidates who applied before march",
      "applicants from before 1 march",
      "who applied earlier than march?",
    ],
    (t) => t.list("candidates", "created_at < '2026-03-01'"),
  ),
  ...phrasings(
    1,
    ["products under 200", "which products cost less than 200", "cheap products below 200 eur"],
    (t) => t.list("products", "price < 200"),
  ),
  ...phrasings(1, ["products priced between 1,000 and 5,000", "products between 1k and 5k"], (t) =>
    t.list("products", "price BETWEEN 1000 AND 5000"),
  ),
];

// 2. Superlatives & top-N ---------------------------------------------------------------------

/** A top-N whose single answer must also carry `extra` (its amount, its date). */
const topWith = async (t: Q, args: Parameters<Q["top"]>, extra: (t: Q) => Promise<string[]>) => {
  const found = await t.top(...args);
  return { present: [...found.present, ...(await extra(t))], absent: found.absent };
};

export const superlatives: Case[] = [
  ...phrasings(
    2,
    [
      "largest unpaid invoice",
      "biggest outstanding invoice",
      "what's our biggest unpaid bill",
      "which unpaid inv is the largest",
    ],
    (t) =>
      topWith(t, ["invoices", UNPAID, "amount", 1], async (q) =>
        q.perCurrency("invoices", "max(amount)", `${UNPAID} AND cur = 'EUR'`),
      ),
  ),
  // The pipeline's smallest deal is in EUR; the one USD open deal is far larger in any rate.
  ...phrasings(
    2,
    ["smallest deal still in play", "smallest open deal", "what's the tiniest deal in the pipeline"],
    (t) =>
      topWith(t, ["deals", OPEN_DEAL, "value", 1, "asc"], (q) =>
        q.perCurrency("deals", "min(value)", `${OPEN_DEAL} AND cur = 'EUR'`),
      ),
  ),
  // "oldest" is by issue date (the three are also the three earliest due).
  ...phrasings(
    2,
    ["the three oldest unpaid bills", "3 oldest unpaid invoices", "oldest outstanding invoices, top 3"],
    (t) => t.top("invoices", UNPAID, "issued_at", 3, "asc"),
  ),
  // What each client owes, summed over its unpaid invoices in one currency; the top client by
  // its EUR balance (no client owes comparable USD amounts). A ranking may name the others.
  ...phrasings(
    2,
    ["who owes us the most", "which client owes the most money?", "biggest debtor?"],
    async (t) => {
      const [top] = await t.sql<{ client: string; cur: string; owed: string }>(
        `SELECT client, trim(currency) AS cur, sum(amount - amount_paid)::text AS owed FROM invoices
          WHERE org_id = $1 AND status = 'open' GROUP BY 1, 2 ORDER BY sum(amount - amount_paid) DESC LIMIT 1`,
      );
      return { present: [top!.client, t.money(top!.owed, top!.cur)] };
    },
  ),
  // By value, whatever the currency (the two USD deals are small); the 4th and 5th tie, the 6th
  // does not.
  ...phrasings(
    2,
    ["top 5 deals by value", "5 biggest deals", "largest five deals", "show the top 5 deals"],
    (t) => t.top("deals", "true", "value", 5),
  ),
  ...phrasings(2, ["who applied first", "our earliest applicant", "first candidate to apply?"], (t) =>
    t.top("candidates", "true", "created_at", 1, "asc"),
  ),
  ...phrasings(
    2,
    ["biggest payment we got", "largest payment received", "what was the biggest payment"],
    (t) => t.top("payments", "true", "amount", 1),
  ),
  ...phrasings(2, ["smallest payment", "lowest payment we've received"], (t) =>
    t.top("payments", "true", "amount", 1, "asc"),
  ),
  ...phrasings(2, ["biggest deal we won", "largest won deal", "what's our biggest win?"], (t) =>
    topWith(t, ["deals", "stage = 'won'", "value", 1], (q) =>
      q.perCurrency("deals", "max(value)", "stage = 'won' AND cur = 'EUR'"),
    ),
  ),
  ...phrasings(2, ["biggest deal we lost", "largest lost deal", "biggest deal that fell through"], (t) =>
    topWith(t, ["deals", "stage = 'lost'", "value", 1], (q) =>
      q.perCurrency("deals", "max(value)", "stage = 'lost'"),
    ),
  ),
  // Most overdue: the earliest due date among overdue invoices.
  ...phrasings(
    2,
    ["most overdue invoice", "which invoice is the most late", "the invoice that's been overdue longest"],
    (t) => t.top("invoices", "s = 'overdue'", "due_date", 1, "asc"),
  ),
  // Due soonest: open (not yet overdue) invoices by due date.
  ...phrasings(2, ["which invoice is due next", "next invoice coming due", "the invoice due soonest"], (t) =>
    t.top("invoices", "s = 'open'", "due_date", 1, "asc"),
  ),
  ...phrasings(
    2,
    ["top 3 open deals", "3 largest deals in the pipeline", "biggest three deals still open"],
    (t) => t.top("deals", OPEN_DEAL, "value", 3),
  ),
  ...phrasings(
    2,
    ["most expensive product", "priciest thing we sell", "what's our highest priced product"],
    (t) => t.top("products", "true", "price", 1),
  ),
  ...phrasings(2, ["cheapest product", "lowest price product"], (t) =>
    t.top("products", "true", "price", 1, "asc"),
  ),
  ...phrasings(2, ["3 largest payments", "top three payments"], (t) =>
    t.top("payments", "true", "amount", 3),
  ),
  // Communications of every channel and direction, counted per contact.
  ...phrasings(2, ["which contact have we talked to the most", "who do we talk to most?"], async (t) => {
    const rows = await t.sql<{ name: string; n: number }>(
      `SELECT c.name, count(*)::int AS n FROM communications m JOIN contacts c ON c.id = m.contact_id
          WHERE m.org_id = $1 GROUP BY c.name ORDER BY n DESC, c.name`,
    );
    if (rows[0]!.n === rows[1]!.n) throw new Error("tie for the most-contacted contact");
    return { present: [rows[0]!.name] };
  }),
  ...phrasings(
    2,
    ["which candidate has the most verified skills", "who has the most verified skills?"],
    async (t) => {
      const rows = await t.sql<{ name: string; n: number }>(
        `SELECT c.name, count(*)::int AS n FROM skills s JOIN candidates c ON c.id = s.candidate_id
          WHERE s.org_id = $1 AND s.status = 'verified' GROUP BY c.name ORDER BY n DESC, c.name`,
      );
      if (rows[0]!.n === rows[1]!.n) throw new Error("tie for the most verified skills");
      return { present: [rows[0]!.name] };
    },
  ),
  // Every invoice, by amount (the 5th is not tied with the 6th).
  ...phrasings(2, ["top 5 invoices by amount", "5 biggest invoices"], (t) =>
    t.top("invoices", "true", "amount", 5),
  ),
  ...phrasings(2, ["smallest overdue invoice", "tiniest late invoice"], (t) =>
    t.top("invoices", "s = 'overdue'", "amount", 1, "asc"),
  ),
  ...phrasings(2, ["first payment we received this year"], (t) =>
    t.top("payments", "received_at >= '2026-01-01'", "received_at", 1, "asc"),
  ),
];

// 3. Aggregates other than count and sum ------------------------------------------------------

/** A value per currency present, and the same aggregate over a plausible wrong set absent. */
const aggregate = async (present: Promise<string[]>, wrong: Promise<string[]>) => {
  const right = await present;
  return { present: right, absent: (await wrong).filter((value) => !right.includes(value)) };
};

export const aggregates: Case[] = [
  // Wrong answer: the average over open and overdue ones.
  ...phrasings(
    3,
    ["average open invoice", "avg amount of open invoices", "whats the average open inv"],
    (t) => aggregate(t.average("invoices", "amount", "s = 'open'"), t.average("invoices", "amount", UNPAID)),
  ),
  ...phrasings(3, ["avg unpaid invoice", "average size of outstanding invoices"], (t) =>
    aggregate(t.average("invoices", "amount", UNPAID), t.average("invoices", "amount")),
  ),
  // "Average invoice": standing invoices (open, overdue, paid); drafts and voids left out.
  ...phrasings(3, ["average invoice amount", "avg invoice size", "what's our average invoice?"], (t) =>
    aggregate(t.average("invoices", "amount", STANDING), t.average("invoices", "amount")),
  ),
  ...phrasings(3, ["median invoice", "median invoice amount"], (t) =>
    aggregate(t.median("invoices", "amount", STANDING), t.average("invoices", "amount", STANDING)),
  ),
  ...phrasings(
    3,
    ["avg won deal value", "average value of deals we won", "whats the average size of a won deal"],
    (t) => aggregate(t.average("deals", "value", "stage = 'won'"), t.average("deals", "value")),
  ),
  ...phrasings(3, ["median open deal", "median deal value in the pipeline"], (t) =>
    aggregate(t.median("deals", "value", OPEN_DEAL), t.median("deals", "value")),
  ),
  ...phrasings(3, ["avg payment", "average payment amount", "what's the average payment we get"], (t) =>
    aggregate(t.average("payments", "amount"), t.median("payments", "amount")),
  ),
  // Deal values per currency.
  ...phrasings(3, ["what's the highest deal value", "max deal value"], (t) =>
    aggregate(t.perCurrency("deals", "max(value)"), t.perCurrency("deals", "min(value)")),
  ),
  ...phrasings(3, ["min deal value", "lowest deal value we have"], (t) =>
    aggregate(t.perCurrency("deals", "min(value)"), t.perCurrency("deals", "max(value)")),
  ),
  ...phrasings(3, ["avg product price", "average price of our products"], (t) =>
    aggregate(t.average("products", "price"), t.median("products", "price")),
  ),
  ...phrasings(3, ["median product price"], (t) =>
    aggregate(t.median("products", "price"), t.average("products", "price")),
  ),
  // Owed (amount - amount_paid) on overdue invoices.
  ...phrasings(3, ["average overdue balance", "avg amount owed on late invoices"], (t) =>
    aggregate(
      t.average("invoices", "owed", "s = 'overdue'"),
      t.average("invoices", "amount", "s = 'overdue'"),
    ),
  ),
  // Win rate: won among closed deals (won + lost).
  ...phrasings(3, ["win rate", "what % of deals do we win", "deal win rate?"], (t) =>
    t.share("deals", "stage = 'won'", "stage IN ('won', 'lost')").then((present) => ({ present })),
  ),
  ...phrasings(3, ["loss rate", "what % of closed deals did we lose"], (t) =>
    t.share("deals", "stage = 'lost'", "stage IN ('won', 'lost')").then((present) => ({ present })),
  ),
  // Paid late: paid invoices whose paid_at (its day) is after the due date, among paid ones.
  ...phrasings(
    3,
    [
      "share of invoices paid late",
      "what percentage of paid invoices were paid after the due date",
      "how often do clients pay late?",
    ],
    (t) =>
      t.share("invoices", "paid_at::date > due_date", "status = 'paid'").then((present) => ({ present })),
  ),
  // Interview → offer: among candidates who reached the interview (now interview, offer or
  // hired), those who reached an offer (offer or hired). Rejected ones are left out: their
  // stage at rejection is not recorded.
  ...phrasings(3, ["conversion from interview to offer", "interview to offer rate"], (t) =>
    t
      .share("candidates", "status IN ('offer', 'hired')", "status IN ('interview', 'offer', 'hired')")
      .then((present) => ({ present })),
  ),
  // Hire rate: hired among every candidate.
  ...phrasings(3, ["what % of candidates got hired", "hire rate"], (t) =>
    t.share("candidates", "status = 'hired'").then((present) => ({ present })),
  ),
  ...phrasings(3, ["what share of contacts are customers", "% of contacts who are customers"], (t) =>
    t.share("contacts", "lifecycle_stage = 'customer'").then((present) => ({ present })),
  ),
  ...phrasings(3, ["what percent of skills are verified", "share of verified skills"], (t) =>
    t.share("skills", "status = 'verified'").then((present) => ({ present })),
  ),
  ...phrasings(
    3,
    ["what % of unpaid invoices are overdue", "share of outstanding invoices that are late"],
    (t) => t.share("invoices", "s = 'overdue'", UNPAID).then((present) => ({ present })),
  ),
  // Revenue = payments received, per calendar month of received_at, per currency; the total for
  // the year is a wrong answer.
  ...phrasings(
    3,
    [
      "revenue per month this year",
      "monthly revenue 2026",
      "how much came in each month this year",
      "payments by month ytd",
    ],
    async (t) => {
      const months = await t.sql<{ cur: string; total: string }>(
        `SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, trim(currency) AS cur,
                sum(amount)::text AS total FROM payments
          WHERE org_id = $1 AND received_at >= '2026-01-01' AND received_at < '2027-01-01'
          GROUP BY 1, 2 ORDER BY 1, 2`,
      );
      const present = months.map((row) => t.money(row.total, row.cur));
      const year = await t.total("payments", "amount", "received_at >= '2026-01-01'");
      return { present, absent: year.filter((value) => !present.includes(value)) };
    },
  ),
  // Won deals per calendar month of closed_at this year, value per currency.
  ...phrasings(
    3,
    ["won deal value per month this year", "how much did we win each month in 2026"],
    async (t) => {
      const months = await t.sql<{ cur: string; total: string }>(
        `SELECT to_char(closed_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, trim(currency) AS cur,
              sum(value)::text AS total FROM deals
        WHERE org_id = $1 AND stage = 'won' AND closed_at >= '2026-01-01' AND closed_at < '2027-01-01'
        GROUP BY 1, 2 ORDER BY 1, 2`,
      );
      return { present: months.map((row) => t.money(row.total, row.cur)) };
    },
  ),
  // Issued invoices (issued_at; drafts were never issued) counted per calendar month.
  ...phrasings(
    3,
    ["how many invoices did we issue each month this year", "invoices issued per month"],
    async (t) => {
      const months = await t.sql<{ n: number }>(
        `SELECT to_char(issued_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::int AS n FROM invoices
        WHERE org_id = $1 AND issued_at >= '2026-01-01' AND issued_at < '2027-01-01' GROUP BY 1 ORDER BY 1`,
      );
      return { present: months.map((row) => t.bold(row.n)) };
    },
  ),
];
