import type { Queryable, Row } from "../store/index.ts";
import type { SqlWhere } from "./list-query.ts";

/**
 * Offset paging, written once: every list of the API (`?page=&per_page=`) answers with
 * the same envelope, `{ data, meta: { total, page, per_page } }`, and reads its page
 * with `LIMIT … OFFSET …` beside a count of the same WHERE clause.
 */

/** A list's answer: one page of objects and where it sits in the whole. */
export interface Page<T> {
  data: T[];
  meta: { total: number; page: number; per_page: number };
}

/** Which slice of a list a request asks for: `page` counts from 1, `perPage` items each. */
export interface Paging {
  page: number;
  perPage: number;
}

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 25;
/** Deep offsets cost a scan; beyond this callers filter by date instead. */
export const MAX_OFFSET_WINDOW = 10_000;

/** Why a page lies beyond the offset window (`page * per_page` over 10,000), or undefined. */
export function offsetWindowProblem({ page, perPage }: Paging): string | undefined {
  if (page * perPage <= MAX_OFFSET_WINDOW) return undefined;
  return `page * per_page must be at most ${MAX_OFFSET_WINDOW}; narrow the list with filters instead`;
}

/** Rows before the page: `(page - 1) * perPage`. */
export function pageOffset({ page, perPage }: Paging): number {
  return (page - 1) * perPage;
}

/**
 * `LIMIT n OFFSET m` for a page. The two numbers are written into the text rather than
 * bound so the planner plans for this page size; they are checked to be integers first,
 * so nothing a caller sends can reach the SQL through them.
 *
 * @example
 *   limitOffsetSql({ page: 3, perPage: 25 }); // "LIMIT 25 OFFSET 50"
 */
export function limitOffsetSql(paging: Paging): string {
  const offset = pageOffset(paging);
  if (!isCount(paging.perPage) || !isCount(offset)) {
    throw new TypeError(`paging must be whole numbers: page ${paging.page}, per_page ${paging.perPage}`);
  }
  return `LIMIT ${paging.perPage} OFFSET ${offset}`;
}

const isCount = (n: number) => Number.isSafeInteger(n) && n >= 0;

/** The envelope: `{ data, meta: { total, page, per_page } }`. */
export function toPage<T>(data: T[], total: number, paging: Paging): Page<T> {
  return { data, meta: { total, page: paging.page, per_page: paging.perPage } };
}

/** What one list reads: `SELECT {columns} FROM {from} {where} ORDER BY {orderBy}`. */
export interface PageSelect {
  /** Defaults to `*`. */
  columns?: string;
  /** A table, or tables joined. */
  from: string;
  /** The list's conditions, the organization's first; values bound. */
  where: SqlWhere;
  /** Ends with a unique column, so that pages never overlap or skip a row. */
  orderBy: string;
  /** The count's FROM, when a join the page needs cannot change the count. Defaults to `from`. */
  countFrom?: string;
}

/**
 * One page of a list and its total: the page and `count(*)` of the same WHERE clause,
 * sent together, each row rendered by `render`.
 *
 * @example
 *   const where = new SqlWhere();
 *   where.add(`org_id = ${where.bind(orgId)}`);
 *   return selectPage(db, { from: "events", where, orderBy: "created_at DESC, id DESC" }, query, renderEvent);
 */
export async function selectPage<T, R extends object = Row>(
  db: Queryable,
  select: PageSelect,
  paging: Paging,
  render: (row: R) => T,
): Promise<Page<T>> {
  const where = select.where.toSql();
  const [rows, counted] = await Promise.all([
    db.query<R>(
      `SELECT ${select.columns ?? "*"} FROM ${select.from} ${where}
       ORDER BY ${select.orderBy} ${limitOffsetSql(paging)}`,
      select.where.params,
    ),
    db.query<{ total: number }>(
      `SELECT count(*) AS total FROM ${select.countFrom ?? select.from} ${where}`,
      select.where.params,
    ),
  ]);
  return toPage(rows.map(render), counted[0]?.total ?? 0, paging);
}
