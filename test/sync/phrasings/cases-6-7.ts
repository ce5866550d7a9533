import { followUps, phrasings, type Case, type Q } from "./grade.ts";
import { UNPAID, OPEN_DEAL } from "./truths.ts";

/**
 * Categories 6-7 of the phrasing exam: a named record found inside another resource (a deal by
 * its title, its contact or its company; a contact's last communication; what a client owes; a
 * candidate's status), and two- or three-turn conversations whose last turn refines the list
 * the first one made. Only the last reply is graded.
 */

type Row = Record<string, string | null>;

/** The one record of `resource` matching `where` (the exam's own check: exactly one). */
const only = async (t: Q, resource: Parameters<Q["rows"]>[0], where: string, params: unknown[] = []) => {
  const rows = await t.rows<Row>(resource, where, params);
  if (rows.length !== 1) throw new Error(`${resource} where ${where}: ${rows.length} records, not one`);
  return rows[0]!;
};

/** A deal named by a title word, its contact or its company: the title and `field`. */
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

/** The day (UTC) of a contact's latest communication; `inbound` for "hear from". */
const lastContact =
  (name: string, inbound = false): Case["expect"] =>
  async (t) => {
    const day = await t.value(
      `SELECT to_char(max(m.occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM communications m
        JOIN contacts c ON c.id = m.contact_id
        WHERE m.org_id = $1 AND c.name = $2 ${inbound ? "AND m.direction = 'inbound'" : ""}`,
      [name],
    );
    if (!day) throw new Error(`no communication with ${name}`);
    return { present: [name, day] };
  };

/**
 * What a client owes: amount - amount_paid over its unpaid invoices, per currency; the total
 * every client owes is a wrong answer.
 */
const owes =
  (client: string): Case["expect"] =>
  async (t) => {
    const present = await t.total("invoices", "owed", `${UNPAID} AND client = $3`, [client]);
    const everyone = await t.total("invoices", "owed", UNPAID);
    return { present: [client, ...present], absent: everyone.filter((value) => !present.includes(value)) };
  };

const candidateField =
  (name: string, field: "status" | "position" | "hired_at"): Case["expect"] =>
  async (t) => {
    const row = await only(t, "candidates", "name = $3", [name]);
    const value =
      field === "hired_at"
        ? (await t.value(
            "SELECT to_char(hired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM candidates WHERE org_id = $1 AND id = $2",
            [row.id],
          ))!
        : row[field]!;
    return { present: [name, value] };
  };

// 6. Named records inside other resources ------------------------------------------------------

export const named: Case[] = [
  // What a client paid in a period is the payments received from it then, whenever its invoices were issued.
  ...phrasings(
    6,
    ["how much has acme logistics paid us this month", "has acme paid anything this month"],
    async (t) => {
      const where = "client = 'Acme Logistics' AND received_at >= '2026-03-01'";
      // With the payments' count: the reply before counted the invoices issued this month (2).
      const count = await t.count("payments", where);
      return { present: [...(await t.perCurrency("payments", "sum(amount)", where)), t.bold(count)] };
    },
  ),
  // A deal by a word of its title.
  ...phrasings(
    6,
    [
      "what stage is the arm retrofit deal at",
      "where are we with the arm retrofit?",
      "arm retrofit deal stage",
    ],
    dealField("title ILIKE 'Arm retrofit%'", "stage"),
  ),
  // A deal by its contact's name (Ravi Reyes has one deal) or its company.
  ...phrasings(
    6,
    [
      "what stage is the ravi reyes deal at",
      "where's the oakridge deal",
      "status of the deal with oakridge builders",
    ],
    dealField("contact_name = 'Ravi Reyes'", "stage"),
  ),
  // Ava Okafor is a contact and a candidate: only the contact has a deal.
  ...phrasings(
    6,
    ["what stage is the quanta deal in", "ava okafor's deal stage"],
    dealField("company = 'Quanta Analytics'", "stage"),
  ),
  // "close for": the value of a won deal.
  ...phrasings(
    6,
    [
      "how much did the meridian legal deal close for",
      "what did we win the ravi okafor deal for",
      "value of the onboarding workshop we won with meridian",
    ],
    dealField("company = 'Meridian Legal'", "value"),
  ),
  ...phrasings(
    6,
    ["how much did the solstice deal close for", "jonas brennan deal value"],
    dealField("company = 'Solstice Travel'", "value"),
  ),
  ...phrasings(
    6,
    ["how much was the robot fleet rollout", "robot fleet deal amount?"],
    dealField("title ILIKE 'Robot fleet%'", "value"),
  ),
  ...phrasings(
    6,
    ["how big is the riverbend deal", "liam haddad deal value"],
    dealField("company = 'Riverbend Coffee'", "value"),
  ),
  ...phrasings(
    6,
    ["when is the larkspur deal expected to close", "zoe okafor deal close date"],
    dealField("company = 'Larkspur Foods'", "expected_close_date"),
  ),
  ...phrasings(
    6,
    ["who's the contact for the arm retrofit deal", "who do we talk to on the arm retrofit deal?"],
    dealField("title ILIKE 'Arm retrofit%'", "contact_name"),
  ),
  // "hear from" = their latest communication; these contacts' latest one is inbound anyway, so
  // both readings (any direction / inbound only) agree.
  ...phrasings(
    6,
    ["when did we last hear from jonas tanaka", "last time jonas tanaka got in touch"],
    lastContact("Jonas Tanaka", true),
  ),
  ...phrasings(
    6,
    ["when did yara haddad last reach out", "yara haddad last contact date"],
    lastContact("Yara Haddad", true),
  ),
  ...phrasings(6, ["when did we last hear from sofia novak"], lastContact("Sofia Novak", true)),
  // "talk to" / "last contact": any direction (Mia Schmidt's latest is an outbound meeting).
  ...phrasings(
    6,
    ["when did we last talk to mia schmidt", "last contact with mia schmidt?"],
    lastContact("Mia Schmidt"),
  ),
  ...phrasings(
    6,
    ["when did we last speak with theo novak", "last touchpoint with theo novak"],
    lastContact("Theo Novak"),
  ),
  ...phrasings(
    6,
    ["how much does oakridge owe", "what's oakridge builders balance", "oakridge outstanding"],
    owes("Oakridge Builders"),
  ),
  ...phrasings(
    6,
    ["how much does kestrel owe us", "kestrel robotics unpaid total"],
    owes("Kestrel Robotics"),
  ),
  ...phrasings(6, ["riverbend coffee balance due", "what do riverbend still owe"], owes("Riverbend Coffee")),
  ...phrasings(6, ["what does solstice travel owe us"], owes("Solstice Travel")),
  ...phrasings(
    6,
    ["what's liam moreau's status", "where is liam moreau in the process", "liam moreau candidate stage"],
    candidateField("Liam Moreau", "status"),
  ),
  ...phrasings(
    6,
    ["what's noah iyer's status", "has noah iyer been interviewed yet"],
    candidateField("Noah Iyer", "status"),
  ),
  ...phrasings(
    6,
    ["did mia haddad get an offer", "mia haddad status?"],
    candidateField("Mia Haddad", "status"),
  ),
  ...phrasings(
    6,
    ["what's the status of candidate ava okafor", "where is ava okafor in hiring"],
    candidateField("Ava Okafor", "status"),
  ),
  ...phrasings(
    6,
    ["when was yara iyer hired", "yara iyer hire date"],
    candidateField("Yara Iyer", "hired_at"),
  ),
  ...phrasings(
    6,
    ["what role did sofia schmidt apply for", "which position is sofia schmidt up for"],
    candidateField("Sofia Schmidt", "position"),
  ),
];

// 7. Follow-ups that refine -------------------------------------------------------------------

export const refinements: Case[] = [
  ...followUps(
    ["show unpaid invoices"],
    ["which one is the biggest", "biggest one?", "and the largest of those?"],
    async (t) => {
      const top = await t.top("invoices", UNPAID, "amount", 1);
      return {
        present: [
          ...top.present,
          ...(await t.perCurrency("invoices", "max(amount)", `${UNPAID} AND cur = 'EUR'`)),
        ],
        absent: top.absent,
      };
    },
  ),
  // "from last month" on invoices = issued last month.
  ...followUps(
    ["list unpaid invoices"],
    ["only the ones from last month", "just those issued in february"],
    (t) => t.list("invoices", `${UNPAID} AND issued_at >= '2026-02-01' AND issued_at < '2026-03-01'`),
  ),
  ...followUps(["list unpaid invoices", "only the ones from last month"], ["which one is the biggest"], (t) =>
    t.top("invoices", `${UNPAID} AND issued_at >= '2026-02-01' AND issued_at < '2026-03-01'`, "amount", 1),
  ),
  ...followUps(["unpaid invoices"], ["and in dollars?", "only the usd ones"], (t) =>
    t.list("invoices", `${UNPAID} AND cur = 'USD'`),
  ),
  ...followUps(
    ["overdue invoices"],
    ["how many of those are over 5k", "how many are above 5,000?"],
    async (t) => {
      const n = await t.count("invoices", "s = 'overdue' AND amount > 5000");
      const all = await t.count("invoices", "s = 'overdue'");
      return { present: [t.bold(n)], absent: [t.bold(all)] };
    },
  ),
  ...followUps(["show overdue invoices"], ["sort them by amount", "order by amount, biggest first"], (t) =>
    t.list("invoices", "s = 'overdue'"),
  ),
  // What is owed on overdue invoices; the invoices' full amounts are a wrong answer.
  ...followUps(
    ["overdue invoices"],
    ["how much is still owed on those", "and how much do they still owe in total?"],
    async (t) => {
      const present = await t.total("invoices", "owed", "s = 'overdue'");
      const full = await t.total("invoices", "amount", "s = 'overdue'");
      return { present, absent: full.filter((value) => !present.includes(value)) };
    },
  ),
  ...followUps(["open deals"], ["which one is the biggest", "the largest?"], async (t) => {
    const top = await t.top("deals", OPEN_DEAL, "value", 1);
    return {
      present: [
        ...top.present,
        ...(await t.perCurrency("deals", "max(value)", `${OPEN_DEAL} AND cur = 'EUR'`)),
      ],
      absent: top.absent,
    };
  }),
  ...followUps(["open deals"], ["only the ones above 10k", "just those over 10,000"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND value > 10000`),
  ),
  // A sorted list is graded like the list (the order is not checked by the texts it holds).
  ...followUps(["show won deals"], ["sort them by value", "by amount please"], (t) =>
    t.list("deals", "stage = 'won'"),
  ),
  ...followUps(["won deals"], ["and in dollars?"], (t) => t.list("deals", "stage = 'won' AND cur = 'USD'")),
  ...followUps(["deals expected to close next month"], ["which is the biggest"], (t) =>
    t.top(
      "deals",
      `${OPEN_DEAL} AND expected_close_date >= '2026-04-01' AND expected_close_date < '2026-05-01'`,
      "value",
      1,
    ),
  ),
  ...followUps(["deals won this month"], ["what about last month?"], (t) =>
    t.list("deals", "stage = 'won' AND closed_at >= '2026-02-01' AND closed_at < '2026-03-01'"),
  ),
  ...followUps(["show me the deals for helios"], ["which ones did we win", "the won ones"], (t) =>
    t.list("deals", "stage = 'won' AND company = 'Helios Energy'"),
  ),
  ...followUps(["top 5 deals by value"], ["which of those did we win"], (t) =>
    t.list(
      "deals",
      "stage = 'won' AND id IN (SELECT id FROM deals WHERE org_id = $1 ORDER BY value DESC LIMIT 5)",
    ),
  ),
  ...followUps(["deals under 5k"], ["only open ones", "just the ones still in play"], (t) =>
    t.list("deals", `${OPEN_DEAL} AND value < 5000`),
  ),
  ...followUps(["payments this month"], ["and by card?"], (t) =>
    t.list("payments", "method = 'card' AND received_at >= '2026-03-01' AND received_at < '2026-04-01'"),
  ),
  ...followUps(["payments this month"], ["how many of those by card"], async (t) => {
    const n = await t.count(
      "payments",
      "method = 'card' AND received_at >= '2026-03-01' AND received_at < '2026-04-01'",
    );
    const all = await t.count("payments", "received_at >= '2026-03-01' AND received_at < '2026-04-01'");
    return { present: [t.bold(n)], absent: [t.bold(all)] };
  }),
  ...followUps(["payments received last month"], ["and the month before?", "what about january"], (t) =>
    t.list("payments", "received_at >= '2026-01-01' AND received_at < '2026-02-01'"),
  ),
  ...followUps(["payments of at least 1,000"], ["only the ones before march"], (t) =>
    t.list("payments", "amount >= 1000 AND received_at < '2026-03-01'"),
  ),
  ...followUps(
    ["candidates in screening"],
    ["which of them applied before march", "any of those from before march?"],
    (t) => t.list("candidates", "status = 'screening' AND created_at < '2026-03-01'"),
  ),
  ...followUps(["candidates who applied this month"], ["how many are in interview"], async (t) => {
    const n = await t.count("candidates", "status = 'interview' AND created_at >= '2026-03-01'");
    const all = await t.count("candidates", "created_at >= '2026-03-01'");
    return { present: [t.bold(n)], absent: [t.bold(all)] };
  }),
  ...followUps(
    ["list our candidates"],
    ["just the backend engineers", "only backend engineer candidates"],
    (t) => t.list("candidates", "position = 'Backend engineer'"),
  ),
  ...followUps(["list our candidates", "backend ones"], ["which of them are still in the process"], (t) =>
    t.list("candidates", "position = 'Backend engineer' AND status NOT IN ('hired', 'rejected')"),
  ),
  ...followUps(["who owes us money"], ["just kestrel", "what about kestrel robotics?"], async (t) => ({
    present: [
      "Kestrel Robotics",
      ...(await t.total("invoices", "owed", `${UNPAID} AND client = 'Kestrel Robotics'`)),
    ],
  })),
  ...followUps(
    ["invoices issued in january"],
    ["which of those are still unpaid", "any still unpaid?"],
    (t) => t.list("invoices", `${UNPAID} AND issued_at >= '2026-01-01' AND issued_at < '2026-02-01'`),
  ),
  ...followUps(["unpaid invoices"], ["which of those are from acme", "only acme logistics"], (t) =>
    t.list("invoices", `${UNPAID} AND client = 'Acme Logistics'`),
  ),
  ...followUps(["invoices over 10k"], ["which are paid?"], (t) =>
    t.list("invoices", "s = 'paid' AND amount > 10000"),
  ),
  ...followUps(["invoices over 10k"], ["how many of those are paid"], async (t) => {
    const n = await t.count("invoices", "s = 'paid' AND amount > 10000");
    const all = await t.count("invoices", "amount > 10000");
    return { present: [t.bold(n)], absent: [t.bold(all)] };
  }),
  ...followUps(["invoices for kestrel robotics"], ["in dollars?"], (t) =>
    t.list("invoices", "client = 'Kestrel Robotics' AND cur = 'USD'"),
  ),
  ...followUps(["skills not verified yet"], ["only noah iyer's", "just for noah iyer"], (t) =>
    t.list("skills", "status <> 'verified' AND candidate_name = 'Noah Iyer'"),
  ),
  // "whose are they", "from who?": the list before, per the person each record is of.
  ...followUps(["skills at advanced level"], ["whose are they", "who are they from?"], async (t) => {
    const names = [
      ...new Set((await t.rows("skills", "level = 'advanced'")).map((r) => String(r.candidate_name))),
    ];
    return { present: [t.bold(names.length), ...names] };
  }),
  ...followUps(["calls we made"], ["who were they to", "to who?"], async (t) => {
    const rows = await t.rows("communications", "channel = 'call' AND direction = 'outbound'");
    const names = [...new Set(rows.map((r) => String(r.contact_name)))];
    return { present: [t.bold(names.length), ...names] };
  }),
  // A grouping said as a command over the list before, its window kept.
  ...followUps(
    ["payments received this month"],
    ["split that by method", "break it down by payment method"],
    async (t) => ({
      present: await t.perCurrency(
        "payments",
        "sum(amount)",
        "received_at >= date_trunc('month', $2::date) AND method = 'bank_transfer'",
      ),
    }),
  ),
];
