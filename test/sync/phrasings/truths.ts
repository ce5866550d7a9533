import type { Expectation, Q, Resource } from "./grade.ts";

/**
 * The truth helpers the holdout exams share (cases-holdout*.ts), on top of grade.ts's: each exam
 * was written apart, and these came out the same in each, so they live here once. A helper an exam
 * wrote otherwise stays in that exam.
 */

/** A record as `t.rows` gives it. */
export type Row = Record<string, string | null>;

/** `column` in [from, to) (`to` exclusive), as a where clause. */
export const within = (column: string, from: string, to: string) =>
  `${column} >= '${from}' AND ${column} < '${to}'`;

/** Every value of `values` that is not in `right` (a wrong answer's texts, for `absent`). */
export const besides = (right: readonly string[], values: readonly string[]) =>
  [...new Set(values)].filter((value) => !right.includes(value));

/** A value per currency present, and the same aggregate over plausible wrong sets absent. */
export const aggregate = async (
  present: Promise<string[]>,
  ...wrong: Array<Promise<string[]>>
): Promise<Expectation> => {
  const right = await present;
  if (right.length === 0) throw new Error("an aggregate of nothing");
  const others: string[] = [];
  for (const values of wrong) others.push(...(await values));
  return { present: right, absent: besides(right, others) };
};

/** A ratio as the expectation. */
export const ratio = (share: Promise<string[]>): Promise<Expectation> =>
  share.then((present) => ({ present }));

/** A count only (records without a label of their own); the counts of `wrong` sets absent. */
export const countOf = async (t: Q, resource: Resource, where: string, wrong: string[] = []) => {
  const n = await t.count(resource, where);
  if (n === 0) throw new Error(`no ${resource} match ${where}: ask something with an answer`);
  const absent: string[] = [];
  for (const other of wrong) {
    const m = await t.count(resource, other);
    if (m !== n) absent.push(t.bold(m));
  }
  return { present: [t.bold(n)], absent: [...new Set(absent)] };
};

/** A total per currency present (it must exist); the totals of `wrong` sets absent. */
export const totalOf = async (
  t: Q,
  resource: Resource,
  column: string,
  where: string,
  wrong: string[] = [],
) => {
  const present = await t.total(resource, column, where);
  if (present.length === 0) throw new Error(`no ${resource} match ${where}: nothing to add up`);
  const others: string[] = [];
  for (const other of wrong) others.push(...(await t.total(resource, column, other)));
  return { present, absent: besides(present, others) };
};

/** The one record of `resource` matching `where` (the exam's own check: exactly one). */
export const only = async (t: Q, resource: Resource, where: string, params: unknown[] = []) => {
  const rows = await t.rows<Row>(resource, where, params);
  if (rows.length !== 1) throw new Error(`${resource} where ${where}: ${rows.length} records, not one`);
  return rows[0]!;
};

/**
 * The first `n` records by `order` (grade.ts's `top`), throwing when fewer than `n` labels are
 * shown: `top` leaves out the records tied across the boundary, so a tie at rank `n` (an ambiguous
 * answer) or too few records throw here.
 */
export const best = async (
  t: Q,
  resource: Resource,
  where: string,
  order: string,
  n: number,
  dir: "asc" | "desc" = "desc",
): Promise<Expectation> => {
  const found = await t.top(resource, where, order, n, dir);
  if (found.present.length !== n) throw new Error(`top ${n} of ${resource} where ${where}: a tie or too few`);
  return found;
};

/** One text from SQL (`$1` the organization), which must not be null. */
export const must = async (t: Q, text: string, params: unknown[] = []) => {
  const value = await t.value(text, params);
  if (value === null) throw new Error(`nothing from ${text}`);
  return value;
};

/** A filtered list (`t.list`), with the count each `wrong` reading would give absent when it differs. */
export const listOf = async (
  t: Q,
  resource: Resource,
  where: string,
  wrong: string[] = [],
): Promise<Expectation> => {
  const found = await t.list(resource, where);
  const right = await t.count(resource, where);
  const absent = [...(found.absent ?? [])];
  for (const other of wrong) {
    const m = await t.count(resource, other);
    if (m !== right) absent.push(t.bold(m));
  }
  return { present: found.present, absent: [...new Set(absent)] };
};

/**
 * A ratio present; each `wrong` (part, whole) reading absent: its percentage, and with `counts` its
 * "(n of m)" too.
 */
const shares = async (
  t: Q,
  resource: Resource,
  part: string,
  whole: string,
  wrong: Array<[string, string]>,
  counts: boolean,
): Promise<Expectation> => {
  const present = await t.share(resource, part, whole);
  const others: string[] = [];
  for (const [p, w] of wrong) {
    const [percent, ofWhole] = await t.share(resource, p, w);
    others.push(percent!, ...(counts ? [ofWhole!] : []));
  }
  return { present, absent: besides(present, others) };
};

/** A ratio present; the percentage of each `wrong` (part, whole) reading absent. */
export const shareOf = (
  t: Q,
  resource: Resource,
  part: string,
  whole: string,
  wrong: Array<[string, string]> = [],
) => shares(t, resource, part, whole, wrong, false);

/** A ratio present; each `wrong` (part, whole) reading absent, its percentage and its "(n of m)". */
export const shareOfReadings = (
  t: Q,
  resource: Resource,
  part: string,
  whole: string,
  wrong: Array<[string, string]> = [],
) => shares(t, resource, part, whole, wrong, true);

/*
 * The words and periods every exam writes its truths in. Today, in the harness, is 2026-03-18, a
 * Wednesday; a period is [from, to), `to` exclusive, weeks start on Monday.
 */

/** Invoices owed (shown status open or overdue), those that stand (paid too), deals still in play. */
export const UNPAID = "s IN ('open', 'overdue')";
export const STANDING = "s IN ('open', 'overdue', 'paid')";
export const OPEN_DEAL = "stage IN ('lead', 'qualified', 'proposal')";
export const STAGES = ["lead", "qualified", "proposal", "won", "lost"];

export const JANUARY = ["2026-01-01", "2026-02-01"] as const;
export const FEBRUARY = ["2026-02-01", "2026-03-01"] as const;
export const MARCH = ["2026-03-01", "2026-04-01"] as const;
export const APRIL = ["2026-04-01", "2026-05-01"] as const;
export const MAY = ["2026-05-01", "2026-06-01"] as const;
export const YESTERDAY = ["2026-03-17", "2026-03-18"] as const;
export const LAST_WEEK = ["2026-03-09", "2026-03-16"] as const;
export const THIS_WEEK = ["2026-03-16", "2026-03-23"] as const;
export const NEXT_WEEK = ["2026-03-23", "2026-03-30"] as const;
export const WEEK_AFTER_NEXT = ["2026-03-30", "2026-04-06"] as const;
export const Q1 = ["2026-01-01", "2026-04-01"] as const;
export const Q2 = ["2026-04-01", "2026-07-01"] as const;
export const YEAR = ["2026-01-01", "2027-01-01"] as const;
