import type { z } from "zod";
import type { Clock } from "../core/index.ts";
import { AppError, isoDate, newId, rfc3339 } from "../core/index.ts";
import type { Queryable, Row, Store } from "../store/index.ts";
import type { DomainEventSpec } from "./events/catalog.ts";
import { MAX_METADATA_KEYS } from "./fields.ts";
import { eventsInsert, previousAttributes, recordEvents, type EventInput } from "./events/outbox.ts";
import { pageKey, versionSql, type ListCache } from "./list-cache.ts";
import { likePattern, SqlWhere, type Branch, type ListQuery } from "./list-query.ts";
import { limitOffsetSql, pageOffset, toPage, type Page, type Paging } from "./paging.ts";
import type { StateMachine } from "./state-machine.ts";

/**
 * The resource pattern: one definition per resource (table, columns, filters,
 * sorts, rules) and one generic service that does list/get/create/update/delete,
 * every query scoped by organization. Adding a resource means writing a definition
 * (see engines/finance/products.ts) and a migration; api/ mounts it.
 */

export const ENGINES = ["finance", "growth", "talent", "sync"] as const;
export type Engine = (typeof ENGINES)[number];

/** SQL type of a writable column; parameters are cast to it. */
export type ColumnType = "text" | "numeric" | "date" | "timestamptz" | "jsonb" | "text[]" | "boolean";

export type Filter =
  | { kind: "enum"; values: readonly string[]; column?: string }
  | { kind: "equals"; column?: string }
  | { kind: "boolean"; column?: string }
  /** A calendar-date bound: `column < value` or `column > value`. */
  | { kind: "date"; column: string; op: "<" | ">" }
  /** A timestamp bound (RFC 3339 or a date, meaning its midnight UTC), like `created_after`. */
  | { kind: "instant"; column: string; op: "<" | ">" }
  /** A filter whose SQL depends on the request (e.g. a status derived from today's date). */
  | {
      kind: "custom";
      values?: readonly string[];
      /** The columns its SQL reads, so a total can come from the resource's `counts`. */
      columns?: readonly string[];
      apply(values: string[], where: SqlWhere, ctx: RuleContext): void;
    };

/** What rules see: the organization, the transaction, and the request's clock. */
export interface RuleContext {
  orgId: string;
  tx: Queryable;
  now: Date;
  /** `YYYY-MM-DD` of `now` in UTC. */
  today: string;
}

/** Column name → value, as written to the table. */
export type Columns = Record<string, unknown>;

/**
 * The columns every resource's table has, as the store returns them: what the generic service and
 * `baseFields` read. Each resource types its own row once beside its definition (`InvoiceRow`), and
 * the service reads its table as that type, so no rule or render casts a column. A type, not an
 * interface: a definition that renders any `Row` still fits.
 */
export type ResourceRow = {
  id: string;
  org_id: string;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
};

export interface ResourceDefinition<TObject, TCreate, TUpdate, TRow extends ResourceRow = ResourceRow> {
  /** Plural name: the URL segment and, unless `table` says otherwise, the table. */
  name: string;
  /** `object` field of every rendered instance, e.g. `invoice`. */
  object: string;
  /** Id prefix without the underscore, e.g. `inv`. */
  prefix: string;
  engine: Engine;
  table?: string;
  /** Zod schemas: the rendered object, and the create and update bodies (validated at the edge). */
  schemas: {
    object: z.ZodType<TObject>;
    create: z.ZodType<TCreate, unknown>;
    update: z.ZodType<TUpdate, unknown>;
  };
  columns: Record<string, ColumnType>;
  /** Sortable fields (API name → column); `created_at` is the default, descending. */
  sorts: Record<string, string>;
  /** Columns searched by `q` (case-insensitive substring). */
  search: readonly string[];
  filters: Record<string, Filter>;
  /** Validated create body → columns. May read other tables through ctx.tx. */
  create(input: TCreate, ctx: RuleContext): Promise<Columns> | Columns;
  /** Current row + validated patch → changed columns. Throws to refuse (e.g. 409). */
  update(row: TRow, patch: TUpdate, ctx: RuleContext): Promise<Columns> | Columns;
  /** Throws to refuse a delete (e.g. the object is referenced). */
  beforeDelete?(row: TRow, ctx: RuleContext): Promise<void> | void;
  /**
   * A row as the API shows it. It may depend on the date (a status derived from a due
   * date) but on nothing else outside the row: list pages are cached per day.
   */
  render(row: TRow, ctx: { today: string }): TObject;
  /**
   * The lifecycle, if the resource has one (`defineStateMachine`): `update` takes a move's columns
   * from it (`move`), and every change records the events it declares (`eventsOf` of the object's
   * state before and after), so no rule can move the state without its events.
   */
  lifecycle?: StateMachine<string>;
  /** Domain events beyond `<object>.created|updated|deleted` and the lifecycle's (e.g. `invoice.partially_paid`). */
  events?: DomainEventSpec<TObject>;
  /**
   * A table of exact row counts `(org_id, …columns, n)` that triggers keep in the
   * writing transaction (see migration 0005): a list total whose filters read only
   * these columns is a sum of counters instead of a count of every matching row.
   */
  counts?: { table: string; columns: readonly string[] };
}

export interface ResourceService<TObject, TCreate, TUpdate, TRow extends ResourceRow = ResourceRow> {
  readonly definition: ResourceDefinition<TObject, TCreate, TUpdate, TRow>;
  list(orgId: string, query: ListQuery): Promise<Page<TObject>>;
  /**
   * The same page as one line of JSON text (ending with a newline, as the API serves it), served
   * from the list cache while the table is unchanged. The newline is cached with the page: added
   * per request, it made V8 copy the whole page each time (list-overdue lost ~10 %).
   */
  listJson(orgId: string, query: ListQuery): Promise<string>;
  get(orgId: string, id: string): Promise<TObject>;
  create(orgId: string, input: TCreate): Promise<TObject>;
  update(orgId: string, id: string, patch: TUpdate): Promise<TObject>;
  delete(orgId: string, id: string): Promise<void>;
}

/** A service of any resource: what a registry of them holds (`createResourceServices`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous registry
export type AnyResourceService = ResourceService<any, any, any>;

export function createResourceService<TObject, TCreate, TUpdate, TRow extends ResourceRow>(
  definition: ResourceDefinition<TObject, TCreate, TUpdate, TRow>,
  store: Store,
  clock: Clock,
  listCache?: ListCache,
): ResourceService<TObject, TCreate, TUpdate, TRow> {
  const table = definition.table ?? definition.name;
  const context = (orgId: string, tx: Queryable): RuleContext => {
    const now = clock.now();
    return { orgId, tx, now, today: isoDate(now) };
  };
  const render = (row: TRow, ctx: RuleContext) => definition.render(row, ctx);
  const notFound = (id: string) => new AppError("not_found", `No such ${definition.object}: '${id}'`);

  /**
   * One statement: one round trip, the total taken from the page's snapshot and,
   * when asked, the table's version in that same snapshot (for the list cache).
   */
  const readPage = async (orgId: string, query: ListQuery, ctx: RuleContext, withVersion: boolean) => {
    const where = buildWhere(definition, orgId, query, ctx);
    const column = definition.sorts[query.sort.field] ?? "created_at";
    const direction = query.sort.descending ? "DESC" : "ASC";
    const order = `ORDER BY ${column} ${direction}, id ${direction}`;
    const pageSql = where.branches
      ? branchedPageSql(table, where.clauses, where.branches, column, order, query)
      : `SELECT * FROM ${table} ${where.toSql()} ${order} ${limitOffsetSql(query)}`;
    const counts = countsTable(definition, query);
    const countSql = counts
      ? `SELECT COALESCE(sum(n), 0)::int8 AS total FROM ${counts} ${where.toSql()}`
      : `SELECT count(*) AS total FROM ${table} ${where.toSql()}`;
    // buildWhere binds the organization first, so it is `$1` here too.
    const version = withVersion ? `${versionSql(table)} AS tessera_version, ` : "";
    const rows = await store.query<PageRow<TRow>>(
      `SELECT ${version}counted.total AS tessera_total, page.* FROM (${countSql}) AS counted` +
        ` LEFT JOIN LATERAL (${pageSql}) AS page ON true ORDER BY page.${column} ${direction}, page.id ${direction}`,
      where.params,
    );
    const page: Page<TObject> = toPage(
      rows.filter(isPageRow).map((row) => render(row, ctx)),
      Number(rows[0]?.tessera_total ?? 0),
      query,
    );
    return { page, version: withVersion ? BigInt(rows[0]!.tessera_version ?? 0) : 0n };
  };

  return {
    definition,

    async list(orgId, query) {
      return (await readPage(orgId, query, context(orgId, store), false)).page;
    },

    async listJson(orgId, query) {
      const ctx = context(orgId, store);
      if (!listCache) return `${JSON.stringify((await readPage(orgId, query, ctx, false)).page)}\n`;
      // The version is read first, so whatever is served reflects every write committed before it.
      const [row] = await store.query<{ version: string }>(`SELECT ${versionSql(table)} AS version`, [orgId]);
      const version = BigInt(row!.version);
      const key = pageKey(orgId, table, ctx.today, query);
      return (
        listCache.lookup(key, version) ??
        listCache.fill(key, version, async () => {
          const read = await readPage(orgId, query, ctx, true);
          return { version: read.version, body: `${JSON.stringify(read.page)}\n` };
        })
      );
    },

    async get(orgId, id) {
      const ctx = context(orgId, store);
      const row = await selectRow<TRow>(store, table, orgId, id, false);
      if (!row) throw notFound(id);
      return render(row, ctx);
    },

    async create(orgId, input) {
      const attempt = (predict: boolean) =>
        withConstraintErrors(definition, () =>
          store.transaction(async (tx) => {
            const ctx = context(orgId, tx);
            const columns = await definition.create(input, ctx);
            return insertWithEvents(tx, definition, table, orgId, columns, ctx, predict);
          }),
        );
      try {
        return await attempt(true);
      } catch (error) {
        // Rolled back whole: done again the plain way (see insertWithEvents).
        if (error instanceof PredictionMissed) return attempt(false);
        throw error;
      }
    },

    update(orgId, id, patch) {
      return withConstraintErrors(definition, () =>
        store.transaction(async (tx) => {
          const ctx = context(orgId, tx);
          const current = await selectRow<TRow>(tx, table, orgId, id, true);
          if (!current) throw notFound(id);
          const columns = await definition.update(current, patch, ctx);
          const row = await updateRow(tx, definition, table, orgId, id, columns, ctx.now);
          const updated = render(row, ctx);
          await recordEvents(tx, orgId, ctx.now, changeEvents(definition, render(current, ctx), updated));
          return updated;
        }),
      );
    },

    delete(orgId, id) {
      return withConstraintErrors(definition, () =>
        store.transaction(async (tx) => {
          const ctx = context(orgId, tx);
          const current = await selectRow<TRow>(tx, table, orgId, id, true);
          if (!current) throw notFound(id);
          await definition.beforeDelete?.(current, ctx);
          await tx.query(`DELETE FROM ${table} WHERE org_id = $1 AND id = $2`, [orgId, id]);
          await recordEvents(tx, orgId, ctx.now, [
            { type: `${definition.object}.deleted`, object: render(current, ctx) },
          ]);
        }),
      );
    },
  };
}

/**
 * Records the events of a change one resource's rule made to another in the same
 * transaction (a payment that pays its invoice), exactly as the service would.
 */
export async function recordChange<TObject, TCreate, TUpdate>(
  ctx: RuleContext,
  definition: ResourceDefinition<TObject, TCreate, TUpdate>,
  before: TObject,
  after: TObject,
): Promise<void> {
  await recordEvents(ctx.tx, ctx.orgId, ctx.now, changeEvents(definition, before, after));
}

/**
 * The events a create (before undefined) or update records: `<object>.created` or
 * `<object>.updated` with previous_attributes (none when nothing changed), then the
 * resource's domain events, then its lifecycle's.
 */
function changeEvents<TObject>(
  definition: ResourceDefinition<TObject, unknown, unknown>,
  before: TObject | undefined,
  after: TObject,
): EventInput[] {
  const events: EventInput[] = [];
  let changed: Record<string, unknown> | undefined;
  if (before === undefined) {
    events.push({ type: `${definition.object}.created`, object: after });
  } else {
    changed = previousAttributes(before as object, after as object);
    if (Object.keys(changed).length === 0) return [];
    events.push({ type: `${definition.object}.updated`, object: after, previousAttributes: changed });
  }
  // Domain events of an update carry what changed too: a subscriber to `deal.stage_changed`
  // alone still sees the stage the deal left.
  const domain = [...(definition.events?.derive(before, after) ?? [])];
  const lifecycle = definition.lifecycle;
  if (lifecycle) {
    const state = (object: TObject) => (object as Record<string, unknown>)[lifecycle.param] as string;
    domain.push(...lifecycle.eventsOf(before === undefined ? undefined : state(before), state(after)));
  }
  for (const type of domain) {
    events.push({ type, object: after, previousAttributes: changed });
  }
  return events;
}

/**
 * A page over mutually exclusive branches: the first `offset + limit` rows of each
 * branch in order, merged. A `few` branch is fenced (OFFSET 0) so PostgreSQL finds
 * its rows through their own index and sorts them (its estimates cannot know the
 * branch is small, and would walk the sort index looking for them), sorting only
 * ids and sort keys so just the page's rows are read whole.
 */
function branchedPageSql(
  table: string,
  clauses: string[],
  branches: Branch[],
  column: string,
  order: string,
  paging: Paging,
): string {
  const enough = pageOffset(paging) + paging.perPage;
  const parts = branches.map((branch) => {
    const where = `WHERE ${[...clauses, `(${branch.sql})`].join(" AND ")}`;
    if (!branch.few) return `(SELECT * FROM ${table} ${where} ${order} LIMIT ${enough})`;
    const ids = `SELECT id FROM (SELECT id, ${column} FROM ${table} ${where} OFFSET 0) AS few ${order} LIMIT ${enough}`;
    return `(SELECT * FROM ${table} WHERE id IN (${ids}) ${order} LIMIT ${enough})`;
  });
  return `SELECT * FROM (${parts.join(" UNION ALL ")}) AS page ${order} ${limitOffsetSql(paging)}`;
}

/** The counts table that can total this query, if every filter reads only counted columns. */
function countsTable(
  definition: ResourceDefinition<unknown, unknown, unknown>,
  query: ListQuery,
): string | undefined {
  const counts = definition.counts;
  if (!counts || (query.q && definition.search.length > 0)) return undefined;
  if (query.createdAfter || query.createdBefore || query.updatedAfter || query.updatedBefore)
    return undefined;
  for (const [name, values] of Object.entries(query.filters)) {
    const filter = definition.filters[name];
    if (!filter || values.length === 0) continue;
    const columns = filter.kind === "custom" ? (filter.columns ?? [""]) : [filter.column ?? name];
    if (!columns.every((column) => counts.columns.includes(column))) return undefined;
  }
  return counts.table;
}

/**
 * The WHERE clause of a list query (organization first, as `$1`): what a list pages, and what
 * SYNC's counts and sums group (sync/tools/records.ts).
 */
export function buildWhere(
  definition: ResourceDefinition<unknown, unknown, unknown>,
  orgId: string,
  query: ListQuery,
  ctx: RuleContext,
): SqlWhere {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  const range = (column: string, op: string, at: Date | undefined) => {
    if (at) where.add(`${column} ${op} ${where.bind(at.toISOString())}::timestamptz`);
  };
  range("created_at", ">", query.createdAfter);
  range("created_at", "<", query.createdBefore);
  range("updated_at", ">", query.updatedAfter);
  range("updated_at", "<", query.updatedBefore);
  if (query.q && definition.search.length > 0) {
    const pattern = where.bind(likePattern(query.q));
    where.add(`(${definition.search.map((c) => `${c} ILIKE ${pattern}`).join(" OR ")})`);
  }
  for (const [name, values] of Object.entries(query.filters)) {
    const filter = definition.filters[name];
    if (!filter || values.length === 0) continue;
    const column = filter.kind === "custom" ? "" : (filter.column ?? name);
    switch (filter.kind) {
      case "enum":
        where.add(`${column} = ANY(${where.bind(values)}::text[])`);
        break;
      case "equals":
        where.add(`${column} = ${where.bind(values[0])}`);
        break;
      case "boolean":
        where.add(`${column} = ${where.bind(values[0] === "true")}`);
        break;
      case "date":
        where.add(`${column} ${filter.op} ${where.bind(values[0])}::date`);
        break;
      case "instant":
        where.add(`${column} ${filter.op} ${where.bind(instantOf(values[0]!).toISOString())}::timestamptz`);
        break;
      case "custom":
        filter.apply(values, where, ctx);
        break;
    }
  }
  return where;
}

/** The instant an `instant` filter's value names (already validated at the edge). */
function instantOf(value: string): Date {
  return new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
}

/**
 * A row of a list page: the total (and, when asked, the table's version) beside one of the
 * page's rows, or beside nulls when the page is empty (the LEFT JOIN LATERAL of `readPage`).
 */
type PageRow<TRow> = (TRow | { id: null }) & { tessera_total: number; tessera_version?: string };

function isPageRow<TRow extends ResourceRow>(row: PageRow<TRow>): row is PageRow<TRow> & TRow {
  return row.id !== null;
}

async function selectRow<TRow extends ResourceRow>(
  db: Queryable,
  table: string,
  orgId: string,
  id: string,
  forUpdate: boolean,
): Promise<TRow | undefined> {
  const lock = forUpdate ? " FOR UPDATE" : "";
  const rows = await db.query<TRow>(`SELECT * FROM ${table} WHERE org_id = $1 AND id = $2${lock}`, [
    orgId,
    id,
  ]);
  return rows[0];
}

function castFor(definition: ResourceDefinition<unknown, unknown, unknown>, column: string) {
  if (column === "metadata") return "jsonb";
  const type = definition.columns[column];
  if (!type) throw new Error(`${definition.name}: column ${column} is not declared`);
  return type;
}

// Both adapters serialize by the parameter's type: jsonb takes the JS value itself.
function bindValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * Inserts a new row and its `…created` events. The events need the rendered object,
 * which needs the row; to spare a round trip (each costs ~150 µs of syscalls), the row
 * is predicted from the values written, its events written in the same statement as
 * the row (a data-modifying CTE), and the prediction checked against the row returned.
 * A column left to its database default makes the prediction differ; the events are
 * then rewritten from the real row, in the same transaction, before anyone sees them.
 */
async function insertWithEvents<TObject, TRow extends ResourceRow>(
  tx: Queryable,
  definition: ResourceDefinition<TObject, unknown, unknown, TRow>,
  table: string,
  orgId: string,
  columns: Columns,
  ctx: RuleContext,
  predict: boolean,
): Promise<TObject> {
  const id = newId(definition.prefix);
  const predictedRow: Row = { id, org_id: orgId, created_at: ctx.now, updated_at: ctx.now };
  const names = ["id", "org_id", "created_at", "updated_at"];
  const values: unknown[] = [id, orgId, ctx.now.toISOString(), ctx.now.toISOString()];
  const placeholders = ["$1", "$2", "$3::timestamptz", "$4::timestamptz"];
  for (const [column, value] of Object.entries(columns)) {
    if (value === undefined) continue;
    const type = castFor(definition, column);
    names.push(column);
    values.push(bindValue(value));
    placeholders.push(`$${values.length}::${type}`);
    predictedRow[column] = value;
  }
  const insertRow = `INSERT INTO ${table} (${names.join(", ")}) VALUES (${placeholders.join(", ")}) RETURNING *`;
  const predicted = predict ? tryRender(definition, predictedRow, ctx) : undefined;
  if (predicted === undefined) {
    const [row] = await tx.query<TRow>(insertRow, values);
    const created = definition.render(row!, ctx);
    await recordEvents(tx, orgId, ctx.now, changeEvents(definition, undefined, created));
    return created;
  }
  const events = changeEvents(definition, undefined, predicted);
  const insertEvents = eventsInsert(orgId, ctx.now, events, values.length);
  const [row] = await tx.query<TRow>(
    `WITH created AS (${insertRow}), recorded AS (${insertEvents.sql}) SELECT * FROM created`,
    [...values, ...insertEvents.params],
  );
  const created = definition.render(row!, ctx);
  if (!sameValue(created, predicted)) {
    const actual = changeEvents(definition, undefined, created);
    // Other kinds than predicted: nothing of this attempt may stand (webhooks fan out by kind).
    if (actual.map((e) => e.type).join() !== events.map((e) => e.type).join()) throw new PredictionMissed();
    for (const [index, eventId] of insertEvents.ids.entries()) {
      await tx.query("UPDATE events SET data = $2::jsonb WHERE id = $1", [
        eventId,
        { object: actual[index]!.object },
      ]);
    }
  }
  return created;
}

/** A create whose predicted events were of other kinds than the real ones: redo it plainly. */
class PredictionMissed extends Error {}

/**
 * Renders the row a create predicts: built from the values written, not returned by the store, so
 * it may lack a column left to its default. The one row here that is asserted rather than read:
 * render may throw on it, and what it renders is checked against the stored row's (insertWithEvents).
 */
function tryRender<TObject, TRow extends ResourceRow>(
  definition: ResourceDefinition<TObject, unknown, unknown, TRow>,
  predicted: Row,
  ctx: RuleContext,
): TObject | undefined {
  try {
    return definition.render(predicted as TRow, ctx);
  } catch {
    return undefined;
  }
}

/** Deep equality of rendered objects (JSON values; key order ignored, as jsonb ignores it). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameValue(left[key], right[key]));
}

async function updateRow<TRow extends ResourceRow>(
  tx: Queryable,
  definition: ResourceDefinition<unknown, unknown, unknown, TRow>,
  table: string,
  orgId: string,
  id: string,
  columns: Columns,
  now: Date,
): Promise<TRow> {
  const values: unknown[] = [orgId, id, now.toISOString()];
  const sets = ["updated_at = $3::timestamptz"];
  for (const [column, value] of Object.entries(columns)) {
    if (value === undefined) continue;
    const type = castFor(definition, column);
    values.push(bindValue(value));
    sets.push(`${column} = $${values.length}::${type}`);
  }
  const rows = await tx.query<TRow>(
    `UPDATE ${table} SET ${sets.join(", ")} WHERE org_id = $1 AND id = $2 RETURNING *`,
    values,
  );
  return rows[0]!;
}

/** Maps integrity violations the rules could not foresee (races) to clear 409s. */
async function withConstraintErrors<T>(
  definition: ResourceDefinition<unknown, unknown, unknown>,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "23505") {
      throw new AppError("conflict", `A ${definition.object} with these unique values exists`, {
        cause: error,
      });
    }
    if (code === "23503") {
      throw new AppError(
        "conflict",
        `The ${definition.object} references or is referenced by another object`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

/**
 * Merges a metadata patch: a key set to "" is removed (Stripe's convention). The
 * key limit holds for the result, so a patch of new keys can be refused (422).
 */
export function mergeMetadata(
  current: Record<string, string>,
  patch: Record<string, string> | undefined,
): Record<string, string> | undefined {
  if (!patch) return undefined;
  const merged: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === "") delete merged[key];
    else merged[key] = value;
  }
  if (Object.keys(merged).length > MAX_METADATA_KEYS) {
    const message = `at most ${MAX_METADATA_KEYS} keys once merged; remove keys by setting them to ""`;
    throw new AppError("validation_failed", `metadata: ${message}`, {
      errors: [{ param: "metadata", code: "too_big", message }],
    });
  }
  return merged;
}

/** 422 unless `id` names an object of `table` in the same organization. */
export async function assertReference(
  ctx: RuleContext,
  table: string,
  id: string,
  param: string,
): Promise<void> {
  const rows = await ctx.tx.query(`SELECT 1 FROM ${table} WHERE org_id = $1 AND id = $2`, [ctx.orgId, id]);
  if (rows.length === 0) {
    throw new AppError("validation_failed", `No such object: '${id}'`, {
      errors: [{ param, code: "invalid_reference", message: `No such object: '${id}'` }],
    });
  }
}

/** Renders the base fields every object has. */
export function baseFields(row: Pick<ResourceRow, "id" | "created_at" | "updated_at">, object: string) {
  return {
    id: row.id,
    object,
    created_at: rfc(row.created_at),
    updated_at: rfc(row.updated_at),
  };
}

/** A `timestamptz` column as the API renders it: RFC 3339 UTC, second precision. */
export function rfc(value: Date): string {
  return rfc3339(value);
}

/**
 * A nullable `timestamptz` column: null stays null. It still takes `unknown` because
 * webhooks/deliveries.ts renders rows it has not typed yet; a row type gives it a `Date`.
 */
export function rfcOrNull(value: unknown): string | null {
  return value ? rfc3339(value as Date) : null;
}
