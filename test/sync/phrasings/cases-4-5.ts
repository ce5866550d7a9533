import { addDays, phrasings, type Case, type Q } from "./grade.ts";
import { UNPAID, OPEN_DEAL, JANUARY, LAST_WEEK, THIS_WEEK, Q1, Q2 } from "./truths.ts";

/**
 * Categories 4-5 of the phrasing exam: calendar windows (on the right date field) and negation
 * (the other side of a status or a missing value). Today is 2026-03-18, a Wednesday: this week
 * is Monday 2026-03-16 to Sunday 2026-03-22, last week 2026-03-09..2026-03-15, last month
 * February, this quarter Q1 (January to March). Periods are whole calendar periods, in UTC.
 */

/** `column` in [from, to) as timestamps (`to` exclusive), as a where clause. */
const within = (column: string, from: string, to: string) => `${column} >= '${from}' AND ${column} < '${to}'`;
const LAST_MONTH = ["2026-02-01", "2026-03-01"] as const;
const THIS_MONTH = ["2026-03-01", "2026-04-01"] as const;
const NEXT_MONTH = ["2026-04-01", "2026-05-01"] as const;

/** Money received in a window, per currency; totals of other windows are wrong answers. */
const received = async (t: Q, window: readonly [string, string], wrong: Array<readonly [string, string]>) => {
  const present = await t.total("payments", "amount", within("received_at", ...window));
  const absent: string[] = [];
  for (const other of wrong)
    absent.push(...(await t.total("payments", "amount", within("received_at", ...other))));
  return { present, absent: absent.filter((value) => !present.includes(value)) };
};

/** A count only (records without a label of their own); `wrong` counts absent. */
const countOf = async (t: Q, resource: Parameters<Q["count"]>[0], where: string, wrong: string[] = []) => {
  const n = await t.count(resource, where);
  const absent: string[] = [];
  for (const other of wrong) {
    const m = await t.count(resource, other);
    if (m !== n) absent.push(t.bold(m));
  }
  return { present: [t.bold(n)], absent };
};

// 4. Calendar windows -------------------------------------------------------------------------

export const windows: Case[] = [
  // Payments by received_at.
  ...phrasings(
    4,
    [
      "payments received last month",
      "payments last mnth",
      "what payments came in in february",
      "payments received in feb",
    ],
    (t) => t.list("payments", within("received_at", ...LAST_MONTH)),
  ),
  ...phrasings(4, ["payments received in january", "jan payments"], (t) =>
    t.list("payments", within("received_at", ...JANUARY)),
  ),
  ...phrasings(4, ["payments this week", "which payments did we get this week"], (t) =>
    t.list("payments", within("received_at", ...THIS_WEEK)),
  ),
  // Revenue = money received; a calendar month is the whole month, not the last 30 days (whose
  // total is a wrong answer, as are this month's and the quarter's).
  ...phrasings(4, ["how much did we collect last mnth", "cash in for february", "feb revenue"], (t) =>
    received(t, LAST_MONTH, [THIS_MONTH, Q1, ["2026-02-16T10:00:00Z", "2099-01-01"]]),
  ),
  ...phrasings(
    4,
    [
      "revenue q1",
      "how much have we collected this quarter so far",
      "q1 collections",
      "revenue ytd",
      "year to date income",
    ],
    (t) => received(t, Q1, [THIS_MONTH, LAST_MONTH]),
  ),
  // Invoices by issue date: issued_at only. A draft was never issued, so no "issued" window has
  // it (created_at is not a stand-in); a void invoice was issued, so it counts in its window.
  ...phrasings(
    4,
    ["invoices issued last month", "invoices we sent in february", "inv issued last mnth"],
    (t) => t.list("invoices", within("issued_at", ...LAST_MONTH)),
  ),
  ...phrasings(4, ["invoices issued in january", "invoices sent out in jan"], (t) =>
    t.list("invoices", within("issued_at", ...JANUARY)),
  ),
  ...phrasings(4, ["invoices issued this week", "invoices sent out this week"], (t) =>
    t.list("invoices", within("issued_at", ...THIS_WEEK)),
  ),
  // 29, not 32: the three drafts were never issued.
  ...phrasings(4, ["invoices issued in q1", "how many invoices have we issued this quarter"], (t) =>
    t.list("invoices", within("issued_at", ...Q1)),
  ),
  // Paid by paid_at.
  ...phrasings(4, ["invoices paid this month", "which invoices got paid in march"], (t) =>
    t.list("invoices", `status = 'paid' AND ${within("paid_at", ...THIS_MONTH)}`),
  ),
  // Falling due: open invoices (issued, unpaid, not yet overdue) by due_date, inclusive.
  ...phrasings(
    4,
    ["unpaid invoices due next month", "what's due in april", "invoices falling due next month"],
    (t) => t.list("invoices", `s = 'open' AND ${within("due_date", ...NEXT_MONTH)}`),
  ),
  ...phrasings(4, ["what's due in the next 2 weeks", "invoices due within 14 days"], (t) =>
    t.list("invoices", `s = 'open' AND due_date BETWEEN $2::date AND $3::date`, [addDays(t.today, 14)]),
  ),
  // Days late = today - due_date, strictly more than N.
  ...phrasings(
    4,
    [
      "invoices more than 30 days late",
      "what's over 30 days overdue",
      "invoices overdue by more than a month",
    ],
    (t) => t.list("invoices", "s = 'overdue' AND $2::date - due_date > 30"),
  ),
  ...phrasings(4, ["invoices more than 2 weeks overdue", "over 14 days late invoices"], (t) =>
    t.list("invoices", "s = 'overdue' AND $2::date - due_date > 14"),
  ),
  ...phrasings(
    4,
    ["invoices overdue by less than a week", "invoices that went overdue in the last 7 days"],
    (t) => t.list("invoices", "s = 'overdue' AND $2::date - due_date < 7"),
  ),
  // Expected to close: open deals by expected_close_date (won and lost ones are closed already).
  // "This month" is all of March, including a date already past.
  ...phrasings(
    4,
    ["deals expected to close this month", "deals closing in march", "what should close this month?"],
    (t) => t.list("deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...THIS_MONTH)}`),
  ),
  ...phrasings(4, ["deals expected to close this quarter", "what's closing this quarter"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...Q1)}`),
  ),
  ...phrasings(4, ["deals expected to close next month", "deals closing in april"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...NEXT_MONTH)}`),
  ),
  ...phrasings(4, ["deals expected to close in the next 30 days"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND expected_close_date BETWEEN $2::date AND $3::date`, [
      addDays(t.today, 30),
    ]),
  ),
  ...phrasings(4, ["deals expected to close next quarter", "deals closing in q2"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND ${within("expected_close_date", ...Q2)}`),
  ),
  // Won by closed_at.
  ...phrasings(4, ["what did we win in feb", "deals closed won last mnth"], (t) =>
    t.list("deals", `stage = 'won' AND ${within("closed_at", ...LAST_MONTH)}`),
  ),
  ...phrasings(4, ["deals won this month", "wins in march"], (t) =>
    t.list("deals", `stage = 'won' AND ${within("closed_at", ...THIS_MONTH)}`),
  ),
  ...phrasings(4, ["deals created last month", "deals added in february", "new deals last month"], (t) =>
    t.list("deals", within("created_at", ...LAST_MONTH)),
  ),
  // Applied = created_at.
  ...phrasings(
    4,
    ["candidates who applied this month", "applicants this month", "new applicants in march"],
    (t) => t.list("candidates", within("created_at", ...THIS_MONTH)),
  ),
  ...phrasings(4, ["who applied last month", "applicants in february"], (t) =>
    t.list("candidates", within("created_at", ...LAST_MONTH)),
  ),
  ...phrasings(4, ["who did we hire this month"], (t) =>
    t.list("candidates", `status = 'hired' AND ${within("hired_at", ...THIS_MONTH)}`),
  ),
  // Verified by verified_at; SQL was verified 45 days ago, outside both windows.
  ...phrasings(4, ["skills verified in the last 30 days", "which skills were verified this month"], (t) =>
    t.list("skills", `status = 'verified' AND verified_at >= $2::date - 30`),
  ),
  // Communications by occurred_at; they have no label, so the count is the answer.
  ...phrasings(4, ["how many communications last week", "touchpoints last week"], (t) =>
    countOf(t, "communications", within("occurred_at", ...LAST_WEEK), [
      within("occurred_at", ...THIS_WEEK),
      "true",
    ]),
  ),
  ...phrasings(4, ["meetings this month", "how many meetings did we have in march"], (t) =>
    countOf(t, "communications", `channel = 'meeting' AND ${within("occurred_at", ...THIS_MONTH)}`, [
      "channel = 'meeting'",
    ]),
  ),
  ...phrasings(4, ["how many emails in february", "emails sent or received last month"], (t) =>
    countOf(t, "communications", `channel = 'email' AND ${within("occurred_at", ...LAST_MONTH)}`, [
      "channel = 'email'",
    ]),
  ),
  // "the last week of feb": its last seven days; "from the 10th to the 20th of jan": both days in January.
  ...phrasings(4, ["invoices issued in the last week of feb", "inv issued last wk of february"], (t) =>
    t.list("invoices", within("issued_at", "2026-02-22", "2026-03-01")),
  ),
  ...phrasings(4, ["invoices issued feb 1st to 14th", "which invoices did we issue feb 1 - 14"], (t) =>
    t.list("invoices", within("issued_at", "2026-02-01", "2026-02-15")),
  ),
  ...phrasings(4, ["invoices issued from the 10th to the 20th of jan"], (t) =>
    t.list("invoices", within("issued_at", "2026-01-10", "2026-01-21")),
  ),
  // "were due in feb": the February behind us, though a due date usually looks ahead.
  ...phrasings(4, ["which invoices were due in feb and are still unpaid"], (t) =>
    t.list("invoices", `${UNPAID} AND ${within("due_date", "2026-02-01", "2026-03-01")}`),
  ),
  // "with a due date in may": every invoice with that date, paid or not.
  ...phrasings(4, ["invoices with a due date in may"], (t) =>
    t.list("invoices", within("due_date", "2026-05-01", "2026-06-01")),
  ),
];

// 5. Negation & the other side ----------------------------------------------------------------

export const negations: Case[] = [
  ...phrasings(
    5,
    [
      "skills not verified yet",
      "unverified skills",
      "which skills are still just claimed",
      "skills nobody has verified",
    ],
    (t) => t.list("skills", "status <> 'verified'"),
  ),
  // Unpaid = open or overdue (drafts were never issued, voids are cancelled).
  ...phrasings(
    5,
    ["invoices that haven't been paid", "which inv are still unpaid", "bills not paid yet"],
    (t) => t.list("invoices", UNPAID),
  ),
  ...phrasings(
    5,
    ["invoices not in euros", "non-eur invoices", "invoices in a currency other than EUR"],
    (t) => t.list("invoices", "cur <> 'EUR'"),
  ),
  ...phrasings(5, ["invoices that aren't drafts", "all non-draft invoices"], (t) =>
    t.list("invoices", "status <> 'draft'"),
  ),
  ...phrasings(5, ["unpaid invoices that aren't overdue yet", "outstanding invoices not late yet"], (t) =>
    t.list("invoices", "s = 'open'"),
  ),
  // Partly paid: something received, not all of it.
  ...phrasings(5, ["partly paid invoices", "invoices with a partial payment"], (t) =>
    t.list("invoices", `${UNPAID} AND amount_paid > 0`),
  ),
  ...phrasings(
    5,
    ["unpaid invoices without any payment", "outstanding invoices with nothing paid yet"],
    (t) => t.list("invoices", `${UNPAID} AND amount_paid = 0`),
  ),
  ...phrasings(5, ["deals that fell through", "which deals didn't work out", "deals we lost"], (t) =>
    t.list("deals", "stage = 'lost'"),
  ),
  ...phrasings(5, ["deals we haven't closed yet", "deals not won or lost", "deals that aren't closed"], (t) =>
    t.list("deals", OPEN_DEAL),
  ),
  ...phrasings(5, ["deals without an expected close date", "deals with no close date"], (t) =>
    t.list("deals", "expected_close_date IS NULL"),
  ),
  ...phrasings(5, ["deals not in euros", "non-euro deals"], (t) => t.list("deals", "cur <> 'EUR'")),
  ...phrasings(
    5,
    ["who did we turn down", "candidates we rejected", "which applicants didn't make it"],
    (t) => t.list("candidates", "status = 'rejected'"),
  ),
  // Still in the running: neither hired nor rejected.
  ...phrasings(5, ["candidates still in the running", "candidates not yet hired or rejected"], (t) =>
    t.list("candidates", "status NOT IN ('hired', 'rejected')"),
  ),
  ...phrasings(5, ["candidates we haven't rejected"], (t) => t.list("candidates", "status <> 'rejected'")),
  ...phrasings(5, ["candidates with no source", "applicants where we don't know the source"], (t) =>
    t.list("candidates", "source IS NULL"),
  ),
  // Not from a referral: an unknown source is not a referral either.
  ...phrasings(5, ["candidates not from a referral", "non-referral candidates"], (t) =>
    t.list("candidates", "source IS DISTINCT FROM 'referral'"),
  ),
  ...phrasings(5, ["candidates with no verified skills", "who has no verified skills"], (t) =>
    t.list(
      "candidates",
      "NOT EXISTS (SELECT 1 FROM skills k WHERE k.candidate_id = v.id AND k.status = 'verified')",
    ),
  ),
  ...phrasings(
    5,
    ["contacts without a phone number", "who has no phone on file", "contacts missing a phone"],
    (t) => t.list("contacts", "phone IS NULL OR phone = ''"),
  ),
  ...phrasings(
    5,
    ["contacts who aren't customers", "contacts that are not customers yet", "non-customer contacts"],
    (t) => t.list("contacts", "lifecycle_stage <> 'customer'"),
  ),
  ...phrasings(5, ["contacts we've never contacted", "contacts with no communications"], (t) =>
    t.list("contacts", "NOT EXISTS (SELECT 1 FROM communications m WHERE m.contact_id = v.id)"),
  ),
  ...phrasings(5, ["payments not made by card", "non-card payments"], (t) =>
    t.list("payments", "method <> 'card'"),
  ),
  // "except paid ones" leaves the paid ones out of all of them; "not paid" is still to be paid.
  ...phrasings(5, ["all invoices except paid ones", "every inv excluding the paid ones"], (t) =>
    t.list("invoices", "s <> 'paid'"),
  ),
  ...phrasings(5, ["invoices billed in anything but eur", "invoices in anything other than euros"], (t) =>
    t.list("invoices", "cur <> 'EUR'"),
  ),
  ...phrasings(5, ["the biggest deal that got away"], (t) => t.top("deals", "stage = 'lost'", "value", 1)),
];
