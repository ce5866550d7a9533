/**
 * A parsed list request: paging, sort, the common filters, and resource filters
 * whose values are already validated. `api/` parses the query string into this.
 */
export interface ListQuery {
  page: number;
  perPage: number;
  sort: { field: string; descending: boolean };
  q?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
  updatedBefore?: Date;
  /** Resource filter name → accepted values (enum filters may hold several). */
  filters: Record<string, string[]>;
}

/** One of several conditions that never match the same row (see `SqlWhere.anyOf`). */
export interface Branch {
  sql: string;
  /**
   * Known to match few rows (a backlog a job keeps near empty): a page reads them
   * through the branch's own index and sorts them, never walks the sort index.
   */
  few?: boolean;
}

/** Builds a parameterized WHERE clause; values are bound, never interpolated. */
export class SqlWhere {
  readonly clauses: string[] = [];
  readonly params: unknown[] = [];
  /** Alternatives ORed together; a list pages each on its own (see engines/resource.ts). */
  branches: Branch[] | undefined;

  /** Binds a value and returns its placeholder, e.g. `$3`. */
  bind(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(clause: string): void {
    this.clauses.push(clause);
  }

  /**
   * Adds `(b1 OR b2 …)` for mutually exclusive branches. Kept apart so that a page
   * can be a UNION ALL of one ordered query per branch: PostgreSQL then walks an
   * index per branch, where one OR would make it scan past non-matching rows.
   */
  anyOf(branches: Branch[]): void {
    if (branches.length === 1 || this.branches) this.add(orOf(branches));
    else this.branches = branches;
  }

  toSql(): string {
    const clauses = this.branches ? [...this.clauses, orOf(this.branches)] : this.clauses;
    return clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
  }
}

function orOf(branches: Branch[]): string {
  return branches.length === 1
    ? `(${branches[0]!.sql})`
    : `(${branches.map((b) => `(${b.sql})`).join(" OR ")})`;
}

/** `%` and `_` in a user's search text match themselves, not wildcards. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The common `created_after`/`created_before` (and `updated_*`) bounds, on the columns a
 * list has; a list without an `updated` column ignores those two.
 */
export function addTimeBounds(
  where: SqlWhere,
  query: ListQuery,
  columns: { created: string; updated?: string },
): void {
  const bounds: Array<[string | undefined, Date | undefined]> = [
    [`${columns.created} >`, query.createdAfter],
    [`${columns.created} <`, query.createdBefore],
    [columns.updated && `${columns.updated} >`, query.updatedAfter],
    [columns.updated && `${columns.updated} <`, query.updatedBefore],
  ];
  for (const [condition, at] of bounds) {
    if (condition && at) where.add(`${condition} ${where.bind(at.toISOString())}::timestamptz`);
  }
}
