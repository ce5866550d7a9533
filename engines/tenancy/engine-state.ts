import { AppError, rfc3339, type Clock } from "../../core/index.ts";
import type { Queryable, Store } from "../../store/index.ts";
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../paging.ts";
import { ENGINES, rfc, type Engine } from "../resource.ts";
import { jsonValueProblem, keyProblem, type JsonValue } from "./engine-state-rules.ts";

export * from "./engine-state-schemas.ts";
export * from "./engine-state-rules.ts";

/**
 * Engine state: a JSON key-value store per organization and engine, the scratch space of
 * edge functions (`ctx.engines.finance.get/set/list`) and integrations
 * (`/v1/engines/finance/state`). Writes record no event: state is not business data.
 *
 * @example
 *   const state = createEngineStateService(store, clock);
 *   const entry = await state.set(orgId, "finance", "sync/cursor", { page: 3 });
 *   await state.set(orgId, "finance", "sync/cursor", { page: 4 }, { ifVersion: entry.version });
 *   const { entries, nextCursor } = await state.list(orgId, "finance", { prefix: "sync/", limit: 25 });
 */

/** Entries one organization may hold over every engine, unless the operator says otherwise. */
export const DEFAULT_STATE_MAX_ENTRIES = 100_000;
export const DEFAULT_STATE_LIST_LIMIT = DEFAULT_PER_PAGE;
export const MAX_STATE_LIST_LIMIT = MAX_PER_PAGE;

export interface EngineStateEntry {
  key: string;
  value: JsonValue;
  /** 1 when the key was created, + 1 on every write since. */
  version: number;
  created_at: string;
  updated_at: string;
}

export interface EngineStateSetOptions {
  /** Write only if the key is at this version; `0` means only if it does not exist yet. */
  ifVersion?: number;
  /** Write only if the key exists (HTTP `If-Match: *`). */
  ifExists?: boolean;
}

export interface EngineStateListOptions {
  /** Only keys that start with this. */
  prefix?: string;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** 1–100 entries. */
  limit: number;
}

export interface EngineStatePage {
  entries: EngineStateEntry[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface EngineStateService {
  get(orgId: string, engine: Engine, key: string): Promise<EngineStateEntry | null>;
  /** Creates or replaces; the result's `version` is 1 when the key was created. */
  set(
    orgId: string,
    engine: Engine,
    key: string,
    value: unknown,
    options?: EngineStateSetOptions,
  ): Promise<EngineStateEntry>;
  /** Whether a key was deleted; `ifVersion` deletes only that version. */
  delete(orgId: string, engine: Engine, key: string, options?: { ifVersion?: number }): Promise<boolean>;
  /** Keys in code point order, one page at a time (keyset pagination on the key). */
  list(orgId: string, engine: Engine, options: EngineStateListOptions): Promise<EngineStatePage>;
}

export interface EngineStateServiceOptions {
  /** Entries per organization over every engine (TESSERA_ENGINE_STATE_MAX_ENTRIES). */
  maxEntries?: number;
}

const COLUMNS = "key, value, version, created_at, updated_at";

/** An `engine_state` row's `COLUMNS` as the store returns them (migration 0011). */
interface EngineStateRow {
  key: string;
  /** jsonb, written only once `jsonValueProblem` found none */
  value: JsonValue;
  /** int8 */
  version: number;
  created_at: Date;
  updated_at: Date;
}

export function createEngineStateService(
  store: Store,
  clock: Clock,
  options: EngineStateServiceOptions = {},
): EngineStateService {
  const maxEntries = options.maxEntries ?? DEFAULT_STATE_MAX_ENTRIES;
  return {
    async get(orgId, engine, key) {
      checkEngine(engine);
      checkKey(key);
      return (await selectEntry(store, orgId, engine, key)) ?? null;
    },

    async set(orgId, engine, key, value, conditions = {}) {
      checkEngine(engine);
      checkKey(key);
      const json = serialize(value);
      checkConditions(conditions);
      const now = rfc3339(clock.now());
      return store.transaction(async (tx) => {
        const written = await write(tx, [orgId, engine, key, json, now], conditions);
        if (!written) throw await preconditionFailed(tx, orgId, engine, key, conditions);
        // A new key counts against the cap; the counter row serializes creations per organization.
        if (written.version === 1) await countCreated(tx, orgId, maxEntries);
        return written;
      });
    },

    async delete(orgId, engine, key, conditions = {}) {
      checkEngine(engine);
      checkKey(key);
      checkConditions(conditions);
      return store.transaction(async (tx) => {
        const deleted = await deleteEntry(tx, orgId, engine, key, conditions.ifVersion);
        if (deleted) await countDeleted(tx, orgId);
        else if (conditions.ifVersion !== undefined) {
          const current = await selectEntry(tx, orgId, engine, key);
          if (current) throw await preconditionFailed(tx, orgId, engine, key, conditions);
        }
        return deleted;
      });
    },

    async list(orgId, engine, query) {
      checkEngine(engine);
      const { prefix, after, limit } = checkList(query);
      const rows = await selectPage(store, orgId, engine, prefix, after, limit + 1);
      const entries = rows.slice(0, limit).map(render);
      const last = entries.at(-1);
      return { entries, nextCursor: rows.length > limit && last ? encodeCursor(last.key) : null };
    },
  };
}

/** The opaque cursor after `key`: base64url of its UTF-8. */
export function encodeCursor(key: string): string {
  return Buffer.from(key, "utf8").toString("base64url");
}

/** The key a cursor stands for, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,4096}$/.test(cursor)) return undefined;
  const key = Buffer.from(cursor, "base64url").toString("utf8");
  return encodeCursor(key) === cursor && !keyProblem(key, 1) ? key : undefined;
}

/** The first string after every string that starts with `prefix`, in code point order. */
export function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  while (points.length > 0) {
    let next = points.pop()! + 1;
    if (next === 0xd800) next = 0xe000; // surrogates are not characters
    if (next <= 0x10ffff) return String.fromCodePoint(...points, next);
  }
  return undefined;
}

function checkEngine(engine: string): asserts engine is Engine {
  if (!(ENGINES as readonly string[]).includes(engine)) {
    throw invalid("engine", `must be one of ${ENGINES.join(", ")}`);
  }
}

function checkKey(key: unknown): asserts key is string {
  const problem = typeof key === "string" ? keyProblem(key, 1) : "must be a string";
  if (problem) throw invalid("key", problem);
}

function serialize(value: unknown): string {
  const problem =
    value === undefined
      ? { path: [], message: "is required: any JSON value, null included" }
      : jsonValueProblem(value);
  if (problem) {
    const param = problem.path.reduce<string>(
      (acc, part) => (typeof part === "number" ? `${acc}[${part}]` : `${acc}.${part}`),
      "value",
    );
    throw invalid(param, problem.message);
  }
  return JSON.stringify(value);
}

function checkConditions(conditions: EngineStateSetOptions): void {
  const { ifVersion } = conditions;
  if (ifVersion !== undefined && !(Number.isSafeInteger(ifVersion) && ifVersion >= 0)) {
    throw invalid("ifVersion", "must be an integer ≥ 0 (0: the key must not exist)");
  }
  if (ifVersion !== undefined && conditions.ifExists) {
    throw invalid("ifExists", "give ifVersion or ifExists, not both");
  }
}

function checkList(query: EngineStateListOptions): { prefix: string; after?: string; limit: number } {
  const { limit } = query;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_STATE_LIST_LIMIT) {
    throw invalid("limit", `must be an integer from 1 to ${MAX_STATE_LIST_LIMIT}`);
  }
  const prefix = query.prefix ?? "";
  const problem = keyProblem(prefix, 0);
  if (problem) throw invalid("prefix", problem);
  if (query.cursor === undefined) return { prefix, limit };
  const after = decodeCursor(query.cursor);
  if (after === undefined) throw invalid("cursor", "is not a cursor this list returned");
  return { prefix, after, limit };
}

function invalid(param: string, message: string): AppError {
  return new AppError("validation_failed", `${param}: ${message}`, {
    errors: [{ param, code: "invalid", message }],
  });
}

function render(row: EngineStateRow): EngineStateEntry {
  return {
    key: row.key,
    value: row.value,
    version: Number(row.version),
    created_at: rfc(row.created_at),
    updated_at: rfc(row.updated_at),
  };
}

async function selectEntry(
  db: Queryable,
  orgId: string,
  engine: Engine,
  key: string,
): Promise<EngineStateEntry | undefined> {
  const rows = await db.query<EngineStateRow>(
    `SELECT ${COLUMNS} FROM engine_state WHERE org_id = $1 AND engine = $2 AND key = $3`,
    [orgId, engine, key],
  );
  return rows[0] && render(rows[0]);
}

/**
 * One statement per kind of write, so concurrent writers never lose one another's
 * write: the upsert takes the row lock, and a conditional UPDATE re-checks its
 * version after waiting for a concurrent writer (READ COMMITTED), so one of two
 * racing `ifVersion` writes wins and the other matches nothing.
 */
async function write(
  tx: Queryable,
  params: [orgId: string, engine: Engine, key: string, json: string, now: string],
  { ifVersion, ifExists }: EngineStateSetOptions,
): Promise<EngineStateEntry | undefined> {
  const insert = `INSERT INTO engine_state (org_id, engine, key, value, version, created_at, updated_at)
     VALUES ($1, $2, $3, $4::text::jsonb, 1, $5::timestamptz, $5::timestamptz)`;
  const update = `UPDATE engine_state SET value = $4::text::jsonb, version = version + 1, updated_at = $5::timestamptz
     WHERE org_id = $1 AND engine = $2 AND key = $3`;
  let rows: EngineStateRow[];
  if (ifVersion === 0) {
    rows = await tx.query<EngineStateRow>(
      `${insert} ON CONFLICT (org_id, engine, key) DO NOTHING RETURNING ${COLUMNS}`,
      params,
    );
  } else if (ifVersion !== undefined) {
    rows = await tx.query<EngineStateRow>(`${update} AND version = $6 RETURNING ${COLUMNS}`, [
      ...params,
      ifVersion,
    ]);
  } else if (ifExists) {
    rows = await tx.query<EngineStateRow>(`${update} RETURNING ${COLUMNS}`, params);
  } else {
    rows = await tx.query<EngineStateRow>(
      `${insert} ON CONFLICT (org_id, engine, key) DO UPDATE
       SET value = EXCLUDED.value, version = engine_state.version + 1, updated_at = EXCLUDED.updated_at
       RETURNING ${COLUMNS}`,
      params,
    );
  }
  return rows[0] && render(rows[0]);
}

async function deleteEntry(
  tx: Queryable,
  orgId: string,
  engine: Engine,
  key: string,
  ifVersion: number | undefined,
): Promise<boolean> {
  const rows = await tx.query(
    `DELETE FROM engine_state WHERE org_id = $1 AND engine = $2 AND key = $3
     AND ($4::bigint IS NULL OR version = $4::bigint) RETURNING key`,
    [orgId, engine, key, ifVersion ?? null],
  );
  return rows.length > 0;
}

/** Why a conditional write matched nothing, read after the fact (for the message only). */
async function preconditionFailed(
  tx: Queryable,
  orgId: string,
  engine: Engine,
  key: string,
  { ifVersion }: EngineStateSetOptions,
): Promise<AppError> {
  const current = await selectEntry(tx, orgId, engine, key);
  const state = current ? `is at version ${current.version}` : "does not exist";
  const wanted =
    ifVersion === undefined
      ? "it must exist"
      : ifVersion === 0
        ? "it must not exist"
        : `expected ${ifVersion}`;
  return new AppError("precondition_failed", `Key '${key.slice(0, 100)}' ${state}; ${wanted}`);
}

async function countCreated(tx: Queryable, orgId: string, maxEntries: number): Promise<void> {
  const rows = await tx.query<{ entries: number }>(
    `INSERT INTO engine_state_counts AS c (org_id, entries) VALUES ($1, 1)
     ON CONFLICT (org_id) DO UPDATE SET entries = c.entries + 1 RETURNING entries`,
    [orgId],
  );
  if (Number(rows[0]!.entries) > maxEntries) {
    throw new AppError(
      "conflict",
      `The organization holds the maximum of ${maxEntries} engine state entries; delete some first`,
    );
  }
}

async function countDeleted(tx: Queryable, orgId: string): Promise<void> {
  await tx.query("UPDATE engine_state_counts SET entries = entries - 1 WHERE org_id = $1", [orgId]);
}

async function selectPage(
  db: Queryable,
  orgId: string,
  engine: Engine,
  prefix: string,
  after: string | undefined,
  limit: number,
): Promise<EngineStateRow[]> {
  // A prefix is a key range, so the primary key's index serves it in order (migration 0011).
  const conditions = ["org_id = $1", "engine = $2"];
  const params: unknown[] = [orgId, engine];
  const bound = (sql: string, value: string) => {
    params.push(value);
    conditions.push(`${sql} $${params.length}`);
  };
  if (prefix) bound("key >=", prefix);
  const end = prefix ? prefixEnd(prefix) : undefined;
  if (end !== undefined) bound("key <", end);
  if (after !== undefined) bound("key >", after);
  params.push(limit);
  return db.query<EngineStateRow>(
    `SELECT ${COLUMNS} FROM engine_state WHERE ${conditions.join(" AND ")} ORDER BY key LIMIT $${params.length}`,
    params,
  );
}
