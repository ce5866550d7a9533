import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listMigrations, migrate, pendingMigrations, type Store } from "../../store/index.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * The store port's contract, the same on every adapter (Hono's `runTest` pattern):
 * the JS types a query returns, transactions that commit or roll back whole, and
 * migrations that apply once. Every other suite relies on these.
 */
describe.each(storeKinds())("store contract on $name", (kind) => {
  let store: Store;
  const table = `contract_${Math.random().toString(36).slice(2, 10)}`;

  beforeAll(async () => {
    store = await kind.open();
    await store.exec(`
      CREATE TABLE ${table} (id text PRIMARY KEY, n integer NOT NULL CHECK (n >= 0), note text);
      CREATE INDEX ${table}_n ON ${table} (n);
    `);
  });
  afterAll(async () => {
    await store.exec(`DROP TABLE IF EXISTS ${table}`);
    await store.dispose();
  });

  const count = async () => (await store.query<{ c: number }>(`SELECT count(*) AS c FROM ${table}`))[0]!.c;

  it("returns numeric as an exact string, int8 as a number, date as YYYY-MM-DD, timestamptz as Date, jsonb parsed", async () => {
    const [row] = await store.query<Record<string, unknown>>(
      `SELECT 12345678901.2345::numeric AS amount, 42::int8 AS big, '2024-02-29'::date AS day,
              '2025-03-15T10:00:00Z'::timestamptz AS at, '{"a":[1,"x"]}'::jsonb AS doc, NULL::text AS nothing`,
    );
    expect(row).toEqual({
      amount: "12345678901.2345",
      big: 42,
      day: "2024-02-29",
      at: new Date("2025-03-15T10:00:00Z"),
      doc: { a: [1, "x"] },
      nothing: null,
    });
  });

  it("binds parameters as values, never as SQL", async () => {
    const hostile = "x'); DROP TABLE organizations; --";
    await store.query(`INSERT INTO ${table} (id, n, note) VALUES ($1, $2, $3)`, ["bind", 1, hostile]);
    const [row] = await store.query<{ note: string }>(`SELECT note FROM ${table} WHERE id = $1`, ["bind"]);
    expect(row!.note).toBe(hostile);
    // The statement the value spells out did not run: the table it names is still there.
    const [still] = await store.query<{ name: string | null }>(
      "SELECT to_regclass('organizations')::text AS name",
    );
    expect(still!.name).toBe("organizations");
  });

  it("commits every statement of a transaction together and returns its result", async () => {
    const before = await count();
    const result = await store.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${table} (id, n) VALUES ('t1', 1)`);
      await tx.query(`INSERT INTO ${table} (id, n) VALUES ('t2', 2)`);
      return (await tx.query<{ c: number }>(`SELECT count(*) AS c FROM ${table}`))[0]!.c;
    });
    expect(result).toBe(before + 2);
    expect(await count()).toBe(before + 2);
  });

  it("rolls back every statement when the function throws", async () => {
    const before = await count();
    await expect(
      store.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${table} (id, n) VALUES ('r1', 1)`);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await count()).toBe(before);
  });

  it("rolls back the earlier statements when a later one fails, and the store stays usable", async () => {
    const before = await count();
    const failing = store.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${table} (id, n) VALUES ('f1', 1)`);
      await tx.query(`INSERT INTO ${table} (id, n) VALUES ('f2', -1)`); // violates the CHECK
    });
    await expect(failing).rejects.toMatchObject({ code: "23514" });
    expect(await count()).toBe(before);
    await store.transaction((tx) => tx.query(`INSERT INTO ${table} (id, n) VALUES ('f3', 3)`));
    expect(await count()).toBe(before + 1);
  });

  it("runs a transaction that issues no statement", async () => {
    await expect(store.transaction(() => Promise.resolve("nothing"))).resolves.toBe("nothing");
  });

  it("keeps concurrent transactions apart: a rolled-back one leaves no trace beside a committed one", async () => {
    const before = await count();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        store.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${table} (id, n) VALUES ($1, $2)`, [`c${i}`, i]);
          if (i % 2 === 1) throw new Error(`odd ${i}`);
        }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(4);
    expect(await count()).toBe(before + 4);
    const odd = await store.query(`SELECT id FROM ${table} WHERE id = ANY($1::text[])`, [
      ["c1", "c3", "c5", "c7"],
    ]);
    expect(odd).toEqual([]);
  });

  it("applies migrations once: a second run applies nothing and none is pending", async () => {
    expect(await migrate(store)).toEqual([]);
    expect(await pendingMigrations(store)).toEqual([]);
    const applied = await store.query<{ version: number }>(
      "SELECT version FROM tessera_migrations ORDER BY version",
    );
    expect(applied.map((row) => row.version)).toEqual(listMigrations().map((m) => m.version));
  });
});
