import { money } from "../../../sync/tools/resources.ts";
import type { Asked, Harness } from "../builtin/harness.ts";

/**
 * The phrasing exam for SYNC's read questions (issue 34): the shape of a case, the helpers a
 * case's `expect` uses to compute its answer straight from the tables, and the grading of a reply.
 *
 * Conventions every case follows (the reply contract, and the meaning of an owner's words):
 * - Money is `money(amount, currency)` per currency, never added across currencies; averages and
 *   medians are SQL `round(…, 2)` of numeric. A count is bold (`**12**`), a ratio is `**37.5%**`
 *   with its parts `(3 of 8)`, a date is YYYY-MM-DD (UTC, the organization's day).
 * - A list shows at most 10 records: `present` has the count and, when 10 or fewer, every label;
 *   `absent` has the labels of the resource's records that do not match (minus any label a
 *   matching record shares: deal titles repeat in the demo data).
 * - Invoice status as a caller sees it (`s`): an `open` invoice past its due date is `overdue`.
 *   "open" means that shown status (not yet due); "unpaid" / "outstanding" / "owed" means open or
 *   overdue (drafts were never issued, voids are cancelled). What is owed is amount - amount_paid.
 * - A threshold or aggregate on invoices is on `amount` (the invoice's total) unless the words
 *   say owed / outstanding / balance. Thresholds are chosen, where possible, so that both readings
 *   give the same set. "over / above / more than" is strict, "at least" / "at most" inclusive,
 *   "between X and Y" inclusive; "10k" is 10000. A bare number compares in every currency; a
 *   currency sign or word ("$300", "€5k", "in dollars") also restricts to that currency.
 * - "Every invoice" aggregates (average invoice, median invoice) range over issued invoices that
 *   still stand: open, overdue or paid; drafts and voids are left out unless named.
 * - Weeks start on Monday; "this month" / "last month" / "q1" are calendar periods, whole
 *   (a period that contains today runs to its end: "this month" is 2026-03-01..2026-03-31).
 */

export type Category = 1 | 2 | 3 | 4 | 5 | 6 | 7;

export const CATEGORY_NAMES: Record<Category, string> = {
  1: "thresholds & comparisons",
  2: "superlatives & top-N",
  3: "aggregates (avg, median, min/max, ratios, per period)",
  4: "calendar windows",
  5: "negation & the other side",
  6: "named records inside other resources",
  7: "follow-ups that refine",
};

export interface Expectation {
  present: string[];
  absent?: string[];
}

export interface Case {
  category: Category;
  /** Asked in turn (one conversation); the last reply is graded. */
  messages: string[];
  expect(t: Q): Promise<Expectation>;
}

export type Resource =
  "invoices" | "payments" | "contacts" | "deals" | "communications" | "candidates" | "skills" | "products";

/**
 * Each resource as a view the cases' `where` clauses can use: `$1` is the organization, `$2`
 * today (a date), `$3…` the case's parameters. Extra columns: invoices `s` (shown status), `owed`,
 * `cur`; payments `invoice_number`, `client`, `cur`; deals `contact_name`, `company`, `cur`;
 * communications `contact_name`; skills `candidate_name`; products `cur`.
 */
const VIEWS: Record<Resource, string> = {
  invoices: `SELECT i.*, trim(i.currency) AS cur, i.amount - i.amount_paid AS owed,
      CASE WHEN i.status = 'open' AND i.due_date < $2::date THEN 'overdue' ELSE i.status END AS s,
      i.number AS label
    FROM invoices i WHERE i.org_id = $1`,
  payments: `SELECT p.*, trim(p.currency) AS cur, i.number AS invoice_number, i.client, NULL::text AS label
    FROM payments p JOIN invoices i ON i.id = p.invoice_id WHERE p.org_id = $1`,
  contacts: `SELECT c.*, c.name AS label FROM contacts c WHERE c.org_id = $1`,
  deals: `SELECT d.*, trim(d.currency) AS cur, c.name AS contact_name, c.company, d.title AS label
    FROM deals d LEFT JOIN contacts c ON c.id = d.contact_id WHERE d.org_id = $1`,
  communications: `SELECT m.*, c.name AS contact_name, NULL::text AS label
    FROM communications m LEFT JOIN contacts c ON c.id = m.contact_id WHERE m.org_id = $1`,
  candidates: `SELECT c.*, c.name AS label FROM candidates c WHERE c.org_id = $1`,
  skills: `SELECT s.*, c.name AS candidate_name, s.name AS label
    FROM skills s JOIN candidates c ON c.id = s.candidate_id WHERE s.org_id = $1`,
  products: `SELECT p.*, trim(p.currency) AS cur, p.name AS label FROM products p WHERE p.org_id = $1`,
};

type Row = Record<string, unknown> & { label: string | null };

/** Payments have no label of their own: a payment is shown by its amount. */
const labelOf = (resource: Resource, row: Row & { amount?: unknown; cur?: unknown }) =>
  resource === "payments" ? money(String(row.amount), String(row.cur)) : row.label;

/** `day` (YYYY-MM-DD) moved by `days`. */
export const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

const unique = <T>(values: readonly T[]) => [...new Set(values)];

export function createQ(h: Harness) {
  const today = h.today;
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.sql<T>(text, params);
  /** Rows of a resource matching `where` (in the view's columns), in `order`. */
  const rows = async <T = Row>(resource: Resource, where = "true", params: unknown[] = [], order = "label") =>
    sql<T>(
      `SELECT * FROM (${VIEWS[resource]}) v WHERE (${where}) AND $2::date IS NOT NULL ORDER BY ${order}`,
      [today, ...params],
    );
  const labels = async (resource: Resource, where = "true", params: unknown[] = []) =>
    (await rows(resource, where, params))
      .map((row) => labelOf(resource, row))
      .filter((l): l is string => !!l);
  /**
   * The labels of the records that do not match (a null compared is no match), leaving out any a
   * matching record also has.
   */
  const others = async (resource: Resource, where: string, params: unknown[] = []) => {
    const matching = new Set(await labels(resource, where, params));
    return unique(await labels(resource, `NOT coalesce((${where}), false)`, params)).filter(
      (label) => !matching.has(label),
    );
  };
  const count = async (resource: Resource, where = "true", params: unknown[] = []) =>
    (
      await sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM (${VIEWS[resource]}) v WHERE (${where}) AND $2::date IS NOT NULL`,
        [today, ...params],
      )
    )[0]!.n;

  const q = {
    h,
    today,
    money,
    sql,
    rows,
    labels,
    others,
    count,
    /** `**N**`. */
    bold: (n: number) => `**${n}**`,
    /** A filtered list: the count, every label when 10 or fewer, the non-matching labels absent. */
    async list(resource: Resource, where: string, params: unknown[] = []): Promise<Expectation> {
      const matched = await labels(resource, where, params);
      const n = await count(resource, where, params);
      // An empty answer makes a weak question: the exam's own fault, reported as such.
      if (n === 0) throw new Error(`no ${resource} match ${where}: ask something with an answer`);
      return {
        present: [q.bold(n), ...(n <= 10 ? unique(matched) : [])],
        absent: await others(resource, where, params),
      };
    },
    /**
     * The first `n` records of `where` by `order` (an SQL expression, `dir` its direction):
     * their labels present, every other record's label absent. A tie across the boundary
     * keeps the tied records out of both lists.
     */
    async top(
      resource: Resource,
      where: string,
      order: string,
      n: number,
      dir: "asc" | "desc" = "desc",
      params: unknown[] = [],
    ): Promise<Expectation> {
      const all = await sql<Row & { ord: string }>(
        `SELECT *, (${order})::text AS ord FROM (${VIEWS[resource]}) v
          WHERE (${where}) AND (${order}) IS NOT NULL AND $2::date IS NOT NULL ORDER BY (${order}) ${dir}`,
        [today, ...params],
      );
      if (all.length < n) throw new Error(`top ${n} of ${resource} where ${where}: only ${all.length}`);
      const boundary = all[n - 1]!.ord;
      const crosses = all.length > n && all[n]!.ord === boundary;
      const shown = all.slice(0, n).filter((row) => !crosses || row.ord !== boundary);
      const tied = new Set(
        all.filter((row) => crosses && row.ord === boundary).map((r) => labelOf(resource, r)),
      );
      const present = unique(shown.map((row) => labelOf(resource, row)!));
      const absent = unique(await labels(resource)).filter((l) => !present.includes(l) && !tied.has(l));
      return { present, absent };
    },
    /** One scalar (the first column of the first row) as text. */
    async value(text: string, params: unknown[] = []): Promise<string | null> {
      const [row] = await sql<Record<string, string | number | null>>(text, params);
      const first = row ? Object.values(row)[0] : null;
      return first === null || first === undefined ? null : String(first);
    },
    /**
     * An aggregate per currency over a resource with a `cur` column, as money(): e.g.
     * `round(avg(amount), 2)`; a currency whose aggregate is null is left out.
     */
    async perCurrency(resource: Resource, aggregate: string, where = "true", params: unknown[] = []) {
      const found = await sql<{ cur: string; v: string | null }>(
        `SELECT cur, (${aggregate})::text AS v FROM (${VIEWS[resource]}) v
          WHERE (${where}) AND $2::date IS NOT NULL GROUP BY cur ORDER BY cur`,
        [today, ...params],
      );
      return found.filter((row) => row.v !== null).map((row) => money(row.v!, row.cur));
    },
    /** `**37.5%**` and `(3 of 8)`. */
    ratio(part: number, whole: number): string[] {
      if (whole === 0) throw new Error("a ratio of nothing");
      return [`**${((part / whole) * 100).toFixed(1)}%**`, `(${part} of ${whole})`];
    },
    /** The ratio of the records matching `part` among those matching `whole`. */
    async share(resource: Resource, part: string, whole = "true", params: unknown[] = []) {
      const n = await count(resource, `(${whole}) AND (${part})`, params);
      const of = await count(resource, whole, params);
      return q.ratio(n, of);
    },
    /** Median of `column` per currency: percentile_cont rounded to 2 decimals, as money(). */
    median: (resource: Resource, column: string, where = "true", params: unknown[] = []) =>
      q.perCurrency(
        resource,
        `round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ${column})::numeric, 2)`,
        where,
        params,
      ),
    average: (resource: Resource, column: string, where = "true", params: unknown[] = []) =>
      q.perCurrency(resource, `round(avg(${column}), 2)`, where, params),
    total: (resource: Resource, column: string, where = "true", params: unknown[] = []) =>
      q.perCurrency(resource, `sum(${column})`, where, params),
  };
  return q;
}
export type Q = ReturnType<typeof createQ>;

/** Cases for several phrasings of one question. */
export const phrasings = (category: Category, messages: readonly string[], expect: Case["expect"]): Case[] =>
  messages.map((message) => ({ category, messages: [message], expect }));

/** One conversation: the earlier turns and each last turn asked after them. */
export const followUps = (
  earlier: readonly string[],
  lasts: readonly string[],
  expect: Case["expect"],
): Case[] => lasts.map((last) => ({ category: 7 as const, messages: [...earlier, last], expect }));

// ---------------------------------------------------------------------------------------------
// Grading

export type Verdict = "right" | "honest" | "wrong";

export interface Graded {
  case: Case;
  expectation?: Expectation;
  /** The truth could not be computed: the exam's own fault, reported apart. */
  truthError?: string;
  verdict: Verdict;
  reply: string;
  missing: string[];
  unwanted: string[];
  why?: string;
}

const ALNUM = /[\p{L}\p{N}]/u;
const NUMERIC = /[\p{N},.]/u;

/**
 * Whether `text` is in `reply` as a whole: not inside a longer word or number, so that
 * "450.00 EUR" is not found in "1,450.00 EUR", "SQL" not in "PostgreSQL", "**1**" not in "**12**".
 */
export function mentions(reply: string, text: string): boolean {
  if (!text) return true;
  // A bold count may carry its noun inside the bold: "**12**" is said by "**12 invoices**" too.
  const count = /^\*\*(\d+)\*\*$/.exec(text);
  if (count && new RegExp(`(?<![\\d,.])\\*\\*${count[1]} [\\p{L}]`, "u").test(reply)) return true;
  const first = text[0]!;
  const last = text[text.length - 1]!;
  for (let at = reply.indexOf(text); at >= 0; at = reply.indexOf(text, at + 1)) {
    const before = at > 0 ? reply[at - 1]! : "";
    const after = reply[at + text.length] ?? "";
    if (ALNUM.test(first) && before && (ALNUM.test(before) || (/\p{N}/u.test(first) && NUMERIC.test(before))))
      continue;
    if (
      ALNUM.test(last) &&
      after &&
      (ALNUM.test(after) ||
        (/\p{N}/u.test(last) && /^[.,]\p{N}/u.test(reply.slice(at + text.length, at + text.length + 2))))
    )
      continue;
    return true;
  }
  return false;
}

/**
 * right: understood, nothing proposed, not failed, every `present` text and no `absent` one;
 * honest: the planner said it did not understand (or asked back); wrong: anything else.
 */
export function grade(c: Case, expectation: Expectation, asked: Asked): Graded {
  const reply = asked.reply;
  const missing = expectation.present.filter((text) => !mentions(reply, text));
  const unwanted = (expectation.absent ?? []).filter((text) => mentions(reply, text));
  const base = { case: c, expectation, reply, missing, unwanted };
  if (asked.outcome.understood === false) return { ...base, verdict: "honest" };
  const why = [
    asked.proposals.length > 0 ? `proposed ${asked.proposals.map((p) => p.tool).join(", ")}` : "",
    asked.outcome.failed ? "failed" : "",
    missing.length ? `missing ${JSON.stringify(missing)}` : "",
    unwanted.length ? `should not say ${JSON.stringify(unwanted)}` : "",
  ].filter(Boolean);
  return why.length === 0
    ? { ...base, verdict: "right" }
    : { ...base, verdict: "wrong", why: why.join("; ") };
}

export interface Tally {
  category: Category;
  total: number;
  right: number;
  honest: number;
  wrong: number;
  /** Of the wrong ones, those where the planner threw instead of replying. */
  threw: number;
}

export function tally(graded: readonly Graded[]): Tally[] {
  const categories = unique(graded.map((g) => g.case.category)).sort();
  return categories.map((category) => {
    const of = graded.filter((g) => g.case.category === category);
    const n = (verdict: Verdict) => of.filter((g) => g.verdict === verdict).length;
    const threw = of.filter((g) => g.why === "threw").length;
    return { category, total: of.length, right: n("right"), honest: n("honest"), wrong: n("wrong"), threw };
  });
}

const pct = (n: number, of: number) => (of === 0 ? "—" : `${((n / of) * 100).toFixed(1)}%`);

/** A Markdown table per category, then the whole set. */
export function formatTally(tallies: readonly Tally[]): string {
  const table = (title: string, t: Omit<Tally, "category">) =>
    [
      `### ${title} (${t.total} cases)`,
      "",
      "| verdict | cases | share |",
      "| --- | ---: | ---: |",
      `| right | ${t.right} | ${pct(t.right, t.total)} |`,
      `| honest | ${t.honest} | ${pct(t.honest, t.total)} |`,
      `| confidently wrong | ${t.wrong} | ${pct(t.wrong, t.total)} |`,
      ...(t.threw ? [`| (of which the planner threw) | ${t.threw} | ${pct(t.threw, t.total)} |`] : []),
      "",
    ].join("\n");
  const sum = tallies.reduce(
    (a, t) => ({
      total: a.total + t.total,
      right: a.right + t.right,
      honest: a.honest + t.honest,
      wrong: a.wrong + t.wrong,
      threw: a.threw + t.threw,
    }),
    { total: 0, right: 0, honest: 0, wrong: 0, threw: 0 },
  );
  return [
    ...tallies.map((t) => table(`${t.category}. ${CATEGORY_NAMES[t.category]}`, t)),
    table("all categories", sum),
  ].join("\n");
}

/** A confidently wrong answer, for a developer to read. */
export function describeWrong(g: Graded): string {
  const turns = g.case.messages.map((m, i) => `  ${i + 1}. ${JSON.stringify(m)}`).join("\n");
  const reply = g.reply.length > 1200 ? `${g.reply.slice(0, 1200)}…` : g.reply;
  return `[category ${g.case.category}] ${g.why}\n${turns}\n  reply: ${reply.replace(/\n/g, "\n         ")}`;
}

/**
 * Every case asked of the planner and graded: its truth computed first (a truth that fails is kept,
 * with `truthError`, for the exam to report), then the question asked (a conversation's last turn
 * graded), a planner that throws graded wrong.
 */
export async function gradeAll(h: Harness, cases: readonly Case[]): Promise<Graded[]> {
  const q = createQ(h);
  const graded: Graded[] = [];
  for (const c of cases) {
    let expectation: Expectation;
    try {
      expectation = await c.expect(q);
    } catch (error) {
      graded.push({
        case: c,
        truthError: (error as Error).message,
        verdict: "wrong",
        reply: "",
        missing: [],
        unwanted: [],
      });
      continue;
    }
    let asked: Asked;
    try {
      asked = c.messages.length === 1 ? await h.ask(c.messages[0]!) : (await h.converse(c.messages)).at(-1)!;
    } catch (error) {
      graded.push({
        case: c,
        expectation,
        verdict: "wrong",
        reply: `(the planner threw) ${(error as Error).stack ?? String(error)}`,
        missing: expectation.present,
        unwanted: [],
        why: "threw",
      });
      continue;
    }
    graded.push(grade(c, expectation, asked));
  }
  return graded;
}

/** The cases not answered right, each with its verdict, its reply's first line and what the truth expected. */
export function notRight(graded: readonly Graded[]): string {
  return graded
    .filter((g) => !g.truthError && g.verdict !== "right")
    .map((g) =>
      [
        `${g.case.category} ${g.verdict.toUpperCase()} ${JSON.stringify(g.case.messages)}`,
        `   reply: ${g.reply.split("\n")[0]}`,
        ...(g.why ? [`   why: ${g.why}`] : []),
        `   expected: ${JSON.stringify(g.expectation?.present)}`,
      ].join("\n"),
    )
    .join("\n");
}
